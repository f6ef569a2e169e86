#!/bin/bash
# tests/kernels/run.sh [REPEAT=N] [KERNELS="ID..."] [JOBS=N] [MTTCG=1] [CHECKS="..."]
# The kernel matrix (make test-kernels): fetches the kernels (cached,
# scripts/kernels/fetch.sh), builds their initramfs, then boots each kernel
# REPEAT times (default 1) under QEMU, JOBS guests at a time (default: the
# CPUs, at most 2: single-threaded TCG takes one CPU a guest), each running
# tests/kernels/guest.sh.  The settings may also come from the environment.
# Prints TAP-like lines "ok - kernel ID: ..." / "not ok - kernel ID: ..." and
# a final "N passed, N failed"; exits 1 on any failure.  Each boot's
# console is kept in build/kernels/ID.rN.log (and the guest's part in
# ID.rN.out).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
KSCRIPTS=$ROOT/scripts/kernels
. "$KSCRIPTS/lib.sh"

for a in "$@"; do
	case "$a" in
	REPEAT=*|KERNELS=*|JOBS=*|MTTCG=*|CHECKS=*|TIMEOUT=*) export "${a?}" ;;
	*) echo "usage: $0 [REPEAT=N] [KERNELS=\"ID...\"] [JOBS=N] [MTTCG=1] [CHECKS=\"...\"] [TIMEOUT=S]" >&2; exit 2 ;;
	esac
done
REPEAT=${REPEAT:-1}
KERNELS=${KERNELS:-$KERNEL_IDS_ALL}
TIMEOUT=${TIMEOUT:-600}
if [ -z "${JOBS:-}" ]; then
	JOBS=$(nproc 2>/dev/null || echo 1)
	[ "$JOBS" -gt 2 ] && JOBS=2
	[ -n "${MTTCG:-}" ] && JOBS=1
fi
case "$REPEAT$JOBS$TIMEOUT" in *[!0-9]*) echo "$0: REPEAT, JOBS and TIMEOUT are numbers" >&2; exit 2 ;; esac
[ "$REPEAT" -ge 1 ] && [ "$JOBS" -ge 1 ] || { echo "$0: REPEAT and JOBS are at least 1" >&2; exit 2; }
for k in $KERNELS; do
	kmx_valid_id "$k" || { echo "$0: unknown kernel '$k' (known: $KERNEL_IDS_ALL)" >&2; exit 2; }
done
for t in offcputime syswatch wakers pfwatch schedsilence hitmtop hotcheck; do
	[ -x "$ROOT/$t" ] || { echo "$0: $ROOT/$t is not built (make)" >&2; exit 2; }
done
[ -d "$ROOT/build/workloads" ] || { echo "$0: the workloads are not built (make workloads)" >&2; exit 2; }

OUTD=$ROOT/build/kernels
mkdir -p "$OUTD"
rm -f "$OUTD"/*.r[0-9]*.log "$OUTD"/*.r[0-9]*.out "$OUTD"/*.r[0-9]*.err	# the last matrix's
T0=$(date +%s)
"$KSCRIPTS/fetch.sh" $KERNELS >"$OUTD/fetch.out" 2>"$OUTD/fetch.err" ||
	{ cat "$OUTD/fetch.err" >&2; echo "not ok - fetching the kernels"; echo "0 passed, 1 failed"; exit 1; }
"$KSCRIPTS/initramfs.sh" $KERNELS 2>"$OUTD/initramfs.err" ||
	{ cat "$OUTD/initramfs.err" >&2; echo "not ok - building the initramfs"; echo "0 passed, 1 failed"; exit 1; }
echo "# kernels: $(awk '{ printf "%s%s (%s)", sep, $1, $2; sep=", " }' "$OUTD/fetch.out"), ready in $(( $(date +%s) - T0 )) s"

BOOT_OPTS=(--timeout "$TIMEOUT")
[ -n "${MTTCG:-}" ] && BOOT_OPTS+=(--mttcg)
GUEST_ENV=()
[ -n "${CHECKS:-}" ] && GUEST_ENV+=(--env "CHECKS=$CHECKS")

RES=$(mktemp -d)
trap 'rm -rf "$RES"' EXIT

# one boot: its result lines into $RES/ID.rN.tap, printed whole at the end
# of the boot (under a lock, so the two guests' lines do not mix)
one() {
	local k=$1 r=$2 tag=$1 name=$1.r$2 rc tap=$RES/$1.r$2.tap status
	[ "$REPEAT" -gt 1 ] && tag="$k (run $r)"
	"$KSCRIPTS/boot.sh" "$k" "${BOOT_OPTS[@]}" "${GUEST_ENV[@]+"${GUEST_ENV[@]}"}" \
		--log "$OUTD/$name.log" -- "$ROOT/tests/kernels/guest.sh" \
		>"$OUTD/$name.out" 2>"$OUTD/$name.err"
	rc=$?
	{
		sed -n -E "s/^(not )?ok - /&kernel $tag: /p; /^#   /p" "$OUTD/$name.out"
		status=$(grep -m1 -o 'boot [0-9.-]* s, total [0-9.-]* s' "$OUTD/$name.err")
		if grep -q 'the kernel complained' "$OUTD/$name.err"; then
			echo "not ok - kernel $tag: the console has no kernel warning, BUG, lockup or stall"
			sed -n '/the kernel complained/,/^boot.sh: kernel/p' "$OUTD/$name.err" | sed '1d;$d; s/^ */#   /' | head -15
		else
			echo "ok - kernel $tag: the console has no kernel warning, BUG, lockup or stall"
		fi
		case "$rc" in
		124) echo "not ok - kernel $tag: the guest finished within $TIMEOUT s" ;;
		125) echo "not ok - kernel $tag: boots and runs the guest ($status)"
			tail -12 "$OUTD/$name.err" | sed 's/^/#   /' ;;
		*) echo "ok - kernel $tag: boots and runs the guest ($status)" ;;
		esac
		grep -q -E '^(not )?ok - ' "$OUTD/$name.out" || [ "$rc" = 125 ] || [ "$rc" = 124 ] ||
			echo "not ok - kernel $tag: the guest printed results (exit $rc)"
		if [ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$rc" != 125 ] && [ "$rc" != 126 ] &&
			! grep -q '^not ok - ' "$OUTD/$name.out"; then
			echo "not ok - kernel $tag: guest.sh exited $rc with no failed check"
		fi
		echo "#   console: $OUTD/$name.log"
	} >"$tap.tmp"
	mv "$tap.tmp" "$tap"
	flock "$RES" cat "$tap"
}

for r in $(seq 1 "$REPEAT"); do
	for k in $KERNELS; do
		while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
		one "$k" "$r" &
	done
done
wait

# The support table of docs/KERNELS.md, from this run: per kernel, the
# features it lacks and each tool's checks
table() {
	local k tool taps n bad cell lacks
	echo "| kernel | lacks (\`-v\`) | offcputime | syswatch | wakers | pfwatch | schedsilence | hotcheck | hitmtop | \`--btf FILE\` | console |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for k in $KERNELS; do
		taps=$(cat "$RES/$k".r*.tap 2>/dev/null)
		lacks=$(sed -n 's/^# features: //p' "$OUTD/$k".r*.out 2>/dev/null | head -1 |
			tr ' ' '\n' | sed -n 's/^!//p' | grep -vx preempt_rt | tr '\n' ' ')
		printf '| %s (%s) | %s |' "$k" "$(awk -v k="$k" '$1 == k { print $2 }' "$OUTD/fetch.out")" \
			"${lacks:-nothing}"
		for tool in offcputime syswatch wakers pfwatch schedsilence hotcheck hitmtop nobtf \
			"the console"; do
			n=$(echo "$taps" | grep -Ec "^(not )?ok - kernel $k( \(run [0-9]+\))?: $tool")
			bad=$(echo "$taps" | grep -Ec "^not ok - kernel $k( \(run [0-9]+\))?: $tool")
			if [ "$n" = 0 ]; then cell="not run"
			elif [ "$bad" != 0 ]; then cell="**$bad of $n checks failed**"
			elif [ "$tool" = hitmtop ]; then cell="loads; exit 3 (no PEBS/IBS)"
			elif [ "$tool" = "the console" ]; then cell="clean"
			else cell="exact ($n checks)"
			fi
			printf ' %s |' "$cell"
		done
		echo
	done
}
table >"$OUTD/table.md"
echo "# the support table: $OUTD/table.md"

np=$(cat "$RES"/*.tap 2>/dev/null | grep -c '^ok - ')
nf=$(cat "$RES"/*.tap 2>/dev/null | grep -c '^not ok - ')
echo "# matrix: $(echo $KERNELS | wc -w) kernels x $REPEAT in $(( $(date +%s) - T0 )) s (JOBS=$JOBS${MTTCG:+, MTTCG})"
echo "$np passed, $nf failed"
[ "$nf" = 0 ] && [ "$np" -gt 0 ]
