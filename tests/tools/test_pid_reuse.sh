# A pid given again, within one run: a process exits and another program
# gets its pid; both are traced, and each one's stacks are named with its
# own functions, never with the mappings of the other (docs/RELIABILITY.md,
# "Identities").  Both programs are started by this shell, so the kernel's
# exec count of the two is the same: only the start time tells them apart.
N=5		# blocks of the first process in offcpu_block_here()
M=6		# naps of the second in wakers_nap_here()

# give_pid PID OUT CMD...: starts CMD in the background (output to OUT)
# as process PID, a number just freed: PID - 1 is written to
# /proc/sys/kernel/ns_last_pid under its flock (as tests/workloads/id_reuse
# does), and the fork that follows takes PID; a child that got another pid,
# because another fork was quicker, is killed and the next try made
give_pid() {
	local want=$1 out=$2 got fd i; shift 2
	for i in $(seq 1 200); do
		exec {fd}<>/proc/sys/kernel/ns_last_pid
		flock "$fd"
		echo $((want - 1)) >&"$fd"
		"$@" >"$out" 2>&1 {fd}>&- &
		got=$!
		exec {fd}>&-
		if [ "$got" = "$want" ]; then
			WL_PIDS+=("$got")
			return 0
		fi
		kill -9 "$got" 2>/dev/null; wait "$got" 2>/dev/null
		sleep 0.01
	done
	return 1
}

# the sum of the counts of the stacks of pid $a and thread name $2 whose
# user frames hold $1, or were lost (a stack the kernel could not keep is
# shown so, never named wrong; lost ones are counted in "losses")
sum_of() {
	json_get "$T/oc.out" "sum(s['count'] for s in d['stacks'] if s['pid'] == $a and \
		s['comm'] == '$2' and ('$1' in s['user_stack'] or \
		s['user_stack'] == ['[user stack lost]']))" 2>/dev/null
}

# offcputime, every user thread (-p A would not trace B: a target is a
# process, not a number): A blocks N times and exits, B gets pid A and
# naps M times
rm -f "$T/go1" "$T/go2"
WL_GO=$T/go1 start_wl offcpu_blocker $N 40 0
a=$WL_PID ap=${WL_PIDS[-1]}
"$BIN/offcputime" -u -j --state S --stack-storage-size 131072 >"$T/oc.out" 2>"$T/oc.err" &
tp=$!
started=1
if ! ready "$T/oc.err" "$tp"; then
	fail "offcputime did not start"; sed 's/^/#   /' "$T/oc.err" | head -5
	started=
fi
[ -n "$started" ] && touch "$T/go1" && wait "$ap"
if [ -n "$started" ] && ! give_pid "$a" "$T/b.out" "$WL/wakers_target" timer $M "$T/go2"; then
	fail "pid $a could not be given to a new process"
	kill -INT "$tp"; wait "$tp"
elif [ -n "$started" ]; then
	wait_line "$T/b.out" '^[0-9]+$'
	touch "$T/go2"
	wait_wl
	kill -INT "$tp"
	wait "$tp"
	check_eq "offcputime exits 0" "$?" 0
	check "one JSON document" json_ok "$T/oc.out"
	check_eq "the first process: its $N blocks in offcpu_block_here" \
		"$(sum_of offcpu_block_here ocpu_blocker)" $N
	check_eq "the second, with the same pid: its $M naps in wakers_nap_here" \
		"$(sum_of wakers_nap_here wk_target)" $M
	check_eq "no stack of the second named with the first one's functions" \
		"$(json_get "$T/oc.out" "len([s for s in d['stacks'] if s['pid'] == $a and \
			s['comm'].startswith('wk_') and any(f.startswith('offcpu_') for f in s['user_stack'])])")" 0
	check_eq "no stack of the first named with the second one's functions" \
		"$(json_get "$T/oc.out" "len([s for s in d['stacks'] if s['pid'] == $a and \
			s['comm'].startswith('ocpu_') and any(f.startswith('wakers_') for f in s['user_stack'])])")" 0
fi
