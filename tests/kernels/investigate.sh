#!/bin/bash
# tests/kernels/investigate.sh [options] KERNEL_ID...
# Are the kernel complaints seen under QEMU's multi-threaded TCG (a soft
# lockup in schedsilence on 6.1, "Oops: int3" in __schedule on 6.12 as
# wakers attached) the emulator's or the suite's?  Boots each kernel N times
# per sequence (scripts/kernels/boot.sh, one guest at a time), alternating
# the sequences boot by boot, and tallies how each boot ended.
#
# Sequences (run inside the guest, ROUNDS times each, on a small workload:
# build/workloads/offcpu_blocker blocking every 5 ms):
#   suite  the suite's tools attach and detach in turn: offcputime -d 1,
#          syswatch -d 1, pfwatch -d 1, wakers -d 1, hotcheck -t 1 -d 1,
#          schedsilence -C 1 -d 2
#   peers  the same tracepoint churn by other tools: bpftrace one-liners
#          (1 s each) on the tracepoints each of the suite's tools uses
#          (sched_switch; raw_syscalls sys_enter/exit; sched_waking,
#          irq/softirq entry/exit; hrtimer_expire_entry/exit; and the
#          rest hotcheck and schedsilence attach: irq_vectors, workqueue,
#          ipi, tick_stop, sched_migrate_task, sched_wakeup,
#          signal_generate -- the ones this kernel has), then libbpf-tools
#          offcputime, runqlat and syscount for 1 s each
#
# Options:
#   -m MODES     mttcg, single or "mttcg single" (default mttcg)
#   -s SEQS      suite, peers or "suite peers" (default both, alternating)
#   -n N         boots per kernel, mode and sequence (default 4)
#   -r ROUNDS    rounds of the sequence in one boot (default 3)
#   --timeout S  boot.sh's timeout per boot (default 300)
#   -o FILE      append the per-boot lines to FILE too (default
#                build/kernels/investigate/results.txt)
#   --tally      classify again every boot's log kept in
#                build/kernels/investigate/ and print the lines and table
#   --pokes      also count the kernel's code patching during the sequence
#                (ftrace's function tracer on the text_poke/jump label/static
#                call functions this kernel has; "INV pokes" lines in the
#                log); a diagnostic, it adds patching of its own at the start
#
# Per boot one line on stdout:
#   BOOT kernel=ID mode=M seq=S n=I result=R rc=N secs=T log=FILE | first line
# with R one of clean, warned, lockup, oops, timeout, cmdfail (a command
# of the sequence failed, the kernel said nothing), noboot, killed (QEMU
# or boot.sh killed by something else: not counted); a boot that
# both complained and timed out is counted by its complaint (lockup...)
# and says "+timeout"; a boot whose only complaint is init's panic at
# power-off, after the sequence said its status, is clean (noted).  Then a table: kernel x mode x sequence.
# Console logs: build/kernels/investigate/ID.MODE.SEQ.STAMP.I.log; the
# oops/lockup details (RIP, first call-trace frames) in ....detail.
#
# Inside the guest (boot.sh runs it so): investigate.sh --guest SEQ ROUNDS
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${ROOT:-$(cd "$HERE/../.." && pwd)}

# ---------------------------------------------------------------- guest --
guest_tps() {	# the tracepoints of "cat:name ..." this kernel has
	local t
	for t in "$@"; do
		[ -d "$TRACEFS/events/${t%%:*}/${t#*:}" ] && printf 'tracepoint:%s,' "$t"
	done
}

guest_run() {	# LABEL CMD...: runs CMD (60 s at most), one line on the console
	local label=$1 t0 t1 rc err=/tmp/inv.err
	shift
	t0=${EPOCHREALTIME/./}
	timeout -k 5 60 "$@" >/dev/null 2>"$err"
	rc=$?
	t1=${EPOCHREALTIME/./}
	echo "INV r=$ROUND $label rc=$rc $(( (t1 - t0) / 1000 )) ms"
	case "$label:$rc" in
	*:0) ;;
	schedsilence:1|hotcheck:1) ;;	# "not silent": their normal answer here
	*) FAILS=$((FAILS + 1)); tail -3 "$err" | sed 's/^/INV   /' ;;
	esac
}

# --pokes: the function tracer on the code-patching functions
POKE_FNS="text_poke_bp_batch text_poke_bp text_poke_queue text_poke_finish smp_text_poke_batch_finish smp_text_poke_single arch_jump_label_transform_queue arch_jump_label_transform_apply arch_jump_label_transform __static_call_transform arch_static_call_transform text_poke_sync"
pokes_start() {
	local f have=""
	for f in $POKE_FNS; do
		grep -qx "$f" $TRACEFS/available_filter_functions 2>/dev/null && have="$have $f"
	done
	echo "INV pokes: tracing$have"
	[ -n "$have" ] || return 0
	echo 16384 >$TRACEFS/buffer_size_kb
	echo "$have" >$TRACEFS/set_ftrace_filter
	echo function >$TRACEFS/current_tracer
	echo >$TRACEFS/trace
}
pokes_stop() {
	[ "$(cat $TRACEFS/current_tracer)" = function ] || return 0
	echo nop >$TRACEFS/current_tracer
	awk '!/^#/ { for (i = 1; i <= NF; i++) if ($i ~ /^[A-Za-z0-9_.]+$/ && $(i+1) ~ /^<-/) { n[$i]++; break } }
		END { for (f in n) printf "INV pokes: %s %d\n", f, n[f] }' $TRACEFS/trace | sort
	grep -m1 -i 'entries-in-buffer' $TRACEFS/trace | sed 's/^#/INV pokes:/'
}

guest_main() {
	local seq=$1 rounds=$2 wl prog tps
	cd "$ROOT" || exit 1
	TRACEFS=/sys/kernel/tracing
	[ -d $TRACEFS/events ] || mount -t tracefs tracefs $TRACEFS 2>/dev/null
	[ -d $TRACEFS/events ] || TRACEFS=/sys/kernel/debug/tracing
	echo "INV kernel $(uname -r) ($(uname -v)), $(nproc) CPUs, seq $seq, $rounds rounds"
	FAILS=0
	[ -n "${INV_POKES:-}" ] && pokes_start
	"$ROOT/build/workloads/offcpu_blocker" 100000000 5 0 >/dev/null 2>&1 &
	wl=$!
	# bpftrace's programs, one per suite tool's set of tracepoints
	local tp_oc tp_sw tp_wk tp_hc tp_ss
	tp_oc=$(guest_tps sched:sched_switch)
	tp_sw=$(guest_tps raw_syscalls:sys_enter raw_syscalls:sys_exit)
	tp_wk=$(guest_tps sched:sched_waking sched:sched_switch signal:signal_generate \
		irq:irq_handler_entry irq:irq_handler_exit irq:softirq_entry irq:softirq_exit)
	tp_hc=$(guest_tps raw_syscalls:sys_enter raw_syscalls:sys_exit sched:sched_switch \
		sched:sched_waking sched:sched_migrate_task signal:signal_generate \
		irq:irq_handler_entry irq:irq_handler_exit irq:softirq_entry irq:softirq_exit \
		timer:hrtimer_expire_entry timer:hrtimer_expire_exit \
		irq_vectors:local_timer_entry irq_vectors:local_timer_exit \
		irq_vectors:reschedule_entry irq_vectors:reschedule_exit \
		irq_vectors:call_function_entry irq_vectors:call_function_exit \
		irq_vectors:call_function_single_entry irq_vectors:call_function_single_exit \
		irq_vectors:irq_work_entry irq_vectors:irq_work_exit)
	tp_ss=$(guest_tps sched:sched_switch sched:sched_wakeup sched:sched_migrate_task \
		irq:irq_handler_entry irq:irq_handler_exit irq:softirq_entry irq:softirq_exit \
		timer:hrtimer_expire_entry timer:hrtimer_expire_exit \
		workqueue:workqueue_execute_start workqueue:workqueue_execute_end \
		irq_vectors:local_timer_entry irq_vectors:local_timer_exit \
		irq_vectors:reschedule_entry irq_vectors:reschedule_exit \
		irq_vectors:call_function_entry irq_vectors:call_function_exit \
		irq_vectors:call_function_single_entry irq_vectors:call_function_single_exit \
		irq_vectors:irq_work_entry irq_vectors:irq_work_exit \
		irq_vectors:x86_platform_ipi_entry irq_vectors:x86_platform_ipi_exit \
		irq_vectors:error_apic_entry irq_vectors:error_apic_exit \
		irq_vectors:spurious_apic_entry irq_vectors:spurious_apic_exit \
		irq_vectors:thermal_apic_entry irq_vectors:thermal_apic_exit \
		irq_vectors:deferred_error_apic_entry irq_vectors:deferred_error_apic_exit \
		irq_vectors:threshold_apic_entry irq_vectors:threshold_apic_exit \
		ipi:ipi_send_cpu ipi:ipi_send_cpumask timer:tick_stop)
	for ROUND in $(seq 1 "$rounds"); do
		case "$seq" in
		suite)
			guest_run offcputime ./offcputime -d 1
			guest_run syswatch ./syswatch -d 1
			guest_run pfwatch ./pfwatch -d 1
			guest_run wakers ./wakers -d 1
			guest_run hotcheck ./hotcheck -t 1 -d 1
			guest_run schedsilence ./schedsilence -C 1 -d 2
			;;
		peers)
			for prog in oc:"$tp_oc" sw:"$tp_sw" wk:"$tp_wk" hc:"$tp_hc" ss:"$tp_ss"; do
				tps=${prog#*:}
				guest_run "bpftrace-${prog%%:*}" bpftrace -e "${tps%,} { @[cpu] = count(); } interval:s:1 { exit(); }"
			done
			guest_run libbpf-offcputime /usr/sbin/offcputime 1
			guest_run libbpf-runqlat /usr/sbin/runqlat 1 1
			guest_run libbpf-syscount /usr/sbin/syscount -d 1
			;;
		*) echo "INV unknown sequence $seq"; exit 2 ;;
		esac
	done
	kill "$wl" 2>/dev/null
	wait "$wl" 2>/dev/null
	[ -n "${INV_POKES:-}" ] && pokes_stop
	echo "INV done: $FAILS commands failed"
	[ "$FAILS" -eq 0 ]
}

if [ "${1:-}" = --guest ]; then
	guest_main "${2:?sequence}" "${3:-3}"
	exit
fi

# ----------------------------------------------------------------- host --
usage() { sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
MODES="mttcg"
SEQS="suite peers"
N=4
ROUNDS=3
TIMEOUT=300
OUTD=$ROOT/build/kernels/investigate
RESULTS=$OUTD/results.txt
KERNELS=()
POKES=""
TALLY_ONLY=""
while [ $# -gt 0 ]; do
	case "$1" in
	-m) MODES=$2; shift ;;
	-s) SEQS=$2; shift ;;
	-n) N=$2; shift ;;
	-r) ROUNDS=$2; shift ;;
	--timeout) TIMEOUT=$2; shift ;;
	-o) RESULTS=$2; shift ;;
	--pokes) POKES=1 ;;
	--tally) TALLY_ONLY=1 ;;
	-h|--help) usage ;;
	-*) echo "$0: unknown option $1" >&2; usage ;;
	*) KERNELS+=("$1") ;;
	esac
	shift
done
[ ${#KERNELS[@]} -gt 0 ] || [ -n "$TALLY_ONLY" ] || usage
for m in $MODES; do case "$m" in mttcg|single) ;; *) echo "$0: mode mttcg or single" >&2; exit 2 ;; esac; done
for s in $SEQS; do case "$s" in suite|peers) ;; *) echo "$0: sequence suite or peers" >&2; exit 2 ;; esac; done
mkdir -p "$OUTD"
STAMP=$(date +%Y%m%d-%H%M%S)
TALLY=$(mktemp)
trap 'rm -f "$TALLY"' EXIT

# boot.sh's list of complaints, on printk lines only
BAD='WARNING:|BUG:|[Ss]oft lockup|hard LOCKUP|Oops|Call Trace|cut here|self-detected stall|rcu: INFO|rcu_sched detected stall|rcu_preempt detected stall|detected stalls on CPUs|general protection fault|Kernel panic|kernel BUG|blocked for more than [0-9]+ seconds|UBSAN:|KASAN:|list_(add|del) corruption|refcount_t:|unable to handle|Unable to handle|double fault|Watchdog detected|invalid opcode:|^\[ *[0-9.]+\] [a-z0-9 ]+: [0-9a-f]{4} \[#[0-9]+\]'
PRINTK='^\[ *[0-9]+\.[0-9]+\]'

# boot_rc LOG RC: boot.sh's status, from its verdict line in LOG's .err
# (RC if none); when boot.sh itself did not finish (killed, or edited
# under us), from the console: the guest's SUITE-GUEST-EXIT, 124 if our
# timeout ended QEMU, else "killed"
boot_rc() {
	local log=$1 rc=$2 v
	v=$(sed -n 's/^boot.sh: kernel .*, exit \([0-9]*\).*$/\1/p' "${log%.log}.err" 2>/dev/null | tail -1)
	if [ -n "$v" ]; then echo "$v"; return; fi
	v=$(sed -n 's/^.*SUITE-GUEST-EXIT=\([0-9]*\).*$/\1/p' "$log" 2>/dev/null | tail -1)
	if [ -n "$v" ]; then echo "$v"
	elif grep -q 'terminating on signal 15 from pid [0-9]* (timeout)' "$log" 2>/dev/null; then echo 124
	elif [ -z "$rc" ] || grep -q 'terminating on signal' "$log" 2>/dev/null || [ ! -s "$log" ]; then echo killed
	else echo "$rc"
	fi
}

# classify LOG RC: sets RESULT and FIRST; writes LOG's .detail
classify() {
	local log=$1 rc=$2 complaints after
	complaints=$(grep -E "$PRINTK" "$log" | grep -E "$BAD" || true)
	# init (the guest's runner) dying as the guest powers off, after the
	# command said its status ("sleep: Input/output error" from 9p going
	# away): the harness's shutdown, not the sequence; counted clean
	after=$(sed -n '/SUITE-GUEST-EXIT=/,$p' "$log" | grep -E "$PRINTK" | grep -E "$BAD" || true)
	if [ -n "$after" ] && [ "$complaints" = "$after" ] &&
		grep -q 'Attempted to kill init' <<<"${after%%$'\n'*}" &&
		! grep -Eq 'Oops|BUG:|WARNING:|lockup|stall' <<<"$after"; then
		POWEROFF=" (at power-off, after the command's exit: $(printf '%s\n' "$after" | head -1))"
		complaints=""
	else
		POWEROFF=""
	fi
	FIRST=$(printf '%s\n' "$complaints" | head -1)
	if [ -n "$complaints" ]; then
		if grep -Eq 'Oops|general protection fault|unable to handle|Unable to handle|invalid opcode:|double fault|\] [a-z0-9 ]+: [0-9a-f]{4} \[#[0-9]+\]|kernel BUG' <<<"$complaints"; then
			RESULT=oops
		elif grep -Eq '[Ss]oft lockup|hard LOCKUP|stall|blocked for more than' <<<"$complaints"; then
			RESULT=lockup
		else
			RESULT=warned
		fi
		[ "$rc" = 124 ] && RESULT="$RESULT+timeout"
		{
			echo "# complaints"
			printf '%s\n' "$complaints" | awk '!seen[$0]++' | head -20
			echo "# RIP lines"
			grep -E "$PRINTK" "$log" | grep -E 'RIP: 0010:' | awk '{ $1=""; print }' | sort | uniq -c | sort -rn | head -10
			echo "# the first report"
			grep -E "$PRINTK" "$log" | grep -E -m1 -A40 "$BAD" | head -60
		} >"${log%.log}.detail"
	elif [ "$rc" = 124 ]; then
		RESULT=timeout; FIRST=$(tail -1 "$log")
	elif [ "$rc" = killed ]; then
		RESULT=killed; FIRST="(QEMU or boot.sh killed from outside) $(tail -1 "$log" 2>/dev/null)"
	elif [ "$rc" = 125 ]; then
		RESULT=noboot; FIRST=$(tail -1 "$log")
	elif [ "$rc" = 0 ] || { [ "$rc" = 126 ] && [ -n "$POWEROFF" ]; }; then
		RESULT=clean; FIRST=$POWEROFF
	else
		RESULT=cmdfail; FIRST=$(grep -m1 -E '^INV r=.* rc=' "$log" | grep -Ev 'rc=0 |(schedsilence|hotcheck) rc=1 ' | head -1)
	fi
}

table() {	# the tally file's table
	printf '%-8s %-6s %-6s %6s %6s %6s %6s %8s %8s %7s\n' kernel mode seq clean warned lockup oops timeout cmdfail noboot
	awk '{ k = $1 " " $2 " " $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k } c[k, $4]++ }
		END { for (i = 1; i <= n; i++) { k = order[i]; split(k, f, " ")
			printf "%-8s %-6s %-6s %6d %6d %6d %6d %8d %8d %7d\n", f[1], f[2], f[3],
				c[k, "clean"], c[k, "warned"], c[k, "lockup"], c[k, "oops"], c[k, "timeout"], c[k, "cmdfail"], c[k, "noboot"] } }' "$1"
}

# --tally: classify again every log kept in build/kernels/investigate/
if [ -n "$TALLY_ONLY" ]; then
	for log in $(ls "$OUTD"/*.log 2>/dev/null | sort -V); do
		b=$(basename "$log" .log)
		k=$(echo "$b" | sed -E 's/^([0-9]+\.[0-9]+(-rt)?)\..*/\1/')
		rest=${b#"$k".}; m=${rest%%.*}; rest=${rest#*.}; s=${rest%%.*}
		rc=$(boot_rc "$log" "")
		classify "$log" "$rc"
		kver=$(grep -a -m1 -o 'INV kernel [^ ]*' "$log" | cut -d' ' -f3)
		echo "BOOT kernel=$k kver=${kver:-?} mode=$m seq=$s result=$RESULT rc=$rc log=${log#"$ROOT"/} | ${FIRST:-}"
		echo "$k $m $s ${RESULT%+timeout}" >>"$TALLY"
	done
	echo
	table "$TALLY"
	exit 0
fi

for k in "${KERNELS[@]}"; do
	for m in $MODES; do
		for i in $(seq 1 "$N"); do
			for s in $SEQS; do
				log=$OUTD/$k.$m.$s.$STAMP.$i.log
				opts=(--timeout "$TIMEOUT" -q --log "$log")
				[ "$m" = mttcg ] && opts+=(--mttcg)
				[ -n "$POKES" ] && opts+=(--env INV_POKES=1)
				t0=$(date +%s)
				"$ROOT/scripts/kernels/boot.sh" "$k" "${opts[@]}" -- \
					"$ROOT/tests/kernels/investigate.sh" --guest "$s" "$ROUNDS" \
					>"${log%.log}.out" 2>"${log%.log}.err"
				rc=$(boot_rc "$log" $?)
				secs=$(( $(date +%s) - t0 ))
				classify "$log" "$rc"
				kver=$(grep -a -m1 -o 'INV kernel [^ ]*' "$log" | cut -d' ' -f3)
				line="BOOT kernel=$k kver=${kver:-?} mode=$m seq=$s n=$i result=$RESULT rc=$rc secs=$secs log=${log#"$ROOT"/} | ${FIRST:-}"
				echo "$line"
				echo "$line" >>"$RESULTS"
				echo "$k $m $s ${RESULT%+timeout}" >>"$TALLY"
			done
		done
	done
done

echo
table "$TALLY"
