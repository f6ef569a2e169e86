#!/bin/sh
# tests/kernels/ftrace-churn.sh: the control of the emulator question
# (docs/KERNELS.md, "The emulator"): no BPF at all, the tracepoints the
# suite uses switched on and off through ftrace's event files, 40 times,
# while a workload blocks every 5 ms.  Each switch patches the kernel's
# code at every call site of the tracepoint, as attaching a BPF program
# does.  Run it in a guest:
#   scripts/kernels/boot.sh 6.12 --mttcg -- tests/kernels/ftrace-churn.sh
ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
cd /sys/kernel/tracing || exit 1
"$ROOT/build/workloads/offcpu_blocker" 100000 5 0 >/dev/null 2>&1 &
ev="sched/sched_switch sched/sched_waking sched/sched_wakeup sched/sched_migrate_task
raw_syscalls irq timer/hrtimer_expire_entry timer/hrtimer_expire_exit irq_vectors
workqueue/workqueue_execute_start workqueue/workqueue_execute_end signal/signal_generate"
for i in $(seq 1 40); do
	for e in $ev; do [ -e "events/$e/enable" ] && echo 1 >"events/$e/enable"; done
	sleep 0.3
	for e in $ev; do [ -e "events/$e/enable" ] && echo 0 >"events/$e/enable"; done
	: >trace
done
echo "ftrace churn: 40 rounds done"
