# offcputime against workloads whose blocking is known in advance.
OC=$BIN/offcputime

# 1. 20 blocks of 50 ms in offcpu_block_here(): folded output names the
#    function with kernel frames, and the total is 1.0 s within 20%.
start_wl_held offcpu_blocker 20 50 0
run_held "$T/f1" "$T/e1" "$OC" -p "$WL_PID" -f -d 5
check_grep "folded names offcpu_block_here with kernel frames" \
	'^ocpu_blocker;.*offcpu_block_here;.*_\[k\] [0-9]+$' "$T/f1"
check_within "off-CPU time in offcpu_block_here is 20 x 50 ms" \
	"$(folded_sum 'offcpu_block_here' "$T/f1")" 1000000 20
check_grep "user frames reach main's thread start" ';blocker;offcpu_block_here;' "$T/f1"
check_grep "kernel stacks end in the scheduler" 'schedule_\[k\] [0-9]+$' "$T/f1"
check_nogrep "no frame of the tracing machinery" 'bpf_prog|bpf_trace_run|__traceiter|perf_trace' "$T/f1"
check "user frames come before kernel frames" awk '{ sub(/ [0-9]+$/, ""); n = split($0, f, ";"); k = 0
	for (i = 2; i <= n; i++) { if (f[i] ~ /_\[k\]$/) k = 1; else if (k) exit 1 } }' "$T/f1"
check "folded lines are 'stack value' with unique stacks" \
	awk 'NF < 2 || $NF !~ /^[0-9]+$/ { exit 1 } { sub(/ [0-9]+$/, ""); if (seen[$0]++) exit 1 }' "$T/f1"
check_grep "the early stop is said on stderr" 'every traced process has exited' "$T/e1"
check_nogrep "the main thread's wait is not counted as the blocker's" '^ocpu_blocker;.*pthread_join' "$T/f1"

# 2. The process exited before the report: its frames are still named.
check_nogrep "no raw addresses for the exited process" '^ocpu_[a-z]*;(.*;)?0x[0-9a-f]+;' "$T/f1"

# 3. -p excludes other processes
start_wl_held offcpu_blocker 10 20 0
p1=$WL_PID
go1=$WL_GOFILE
start_wl_held offcpu_blocker 10 20 0
"$OC" -p "$p1" -f -d 3 >"$T/f3" 2>"$T/e3" &
oc=$!
wait_line "$T/e3" tracing; touch "$go1" "$WL_GOFILE"
wait "$oc"; wait_wl
check_grep "-p: the traced process is there" 'offcpu_block_here' "$T/f3"
n_other=$(grep -v -E '^ocpu_(main|blocker);' "$T/f3" | wc -l)
check_eq "-p: every line belongs to the traced process" "$n_other" 0
check_within "-p: only one of the two identical processes is counted (10 x 20 ms)" \
	"$(folded_sum 'offcpu_block_here' "$T/f3")" 200000 25

# 4. --state is a mask: D (vfork wait) vs S (nanosleep), on a workload
#    that does both in every round.  libc's vfork has no frame pointer, so
#    the chain shows vfork called from blocker (offcpu_vfork_wait skipped).
start_wl_held offcpu_blocker 10 30 0 mixed
run_held "$T/f4d" "$T/err" "$OC" -p "$WL_PID" --state D -f -d 4
check_grep "--state D catches the vfork wait (TASK_KILLABLE has the D bit)" ';vfork;.*wait_for_completion' "$T/f4d"
check_nogrep "--state D leaves out nanosleep (S)" 'offcpu_block_here' "$T/f4d"
start_wl_held offcpu_blocker 10 30 0 mixed
run_held "$T/f4s" "$T/err" "$OC" -p "$WL_PID" --state S -f -d 4
check_grep "--state S catches nanosleep" 'offcpu_block_here' "$T/f4s"
check_nogrep "--state S leaves out the D waits" ';vfork;' "$T/f4s"
start_wl_held offcpu_blocker 10 30 0 mixed
run_held "$T/f4m" "$T/err" "$OC" -p "$WL_PID" --state 3 -f -d 4
check_grep "--state 3 (S|D) is a mask: D waits match it" ';vfork;.*wait_for_completion' "$T/f4m"
check_grep "--state 3 (S|D) is a mask: S waits match it" 'offcpu_block_here' "$T/f4m"

# 5. A thread still blocked at the end is counted up to the stop time.
#    The workload starts blocking once the tool says it is tracing.
WL_GO=$T/go5 start_wl offcpu_blocker 1 10 0 hold
"$OC" -p "$WL_PID" -f -d 2 >"$T/f5" 2>"$T/e5" &
ocpid=$!
wait_line "$T/e5" 'tracing' && touch "$T/go5"
wait "$ocpid"
kill "$WL_PID"; wait_wl
check_within "still-blocked thread counted up to the stop (~2 s)" \
	"$(folded_sum 'offcpu_hold_here' "$T/f5")" 1950000 10
check_grep "still-blocked threads are said on stderr" 'still off-CPU at the end' "$T/e5"

# 6. -t isolates one thread
start_wl_held offcpu_blocker 10 20 0
tid=""
for i in $(seq 1 100); do
	tid=$(grep -l ocpu_blocker /proc/"$WL_PID"/task/*/comm 2>/dev/null | head -1 | cut -d/ -f5)
	[ -n "$tid" ] && break; sleep 0.01
done
run_held "$T/f6" "$T/err" "$OC" -t "$tid" -f -d 3
check_grep "-t: the thread is there" '^ocpu_blocker;.*offcpu_block_here' "$T/f6"
check_nogrep "-t: the main thread is not" '^ocpu_main;' "$T/f6"

# 7. JSON parses and carries the stacks, root first
start_wl_held offcpu_blocker 10 20 0
run_held "$T/j7" "$T/err" "$OC" -p "$WL_PID" -j -d 3
check "JSON output parses" json_ok "$T/j7"
check_eq "JSON: the blocker's user stack ends in offcpu_block_here" \
	"$(json_get "$T/j7" "[s['user_stack'][-1] for s in d['stacks'] if s['comm']=='ocpu_blocker' and s['user_stack']][0]")" \
	offcpu_block_here
check_eq "JSON: losses are reported, none here" \
	"$(json_get "$T/j7" "sum(d['losses'].values())")" 0

# 8. The raw_tp fallback gives the same answer
start_wl_held offcpu_blocker 10 50 0
run_held "$T/f8" "$T/e8" env SUITE_FORCE_RAW_TP=1 "$OC" -v -p "$WL_PID" -f -d 3
check_grep "raw_tp flavour was used" 'using raw_tp tracepoints' "$T/e8"
check_within "raw_tp: 10 x 50 ms" "$(folded_sum 'offcpu_block_here' "$T/f8")" 500000 20

# 9. --check, min/max filters
start_wl offcpu_blocker 5 20 100
check_rc "--check exits 1 when something was recorded" 1 "$OC" -p "$WL_PID" --check -d 2
wait_wl
start_wl_held offcpu_blocker 5 20 0
run_held "$T/f9" "$T/err" "$OC" -p "$WL_PID" -m 100000 -f -d 2
check_nogrep "-m 100000 drops the 20 ms blocks" 'offcpu_block_here' "$T/f9"

# 10. Bad input: exit 2 with a message naming the culprit
for args in "-p 12abc" "-p -5" "-p 0x" "-p 99999999999" "-p 4194303" "-t 4194303" \
	"-m 1x" "-M -1" "-d 0" "-d abc" "--state Q" "-u -k" "-m 10 -M 5" \
	"--stack-storage-size 0" "--bogus" "-f -j" "1 2" "-d 1 1" "-C 999" "-C ''"; do
	eval "set -- $args"
	check_rc "bad input '$args' exits 2" 2 "$OC" "$@"
	[ -s "$T/rc.err" ] || fail "bad input '$args' says nothing on stderr"
done

# 11. Environment: no BTF -> exit 3 naming it
check_rc "no kernel BTF exits 3" 3 env SUITE_BTF_PATH=/nonexistent "$OC" -d 1
check_grep "the missing BTF is named" 'BTF' "$T/rc.err"

# 12. System-wide: a process started after the tool and gone before the
#     report is still named (its symbols were captured when first seen).
#     JSON, to pick out this process among any others on the machine.
"$OC" -j -d 4 >"$T/j12" 2>"$T/e12" &
ocpid=$!
wait_line "$T/e12" 'tracing'
start_wl offcpu_blocker 10 30 100
p12=$WL_PID
wait_wl
wait "$ocpid"
check "system-wide JSON parses" json_ok "$T/j12"
check_eq "system-wide: the exited late process is symbolized" \
	"$(json_get "$T/j12" "sorted(set(';'.join(s['user_stack'][-2:]) for s in d['stacks'] if s['pid']==$p12 and s['comm']=='ocpu_blocker'))")" \
	"['blocker;offcpu_block_here']"
check_within "system-wide: its time is 10 x 30 ms" \
	"$(json_get "$T/j12" "sum(s['total_us'] for s in d['stacks'] if s['pid']==$p12 and 'offcpu_block_here' in s['user_stack'])")" 300000 20
check_eq "system-wide: no idle task (pid 0)" \
	"$(json_get "$T/j12" "len([s for s in d['stacks'] if s['tid']==0])")" 0

# 13. --dwarf: a binary built without frame pointers, blocking through
#     glibc.  Frame pointers lose the chain in libc; DWARF recovers it.
start_wl_held nofp_chain 10 30 0
run_held "$T/f13fp" "$T/err" "$OC" -p "$WL_PID" -f -d 4
check_nogrep "without --dwarf the no-frame-pointer chain is lost" 'nofp_middle' "$T/f13fp"
start_wl_held nofp_chain 10 30 0
run_held "$T/f13" "$T/e13" "$OC" --dwarf -p "$WL_PID" -f -d 4
check_grep "--dwarf: whole chain from main down to the libc call" \
	'^nofp_chain;(.*;)?main;nofp_outer;nofp_middle;nofp_inner_sleep;(__)?nanosleep[^;]*;.*_\[k\] [0-9]+$' "$T/f13"
check_grep "--dwarf: the chain reaches the process entry" '^nofp_chain;_start;' "$T/f13"
check_nogrep "no symbol version suffix (glibc's fn@GLIBC_2.2.5) in frame names" '@' "$T/f13"
check_within "--dwarf: 10 x 30 ms in nofp_inner_sleep" \
	"$(folded_sum 'nofp_inner_sleep' "$T/f13")" 300000 20
# (a stack taken while the process unmaps its memory at exit may be short)
check_nogrep "--dwarf: the sleeps are not truncated with the default copy" 'truncated.*nofp_inner_sleep' "$T/f13"
start_wl_held nofp_chain 10 30 0
run_held "$T/f13s" "$T/e13s" "$OC" --dwarf --stack-copy-size 64 -p "$WL_PID" -f -d 4
check_grep "--dwarf with a 64-byte copy: stacks end in a marked frame" \
	'^nofp_chain;\[truncated: stack copy too short\];' "$T/f13s"
check_grep "--dwarf with a 64-byte copy: the count is reported" 'could not be unwound to the end' "$T/e13s"
start_wl_held offcpu_blocker 10 20 0
run_held "$T/j13" "$T/err" "$OC" --dwarf -p "$WL_PID" -j -d 3
check "--dwarf JSON parses" json_ok "$T/j13"
check_eq "--dwarf JSON has the same shape (user_stack ends in offcpu_block_here)" \
	"$(json_get "$T/j13" "[s['user_stack'][-1] for s in d['stacks'] if s['comm']=='ocpu_blocker' and s['user_stack']][0]")" \
	offcpu_block_here
check_rc "--stack-copy-size out of range exits 2" 2 "$OC" --dwarf --stack-copy-size 100000

# 14. Reliability: nothing left behind, losses said, pipes, siblings
check_clean_exit "SIGINT leaves no BPF program, map or link" INT "$OC" -f
check_clean_exit "SIGTERM leaves no BPF program, map or link" TERM "$OC" -f
check_clean_exit "-d expiry leaves no BPF program, map or link" none "$OC" -f -d 1
start_wl offcpu_blocker 5 20 300
check_clean_exit "target exit leaves no BPF program, map or link" none "$OC" -p "$WL_PID"
wait_wl
"$OC" -f -d 1 2>"$T/e14p" | head -1 >/dev/null
check_eq "output to a closed pipe ends quietly with exit 0" "${PIPESTATUS[0]}" 0
check_nogrep "closed pipe: no write error on stderr" 'write|Broken pipe|EPIPE' "$T/e14p"
"$OC" -f -d 2 --stack-storage-size 1 >/dev/null 2>"$T/e14l"
check_grep "a one-stack map: the lost stacks are reported" 'stacks lost|collision' "$T/e14l"
start_wl_held offcpu_blocker 10 30 0
"$OC" -p "$WL_PID" -f -d 4 >"$T/f14a" 2>"$T/e14a" &
a=$!
wait_line "$T/e14a" tracing
run_held "$T/f14b" "$T/e14b" "$OC" -p "$WL_PID" -f -d 4
wait "$a"
check_within "two instances side by side: the first sees 10 x 30 ms" "$(folded_sum offcpu_block_here "$T/f14a")" 300000 20
check_within "two instances side by side: the second too" "$(folded_sum offcpu_block_here "$T/f14b")" 300000 20
# a target that forks and execs many short-lived children
bash -c 'echo $$; sleep 0.3; for i in $(seq 1 200); do /bin/true; done' >"$T/fork.out" &
fp=$!
for i in $(seq 1 100); do [ -s "$T/fork.out" ] && break; sleep 0.01; done
"$OC" -p "$(head -1 "$T/fork.out")" -f -d 10 >"$T/f14f" 2>"$T/e14f"
rc=$?
wait "$fp"
check_eq "a forking target: clean exit" "$rc" 0
check "a forking target: the report is bounded (< 1000 lines)" test "$(wc -l <"$T/f14f")" -lt 1000
