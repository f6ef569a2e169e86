# Targets are identities, not numbers; exec keeps the old names for the
# old stacks; one read of the maps of a process however many of its
# threads are named (docs/RELIABILITY.md, "Identities").
N=5		# blocks, syscalls, page faults, timer wakeups of the old thread
M=7		# the same, of the process that gets its number afterwards

# ready ERR PID (tests/lib.sh): the tool says it traces

# ---- 1. A reused TID (and PID) is not traced

# reuse_run NAME TOOL ARGS...: the tool runs with -p A -t T ($REUSE_OPTS
# chooses: "pt" for both, "p" for -p A alone, "allow" for schedsilence's
# -C $CPU --allow-tid T, everything pinned to $CPU); the thread T does its
# N things and exits; a new process is given the number (T, or A for "p")
# and does its M things; then the tool is stopped.  Output in $T/NAME.out.
CPU=1
reuse_run() {
	local name=$1 tool=$2 a tt id tp np pin=(); shift 2
	rm -f "$T/go1" "$T/go2"
	WL_GO=$T/go1 start_wl id_reuse old $N 30 ${REUSE_HOLD:-20000}
	read -r a tt <<<"$WL_PID"
	REUSE_A=$a REUSE_T=$tt id=$tt
	case ${REUSE_OPTS:-pt} in
	pt) "$BIN/$tool" -p "$a" -t "$tt" -j "$@" >"$T/$name.out" 2>"$T/$name.err" & ;;
	p) "$BIN/$tool" -p "$a" -j "$@" >"$T/$name.out" 2>"$T/$name.err" &
	   id=$a ;;
	allow) taskset -a -c -p $CPU "$a" >/dev/null
	   pin=(taskset -c $CPU)
	   "$BIN/$tool" -C $CPU --allow-tid "$tt" -j "$@" >"$T/$name.out" 2>"$T/$name.err" & ;;
	esac
	tp=$!
	if ! ready "$T/$name.err" "$tp"; then
		fail "$name: the tool did not start"; sed 's/^/#   /' "$T/$name.err" | head -5
		return 1
	fi
	touch "$T/go1"
	wait_line "$WL_OUT" '^gone'
	if [ "$id" = "$a" ]; then
		kill "${WL_PIDS[-1]}"; wait "${WL_PIDS[-1]}" 2>/dev/null
	fi
	WL_GO=$T/go2 "${pin[@]}" "$WL/id_reuse" new "$id" $M 30 >"$T/$name.new" 2>&1 &
	np=$!
	if ! wait_line "$T/$name.new" "^$id\$"; then
		fail "$name: pid $id could not be given to a new process"
		kill "$np" "$tp" 2>/dev/null; wait "$np" "$tp" 2>/dev/null
		return 1
	fi
	touch "$T/go2"
	wait "$np"
	kill -INT "$tp" 2>/dev/null
	wait "$tp"
	REUSE_RC=$?
	return 0
}

# the folded-free JSON checks: python over the document d
jq_() { json_get "$T/$1.out" "$2" 2>/dev/null; }

# offcputime: N blocks in reuse_old_block, nothing of reuse_new
if reuse_run oc_pt offcputime --state S; then
	check_eq "offcputime -p A -t T: the old thread's $N blocks, exactly" \
		"$(jq_ oc_pt "sum(s['count'] for s in d['stacks'] if 'reuse_old_block' in s['user_stack'])")" $N
	check_eq "offcputime -p A -t T: nothing of the process that got T" \
		"$(jq_ oc_pt "len([s for s in d['stacks'] if s['comm'] == 'reuse_new' or s['pid'] == $REUSE_T])")" 0
fi

# syswatch: N getppid calls, not N + M
if reuse_run sw_pt syswatch; then
	check_eq "syswatch -p A -t T: the old thread's $N getppid calls, exactly" \
		"$(jq_ sw_pt "sum(s['count'] for s in d['syscalls'] if s['name'] == 'getppid')")" $N
fi
if reuse_run sw_ptt syswatch --per-thread; then
	check_eq "syswatch --per-thread -p A -t T: no row of the process that got T" \
		"$(jq_ sw_ptt "len([r for r in d['per_thread'] if r['comm'] == 'reuse_new' or r['pid'] == $REUSE_T])")" 0
fi

# wakers: the old thread is woken once by its pipe (written by its main
# thread, reuse_main) and N times by its timer (hrtimer_wakeup): those are
# the wakeups the workload makes, counted apart and exactly; anything else
# that woke it (a lock, a page read from disk, under load) is not the
# workload's, and is listed if a count is off.  The new process is never
# a target.
if reuse_run wk_pt wakers; then
	check_eq "wakers -p A -t T: the old thread's $N timer wakeups, exactly" \
		"$(jq_ wk_pt "sum(w['count'] for w in d['wakeups'] if w['target']['comm'] == 'reuse_old' and 'hrtimer_wakeup' in (w['kernel_stack'] or []))")" $N
	check_eq "wakers -p A -t T: the old thread's 1 pipe wakeup, by its main thread" \
		"$(jq_ wk_pt "sum(w['count'] for w in d['wakeups'] if w['target']['comm'] == 'reuse_old' and w['waker']['context'] == 'task' and w['waker']['tid'] == $REUSE_A)")" 1
	if [ "$(jq_ wk_pt "sum(w['count'] for w in d['wakeups'] if w['target']['comm'] == 'reuse_old')")" != $((N + 1)) ]; then
		echo "# wakers -p A -t T: the old thread's wakeups (count, waker, kernel stack's end):" \
			"$(jq_ wk_pt "[(w['count'], w['waker']['comm'], (w['kernel_stack'] or ['?'])[-3:]) for w in d['wakeups'] if w['target']['comm'] == 'reuse_old']")," \
			"losses: $(jq_ wk_pt "{k: v for k, v in d['losses'].items() if v}")"
	fi
	check_eq "wakers -p A -t T: no wakeup of the process that got T" \
		"$(jq_ wk_pt "len([w for w in d['wakeups'] if w['target']['comm'] == 'reuse_new' or w['target']['pid'] == $REUSE_T])")" 0
fi

# pfwatch: N faults in reuse_old_touch, none in reuse_new_touch
if reuse_run pf_pt pfwatch; then
	check_eq "pfwatch -p A -t T: the old thread's $N faults, exactly" \
		"$(jq_ pf_pt "sum(f['count'] for f in d['faults'] if 'reuse_old_touch' in f['user_stack'])")" $N
	check_eq "pfwatch -p A -t T: no fault of the process that got T" \
		"$(jq_ pf_pt "len([f for f in d['faults'] if f['comm'] == 'reuse_new' or 'reuse_new_touch' in f['user_stack']])")" 0
fi

# schedsilence --allow-tid T: T and the process that gets its number both
# run on the watched CPU; only T is allowed
if REUSE_OPTS=allow reuse_run ss schedsilence -d 30; then
	check_eq "schedsilence --allow-tid T: the allowed thread is no intruder" \
		"$(jq_ ss "len([r for r in d['intruders'] if r.get('name') == 'reuse_old'])")" 0
	check_eq "schedsilence --allow-tid T: the process that got T is one" \
		"$(jq_ ss "len([r for r in d['intruders'] if r.get('name') == 'reuse_new' and r.get('pid') == $REUSE_T])")" 1
fi
wait_wl

# -p A alone, A exits and a new process becomes A: the tool says every
# traced process is gone (it does not trace the new one)
REUSE_OPTS=p REUSE_HOLD=0
if reuse_run oc_p offcputime --state S; then
	check_eq "offcputime -p A, A reused: nothing of the new process" \
		"$(jq_ oc_p "len([s for s in d['stacks'] if s['comm'] == 'reuse_new'])")" 0
	check_eq "offcputime -p A, A reused: the old thread's $N blocks" \
		"$(jq_ oc_p "sum(s['count'] for s in d['stacks'] if 'reuse_old_block' in s['user_stack'])")" $N
	check_grep "offcputime -p A, A reused: every traced process has exited" \
		'every traced process has exited' "$T/oc_p.err"
fi
if reuse_run sw_p syswatch; then
	check_eq "syswatch -p A, A reused: the old thread's $N getppid calls, exactly" \
		"$(jq_ sw_p "sum(s['count'] for s in d['syscalls'] if s['name'] == 'getppid')")" $N
fi
unset REUSE_OPTS REUSE_HOLD

# -p A, A's first thread has ended alone (pthread_exit() in main) and its
# other thread lives on: A is a zombie in /proc while the process runs
# (the other thread never sleeps but in its N blocks: --state S counts
# them alone).
# The tool takes the process (the original code said "no process" and
# exited 2; a first thread that ended while traced stopped the tool as if
# the process had exited), counts the other thread's N blocks, and stops
# by itself once that thread, the last, has exited.
start_wl_held leader_exit $N
if wait_line "$WL_OUT" '^leader gone'; then
	run_released "$T/lx.out" "$T/lx.err" tracing 'touch "$WL_GOFILE"' \
		"$BIN/offcputime" -p "$WL_PID" --state S -j
	check_eq "offcputime -p A, A's first thread gone, the process alive: exit 0" "$RUN_RC" 0
	check_eq "offcputime -p A, A's first thread gone: the other thread's $N blocks, exactly" \
		"$(jq_ lx "sum(s['count'] for s in d['stacks'] if s['comm'] == 'lx_worker')")" $N
	# its frames named: /proc/A/maps of a zombie first thread is empty, the
	# symbolizer reads the memory through a live thread (task/TID); the
	# original code printed them [unknown]
	check_eq "offcputime -p A, A's first thread gone: the $N blocks in leader_exit_block, named" \
		"$(jq_ lx "sum(s['count'] for s in d['stacks'] if any('leader_exit_block' in f for f in s['user_stack']))")" $N
	check_grep "offcputime -p A, A's first thread gone: stopped by itself once the process exited" \
		'every traced process has exited' "$T/lx.err"
else
	fail "leader_exit: its first thread did not end"
fi
kill "${WL_PIDS[@]}" 2>/dev/null; wait_wl
# -t A names the first thread alone: ended, it is no thread to trace
start_wl_held leader_exit $N
if wait_line "$WL_OUT" '^leader gone'; then
	"$BIN/offcputime" -t "$WL_PID" --state S -j >"$T/lx_t.out" 2>"$T/lx_t.err"
	check_eq "offcputime -t A, A's first thread gone: refused (exit 2)" "$?" 2
	check_grep "offcputime -t A, A's first thread gone: no thread A" "no thread $WL_PID" "$T/lx_t.err"
fi
kill "${WL_PIDS[@]}" 2>/dev/null; wait_wl

# ---- 2. A process that blocks and faults, then executes itself again:
#         each part is named with its own functions, comm and mapping

# exec_run NAME TOOL ARGS...: the tool traces id_exec N1 N2 ($EXEC_FIFO: it
# also writes to that FIFO) from before its first part, with -p of it (or
# of $EXEC_TARGET), and is stopped once it is over; JSON in $T/NAME.out
N1=2 N2=3
exec_run() {
	local name=$1 tool=$2 tp; shift 2
	rm -f "$T/go1"; mkdir -p "$T/exec"
	WL_GO=$T/go1 start_wl id_exec $N1 $N2 "$T/exec" ${EXEC_FIFO:+"$EXEC_FIFO"}
	"$BIN/$tool" -p "${EXEC_TARGET:-$WL_PID}" ${EXEC_FMT--j} -d 20 "$@" \
		>"$T/$name.out" 2>"$T/$name.err" &
	tp=$!
	if ! ready "$T/$name.err" "$tp"; then
		fail "$name: the tool did not start"; sed 's/^/#   /' "$T/$name.err" | head -5
		return 1
	fi
	touch "$T/go1"
	wait "${WL_PIDS[-1]}"
	kill -INT "$tp" 2>/dev/null
	wait "$tp"
	wait_wl
}
# stack_count NAME LIST FUNC COMM: the counts of the entries of list LIST
# whose user stack holds FUNC, and whose comm is COMM
stack_count() {
	jq_ "$1" "sum(s['count'] for s in d['$2'] if '$3' in s['user_stack'] and s['comm'] == '$4')"
}

if exec_run oc_exec offcputime --state S; then
	check_eq "offcputime, exec: $N1 blocks in before_exec_sleep, as execer" \
		"$(stack_count oc_exec stacks before_exec_sleep execer)" $N1
	check_eq "offcputime, exec: $N2 blocks in after_exec_sleep, as execed" \
		"$(stack_count oc_exec stacks after_exec_sleep execed)" $N2
	check_eq "offcputime, exec: the pause before it named too" \
		"$(stack_count oc_exec stacks before_exec_pause execer)" 1
fi
if exec_run pf_exec pfwatch; then
	check_eq "pfwatch, exec: $N1 faults in before_exec_touch, as execer" \
		"$(stack_count pf_exec faults before_exec_touch execer)" $N1
	check_eq "pfwatch, exec: $N2 faults in after_exec_touch, as execed" \
		"$(stack_count pf_exec faults after_exec_touch execed)" $N2
	check_eq "pfwatch, exec: each part in its own mapping" \
		"$(jq_ pf_exec "sorted(set((s['comm'], s['mapping'].split('/')[-1]) for s in d['faults'] if 'exec_touch' in ';'.join(s['user_stack'])))")" \
		"[('execed', 'after.data'), ('execer', 'before.data')]"
fi
if exec_run sw_exec syswatch --slower-than 50000; then
	check_eq "syswatch --slower-than, exec: $N1 slow calls in before_exec_sleep, as execer" \
		"$(jq_ sw_exec "len([s for s in d['slow_calls'] if 'before_exec_sleep' in s['user_stack'] and s['comm'] == 'execer'])")" $N1
	check_eq "syswatch --slower-than, exec: $N2 slow calls in after_exec_sleep, as execed" \
		"$(jq_ sw_exec "len([s for s in d['slow_calls'] if 'after_exec_sleep' in s['user_stack'] and s['comm'] == 'execed'])")" $N2
fi
# wakers: the execing process wakes a reader of a FIFO N1 times before the
# exec and N2 times after it; its stacks are the waker's
rm -f "$T/ff"
if mkfifo "$T/ff"; then
	exec 7<>"$T/ff"		# the reader never sees end of file
	cat "$T/ff" >/dev/null &
	reader=$!
	if EXEC_FIFO=$T/ff EXEC_TARGET=$reader exec_run wk_exec wakers; then
		check_eq "wakers, exec: $N1 wakeups from before_exec_wake, by execer" \
			"$(jq_ wk_exec "sum(w['count'] for w in d['wakeups'] if 'before_exec_wake' in w['user_stack'] and w['waker']['comm'] == 'execer')")" $N1
		check_eq "wakers, exec: $N2 wakeups from after_exec_wake, by execed" \
			"$(jq_ wk_exec "sum(w['count'] for w in d['wakeups'] if 'after_exec_wake' in w['user_stack'] and w['waker']['comm'] == 'execed')")" $N2
	fi
	exec 7>&-
	kill "$reader" 2>/dev/null; wait "$reader" 2>/dev/null
else
	fail "wakers, exec: mkfifo"
fi

# the plain stream names the stacks as the calls come: after the exec too
if EXEC_FMT= exec_run sw_exec_plain syswatch --slower-than 50000; then
	check_eq "syswatch --slower-than stream, exec: $N2 stacks in after_exec_sleep" \
		"$(grep -c '^    after_exec_sleep$' "$T/sw_exec_plain.out")" $N2
	check_eq "syswatch --slower-than stream, exec: $N1 stacks in before_exec_sleep" \
		"$(grep -c '^    before_exec_sleep$' "$T/sw_exec_plain.out")" $N1
fi

# ---- 3. -t with 1000 threads of a 5000-thread process: its maps are read
#         once (as often as with -p), not once per thread

# maps_reads TOOL ARGS...: how many times the run opened /proc/$BIG/maps
maps_reads() {
	# (LeakSanitizer cannot run under ptrace: off for this run only)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=openat -o "$T/strace.out" "$BIN/$@" -d 0.1 >/dev/null 2>"$T/strace.err"
	grep -c "\"/proc/$BIG/maps\"" "$T/strace.out"
}
if command -v strace >/dev/null; then
	start_wl id_threads 5000 120000
	BIG=$WL_PID
	TIDS=$(ls "/proc/$BIG/task" | grep -vx "$BIG" | head -1000 | paste -sd,)
	check_eq "the workload has 5000 threads" "$(ls "/proc/$BIG/task" | wc -l)" 5000
	for tool in offcputime wakers "syswatch --slower-than 1000" pfwatch "wakers --dwarf"; do
		# shellcheck disable=SC2086
		byp=$(maps_reads $tool -p "$BIG")
		# shellcheck disable=SC2086
		byt=$(maps_reads $tool -t "$TIDS")
		# (at most as often as with -p, and at most once where -p read
		# them once: in a 0.1 s window whether a run gets to read them
		# at all is a matter of timing -- wakers --dwarf, busy CPUs: -p
		# once, -t never -- once per thread is what is checked against)
		check "$tool -t (1000 threads of one process): its maps read at most as often as with -p ($byt <= $byp, or at most 1)" \
			[ "${byt:-9}" -le "$(( ${byp:-0} > 1 ? byp : 1 ))" ]
		case $tool in
		# (offcputime twice: the threads asleep at the start are walked
		# then, their stacks named at the end; not once per thread)
		offcputime) check "$tool -t (1000 threads): its maps read at most twice ($byt)" [ "${byt:-9}" -le 2 ] ;;
		wakers|syswatch*) check_eq "$tool -t (1000 threads): its maps read once" "$byt" 1 ;;
		esac
	done
	kill "$BIG"; wait "$BIG" 2>/dev/null
else
	fail "strace is needed to count the reads of /proc/PID/maps"
fi
