#!/usr/bin/env bash
# The walkthrough of docs/diagnosis.md, end to end, on the bundled workload
# tests/workloads/diag_latency.c: a latency-critical thread (diag_hot)
# pinned to CPU $HOT_CPU whose p99.9 regressed, diagnosed with schedsilence,
# offcputime and wakers, fixed, and verified again.
#
#   scripts/diagnosis-demo.sh            # as root, from anywhere; about 50 s
#   HOT_CPU=1 SECS=5 DEMO_OUT=/tmp/diagnosis-demo scripts/diagnosis-demo.sh
#
# HOT_CPU: the hot thread's CPU (default 1; the rest runs on CPU 0, or on
# CPU 1 when HOT_CPU is 0); SECS: the length of each tool run; DEMO_OUT:
# where every output is kept (the workload's, schedsilence's whole report
# with its timeline, wakers').  Steps: 0 baseline, 1 symptom, 2 resource
# (schedsilence), 3 actors (offcputime, wakers), 4 correlation, 5 fix 1
# (taskset, live), 6 fix 2 (the patched build) and re-verify.
#
# Each step prints the command it runs ("$ ...") and its output.  The
# workload runs in a session of its own at nice -20 (its autogroup too), as
# a latency-critical service would, so that the rest of a shared machine
# mostly keeps off its CPU; what still intrudes is named by schedsilence.
set -eu
cd "$(dirname "$0")/.."
ROOT=$PWD
HOT_CPU=${HOT_CPU:-1}
SECS=${SECS:-5}			# length of each tool run
NCPU=$(nproc)
if [ "$NCPU" -lt 2 ]; then
	echo "diagnosis-demo: needs 2 CPUs (one for the hot thread, one for the rest)" >&2
	exit 3
fi
if [ "$(id -u)" != 0 ]; then
	echo "diagnosis-demo: run as root (the tools load BPF)" >&2
	exit 3
fi
OTHER_CPU=$([ "$HOT_CPU" = 0 ] && echo 1 || echo 0)
make -s -j2 offcputime wakers schedsilence workloads >/dev/null
WL=$ROOT/build/workloads/diag_latency
# every output is kept there, to grep at leisure
T=${DEMO_OUT:-/tmp/diagnosis-demo}
mkdir -p "$T"
APP=
cleanup() {
	[ -n "$APP" ] && kill "$APP" 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT

say() { printf '\n== %s\n' "$*"; }
show() { printf '$ %s\n' "$(printf '%s ' "$@" | sed "s|$ROOT/|./|g")"; "$@"; }

# start_app SECS STATS_CPU FLUSH_MODE: the workload in the background;
# sets APP (pid), HOT, STATS and FLUSHER (tids), its output in $T/app.out
start_app() {
	printf '$ setsid nice -n -20 %s %s %s %s %s 2 &\n' "${WL#$ROOT/}" "$HOT_CPU" "$@"
	setsid nice -n -20 "$WL" "$HOT_CPU" "$@" 2 >"$T/app.out" &
	APP=$!
	for _ in $(seq 1 500); do [ -s "$T/app.out" ] && break; sleep 0.01; done
	# the autogroup of its session, too: nice alone acts within a group
	echo -20 >/proc/"$APP"/autogroup 2>/dev/null || true
	read -r _ HOT STATS FLUSHER <"$T/app.out"
	echo "   pid $APP: diag_hot $HOT, diag_stats $STATS, diag_flusher $FLUSHER (0: none)"
}
finish_app() {
	wait "$APP" || true
	APP=
	sed 1d "$T/app.out"
}
# correlate: for each window of the workload whose slowest request was
# served inside the schedsilence window, the timeline events on the CPU
# while that request waited (from when it was due to when it was served)
correlate() {
	awk -v cpu="$HOT_CPU" '
	FNR == NR {
		n = split($0, f, " ")
		if ($1 ~ /^[0-9]+-[0-9]+s$/ && match($0, /max= *[0-9.]+us/)) {
			m = substr($0, RSTART + 4, RLENGTH - 6); gsub(/ /, "", m)
			W[++nw] = $1; M[nw] = m; A[nw] = f[n]
		}
		next
	}
	/^Timeline/ { on = 1; next }
	on && $1 ~ /^[0-9]+\.[0-9]+$/ { R[++nr] = $0; S[nr] = $1 + 0 }
	END {
		for (i = 1; i <= nw; i++) {
			rows = ""
			for (j = 1; j <= nr; j++)
				if (S[j] <= A[i] + 0 && S[j] >= A[i] - M[i] / 1e6 - 0.0001)
					rows = rows "\n" R[j]
			if (rows != "")
				printf "window %s: slowest request %sus late, served at %s; on CPU %s while it waited:%s\n",
					W[i], M[i], A[i], cpu, rows
		}
	}' "$T/app.out" "$T/ss.out"
}

say "0. The baseline (before the regression): diag_hot alone on CPU $HOT_CPU"
start_app 10 -1 0
finish_app

say "1. Symptom: the new build's p99.9 (stats thread and journal flusher added)"
start_app $((3 * SECS + 6)) "$HOT_CPU" 1
sleep 1

say "2. Resource: is CPU $HOT_CPU really diag_hot's alone?"
show "$ROOT/schedsilence" -C "$HOT_CPU" -d "$SECS" --allow-tid "$HOT" --timeline 100000 \
	>"$T/ss.out" 2>&1 || true
# the report without the timeline, then the timeline rows of the workload
sed -n '/^Timeline/q;p' "$T/ss.out"
echo "Timeline rows of the workload's threads (grep diag_; all of it in $T/ss.out):"
sed -n '/^Timeline/,$p' "$T/ss.out" | grep -E 'MONOTONIC|diag_' | head -7

say "3. Actors: where does diag_hot wait, and who wakes it?"
"$ROOT/wakers" -t "$HOT" -d "$SECS" >"$T/wk.out" 2>"$T/wk.err" &
wk=$!
show "$ROOT/offcputime" -t "$HOT" -d "$SECS" 2>&1
wait "$wk" || true
echo "\$ ./wakers -t $HOT -d $SECS     (run at the same time)"
cat "$T/wk.out" "$T/wk.err"

say "4. Correlation: the workload's slowest requests against the timeline of CPU $HOT_CPU"
sed -n '2,$p' "$T/app.out"
correlate

say "5. Fix 1, live: move diag_stats off CPU $HOT_CPU (only that thread: no -a)"
show taskset -pc "$OTHER_CPU" "$STATS"
finish_app

say "6. Fix 2 (a code change): diag_flusher writes with the lock released; re-verify"
start_app $((2 * SECS + 4)) "$OTHER_CPU" 2
sleep 1
show "$ROOT/schedsilence" -C "$HOT_CPU" -d "$SECS" --allow-tid "$HOT" >"$T/ss2.out" 2>&1 || true
grep -E '^schedsilence|^cpu [0-9]+: |^CPU +KIND|^[0-9]+ +task |^Allowed|^  diag_' "$T/ss2.out" || true
echo "(the verdict, the task rows of the table: no diag_ thread but the allowed diag_hot"
echo " ran on CPU $HOT_CPU; diag_hot's context switches. All of it in $T/ss2.out)"
show "$ROOT/wakers" -t "$HOT" -d "$SECS" 2>&1
finish_app
