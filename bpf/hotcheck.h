/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* hotcheck: the records its BPF half streams, one per event of the hot
 * threads and of their CPUs, each sent once it is whole (an interval when
 * it ends).  BPF: bpf/hotcheck.bpf.c; user space: tools/hotcheck/collect.c. */
#ifndef HOTCHECK_H
#define HOTCHECK_H

#define TASK_COMM_LEN 16
#define HC_NAME_LEN 32
#define HC_SYSCALLS 512		/* syscall numbers with a histogram */

enum hc_rec_type {
	HCR_SYSCALL = 1,	/* nr, aux: return value; ts: entry, dur */
	HCR_FAULT,		/* nr: 1 major, 0 minor; aux: address */
	HCR_BLOCK,		/* off CPU voluntarily: nr: the syscall in flight (-1: none),
				 * the waker in actor, wustack/wkstack */
	HCR_PREEMPT,		/* off CPU while runnable: actor took the CPU */
	HCR_MIGRATE,		/* nr: the CPU it moved to, aux: the one it left */
	HCR_SIGNAL,		/* nr: signal, actor: the sender */
	HCR_TASK,		/* another task ran on a hot CPU: actor, dur */
	HCR_IRQ,		/* a hard IRQ on a hot CPU: nr, actor: its action name */
	HCR_SOFTIRQ,		/* nr: the vector */
	HCR_TIMER,		/* an hrtimer callback: aux: its function */
	HCR_VECTOR,		/* an x86 vector (IPI, local timer): nr: enum hc_vector */
	/* marks of a hot thread's time on its CPU (not events: counted in
	 * no check; --trace's running slices, tools/hotcheck/trace.c) */
	HCR_ONCPU,		/* its first switch-in seen, off CPU since before tracing */
	HCR_EXIT,		/* it left its CPU for good: it exited */
	HCR_TYPES,
};

enum hc_vector {
	HCV_LOCAL_TIMER,
	HCV_RESCHEDULE,
	HCV_CALL_FUNCTION,
	HCV_CALL_FUNCTION_SINGLE,
	HCV_IRQ_WORK,
	HCV_KINDS,
};

#define HCR_F_EARLY	0x1	/* syscall: entered before tracing began (dur unknown) */
#define HCR_F_KTHREAD	0x2	/* actor is a kernel thread */
#define HCR_F_NORETURN	0x4	/* syscall: exit, exit_group */
#define HCR_F_COUNTED	0x8	/* syscall: counted in the kernel (map sys_agg), sent
				 * for the timeline only */
#define HCR_F_RUNNABLE	0x10	/* task: left the CPU runnable (preempted, or yielded):
				 * its next stay resumes it, not a new arrival */

struct hc_rec {
	__u32 type;		/* enum hc_rec_type */
	__u32 tid;		/* the hot thread (0: CPU-level) */
	__u32 pid;		/* its process */
	__s32 cpu;
	__u64 ts;		/* bpf_ktime_get_ns(): start */
	__u64 dur;
	__u64 ustack, kstack;	/* the hot thread's (bpf/stackeng.h ids or marks) */
	__u64 wustack, wkstack;	/* block: the waker's; signal: the sender's */
	__u64 image;		/* the hot process's image (bpf/announce.h) */
	__u64 wimage;		/* the waker's */
	__s64 nr;
	__s64 aux;
	__u32 actor_tid, actor_pid;
	__u32 actor_ctx;	/* enum irqctx of the waker or sender */
	__u32 flags;		/* HCR_F_* */
	char comm[TASK_COMM_LEN];	/* the hot thread's */
	char actor[HC_NAME_LEN];	/* waker, taker, sender, intruder, IRQ action */
};

/* A hot thread off its CPU (map tstates, by tid): the record to send
 * when it comes back; rec.ts 0: on its CPU.  User space reads the
 * intervals still open when the window ends. */
struct hc_tstate {
	__u64 rq_ts;		/* the run queue's clock at switch-out */
	__u64 arrivals;		/* its arrivals then */
	__u32 woken;		/* the waker is in rec */
	__u32 pad;
	struct hc_rec rec;	/* ts 0: not off CPU */
};

/* The hot threads' syscalls in the window, counted in the kernel by
 * identity (per-CPU hash maps sys_agg_a/_b, drained while tracing,
 * bpf/agg.bpf.h): what user space's identity of an HCR_SYSCALL record
 * keeps (tools/hotcheck/collect.c).  Only the first --max-events of them
 * are also sent as records, for the timeline. */
#define HC_SYS_AGG_ENTRIES 4096

struct hc_sys_key {
	__u64 ustack;
	__u64 image;
	__s64 nr;
	__u32 pid;
	__u32 pad;
	char comm[TASK_COMM_LEN];
};

struct hc_sys_val {
	__u64 count;
	__u64 time_ns;		/* the calls seen whole */
	__u64 tid;		/* the first hot thread seen (0: none yet) */
};

/* Stolen time (bpf/steal.bpf.h): each time an event on a hot CPU (the
 * tick, an interrupt, a switch) finds more stolen than the event before
 * it on that CPU, one step in map steal_steps, the first HC_STEAL_STEPS
 * of the window (steal_steps_n counts them all) */
#define HC_STEAL_STEPS 4096

struct hc_steal_step {
	__u64 from_ts;		/* the earlier reading (bpf_ktime_get_ns) */
	__u64 to_ts;		/* the later one */
	__u64 stolen;		/* ns stolen between them */
	__u32 cpu;
	__u32 pad;
};

/* Counters (map stats, per CPU) */
enum hc_stat {
	HCS_WARMUP_FAULTS,	/* faults of the hot threads in the warm-up */
	HCS_SYSCALL_RANGE,	/* syscalls numbered beyond HC_SYSCALLS: no histogram */
	HCS_SYS_UNSENT,		/* syscalls counted in sys_agg, not sent (timeline) */
	HCS_SYS_OUTSIDE,	/* syscalls begun after the window's end: not counted */
	HCS_KINDS,
};

#endif
