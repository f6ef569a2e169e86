/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Tasks as identities, not numbers: the kernel gives a PID or TID to a new
 * task once the old one is gone, so a target is its number plus the time
 * it started (and, for a thread, its process), read from /proc when the
 * tool starts and compared again wherever the number is met. */
#ifndef SUITE_TASKID_H
#define SUITE_TASKID_H

#include <stdbool.h>
#include <stdint.h>

struct task_id {
	uint32_t tgid;		/* its process when it was read */
	uint64_t start;		/* start time, clock ticks after boot
				 * (/proc/ID/stat field 22) */
	bool process;		/* a process (task_id_read_process()) */
};

/* The thread-group id of a thread, 0 if gone */
uint32_t tid_tgid(uint32_t tid);
/* The identity of task ID now; -1 if there is none (or only a zombie) */
int task_id_read(uint32_t id, struct task_id *out);
/* The same for process ID: its first thread may have ended alone (a
 * zombie) while other threads of it run, and the process lives */
int task_id_read_process(uint32_t id, struct task_id *out);
/* Is ID still the task read into *t: alive (not a zombie; a process:
 * with a thread that is not) and started at the same time?  A reused
 * number is gone. */
bool task_id_alive(uint32_t id, const struct task_id *t);
/* The start time as the kernel keeps it (task->start_boottime, ns) lies
 * in [*lo, *hi): /proc shows it rounded down to a clock tick */
void task_id_start_ns(const struct task_id *t, uint64_t *lo, uint64_t *hi);

/* Parsing /proc/ID/stat (buf NUL-terminated): the state letter and the
 * start time; -1 if it does not parse */
int task_stat_parse(const char *buf, char *state, uint64_t *start);

#endif
