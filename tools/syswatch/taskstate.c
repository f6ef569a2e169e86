// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "taskstate.h"
#include "procfs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PF_KTHREAD 0x00200000

bool task_is_kthread(uint32_t pid, uint32_t tid)
{
	char buf[1024], *p;
	unsigned long flags = 0;

	if (proc_read(buf, sizeof(buf), "/proc/%u/task/%u/stat", pid, tid) <= 0)
		return true;
	p = strrchr(buf, ')');
	/* after the comm: state ppid pgrp session tty_nr tpgid flags */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return flags & PF_KTHREAD;
}

long task_syscall_now(uint32_t pid, uint32_t tid)
{
	char buf[512];

	/* kernel threads show "0 0x0 ..." there, as if in read() */
	if (task_is_kthread(pid, tid))
		return -2;
	if (proc_read(buf, sizeof(buf), "/proc/%u/task/%u/syscall", pid, tid) <= 0)
		return -2;
	/* "running", "-1 sp pc" (in none) or "NR arg1 ... arg6 sp pc" */
	return isdigit((unsigned char)buf[0]) ? strtol(buf, NULL, 10) : -1;
}
