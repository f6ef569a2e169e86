# Limits and honest reports (issue 15, docs/RELIABILITY.md "Sizes, bounds
# and honest reports"): size options checked against the machine's memory,
# hitmtop --replay within a memory bound, loss messages that name the real
# cause, offcputime's --check verdict, syswatch's exact minimum, and
# schedsilence's wakers in interrupt context.

# refused DESC REGEX CMD...: CMD exits 2 before loading anything, with one
# line on stderr (and the "Try --help" line) matching REGEX, nothing on
# stdout.  (The tools trace this shell, -p $$, in case one does run.)
refused() {
	local d=$1 re=$2 rc n; shift 2
	timeout -k 5 -s INT 30 "$@" >"$T/rf.out" 2>"$T/rf.err"
	rc=$?
	n=$(grep -Evc "^Try [\`'][a-z]+ --help" "$T/rf.err")
	if [ "$rc" = 2 ] && [ "$n" = 1 ] && [ ! -s "$T/rf.out" ] && grep -Eq -- "$re" "$T/rf.err"; then
		pass "$d"
	else
		fail "$d (exit $rc, $n lines; want exit 2 and one line matching /$re/)"
		sed 's/^/#   /' "$T/rf.err" | head -3
	fi
}

# run_usr1 OUT ERR CMD...: runs the tool CMD, sends SIGUSR1 to $WL_PID (the
# workload's start signal) once CMD says it traces, waits for CMD (status
# in RUN_RC), then ends the workload
run_usr1() {
	local out=$1 err=$2; shift 2
	run_released "$out" "$err" 'tracing|watching' release_usr1 "$@"
	kill "$WL_PID" 2>/dev/null
	wait_wl
}

# ---- 1. Size options against the machine's memory: more than half of
#         MemAvailable is refused, naming the option, the map and the
#         memory.  SUITE_MEMAVAILABLE_KB stands for MemAvailable, so that
#         nothing big is ever allocated.
M200=(env SUITE_MEMAVAILABLE_KB=200000)	# 204.8 MB: half is 102.4 MB
# 300000 stack ids: an LRU of 300000 ids (34 MB) and a ring buffer of 256
# bytes an id, a power of two (128 MB)
refused "offcputime --stack-storage-size 300000 (204.8 MB available): refused, with the stack engine's 162.1 MB" \
	'^offcputime: --stack-storage-size 300000: maps stack_seen and stack_rb would take 162\.1 MB of kernel memory, more than half of the 204\.8 MB available$' \
	"${M200[@]}" "$BIN/offcputime" -p $$ --stack-storage-size 300000 -d 1
check_rc "offcputime --stack-storage-size 200000 (86.5 MB) fits in the same 204.8 MB: it runs" 0 \
	"${M200[@]}" "$BIN/offcputime" -p $$ --stack-storage-size 200000 --max-entries 1024 -d 0.5 -f
refused "offcputime --max-entries: its three maps together" \
	'^offcputime: --max-entries 1000000: maps start, counts and asleep would take [0-9.]+ MB of kernel memory, more than half of the 204\.8 MB' \
	"${M200[@]}" "$BIN/offcputime" -p $$ --max-entries 1000000 -d 1
refused "wakers --max-entries: its three maps (latency histograms when full)" \
	'^wakers: --max-entries 30000: maps agg, latency and tstates would take [0-9.]+ MB of kernel memory' \
	"${M200[@]}" "$BIN/wakers" -p $$ --max-entries 30000 -d 1
refused "wakers --stack-storage-size" \
	'^wakers: --stack-storage-size 300000: maps stack_seen and stack_rb would take 162\.1 MB' \
	"${M200[@]}" "$BIN/wakers" -p $$ --stack-storage-size 300000 -d 1
refused "pfwatch --stack-storage-size" \
	'^pfwatch: --stack-storage-size 300000: maps stack_seen and stack_rb would take 162\.1 MB' \
	"${M200[@]}" "$BIN/pfwatch" -p $$ --stack-storage-size 300000 -d 1
refused "pfwatch --max-entries: a per-CPU map, counted for every possible CPU" \
	'^pfwatch: --max-entries 1000000: map counts would take [0-9.]+ MB of kernel memory' \
	"${M200[@]}" "$BIN/pfwatch" -p $$ --max-entries 1000000 -d 1
refused "syswatch --per-thread --max-entries: 4 KiB per (thread, syscall) row once full" \
	'^syswatch: --max-entries 30000: maps thread_stats and errnos would take [0-9.]+ MB of kernel memory' \
	"${M200[@]}" "$BIN/syswatch" -p $$ --per-thread --max-entries 30000 -d 1
refused "schedsilence --ringbuf-kb: the ring buffer" \
	'^schedsilence: --ringbuf-kb 1048576: the ring buffer would take 1\.1 GB of kernel memory, more than half of the 1\.0 GB available$' \
	env SUITE_MEMAVAILABLE_KB=1000000 "$BIN/schedsilence" -C 1 --ringbuf-kb 1048576 -d 1
refused "hitmtop --max-lines: the line and offset maps" \
	'^hitmtop: --max-lines 262144: maps lines and offs would take [0-9.]+ MB of kernel memory, more than half of the 20\.5 MB available$' \
	env SUITE_MEMAVAILABLE_KB=20000 HITMTOP_TEST_SOFTWARE_EVENT=1 "$BIN/hitmtop" -p $$ --max-lines 262144 -d 1
# each under half, together over it
refused "offcputime: two options, each under half, over it together" \
	'^offcputime: --stack-storage-size 200000 with --max-entries 200000: the maps would take [0-9.]+ MB of kernel memory together, more than half of the 204\.8 MB available$' \
	"${M200[@]}" "$BIN/offcputime" -p $$ --stack-storage-size 200000 --max-entries 200000 -d 1
# the machine's own MemAvailable: sizes no machine has half of
refused "offcputime --stack-storage-size 4294967295 against this machine's MemAvailable" \
	'^offcputime: --stack-storage-size 4294967295: maps stack_seen and stack_rb would take 344\.7 GB of kernel memory, more than half of the [0-9.]+ [GMk]B available$' \
	"$BIN/offcputime" -p $$ --stack-storage-size 4294967295 -d 1
refused "wakers --max-entries 4294967295 against this machine's MemAvailable" \
	'^wakers: --max-entries 4294967295: maps agg, latency and tstates would take [0-9.]+ TB of kernel memory, more than half of the [0-9.]+ [GMk]B available$' \
	"$BIN/wakers" -p $$ --max-entries 4294967295 -d 1
refused "syswatch --max-entries 4294967295 against this machine's MemAvailable" \
	'^syswatch: --max-entries 4294967295: map errnos would take [0-9.]+ [GT]B of kernel memory' \
	"$BIN/syswatch" -p $$ --max-entries 4294967295 -d 1
# ---- 2. hitmtop --replay within a bound: 1,000,000 distinct lines (a
#         58 MB file) with a true-sharing line among them.  Before: 1.4 GB;
#         now the --max-lines 4096 lines, the rest folded into "other"
#         with exact totals.
start_wl hitm_sharing false 2000000 60000
for i in $(seq 1 300); do grep -q '^ready$' "$WL_OUT" && break; sleep 0.01; done
TC=$(awk '$2 == "true_counter" { print $3 }' "$WL_OUT")
"$WL/hitm_gen" "$WL_OUT" true:1000 distinct:1000000 false:10 true:1000 >"$T/big.txt"
"$WL/hitm_gen" "$WL_OUT" true:1000 distinct:2000 false:10 true:1000 >"$T/small.txt"
# The bound is on what the replay adds: the peak RSS of the 1M-line replay
# against that of a 2000-line one (which fits in --max-lines), so that a
# sanitizer build's own memory cancels out; ASan's quarantine of freed
# blocks is turned off for these two runs, it would hold what is freed.
QZ="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
env ASAN_OPTIONS="$QZ" /usr/bin/time -f '%M %e' -o "$T/small.time" "$BIN/hitmtop" --replay "$T/small.txt" -j -n 100000 \
	>"$T/small.json" 2>"$T/small.err"
env ASAN_OPTIONS="$QZ" /usr/bin/time -f '%M %e' -o "$T/big.time" "$BIN/hitmtop" --replay "$T/big.txt" -j -n 100000 \
	>"$T/big.json" 2>"$T/big.err"
check_eq "big replay: exit 0, JSON parses" "$?$(json_ok "$T/big.json" && echo ok)" 0ok
read -r HWM_KB SECS <"$T/big.time"
read -r HWM_SMALL_KB _ <"$T/small.time"
check "big replay: peak RSS $HWM_KB kB is less than 64 MB above the $HWM_SMALL_KB kB of a 2000-line replay ($SECS s)" \
	[ $(( ${HWM_KB:-999999999} - ${HWM_SMALL_KB:-0} )) -lt 65536 ]
check_eq "big replay: every sample read (1000000 + 8000 + 40 + 8000)" \
	"$(json_get "$T/big.json" 'd["samples"]' 2>/dev/null)" 1016040
check_eq "big replay: at most --max-lines 4096 lines kept" \
	"$(json_get "$T/big.json" 'len(d["lines"]) <= 4096' 2>/dev/null)" True
check_eq "big replay: samples = in the lines shown + folded + skipped" \
	"$(json_get "$T/big.json" 'sum(l["loads"] + l["stores"] for l in d["lines"]) + d["other"]["samples"] + sum(d["skipped"].values())' 2>/dev/null)" 1016040
check_eq "big replay: HITMs = in the lines shown + folded" \
	"$(json_get "$T/big.json" 'sum(l["hitm"] for l in d["lines"]) + d["other"]["hitm"] == d["hitm"] == 1008020' 2>/dev/null)" True
check_eq "big replay: the folded line records are counted" \
	"$(json_get "$T/big.json" 'd["other"]["lines"] >= 1000000 - 4096' 2>/dev/null)" True
check_eq "big replay: the true-sharing line is first, with all its 8000 HITMs" \
	"$(json_get "$T/big.json" '(d["lines"][0]["addr"], d["lines"][0]["hitm"], d["lines"][0]["verdict"])' 2>/dev/null)" \
	"('$TC', 8000, 'true sharing')"
check_grep "big replay: stderr says what was folded and how to see more" \
	'line records \([0-9]+ samples, [0-9]+ HITMs\) were folded into "other" to stay within --max-lines 4096; raise it' "$T/big.err"
"$BIN/hitmtop" --replay "$T/big.txt" -n 3 >"$T/big.plain" 2>/dev/null
check_grep "big replay, plain: the report says how much was folded" \
	'^other: [0-9]+ line records folded to stay within --max-lines 4096 \([0-9]+ samples, [0-9]+ HITMs\)' "$T/big.plain"
"$BIN/hitmtop" --replay "$T/big.txt" -j -n 1000 --max-lines 64 >"$T/big64.json" 2>/dev/null
check_eq "big replay, --max-lines 64: 64 lines at most, the same totals" \
	"$(json_get "$T/big64.json" '(len(d["lines"]) <= 64, d["samples"], d["hitm"], sum(l["hitm"] for l in d["lines"]) + d["other"]["hitm"])' 2>/dev/null)" \
	"(True, 1016040, 1008020, 1008020)"
rm -f "$T/big.txt"
printf '# %09000d\n0 1 2 0x10 0x1000 0x%x 1\n%09000d\n' 0 $((0x1a242)) 0 >"$T/long.txt"
"$BIN/hitmtop" --replay "$T/long.txt" -j >"$T/long.json" 2>"$T/long.err"
check_grep "replay: a line longer than any sample is one malformed line" \
	'long.txt:3: malformed line skipped: longer than 1022 bytes' "$T/long.err"
check_eq "replay: a long comment is still a comment" \
	"$(json_get "$T/long.json" '(d["samples"], d["skipped"]["malformed_lines"])' 2>/dev/null)" "(1, 1)"
kill "$WL_PID" 2>/dev/null
wait_wl

# ---- 3. Loss messages name the cause.  wakers on 10,001 threads, each
#         woken by the main thread and by its own timer: more records than
#         --max-entries 10240.  The latency histograms' map is full, like
#         the records' (before: "no kernel memory for a new histogram").
start_wl_held many_wakees 10001 3
run_held "$T/w.json" "$T/w.err" "$BIN/wakers" -p "$WL_PID" -j
check_grep "wakers, 10001 targets: the full histogram map and the option to raise" \
	'^wakers: [0-9]+ latency samples lost: histogram map full; raise --max-entries$' "$T/w.err"
check_grep "wakers, 10001 targets: the full record map and the option to raise" \
	'^wakers: [0-9]+ events lost: aggregation map full; raise --max-entries$' "$T/w.err"
check_nogrep "wakers, 10001 targets: no word of kernel memory" 'kernel memory' "$T/w.err"
check_eq "wakers, 10001 targets: the JSON losses say the same" \
	"$(json_get "$T/w.json" '(d["losses"]["histogram_map_full"] > 0, d["losses"]["aggregation_map_full"] > 0, d["losses"]["no_kernel_memory"], d["losses"]["map_update_failed"])' 2>/dev/null)" \
	"(True, True, 0, 0)"

# ---- 4. offcputime --check: a verdict line, like the other tools
start_wl rel_threads 30000
read -r IDLE _ <"$WL_OUT"
# (the idle process sleeps (state S) the whole window: that is an off-CPU
# interval of the window's length, so "nothing found" is asked of the
# uninterruptible waits (--state D), of which it has none)
"$BIN/offcputime" -p "$IDLE" --check -d 1 >"$T/c0.out" 2>"$T/c0.err"
check_grep "offcputime --check, a process asleep the whole window: one interval, the window" \
	"^[0-9]+ us off-CPU in 1 interval by pid $IDLE in 1 s$" "$T/c0.out"
"$BIN/offcputime" -p "$IDLE" --state D --check -d 1 >"$T/c0.out" 2>"$T/c0.err"
check_eq "offcputime --check, nothing found: exit 0" "$?" 0
check_eq "offcputime --check, nothing found: the verdict line ends stdout" \
	"$(tail -1 "$T/c0.out")" "0 us off-CPU in 0 intervals by pid $IDLE in 1 s"
"$BIN/offcputime" -p "$IDLE" --state D --check -d 1 -j >"$T/c0.json" 2>"$T/c0j.err"
check "offcputime --check -j: stdout is the JSON document alone" json_ok "$T/c0.json"
check_grep "offcputime --check -j: the verdict on stderr" \
	"^offcputime: 0 us off-CPU in 0 intervals by pid $IDLE in 1 s$" "$T/c0j.err"
start_wl_held offcpu_blocker 5 40 0
run_held "$T/c1.out" "$T/c1.err" "$BIN/offcputime" -p "$WL_PID" --check
check_eq "offcputime --check, 5 x 40 ms found: exit 1" "$RUN_RC" 1
check_grep "offcputime --check, found: the verdict counts the intervals" \
	"^[0-9]+ us off-CPU in [0-9]+ intervals by pid $WL_PID in [0-9.]+ s$" "$T/c1.out"

# ---- 5. syswatch: the exact minimum, and no percentile below it.  40
#         nanosleep(5 ms) calls all take 5 ms or more; the log-linear
#         bucket they fall in starts at 4.72 ms.
start_wl syswatch_calls 0 -1 0 40 5
run_usr1 "$T/s.json" "$T/s.err" "$BIN/syswatch" -p "$WL_PID" -j
check_eq "syswatch: nanosleep's min_ns is at least 5 ms, and no percentile is below it" \
	"$(json_get "$T/s.json" '[(s["min_ns"] >= 5000000, s["p50_ns"] >= s["min_ns"], s["p99_ns"] <= s["max_ns"], s["histogram"]["min_ns"] == s["min_ns"]) for s in d["syscalls"] if s["name"] == "nanosleep"]' 2>/dev/null)" \
	"[(True, True, True, True)]"
start_wl syswatch_calls 0 -1 0 40 5
run_usr1 "$T/s.out" "$T/s.err" "$BIN/syswatch" -p "$WL_PID"
check_grep "syswatch: a MIN column before P50" '^SYSCALL +COUNT +ERRORS +TOTAL +AVG +MIN +P50 +P99 +P99\.9 +MAX' "$T/s.out"
check_eq "syswatch: nanosleep's MIN and P50 read 5.0 ms or more" \
	"$(awk '$1 == "nanosleep" && $2 ~ /^[0-9]+$/ { print ($6 ~ /ms$/ && $6 + 0 >= 5.0 && $7 + 0 >= 5.0) ? "yes" : $6 " " $7 }' "$T/s.out")" yes

# ---- 6. schedsilence: a timer that fires while the allowed spinner runs
#         wakes the intruder; the waker is the interrupt, not the spinner.
#         The intruder's last wakeup is its last timer (the run ends
#         before the process exits).
for j in json plain; do
	opt=; [ $j = json ] && opt=-j
	start_wl silence_pinned 1 10 20 8000
	read -r SP_PID _ _ <"$WL_OUT"
	WL_PID=$SP_PID run_usr1 "$T/ss.$j" "$T/ss.err" "$BIN/schedsilence" -C 1 -d 1.5 \
		--allow-comm ss_spinner $opt
done
check_eq "schedsilence: ss_intruder's last waker is the interrupt, with no pid" \
	"$(json_get "$T/ss.json" '[(r["last_waker"] in ("[hardirq]", "[softirq]"), r["last_waker_pid"], r["last_waker_context"] in ("hardirq", "softirq")) for r in d["intruders"] if r["name"] == "ss_intruder"]' 2>/dev/null)" \
	"[(True, 0, True)]"
# (the plain view shows the first fixes only: on a CPU that other tests
# keep busy, ss_intruder's may not be among them)
if grep -q '^  cpu 1 task ss_intruder ' "$T/ss.plain"; then
	check_grep "schedsilence: the fix line says the interrupt woke it" \
		'task ss_intruder .*woken [0-9]+ times, last by \[(hard|soft)irq\];' "$T/ss.plain"
	check_nogrep "schedsilence: not the spinner it interrupted" 'ss_intruder .*last by ss_spinner' "$T/ss.plain"
else
	echo "# schedsilence plain: ss_intruder not among the fixes shown (busy CPU); its JSON is checked above"
fi
