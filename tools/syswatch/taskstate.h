/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What /proc says about processes and threads right now. */
#ifndef SUITE_TASKSTATE_H
#define SUITE_TASKSTATE_H

#include <stdbool.h>
#include <stdint.h>

/* PF_KTHREAD, from /proc/PID/task/TID/stat (a gone thread counts as one:
 * there is nothing to say about it either way) */
bool task_is_kthread(uint32_t pid, uint32_t tid);
/* The syscall the thread sits in, from /proc/PID/task/TID/syscall: its
 * number; -1 when it is in none or is running (/proc cannot tell then);
 * -2 when the thread is gone, a kernel thread, or unreadable */
long task_syscall_now(uint32_t pid, uint32_t tid);

#endif
