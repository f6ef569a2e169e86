# Files a traced process controls cannot hang or bloat the tools
# (docs/RELIABILITY.md, "Hostile files of traced processes"): a debuglink
# naming a FIFO, a perf map that is a symlink to a FIFO or to tracefs's
# trace_pipe, a 4 GiB sparse perf map, the perf map limits, a stop asked
# for while the symbolizer is busy, a slow report (said, and a Ctrl-C
# quits), and runs with only CAP_BPF and CAP_PERFMON (kernel addresses
# hidden: said and counted).
# offcputime, wakers, pfwatch and syswatch --slower-than, -p and
# system-wide; needs GNU time (scripts/deps.sh) for the peak RSS.
TIME=/usr/bin/time
D=$T/dl
mkdir -p "$D"

# timed LIMIT OUT ERR CMD...: runs CMD; sets RC, SECS (wall time) and
# RSS_KB (peak resident size, from GNU time).  A run that hangs (the
# failures these cases look for: a FIFO or trace_pipe read for ever) is
# killed by the guard, TIMED_GUARD s whatever LIMIT says (the time a run
# takes is the machine's load, not the tool's: a report that names the
# frames of every process of a machine with a load of 30 took 40 s)
TIMED_GUARD=180
timed() {
	local lim=$1 out=$2 err=$3; shift 3
	: >"$T/time"
	timeout -s KILL "$TIMED_GUARD" "$TIME" -f '%e %M' -o "$T/time" "$@" >"$out" 2>"$err"
	RC=$?
	read -r SECS RSS_KB <"$T/time" || { SECS=$TIMED_GUARD; RSS_KB=0; }
	SECS=${SECS:-$TIMED_GUARD}
}

# check_run DESC GUARD OUTPAT: the last timed run exited 0 and its output
# has a line matching OUTPAT.  No time is judged (a busy machine makes any
# bound flaky): a run that hangs is killed by timed's guard (exit 137),
# and what bounds the work is checked by what the tool says it cut (the
# perf map's "truncated at" line); GUARD is unused, kept for the reader
check_run() {
	local d=$1 pat=$3
	if [ "$RC" = 0 ] && grep -Eq -- "$pat" "$T/o"; then
		pass "$d (exit 0 in $SECS s)"
	else
		fail "$d (exit $RC after $SECS s, want 0 and /$pat/ in the output)"
		sed 's/^/#   /' "$T/e" | head -4
	fi
}

# stripped NAME: $D/NAME, a stripped copy of workload NAME whose
# .gnu_debuglink names NAME.debug, which is a FIFO in the same directory
stripped() {
	objcopy --only-keep-debug "$WL/$1" "$D/$1.debug"
	objcopy --strip-all --add-gnu-debuglink="$D/$1.debug" "$WL/$1" "$D/$1"
	rm -f "$D/$1.debug"
	mkfifo "$D/$1.debug"
}

# with_perf_map KIND CMD...: make /tmp/perf-PID.map (PID: the command's,
# as exec keeps it) as KIND, then exec CMD: "sparse" a 4 GiB sparse file,
# "huge" a 1 TiB sparse file (read with the byte limit raised to 2 TiB, see
# HUGE_LIMIT: never read whole within the 2 s bound, on any machine),
# "fifo" a symlink to a FIFO, "lines N" N valid lines
cat >"$T/with_perf_map" <<'EOF'
#!/bin/bash
kind=$1; shift
map=/tmp/perf-$$.map
case $kind in
sparse) rm -f "$map"; truncate -s 4G "$map" ;;
huge) rm -f "$map"; truncate -s 1T "$map" || exit 1 ;;
fifo) mkfifo "$TMPD/fifo.$$"; ln -sfn "$TMPD/fifo.$$" "$map" ;;
lines) n=$1; shift; awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "%x 10 jit_%d\n", 0x10000000 + i * 16, i }' >"$map" ;;
esac
exec "$@"
EOF
chmod +x "$T/with_perf_map"
export TMPD=$T
PERF_MAPS=()
perf_map_wl() {	# perf_map_wl KIND [N] WORKLOAD ARGS...: start it, $WL_PID
	start_cmd "$T/with_perf_map" "$@"
	PERF_MAPS+=("/tmp/perf-$WL_PID.map")
}
trap '_cleanup; rm -f "${PERF_MAPS[@]}"' EXIT

# ---- 1. a .gnu_debuglink that names a FIFO

stripped offcpu_blocker
start_cmd "$D/offcpu_blocker" 1000000 50 0
V=$WL_PID
timed 15 "$T/o" "$T/e" "$BIN/offcputime" -p "$V" -d 2 -f
check_run "debuglink FIFO: offcputime -p finishes -d 2 and reports" 7 '^ocpu_blocker;.*;offcpu_blocker\+0x[0-9a-f]+;'
check_grep "debuglink FIFO: offcputime says the debug file is skipped" \
	'debug file .*offcpu_blocker\.debug.* skipped: not a regular file' "$T/e"
timed 15 "$T/o" "$T/e" "$BIN/offcputime" -d 2 -f
check_run "debuglink FIFO: offcputime system-wide finishes -d 2 and reports" 7 '^ocpu_blocker;.*;offcpu_blocker\+0x[0-9a-f]+;'
# --dwarf: libdw looks for the debug file too (for .debug_frame)
timed 15 "$T/o" "$T/e" "$BIN/offcputime" --dwarf -p "$V" -d 2 -f
check_run "debuglink FIFO: offcputime --dwarf -p finishes -d 2 and reports" 7 '^ocpu_blocker;.*;offcpu_blocker\+0x[0-9a-f]+;'

stripped wakers_target
start_cmd "$D/wakers_target" futex 100000000
timed 15 "$T/o" "$T/e" "$BIN/wakers" -p "$WL_PID" -d 2 -f
check_run "debuglink FIFO: wakers -p finishes -d 2 and reports" 7 '(^|;| )wakers_target\+0x[0-9a-f]+'
kill "$WL_PID" 2>/dev/null

stripped pf_toucher
start_cmd "$D/pf_toucher" 200000 500
timed 15 "$T/o" "$T/e" "$BIN/pfwatch" -p "$WL_PID" -d 2 -f
check_run "debuglink FIFO: pfwatch -p finishes -d 2 and reports" 7 '(^|;| )pf_toucher\+0x[0-9a-f]+'
kill "$WL_PID" 2>/dev/null

stripped syswatch_calls
start_cmd "$D/syswatch_calls" 0 0 0 100000 5
timed 15 "$T/o" "$T/e" "$BIN/syswatch" --slower-than 2 -p "$WL_PID" -d 2
check_run "debuglink FIFO: syswatch --slower-than -p finishes -d 2 and prints stacks" 7 '(^|;| )syswatch_calls\+0x[0-9a-f]+'
kill "$WL_PID" 2>/dev/null
start_cmd "$D/syswatch_calls" 0 0 0 100000 5
timed 15 "$T/o" "$T/e" "$BIN/syswatch" --slower-than 2 -d 2
check_run "debuglink FIFO: syswatch --slower-than system-wide finishes -d 2" 7 '(^|;| )syswatch_calls\+0x[0-9a-f]+'
kill "$WL_PID" "$V" 2>/dev/null

# ---- 2. a perf map that is a symlink to a file whose read blocks

perf_map_wl fifo "$WL/offcpu_blocker" 1000000 50 0
timed 15 "$T/o" "$T/e" "$BIN/offcputime" -p "$WL_PID" -d 2 -f
check_run "perf map -> FIFO: offcputime -p finishes -d 2 and reports" 7 '^ocpu_blocker;.*offcpu_block_here'
kill "$WL_PID" 2>/dev/null

# trace_pipe: a "regular" file of size 0 on tracefs whose read waits for
# trace data.  tracefs is mounted in the workload's own mount namespace,
# with a trace instance of its own (an empty buffer nobody writes to, so
# that a read really waits), and the perf map is a relative symlink into
# it, so that the path works through /proc/PID/root
cat >"$T/tp" <<'EOF'
#!/bin/sh
mkdir -p "$TMPD/tfs" && mount -t tracefs nodev "$TMPD/tfs" &&
	mkdir "$TMPD/tfs/instances/suite-test-$$" || { echo "no tracefs"; exit 1; }
ln -sfn "${TMPD#/tmp/}/tfs/instances/suite-test-$$/trace_pipe" /tmp/perf-$$.map
exec "$@"
EOF
chmod +x "$T/tp"
INSTANCES=()
# tp_wl WORKLOAD ARGS...: start it with its perf map on trace_pipe; $WL_PID
tp_wl() {
	start_cmd unshare -m --propagation private "$T/tp" "$@"
	PERF_MAPS+=("/tmp/perf-$WL_PID.map")
	INSTANCES+=("suite-test-$WL_PID")
}
# the trace instances outlive the namespaces: removed at the end
rm_instances() {
	local p
	[ ${#INSTANCES[@]} = 0 ] && return
	for p in "${WL_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	mkdir -p "$T/tfs-rm"
	unshare -m --propagation private sh -c 'mount -t tracefs nodev "$0" || exit
		for i; do
			for n in 1 2 3 4 5 6 7 8 9 10; do
				[ -d "$0/instances/$i" ] || break
				rmdir "$0/instances/$i" 2>/dev/null || sleep 0.2
			done
		done' "$T/tfs-rm" "${INSTANCES[@]}"
}
trap 'rm_instances; _cleanup; rm -f "${PERF_MAPS[@]}"' EXIT
tp_wl "$WL/offcpu_blocker" 1000000 50 0
if [ "$WL_PID" = "no tracefs" ]; then
	fail "perf map -> trace_pipe: tracefs cannot be mounted in a private mount namespace"
else
	V=$WL_PID
	timed 15 "$T/o" "$T/e" "$BIN/offcputime" -p "$V" -d 2 -f
	check_run "perf map -> trace_pipe: offcputime -p finishes -d 2 and reports" 7 '^ocpu_blocker;.*offcpu_block_here'
	check_grep "perf map -> trace_pipe: offcputime says why it is not read" \
		"perf map of pid $V .*not read: on a pseudo filesystem" "$T/e"
	check_eq "perf map -> trace_pipe: said once" "$(grep -c 'not read' "$T/e")" 1
	timed 15 "$T/o" "$T/e" "$BIN/offcputime" -d 2 -f
	check_run "perf map -> trace_pipe: offcputime system-wide finishes -d 2" 7 '^ocpu_blocker;.*offcpu_block_here'
	timed 15 "$T/o" "$T/e" "$BIN/pfwatch" -p "$V" -d 2
	check_run "perf map -> trace_pipe: pfwatch -p finishes -d 2" 7 '.'
	timed 15 "$T/o" "$T/e" "$BIN/syswatch" --slower-than 2 -d 2 -j
	check_run "perf map -> trace_pipe: syswatch --slower-than -j system-wide finishes -d 2" 7 'nanosleep'
	tp_wl "$WL/wakers_target" futex 100000000
	case $WL_PID in ''|*[!0-9]*) fail "perf map -> trace_pipe: second workload: $WL_PID" ;; esac
	timed 15 "$T/o" "$T/e" "$BIN/wakers" -d 2 -f
	check_run "perf map -> trace_pipe: wakers system-wide finishes -d 2" 7 'wakers_poke_target'
	kill "$V" "$WL_PID" 2>/dev/null
fi

# ---- 3. a 4 GiB sparse perf map: bounded time and memory, and said

# check_cut DESC PID_ERE: stderr says the perf map of PID_ERE was cut
# after at most 128 MiB (the byte limit; less when the 2 s bound of a read
# came first, on a busy machine), of its 4 GiB
check_cut() {
	local n
	n=$(grep -Eo "perf map of pid $2 truncated at 0 lines \\([0-9]+ of 4294967296 bytes\\)" "$T/e" |
		head -1 | sed -E 's/.*\(([0-9]+) of.*/\1/')
	if [ -n "$n" ] && [ "$n" -le 134217728 ]; then pass "$1 ($n bytes)"
	else fail "$1 (got '$n' bytes, want a cut at most 134217728)"; grep -m2 perf "$T/e" | sed 's/^/#   /'; fi
}

perf_map_wl sparse "$WL/offcpu_blocker" 1000000 50 0
V=$WL_PID
timed 30 "$T/o" "$T/e" "$BIN/offcputime" -p "$V" -d 2 -f
check_run "4 GiB perf map: offcputime -p finishes -d 2 and reports" 6 '^ocpu_blocker;.*offcpu_block_here'
if [ "${RSS_KB:-0}" -gt 0 ] && [ "$RSS_KB" -le 204800 ]; then
	pass "4 GiB perf map: offcputime -p peak RSS $RSS_KB kB <= 200 MB"
else
	fail "4 GiB perf map: offcputime -p peak RSS $RSS_KB kB, want <= 200 MB"
fi
check_cut "4 GiB perf map: the cut is said" "$V"
check_eq "4 GiB perf map: said once" "$(grep -c 'truncated at' "$T/e")" 1
perf_map_wl sparse "$WL/offcpu_blocker" 1000000 50 0
timed 40 "$T/o" "$T/e" "$BIN/offcputime" -d 2 -f
check_run "two 4 GiB perf maps: offcputime system-wide finishes -d 2 and reports" 6 '^ocpu_blocker;'
check_cut "two 4 GiB perf maps: offcputime system-wide read at most 128 MiB of one, said" "[0-9]+"
if [ "${RSS_KB:-0}" -gt 0 ] && [ "$RSS_KB" -le 204800 ]; then
	pass "two 4 GiB perf maps: system-wide peak RSS $RSS_KB kB <= 200 MB"
else
	fail "two 4 GiB perf maps: system-wide peak RSS $RSS_KB kB, want <= 200 MB"
fi
timed 40 "$T/o" "$T/e" "$BIN/syswatch" --slower-than 2 -d 2 -j
check_run "two 4 GiB perf maps: syswatch --slower-than -j system-wide finishes -d 2 and reports" 6 'nanosleep'
perf_map_wl sparse "$WL/wakers_target" futex 100000000
timed 40 "$T/o" "$T/e" "$BIN/wakers" -p "$WL_PID" -d 2 -f
check_run "4 GiB perf map: wakers -p finishes -d 2 and reports" 6 'wakers_poke_target'
check_cut "4 GiB perf map: wakers -p read at most 128 MiB of it, said" "$WL_PID"
kill "$WL_PID" 2>/dev/null

# ---- 4. the limits of a perf map, and their message

perf_map_wl lines 5000 "$WL/offcpu_blocker" 1000000 50 0
V=$WL_PID
timed 15 "$T/o" "$T/e" env BLAZESYM_SHIM_PERF_MAP_MAX_LINES=1000 "$BIN/offcputime" -p "$V" -d 1 -f
check_grep "perf map line limit: the cut is said" \
	"perf map of pid $V truncated at 1000 lines \\([0-9]+ of [0-9]+ bytes\\): BLAZESYM_SHIM_PERF_MAP_MAX_LINES" "$T/e"
timed 15 "$T/o" "$T/e" "$BIN/offcputime" -p "$V" -d 1 -f
check_nogrep "perf map of 5000 lines: within the default limits, nothing said" 'truncated' "$T/e"
kill "$V" 2>/dev/null

# ---- 5. a stop is honoured while the symbolizer is busy
# The perf map limit is raised to 2 TiB, so that reading a 1 TiB sparse
# perf map keeps the symbolizer busy until its time bound (2 s a file);
# SIGINT is sent while the tool has that file open.  (Not 4 GiB: a machine
# with a CPU to spare reads 4 GiB of holes in under 2 s.)
HUGE_LIMIT=2199023255552

# busy_stop DESC CMD...: starts CMD, waits until it has a perf map of
# /tmp open (for 20 s at most), sends SIGINT and checks it ends (exit 0,
# its report on stdout).  CMD runs without -d: only the stop can end it,
# and a stop lost while the symbolizer is busy leaves it running until
# the guard (STOP_GUARD s) kills it.  No time is judged: the seconds are
# shown, a busy machine stretches them.
busy_stop() {
	local d=$1 p i t0 t1 open=0; shift
	: >"$T/e"
	env BLAZESYM_SHIM_PERF_MAP_MAX_BYTES=$HUGE_LIMIT "$@" >"$T/o" 2>"$T/e" &
	p=$!
	for i in $(seq 1 400); do
		ls -l /proc/$p/fd 2>/dev/null | grep -q '/tmp/perf-[0-9]*\.map' && { open=1; break; }
		kill -0 "$p" 2>/dev/null || break
		sleep 0.05
	done
	t0=$(date +%s.%N)
	kill -INT "$p"
	for i in $(seq 1 $((STOP_GUARD * 100))); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.01
	done
	t1=$(date +%s.%N)
	kill -KILL "$p" 2>/dev/null
	wait "$p"
	RC=$?
	SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	if [ "$open" = 1 ] && [ "$RC" = 0 ]; then
		pass "$d (ended $SECS s after SIGINT)"
	else
		fail "$d (perf map open: $open; exit $RC, $SECS s after SIGINT; want exit 0 before the $STOP_GUARD s guard)"
		sed 's/^/#   /' "$T/e" | head -4
	fi
}
STOP_GUARD=30
perf_map_wl huge "$WL/offcpu_blocker" 1000000 50 0
V1=$WL_PID
perf_map_wl huge "$WL/offcpu_blocker" 1000000 50 0
V2=$WL_PID
busy_stop "stop while busy: offcputime -p, reading perf maps before tracing" \
	"$BIN/offcputime" -p "$V1,$V2" -f
busy_stop "stop while busy: offcputime system-wide, capturing an announced process" \
	"$BIN/offcputime" -f
perf_map_wl huge "$WL/wakers_target" futex 100000000
V3=$WL_PID
busy_stop "stop while busy: wakers system-wide" "$BIN/wakers" -f
kill "$V3" 2>/dev/null
busy_stop "stop while busy: pfwatch -p" "$BIN/pfwatch" -p "$V1" -f
kill "$V1" "$V2" 2>/dev/null

# After the stop, a report that takes long to name its frames says so, and
# a Ctrl-C then quits at once.  jit_blocker's leaf frame is in anonymous
# memory, so the report reads its perf map, for 2 s (the time bound): the
# map is 1 TiB of holes, so that no read of it before or during tracing
# ends early (read whole, an unchanged map is not read again, and the
# report is quick: with 4 GiB, a machine with a CPU to spare read it whole
# in under 2 s before tracing, and nothing was said)
perf_map_wl huge "$WL/jit_blocker" 100000 50
V=$WL_PID
: >"$T/e"
env BLAZESYM_SHIM_PERF_MAP_MAX_BYTES=$HUGE_LIMIT "$BIN/offcputime" -p "$V" -d 1 -f >"$T/o" 2>"$T/e" &
p=$!
if wait_line "$T/e" 'still naming the frames of the report [0-9.]+ s after the stop'; then
	pass "slow report: said on stderr"
	t0=$(date +%s.%N)
	kill -INT "$p"
	for i in $(seq 1 $((STOP_GUARD * 100))); do kill -0 "$p" 2>/dev/null || break; sleep 0.01; done
	SECS=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
	kill -KILL "$p" 2>/dev/null
	wait "$p"; RC=$?
	# 130: it quit on the Ctrl-C; a report finished in its own time
	# exits 0, a hung one is killed by the guard (137).  No time is judged
	if [ "$RC" = 130 ]; then pass "slow report: a Ctrl-C quits at once (exit 130 after $SECS s)"
	else fail "slow report: a Ctrl-C quits at once (exit $RC after $SECS s, want 130)"; fi
else
	fail "slow report: nothing said on stderr"; sed 's/^/#   /' "$T/e" | head -8
	kill -KILL "$p" 2>/dev/null
	wait "$p"
fi
kill "$V" 2>/dev/null

# ---- 6. only CAP_BPF and CAP_PERFMON: kernel addresses are hidden
# (/proc/kallsyms shows 0 without CAP_SYSLOG when perf_event_paranoid > 1)

# as user nobody with only CAP_BPF and CAP_PERFMON
caps=(setpriv --reuid=65534 --regid=65534 --clear-groups
	--inh-caps=-all,+bpf,+perfmon --ambient-caps=-all,+bpf,+perfmon
	--bounding-set=-all,+bpf,+perfmon)
# as root (uid 0) with a bounding set of CAP_BPF and CAP_PERFMON only
rootcaps=(setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all,+bpf,+perfmon)
# the tools must be reachable by nobody: a copy in a world-readable place
CB=$(mktemp -d /tmp/suite-caps.XXXXXX)
chmod 755 "$CB"
for t in offcputime wakers pfwatch syswatch schedsilence hitmtop; do cp "$BIN/$t" "$CB/"; done
trap 'rm_instances; _cleanup; rm -f "${PERF_MAPS[@]}"; rm -rf "$CB"' EXIT
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$paranoid" -le 1 ] && [ "$(cat /proc/sys/kernel/kptr_restrict)" = 0 ]; then
	pass "only CAP_BPF+CAP_PERFMON: skipped, perf_event_paranoid=$paranoid shows kernel addresses to all"
else
	start_wl offcpu_blocker 1000000 50 0
	V=$WL_PID
	for how in caps rootcaps; do
		for run in "offcputime -p $V -d 2 -j" "offcputime -d 2 -j" "wakers -d 2 -j" \
			   "pfwatch -d 2 -j" "syswatch --slower-than 2 -d 2 -j"; do
			# shellcheck disable=SC2086
			if [ "$how" = caps ]; then pre=("${caps[@]}"); else pre=("${rootcaps[@]}"); fi
			timed 30 "$T/o" "$T/e" "${pre[@]}" "$CB"/$run
			tool=${run%% *}
			if [ "$RC" = 0 ] && json_ok "$T/o"; then
				pass "$how: $run: runs (exit 0, valid JSON)"
			else
				fail "$how: $run: exit $RC"; sed 's/^/#   /' "$T/e" | head -3
				continue
			fi
			[ "$tool" = syswatch ] && continue	# user stacks only
			check_grep "$how: $run: says why kernel frames are unnamed and what fixes it" \
				'kernel frames cannot be named: /proc/kallsyms shows every address as 0, because .*CAP_SYSLOG' "$T/e"
			check_eq "$how: $run: said once" "$(grep -c 'kernel frames cannot be named' "$T/e")" 1
			check_grep "$how: $run: the unresolved-frames line names it" \
				'kernel frames had no symbol \(kernel addresses hidden' "$T/e"
			check_ge "$how: $run: JSON frames.failed_lookups counts the hidden addresses" \
				"$(json_get "$T/o" "d['frames']['failed_lookups'].get('kernel addresses hidden', 0)")" 1
		done
	done
	# the two tools without user stacks run too
	for how in caps rootcaps; do
		if [ "$how" = caps ]; then pre=("${caps[@]}"); else pre=("${rootcaps[@]}"); fi
		timed 30 "$T/o" "$T/e" "${pre[@]}" "$CB/schedsilence" -C 1 -d 1 -j
		if [ "$RC" = 1 ] && json_ok "$T/o"; then pass "$how: schedsilence -C 1 -d 1 -j: runs (exit 1: not silent)"
		else fail "$how: schedsilence: exit $RC"; sed 's/^/#   /' "$T/e" | head -3; fi
		timed 30 "$T/o" "$T/e" "${pre[@]}" env HITMTOP_TEST_SOFTWARE_EVENT=1 "$CB/hitmtop" -d 1 -j
		if [ "$RC" = 0 ] && json_ok "$T/o"; then pass "$how: hitmtop -d 1 -j (software event): runs"
		else fail "$how: hitmtop: exit $RC"; sed 's/^/#   /' "$T/e" | head -3; fi
	done
	# the same run as root keeps its kernel names, and says nothing (a
	# fresh workload: on a loaded machine the runs above can outlast the
	# first one's 50 s)
	start_wl offcpu_blocker 1000000 50 0
	timed 30 "$T/o" "$T/e" "$BIN/offcputime" -p "$WL_PID" -d 1 -j
	check_eq "as root: offcputime -p -d 1 -j runs (exit 0)" "$RC" 0
	check_nogrep "as root: nothing said about hidden kernel addresses" 'cannot be named' "$T/e"
	check_eq "as root: no hidden kernel address counted" \
		"$(json_get "$T/o" "d['frames']['failed_lookups'].get('kernel addresses hidden', 0)")" 0
	# one capability fewer: refused, exit 3, naming what is missing
	timed 30 "$T/o" "$T/e" setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all,+bpf --ambient-caps=-all,+bpf --bounding-set=-all,+bpf "$CB/offcputime" -d 1
	check_eq "only CAP_BPF: exit 3" "$RC" 3
	check_grep "only CAP_BPF: says what is missing" 'need root, or CAP_BPF and CAP_PERFMON' "$T/e"
	kill "$V" 2>/dev/null
fi
