# make install / uninstall, man pages, and the static build.
D=$T/dest
make -s -C "$ROOT" install DESTDIR="$D" PREFIX=/usr/local >"$T/inst.out" 2>&1
check "make install succeeds" test -x "$D/usr/local/sbin/offcputime"
for t in offcputime syswatch wakers pfwatch schedsilence hitmtop; do
	[ -x "$ROOT/$t" ] || continue
	check "$t installed" test -x "$D/usr/local/sbin/$t"
	check "installed $t runs from elsewhere (-V)" sh -c "cd / && '$D/usr/local/sbin/$t' -V | grep -q '^$t '"
	if [ -f "$ROOT/docs/$t.md" ]; then
		check "man page of $t installed" test -s "$D/usr/local/share/man/man8/$t.8"
		check "man page of $t renders with its NAME" sh -c "man -l '$D/usr/local/share/man/man8/$t.8' 2>/dev/null | grep -q '$t - '"
	fi
done
make -s -C "$ROOT" uninstall DESTDIR="$D" PREFIX=/usr/local >/dev/null 2>&1
check_eq "make uninstall leaves no file" "$(find "$D" -type f | wc -l)" 0
make -s -C "$ROOT" static >"$T/static.out" 2>&1
check "static build links" test -x "$ROOT/build-static/bin/offcputime"
check_nogrep "static offcputime needs no libbpf, libelf or libdw .so" 'libbpf|libelf|libdw|libz\.' \
	<(ldd "$ROOT/build-static/bin/offcputime" 2>&1)
check "static offcputime runs (-V)" "$ROOT/build-static/bin/offcputime" -V
