# Rust (legacy and v0 mangling) and C++ workloads: demangled names, and
# --inline frames with their file:line under --lines.
OC=$BIN/offcputime
SW=$BIN/syswatch
RS=$ROOT/tests/workloads/rust_blocker.rs
CC_SRC=$ROOT/tests/workloads/cpp_blocker.cc
line_of() { grep -n -- "$2" "$1" | head -1 | cut -d: -f1; }
# where apply calls settle, settle calls nap, and nap's system call returns
L_APPLY=$(line_of "$RS" '            settle(ms);')
L_SETTLE=$(line_of "$RS" '        nap(ms);')
L_NAP=$(line_of "$RS" 'if ret != -4')
# the blocks of one stack: exact counts (offcputime's JSON count), of
# the sleeps (a preemption in the same function is another interval: the
# runs take --state S).  A sleep whose switch-in the kernel did not report
# has its kernel stack lost (switch_ins_unreported, see test_offcputime)
blocks() { json_get "$1" "sum(s['count'] for s in d['stacks'] if '$2' in ';'.join(s['user_stack']) and ('hrtimer_nanosleep' in s['kernel_stack'] or s['kernel_stack'] == ['[kernel stack lost]']))"; }

for v in rust_blocker rust_blocker_v0; do
	if [ ! -x "$WL/$v" ]; then
		echo "ok - $TEST_FILE: # SKIP $v: not built (rustc not found: Debian's rustc package)"
		continue
	fi
	start_wl_held "$v" 20 30 0
	run_held "$T/$v.j" "$T/$v.e" "$OC" -p "$WL_PID" --state S -j -d 10
	check_eq "$v: the 20 blocks in rust_blocker::book::apply, exactly" \
		"$(blocks "$T/$v.j" 'rust_blocker::book::apply')" 20
	check_eq "$v: no mangled frame left (_R..., _ZN...17h...)" \
		"$(json_get "$T/$v.j" "len([f for s in d['stacks'] for f in s['user_stack'] if f.startswith('_R') or f.startswith('_ZN')])")" 0
	check_eq "$v: std's thread start demangled" \
		"$(json_get "$T/$v.j" "any('<std::sys::thread::unix::Thread>::new::thread_start' in s['user_stack'] for s in d['stacks'])")" True
	start_wl_held "$v" 20 30 0
	run_held "$T/$v.f" "$T/$v.fe" "$OC" -p "$WL_PID" --state S -f --inline -d 10
	check_eq "--inline $v: apply, then settle and nap inlined in it, one line ending in the nanosleep" \
		"$(grep -c ';rust_blocker::book::apply;rust_blocker::book::settle;rust_blocker::book::nap;.*;hrtimer_nanosleep_\[k\] [0-9]*$' "$T/$v.f")" 1
	check_grep "--inline $v: the closure inlined in std's short backtrace is shown" \
		';rust_blocker::main::\{(closure#0|\{closure\})\};rust_blocker::book::apply;' "$T/$v.f"
	start_wl_held "$v" 20 30 0
	run_held "$T/$v.l" "$T/$v.le" "$OC" -p "$WL_PID" --state S -j --inline --lines -d 10
	check_eq "--inline --lines $v: each frame at its own line (call sites, then the system call)" \
		"$(blocks "$T/$v.l" "rust_blocker::book::apply (rust_blocker.rs:$L_APPLY);rust_blocker::book::settle (rust_blocker.rs:$L_SETTLE);rust_blocker::book::nap (rust_blocker.rs:$L_NAP)")" 20
	check_eq "--inline -j $v: inlined frames counted" \
		"$(json_get "$T/$v.l" "d['frames']['user_inlined'] > 0")" True
	# the JSON marks each frame: settle and nap inlined, apply not
	check_eq "--inline -j $v: user_frames marks settle and nap inlined, apply not (every block's stack)" \
		"$(json_get "$T/$v.l" "sorted(set((f['name'].partition(' (')[0], f['inlined']) for s in d['stacks'] if 'hrtimer_nanosleep' in s['kernel_stack'] for f in s['user_frames'] if 'rust_blocker::book::' in f['name']))")" \
		"[('rust_blocker::book::apply', False), ('rust_blocker::book::nap', True), ('rust_blocker::book::settle', True)]"
	check_eq "--inline -j $v: user_frames holds user_stack's names, in order" \
		"$(json_get "$T/$v.l" "all([f['name'] for f in s['user_frames']] == s['user_stack'] for s in d['stacks'])")" True
done

# syswatch's slow calls, the same workload: every nanosleep, its stack
if [ -x "$WL/rust_blocker_v0" ]; then
	start_wl_held rust_blocker_v0 10 30 0
	run_held "$T/sw" "$T/swe" "$SW" -p "$WL_PID" --slower-than 10000 --inline -d 10
	check_eq "syswatch --inline: the 10 nanosleeps, each with nap inlined in settle in apply" \
		"$(grep -c -x '    rust_blocker::book::nap' "$T/sw")" 10
	check_eq "syswatch --inline: settle under apply, each time" \
		"$(grep -A1 -x '    rust_blocker::book::settle' "$T/sw" | grep -c -x '    rust_blocker::book::apply')" 10
fi

# wakers: the waker's stack, a futex wake made in kick, inlined in post,
# inlined in ring: 10 wakeups of rs_waiter, each with the chain at its lines
if [ -x "$WL/rust_blocker_v0" ]; then
	WK=$BIN/wakers
	L_RING=$(line_of "$RS" '            post(&WORD);')
	L_POST=$(line_of "$RS" '        kick(w);')
	L_KICK=$(line_of "$RS" 'std::hint::black_box(woken);')
	wakeups() { json_get "$1" "sum(w['count'] for w in d['wakeups'] if w['waker']['comm'] == 'rs_blocker' and w['target']['comm'] == 'rs_waiter' and '$2' in ';'.join(w['user_stack']))"; }
	start_wl_held rust_blocker_v0 10 30 0 wake
	run_held "$T/wk" "$T/wke" "$WK" -p "$WL_PID" -j -d 10
	check_eq "wakers: the 10 wakeups of rs_waiter come from rust_blocker::bell::ring" \
		"$(wakeups "$T/wk" 'rust_blocker::bell::ring')" 10
	check_eq "wakers without --inline: no inlined frame (post, kick) shown" \
		"$(wakeups "$T/wk" 'rust_blocker::bell::post')" 0
	start_wl_held rust_blocker_v0 10 30 0 wake
	run_held "$T/wki" "$T/wkie" "$WK" -p "$WL_PID" -j --inline --lines -d 10
	check_eq "wakers --inline --lines: ring, then post and kick inlined in it, at their lines, 10 wakeups" \
		"$(wakeups "$T/wki" "rust_blocker::bell::ring (rust_blocker.rs:$L_RING);rust_blocker::bell::post (rust_blocker.rs:$L_POST);rust_blocker::bell::kick (rust_blocker.rs:$L_KICK)")" 10
	check_eq "wakers --inline -j: post and kick marked inlined, ring not" \
		"$(json_get "$T/wki" "sorted(set((f['name'].partition(' (')[0], f['inlined']) for w in d['wakeups'] if w['target']['comm'] == 'rs_waiter' for f in w['user_frames'] if 'rust_blocker::bell::' in f['name']))")" \
		"[('rust_blocker::bell::kick', True), ('rust_blocker::bell::post', True), ('rust_blocker::bell::ring', False)]"
	start_wl_held rust_blocker_v0 10 30 0 wake
	run_held "$T/wkf" "$T/wkfe" "$WK" -p "$WL_PID" -f --inline -d 10
	check_grep "wakers -f --inline: the inlined frames are ordinary folded frames" \
		';rust_blocker::bell::ring;rust_blocker::bell::post;rust_blocker::bell::kick;' "$T/wkf"
fi

# pfwatch: 500 fresh pages written in touch, inlined in fill: 500 faults
# there (fill's loop is unrolled: several addresses, each its stack)
if [ -x "$WL/rust_blocker_v0" ]; then
	PF=$BIN/pfwatch
	L_FILL=$(line_of "$RS" '            touch(p, i);')
	L_TOUCH=$(line_of "$RS" 'std::ptr::write_volatile(p.add(i \* PAGE), 1)')
	faults_in() { json_get "$1" "sum(e['count'] for e in d['faults'] if e['comm'] == 'rs_blocker' and '$2' in ';'.join(e['user_stack']))"; }
	start_wl_held rust_blocker_v0 500 30 0 fault
	run_held "$T/pf" "$T/pfe" "$PF" -p "$WL_PID" -j -d 10
	check_eq "pfwatch: the 500 faults in rust_blocker::pages::fill" "$(faults_in "$T/pf" 'rust_blocker::pages::fill')" 500
	check_eq "pfwatch without --inline: touch not shown" "$(faults_in "$T/pf" 'rust_blocker::pages::touch')" 0
	start_wl_held rust_blocker_v0 500 30 0 fault
	run_held "$T/pfi" "$T/pfie" "$PF" -p "$WL_PID" -j --inline --lines -d 10
	check_eq "pfwatch --inline --lines: touch inlined under fill, at their lines, 500 faults" \
		"$(faults_in "$T/pfi" "rust_blocker::pages::fill (rust_blocker.rs:$L_FILL);rust_blocker::pages::touch (rust_blocker.rs:$L_TOUCH)")" 500
	check_eq "pfwatch --inline -j: touch marked inlined, fill not" \
		"$(json_get "$T/pfi" "sorted(set((f['name'].partition(' (')[0], f['inlined']) for e in d['faults'] if e['comm'] == 'rs_blocker' for f in e['user_frames'] if 'rust_blocker::pages::' in f['name']))")" \
		"[('rust_blocker::pages::fill', False), ('rust_blocker::pages::touch', True)]"
fi

# C++: a member of a class template, and the inline member in it
if [ -x "$WL/cpp_blocker" ]; then
	start_wl_held cpp_blocker 20 30 0
	run_held "$T/c.f" "$T/c.e" "$OC" -p "$WL_PID" -f -d 10
	check_grep "C++: the template member demangled" ';blocker\(void\*\);ledger::Book<int>::apply\(long, long\);' "$T/c.f"
	start_wl_held cpp_blocker 20 30 0
	run_held "$T/c.l" "$T/c.le" "$OC" -p "$WL_PID" --state S -j --inline --lines -d 10
	check_eq "C++ --inline --lines: settle inlined in apply, at its lines, 20 blocks" \
		"$(blocks "$T/c.l" "ledger::Book<int>::apply(long, long) (cpp_blocker.cc:$(line_of "$CC_SRC" '			settle(ms);'));ledger::Book<int>::settle(long) (cpp_blocker.cc:")" 20
	# --no-params: the same names without their parameter lists, the
	# inlined one too (its name comes from DWARF, not the symbol table)
	start_wl_held cpp_blocker 20 30 0
	run_held "$T/c.np" "$T/c.npe" "$OC" -p "$WL_PID" --state S -j --inline --no-params -d 10
	check_eq "C++ --no-params: blocker, apply and settle inlined in it, without parameters, 20 blocks" \
		"$(blocks "$T/c.np" ';blocker;ledger::Book<int>::apply;ledger::Book<int>::settle')" 20
	check_eq "C++ --no-params: no parameter list left in a frame of the workload" \
		"$(json_get "$T/c.np" "sum(1 for s in d['stacks'] for f in s['user_stack'] if ('ledger::' in f or f.startswith('blocker')) and '(' in f)")" 0
else
	echo "ok - $TEST_FILE: # SKIP cpp_blocker: not built (no C++ compiler)"
fi

# no debug info: the frame stays one, counted
if [ -x "$WL/rust_blocker_v0" ]; then
	objcopy --strip-debug "$WL/rust_blocker_v0" "$T/rs_nodebug"
	WL_GO=$T/go9 start_cmd "$T/rs_nodebug" 5 30 0
	"$OC" -p "$WL_PID" --state S -j --inline -d 10 >"$T/n.j" 2>"$T/n.e" &
	oc=$!; wait_line "$T/n.e" tracing; touch "$T/go9"; wait "$oc"; wait_wl
	check_eq "no debug info: apply is one frame, its 5 blocks" "$(blocks "$T/n.j" 'rust_blocker::book::apply')" 5
	check_eq "no debug info: nothing inlined shown" "$(blocks "$T/n.j" 'book::settle')" 0
	check "no debug info: the frames without inline information counted" \
		test "$(json_get "$T/n.j" "d['frames']['user_no_inline_info']")" -gt 0
	check_grep "no debug info: said on stderr" 'had no inline information' "$T/n.e"
fi
