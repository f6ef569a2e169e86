# syswatch against syswatch_calls, whose syscalls are known in advance:
# its thread sw_caller makes exactly N getppid, F failing close(-1)
# (EBADF) and S nanosleep calls once it gets SIGUSR1, which is sent only
# once syswatch says it is tracing; sw_spinner makes none; sw_blocked sits
# in read() from the start.
SW=$BIN/syswatch
N=20000
F=7
S=3

# sw_start F S SLOW_MS [MODE]: starts the workload (N getppid), sets
# CALLER SPINNER BLOCKED MAIN to its threads' ids
sw_start() {
	start_wl syswatch_calls "$N" -1 "$@"
	CALLER=$(sw_tid sw_caller)
	SPINNER=$(sw_tid sw_spinner)
	BLOCKED=$(sw_tid sw_blocked)
	MAIN=$WL_PID
	# the caller waits for SIGUSR1 and sw_blocked reads: both in a
	# syscall before any tracing begins
	sw_in_syscall "$CALLER"
	sw_in_syscall "$BLOCKED"
}
sw_in_syscall() {
	local i
	for i in $(seq 1 500); do
		case $(cut -d' ' -f1 /proc/"$WL_PID"/task/"$1"/syscall 2>/dev/null) in
		[0-9]*) return ;;
		esac
		sleep 0.01
	done
}
sw_tid() { grep -lx "$1" /proc/"$WL_PID"/task/*/comm 2>/dev/null | head -1 | cut -d/ -f5; }

# sw_trace OUT ERR ARGS...: runs syswatch ARGS; once it traces, lets the
# caller start; waits for syswatch to end (exit status in RUN_RC)
sw_trace() {
	local out=$1 err=$2; shift 2
	run_released "$out" "$err" 'tracing syscalls' release_usr1 "$SW" "$@"
}

# field of the syscalls entry NAME in a JSON file ('' if absent)
sc() { json_get "$1" "next((str(s['$3']) for s in d['syscalls'] if s['name'] == '$2'), '')"; }

# 1. -t isolates the caller: exact counts, errors by errno, JSON schema
sw_start "$F" "$S" 20
sw_trace "$T/j1" "$T/e1" -t "$CALLER" -j -d 30
wait_wl
check "JSON parses" json_ok "$T/j1"
check_eq "-t: exactly $N getppid" "$(sc "$T/j1" getppid count)" "$N"
check_eq "-t: getppid made no error" "$(sc "$T/j1" getppid errors)" 0
check_eq "-t: exactly $F close" "$(sc "$T/j1" close count)" "$F"
check_eq "-t: every close failed" "$(sc "$T/j1" close errors)" "$F"
check_eq "-t: the errno is EBADF, $F times" \
	"$(json_get "$T/j1" "[(e['name'], e['errno'], e['count']) for s in d['syscalls'] if s['name'] == 'close' for e in s['errnos']]")" \
	"[('EBADF', 9, $F)]"
check_eq "-t: exactly $S nanosleep" "$(sc "$T/j1" nanosleep count)" "$S"
check_eq "-t: the thread's exit is counted, it never returns" "$(sc "$T/j1" exit no_return)" 1
check_eq "-t: the wait for the start signal began before tracing" \
	"$(sc "$T/j1" rt_sigtimedwait entered_before_start)" 1
check_eq "-t: no other thread's calls (main's clock_nanosleep, sw_blocked's read)" \
	"$(json_get "$T/j1" "sorted({s['name'] for s in d['syscalls']} & {'clock_nanosleep', 'read', 'futex'})")" "[]"
check_eq "JSON: the nr of getppid is the header's" "$(sc "$T/j1" getppid nr)" \
	"$(printf '#include <sys/syscall.h>\nSYS_getppid\n' | cpp -P | tail -1)"
check_eq "JSON: histogram buckets add up to the count" \
	"$(json_get "$T/j1" "[sum(b['count'] for b in s['histogram']['buckets']) == s['count'] for s in d['syscalls'] if s['count']].count(False)")" 0
check_eq "JSON: p50 <= p99 <= p99.9 <= max, total >= max" \
	"$(json_get "$T/j1" "[s['p50_ns'] <= s['p99_ns'] <= s['p999_ns'] <= s['max_ns'] <= s['total_ns'] for s in d['syscalls'] if s['count']].count(False)")" 0
check_eq "JSON: the issue's keys are there" \
	"$(json_get "$T/j1" "sorted(set(['name','nr','count','errors','total_ns','max_ns','p50_ns','p99_ns','p999_ns']) - set(d['syscalls'][0]))")" "[]"
check_eq "JSON: no losses" "$(json_get "$T/j1" "sum(d['losses'].values())")" 0
check_grep "the early stop (the thread exited) is said on stderr" 'has exited' "$T/e1"

# 2. -p: every thread; plain table
sw_start 0 0 20
sw_trace "$T/p2" "$T/e2" -p "$WL_PID" -d 30
wait_wl
check_eq "-p: exactly $N getppid in the table" "$(awk '$1 == "getppid" && $2 ~ /^[0-9]+$/ { print $2 }' "$T/p2")" "$N"
check_eq "-p: main's one linger (clock_nanosleep) is there" \
	"$(awk '$1 == "clock_nanosleep" && $2 ~ /^[0-9]+$/ { print $2 }' "$T/p2")" 1
check_grep "-p: a histogram is printed for getppid" '^getppid \(nr [0-9]+\)$' "$T/p2"
check_grep "-p: percentiles are printed" 'count [0-9]+ +avg .* p99.9 .* max ' "$T/p2"
check_grep "-p: sw_blocked's read, entered before tracing, is reported" \
	'entered before tracing began.* read:1' "$T/p2"

# 3. --per-thread: the counts land on the right thread
sw_start "$F" 0 20
sw_trace "$T/j3" "$T/e3" -p "$WL_PID" --per-thread -j -d 30
wait_wl
check_eq "--per-thread: $N getppid on the caller" \
	"$(json_get "$T/j3" "[(s['tid'], s['comm'], s['count']) for s in d['per_thread'] if s['name'] == 'getppid']")" \
	"[($CALLER, 'sw_caller', $N)]"
check_eq "--per-thread: $F close errors on the caller" \
	"$(json_get "$T/j3" "[(s['tid'], s['errors'], s['errnos'][0]['name']) for s in d['per_thread'] if s['name'] == 'close']")" \
	"[($CALLER, $F, 'EBADF')]"
check_eq "--per-thread: main's clock_nanosleep on main" \
	"$(json_get "$T/j3" "[(s['tid'], s['count']) for s in d['per_thread'] if s['name'] == 'clock_nanosleep']")" \
	"[($MAIN, 1)]"
check_eq "--per-thread: the spinner has no entry" \
	"$(json_get "$T/j3" "len([s for s in d['per_thread'] if s['tid'] == $SPINNER])")" 0
check_eq "--per-thread: the per-syscall sums are there too" "$(sc "$T/j3" getppid count)" "$N"
# (issue 27, one entry per printed identity: rows are keyed by what they
# print, the syscall, and with --per-thread the thread: none twice)
check_eq "--per-thread: no two rows print the same" \
	"$(json_get "$T/j3" "(len(d['per_thread']) == len(set((s['tid'], s['pid'], s['comm'], s['name']) for s in d['per_thread'])), len(d['syscalls']) == len(set(s['name'] for s in d['syscalls'])))")" "(True, True)"

# 4. --syscall keeps only the named syscalls
sw_start "$F" 0 20
sw_trace "$T/j4" "$T/e4" -p "$WL_PID" --syscall getppid,close -j -d 30
wait_wl
check_eq "--syscall getppid,close: only those" \
	"$(json_get "$T/j4" "sorted((s['name'], s['count']) for s in d['syscalls'])")" \
	"[('close', $F), ('getppid', $N)]"

# 5. --errors keeps only failed calls
sw_start "$F" 0 20
sw_trace "$T/j5" "$T/e5" -t "$CALLER" --errors -j -d 30
wait_wl
check_eq "--errors: only the $F failed close" \
	"$(json_get "$T/j5" "[(s['name'], s['count'], s['errors']) for s in d['syscalls'] if s['count']]")" \
	"[('close', $F, $F)]"

# 6. --slower-than streams each slow call with its user stack
sw_start 0 "$S" 20
sw_trace "$T/p6" "$T/e6" -t "$CALLER" --slower-than 10000 -d 30
wait_wl
check_eq "--slower-than 10000: the $S 20 ms nanosleep calls are streamed" \
	"$(grep -cE '^[0-9:.]+ +'"$CALLER"' +sw_caller +nanosleep +[0-9.]+m?s +0$' "$T/p6")" "$S"
check_eq "--slower-than: each with the calling function as leaf frame" \
	"$(grep -A1 -E ' nanosleep +[0-9.]+m?s +0$' "$T/p6" | grep -cx '    sw_slow_here')" "$S"
check_grep "--slower-than: the stack goes on to the thread function" '^    caller$' "$T/p6"
check_eq "--slower-than: the summary still counts $N getppid" \
	"$(awk '$1 == "getppid" && $2 ~ /^[0-9]+$/ { print $2 }' "$T/p6")" "$N"
sw_start 0 "$S" 20
sw_trace "$T/j6" "$T/e6j" -t "$CALLER" --slower-than 10000 -j -d 30
wait_wl
check_eq "--slower-than -j: slow_calls holds the $S nanosleep, root-first stacks" \
	"$(json_get "$T/j6" "[(c['name'], c['ret'], c['user_stack'][-1]) for c in d['slow_calls'] if c['name'] == 'nanosleep']")" \
	"$(python3 -c "print([('nanosleep', 0, 'sw_slow_here')] * $S)")"
check_eq "--slower-than -j: latencies are at least 10 ms" \
	"$(json_get "$T/j6" "[c['latency_ns'] >= 10000000 for c in d['slow_calls']].count(False)")" 0

# sw_stacks FILE SYSCALL: the stack printed under each streamed call of
# SYSCALL, one line each, its frames leaf first joined by commas
sw_stacks() {
	awk -v sc="$2" '
		/^[0-9][0-9:.]+ / { if (st != "") print st; st = ""; take = ($4 == sc); next }
		take && /^    / { sub(/^    /, ""); st = st == "" ? $0 : st "," $0; next }
		{ if (st != "") print st; st = ""; take = 0 }
		END { if (st != "") print st }' "$1"
}

# 6b. The stacks of --slower-than are whole and exact (the stack engine:
#     each new stack's frames are read before the call that names it, so
#     even the first call of a stack is never printed lost)
check_eq "--slower-than: every nanosleep's stack, exactly" \
	"$(sw_stacks "$T/p6" nanosleep | sort | uniq -c | sed 's/^ *//')" "$S sw_slow_here,caller,start_thread"
check_nogrep "--slower-than: no user stack printed lost" 'user stack lost' "$T/p6"
check_eq "--slower-than -j: every nanosleep's stack, exactly (root first)" \
	"$(json_get "$T/j6" "sorted(set(','.join(c['user_stack']) for c in d['slow_calls'] if c['name'] == 'nanosleep'))")" \
	"['start_thread,caller,sw_slow_here']"
check_eq "--slower-than: no stack lost or missing" \
	"$(json_get "$T/j6" "d['losses']['stack_ring_full'] + d['losses']['user_stack_unreadable']") $(grep -c 'never came\|missing' "$T/e6j")" "0 0"

sw_start 0 "$S" 20
sw_trace "$T/p6l" "$T/e6l" -t "$CALLER" --slower-than 10000 --lines -d 30
wait_wl
L6=$(awk '/^NOINLINE void sw_slow_here/ { f = 1 } f && /WL_SLEEP_MS/ { print NR; exit }' "$ROOT/tests/workloads/syswatch_calls.c")
check_eq "--slower-than --lines: the leaf frame names the line of the call, for each nanosleep" \
	"$(sw_stacks "$T/p6l" nanosleep | cut -d, -f1 | sort | uniq -c | sed 's/^ *//')" "$S sw_slow_here (syswatch_calls.c:$L6)"

# 6c. --dwarf: a binary built without frame pointers sleeping through
#     glibc; frame pointers lose the chain in libc, DWARF recovers it
NOFP_CHAIN='^(__)?clock_nanosleep[^,]*,(__)?nanosleep[^,]*,nofp_inner_sleep,nofp_middle,nofp_outer,main,(.*,)?_start$'
start_wl_held nofp_chain 10 30 0
run_held "$T/p6f" "$T/e6f" "$SW" -p "$WL_PID" --slower-than 10000 -d 10
check_nogrep "without --dwarf the no-frame-pointer chain is lost" 'nofp_middle' "$T/p6f"
start_wl_held nofp_chain 10 30 0
run_held "$T/p6d" "$T/e6d" "$SW" -p "$WL_PID" --slower-than 10000 --dwarf -d 10
check_eq "--dwarf: exit 0" "$RUN_RC" 0
check_eq "--dwarf: the 10 sleeps, each with the whole chain from the libc call to main and _start" \
	"$(sw_stacks "$T/p6d" clock_nanosleep | grep -cE "$NOFP_CHAIN")" 10
check_nogrep "--dwarf: no user stack lost, none truncated" 'user stack lost|truncated' "$T/p6d"
start_wl_held nofp_chain 10 30 0
run_held "$T/j6d" "$T/e6dj" "$SW" -p "$WL_PID" --slower-than 10000 --dwarf -j -d 10
check "--dwarf JSON parses" json_ok "$T/j6d"
check_eq "--dwarf -j: the 10 sleeps, root first from _start down to nofp_inner_sleep" \
	"$(json_get "$T/j6d" "len([c for c in d['slow_calls'] if c['user_stack'][0] == '_start' and c['user_stack'][-6:-2] == ['main', 'nofp_outer', 'nofp_middle', 'nofp_inner_sleep']])")" 10
# (sleeps of 200 ms, slower than 100 ms: the workload's 5 ms polls for
# its go file, slowed down by a busy machine, are not taken for them; a
# truncated stack cannot tell the two apart)
start_wl_held nofp_chain 3 200 0
run_held "$T/p6s" "$T/e6s" "$SW" -p "$WL_PID" --slower-than 100000 --dwarf --stack-copy-size 64 -d 10
check_eq "--dwarf with a 64-byte copy: the stacks end in a marked frame" \
	"$(sw_stacks "$T/p6s" clock_nanosleep | grep -c ',\[truncated: stack copy too short\]$')" 3
check_grep "--dwarf with a 64-byte copy: the count is reported" 'could not be unwound to the end' "$T/e6s"
# 6d. -f: the slow calls' stacks folded, thread and user frames root
#     first, the syscall as kernel frame, their latencies (us) summed;
#     --diff against that file once the slow calls have moved elsewhere
#     (no getppid calls: on a busy machine one can be preempted for longer
#     than the threshold)
FSTACK='sw_caller;start_thread;caller;sw_slow_here;nanosleep_[k]'
GSTACK='sw_caller;start_thread;caller;sw_slow_there;clock_nanosleep_[k]'
N=0 sw_start 0 "$S" 20
sw_trace "$T/f6" "$T/ef6" -t "$CALLER" --slower-than 10000 -f -d 30
wait_wl
check_eq "-f: exit 0, stdout is one folded line, the $S nanosleep calls' stack" \
	"$RUN_RC $(sed -E 's/ [0-9]+$//' "$T/f6")" "0 $FSTACK"
F6=$(awk '{ print $NF }' "$T/f6")
check_grep "-f: stderr counts the $S calls and sums their latencies to the line's value" \
	"^syswatch: $S calls slower than 10000 us, $F6 us in all\$" "$T/ef6"
check_eq "-f: the value is at least $S x 20 ms in us" "$((F6 >= S * 20000))" 1
N=0 sw_start 0 2 20 there
sw_trace "$T/d6" "$T/ed6" -t "$CALLER" --slower-than 10000 --diff "$T/f6" -d 30
wait_wl
# rows of the plain report's section: "grew|shrank CHANGE BEFORE AFTER STACK"
sw_diff_rows() {
	awk '/^  grew most/ { w = "grew"; next } /^  shrank most/ { w = "shrank"; next }
	     w && / CHANGE / { next }
	     w && /^    +[-+][0-9]/ { print w, $1, $2, $3, $4; next } { w = "" }' "$1"
}
G6=$(sw_diff_rows "$T/d6" | awk '$1 == "grew" { print $4 }')
check_eq "--diff: exit 0, the 2 clock_nanosleep calls' stack grew from 0, the nanosleep one shrank to 0" \
	"$RUN_RC $(sw_diff_rows "$T/d6" | tr '\n' '|')" \
	"0 grew +$G6 0 $G6 $GSTACK|shrank -$F6 $F6 0 $FSTACK|"
check_grep "--diff: the totals before and now" \
	"^against $T/f6: $F6 us before, $G6 us now; 1 stacks grew, 1 shrank, 0 the same\$" "$T/d6"
check_eq "--diff: the stream still prints the 2 calls, the growth is at least 2 x 20 ms" \
	"$(sw_stacks "$T/d6" clock_nanosleep | sort | uniq -c | sed 's/^ *//') $((G6 >= 40000))" \
	"2 sw_slow_there,caller,start_thread 1"
N=0 sw_start 0 2 20 there
sw_trace "$T/d6j" "$T/ed6j" -t "$CALLER" --slower-than 10000 --diff "$T/f6" -j -d 30
wait_wl
check_eq "--diff -j: \"diff\" holds the shrunk stack, and the grown one with what the calls took" \
	"$(json_get "$T/d6j" "(d['diff']['before_total'], d['diff']['shrank'], [(g['stack'], g['before'], g['after'] == sum(c['latency_ns'] // 1000 for c in d['slow_calls'])) for g in d['diff']['grew']])")" \
	"($F6, [{'stack': '$FSTACK', 'before': $F6, 'after': 0, 'change': -$F6}], [('$GSTACK', 0, True)])"
check_rc "-f with --diff exits 2" 2 "$SW" --slower-than 10000 -f --diff "$T/f6" -d 1
check_grep "-f with --diff: says why" 'diff' "$T/rc.err"
check_rc "--diff without --slower-than exits 2" 2 "$SW" --diff "$T/f6" -d 1
check_grep "--diff without --slower-than: says why" '^syswatch: --diff applies to --slower-than only' "$T/rc.err"
check_rc "-f without --slower-than exits 2" 2 "$SW" -f -d 1
check_grep "-f without --slower-than: says why" '^syswatch: -f applies to --slower-than only' "$T/rc.err"
check_bad_inputs "$SW" "--slower-than 10 -f -j" "--slower-than 10 --diff /nonexistent"
check_bad_inputs "$SW" "--dwarf" "--lines" "--stack-storage-size 100" "--slower-than 10 --stack-copy-size 64" \
	"--slower-than 10 --dwarf --stack-copy-size 100000" "--slower-than 10 --stack-storage-size 0"

# 7. Unknown numbers print as syscall_NNN
sw_start 0 0 20 unknown
sw_trace "$T/j7" "$T/e7" -t "$CALLER" -j -d 30
wait_wl
check_eq "syscall 511 (no name) is syscall_511, 4 ENOSYS" \
	"$(json_get "$T/j7" "[(s['nr'], s['count'], s['errnos'][0]['name']) for s in d['syscalls'] if s['name'] == 'syscall_511']")" \
	"[(511, 4, 'ENOSYS')]"

# 8. Calls in progress at the stop; --check
sw_start 0 0 20 hold
sw_trace "$T/j8" "$T/e8" -t "$CALLER,$BLOCKED" --check -j -d 2
check_eq "--check on the caller exits 1" "$RUN_RC" 1
check_grep "--check -j: the verdict names the count, threads, time, calls in progress" \
	"\"verdict\":\"[0-9]{5,} syscalls by tid $CALLER,$BLOCKED in 2 s \(2 still in progress\)\"" "$T/j8"
check_eq "in progress: the caller's 60 s nanosleep, entered during tracing" \
	"$(json_get "$T/j8" "[(c['name'], c['entered_before_start']) for c in d['in_progress'] if c['tid'] == $CALLER]")" \
	"[('nanosleep', False)]"
check_eq "in progress: sw_blocked's read, entered before tracing" \
	"$(json_get "$T/j8" "[(c['name'], c['entered_before_start'], c['elapsed_ns'] > 0) for c in d['in_progress'] if c['tid'] == $BLOCKED]")" \
	"[('read', True, True)]"
sw_trace "$T/p8b" "$T/e8b" -t "$CALLER" --check -d 1
check_eq "--check on a thread that sits in one call the whole time exits 1" "$RUN_RC" 1
check_grep "its verdict: 1 syscall, in progress" "^1 syscall by tid $CALLER in 1 s \(1 still in progress\)$" "$T/p8b"
check_grep "the call in progress is listed" "^$CALLER +$WL_PID +sw_caller +nanosleep +>= " "$T/p8b"
sw_trace "$T/p8s" "$T/e8s" -t "$SPINNER" --check -d 1
check_eq "--check on the spinning thread exits 0" "$RUN_RC" 0
check_grep "--check verdict: 0 syscalls by the spinner" "^0 syscalls by tid $SPINNER in 1 s$" "$T/p8s"
check_grep "--check: no call recorded for the spinner" '^No syscalls recorded' "$T/p8s"
sw_trace "$T/j8s" "$T/e8sj" -t "$SPINNER" --check -j -d 1
check_eq "--check -j on the spinner: exit 0, check.syscalls 0, nothing in progress" \
	"$RUN_RC $(json_get "$T/j8s" "d['check']['syscalls'], len(d['in_progress'])")" "0 (0, 0)"
kill "$WL_PID"; wait_wl

# 9. The raw_tp fallback counts the same
sw_start "$F" 0 20
SUITE_FORCE_RAW_TP=1 sw_trace "$T/j9" "$T/e9" -v -t "$CALLER" -j -d 30
wait_wl
check_grep "raw_tp flavour was used" 'using raw_tp tracepoints' "$T/e9"
check_eq "raw_tp: exactly $N getppid, $F close errors" \
	"$(sc "$T/j9" getppid count) $(sc "$T/j9" close errors)" "$N $F"

# 10. Bad input: exit 2 with a message naming the culprit
check_bad_inputs "$SW" "-p 12abc" "-t -5" "-p 4194303" "-t 4194303" "--syscall nosuch" "--syscall ''" \
	"--syscall getppid,,close" "--syscall syscall_99999" "--slower-than 0" "--slower-than 1x" \
	"--max-entries 0" "-d 0" "-d abc" "--bogus" "-f" "-C 0" "extra"
check_rc "--syscall nosuch" 2 "$SW" --syscall getppid,nosuch
check_grep "an unknown syscall is named" "unknown syscall 'nosuch'" "$T/rc.err"

# 11. Environment: no BTF -> exit 3 naming it
check_no_btf "$SW" -d 1

# 12. Help has USAGE and EXAMPLES; nothing left loaded
"$SW" --help >"$T/h" 2>&1
check_rc "-h is --help, exit 0" 0 "$SW" -h
check_grep "-h prints the usage" '^USAGE: syswatch' "$T/rc.out"
check_grep "--help has a USAGE line" '^USAGE: syswatch' "$T/h"
check_grep "--help has EXAMPLES" '^EXAMPLES:' "$T/h"
sw_start 0 0 20 hold
ex_ok=1 ex_n=0
while read -r ex; do
	# pid/tid 1 stands for the workload; durations shortened to 1 s
	ex=$(echo "$ex" | sed -E "s/ -([pt]) 1 / -\\1 $WL_PID /; s/ -d [0-9]+/ -d 1/")
	rc=0
	# (in $T: an example may write a file, --svg's)
	(cd "$T" && eval "$BIN/$ex") >"$T/ex.out" 2>&1 || rc=$?
	ex_n=$((ex_n + 1))
	case "$rc:$ex" in
	0:*|1:*--check*) ;;
	*) ex_ok=0; echo "#   '$ex' exit $rc"; head -3 "$T/ex.out" | sed 's/^/#   /' ;;
	esac
done < <(sed -n '/^EXAMPLES:/,/^$/p' "$T/h" | grep '^    syswatch' | sed 's/^    //; s/ *#.*//')
check_eq "every one of the 11 EXAMPLES lines runs" "$ex_ok $ex_n" "1 11"
kill "$WL_PID"; wait_wl
