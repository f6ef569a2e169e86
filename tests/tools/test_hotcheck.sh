# hotcheck against hot_thread, whose hot thread "hc_hot" (pinned to CPU 1)
# spins, and once released makes exactly K getppid() calls from
# hc_make_syscalls(), takes P page faults in hc_touch_pages() and blocks B
# times in nanosleep from hc_block() (so K + B syscalls).  It is released
# only once hotcheck says the warm-up is over, so every one is counted.
# No CPU here is isolated and other tests share the CPUs: the CPU-level
# checks (preemptions, cpu intruders, irqs, softirqs, timers, ipis,
# isolation) never pass here, so every run exits 1; the tests check the
# thread-level rows, and that the exit status follows the verdict.
HC=$ROOT/hotcheck
CPU=1
K=1000
P=200
B=20

# hot_tid: $HOT_TID, the hot thread of the last hot_thread (its second line)
hot_tid() {
	local i
	for i in $(seq 1 500); do
		[ "$(wc -l <"$WL_OUT")" -ge 2 ] && break
		sleep 0.01
	done
	HOT_TID=$(sed -n 2p "$WL_OUT")
}

# hc_run OUT ERR ARGS...: a released hot_thread traced by hotcheck -t
# (its exit status in $RUN_RC, the thread in $HOT_TID)
hc_run() {
	local out=$1 err=$2; shift 2
	WL_GOFILE=$(mktemp -u "$T/go.XXXXXX")
	WL_GO=$WL_GOFILE start_wl hot_thread $CPU $K $P $B
	hot_tid
	run_released "$out" "$err" 'warm-up is over' 'touch "$WL_GOFILE"' \
		"$HC" -t "$HOT_TID" "$@"
	kill "$WL_PID" 2>/dev/null
	wait_wl
}

# row FILE NAME: the checks row NAME as "silent count"
row() {
	json_get "$1" "' '.join(str(c[k]) for c in d['checks'] if c['check'] == '$2' for k in ('silent', 'count'))"
}
# 1. K syscalls, P faults, B blocks, each exactly, each at its function
hc_run "$T/j1" "$T/e1" -d 6 --warmup 1 -j
check_eq "work: exit 1 (CPU-level checks fail on this machine)" "$RUN_RC" 1
check "work: JSON parses" json_ok "$T/j1"
check_eq "work: no event lost" "$(json_get "$T/j1" "d['losses']['ringbuf_full'] + d['events_dropped']")" 0
unseen=$(json_get "$T/j1" "d['losses']['interval_end_unseen']")
check_eq "work: syscalls counted exactly (K + B)" "$(row "$T/j1" syscalls)" "False $((K + B))"
check_eq "work: K getppid calls in hc_make_syscalls" \
	"$(json_get "$T/j1" "sum(c['count'] for c in d['causes']['syscalls'] if c['cause'] == 'getppid' and c['stack'].endswith(';hc_make_syscalls'))")" $K
check_eq "work: B nanosleep calls in hc_block" \
	"$(json_get "$T/j1" "sum(c['count'] for c in d['causes']['syscalls'] if c['cause'] == 'nanosleep' and c['stack'].endswith(';hc_block'))")" $B
check_grep "work: the syscalls' top cause names the function" \
	'getppid x1000 .* in hc_make_syscalls' <(json_get "$T/j1" "d['checks'][0]['top_cause']")
check_eq "work: the latency histogram has every timed getppid" \
	"$(json_get "$T/j1" "[s['latency']['count'] for s in d['syscall_latency'] if s['syscall'] == 'getppid'][0]")" $K
check_eq "work: page faults counted exactly (P)" "$(row "$T/j1" 'page faults')" "False $P"
check_eq "work: all P minor, in hc_touch_pages" \
	"$(json_get "$T/j1" "sum(c['count'] for c in d['causes']['page faults'] if c['cause'] == 'minor' and c['stack'].endswith(';hc_touch_pages'))")" $P
check_grep "work: the fault fix names the memory-locking state" 'memory is not locked' \
	<(json_get "$T/j1" "d['checks'][1]['fix']")
check_eq "work: blocks counted exactly (B, none lost)" \
	"$(json_get "$T/j1" "[c['count'] for c in d['checks'] if c['check'] == 'blocks'][0] + $unseen")" $B
check_eq "work: every block in nanosleep from hc_block" \
	"$(json_get "$T/j1" "sum(c['count'] for c in d['causes']['blocks'] if c['cause'].startswith('nanosleep,') and ';hc_block;' in c['stack'])")" \
	"$(json_get "$T/j1" "[c['count'] for c in d['checks'] if c['check'] == 'blocks'][0]")"
check_eq "work: each block's waker is the timer interrupt, with its stack" \
	"$(json_get "$T/j1" "len([e for e in d['events'] if e['kind'] == 'block' and e['actor'] == '[hardirq]' and 'hrtimer_wakeup_[k]' in e['waker_stack']])")" \
	"$(json_get "$T/j1" "[c['count'] for c in d['checks'] if c['check'] == 'blocks'][0]")"
check_eq "work: pinned: no migration" "$(row "$T/j1" migrations)" "True 0"
check_eq "work: no signal" "$(row "$T/j1" signals)" "True 0"
check_eq "work: the timeline holds every syscall, fault and block" \
	"$(json_get "$T/j1" "len([e for e in d['events'] if e['kind'] in ('syscall', 'fault', 'block')])")" \
	"$(json_get "$T/j1" "sum(c['count'] for c in d['checks'] if c['check'] in ('syscalls', 'page faults', 'blocks'))")"
check_eq "work: the timeline is in time order, both clocks" \
	"$(json_get "$T/j1" "all(a['start_ns'] <= b['start_ns'] for a, b in zip(d['events'], d['events'][1:])) and all(e['realtime_ns'] - e['start_ns'] == d['window']['realtime_offset_ns'] for e in d['events'])")" True
check_eq "work: the checks schema" \
	"$(json_get "$T/j1" "all(sorted(c) == ['check', 'count', 'fix', 'silent', 'time_ns', 'top_cause'] for c in d['checks']) and len(d['checks'])")" 12
check_eq "work: the envelope" "$(json_get "$T/j1" "d['tool'] + ' ' + str('losses' in d and 'duration_s' in d)")" "hotcheck True"
check_eq "work: the verdict follows the rows" "$(json_get "$T/j1" "d['silent'] == all(c['silent'] for c in d['checks'])")" True

# 2. The table: one row per check, in the same order, the same counts
hc_run "$T/t2" "$T/e2" -d 6 --warmup 1
check_eq "table: exit 1" "$RUN_RC" 1
check_eq "table: twelve rows" "$(grep -cE '^(syscalls|page faults|blocks|preemptions|migrations|signals|cpu intruders|irqs|softirqs|timers|ipis|isolation) ' "$T/t2")" 12
check_grep "table: syscalls K + B, getppid in hc_make_syscalls" "^syscalls +$((K + B)) .*getppid x$K .* in hc_make_syscalls" "$T/t2"
check_grep "table: page faults P in hc_touch_pages" "^page faults +$P .*minor x$P in hc_touch_pages" "$T/t2"
check_grep "table: migrations SILENT" '^migrations +SILENT' "$T/t2"
check_grep "table: the syscall latency rows" '^  getppid +1000 calls' "$T/t2"
check_grep "table: /proc/interrupts over the window" "^/proc/interrupts on CPU $CPU" "$T/t2"

# 3. A thread that only computes: every thread-level check silent
start_wl hot_thread $CPU 0 0 0
hot_tid
"$HC" -t "$HOT_TID" -d 3 -j >"$T/j3" 2>"$T/e3"; rc=$?
kill "$WL_PID" 2>/dev/null; wait_wl
check "compute: JSON parses" json_ok "$T/j3"
for c in syscalls 'page faults' blocks migrations signals; do
	check_eq "compute: $c SILENT" "$(row "$T/j3" "$c")" "True 0"
done
check_eq "compute: the thread-level verdict is silent" "$(json_get "$T/j3" "d['threads_silent']")" True
check_eq "compute: the exit status follows the CPU-level checks" \
	"$rc" "$(json_get "$T/j3" "0 if d['silent'] else 1")"
check_eq "compute: the hot CPU is the thread's affinity" "$(json_get "$T/j3" "d['targets']['cpus']")" $CPU
# The window is the one of the /proc/interrupts readings: the IPIs of the
# attach and the detach (text patching) are outside it, and each tick
# counts once (its hrtimer callbacks name it).  The bounds of
# test_schedsilence's LOC/RES check: 2 more (an interrupt between a reading
# and the window's clock), or up to 3% + 2 fewer (this kernel does not run
# the irq_vectors tracepoints for every interrupt /proc counts: see
# docs/schedsilence.md, Known limits).
proc_delta() { json_get "$T/j3" "sum(r['delta'] for r in d['interrupts'] if r['irq'] == '$1')"; }
near() { awk -v t="$1" -v p="$2" 'BEGIN { exit !(t != "" && p != "" && t <= p + 2 && p <= t * 1.03 + 2) }'; }
resched=$(json_get "$T/j3" "len([e for e in d['events'] if e['what'] == 'ipi' and e['actor'] == 'reschedule'])")
check "compute: reschedule IPIs as /proc's RES ($resched, $(proc_delta RES))" near "$resched" "$(proc_delta RES)"
ticks=$(json_get "$T/j3" "sum(c['count'] for c in d['causes']['timers'] if c['cause'].startswith('local_timer'))")
check "compute: ticks as /proc's LOC, each once ($ticks, $(proc_delta LOC))" near "$ticks" "$(proc_delta LOC)"
check "compute: the attach's and detach's records are outside the window" \
	test "$(json_get "$T/j3" "d['window']['events_outside']")" -gt 0

# 4. Bad input (CLI contract): exit 2 and a message
check_bad_inputs "$HC" "" "-t 0" "-t 999999999" "-t abc" "-t 1 -C 9999" "-t 1 -C x" \
	"-t 1 --warmup -1" "-t 1 --warmup abc" "-t 1 -d 2 --warmup 3" "-t 1 -d 0"
check_rc "a TID that does not exist exits 2" 2 "$HC" -t 4194300 -d 1
check_grep "and is named" '4194300' "$T/rc.err"
check_no_btf "$HC" -t $$ -d 1

# 5. --inline (the stack tools' option): a Rust thread's 10 sleeps in
#    nap, inlined in settle, inlined in apply, under their blocks
if [ -x "$WL/rust_blocker_v0" ]; then
	start_wl_held rust_blocker_v0 10 30 0
	rs_tid=
	for i in $(seq 1 500); do
		for t in /proc/"$WL_PID"/task/*; do
			[ "$(cat "$t/comm" 2>/dev/null)" = rs_blocker ] && rs_tid=${t##*/}
		done
		[ -n "$rs_tid" ] && break
		sleep 0.01
	done
	run_held "$T/j5" "$T/e5" "$HC" -t "$rs_tid" --inline -j -d 10
	check_eq "--inline: the 10 sleeps' blocks under apply;settle;nap" \
		"$(json_get "$T/j5" "sum(b['count'] for b in d['causes']['blocks'] if 'rust_blocker::book::apply;rust_blocker::book::settle;rust_blocker::book::nap;' in b['stack'])")" 10
fi
