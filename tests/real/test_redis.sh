# Debian's redis-server (stripped, five threads) under redis-benchmark (50
# clients, GET and SET), each tool against the ground truth of the same
# window: the threads' voluntary and involuntary switches from
# /proc/PID/task/*/status, libbpf-tools' syscount per syscall, perf stat's
# page-faults.  The window is exact: redis is stopped (SIGSTOP, every
# thread in state T) while the tools attach and when the load is over, so
# nothing of it happens outside what every tool and the ground truth see.
source "$ROOT/tests/real/real.sh"

redis_main() {
	need_cmds "redis-server, redis-tools" redis-server redis-benchmark || return 0

	PORT=$(free_port)
	mkdir -p "$T/redis"
	redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no \
		--daemonize no --dir "$T/redis" --logfile "$T/redis/log" &
	RP=$!
	WL_PIDS+=("$RP")
	for i in $(seq 1 500); do
		redis-cli -p "$PORT" ping 2>/dev/null | grep -q PONG && break
		sleep 0.02
	done
	check_eq "redis-server answers on port $PORT" "$(redis-cli -p "$PORT" ping 2>&1)" PONG
	NTHREADS=$(ls /proc/"$RP"/task | wc -l)
	check_ge "redis-server runs its threads" "$NTHREADS" 4

	# 1. offcputime, syswatch, pfwatch, with syscount and perf stat, over
	#    one window of redis-benchmark -c 50 -t get,set
	hold "$RP"
	S0=$(switches "$RP")
	start_bg oc 'tracing' "$BIN/offcputime" -p "$RP" -m 0 -j; OC=$BG_PID
	start_bg sw 'tracing' "$BIN/syswatch" -p "$RP" -j; SW=$BG_PID
	start_bg pf 'tracing' "$BIN/pfwatch" -p "$RP" -j; PF=$BG_PID
	SC=
	if need_cmds libbpf-tools /usr/sbin/syscount && tracefs_mounted; then
		start_bg sc 'Tracing syscalls' stdbuf -oL /usr/sbin/syscount -p "$RP" -T 1000; SC=$BG_PID
	fi
	PS=
	if need_cmds linux-perf perf; then
		perf stat -e page-faults -x, -o "$T/ps.out" -p "$RP" >/dev/null 2>&1 &
		PS=$!
		perf_events_open "$PS" "$NTHREADS" || fail "perf stat attached to the $NTHREADS threads"
	fi
	release "$RP"
	redis-benchmark -p "$PORT" -c 50 -t get,set -n 5000 -q >"$T/bench1.out" 2>&1
	check_eq "redis-benchmark ran" "$?" 0
	hold "$RP"
	S1=$(switches "$RP")
	stop_bg "$OC"; check_eq "offcputime: exit 0" "$BG_RC" 0
	stop_bg "$SW"; check_eq "syswatch: exit 0" "$BG_RC" 0
	stop_bg "$PF"; check_eq "pfwatch: exit 0" "$BG_RC" 0
	[ -n "$SC" ] && stop_bg "$SC"
	[ -n "$PS" ] && stop_bg "$PS"
	release "$RP"

	check_ge "the load made switches" "$((S1 - S0))" 100
	read -r OI OL < <(json_get "$T/oc.out" "'%d %d' % (sum(s['count'] for s in d['stacks']), sum(d['losses'][k] for k in ('aggregation_map_full', 'inflight_map_full', 'ringbuf_full', 'map_update_failed', 'no_kernel_memory', 'interval_end_unseen')))")
	# every thread was stopped, off-CPU, when the window began: its first
	# interval began before the window (no switch of it in /proc's delta)
	# and is counted from the window's start
	check_eq "offcputime: its intervals are the threads' switches (voluntary + involuntary, /proc) and one per thread off-CPU at the start" \
		"${OI:-}" "$((S1 - S0 + NTHREADS))"
	check_eq "offcputime: no interval lost" "${OL:-}" 0

	if [ -n "$SC" ]; then
		# syscount's table: "NAME COUNT" lines under the header
		awk 'f && NF == 2 && $2 ~ /^[0-9]+$/ { print $1, $2 } /^SYSCALL +COUNT/ { f = 1 }' "$T/sc.out" |
			sort >"$T/sc.counts"
		json_get "$T/sw.out" "'\n'.join('%s %d' % (s['name'], s['count']) for s in d['syscalls'])" |
			sort >"$T/sw.counts"
		check_ge "syscount saw the load's calls" "$(awk '{ s += $2 } END { print s + 0 }' "$T/sc.counts")" 10000
		if diff "$T/sc.counts" "$T/sw.counts" >"$T/sc.diff"; then
			pass "syswatch: every syscall counted as syscount counts it ($(wc -l <"$T/sw.counts") syscalls)"
		else
			fail "syswatch: every syscall counted as syscount counts it (< syscount, > syswatch)"
			sed 's/^/#   /' "$T/sc.diff" | head -10
		fi
	fi
	if [ -n "$PS" ]; then
		PSF=$(awk -F, '$3 == "page-faults" { print $1 }' "$T/ps.out")
		check_eq "pfwatch: its faults are perf stat's page-faults" \
			"$(json_get "$T/pf.out" "d['totals']['faults']")" "$PSF"
	fi

	# 2. hotcheck on the same redis, under a lighter load (each event of a
	#    hot thread is a record): blocks and preemptions against /proc.  Its
	#    blocks are the voluntary intervals that ended in the window: every
	#    thread's last one (into the stop) has not
	hold "$RP"
	for t in /proc/"$RP"/task/*; do echo "$(basename "$t") $(switches_of_task "$t")"; done >"$T/t0"
	V0=$(switches "$RP" voluntary); N0=$(switches "$RP" nonvoluntary)
	start_bg hc 'tracing' "$BIN/hotcheck" -p "$RP" -j; HC=$BG_PID
	release "$RP"
	redis-benchmark -p "$PORT" -c 50 -t get,set -n 2000 -q >"$T/bench2.out" 2>&1
	check_eq "redis-benchmark ran (2)" "$?" 0
	hold "$RP"
	V1=$(switches "$RP" voluntary); N1=$(switches "$RP" nonvoluntary)
	for t in /proc/"$RP"/task/*; do echo "$(basename "$t") $(switches_of_task "$t")"; done >"$T/t1"
	stop_bg "$HC"
	release "$RP"
	RAN=$(join "$T/t0" "$T/t1" | awk '$2 != $3' | wc -l)
	check_eq "hotcheck: exit 1 (not silent)" "$BG_RC" 1
	# one reading of its (large) document: blocks, preemptions, dropped
	read -r HB HP HD < <(json_get "$T/hc.out" "' '.join(str(x) for x in ([c['count'] for c in d['checks'] if c['check'] == 'blocks'] + [c['count'] for c in d['checks'] if c['check'] == 'preemptions'] + [d['events_dropped'] + sum(v for k, v in d['losses'].items() if 'stack' not in k)]))")
	check_eq "hotcheck: its blocks are the voluntary switches (/proc), less each thread's last" \
		"${HB:-}" "$((V1 - V0 - RAN))"
	check_eq "hotcheck: its preemptions are the involuntary switches (/proc)" "${HP:-}" "$((N1 - N0))"
	# (a stack the kernel could not read, on a busy machine, is a stack
	# lost, counted, not an event)
	check_eq "hotcheck: no event dropped" "${HD:-}" 0

	kill "$RP"
	wait "$RP" 2>/dev/null
}
# switches_of_task /proc/PID/task/TID: its voluntary + involuntary switches
switches_of_task() {
	awk '/^(non)?voluntary_ctxt_switches:/ { s += $2 } END { print s + 0 }' "$1/status"
}
redis_main
