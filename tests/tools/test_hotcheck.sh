# hotcheck against hot_thread, whose hot thread "hc_hot" (pinned to CPU 1)
# spins, and once released makes exactly K getppid() calls from
# hc_make_syscalls(), takes P page faults in hc_touch_pages() and blocks B
# times in nanosleep from hc_block() (so K + B syscalls).  It is released
# only once hotcheck says the warm-up is over, so every one is counted.
# No CPU here is isolated and other tests share the CPUs: the CPU-level
# checks (preemptions, cpu intruders, irqs, softirqs, timers, ipis,
# isolation) never pass here, so every run exits 1; the tests check the
# thread-level rows, and that the exit status follows the verdict.
HC=$BIN/hotcheck
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
hc_run "$T/j1" "$T/e1" -d 6 --warmup 1 -j --trace "$T/t1"
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
# --trace, the same run: the hot thread's track holds its K + B syscalls
# and P faults as instants, its blocks as slices (each with its waker),
# as many as the checks count; the CPU's track what ran there
tq() { trace_get "$T/t1" "$T/j1" "$1"; }
HOT="on('hc_hot ($HOT_TID)')"
WORK_TID=$HOT_TID	# the later runs have a hot thread of their own
check "work: trace: the file is JSON" json_ok "$T/t1"
check_eq "work: trace: the tracks: the hot thread's, the CPU's, in their processes" \
	"$(tq "(process[track('hc_hot ($HOT_TID)')[0]], process[track('CPU $CPU')[0]])")" \
	"('hotcheck: hot threads', 'hotcheck: hot CPUs')"
check_eq "work: trace: K getppid instants on the hot thread's track" \
	"$(tq "len([e for e in $HOT if e['ph'] == 'i' and e['name'] == 'getppid'])")" $K
check_eq "work: trace: its syscall instants = the syscalls check (K + B)" \
	"$(tq "len([e for e in $HOT if e['ph'] == 'i' and e['cat'] == 'syscall'])")" "$(row "$T/j1" syscalls | cut -d' ' -f2)"
check_eq "work: trace: P fault instants" "$(tq "len([e for e in $HOT if e['ph'] == 'i' and e['cat'] == 'fault'])")" $P
check_eq "work: trace: its block slices = the blocks check, each woken by the timer interrupt" \
	"$(tq "len([e for e in $HOT if e['ph'] == 'X' and e['cat'] == 'block' and e['name'] == 'blocked: nanosleep' and e['args']['waker'] == '[hardirq]'])")" \
	"$(json_get "$T/j1" "[c['count'] for c in d['checks'] if c['check'] == 'blocks'][0]")"
check_eq "work: trace: the CPU's track holds the CPU's events of the report" \
	"$(tq "len(on('CPU $CPU')) == len([e for e in d['events'] if e['kind'] in ('intruder', 'steal')]) > 0")" True
check_eq "work: trace: every event within the window, no duration below 0" \
	"$(tq "all(o['window_start_us'] <= e['ts'] and e['ts'] + e.get('dur', 0) <= o['window_end_us'] + 0.001 and e.get('dur', 0) >= 0 for e in ev)")" True
check_eq "work: trace: kept and not kept, as the report's timeline (the running slices and the spans off CPU no event covers aside)" \
	"$(tq "(o['events_kept'] == len([e for e in ev if e['cat'] not in ('running', 'offcpu')]) == len(d['events']), o['events'] == d['timeline']['events'], o['events_not_kept'] == d['timeline']['not_kept'])")" \
	"(True, True, True)"
# The hot thread's track tiles the window: running slices between its
# off-CPU ones (blocks, preemptions, and a span off CPU that no event
# covers: since before tracing, or to the window's end), each beginning
# exactly where the one before ends, from the window's start to its end
# (the times are binary fractions of a us: exact sums).  They alternate:
# running = off + 1, less one for a window that begins off CPU and one
# for a window that ends off CPU.  The off ones are the B blocks and the
# preemptions the report counts for it.
TILE="sorted((e for e in $HOT if e['ph'] == 'X'), key=lambda e: e['ts'])"
RUNS="[e for e in $TILE if e['cat'] == 'running']"
OFFS="[e for e in $TILE if e['cat'] != 'running']"
check_eq "work: trace: running slices written, none held back" \
	"$(tq "(o['running_slices'] == len($RUNS) > 0, o['running_not_written'])")" "(True, '')"
# Exact where the kernel reported every switch-in; an off-CPU interval
# whose switch-in went unreported ends at the scheduler's estimate
# (switch_ins_unreported), which may reach past the next switch-out: then
# no running slice is between them (an ASan run under load had 26 of 560)
UNREP=$(json_get "$T/j1" "d.get('switch_ins_unreported', 0)")
if [ "$UNREP" = 0 ]; then
	check_eq "work: trace: the hot thread's slices tile the window: no gap, no overlap" \
		"$(tq "(lambda s: (s[0]['ts'] == o['window_start_us'], all(a['ts'] + a['dur'] == b['ts'] for a, b in zip(s, s[1:])), s[-1]['ts'] + s[-1]['dur'] == o['window_end_us']))($TILE)")" \
		"(True, True, True)"
	check_eq "work: trace: running and off CPU alternate" \
		"$(tq "all((a['cat'] == 'running') != (b['cat'] == 'running') for a, b in zip($TILE, $TILE[1:]))")" True
	check_eq "work: trace: running slices = off-CPU slices + 1 - (begins off) - (ends off)" \
		"$(tq "len($RUNS)")" \
		"$(tq "len($OFFS) + 1 - ($TILE[0]['cat'] != 'running') - ($TILE[-1]['cat'] != 'running')")"
	check_eq "work: trace: running + off CPU = the window, to the ns" \
		"$(tq "round(sum(e['dur'] for e in $TILE) * 1000) == round((o['window_end_us'] - o['window_start_us']) * 1000)")" True
else
	echo "# $UNREP switch-ins went unreported: the tiling is checked without them"
	check_eq "work: trace: no running slice overlaps an off-CPU one; no two running slices meet" \
		"$(tq "(lambda r, f: all(a['ts'] + a['dur'] <= b['ts'] or b['ts'] + b['dur'] <= a['ts'] for a in r for b in f) and all(a['ts'] + a['dur'] < b['ts'] for a, b in zip(r, r[1:])))($RUNS, $OFFS)")" True
	check "work: trace: running slices <= off-CPU slices + 1" \
		test "$(tq "len($RUNS)")" -le "$(tq "len($OFFS) + 1")"
fi
check_eq "work: trace: its off-CPU slices: the blocks and preemptions of the report, and at most one span at each end" \
	"$(tq "(len([e for e in $OFFS if e['cat'] in ('block', 'preempt')]) == len([e for e in d['events'] if e['kind'] in ('block', 'preempt') and e['tid'] == $HOT_TID]), len([e for e in $OFFS if e['cat'] == 'offcpu']) <= 2)")" \
	"(True, True)"

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
# The window lies inside the two /proc/interrupts readings (the first
# taken before its clock starts, the second after it ends): the IPIs of the
# attach and the detach (text patching) are outside it, each tick counts
# once (its hrtimer callbacks name it), and none is counted that /proc did
# not count.  (The window once began before the first reading and ended
# after the second: under load, 5 ticks more than /proc, and the CI run of
# c252cda failed on 3.)  Up to 3% + 2 fewer ticks: this kernel does not
# run the irq_vectors tracepoints for every interrupt /proc counts (see
# docs/schedsilence.md, Known limits).  For reschedule IPIs the part it
# leaves out grows with the machine's load (QEMU guests on both CPUs and
# ASan: 1,207 traced of /proc's 1,334, 90.5%; 363 of 536 once in CI):
# what the test holds to there is that none is counted /proc did not
# count, and that the tracepoint saw most of them.
proc_delta() { json_get "$T/j3" "sum(r['delta'] for r in d['interrupts'] if r['irq'] == '$1')"; }
near() { awk -v t="$1" -v p="$2" 'BEGIN { exit !(t != "" && p != "" && t <= p && p <= t * 1.03 + 2) }'; }
most() { awk -v t="$1" -v p="$2" 'BEGIN { exit !(t != "" && p != "" && t <= p && 2 * t >= p) }'; }
resched=$(json_get "$T/j3" "len([e for e in d['events'] if e['what'] == 'ipi' and e['actor'] == 'reschedule'])")
check "compute: reschedule IPIs: none /proc's RES did not count, half of them at least ($resched, $(proc_delta RES))" \
	most "$resched" "$(proc_delta RES)"
ticks=$(json_get "$T/j3" "sum(c['count'] for c in d['causes']['timers'] if c['cause'].startswith('local_timer'))")
check "compute: ticks as /proc's LOC, each once ($ticks, $(proc_delta LOC))" near "$ticks" "$(proc_delta LOC)"
check "compute: the attach's and detach's records are outside the window" \
	test "$(json_get "$T/j3" "d['window']['events_outside']")" -gt 0

# 4. Bad input (CLI contract): exit 2 and a message
check_bad_inputs "$HC" "" "-t 0" "-t 999999999" "-t abc" "-t 1 -C 9999" "-t 1 -C x" \
	"-t 1 --warmup -1" "-t 1 --warmup abc" "-t 1 -d 2 --warmup 3" "-t 1 -d 0"
check_rc "a TID that does not exist exits 2" 2 "$HC" -t 4194300 -d 1
check_grep "and is named" '4194300' "$T/rc.err"
check_rc "a --trace FILE that cannot be written exits 2" 2 "$HC" -t $$ -d 1 --trace /nonexistent/t.json
check_grep "and is named" '^hotcheck: --trace: cannot write /nonexistent/t.json: No such file or directory$' "$T/rc.err"
check_no_btf "$HC" -t $$ -d 1

# 5. --correlate on docs/diagnosis.md's workload: diag_latency with the
#    stats intruder pinned to the hot CPU and the flusher holding the book
#    lock under I/O (2 flushes in 3 s), held until hotcheck traces; it
#    writes every late request (served >= 100 us after due: "SERVED_S.NS
#    LATENCY_NS") to its late file before diag_hot exits, which ends the
#    window.  How many requests are late, and how many each cause explains,
#    depend on what else runs on this shared CPU: the checks are that
#    every request is there (none dropped), and that each cause names the
#    right actor.
# diag_run TAG STATS_CPU FLUSH_MODE ARGS...: diag_latency 3 s on $CPU, traced
# by hotcheck -t diag_hot -C $CPU ARGS (stdout $T/TAG.out, stderr
# $T/TAG.err, late file $T/TAG.late; ids in DPID DHOT DSTATS DFLUSH)
# The workload runs as docs/diagnosis.md's demo runs it, as a
# latency-critical service would: in a session of its own at nice -20, its
# autogroup too.  Then the other tasks of this shared CPU mostly wait, and
# diag_hot is on its CPU when diag_stats wakes and preempts it (at nice 0,
# behind other tests' spinners on the same CPU, diag_hot would mostly be
# waiting already, its preemptions put on whoever took the CPU first).
diag_run() {
	local tag=$1 stats=$2 mode=$3; shift 3
	WL_GOFILE=$(mktemp -u "$T/go.XXXXXX")
	WL_GO=$WL_GOFILE start_cmd nice -n -20 setsid "$WL/diag_latency" $CPU 3 "$stats" "$mode" 1 \
		"$T/$tag.late"
	read -r DPID DHOT DSTATS DFLUSH <"$WL_OUT"
	echo -20 >/proc/"$DPID"/autogroup
	run_released "$T/$tag.out" "$T/$tag.err" tracing 'touch "$WL_GOFILE"' \
		${HC_VIA:-"$HC"} -t "$DHOT" -C $CPU -d 60 "$@"
	wait_wl
}
# hc_real_stdin ARGS...: hotcheck ARGS reading --correlate - on stdin, the
# requests of c2 with CLOCK_REALTIME timestamps (integer ns: mono + the
# offset between the clocks now), given once diag_hot has exited (the
# late file written; hotcheck says so on stderr).  The requests: the late
# file's (its comment lines kept, so that each keeps its line number),
# then each period's slowest request that diag_latency printed (served in
# the window whether or not any request was late: on a quiet machine the
# fixed run has none late).  $T/c2.fed holds what was fed, on
# CLOCK_MONOTONIC, line for line.
hc_real_stdin() {
	{
		local i
		for i in $(seq 1 1400); do	# at most 70 s: hotcheck's -d 60 is over by then
			grep -q 'every traced process has exited' "$T/c2.err" 2>/dev/null && break
			sleep 0.05
		done
		{
			cat "$T/c2.late"
			sed -n 's/^[0-9]*-[0-9]*s .* max= *\([0-9.]*\)us .*slowest served at \([0-9.]*\)$/\2 \1/p' \
				"$WL_OUT" | awk '{ printf "%s %d\n", $1, $2 * 1000 }'
		} >"$T/c2.fed"
		python3 -c '
import sys, time
off = time.clock_gettime_ns(time.CLOCK_REALTIME) - time.clock_gettime_ns(time.CLOCK_MONOTONIC)
for l in open(sys.argv[1]):
    if l.startswith("#"):
        print(l, end="")	# kept: the lines keep their numbers
        continue
    s, lat = l.split()
    sec, frac = s.split(".")
    print(int(sec) * 10**9 + int(frac.ljust(9, "0")) + off, lat)' "$T/c2.fed"
	} | "$HC" "$@"
}
# requests FILE: the request lines of a late file
requests() { grep -cv '^#' "$1"; }

diag_run c1 $CPU 1 --correlate "$T/c1.late" -j -o "$T/b1" --pprof "$T/c1.pb.gz" --trace "$T/c1.tr"
cp "$T/c1.out" "$T/first.json"
check_eq "correlate: exit 1 (the intruder and the lock found)" "$RUN_RC" 1
check "correlate: JSON parses" json_ok "$T/c1.out"
check_grep "correlate: the window ends when diag_hot exits" 'every traced process has exited' "$T/c1.err"
check_ge "correlate: the workload wrote late requests" "$(requests "$T/c1.late")" 1
check_eq "correlate: every request of the file is in the correlation" \
	"$(json_get "$T/c1.out" "d['correlation']['requests']")" "$(requests "$T/c1.late")"
check_eq "correlate: each request listed once, by its line" \
	"$(json_get "$T/c1.out" "sorted(q['line'] for q in d['correlation']['slow_requests'])")" \
	"$(grep -nv '^#' "$T/c1.late" | cut -d: -f1 | python3 -c 'import sys; print(sorted(int(l) for l in sys.stdin))')"
check_eq "correlate: explained + unexplained = the requests (none dropped)" \
	"$(json_get "$T/c1.out" "d['correlation']['explained'] + d['correlation']['unexplained']")" \
	"$(requests "$T/c1.late")"
check_eq "correlate: the states add up" \
	"$(json_get "$T/c1.out" "[sum(q['state'] == s for q in d['correlation']['slow_requests']) for s in ('explained', 'no_event', 'outside_window', 'too_little')] == [d['correlation']['explained'], d['correlation']['unexplained'] - d['correlation']['outside_window'] - d['correlation']['too_little'], d['correlation']['outside_window'], d['correlation']['too_little']]")" True
check_eq "correlate: no request outside the window (the workload ran inside it)" \
	"$(json_get "$T/c1.out" "d['correlation']['outside_window']")" 0
check_eq "correlate: the causes' requests add up to the explained ones" \
	"$(json_get "$T/c1.out" "sum(c['requests'] for c in d['correlation']['causes']) == d['correlation']['explained']")" True
check_eq "correlate: a request explained by time is covered half or more (else too_little)" \
	"$(json_get "$T/c1.out" "[q['line'] for q in d['correlation']['slow_requests'] if q['state'] == 'explained' and q['covered_ns'] and 2 * q['covered_ns'] < q['end_mono_ns'] - q['start_mono_ns']]")" "[]"
check_eq "correlate: one too_little names the cause that covers most of it" \
	"$(json_get "$T/c1.out" "all(q.get('nearest_cause') and 2 * q['covered_ns'] < q['end_mono_ns'] - q['start_mono_ns'] for q in d['correlation']['slow_requests'] if q['state'] == 'too_little')")" True
# the lock: diag_hot blocks in book_lock_wait, woken by diag_flusher
check_ge "correlate: diag_hot blocked on the lock" \
	"$(json_get "$T/c1.out" "[c['count'] for c in d['checks'] if c['check'] == 'blocks'][0]")" 1
check_eq "correlate: every block is the lock's: futex in book_lock_wait, woken by diag_flusher from book_unlock" \
	"$(json_get "$T/c1.out" "all(e['what'] == 'futex' and e['actor'] == 'diag_flusher' and e['actor_tid'] == $DFLUSH and ';book_lock_wait;' in e['stack'] and ';flush_journal;book_unlock;' in e['waker_stack'] for e in d['events'] if e['kind'] == 'block')")" True
check_ge "correlate: requests explained by the lock's blocks, with the flusher's name and tid" \
	"$(json_get "$T/c1.out" "sum(c['requests'] for c in d['correlation']['causes'] if c['cause'] == 'blocks woken by diag_flusher (tid $DFLUSH)')")" 1
# (a request that a lock wait covers for more than half of its interval
# is that wait's, by the rule, whatever else overlaps it: the futex call
# around the wait, the tasks the CPU ran meanwhile)
check_eq "correlate: every request mostly covered by a lock wait is put on it, not on its futex call" \
	"$(json_get "$T/c1.out" "[q['line'] for q in d['correlation']['slow_requests'] if any(s['kind'] == 'block' and 'woken by diag_flusher' in s['text'] and 2 * s['overlap_ns'] > q['end_mono_ns'] - q['start_mono_ns'] for s in q['shown']) and q.get('cause') != 'blocks woken by diag_flusher (tid $DFLUSH)']")" "[]"
check_ge "correlate: such requests exist" \
	"$(json_get "$T/c1.out" "len([q for q in d['correlation']['slow_requests'] if any(s['kind'] == 'block' and 2 * s['overlap_ns'] > q['end_mono_ns'] - q['start_mono_ns'] for s in q['shown'])])")" 1
check_eq "correlate: each lock request shows its block, woken by diag_flusher" \
	"$(json_get "$T/c1.out" "all(any(s['kind'] == 'block' and 'woken by diag_flusher (tid $DFLUSH)' in s['text'] for s in q['shown']) for q in d['correlation']['slow_requests'] if q.get('cause') == 'blocks woken by diag_flusher (tid $DFLUSH)')")" True
# the intruder: diag_stats preempts diag_hot on the CPU
check_ge "correlate: requests explained by diag_stats' preemptions" \
	"$(json_get "$T/c1.out" "sum(c['requests'] for c in d['correlation']['causes'] if c['cause'] == 'preemption by diag_stats (tid $DSTATS)')")" 1
# (other runs of this workload may share the CPU: theirs have other tids)
check_eq "correlate: every cause naming diag_stats' tid names diag_stats" \
	"$(json_get "$T/c1.out" "all(c['cause'] in ('preemption by diag_stats (tid $DSTATS)', 'task diag_stats (tid $DSTATS) on the CPU') for c in d['correlation']['causes'] if '(tid $DSTATS)' in c['cause'])")" True
check_eq "correlate: diag_stats' preemptions are in the timeline, by its name and tid" \
	"$(json_get "$T/c1.out" "len([e for e in d['events'] if e['kind'] == 'preempt' and e['actor_tid'] == $DSTATS]) > 0 and all(e['actor'] == 'diag_stats' for e in d['events'] if e['actor_tid'] == $DSTATS and e['kind'] in ('preempt', 'intruder'))")" True
# diag_stats sleeps 500 ms, then computes for 2 ms (preempted by diag_hot,
# nice -20, and resumed: resumptions are no arrivals), 6 times in 3 s.
# The period is what the workload controls; how many of its stays are
# arrivals is not quite (under ASan and load, a stay ended by a short
# block in its work is one more: 4 to 7 failed once in CI), so they are
# at least 3 and at most its stays
check_eq "correlate: diag_stats' cadence: every 500 ms within 2%, from its arrivals (3 to its stays), all kept" \
	"$(json_get "$T/c1.out" "[(abs(c['cadence']['period_ns'] - 500e6) <= 10e6, 3 <= c['cadence']['arrivals'] <= c['count'], c['cadence']['partial']) for c in d['causes']['cpu intruders'] if c['cause'] == 'diag_stats (tid $DSTATS)']")" \
	"[(True, True, False)]"
check_eq "correlate: cadence on the CPUs' causes only, null under three arrivals" \
	"$(json_get "$T/c1.out" "all(('cadence' in c) == (k in ('cpu intruders', 'irqs', 'softirqs', 'timers', 'ipis')) and ('cadence' not in c or c['count'] >= 3 or c['cadence'] is None) for k in d['causes'] for c in d['causes'][k])")" True
check_eq "correlate: a request's interval is its latency before its timestamp" \
	"$(json_get "$T/c1.out" "all(q['end_mono_ns'] == q['ts_ns'] and q['end_mono_ns'] - q['start_mono_ns'] == q['latency_ns'] for q in d['correlation']['slow_requests'])")" True
# --trace, the same run: the slow requests on their track, as the
# correlation has them; diag_stats' preemptions on diag_hot's track
tq() { trace_get "$T/c1.tr" "$T/c1.out" "$1"; }
check_eq "correlate: trace: a slice per request, its interval and state as the correlation's" \
	"$(tq "sorted((e['args']['line'], round(e['ts'] * 1000), round(e['dur'] * 1000), e['args']['state']) for e in ev if e['cat'] == 'request') == sorted((q['line'], q['start_mono_ns'], q['end_mono_ns'] - q['start_mono_ns'], q['state']) for q in d['correlation']['slow_requests'])")" True
check_eq "correlate: trace: an explained request is named by its cause" \
	"$(tq "all(e['name'].endswith(': ' + e['args']['cause']) for e in ev if e['cat'] == 'request' and e['args']['state'] == 'explained')")" True
# late requests overlap (the queue drains late at once): each is on one
# of the tracks "slow requests", "slow requests 2", ..., where none
# overlaps another, and the first track holds the first request
REQS="[e for e in ev if e['cat'] == 'request']"
check_eq "correlate: trace: the requests' tracks: none overlaps another on its track; more than one track (they overlap)" \
	"$(tq "(all(a['ts'] + a['dur'] <= b['ts'] for k in set((e['pid'], e['tid']) for e in $REQS) for a, b in (lambda s: zip(s, s[1:]))(sorted((e for e in $REQS if (e['pid'], e['tid']) == k), key=lambda e: e['ts']))), len(set(e['tid'] for e in $REQS)) > 1, min($REQS, key=lambda e: e['ts'])['tid'] == track('slow requests')[1])")" \
	"(True, True, True)"
check_eq "correlate: trace: diag_stats' preemptions of diag_hot, as in the report" \
	"$(tq "len([e for e in ev if e['cat'] == 'preempt' and e['name'] == 'preempted by diag_stats ($DSTATS)'])")" \
	"$(json_get "$T/c1.out" "len([e for e in d['events'] if e['kind'] == 'preempt' and e['actor_tid'] == $DSTATS])")"

# Both traces (the work run's and this one's) in a real consumer:
# speedscope (npm) in Debian's chromium opens them without an error or a
# warning, and what it parsed holds their known events: the hot thread's
# B nanosleep blocks and its preemptions, the CPU's events, the slow
# requests, diag_stats' preemptions of diag_hot
ART=$BUILD/artefacts
mkdir -p "$ART"
if trace_browser "$T" "work=$T/t1=$ART/trace-hotcheck-work.png" "corr=$T/c1.tr=$ART/trace-hotcheck.png"; then
	sg() { speedscope_get "$T/$1.speedscope.json" "$2"; }
	tq() { trace_get "$T/t1" "$T/j1" "$1"; }
	PH="[q for n, q in p.items() if n.endswith(', hc_hot ($WORK_TID) (tid $WORK_TID)')][0]"
	PC="[q for n, q in p.items() if n.endswith(', CPU $CPU (tid $(tq "track('CPU $CPU')[1]"))')][0]"
	check_eq "speedscope: work: a profile per track (the hot thread's, the CPU's)" \
		"$(sg work "len(p)")" "$(tq "len(thread)")"
	check_eq "speedscope: work: the hot thread's nanosleep blocks = the blocks check (B)" \
		"$(sg work "len([s for s in slices($PH) if s[0] == 'blocked: nanosleep' and s[1]['waker'] == '[hardirq]'])")" \
		"$(json_get "$T/j1" "[c['count'] for c in d['checks'] if c['check'] == 'blocks'][0]")"
	check_eq "speedscope: work: its preemptions = the trace's" \
		"$(sg work "len([s for s in slices($PH) if s[1].get('kind') == 'preempt'])")" \
		"$(tq "len([e for e in $HOT if e['ph'] == 'X' and e['cat'] == 'preempt' and e['dur'] > 0])")"
	# (speedscope keeps no slice of zero length and makes one of two
	# alike that touch: tests/browser/trace.js, tests/lib.sh's shown)
	check_eq "speedscope: work: the CPU's slices = the trace's (of a length above 0)" \
		"$(sg work "len(slices($PC))")" "$(tq "shown(on('CPU $CPU'))")"
	tq() { trace_get "$T/c1.tr" "$T/c1.out" "$1"; }
	check_eq "speedscope: correlate: a slice per slow request, as the trace's" \
		"$(sg corr "sorted(s[1]['line'] for n, q in p.items() if ', slow requests' in n for s in slices(q))")" \
		"$(tq "sorted(e['args']['line'] for e in ev if e['cat'] == 'request')")"
	check_eq "speedscope: correlate: diag_stats' preemptions of diag_hot, as in the report" \
		"$(sg corr "len([s for q in p.values() for s in slices(q) if s[0] == 'preempted by diag_stats ($DSTATS)'])")" \
		"$(json_get "$T/c1.out" "len([e for e in d['events'] if e['kind'] == 'preempt' and e['actor_tid'] == $DSTATS])")"
fi

# the bundle of the same run
for f in report.json syscalls.folded faults.folded blocks.folded wakers.folded \
	preemptions.folded syscalls.svg faults.svg blocks.svg wakers.svg preemptions.svg \
	timeline.tsv summary.txt; do
	check "bundle: $f written" test -f "$T/b1/$f"
done
check "bundle: report.json parses" json_ok "$T/b1/report.json"
check_eq "bundle: report.json is the -j document (checks, events, correlation)" \
	"$(python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); print(all(a[k] == b[k] for k in ("checks", "events", "correlation")))' "$T/c1.out" "$T/b1/report.json")" True
for f in syscalls faults blocks wakers preemptions; do
	check "bundle: $f.folded is well formed" folded_well_formed "$T/b1/$f.folded"
	check "bundle: $f.folded has user frames before kernel frames" folded_user_first "$T/b1/$f.folded"
done
check_eq "bundle: blocks.folded begins with diag_hot's comm, in book_lock_wait" \
	"$(cut -d';' -f1 "$T/b1/blocks.folded" | sort -u):$(grep -c ';book_lock_wait;' "$T/b1/blocks.folded")" "diag_hot:1"
check_eq "bundle: blocks.folded's microseconds are the blocks' time" \
	"$(folded_sum . "$T/b1/blocks.folded")" \
	"$(json_get "$T/c1.out" "sum(t // 1000 for t in [sum(e['dur_ns'] for e in d['events'] if e['kind'] == 'block' and e['stack'] == s) for s in {e['stack'] for e in d['events'] if e['kind'] == 'block'}])")"
check_eq "bundle: wakers.folded: one wakeup per block, from diag_flusher's book_unlock" \
	"$(folded_sum '^diag_flusher;.*;flush_journal;book_unlock;' "$T/b1/wakers.folded") $(folded_sum . "$T/b1/wakers.folded")" \
	"$(json_get "$T/c1.out" "[c['count'] for c in d['checks'] if c['check'] == 'blocks'][0]") $(json_get "$T/c1.out" "[c['count'] for c in d['checks'] if c['check'] == 'blocks'][0]")"
check_eq "bundle: preemptions.folded: diag_hot's comm, its time preempted" \
	"$(cut -d' ' -f1 "$T/b1/preemptions.folded") $(folded_sum . "$T/b1/preemptions.folded")" \
	"diag_hot $(json_get "$T/c1.out" "sum(e['dur_ns'] for e in d['events'] if e['kind'] == 'preempt') // 1000")"
# the flame graphs beside the folded files: the same lines, the same values
for f in syscalls faults blocks wakers preemptions; do
	check "bundle: $f.svg written, well-formed XML" xml_ok "$T/b1/$f.svg"
	check_eq "bundle: $f.svg's root holds $f.folded's total" \
		"$(svg_get "$T/b1/$f.svg" "[v for n, k, v, d in f if d == 0]")" "[$(folded_sum . "$T/b1/$f.folded")]"
done
check_eq "bundle: blocks.svg: book_lock_wait's frame holds its value in blocks.folded, a user frame" \
	"$(svg_get "$T/b1/blocks.svg" "(sum(v for n, k, v, d in f if n == 'book_lock_wait'), set(k for n, k, v, d in f if n == 'book_lock_wait'))")" \
	"($(folded_sum ';book_lock_wait;' "$T/b1/blocks.folded"), {2})"
check_eq "bundle: blocks.svg: diag_hot the thread, kernel frames without their mark" \
	"$(svg_get "$T/b1/blocks.svg" "(sorted(set(n for n, k, v, d in f if d == 1)), 3 in set(k for n, k, v, d in f), any(n.endswith('_[k]') for n, k, v, d in f))")" \
	"(['diag_hot'], True, False)"
check_grep "bundle: blocks.svg's title: hotcheck, what, the hot threads, the window" \
	"<text id=\"title\"[^>]*>hotcheck: blocks: off-CPU time of hot threads of tid $DHOT, [0-9.]+ s from [0-9-]+ [0-9:]+ UTC</text>" "$T/b1/blocks.svg"
check_grep "bundle: blocks.svg's unit is the folded file's" "Total $(folded_sum . "$T/b1/blocks.folded") us" "$T/b1/blocks.svg"
check_eq "bundle: timeline.tsv: a header, then every event" \
	"$(head -1 "$T/b1/timeline.tsv" | cut -f1-3) $(($(wc -l <"$T/b1/timeline.tsv") - 1))" \
	"# mono_ns	realtime_ns	kind $(json_get "$T/c1.out" "len(d['events'])")"
check_eq "bundle: timeline.tsv: both clocks, one offset, kinds as in the JSON" \
	"$(awk -F'\t' 'NR > 1 { print $2 - $1 }' "$T/b1/timeline.tsv" | sort -u | wc -l) $(awk -F'\t' 'NR > 1 { print $3 }' "$T/b1/timeline.tsv" | sort | uniq -c | awk '{ print $2 "=" $1 }' | tr '\n' ' ')" \
	"1 $(json_get "$T/c1.out" "' '.join('%s=%d' % (k, n) for k, n in sorted(__import__('collections').Counter(e['kind'] for e in d['events']).items()))") "
check_grep "bundle: summary.txt has the window with both clocks" '^window: .*CLOCK_MONOTONIC .*CLOCK_REALTIME' "$T/b1/summary.txt"
check_grep "bundle: summary.txt has the verdict's blocks row" '^blocks +[0-9]+ .*woken by diag_flusher' "$T/b1/summary.txt"
check_grep "bundle: summary.txt has the correlation's summary" \
	"^correlation: $(json_get "$T/c1.out" "d['correlation']['explained']") of $(requests "$T/c1.late") slow requests explained" "$T/b1/summary.txt"
check_eq "bundle: the directory is private (0700)" "$(stat -c %a "$T/b1")" 700
# --pprof of the same run: the blocks' stacks, gzipped
check_eq "pprof: a gzipped profile with the off-CPU sample type and the lock's stack" \
	"$(python3 -c 'import gzip,sys; b=gzip.open(sys.argv[1]).read(); print(all(s in b for s in (b"off_cpu", b"blocks", b"book_lock_wait", b"diag_hot")))' "$T/c1.pb.gz")" True

# 6. Both fixed (diag_stats on the other CPU, the journal written after the
#    lock is released): the lock's check, blocks, is SILENT, no event
#    names diag_stats, and --baseline shows the change.  (The preemptions
#    and cpu intruders rows count the other tasks of this shared CPU and
#    are not silent here.)
#    The requests come on stdin, on CLOCK_REALTIME (--clock real).
HC_VIA=hc_real_stdin diag_run c2 $((1 - CPU)) 2 --correlate - --clock real \
	--baseline "$T/first.json" -o "$T/b2"
check_eq "clock real: every request inside the window (converted back to CLOCK_MONOTONIC)" \
	"$(json_get "$T/b2/report.json" "(d['correlation']['clock'], d['correlation']['outside_window'])")" "('real', 0)"
# (one offset between the clocks converts every request, so each lands
# the same distance from its CLOCK_MONOTONIC line: the offset hotcheck read
# at the start less the one the converter read at the end.  That distance
# is not checked: once in CI it was over 1 ms, the clocks' offset having
# moved within the run on this guest)
check_eq "clock real: each request where its CLOCK_MONOTONIC line puts it, all moved by one offset" \
	"$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
mono = {}
for n, l in enumerate(open(sys.argv[2]), 1):
    if not l.startswith("#"):
        s, lat = l.split(); sec, frac = s.split(".")
        mono[n] = int(sec) * 10**9 + int(frac.ljust(9, "0"))
q = d["correlation"]["slow_requests"]
print(len(mono) > 0 and len(q) == len(mono) and
      len(set(r["end_mono_ns"] - mono[r["line"]] for r in q)) == 1)' "$T/b2/report.json" "$T/c2.fed")" True
check_eq "clock real: the requests fed are the late ones and one a period (3 periods of 1 s)" \
	"$(requests "$T/c2.fed")" "$(($(requests "$T/c2.late") + 3))"
check_eq "fixed: exit 1 (the CPU-level checks of this machine)" "$RUN_RC" 1
check "fixed: the bundle's report parses" json_ok "$T/b2/report.json"
check_eq "fixed: blocks SILENT" "$(row "$T/b2/report.json" blocks)" "True 0"
check_eq "fixed: no event of diag_stats" \
	"$(json_get "$T/b2/report.json" "len([e for e in d['events'] if e['actor_tid'] == $DSTATS and e['kind'] in ('preempt', 'intruder')])")" 0
check_eq "fixed: no request put on diag_stats or diag_flusher" \
	"$(json_get "$T/b2/report.json" "[c['cause'] for c in d['correlation']['causes'] if '(tid $DSTATS)' in c['cause'] or '(tid $DFLUSH)' in c['cause']]")" "[]"
check_eq "fixed: every request of the file is in the correlation" \
	"$(json_get "$T/b2/report.json" "d['correlation']['explained'] + d['correlation']['unexplained']")" "$(requests "$T/c2.fed")"
check_grep "fixed: the table says blocks is SILENT" '^blocks +SILENT' "$T/c2.out"
check_grep "fixed: the baseline's table: blocks fixed" '^blocks +[0-9]+ .* SILENT +fixed$' "$T/c2.out"
check_eq "fixed: the JSON baseline: blocks before found, after silent, fixed" \
	"$(json_get "$T/b2/report.json" "[(c['before']['silent'], c['after']['silent'], c['change']) for c in d['baseline']['checks'] if c['check'] == 'blocks']")" \
	"[(False, True, 'fixed')]"
check_eq "fixed: the baseline's rows are the twelve checks, in order" \
	"$(json_get "$T/b2/report.json" "[c['check'] for c in d['baseline']['checks']] == [c['check'] for c in d['checks']]")" True
check_eq "fixed: the baseline is the first run's file and version" \
	"$(json_get "$T/b2/report.json" "d['baseline']['file'] == '$T/first.json' and d['baseline']['version'] == d['version']")" True
check_grep "fixed: summary.txt holds the baseline's table" '^blocks +[0-9]+ .* fixed$' "$T/b2/summary.txt"

# 7. Bad input of the evidence options: exit 2 before anything is traced
printf '# served latency\n12345.000000001 2000\n\n12a4 1000\n' >"$T/bad.txt"
check_rc "a bad timestamp line in --correlate exits 2" 2 "$HC" -t $$ -d 1 --correlate "$T/bad.txt"
check_grep "and names FILE:LINE" "^hotcheck: --correlate: $T/bad.txt:4: bad timestamp \"12a4\"" "$T/rc.err"
check_nogrep "before tracing" 'tracing' "$T/rc.err"
printf '1.5 12x\n' | check_rc "a bad latency on stdin (-) exits 2" 2 "$HC" -t $$ -d 0.5 --correlate -
check_grep "and names -:1" 'correlate: -:1: bad latency' "$T/rc.err"
"$BIN/syswatch" -d 0.3 -j >"$T/sw.json" 2>/dev/null
check_rc "a --baseline from syswatch exits 2" 2 "$HC" -t $$ -d 1 --baseline "$T/sw.json"
check_grep "and says whose it is" "baseline: $T/sw.json is a report of syswatch, not of hotcheck" "$T/rc.err"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["version"]="0.0.1"; json.dump(d, open(sys.argv[2], "w"))' \
	"$T/first.json" "$T/old.json"
check_rc "a --baseline of another hotcheck version exits 2" 2 "$HC" -t $$ -d 1 --baseline "$T/old.json"
check_grep "and names both versions" "baseline: $T/old.json is from hotcheck 0.0.1, this is $("$HC" -V | awk '{ print $2 }')" "$T/rc.err"
check_rc "-o into a directory that is not empty exits 2" 2 "$HC" -t $$ -d 1 -o "$T/b1"
check_grep "and says so" "^hotcheck: -o: $T/b1 exists and is not empty" "$T/rc.err"
check_eq "and leaves it as it was" "$(ls "$T/b1" | wc -l)" 13
check_bad_inputs "$HC" "-t $$ --clock mono" "-t $$ --correlate $T/bad.txt --clock utc" \
	"-t $$ --correlate $T/none.txt" "-t $$ --correlate $T" "-t $$ --baseline $T/none.json" \
	"-t $$ -o $T/bad.txt" "-t $$ --correlate ''" "-t $$ -j --pprof -"

# 8. --inline (the stack tools' option): a Rust thread's 10 sleeps in
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
	run_held "$T/j8" "$T/e8" "$HC" -t "$rs_tid" --inline -j -d 10
	check_eq "--inline: the 10 sleeps' blocks under apply;settle;nap" \
		"$(json_get "$T/j8" "sum(b['count'] for b in d['causes']['blocks'] if 'rust_blocker::book::apply;rust_blocker::book::settle;rust_blocker::book::nap;' in b['stack'])")" 10
fi

# 9. A busy thread: every event counted, the timeline bounded.  hot_thread
#    makes 30000 getppid() calls; with --max-events 500 the timeline keeps
#    500 of the thread's own events, says how many more it counted, and
#    the JSON document does not grow with the calls (its bytes per counted
#    event stay far below one event's record)
BK=30000
WL_GOFILE=$(mktemp -u "$T/go.XXXXXX")
WL_GO=$WL_GOFILE start_wl hot_thread $CPU $BK 0 5
hot_tid
run_released "$T/j9" "$T/e9" 'warm-up is over' 'touch "$WL_GOFILE"' \
	"$HC" -t "$HOT_TID" -d 5 --warmup 1 --max-events 500 -j
kill "$WL_PID" 2>/dev/null
wait_wl
check "busy: JSON parses" json_ok "$T/j9"
check_eq "busy: syscalls counted exactly (30000 + 5)" "$(row "$T/j9" syscalls)" "False $((BK + 5))"
check_eq "busy: the 30000 getppid in hc_make_syscalls" \
	"$(json_get "$T/j9" "sum(c['count'] for c in d['causes']['syscalls'] if c['cause'] == 'getppid' and c['stack'].endswith(';hc_make_syscalls'))")" $BK
check_eq "busy: the latency histogram has every getppid" \
	"$(json_get "$T/j9" "[s['latency']['count'] for s in d['syscall_latency'] if s['syscall'] == 'getppid'][0]")" $BK
check_eq "busy: blocks counted exactly (5)" \
	"$(json_get "$T/j9" "[c['count'] for c in d['checks'] if c['check'] == 'blocks'][0] + d['losses']['interval_end_unseen']")" 5
check_eq "busy: the timeline keeps 500 of the thread's events" \
	"$(json_get "$T/j9" "len([e for e in d['events'] if e['tid'] == $HOT_TID])")" 500
# (events also holds the steps of stolen time the per-CPU readings made,
# not records: on a loaded VM there are some)
check_eq "busy: kept + not kept = every event of the window" \
	"$(json_get "$T/j9" "d['timeline']['kept'] + d['timeline']['not_kept'] == d['timeline']['events'] and d['timeline']['kept'] == len([e for e in d['events'] if e['kind'] != 'steal']) and d['timeline']['not_kept'] >= $BK - 500")" True
check_eq "busy: the kernel counted the syscalls and sent about 500 of them as records" \
	"$(json_get "$T/j9" "d['timeline']['counted_in_kernel'] >= $BK and 500 <= d['timeline']['counted_in_kernel'] - d['timeline']['counted_in_kernel_not_sent'] <= 500 + 8")" True
check "busy: the JSON holds under 40 bytes per counted event" \
	test "$(json_get "$T/j9" "int($(stat -c %s "$T/j9") * 1.0 / d['timeline']['events'])")" -lt 40
check_grep "busy: stderr says how many events were not kept" \
	'counted in the checks but not kept \(--max-events\)' "$T/e9"

# 10. Fixes run as printed: real tids, CPU lists and IRQ numbers, no
#     placeholder; a stack a frame a line, no line of the table longer than
#     a screen's width or two
for j in "$T/j1" "$T/j9"; do
	check_eq "fixes: no placeholder in $(basename "$j")'s fixes" \
		"$(json_get "$j" "[c['fix'] for c in d['checks'] if any(w in c['fix'] for w in ('TID', 'OTHER-CPUS', 'taskset -pc another', '/irq/N/'))]")" "[]"
done
if [ "$(json_get "$T/j1" "len([k for k in d['causes']['isolation'] if k['cause'].startswith('IRQ ')])")" -gt 0 ]; then
	check_grep "fixes: the IRQs moved to CPU 0 by number" \
		'for i in [0-9]+( [0-9]+)*; do echo 0 > /proc/irq/\$i/smp_affinity_list; done' <(json_get "$T/j1" "d['checks'][11]['fix']")
fi
check_eq "table: no line over 200 characters" \
	"$(awk 'length($0) > 200' "$T/t2" | wc -l)" 0
check_grep "table: the blocks' stack a frame a line, hc_block among them" \
	'^ +(stack: +)?hc_block$' "$T/t2"

# 11. hotcheck -p on threads that are not pinned: the CPU checks are left
#     out (the whole machine would be intruders), said on each row; with -C
#     of every CPU, hotcheck runs on the hot CPUs, and never counts itself
sleep 600 &	# killed below: four runs outlasted 60 s on a busy machine
SP=$!
"$HC" -p $SP -d 2 -j >"$T/j11" 2>"$T/e11"; rc=$?
"$HC" -p $SP -d 2 >"$T/t11" 2>"$T/e11t"
"$HC" -p $SP -C 0-1 -d 2 -j >"$T/j11c" 2>"$T/e11c" &
HCP=$!
# its own threads, seen while it runs: another hotcheck (a user's, a
# parallel test's) on these CPUs is an intruder like any other task
while kill -0 $HCP 2>/dev/null; do ls /proc/$HCP/task 2>/dev/null; sleep 0.05; done | sort -un >"$T/hc11.tids"
wait $HCP
HCTIDS="[$(paste -sd, "$T/hc11.tids")]"
check "-C 0-1: its own threads were seen ($HCTIDS)" test -s "$T/hc11.tids"
HCCOMM=$(basename "$HC" | cut -c1-15)
kill $SP; wait $SP 2>/dev/null
check "unpinned: JSON parses" json_ok "$T/j11"
check_eq "unpinned: exit 0 (a sleeping process: every check made is silent)" "$rc" 0
check_eq "unpinned: not pinned, said" "$(json_get "$T/j11" "d['targets']['pinned']")" False
check_eq "unpinned: the six CPU rows are not checked, none counted" \
	"$(json_get "$T/j11" "[(c['check'], c['count']) for c in d['checks'] if 'skipped' in c]")" \
	"[('cpu intruders', 0), ('irqs', 0), ('softirqs', 0), ('timers', 0), ('ipis', 0), ('isolation', 0)]"
check_grep "unpinned: the table says the CPU checks need pinned threads or -C" \
	'^cpu intruders .*not checked: the hot threads are not pinned.*-C' "$T/t11"
check_grep "unpinned: stderr says so" 'not pinned' "$T/e11"
check "-C 0-1: JSON parses" json_ok "$T/j11c"
check_eq "-C 0-1: hotcheck never counts itself" \
	"$(json_get "$T/j11c" "[k['cause'] for r in d['causes'].values() for k in r for t in $HCTIDS if k['cause'].startswith('$HCCOMM (tid %d)' % t)] + [e['actor'] for e in d['events'] if e['actor_tid'] in $HCTIDS and (e['kind'] in ('intruder', 'preemption'))]")" "[]"
check_grep "-C 0-1: the intruders' fix says no CPU is left to move them to" \
	'no CPU outside CPU 0-1 is online on this machine: (tid|kernel thread) [0-9]+' <(json_get "$T/j11c" "d['checks'][6]['fix']")

# 12. Stolen time, a line of its own per hot CPU in plain and JSON.  A
#     host that never wrote kvm_steal_time (this machine: /proc/stat's
#     steal column stays 0 since boot) is "not reported", never "0 ns",
#     and --correlate says steal time can be neither ruled in nor out;
#     SUITE_KFEAT_OFF=steal_time: "not available" (why)
proc_steal() {	# CPU: /proc/stat's steal column since boot, USER_HZ units
	awk -v c="cpu$1" '$1 == c { print $9 }' /proc/stat
}
NOTREP='the hypervisor does not report steal time on this machine (kvm_steal_time never written): time it took is not known'
sleep 600 &	# killed below: four runs outlasted 60 s on a busy machine
SP=$!
taskset -pc $CPU $SP >/dev/null
: >"$T/req12"
"$HC" -p $SP -C 0,$CPU -d 1 -j --correlate "$T/req12" >"$T/j12" 2>"$T/e12"
"$HC" -p $SP -C 0,$CPU -d 1 >"$T/t12" 2>"$T/e12t"
SUITE_KFEAT_OFF=steal_time "$HC" -p $SP -C $CPU -d 1 -j >"$T/j12o" 2>"$T/e12o"
SUITE_KFEAT_OFF=steal_time "$HC" -p $SP -C $CPU -d 1 >"$T/t12o" 2>"$T/e12ot"
kill $SP; wait $SP 2>/dev/null
check "steal: JSON parses" json_ok "$T/j12"
check_eq "steal: one entry per hot CPU" "$(json_get "$T/j12" "[s['cpu'] for s in d['steal']]")" "[0, $CPU]"
check_grep "steal: plain: the section" "^stolen time \\(the hypervisor's, from the kernel's kvm_steal_time\\):\$" "$T/t12"
for c in 0 $CPU; do
	st=$(json_get "$T/j12" "[s['status'] for s in d['steal'] if s['cpu'] == $c][0]")
	if [ "$(proc_steal $c)" = 0 ]; then
		check_eq "steal cpu $c: /proc/stat never counted steal: not reported" "$st" not_reported
		check_eq "steal cpu $c: JSON: not reported is said so, not as 0 ns" \
			"$(json_get "$T/j12" "[s['text'] for s in d['steal'] if s['cpu'] == $c][0]")" "$NOTREP"
		check_eq "steal cpu $c: JSON: no stolen_ns" \
			"$(json_get "$T/j12" "[s for s in d['steal'] if s['cpu'] == $c and 'stolen_ns' in s]")" "[]"
		check_grep "steal cpu $c: plain: its line says not reported" \
			"^  CPU $c: the hypervisor does not report steal time on this machine " "$T/t12"
	else
		check_eq "steal cpu $c: /proc/stat counted steal: reported" "$st" reported
		check_grep "steal cpu $c: plain: its line" "^  CPU $c: stolen by the hypervisor: " "$T/t12"
	fi
done
if [ "$(proc_steal 0)" = 0 ] && [ "$(proc_steal $CPU)" = 0 ]; then
	check_eq "steal: --correlate: steal time neither ruled in nor out" \
		"$(json_get "$T/j12" "d['correlation']['steal_unknown']")" \
		"steal time is not reported by the hypervisor on this machine"
	check_nogrep "steal: never '0 ns' where not reported" 'stolen by the hypervisor: 0 ns' "$T/t12"
fi
check "steal off: JSON parses" json_ok "$T/j12o"
check_eq "steal off: not available, said why" \
	"$(json_get "$T/j12o" "[(s['cpu'], s['status'], s['text']) for s in d['steal']]")" \
	"[($CPU, 'unavailable', 'steal time: not available on this kernel (turned off (SUITE_KFEAT_OFF))')]"
check_grep "steal off: plain: not available" \
	"^  CPU $CPU: steal time: not available on this kernel \\(turned off \\(SUITE_KFEAT_OFF\\)\\)\$" "$T/t12o"
