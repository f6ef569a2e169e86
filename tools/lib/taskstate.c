// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "taskstate.h"
#include "common.h"
#include "opts.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#define PF_KTHREAD 0x00200000

void proc_pids(struct id_list *out)
{
	DIR *dir = opendir("/proc");
	struct dirent *d;

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		char *end;
		unsigned long pid = strtoul(d->d_name, &end, 10);

		if (isdigit((unsigned char)d->d_name[0]) && !*end && pid &&
		    pid <= UINT32_MAX)
			id_list_add(out, (uint32_t)pid);
	}
	closedir(dir);
}

bool task_is_kthread(uint32_t pid, uint32_t tid)
{
	char path[96], buf[1024], *p;
	unsigned long flags = 0;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/stat", pid, tid);
	if (read_small_file(path, buf, sizeof(buf)) <= 0)
		return true;
	p = strrchr(buf, ')');
	/* after the comm: state ppid pgrp session tty_nr tpgid flags */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return flags & PF_KTHREAD;
}

long task_syscall_now(uint32_t pid, uint32_t tid)
{
	char path[96], buf[512];

	/* kernel threads show "0 0x0 ..." there, as if in read() */
	if (task_is_kthread(pid, tid))
		return -2;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/syscall", pid, tid);
	if (read_small_file(path, buf, sizeof(buf)) <= 0)
		return -2;
	/* "running", "-1 sp pc" (in none) or "NR arg1 ... arg6 sp pc" */
	return isdigit((unsigned char)buf[0]) ? strtol(buf, NULL, 10) : -1;
}
