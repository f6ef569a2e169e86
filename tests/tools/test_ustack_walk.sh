# The user stacks the BPF programs walk themselves (bpf/uwalk.bpf.h, the
# kernel feature ustack_walk) are the kernel's own walk's, frame for frame:
# each tool that takes user stacks runs twice on the same workload, with
# the walk and with the kernel's (SUITE_KFEAT_OFF=ustack_walk), and the two
# reports must name the same stacks the same number of times, on the
# hooks of each kind of program (tp_btf sched_switch, sched_waking, a
# perf_event program on page faults), at the depth limit too.  (The limit
# is kernel.perf_event_max_stack, read at start; the test does not change
# it: the kernel refuses a write while any callchain user is alive, and a
# failed restore would leave the machine's stacks short.)
OC=$BIN/offcputime

# ustacks FILE PY-LIST PY-FILTER: "count<TAB>frames" of the report's
# entries in the list (d[...]) that pass the filter (e), sorted
ustacks() {
	json_get "$1" "'\\n'.join(sorted('%d\\t%s' % (e['count'], ';'.join(e['user_stack'])) for e in $2 if $3))"
}

# both OUT WL-ARGS -- TOOL ARGS...: the held workload WL-ARGS traced by TOOL
# ARGS, once with the walk (OUT.walk) and once with the kernel's (OUT.kernel)
both() {
	local out=$1 wl=() mode; shift
	while [ "$1" != -- ]; do wl+=("$1"); shift; done
	shift
	for mode in walk kernel; do
		start_wl_held "${wl[@]}"
		local off=
		[ $mode = kernel ] && off=ustack_walk
		SUITE_KFEAT_OFF=$off run_held "$out.$mode" "$out.$mode.err" "$@" -p "$WL_PID"
	done
}

# 1. The walk is on where it can be (x86-64, bpf_task_pt_regs(), 5.15):
#    else each pair below compares the kernel's walk with itself
"$OC" -v -d 0.1 >/dev/null 2>"$T/feat.err"
if ! grep -Eq 'kernel features: .* ustack_walk( |$)' "$T/feat.err"; then
	if [ "$(uname -m)" = x86_64 ] && grep -Eq 'kernel features: .* task_pt_regs( |$)' "$T/feat.err"; then
		fail "the user-stack walk is on (x86-64 with bpf_task_pt_regs())"
	else
		echo "skip - $TEST_FILE: no user-stack walk on this machine (it needs x86-64 and bpf_task_pt_regs())"
	fi
	return 0 2>/dev/null || exit 0
fi
pass "the user-stack walk is on (x86-64 with bpf_task_pt_regs())"
SUITE_KFEAT_OFF=ustack_walk "$OC" -v -d 0.1 >/dev/null 2>"$T/feat2.err"
check_grep "SUITE_KFEAT_OFF=ustack_walk turns it off" 'kernel features: .* !ustack_walk' "$T/feat2.err"

# 2. offcputime (sched_switch): 20 sleeps of 20 ms in offcpu_block_here
both "$T/oc" offcpu_blocker 20 20 0 -- "$OC" --state S -j -d 30
for mode in walk kernel; do
	ustacks "$T/oc.$mode" "d['stacks']" "'offcpu_block_here' in e['user_stack']" >"$T/oc.$mode.s"
	check_eq "offcputime, $mode: 20 blocks in offcpu_block_here" \
		"$(awk -F'\t' '{ s += $1 } END { print s + 0 }' "$T/oc.$mode.s")" 20
done
check_grep "offcputime: the stack runs from the thread's start to the sleep" \
	'start_thread;blocker;offcpu_block_here' "$T/oc.walk.s"
check "offcputime: the same stacks, the same counts, from both walks" cmp -s "$T/oc.walk.s" "$T/oc.kernel.s"

# 3. A stack deeper than a walk keeps: offcpu_block_here under 150 nested
#    calls; both walks keep the 127 innermost frames (the kernel's
#    perf_event_max_stack, 127 by default)
want=$(cat /proc/sys/kernel/perf_event_max_stack)
[ "$want" -gt 127 ] && want=127
both "$T/deep" offcpu_blocker 5 20 0 deep -- "$OC" --state S -j -d 30
for mode in walk kernel; do
	ustacks "$T/deep.$mode" "d['stacks']" "'offcpu_block_here' in e['user_stack']" >"$T/deep.$mode.s"
	check_eq "150 calls deep, $mode: 5 blocks, each stack $want frames long" \
		"$(json_get "$T/deep.$mode" "sorted((len(e['user_stack']), e['count']) for e in d['stacks'] if 'offcpu_block_here' in e['user_stack'])")" \
		"[($want, 5)]"
done
check "150 calls deep: the same frames from both walks" cmp -s "$T/deep.walk.s" "$T/deep.kernel.s"

# 4. wakers (sched_waking): the waker's user stack, 200 futex wakeups
for mode in walk kernel; do
	wk_launch "$WL/wakers_target" futex 200
	off=
	[ $mode = kernel ] && off=ustack_walk
	SUITE_KFEAT_OFF=$off run_released "$T/wk.$mode" "$T/wk.$mode.err" 'tracing wakeups' \
		'touch "$WK_GO"' "$BIN/wakers" -t "$WK_TID" -j -d 30
	touch "$WK_GO"
	wait_wl
	check_eq "wakers, $mode: the workload woke its target 200 times" "$(sed -n 's/^woken //p' "$WK_OUT")" 200
	ustacks "$T/wk.$mode" "d['wakeups']" "e['waker']['comm'] == 'wk_waker'" >"$T/wk.$mode.s"
	check_grep "wakers, $mode: the waker's stack ends in wakers_poke_target" \
		';waker;wakers_poke_target(;|$)' "$T/wk.$mode.s"
done
check "wakers: the same waker stacks, the same counts, from both walks" \
	cmp -s "$T/wk.walk.s" "$T/wk.kernel.s"

# 5. pfwatch (a perf_event program on the page-faults event): 2000 fresh
#    pages touched in pf_touch_fresh_pages, the workload held (SIGUSR1
#    ends its wait) until the tool traces
for mode in walk kernel; do
	start_wl pf_toucher 2000 60000
	off=
	[ $mode = kernel ] && off=ustack_walk
	SUITE_KFEAT_OFF=$off run_released "$T/pf.$mode" "$T/pf.$mode.err" 'tracing|watching' release_usr1 \
		"$BIN/pfwatch" -p "$WL_PID" -j -d 30
	wait_wl
	ustacks "$T/pf.$mode" "d['faults']" "e['user_stack'] and e['user_stack'][-1] == 'pf_touch_fresh_pages'" \
		>"$T/pf.$mode.s"
	check_grep "pfwatch, $mode: the faults' stack runs from main to pf_touch_fresh_pages" \
		'main;pf_touch_fresh_pages$' "$T/pf.$mode.s"
done
check "pfwatch: the same fault stacks, the same counts, from both walks" \
	cmp -s "$T/pf.walk.s" "$T/pf.kernel.s"

# 6. The walk costs the verifier little: the instructions it follows to
#    load each tool (-v, the kernel's count) with the walk, against the
#    same without it, at most 1.5 times.  (A walk that can end after any
#    frame let the verifier follow the stack's hash once for each length,
#    at every place a user stack is taken: 3.5 to 4.7 times as many, 1.6
#    million for hotcheck, 1.5 s to load instead of 0.6.)
verified() {
	sed -n 's/.*BPF programs verified: \([0-9]*\) instructions.*/\1/p' "$1"
}
for tool in hotcheck offcputime wakers pfwatch; do
	tool_cmd "$tool"
	"${CMD[@]}" -v -d 0.1 >/dev/null 2>"$T/v.$tool.walk"
	SUITE_KFEAT_OFF=ustack_walk "${CMD[@]}" -v -d 0.1 >/dev/null 2>"$T/v.$tool.kernel"
	w=$(verified "$T/v.$tool.walk") k=$(verified "$T/v.$tool.kernel")
	check "$tool: the verifier follows at most 1.5 times the instructions with the walk ($w, $k without)" \
		test -n "$w" -a -n "$k" -a "$((${w:-0} * 2))" -le "$((${k:-0} * 3))"
done
