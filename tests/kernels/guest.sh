#!/bin/bash
# tests/kernels/guest.sh [CHECK...]
# Runs inside a guest of the kernel matrix (scripts/kernels/boot.sh, as
# tests/kernels/run.sh does), as root, with the host's filesystem read-only
# and ROOT naming the checkout.  Prints TAP-like lines "ok - TOOL: what" /
# "not ok - TOOL: what" (run.sh prefixes them with the kernel) and exits 1
# if any failed.
#
# Each tool's checks are one function check_TOOL; CHECKS (or the arguments)
# say which run, default every check_* function defined below, in the order
# of $ALL_CHECKS.  To add a tool: write check_TOOL with the helpers below
# (pass, fail, check_eq, check_within, run_traced, without_btf...) and add
# TOOL to ALL_CHECKS.
#
# Kernel facts for checks that depend on them: $KREL (uname -r), $KMAJ and
# $KMIN (5 10), $KRT (1 on PREEMPT_RT), $HAS_BTF (1 if /sys/kernel/btf/vmlinux).
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$ROOT" || exit 1
BIN=$ROOT
WL=$ROOT/build/workloads
T=$(mktemp -d /tmp/guest.XXXXXX)
ALL_CHECKS="basics offcputime syswatch wakers pfwatch schedsilence hitmtop hotcheck"
TIMEOUT_TOOL=${TIMEOUT_TOOL:-120}	# seconds any one tool run may take here

KREL=$(uname -r)
KMAJ=${KREL%%.*}
KMIN=${KREL#*.}; KMIN=${KMIN%%.*}
# shellcheck disable=SC2034
KRT=0; case "$(uname -v)" in *PREEMPT_RT*) KRT=1 ;; esac
HAS_BTF=0; [ -r /sys/kernel/btf/vmlinux ] && HAS_BTF=1

NPASS=0
NFAIL=0
pass() { NPASS=$((NPASS + 1)); echo "ok - $CUR: $1"; }
fail() { NFAIL=$((NFAIL + 1)); echo "not ok - $CUR: $1"; }
skip() { echo "ok - $CUR: $1 # SKIP ${2:-}"; }
# note FILE: a file's first lines as TAP comments (why something failed)
note() { [ -s "$1" ] && head -"${2:-8}" "$1" | sed 's/^/#   /'; return 0; }
kernel_at_least() { [ "$KMAJ" -gt "$1" ] || { [ "$KMAJ" -eq "$1" ] && [ "$KMIN" -ge "$2" ]; }; }

check_eq() {	# DESC GOT WANT
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (got '$2', want '$3')"; fi
}
check_within() {	# DESC GOT WANT PERCENT
	local got=${2:-0} want=$3 pct=$4
	if [ "$got" -ge $((want - want * pct / 100)) ] 2>/dev/null &&
		[ "$got" -le $((want + want * pct / 100)) ]; then
		pass "$1 ($got)"
	else
		fail "$1 (got '$got', want $want +-$pct%)"
	fi
}
check_grep() {	# DESC REGEX FILE
	if grep -Eq -- "$2" "$3"; then pass "$1"; else fail "$1 (no line matches '$2')"; note "$3" 5; fi
}
folded_sum() {	# REGEX FILE: the sum of the folded lines' values
	grep -E -- "$1" "$2" | awk '{ s += $NF } END { print s + 0 }'
}

# without_btf CMD ARGS...: runs CMD where /sys/kernel/btf/vmlinux is
# /dev/null (its own mount namespace), as on a kernel built without BTF
without_btf() {
	unshare -m sh -c 'mount --bind /dev/null /sys/kernel/btf/vmlinux && exec "$@"' sh "$@"
}

# wait_line FILE REGEX [PID] [SECONDS]: until FILE has a line matching REGEX;
# fails early when PID has exited
wait_line() {
	local f=$1 re=$2 pid=${3:-} n=$(( ${4:-$TIMEOUT_TOOL} * 10 ))
	while [ $n -gt 0 ]; do
		grep -Eq -- "$re" "$f" 2>/dev/null && return 0
		[ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && { grep -Eq -- "$re" "$f" 2>/dev/null; return; }
		sleep 0.1; n=$((n - 1))
	done
	return 1
}

# run_traced OUT ERR WORKLOAD_ARGS -- TOOL ARGS...: starts the workload
# (build/workloads/NAME ARGS...) held until the tool is attached: TOOL's
# "-p PID" is written as -p @; the workload goes once TOOL's stderr says
# tracing/watching/sampling.  Sets RUN_RC (TOOL's status) and WL_PID.
run_traced() {
	local out=$1 err=$2 wl=() go=$T/go.$RANDOM a args=() tool
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do wl+=("$1"); shift; done
	shift
	rm -f "$go"
	WL_GO=$go "$WL/${wl[0]}" "${wl[@]:1}" >"$T/wl.out" 2>&1 &
	WL_PID=$!
	for a in "$@"; do [ "$a" = @ ] && a=$WL_PID; args+=("$a"); done
	timeout -k 5 "$TIMEOUT_TOOL" "${args[@]}" >"$out" 2>"$err" &
	tool=$!
	wait_line "$err" 'tracing|watching|sampling' "$tool"
	touch "$go"
	wait "$tool"; RUN_RC=$?
	kill "$WL_PID" 2>/dev/null
	wait "$WL_PID" 2>/dev/null
	return 0
}

check_basics() {
	local t v
	echo "# kernel $KREL ($(uname -v)), BTF $HAS_BTF, $(nproc) CPUs"
	for t in offcputime syswatch wakers pfwatch schedsilence hitmtop hotcheck; do
		if [ ! -x "$BIN/$t" ]; then fail "$t is built"; continue; fi
		if v=$("$BIN/$t" --version 2>&1) && [ "${v%% *}" = "$t" ]; then
			pass "$t --version runs ($v)"
		else
			fail "$t --version runs (got '$v')"
		fi
	done
	if grep -q ' /sys/fs/bpf bpf ' /proc/mounts; then pass "bpffs is mounted"; else fail "bpffs is mounted"; fi
}

check_offcputime() {
	# 20 blocks of 50 ms in offcpu_block_here (as tests/tools/test_offcputime.sh 1)
	run_traced "$T/oc.f" "$T/oc.e" offcpu_blocker 20 50 0 -- "$BIN/offcputime" -p @ -f -d 10
	if [ "$RUN_RC" != 0 ]; then
		fail "offcputime -p PID -f runs (exit $RUN_RC)"; note "$T/oc.e"
		return
	fi
	pass "offcputime -p PID -f runs"
	check_grep "folded output names offcpu_block_here" '^ocpu_blocker;.*offcpu_block_here' "$T/oc.f"
	check_within "off-CPU time in offcpu_block_here is 20 x 50 ms (us)" \
		"$(folded_sum 'offcpu_block_here' "$T/oc.f")" 1000000 20
}

# Tools whose checks are not written yet: nothing (define check_TOOL to add)

run_checks() {
	local c
	[ $# -gt 0 ] || set -- ${CHECKS:-$ALL_CHECKS}
	for c in "$@"; do
		CUR=$c
		if declare -F "check_$c" >/dev/null; then
			"check_$c"
		elif [ -n "${CHECKS:-}" ]; then
			fail "no check_$c in tests/kernels/guest.sh"
		fi
	done
}

echo "# guest: $KREL"
run_checks "$@"
echo "# guest: $NPASS passed, $NFAIL failed"
rm -rf "$T"
[ "$NFAIL" = 0 ]
