#!/usr/bin/env bash
# Runs every test: unit tests (build/tests/test_*) and tool tests
# (tests/tools/test_*.sh, real BPF, as root).  `tests/run.sh PATTERN`
# runs the ones whose name matches.  The last line is "N passed, N failed".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
export ROOT BUILD
pattern=${1:-}
# SUITE_SKIP="NAME ...": tests not run here (make test-asan skips those
# that check the tree and its normal build, not the tools' runs: the same
# in both phases)
skip=" ${SUITE_SKIP:-} "
log=$(mktemp /tmp/suite-results.XXXXXX)

# run_one NAME CMD...: runs one test, its lines into the log.  A unit test
# (a program: UNIT=1) killed by a signal (a crash: its remaining checks
# never ran), or exiting non-zero without a "not ok" line, is a failure of
# its own: otherwise a test that crashes would count only the checks it
# passed before.  (A tool test is a script: its status is its last
# command's, a workload's kill by the test among them.)
run_one() {
	local name=$1; shift
	[ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && return
	[[ "$skip" == *" $name "* ]] && return
	echo "# $name"
	local start=$SECONDS rc out
	out=$(mktemp /tmp/suite-one.XXXXXX)
	"$@" 2>&1 | tee "$out" | grep -E '^(not ok|skip|#)'
	rc=${PIPESTATUS[0]}
	cat "$out" >>"$log"
	if [ -n "${UNIT:-}" ] && { [ "$rc" -gt 128 ] || { [ "$rc" != 0 ] && ! grep -q '^not ok' "$out"; }; }; then
		echo "not ok - $name: exited with status $rc$([ "$rc" -gt 128 ] && echo " (signal $((rc - 128)))") after $(grep -c '^ok' "$out") checks" |
			tee -a "$log"
	fi
	rm -f "$out"
	echo "# $name: $((SECONDS - start)) s"
}

if [ "$(id -u)" != 0 ]; then
	echo "# not root: the tool tests load BPF and need root" >&2
fi

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	UNIT=1 run_one "$(basename "$t")" "$t"
done
# symbolizer scenarios with real processes (TAP output of its own)
run_one symbolizer_scenarios "$ROOT/tests/symbolizer/run.sh"
# the tool tests, then the tests on real software (tests/real/)
for t in "$ROOT"/tests/tools/test_*.sh "$ROOT"/tests/real/test_*.sh; do
	[ -f "$t" ] || continue
	run_one "$(basename "$t" .sh)" env TEST_FILE="$(basename "$t" .sh)" bash -c 'source "$ROOT/tests/lib.sh"; source "$1"' _ "$t"
done

# Under the sanitizer build, any report in the logs is a failure
if [ -n "${SANITIZER_LOGS:-}" ]; then
	if [ -z "$(ls -A "$SANITIZER_LOGS" 2>/dev/null)" ]; then
		echo "ok - sanitizers: no report from any run" >>"$log"
	else
		echo "not ok - sanitizers: reports in $SANITIZER_LOGS" >>"$log"
		head -30 "$SANITIZER_LOGS"/* >&2
	fi
fi
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^not ok ' "$log")
# a test whose software is missing and cannot be installed says "skip -"
skipped=$(grep -c '^skip ' "$log")
rm -f "$log"
echo "$passed passed, $failed failed$([ "$skipped" -gt 0 ] && echo ", $skipped skipped")"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
