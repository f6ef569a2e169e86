# wakers against wakers_target, whose wakeups are known in advance: each
# round wakes the target thread exactly once, while it is asleep.
WK=$BIN/wakers
# wk_start MODE N [CMD-PREFIX...]: starts wakers_target MODE N
wk_start() {
	local mode=$1 n=$2; shift 2
	wk_launch "$@" "$WL/wakers_target" "$mode" "$n"
}

# wk_go_all: lets every started workload go
wk_go_all() {
	local i
	for i in $(seq 1 "$GO_N"); do touch "$T/go.$i"; done
}

# wk_trace OUT ERR ARGS...: runs wakers in the background, and once it
# says it is tracing, lets every started workload go; waits for all
# (wakers' exit status in RUN_RC)
wk_trace() {
	local out=$1 err=$2; shift 2
	run_released "$out" "$err" 'tracing wakeups' wk_go_all "$WK" "$@"
	wait_wl
}

# wakeups the workload caused, as it counted them
wk_woken() {
	sed -n 's/^woken //p' "${1:-$WK_OUT}"
}

# 1. futex: the waker's comm and function, with the exact count
wk_start futex 200
wk_trace "$T/f1" "$T/e1" -t "$WK_TID" -f -d 30
check_eq "futex: the workload woke its target 200 times" "$(wk_woken)" 200
check_grep "futex: folded names wk_waker, wakers_poke_target and the futex path" \
	'^wk_waker;.*;waker;wakers_poke_target;.*futex_wake_\[k\];.*try_to_wake_up_\[k\] [0-9]+$' "$T/f1"
check_within "futex: wakeups from wakers_poke_target" \
	"$(folded_sum '^wk_waker;.*wakers_poke_target;' "$T/f1")" "$(wk_woken)" 5
check_eq "futex: no other waker of the target" "$(grep -vc '^wk_waker;' "$T/f1")" 0
check_nogrep "futex: no frame of the tracing machinery" 'bpf_prog|bpf_trace_run|__traceiter|perf_trace' "$T/f1"
check "futex: user frames come before kernel frames" folded_user_first "$T/f1"
check "futex: folded lines are 'stack value' with unique stacks" folded_well_formed "$T/f1"
check_grep "futex: the early stop is said on stderr" 'every traced process has exited' "$T/e1"

# 2. JSON: the same, with blocked time and the latency histogram per record
wk_start futex 100
wk_trace "$T/j2" "$T/e2" -t "$WK_TID" -j -d 30
check "JSON output parses" json_ok "$T/j2"
check_eq "JSON: one record, from wk_waker to the target tid" \
	"$(json_get "$T/j2" "[(w['waker']['comm'], w['waker']['context'], w['target']['tid']) for w in d['wakeups']]")" \
	"[('wk_waker', 'task', $WK_TID)]"
check_within "JSON: its count" "$(json_get "$T/j2" "d['wakeups'][0]['count']")" "$(wk_woken)" 5
check_eq "JSON: the user stack ends in wakers_poke_target" \
	"$(json_get "$T/j2" "d['wakeups'][0]['user_stack'][-1]")" wakers_poke_target
check_eq "JSON: the kernel stack ends in try_to_wake_up" \
	"$(json_get "$T/j2" "d['wakeups'][0]['kernel_stack'][-1]")" try_to_wake_up
check_eq "JSON: the waker is another thread of the same process" \
	"$(json_get "$T/j2" "(d['wakeups'][0]['waker']['pid'] == $WK_PID, d['wakeups'][0]['waker']['tid'] != $WK_TID)")" \
	"(True, True)"
check_eq "JSON: every wakeup has its latency measured" \
	"$(json_get "$T/j2" "d['wakeups'][0]['latency']['count'] + d['losses']['interval_end_unseen'] == d['wakeups'][0]['count'] and d['wakeups'][0]['latency']['count'] == d['latency']['count']")" True
check_eq "JSON: every wakeup ended a sleep seen while tracing" \
	"$(json_get "$T/j2" "d['wakeups'][0]['blocked_known'] == d['wakeups'][0]['count'] and d['wakeups'][0]['blocked_us'] > 0")" True
check_eq "JSON: totals" "$(json_get "$T/j2" "(d['totals']['wakeups'], d['totals']['signals'])")" "($(wk_woken), 0)"
# (interval_end_unseen: a latency this kernel did not report the end of,
# rare: see 16)
check_eq "JSON: no losses" "$(json_get "$T/j2" "sum(d['losses'].values()) - d['losses']['interval_end_unseen']")" 0
check_eq "JSON: interrupt context comes from the per-CPU preempt count" \
	"$(json_get "$T/j2" "d['context_source']")" "per-CPU preempt count"

# 3. --time: the value is the microseconds blocked, the same as in JSON
wk_start futex 50
wk_trace "$T/f3" "$T/e3" -t "$WK_TID" -f --time -d 30
check_grep "--time: the waker's line is there" '^wk_waker;.*wakers_poke_target;.* [0-9]+$' "$T/f3"
check "--time: the value is time, not the count of 50" \
	awk '$NF <= 50 { exit 1 }' "$T/f3"

# 4. A signal: number, name, sender, and the wakeup it caused
wk_start signal 20
wk_trace "$T/j4" "$T/e4" -t "$WK_TID" -j -d 30
check_eq "signal: the workload sent 20" "$(wk_woken)" 20
check_eq "signal: reported as SIGUSR1 (10) from wk_signaler, delivered, 20 times" \
	"$(json_get "$T/j4" "[(s['signal'], s['name'], s['sender']['comm'], s['result'], s['group'], s['count']) for s in d['signals']]")" \
	"[(10, 'SIGUSR1', 'wk_signaler', 'delivered', False, 20)]"
check_eq "signal: the sender's user stack ends in wakers_send_signal" \
	"$(json_get "$T/j4" "d['signals'][0]['user_stack'][-1]")" wakers_send_signal
check_eq "signal: the sender is a thread of the workload" \
	"$(json_get "$T/j4" "d['signals'][0]['sender']['pid']")" "$WK_PID"
check_eq "signal: each one woke the target, through complete_signal" \
	"$(json_get "$T/j4" "sum(w['count'] for w in d['wakeups'] if w['waker']['comm'] == 'wk_signaler' and 'complete_signal' in w['kernel_stack'])")" 20
wk_start signal 3
wk_trace "$T/p4" "$T/e4p" -t "$WK_TID" -d 30
check_grep "signal: the plain view names signal and sender" '^ +- +SIGUSR1 \(10\) to wk_target' "$T/p4"
check_grep "signal: ... and the sender" '^ +- +sender wk_signaler \(' "$T/p4"

wk_start signal 5
wk_trace "$T/j4n" "$T/e4n" -t "$WK_TID" -j --no-signals -d 30
check_eq "--no-signals: the wakeups, not the signals" \
	"$(json_get "$T/j4n" "(d['totals']['wakeups'], d['totals']['signals'])")" "(5, 0)"

# 5. Timer interrupts: labelled [hardirq], blamed on no task
wk_start timer 200
wk_trace "$T/f5" "$T/e5" -t "$WK_TID" -f -d 30
check_grep "timer: wakeups labelled [hardirq] with the vector name and hrtimer_wakeup" \
	'^\[hardirq\];\[apic_timer_interrupt\];asm_sysvec_apic_timer_interrupt_\[k\];.*hrtimer_wakeup_\[k\]' "$T/f5"
check_within "timer: every nap's wakeup is there" "$(folded_sum '^\[hardirq\];' "$T/f5")" 200 5
check_eq "timer: no wakeup blamed on a task (the one interrupted)" "$(grep -vc '^\[' "$T/f5")" 0
check_nogrep "timer: no frame of the interrupted context" 'cpu_startup_entry|do_idle|default_idle|entry_SYSCALL' "$T/f5"

# 6. Network I/O: the NET_RX softirq, not the sender it ran on top of
wk_start net 100
wk_trace "$T/f6" "$T/e6" -t "$WK_TID" -f -d 30
check_grep "net: wakeups labelled [softirq];[NET_RX] with the receive path" \
	'^\[softirq\];\[NET_RX\];.*net_rx_action_\[k\];.*sock_def_readable_\[k\]' "$T/f6"
check_within "net: every datagram's wakeup is there" "$(folded_sum '^\[softirq\];\[NET_RX\];' "$T/f6")" "$(wk_woken)" 5
check_nogrep "net: none blamed on wk_sender" '^wk_sender' "$T/f6"

# 7. The same with the irq/softirq tracepoints instead of the preempt count
wk_start net 50
SUITE_WAKERS_IRQ_EVENTS=1 wk_trace "$T/j7" "$T/e7" -t "$WK_TID" -j -d 30
check_eq "irq tracepoints: named as such" "$(json_get "$T/j7" "d['context_source']")" "irq/softirq tracepoints"
check_within "irq tracepoints: the softirq wakeups are still labelled NET_RX" \
	"$(json_get "$T/j7" "sum(w['count'] for w in d['wakeups'] if w['waker']['context'] == 'softirq' and w['waker']['irq_name'] == 'NET_RX')")" 50 5

# 8. -p excludes other processes
wk_start futex 60
p1=$WK_PID o1=$WK_OUT
wk_start futex 60
p2=$WK_PID
wk_trace "$T/j8" "$T/e8" -p "$p1" -j -d 30
check_eq "-p: every target belongs to the traced process" \
	"$(json_get "$T/j8" "sorted(set(w['target']['pid'] for w in d['wakeups'] + d['signals']))")" "[$p1]"
check_eq "-p: no waker from the other process" \
	"$(json_get "$T/j8" "sum(1 for w in d['wakeups'] if w['waker']['pid'] == $p2)")" 0
check_within "-p: the traced process's pokes are all there" \
	"$(json_get "$T/j8" "sum(w['count'] for w in d['wakeups'] if w['user_stack'] and w['user_stack'][-1] == 'wakers_poke_target')")" \
	"$(wk_woken "$o1")" 5

# 9. -C counts what was sent from those CPUs only (the workload pinned)
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	wk_start futex 40 taskset -c 1
	wk_trace "$T/f9a" "$T/e9a" -t "$WK_TID" -C 0 -f -d 30
	check_eq "-C 0: nothing from the workload pinned to CPU 1" \
		"$(folded_sum '^wk_waker;' "$T/f9a")" 0
	wk_start futex 40 taskset -c 1
	wk_trace "$T/f9b" "$T/e9b" -t "$WK_TID" -C 1 -f -d 30
	check_within "-C 1: all of it" "$(folded_sum '^wk_waker;.*wakers_poke_target' "$T/f9b")" 40 5
fi

# 10. raw_tp fallback gives the same answer
wk_start futex 100
SUITE_FORCE_RAW_TP=1 wk_trace "$T/f10" "$T/e10" -v -t "$WK_TID" -f -d 30
check_grep "raw_tp flavour was used" 'using raw_tp tracepoints' "$T/e10"
check_within "raw_tp: wakeups from wakers_poke_target" \
	"$(folded_sum '^wk_waker;.*wakers_poke_target;' "$T/f10")" "$(wk_woken)" 5
check_grep "-v says where interrupt context comes from" 'interrupt context read from' "$T/e10"

# 11. --check: 1 if woken, 0 if not (the target spins until its go file)
wk_start futex 20
wk_trace "$T/c11" "$T/e11" -t "$WK_TID" --check -d 30
check_eq "--check exits 1 when the target was woken" "$RUN_RC" 1
wk_start futex 20
check_rc "--check exits 0 when it was not" 0 "$WK" -t "$WK_TID" --check -d 1
touch "$WK_GO"; wait_wl

# 12. Help, bad input (exit 2), missing BTF (exit 3), closed pipe
"$WK" -h >"$T/h4" 2>&1
check_grep "--help has a USAGE line" '^USAGE: wakers' "$T/h4"
check_grep "--help has EXAMPLES" '^EXAMPLES:' "$T/h4"
check_bad_inputs "$WK" "-p 12abc" "-p -5" "-t 0" "-p 4194303" "-d 0" "-d abc" "--time" \
	"-f -j" "--bogus" "-C 999" "--max-entries 0" "--stack-storage-size x" "extra"
check_no_btf "$WK" -d 1
( "$WK" -d 1 2>"$T/e12"; echo $? >"$T/rc12" ) | head -c 1 >/dev/null
check_eq "a closed stdout ends quietly with 0" "$(cat "$T/rc12")" 0
check_nogrep "... and says nothing about it" 'Broken pipe|[Ww]rit(e|ing)|EPIPE' "$T/e12"

# 13. --dwarf: a waker built without frame pointers waking through glibc
#     (syscall(SYS_futex) from nofp_waker_inner, 3 calls below main).
#     Frame pointers lose the chain in libc; DWARF recovers it.
nw_start() { wk_launch "$WL/nofp_waker" "$1"; }
nw_start 100
wk_trace "$T/f13fp" "$T/e13fp" -t "$WK_TID" -f -d 30
check_eq "nofp: the workload woke its target 100 times" "$(wk_woken)" 100
check_eq "no --dwarf: the 100 wakeups from syscall" "$(folded_sum '^nw_waker;(.*;)?syscall;' "$T/f13fp")" 100
check_nogrep "no --dwarf: the no-frame-pointer chain is lost" 'nofp_waker_inner' "$T/f13fp"
nw_start 100
wk_trace "$T/f13" "$T/e13" --dwarf -t "$WK_TID" -f -d 30
check_grep "--dwarf: whole chain from _start and main down to syscall" \
	'^nw_waker;_start;(.*;)?main;nofp_waker_outer;nofp_waker_middle;nofp_waker_inner;syscall;.*futex_wake_\[k\];.*try_to_wake_up_\[k\] [0-9]+$' "$T/f13"
check_eq "--dwarf: exactly the wakeups the workload made" \
	"$(folded_sum 'nofp_waker_inner;syscall;' "$T/f13")" "$(wk_woken)"
check_eq "--dwarf: no other waker of the target" "$(grep -vc '^nw_waker;' "$T/f13")" 0
check_nogrep "--dwarf: nothing truncated with the default copy" 'truncated' "$T/f13"
nw_start 100
wk_trace "$T/j13" "$T/e13j" --dwarf -t "$WK_TID" -j -d 30
check "--dwarf: JSON parses" json_ok "$T/j13"
check_eq "--dwarf JSON: one record, its user stack ends in nofp_waker_inner, syscall" \
	"$(json_get "$T/j13" "[(w['count'], w['user_stack'][-2:]) for w in d['wakeups']]")" \
	"[($(wk_woken), ['nofp_waker_inner', 'syscall'])]"
check_eq "--dwarf JSON: latency and blocked time of every wakeup, no loss" \
	"$(json_get "$T/j13" "(d['wakeups'][0]['latency']['count'] + d['losses']['interval_end_unseen'], d['wakeups'][0]['blocked_known'], d['latency']['count'] + d['losses']['interval_end_unseen'], d['totals']['wakeups'], sum(d['losses'].values()) - d['losses']['interval_end_unseen'])")" \
	"($(wk_woken), $(wk_woken), $(wk_woken), $(wk_woken), 0)"
nw_start 50
wk_trace "$T/f13s" "$T/e13s" --dwarf --stack-copy-size 64 -t "$WK_TID" -f -d 30
check_grep "--dwarf with a 64-byte copy: stacks end in a marked frame" \
	'^nw_waker;\[truncated: stack copy too short\];' "$T/f13s"
check_eq "--dwarf with a 64-byte copy: every wakeup still counted" \
	"$(folded_sum '^nw_waker;' "$T/f13s")" "$(wk_woken)"
check_grep "--dwarf with a 64-byte copy: the count is reported" 'could not be unwound to the end' "$T/e13s"
# interrupt-context wakeups have no user stack to take: labelled as before
wk_start timer 100
wk_trace "$T/f13t" "$T/e13t" --dwarf -t "$WK_TID" -f -d 30
check_within "--dwarf, timer: the wakeups stay [hardirq]" "$(folded_sum '^\[hardirq\];' "$T/f13t")" 100 5
check_eq "--dwarf, timer: none blamed on a task" "$(grep -vc '^\[' "$T/f13t")" 0
check_rc "--stack-copy-size without --dwarf exits 2" 2 "$WK" --stack-copy-size 4096 -d 1
check_grep "... naming it" 'stack-copy-size' "$T/rc.err"
check_rc "--stack-copy-size out of range exits 2" 2 "$WK" --dwarf --stack-copy-size 100000 -d 1

# 14. Stacks are never lost to one another: 10,000 distinct waker call
#     paths (wake_paths: the four digits of a number, one wp_stepN frame
#     each), each waking the target twice, under the default options.
#     (A stack map of 16384 buckets lost a quarter of them to collisions.)
wk_launch "$WL/wake_paths" 10000 2 0
wk_trace "$T/j14" "$T/e14" -t "$WK_TID" -j -d 120
check_eq "10000 paths: the workload woke its target 20000 times" "$(wk_woken)" 20000
wp_paths() {	# FILE: the paths decoded from the wp_poke records' stacks, checked
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
codes = {}
for w in d['wakeups']:
    if 'wp_poke' not in w['user_stack']:
        continue
    steps = [int(f[-1]) for f in w['user_stack'] if f.startswith('wp_step')]
    c = sum(x * 10 ** i for i, x in enumerate(steps))
    codes[c] = codes.get(c, 0) + w['count']
print(len(codes), sorted(codes) == list(range(n)), sorted(set(codes.values())))
PY
}
check_eq "10000 paths: every path reported once, with its exact count of 2" \
	"$(wp_paths "$T/j14" 10000)" "10000 True [2]"
check_eq "10000 paths: no stack lost (stack_ring_full, kernel and user stacks)" \
	"$(json_get "$T/j14" "(d['losses']['stack_ring_full'], d['losses']['user_stack_unreadable'], d['losses']['kernel_stack_unreadable'], sum(d['losses'].values()) - d['losses']['interval_end_unseen'])")" \
	"(0, 0, 0, 0)"
check_nogrep "10000 paths: no word of lost stacks on stderr" 'stacks? (were )?(lost|recorded whose)' "$T/e14"

# 15. The aggregation maps are drained while tracing: 600 distinct waker
#     stacks, one wakeup each, 3 ms apart (about 2 s), into maps of 64
#     (--max-entries 64): every one reported exactly, with its latency.
wk_launch "$WL/wake_paths" 600 1 3000
wk_trace "$T/j15" "$T/e15" -v -t "$WK_TID" -j --max-entries 64 -d 120
check_eq "--max-entries 64: the workload woke its target 600 times" "$(wk_woken)" 600
check_eq "--max-entries 64: all 600 paths reported, once each" "$(wp_paths "$T/j15" 600)" "600 True [1]"
check_eq "--max-entries 64: the latency of every wakeup, no loss" \
	"$(json_get "$T/j15" "(sum(w['latency']['count'] for w in d['wakeups'] if 'wp_poke' in w['user_stack']) + d['losses']['interval_end_unseen'], d['latency']['count'] + d['losses']['interval_end_unseen'] == d['totals']['wakeups'], sum(d['losses'].values()) - d['losses']['interval_end_unseen'])")" \
	"(600, True, 0)"
check_nogrep "--max-entries 64: no map said full" 'map full' "$T/e15"
check "--max-entries 64: drained more than once while tracing" \
	awk '/aggregation maps drained/ { n = $(NF - 1) } END { exit !(n > 1) }' "$T/e15"

# 16. Switch-ins the kernel does not report (bpf/schedinfo.bpf.h; on this
#     machine: none for a switch away from a thread of the machine's init
#     agent): a wakeup whose switch-in was not seen has no known latency.
#     It is counted lost (interval_end_unseen), never recorded as 0 (the
#     old code took the thread's next switch-out for "woken while still
#     on its CPU").  SUITE_TEST_HIDE_SWITCH_IN=2: every 2nd switch-in that
#     ends a wakeup's wait is ignored, as such a kernel does.
wk_start futex 200
run_released "$T/j16" "$T/e16" 'tracing wakeups' wk_go_all \
	env SUITE_TEST_HIDE_SWITCH_IN=2 "$WK" -t "$WK_TID" -j -d 30
wait_wl
check_eq "hidden switch-ins: every wakeup counted" \
	"$(json_get "$T/j16" "d['totals']['wakeups']")" "$(wk_woken)"
check_eq "hidden switch-ins: latencies known plus latencies lost are the wakeups" \
	"$(json_get "$T/j16" "d['latency']['count'] + d['losses']['interval_end_unseen'] == d['totals']['wakeups']")" True
check "hidden switch-ins: about half the latencies are lost, counted" \
	test "$(json_get "$T/j16" "d['losses']['interval_end_unseen']")" -ge 80

# 17. The headline's wakeups and the latency histogram's count differ
#     only by the wakeups without a latency, and the report says how
#     many (issue 27: 44,708 against 44,719 without a word); no run of
#     empty rows in the histogram (issue 27: a 0 ns row, then 13 empty).
wk_start futex 200
run_released "$T/p17" "$T/e17" 'tracing wakeups' wk_go_all \
	env SUITE_TEST_HIDE_SWITCH_IN=2 "$WK" -t "$WK_TID" -d 30
wait_wl
p17_total=$(sed -n 's/^\([0-9]*\) wakeups and .*/\1/p' "$T/p17")
p17_count=$(sed -n 's/^    count \([0-9]*\) .*/\1/p' "$T/p17")
p17_other=$(sed -n 's/.*, of [0-9]* wakeups: the other \([0-9]*\) have none.*/\1/p' "$T/p17")
check_eq "latency: the headline counts the workload's wakeups" "$p17_total" "$(wk_woken)"
check_eq "latency: the histogram's count plus those said to have none are the wakeups" \
	"$((p17_count + ${p17_other:-0}))" "$p17_total"
check "latency: some wakeups have none, said" test "${p17_other:-0}" -ge 1
check_eq "latency: no two empty histogram rows in a row" \
	"$(awk '/^ +[0-9.]+[num]?s \.\. / { z = ($4 == 0); if (z && pz) n++; pz = z } END { print n + 0 }' "$T/p17")" 0

# 18. One entry per printed identity: twosite wakes its target N times
#     from each of two call sites in ts_caller() (two stacks that differ
#     only in a return address, printed the same): one entry of 2N.
wk_launch "$WL/twosite" wake 100
wk_trace "$T/j18" "$T/e18" -t "$WK_TID" -j -d 30
check_eq "two call sites: the workload woke its target 200 times" "$(wk_woken)" 200
check_eq "two call sites: one entry under ts_poke, with all 200 wakeups" \
	"$(json_get "$T/j18" "[w['count'] for w in d['wakeups'] if 'ts_poke' in w['user_stack']]")" "[200]"
check_eq "two call sites: no two entries print the same" \
	"$(json_get "$T/j18" "len(d['wakeups']) == len(set((w['waker']['comm'], w['waker']['tid'], w['target']['tid'], tuple(w['user_stack']), tuple(w['kernel_stack'])) for w in d['wakeups']))")" True

# --diff BEFORE.folded: 50 futex wakeups, then 200: the stacks of
# wakers_poke_target grew from the file's wakeups to this run's (each
# as the run has them: the file, this run's JSON)
wk_start futex 50
wk_trace "$T/wd0.folded" "$T/wd0.err" -t "$WK_TID" -f -d 30
wk_start futex 200
wk_trace "$T/wd1" "$T/wd1.err" -t "$WK_TID" -j -d 30 --diff "$T/wd0.folded"
check "--diff: JSON parses" json_ok "$T/wd1"
poke="r['stack'].startswith('wk_waker;') and ';wakers_poke_target;' in r['stack']"
check_eq "--diff: wakers_poke_target's stacks grew from the file's wakeups to this run's" \
	"$(json_get "$T/wd1" "(sum(r['before'] for r in d['diff']['grew'] if $poke), sum(r['after'] for r in d['diff']['grew'] if $poke))")" \
	"($(folded_sum '^wk_waker;.*;wakers_poke_target;' "$T/wd0.folded"), $(json_get "$T/wd1" "sum(w['count'] for w in d['wakeups'] if 'wakers_poke_target' in w['user_stack'] and w['waker']['comm'] == 'wk_waker')"))"
check_eq "--diff: the file's total" "$(json_get "$T/wd1" "d['diff']['before_total']")" "$(folded_sum . "$T/wd0.folded")"
check_rc "--diff: a file that is not folded output exits 2" 2 "$WK" -d 1 --diff "$T/wd1"
check_rc "--diff and -f exclude each other" 2 "$WK" -d 1 -f --diff "$T/wd0.folded"
