# make install / uninstall, man pages, and the static build.
D=$T/dest
make -s -C "$ROOT" install DESTDIR="$D" PREFIX=/usr/local >"$T/inst.out" 2>&1
check "make install succeeds" test -x "$D/usr/local/sbin/offcputime"
for t in offcputime syswatch wakers pfwatch schedsilence hitmtop hotcheck; do
	[ -x "$ROOT/$t" ] || continue
	check "$t installed" test -x "$D/usr/local/sbin/$t"
	check "installed $t runs from elsewhere (-V)" sh -c "cd / && '$D/usr/local/sbin/$t' -V | grep -q '^$t '"
	if [ -f "$ROOT/docs/$t.md" ]; then
		check "man page of $t installed" test -s "$D/usr/local/share/man/man8/$t.8"
		check "man page of $t renders with its NAME" sh -c "man -l '$D/usr/local/share/man/man8/$t.8' 2>/dev/null | grep -Eq '$t +- '"
	fi
done
# No path back into the source tree: the only mentions of it in the
# installed binaries are the names of their source files, kept for
# debuggers (DWARF comp_dir, BTF line info of the embedded BPF objects);
# and each tool really runs (loads and attaches its BPF) with the source
# tree hidden behind an empty tmpfs, in a mount namespace of its own.
for t in offcputime syswatch wakers pfwatch schedsilence hitmtop hotcheck; do
	[ -x "$D/usr/local/sbin/$t" ] || continue
	strings -a "$D/usr/local/sbin/$t" | grep -F "$ROOT" |
		grep -Ev "^$ROOT(/[A-Za-z0-9_./-]+\.[ch])?\$" >"$T/strings.$t"
	check_nogrep "installed $t names no source-tree path but its source files" . "$T/strings.$t"
done
if unshare -m true 2>/dev/null; then
	S=$D/usr/local/sbin
	unshare -m bash -c '
		mount -t tmpfs none "$1" || exit 9
		S=$2
		"$S/offcputime" -d 0.3 >/dev/null 2>&1; echo "offcputime $?"
		"$S/syswatch" -d 0.3 >/dev/null 2>&1; echo "syswatch $?"
		"$S/wakers" -d 0.3 >/dev/null 2>&1; echo "wakers $?"
		"$S/pfwatch" -d 0.3 >/dev/null 2>&1; echo "pfwatch $?"
		# an intruder of its own on CPU 0, waking every 10 ms: the
		# verdict must not rest on what else the machine runs
		taskset -c 0 sh -c "while :; do sleep 0.01; done" & n=$!
		"$S/schedsilence" -C 0 -d 0.3 >/dev/null 2>&1; echo "schedsilence $?"
		kill $n; wait $n 2>/dev/null
		"$S/hitmtop" --load-only >/dev/null 2>&1; echo "hitmtop $?"
		ls -A "$1" | wc -l' _ "$ROOT" "$S" >"$T/hidden.out" 2>&1
	check_eq "source tree hidden while the installed tools run" "$(tail -1 "$T/hidden.out")" 0
	for t in offcputime syswatch wakers pfwatch hitmtop; do
		check_grep "installed $t traces with the source tree hidden (exit 0)" "^$t 0\$" "$T/hidden.out"
	done
	# schedsilence's verdict on a CPU with an intruder pinned on it: 1
	check_grep "installed schedsilence watches with the source tree hidden (exit 1)" '^schedsilence 1$' "$T/hidden.out"
else
	fail "unshare -m (a mount namespace to hide the source tree) works here"
fi
make -s -C "$ROOT" uninstall DESTDIR="$D" PREFIX=/usr/local >/dev/null 2>&1
check_eq "make uninstall leaves no file" "$(find "$D" -type f | wc -l)" 0
make -s -C "$ROOT" static >"$T/static.out" 2>&1
check "static build links" test -x "$ROOT/build-static/bin/offcputime"
check_nogrep "static offcputime needs no libbpf, libelf or libdw .so" 'libbpf|libelf|libdw|libz\.' \
	<(ldd "$ROOT/build-static/bin/offcputime" 2>&1)
check "static offcputime runs (-V)" sh -c "'$ROOT/build-static/bin/offcputime' -V >/dev/null"
for t in syswatch wakers pfwatch schedsilence hitmtop; do
	[ -x "$ROOT/$t" ] || continue
	check "static $t built and runs (-V)" sh -c "'$ROOT/build-static/bin/$t' -V >/dev/null"
	check_nogrep "static $t needs no libbpf, libelf or libdw .so" 'libbpf|libelf|libdw|libz\.' \
		<(ldd "$ROOT/build-static/bin/$t" 2>&1)
done
