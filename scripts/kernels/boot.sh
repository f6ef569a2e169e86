#!/bin/bash
# scripts/kernels/boot.sh KERNEL_ID [options] -- COMMAND [ARG...]
# Boots one of the matrix's Debian kernels (5.10 5.10-rt 6.1 6.1-rt 6.12
# 6.12-rt) under QEMU with this machine's root filesystem read-only over
# virtio 9p, runs COMMAND inside (as root, in the current directory, with
# ROOT=<this checkout> in its environment; /tmp, /run, /var/tmp are fresh
# tmpfs), and exits with COMMAND's status.  Fetches the kernel and builds its
# initramfs first if needed (scripts/kernels/fetch.sh, initramfs.sh).
#
# Options:
#   --mttcg        QEMU's multi-threaded TCG (default: -accel tcg,thread=single,
#                  which has been stable where MTTCG was not)
#   --timeout S    kill the guest after S seconds (default 900): exit 124
#   --log FILE     the console log (default build/kernels/boot-ID.log, or
#                  boot-ID.PID.log while another boot.sh of ID writes that)
#   --smp N        guest CPUs (default 2)    --mem MB   guest memory (default 2048)
#   --env NAME=VALUE   set in COMMAND's environment (repeatable)
#   --out DIR      a host directory the guest can write, mounted at the same
#                  path (default: a fresh build/kernels/run/ID.PID, removed
#                  after unless the guest wrote in it); $SUITE_OUT names it
#   -q             print nothing of the console but the verdict
#   -v             print the whole console (default: COMMAND's part of it)
#   --allow REGEX  kernel lines matching REGEX are not complaints
#
# Exit status: COMMAND's; 124 if it did not finish in time; 125 if the
# guest did not get to run it or say its status (boot failure); 126 if
# COMMAND succeeded but the kernel complained (a warning, BUG:, soft/hard
# lockup, Oops, WARNING:, Call Trace, RCU stall...): those lines are printed.
# The last lines printed on stderr are always "kernel ...: boot N s, total
# N s, exit N" and the log's path.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
ROOT=$(cd "$HERE/../.." && pwd)

usage() { sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

[ $# -ge 1 ] || usage
ID=$1; shift
case "$ID" in -h|--help) usage ;; esac
kmx_valid_id "$ID" || kmx_die "unknown kernel id '$ID' (known: $KERNEL_IDS_ALL)"
ACCEL="tcg,thread=single"
TIMEOUT=900
LOG=""
SMP=2
MEM=2048
OUT=""
VERB=1
ALLOW=${KERNEL_ALLOW:-}
ENVS=()
while [ $# -gt 0 ]; do
	case "$1" in
	--mttcg) ACCEL="tcg,thread=multi" ;;
	--timeout) TIMEOUT=$2; shift ;;
	--log) LOG=$2; shift ;;
	--smp) SMP=$2; shift ;;
	--mem) MEM=$2; shift ;;
	--out) OUT=$2; shift ;;
	--env) ENVS+=("$2"); shift ;;
	--allow) ALLOW=$2; shift ;;
	-q) VERB=0 ;;
	-v) VERB=2 ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) kmx_die "unknown option '$1' (the command comes after --)" ;;
	esac
	shift
done
[ $# -gt 0 ] || kmx_die "no command (boot.sh $ID [options] -- COMMAND...)"
case "$TIMEOUT" in ''|*[!0-9]*) kmx_die "--timeout wants seconds" ;; esac

command -v qemu-system-x86_64 >/dev/null || kmx_die "qemu-system-x86_64 is needed (apt-get install qemu-system-x86)"
kmx_complete "$ID" || "$HERE/fetch.sh" "$ID" >/dev/null || exit 125
"$HERE/initramfs.sh" "$ID" || exit 125
KDIR=$(kmx_dir "$ID")

mkdir -p "$ROOT/build/kernels/run"
if [ -z "$LOG" ]; then
	# boot-ID.log, or boot-ID.PID.log while another boot of ID writes it
	LOG=$ROOT/build/kernels/boot-$ID.log
	exec 8>>"$LOG.lock"
	flock -n 8 || LOG=$ROOT/build/kernels/boot-$ID.$$.log
fi
mkdir -p "$(dirname "$LOG")"
LOG=$(cd "$(dirname "$LOG")" && pwd)/$(basename "$LOG")
own_out=""
if [ -z "$OUT" ]; then
	OUT=$ROOT/build/kernels/run/$ID.$$
	rm -rf "$OUT"; own_out=1
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
case "$OUT$ROOT" in *[[:space:]]*) kmx_die "paths with white space cannot go on the kernel command line: $OUT" ;; esac
case "$PWD" in /tmp|/tmp/*|/run|/run/*|/var/tmp|/var/tmp/*)
	kmx_log "warning: $PWD is hidden in the guest (fresh tmpfs there); the command starts in /" ;;
esac

# the command file, read by the guest's runner from the host's filesystem
CMD=$OUT/.suite-cmd.sh
{
	echo "# written by scripts/kernels/boot.sh"
	printf 'export ROOT=%q SUITE_KERNEL=%q SUITE_OUT=%q\n' "$ROOT" "$ID" "$OUT"
	for e in "${ENVS[@]+"${ENVS[@]}"}"; do
		case "$e" in *=*) printf 'export %s=%q\n' "${e%%=*}" "${e#*=}" ;; *) kmx_die "--env wants NAME=VALUE" ;; esac
	done
	printf 'cd %q 2>/dev/null || cd /\n' "$PWD"
	printf '%q ' "$@"; echo
} >"$CMD"

APPEND="console=ttyS0,115200 panic=-1 printk.time=1 suite.cmd=$CMD suite.out=$OUT suite.root=$ROOT suite.hostname=k${ID//./}"
QEMU=(qemu-system-x86_64 -accel "$ACCEL" -smp "$SMP" -m "$MEM"
	-cpu "${KERNEL_QEMU_CPU:-max}"
	-nographic -nodefaults -no-user-config -serial stdio -monitor none -no-reboot
	-kernel "$KDIR/vmlinuz" -initrd "$KDIR/initramfs.cpio.gz" -append "$APPEND"
	-virtfs "local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$OUT,mount_tag=out,security_model=none,multidevs=remap"
	# the checkout on its own too: under /tmp (where CI may clone it) the
	# guest's fresh /tmp would hide it
	-virtfs "local,path=$ROOT,mount_tag=checkout,security_model=none,readonly=on,multidevs=remap"
	-device virtio-rng-pci)

: >"$LOG"
T0=${EPOCHREALTIME/./}
MARK=$OUT/.suite-start
rm -f "$MARK"
# the console, \r stripped, into the log; the command's part on stdout
timeout -k 5 "$TIMEOUT" "${QEMU[@]}" </dev/null 2>&1 |
	{
		inside=0
		while IFS= read -r line; do
			line=${line%$'\r'}
			printf '%s\n' "$line" >>"$LOG"
			case "$line" in
			SUITE-GUEST-START*) echo "${EPOCHREALTIME/./}" >"$MARK"; inside=1; continue ;;
			SUITE-GUEST-END*) inside=0 ;;
			esac
			if [ "$VERB" = 2 ] || { [ "$VERB" = 1 ] && [ "$inside" = 1 ]; }; then
				printf '%s\n' "$line"
			fi
		done
	}
QRC=${PIPESTATUS[0]}
T1=${EPOCHREALTIME/./}

total=$(( (T1 - T0) / 1000 ))
boot=-1
[ -s "$MARK" ] && boot=$(( ($(cat "$MARK") - T0) / 1000 ))
ms() { [ "$1" -lt 0 ] && { echo "-"; return; }; printf '%d.%01d' $(($1 / 1000)) $(($1 % 1000 / 100)); }

rc=$(sed -n 's/^.*SUITE-GUEST-EXIT=\([0-9]*\).*$/\1/p' "$LOG" | tail -1)
why=""
if [ "$QRC" = 124 ] || [ "$QRC" = 137 ]; then
	why="timed out after $TIMEOUT s"
	status=124
elif [ -z "$rc" ]; then
	why="the guest did not say its command's status (qemu exit $QRC)"
	status=125
elif grep -q 'SUITE-INIT-FAILED' "$LOG"; then
	why=$(grep -m1 -o 'SUITE-INIT-FAILED.*' "$LOG")
	status=125
else
	status=$rc
fi

# the kernel's complaints: printk lines ("[   12.345678] ...") only, so the
# command's own output cannot match
BAD='WARNING:|BUG:|[Ss]oft lockup|hard LOCKUP|Oops|Call Trace|cut here|self-detected stall|rcu: INFO|rcu_sched detected stall|rcu_preempt detected stall|detected stalls on CPUs|general protection fault|Kernel panic|kernel BUG|blocked for more than [0-9]+ seconds|UBSAN:|KASAN:|list_(add|del) corruption|refcount_t:|unable to handle|Unable to handle|double fault|Watchdog detected|Warning: unable to open an initial console'
complaints=$(grep -E '\[ *[0-9]+\.[0-9]+\]' "$LOG" | grep -E "$BAD" || true)
if [ -n "$complaints" ] && [ -n "$ALLOW" ]; then
	complaints=$(printf '%s\n' "$complaints" | grep -Ev "$ALLOW" || true)
fi
if [ -n "$complaints" ]; then
	echo "boot.sh: the kernel complained ($ID):" >&2
	printf '%s\n' "$complaints" | head -40 | sed 's/^/  /' >&2
	[ "$status" = 0 ] && status=126
	why="${why:+$why; }the kernel complained"
fi
if [ "$status" = 125 ] || [ "$status" = 124 ]; then
	echo "boot.sh: $why; the console's last lines:" >&2
	tail -25 "$LOG" | sed 's/^/  /' >&2
fi

if [ -n "$own_out" ] && [ -z "$(find "$OUT" -mindepth 1 -maxdepth 1 ! -name .suite-cmd.sh ! -name .suite-start)" ]; then
	rm -rf "$OUT"
fi
kver=$(cat "$KDIR/kver")
echo "boot.sh: kernel $ID ($kver, ${ACCEL#tcg,}): boot $(ms "$boot") s, total $(ms "$total") s, exit $status${why:+ ($why)}" >&2
echo "boot.sh: console log: $LOG" >&2
exit "$status"
