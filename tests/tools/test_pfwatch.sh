# pfwatch against workloads whose page faults are known in advance.
# The workloads wait for SIGUSR1 (sent once pfwatch says it is tracing)
# before they touch their fresh pages, so no fault is missed at the start
# (60 s at most: pfwatch under ASan on a busy machine once took more than
# the 5 s a workload waits by default, and its first faults went untraced).
PF=$BIN/pfwatch

# pf_run OUT ERR PFWATCH-ARGS...: pfwatch on $WL_PID in the background;
# once it traces, the workload is released; waits for both.  $RUN_RC is
# pfwatch's exit status.
pf_run() {
	local out=$1 err=$2; shift 2
	run_released "$out" "$err" 'tracing page faults' release_usr1 "$PF" "$@"
	wait_wl
}

# check_range DESC GOT MIN MAX
check_range() {
	if [ -n "$2" ] && [ "$2" -ge "$3" ] 2>/dev/null && [ "$2" -le "$4" ]; then
		pass "$1 ($2 in $3..$4)"
	else
		fail "$1 (got '$2', want $3..$4)"
	fi
}

# faults of the JSON entries whose user stack ends in FUNC, in array KEY
json_func() {
	json_get "$1" "sum(e['count'] for e in d['$2'] if e['user_stack'] and e['user_stack'][-1] == '$3')"
}
# the mappings of those entries, sorted and unique
json_func_maps() {
	json_get "$1" "','.join(sorted(set(e['mapping'] for e in d['$2'] if e['user_stack'] and e['user_stack'][-1] == '$3')))"
}

# 1. 2000 fresh anonymous pages touched in pf_touch_fresh_pages(): at least
#    2000 faults there and not 10% more, the mapping named "[anon]".
start_wl pf_toucher 2000 60000
pf_run "$T/j1" "$T/e1" -p "$WL_PID" -j -d 20
check_eq "anon: pfwatch exits 0" "$RUN_RC" 0
check "anon: JSON parses" json_ok "$T/j1"
check_range "anon: faults in pf_touch_fresh_pages" "$(json_func "$T/j1" faults pf_touch_fresh_pages)" 2000 2200
check_eq "anon: the mapping is named" "$(json_func_maps "$T/j1" faults pf_touch_fresh_pages)" "[anon]"
check_eq "anon: all minor" "$(json_get "$T/j1" "sum(e['major'] for e in d['faults'])")" 0
check_eq "anon: user stack goes back to main" \
	"$(json_get "$T/j1" "[e['user_stack'][-2] for e in d['faults'] if e['user_stack'][-1] == 'pf_touch_fresh_pages'][0]")" main
check_eq "anon: user-mode faults have no kernel stack" \
	"$(json_get "$T/j1" "[len(e['kernel_stack']) for e in d['faults'] if e['user_stack'][-1] == 'pf_touch_fresh_pages'][0]")" 0
check_eq "anon: no loss, every counted fault seen" "$(json_get "$T/j1" "sum(d['losses'].values())")" 0
check_eq "anon: per-thread events with -p" "$(json_get "$T/j1" "d['events']")" per-thread
check_grep "anon: the early stop is said on stderr" 'every traced process has exited' "$T/e1"

# 2. Each kind of mapping is named, from /proc/PID/maps read while the
#    process lived (it has exited by the time of the report)
start_wl pf_toucher 300 60000 heap
pf_run "$T/j2h" "$T/e2h" -p "$WL_PID" -j -d 20
check_range "heap: faults" "$(json_func "$T/j2h" faults pf_touch_fresh_pages)" 300 330
check_eq "heap: the mapping is [heap]" "$(json_func_maps "$T/j2h" faults pf_touch_fresh_pages)" "[heap]"
start_wl pf_toucher 300 60000 file
pf_run "$T/j2f" "$T/e2f" -p "$WL_PID" -j -d 20
check_range "file: faults" "$(json_func "$T/j2f" faults pf_touch_fresh_pages)" 300 330
check_eq "file: the mapping is the file's path" \
	"$(json_func_maps "$T/j2f" faults pf_touch_fresh_pages)" "${TMPDIR:-/tmp}/pf_toucher.$WL_PID.data"

# 3. Major faults: the file dropped from the page cache, no read-ahead
start_wl pf_toucher 200 60000 major
pf_run "$T/j3" "$T/e3" -p "$WL_PID" -j -d 20
check_range "major: major faults in pf_touch_fresh_pages" \
	"$(json_get "$T/j3" "sum(e['major'] for e in d['faults'] if e['user_stack'][-1] == 'pf_touch_fresh_pages')")" 200 220
check_eq "major: totals agree" "$(json_get "$T/j3" "d['totals']['major'] >= 200")" True

# 4. Faults taken in kernel mode (read(2) into fresh pages): the kernel
#    stack is there, after the user frames, in folded output
start_wl pf_toucher 400 60000 read
pf_run "$T/f4" "$T/e4" -p "$WL_PID" -f -d 20
check_range "read: kernel-mode faults under pf_touch_fresh_pages" \
	"$(folded_sum ';pf_touch_fresh_pages;.*_\[k\] [0-9]+$' "$T/f4")" 400 440
check_grep "read: the kernel stack names the read path" '^pf_toucher;.*pf_touch_fresh_pages;.*(vfs_read|filemap_read)_\[k\];' "$T/f4"
check "folded: user frames come before kernel frames" folded_user_first "$T/f4"
check "folded: lines are 'stack value' with unique stacks" folded_well_formed "$T/f4"
check_nogrep "folded: no frame of the tracing machinery" 'bpf_prog|bpf_trace_run|perf_swevent|__perf_event_overflow' "$T/f4"
check_nogrep "folded: stdout holds only folded lines" 'VmLck|Memory locking' "$T/f4"
check_grep "folded: the locking state goes to stderr" 'VmLck 0 kB: memory is not locked' "$T/e4"

# 5. --warmup: the 200 pages touched at once are warm-up, the 300 touched
#    2.5 s later are violations
start_wl pf_toucher 300 60000 anon 200 2500
pf_run "$T/j5" "$T/e5" -p "$WL_PID" -j -d 20 --warmup 1.5
check_range "warmup: pf_warmup_touch is in the warm-up" "$(json_func "$T/j5" warmup_faults pf_warmup_touch)" 200 220
check_eq "warmup: pf_warmup_touch is not a violation" "$(json_func "$T/j5" faults pf_warmup_touch)" 0
check_range "warmup: pf_touch_fresh_pages is a violation" "$(json_func "$T/j5" faults pf_touch_fresh_pages)" 300 330
check_eq "warmup: pf_touch_fresh_pages is not in the warm-up" "$(json_func "$T/j5" warmup_faults pf_touch_fresh_pages)" 0
check_eq "warmup: totals split" "$(json_get "$T/j5" "d['totals']['warmup_faults'] >= 200 and d['totals']['faults'] >= 300")" True

# 6. mlockall + pre-faulting in the warm-up, then a steady loop: 0 faults
#    after the warm-up, --check exits 0, and the locked state is shown
start_wl pf_locked 512 2000
pf_run "$T/p6" "$T/e6" -p "$WL_PID" -d 20 --warmup 1 --check
check_eq "locked: --check exits 0 (no fault after the warm-up)" "$RUN_RC" 0
check_grep "locked: 0 faults after the warm-up" '^After warm-up: 0 faults' "$T/p6"
check_grep "locked: the warm-up faults are counted" '^Warm-up \(first 1 s\): (5[1-9][0-9]|[6-9][0-9][0-9]) faults' "$T/p6"
check_grep "locked: not locked at the start" 'at start: VmLck 0 kB: memory is not locked' "$T/p6"
check_grep "locked: mlockall in effect at the end" '(at end|last seen).*: VmLck [1-9][0-9]* kB of VmRSS .*mlockall appears to be in effect' "$T/p6"
check_grep "locked: pf_prefault shown as warm-up" 'pf_prefault' "$T/p6"
start_wl pf_locked 512 2000
pf_run "$T/j6" "$T/e6j" -p "$WL_PID" -d 20 --warmup 1 -j
check_eq "locked JSON: 0 faults after warm-up" "$(json_get "$T/j6" "d['totals']['faults']")" 0
check_eq "locked JSON: mlockall at end, unlocked at start" \
	"$(json_get "$T/j6" "(d['targets'][0]['memlock_end']['mlockall'], d['targets'][0]['memlock_start']['locked'])")" "(True, False)"

# 7. --check exits 1 when a fault came after the warm-up
start_wl pf_toucher 50 60000
pf_run "$T/p7" "$T/e7" -p "$WL_PID" -d 20 --check
check_eq "--check exits 1 when faults were recorded" "$RUN_RC" 1
check_grep "--check: the report names the function" 'pf_touch_fresh_pages' "$T/p7"

# 8. -p excludes other processes, with per-thread and per-CPU events: two
#    identical processes fault at the same time, one is counted
for mode in per-thread per-cpu; do
	start_wl pf_toucher 500 60000
	p1=$WL_PID
	start_wl pf_toucher 500 60000
	p2=$WL_PID
	extra=""; said='perf events on 1 thread, two each'
	[ "$mode" = per-cpu ] && extra=--per-cpu said='perf events on [0-9]+ CPUs?, two each'
	"$PF" -p "$p1" -f -d 20 $extra >"$T/f8" 2>"$T/e8" &
	tp=$!
	for i in $(seq 1 600); do grep -q 'tracing page faults' "$T/e8" && break; sleep 0.05; done
	kill -USR1 "$p1" "$p2"; wait "$tp"; wait_wl
	check_grep "$mode: said on stderr" "$said" "$T/e8"
	check_range "$mode -p: one of two identical processes counted" \
		"$(folded_sum 'pf_touch_fresh_pages' "$T/f8")" 500 550
	check_eq "$mode -p: no other process" "$(grep -vc "^pf_toucher;" "$T/f8")" 0
done

# 9. -t: one thread; threads created later are followed with -p
start_wl pf_toucher 300 60000
pf_run "$T/f9" "$T/e9" -t "$WL_PID" -f -d 20
check_range "-t: the thread's faults" "$(folded_sum 'pf_touch_fresh_pages' "$T/f9")" 300 330
start_wl pf_toucher 300 60000 thread
pf_run "$T/f9b" "$T/e9b" -p "$WL_PID" -f -d 20
check_range "-p: a thread created after the start is followed" \
	"$(folded_sum '^pf_thread;.*pf_touch_fresh_pages' "$T/f9b")" 300 330

# 10. The raw_tp flavour (for the exec tracepoint) gives the same answer
start_wl pf_toucher 300 60000
SUITE_FORCE_RAW_TP=1 pf_run "$T/f10" "$T/e10" -v -p "$WL_PID" -f -d 20
check_grep "raw_tp flavour was used" 'using raw_tp tracepoints' "$T/e10"
check_range "raw_tp: the faults" "$(folded_sum 'pf_touch_fresh_pages' "$T/f10")" 300 330

# 11. Bad input: exit 2 with a message naming the culprit
check_bad_inputs "$PF" "-p 12abc" "-p -5" "-p 99999999999" "-p 4194303" "-t 4194303" "-d 0" \
	"-d abc" "--warmup abc" "--warmup 0" "--warmup 5 -d 3" "-f -j" "--bogus" \
	"--stack-storage-size 0" "--max-entries 1x" "extra"
check_rc "--warmup not shorter than -d exits 2" 2 "$PF" --warmup 5 -d 3
check_grep "--warmup not shorter than -d: both named" '--warmup 5 .*-d 3' "$T/rc.err"
check_rc "-h prints help" 0 "$PF" -h
check_grep "-h: USAGE and EXAMPLES" 'EXAMPLES' "$T/rc.out"

# 12. Environment: no BTF -> exit 3 naming it
check_no_btf "$PF" -d 1

# 13. --dwarf: a binary built without frame pointers faulting inside glibc
#     (memset on 300 fresh pages).  Frame pointers lose the chain in libc;
#     DWARF recovers it, with the same counts.
start_wl_held nofp_faulter 300
run_held "$T/f13fp" "$T/e13fp" "$PF" -p "$WL_PID" -f -d 20
# (a fault more or so where libc's memset code is faulted in again, as in 1.)
check_range "no --dwarf: the 300 faults are in memset" "$(folded_sum 'memset' "$T/f13fp")" 300 310
check_nogrep "no --dwarf: the no-frame-pointer chain is lost" 'nofp_fault_inner' "$T/f13fp"
start_wl_held nofp_faulter 300
run_held "$T/f13" "$T/e13" "$PF" --dwarf -p "$WL_PID" -f -d 20
check_grep "--dwarf: whole chain from _start and main down to memset" \
	'^nofp_faulter;_start;(.*;)?main;nofp_fault_outer;nofp_fault_middle;nofp_fault_inner;[^;]*memset[^;]* [0-9]+$' "$T/f13"
check_range "--dwarf: the 300 faults in nofp_fault_inner" \
	"$(folded_sum 'nofp_fault_inner;[^;]*memset' "$T/f13")" 300 310
check_nogrep "--dwarf: nothing truncated with the default copy" 'truncated' "$T/f13"
check_nogrep "--dwarf: no stack reported as not unwound" 'could not be unwound' "$T/e13"
start_wl_held nofp_faulter 300
run_held "$T/j13" "$T/e13j" "$PF" --dwarf -p "$WL_PID" -j -d 20
check "--dwarf: JSON parses" json_ok "$T/j13"
# (exactly the faults the kernel counted for the workload's call, from its
# "minflt" line: 300, or more when a page had to be faulted again, as
# under load it can (301 once with both CPUs busy, against 300 wanted))
minflt=$(sed -n 's/^minflt //p' "$WL_OUT")
check_eq "--dwarf JSON: exactly the workload's faults (its minflt) under nofp_fault_inner" \
	"$(json_get "$T/j13" "sum(e['count'] for e in d['faults'] if 'nofp_fault_inner' in e['user_stack'])")" "${minflt:-none}"
check_eq "--dwarf JSON: the same shape, at least the 300 faults on [anon] in memset under nofp_fault_inner, at most its minflt" \
	"$(json_get "$T/j13" "300 <= sum(e['count'] for e in d['faults'] if e['user_stack'][-2:-1] == ['nofp_fault_inner'] and 'memset' in e['user_stack'][-1] and e['mapping'] == '[anon]') <= $minflt")" True
check_eq "--dwarf JSON: the totals count them" "$(json_get "$T/j13" "d['totals']['faults'] >= 300")" True
check_eq "--dwarf JSON: no loss" "$(json_get "$T/j13" "sum(d['losses'].values())")" 0
start_wl_held nofp_faulter 300
run_held "$T/f13s" "$T/e13s" "$PF" --dwarf --stack-copy-size 64 -p "$WL_PID" -f -d 20
check_grep "--dwarf with a 64-byte copy: stacks end in a marked frame" \
	'^nofp_faulter;\[truncated: stack copy too short\];' "$T/f13s"
check_range "--dwarf with a 64-byte copy: every fault still counted" \
	"$(folded_sum 'truncated.*memset' "$T/f13s")" 300 310
check_grep "--dwarf with a 64-byte copy: the count is reported" 'could not be unwound to the end' "$T/e13s"
# a stack that grows: nofp_grow_inner takes 6 pages of stack never touched
# (alloca) and fills them from the lowest up, so each fault is taken with
# the pages above it, up to its callers' frames, not in memory yet (and
# at the first, the page at sp itself).  The copy leaves those pages out
# and keeps its callers' frames: every fault of the call (the workload's
# minflt) has its whole chain.  (Before, the copy failed whole at the
# first page missing and every stack ended in "[truncated: stack copy too
# short]", even with the largest copy.)
start_wl_held nofp_stackgrow 6
run_held "$T/j13g" "$T/e13g" "$PF" --dwarf --stack-copy-size 32768 -p "$WL_PID" -j -d 20
minflt=$(sed -n 's/^minflt //p' "$WL_OUT")
check_eq "--dwarf, a stack growing: the workload took 3 to 7 faults on its fresh stack pages" \
	"$(python3 -c 'import sys; print(3 <= int(sys.argv[1] or 0) <= 7)' "$minflt")" True
check_eq "--dwarf, a stack growing: every fault (its minflt) on [stack]" \
	"$(json_get "$T/j13g" "sum(e['count'] for e in d['faults'] if e['mapping'] == '[stack]')")" "${minflt:-none}"
whole=$(json_get "$T/j13g" "sum(e['count'] for e in d['faults'] if e['user_stack'][:1] == ['_start'] and e['user_stack'][3:6] == ['main', 'nofp_grow_outer', 'nofp_grow_inner'])")
check_eq "--dwarf, a stack growing: every fault (its minflt) whole from _start to nofp_grow_inner" "$whole" "${minflt:-none}"
# when not, what pfwatch saw, for the log
[ "$whole" = "$minflt" ] || {
	json_get "$T/j13g" "'\\n'.join('%d %s %s' % (e['count'], e['mapping'], ';'.join(e['user_stack'])) for e in d['faults'])"
	cat "$T/e13g"
} | sed 's/^/#   /'
check_nogrep "--dwarf, a stack growing: no stack truncated" 'truncated' "$T/j13g"
check_nogrep "--dwarf, a stack growing: none reported as not unwound" 'could not be unwound' "$T/e13g"
check_rc "--stack-copy-size without --dwarf exits 2" 2 "$PF" --stack-copy-size 4096 -d 1
check_grep "... naming it" 'stack-copy-size' "$T/rc.err"
check_rc "--stack-copy-size out of range exits 2" 2 "$PF" --dwarf --stack-copy-size 100000 -d 1

# paths_ok FILE N PAGES: the entries whose user stack ends in pf_path_leaf
# are N distinct stacks of exactly PAGES faults each
paths_ok() {
	json_get "$1" "(lambda l: (len(l), len(set(tuple(e['user_stack']) for e in l)), sorted(set(e['count'] for e in l))))([e for e in d['faults'] if e['user_stack'] and e['user_stack'][-1] == 'pf_path_leaf'])"
}

# 14. 10,000 distinct call paths, 2 faults each, default options: every
#     path reported with its exact count (a stack map of 16384 buckets
#     lost a quarter of them to hash collisions: "[user stack lost]")
start_wl pf_paths 4 2
pf_run "$T/j14" "$T/e14" -p "$WL_PID" -j -d 60
check_eq "10,000 paths: pfwatch exits 0" "$RUN_RC" 0
check_eq "10,000 paths: each its own stack with its 2 faults" "$(paths_ok "$T/j14")" "(10000, 10000, [2])"
check_eq "10,000 paths: no user stack lost" \
	"$(json_get "$T/j14" "sum(e['count'] for e in d['faults'] if '[user stack lost]' in e['user_stack'])")" 0
check_eq "10,000 paths: the totals count them" "$(json_get "$T/j14" "d['totals']['faults'] >= 20000")" True
check_eq "10,000 paths: stack_ring_full 0" "$(json_get "$T/j14" "d['losses'].get('stack_ring_full')")" 0
check_eq "10,000 paths: no loss at all" "$(json_get "$T/j14" "sum(d['losses'].values())")" 0

# 15. The counts maps are drained while tracing: 300 distinct stacks over
#     3 s with room for 64 entries between two drains, all reported exactly
start_wl pf_paths 3 2 10000 300
pf_run "$T/j15" "$T/e15" -p "$WL_PID" -j -d 60 --max-entries 64
check_eq "--max-entries 64, 300 stacks over 3 s: each with its 2 faults" "$(paths_ok "$T/j15")" "(300, 300, [2])"
check_eq "--max-entries 64: aggregation_map_full 0" "$(json_get "$T/j15" "d['losses']['aggregation_map_full']")" 0
check_eq "--max-entries 64: the totals count them" "$(json_get "$T/j15" "d['totals']['faults'] >= 600")" True
check_nogrep "--max-entries 64: no map said full" 'map full' "$T/e15"

# 16. One entry per printed identity (issue 27: on redis, "29910 faults
#     from 4850 stacks", entries that read the same): twosite touches 150
#     pages from each of two call sites in ts_caller(), two stacks that
#     differ only in a return address and print the same.  Every output
#     has one entry of 300 faults.
start_wl_held twosite pf 150
run_held "$T/p16" "$T/e16" "$PF" -p "$WL_PID" -d 20
check_eq "two call sites, plain: one entry under ts_touch" \
	"$(grep -c '^    ts_touch$' "$T/p16")" 1
check_grep "two call sites, plain: with the 300 faults" '^        300 faults \(0 major, 300 minor\) in user mode$' "$T/p16"
check_grep "two call sites, plain: the headline counts printed entries, and says the stacks seen" \
	'^Page faults: 300 faults \(0 major, 300 minor\) from 1 stack as printed \(2 stacks seen, merged where they print the same\):$' "$T/p16"
start_wl_held twosite pf 150
run_held "$T/j16" "$T/e16j" "$PF" -p "$WL_PID" -d 20 -j
check_eq "two call sites, JSON: one entry of 300 under ts_touch" \
	"$(json_get "$T/j16" "[e['count'] for e in d['faults'] if e['user_stack'][-1:] == ['ts_touch']]")" "[300]"
check_eq "two call sites, JSON: totals say 1 entry of 2 stacks seen" \
	"$(json_get "$T/j16" "(d['totals']['stacks'], d['totals']['stacks_seen'])")" "(1, 2)"
check_eq "two call sites, JSON: no two entries print the same" \
	"$(json_get "$T/j16" "len(d['faults']) == len(set((e['tid'], e['mode'], tuple(e['user_stack']), tuple(e['kernel_stack'])) for e in d['faults']))")" True
start_wl_held twosite pf 150
run_held "$T/f16" "$T/e16f" "$PF" -p "$WL_PID" -d 20 -f
check_eq "two call sites, folded: one line, of 300" "$(grep ';ts_touch ' "$T/f16")" \
	"twosite;__libc_start_call_main;main;ts_caller;ts_touch 300"
if command -v go >/dev/null; then
	start_wl_held twosite pf 150
	run_held "$T/o16" "$T/e16p" "$PF" -p "$WL_PID" -d 20 --pprof "$T/p16.pb.gz"
	HOME=$T GOCACHE=$T/gocache go tool pprof -symbolize=none -raw "$T/p16.pb.gz" >"$T/p16.raw" 2>&1
	check_eq "two call sites, pprof: one sample of 300" \
		"$(awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && /^ +[0-9]+: [0-9 ]+$/ { print $1 }' "$T/p16.raw" | tr -d ':' | sort | tr '\n' ' ')" "300 "
fi

# 17. Stripped binaries (issue 27: "[redis-check-rdb]", no offset): a
#     stripped copy of twosite prints its frames as FILE+0xADDR, ADDR an
#     address of the ELF file that `addr2line -e` on the unstripped file
#     names; JSON has the address, the file address and the build id.
cp "$WL/twosite" "$T/ts_stripped" && strip "$T/ts_stripped"
start_cmd env WL_GO="$T/go17" "$T/ts_stripped" pf 150
WL_GOFILE=$T/go17
run_held "$T/j17" "$T/e17" "$PF" -p "$WL_PID" -d 20 -j
check_eq "stripped: its frames read ts_stripped+0xADDR" \
	"$(json_get "$T/j17" "sorted(set(f.startswith('ts_stripped+0x') and len(f) > 14 and all(c in '0123456789abcdef' for c in f[14:]) for e in d['faults'] for f in e['user_stack'] if 'ts_stripped' in f))")" "[True]"
leaf=$(json_get "$T/j17" "[e['user_stack'][-1] for e in d['faults'] if e['count'] == 150][0]")
caller=$(json_get "$T/j17" "sorted(set(e['user_stack'][-2] for e in d['faults'] if e['count'] == 150))")
check_eq "stripped: addr2line -i on the unstripped file names the leaf ts_touch" \
	"$(addr2line -f -i -e "$WL/twosite" "${leaf#ts_stripped+}" | grep -c '^ts_touch$')" 1
check_eq "stripped: and the two call sites in ts_caller, two entries of 150" \
	"$(for a in $(json_get "$T/j17" "' '.join(sorted(set(e['user_stack'][-2].split('+')[1] for e in d['faults'] if e['count'] == 150)))"); do addr2line -f -e "$WL/twosite" "$a" | head -1; done | sort | uniq -c | tr -s ' ')" " 2 ts_caller"
check_eq "stripped JSON: each frame's address, file address (as named) and build id" \
	"$(json_get "$T/j17" "sorted(set((a['module'] == '$T/ts_stripped', f == 'ts_stripped+' + a['file_addr'], a['build_id'], a['addr'].startswith('0x')) for e in d['faults'] for f, a in zip(e['user_stack'], e['user_addrs']) if 'ts_stripped' in f))")" \
	"[(True, True, '$(readelf -n "$T/ts_stripped" | sed -n 's/.*Build ID: //p')', True)]"
check_grep "stripped: the frames named by module only are counted on stderr" 'named by module only' "$T/e17"

# 18. Stacks cut short without frame pointers: nofp_faulter's faults in
#     memset have one or two user frames: said once, with --dwarf; not
#     said with --dwarf, nor for a binary with frame pointers
start_wl_held nofp_faulter 100
run_held "$T/f18" "$T/e18" "$PF" -p "$WL_PID" -f -d 20
check_eq "short stacks: said once, with --dwarf" \
	"$(grep -c "user stacks of process $WL_PID stop after one or two frames: its code seems to lack frame pointers; --dwarf unwinds whole stacks" "$T/e18")" 1
start_wl_held nofp_faulter 100
run_held "$T/f18d" "$T/e18d" "$PF" --dwarf -p "$WL_PID" -f -d 20
check_nogrep "short stacks: not said with --dwarf" 'lack frame pointers' "$T/e18d"
check_nogrep "short stacks: not said for twosite (frame pointers)" 'lack frame pointers' "$T/e16"

# 19. The ready line says what the perf events are (issue 27: "(10
#     per-thread events)" for a 5-thread process)
check_grep "ready line: perf events on 1 thread, two each: major and minor faults" \
	"tracing page faults of pid [0-9]+ for 20 s \(counted by perf events on 1 thread, two each: major and minor faults\)" "$T/e16"

# --diff BEFORE.folded: 500 fresh pages, then 1500: the stack of
# pf_touch_fresh_pages grew by what the two runs counted for it, each
# value as the run has it (the file's, this run's JSON)
start_wl pf_toucher 500 60000
pf_run "$T/pd0.folded" "$T/pd0.err" -p "$WL_PID" -f -d 20
start_wl pf_toucher 1500 60000
pf_run "$T/pd1" "$T/pd1.err" -p "$WL_PID" -j -d 20 --diff "$T/pd0.folded"
check "--diff: JSON parses" json_ok "$T/pd1"
before=$(folded_sum ';pf_touch_fresh_pages( |$)' "$T/pd0.folded")
check_eq "--diff: pf_touch_fresh_pages' stack grew from the file's faults to this run's" \
	"$(json_get "$T/pd1" "[(r['before'], r['after'], r['change']) for r in d['diff']['grew'] if r['stack'].endswith(';pf_touch_fresh_pages')]")" \
	"[($before, $(json_func "$T/pd1" faults pf_touch_fresh_pages), $(( $(json_func "$T/pd1" faults pf_touch_fresh_pages) - before )))]"
check_eq "--diff: the file's total" "$(json_get "$T/pd1" "d['diff']['before_total']")" "$(folded_sum . "$T/pd0.folded")"
start_wl pf_toucher 1500 60000
pf_run "$T/pd2" "$T/pd2.err" -p "$WL_PID" -d 20 --diff "$T/pd0.folded"
check_grep "--diff: the plain report lists the stack that grew" '^ +\+[0-9]+ +[0-9]+ +[0-9]+  [^ ]*;pf_touch_fresh_pages$' "$T/pd2"
check_rc "--diff: a missing file exits 2" 2 "$PF" -d 1 --diff "$T/none.folded"
check_rc "--diff and -f exclude each other" 2 "$PF" -d 1 -f --diff "$T/pd0.folded"
