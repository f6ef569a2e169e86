/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* "A process whose user stacks were recorded": sent once per process (and
 * again after exec) so that user space can capture what it needs to name
 * the frames (stacksym_cache_pid) while the process still lives. */
#ifndef SUITE_ANNOUNCE_H
#define SUITE_ANNOUNCE_H

#define ANNOUNCE_EV_NEW_PROCESS 0x414e	/* "AN" */

struct announce_event {
	__u32 type;	/* ANNOUNCE_EV_NEW_PROCESS */
	__u32 tgid;
	__u64 exec_id;	/* its image: task->self_exec_id, changed by every
			 * exec (copied to the threads it creates) */
};

#endif
