/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What schedsilence reads from the machine besides its BPF events: the
 * isolation configuration (isolcpus, nohz_full, rcu_nocbs, IRQ affinity,
 * the workqueue cpumask), /proc/interrupts snapshots, the context-switch
 * counters of threads, and the fix it names for each intruder.  Parsers
 * take text, so the unit tests feed them without touching /proc. */
#ifndef SUITE_SILENCE_ENV_H
#define SUITE_SILENCE_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cpulist.h"
#include "opts.h"
#include "model.h"
#include "isolation.h"

/* voluntary/nonvoluntary_ctxt_switches of a thread; -1 when gone */
int thread_ctxt_switches(uint32_t tid, uint64_t *vol, uint64_t *nonvol);
/* Threads (tids) whose comm is one of comms, from /proc/PID/task */
void threads_by_comm(const char (*comms)[SILENCE_COMM_LEN], size_t n, struct id_list *out);

/* The allowed threads (by tid and by comm) and their context switches
 * over the window: allowed_begin() at its start, allowed_end() at its end */
struct allowed_thread {
	uint32_t tid;
	char comm[SILENCE_COMM_LEN];
	uint64_t vol0, nonvol0, vol1, nonvol1;
	bool gone;		/* exited during the window */
};

struct allowed {
	struct allowed_thread *t;
	size_t n;
};

void allowed_begin(struct allowed *a, const struct silence_cfg *cfg);
void allowed_end(struct allowed *a);
void allowed_free(struct allowed *a);

/* The fix for one intruder on this machine, in one or two sentences */
void silence_fix(const struct intruder *r, const struct sys_config *c,
		 const struct cpu_list *watched, char *buf, size_t size);
#endif
