#!/bin/bash
# tests/kernels/guest.sh [CHECK...]
# Runs inside a guest of the kernel matrix (scripts/kernels/boot.sh, as
# tests/kernels/run.sh does), as root, with the host's filesystem read-only
# and ROOT naming the checkout.  Prints TAP-like lines "ok - TOOL: what" /
# "not ok - TOOL: what" (run.sh prefixes them with the kernel) and exits 1
# if any failed.
#
# Each tool's checks are one function check_TOOL; CHECKS (or the arguments)
# say which run, default every check_* function, in the order of
# $ALL_CHECKS.  A tool's exact-count checks are kcheck_TOOL in
# tests/kernels/checks.sh (the host's test helpers, tests/lib.sh, and the
# same workloads): to add a tool, write kcheck_TOOL there and add TOOL to
# ALL_CHECKS and to the list of wrappers below.
#
# Kernel facts: $KREL (uname -r), $KRT (1 on PREEMPT_RT), $HAS_BTF (1 if
# /sys/kernel/btf/vmlinux).
set -u
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$ROOT" || exit 1
BIN=$ROOT
T=$(mktemp -d /tmp/guest.XXXXXX)
ALL_CHECKS="basics offcputime syswatch wakers pfwatch schedsilence hitmtop hotcheck nobtf"

KREL=$(uname -r)
# shellcheck disable=SC2034
KRT=0; case "$(uname -v)" in *PREEMPT_RT*) KRT=1 ;; esac
HAS_BTF=0; [ -r /sys/kernel/btf/vmlinux ] && HAS_BTF=1

NPASS=0
NFAIL=0
pass() { NPASS=$((NPASS + 1)); echo "ok - $CUR: $1"; }
fail() { NFAIL=$((NFAIL + 1)); echo "not ok - $CUR: $1"; }

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
	# what the tools found this kernel lacks (docs/KERNELS.md's table)
	local feats
	feats=" $("$BIN/offcputime" -v -d 0.1 2>&1 >/dev/null | sed -n 's/.*kernel features: //p') "
	echo "# features:$feats"
	# the user stacks walked by the programs (bpf/uwalk.bpf.h) wherever
	# bpf_task_pt_regs() is (x86-64): every check below that names a
	# user frame then checks that walk on this kernel
	if [[ "$(uname -m)" == x86_64 && "$feats" == *" task_pt_regs "* ]]; then
		if [[ "$feats" == *" ustack_walk "* ]]; then
			pass "user stacks walked by the programs (ustack_walk)"
		else
			fail "user stacks walked by the programs (ustack_walk; features:$feats)"
		fi
	elif [[ "$feats" == *" !ustack_walk "* ]]; then
		pass "user stacks by bpf_get_stack() (no bpf_task_pt_regs())"
	else
		fail "user stacks by bpf_get_stack() (no bpf_task_pt_regs(); features:$feats)"
	fi
	# interrupt context from this CPU's preempt count on x86-64, every
	# kernel: __preempt_count (5.10, 6.1) or pcpu_hot's anonymous union
	# (6.12), which the loader once missed, and wakers, hotcheck and
	# schedsilence then fell back (wakers to the irq tracepoints, which
	# on PREEMPT_RT put a wakeup on a preempted softirq thread)
	if [ "$(uname -m)" = x86_64 ] && [ "$HAS_BTF" = 1 ]; then
		local src
		src=$("$BIN/wakers" -v -d 0.5 2>&1 >/dev/null | sed -n 's/.*interrupt context read from //p')
		if [ "$src" = "per-CPU preempt count" ]; then
			pass "interrupt context read from the per-CPU preempt count"
		else
			fail "interrupt context read from the per-CPU preempt count (got '$src')"
		fi
	fi
}

# Every tool's checks: tests/kernels/checks.sh's kcheck_TOOL (the same
# helpers as the host's tests, tests/lib.sh), in a subshell of its own;
# its lines counted here
kcheck() {
	local out=$T/kc.$1.out
	(
		export TEST_FILE=$1 ROOT
		# shellcheck source=/dev/null
		source "$ROOT/tests/lib.sh"
		# shellcheck source=/dev/null
		source "$ROOT/tests/kernels/checks.sh"
		# the checks name their tool: run.sh puts the kernel before
		pass() { echo "ok - $*"; }
		fail() { echo "not ok - $*"; }
		"kcheck_$1"
	) >"$out" 2>&1
	NPASS=$((NPASS + $(grep -c '^ok - ' "$out")))
	NFAIL=$((NFAIL + $(grep -c '^not ok - ' "$out")))
	grep -q -E '^(not )?ok - ' "$out" || fail "$1: its checks printed no result"
	cat "$out"
}
for c in offcputime syswatch wakers pfwatch schedsilence hitmtop hotcheck nobtf; do
	eval "check_$c() { kcheck $c; }"
done

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
