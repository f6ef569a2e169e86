# One stop is one stop however often it is delivered (issue 27, point 5;
# docs/CLI.md): GNU timeout signals its child and then the child's process
# group, a supervisor may send SIGTERM to every process of a service, a
# terminal's Ctrl-C reaches the whole foreground group.  Every tool must
# then print its whole report, as after one signal.  A deliberate second
# request (well after the first, while the report is still being written)
# still quits at once: test_reliability.sh section 3.
TOOLS="offcputime syswatch wakers pfwatch schedsilence hitmtop hotcheck"
CPU=1		# schedsilence's CPU

# the exit status of a run that found something: schedsilence is never
# silent here, and hotcheck sees the workload's main thread block
ok_rc() { case $1 in schedsilence|hotcheck) echo 1 ;; *) echo 0 ;; esac; }

# report_ok TOOL FILE: FILE holds the tool's whole -j report (one JSON
# document with the key every report of TOOL has)
report_ok() {
	local key
	case $1 in
	offcputime) key=stacks ;;
	syswatch) key=syscalls ;;
	wakers) key=totals ;;
	pfwatch) key=totals ;;
	schedsilence) key=verdicts ;;
	hitmtop) key=samples ;;
	hotcheck) key=checks ;;
	esac
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if sys.argv[2] in d else 1)' "$2" "$key" 2>/dev/null
}

# the workload every run traces (a steady stream of blocks, syscalls,
# wakeups); the system-wide tools see the machine
start_wl offcpu_blocker 5 100000 0
OB=$WL_PID

# args TOOL: the tool's target
args() {
	case $1 in
	offcputime|syswatch|wakers|pfwatch) echo "-p $OB -j" ;;
	hotcheck) echo "-t $OB -j" ;;
	*) echo "-j" ;;
	esac
}

# ---- 1. The same signal twice, 20 ms apart: the second is the same stop.
#         (Before the fix, offcputime exited 130 with no report: its
#         report was still being named when the second signal came.)
for tool in $TOOLS; do
	sigs=INT
	case $tool in offcputime|pfwatch) sigs="INT TERM" ;; esac
	for sig in $sigs; do
		tool_cmd "$tool"
		# shellcheck disable=SC2046
		run_released "$T/s.out" "$T/s.err" 'tracing|watching|sampling' \
			'kill -'$sig' "$TOOL_PID"; sleep 0.02; kill -'$sig' "$TOOL_PID"' \
			"${CMD[@]}" $(args "$tool")
		check_eq "$tool: SIG$sig twice in 20 ms is one stop (exit status)" "$RUN_RC" "$(ok_rc "$tool")"
		if report_ok "$tool" "$T/s.out"; then pass "$tool: ... and the whole report is printed (SIG$sig)"
		else fail "$tool: ... and the whole report is printed (SIG$sig)"; head -3 "$T/s.err" | sed 's/^/#   /'; fi
	done
done

# ---- 2. GNU timeout, as a user runs it: signalled itself (a supervisor
#         stopping it), and expiring with -s INT.  timeout runs in a
#         session of its own so that its signal to its process group does
#         not reach this test.
for tool in offcputime hotcheck; do
	tool_cmd "$tool"
	# shellcheck disable=SC2046
	: >"$T/t.err"
	setsid timeout 120 "${CMD[@]}" $(args "$tool") >"$T/t.out" 2>"$T/t.err" &
	tp=$!
	ready "$T/t.err" "$tp"
	kill -TERM "$tp"
	wait "$tp"; rc=$?
	# timeout exits 124 when it sent the signal itself on expiry, else
	# with the child's status
	check_eq "$tool: timeout signalled (SIGTERM to it, then to the tool and its group): exit status" "$rc" "$(ok_rc "$tool")"
	check "$tool: ... and the whole report is printed" report_ok "$tool" "$T/t.out"

	# shellcheck disable=SC2046
	setsid timeout -s INT 3 "${CMD[@]}" $(args "$tool") >"$T/t.out" 2>"$T/t.err"
	rc=$?
	check_eq "$tool: timeout -s INT 3 expiring: timeout's status (124: it signalled the tool)" "$rc" 124
	check "$tool: ... and the whole report is printed" report_ok "$tool" "$T/t.out"
done

kill "$OB" 2>/dev/null
wait_wl
