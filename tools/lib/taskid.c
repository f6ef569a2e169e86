// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "taskid.h"
#include "msg.h"
#include "procfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int task_stat_parse(const char *buf, char *state, uint64_t *start)
{
	/* "pid (comm) S ppid ...": the comm may hold ')' and spaces, so
	 * fields are counted from its last ')'; field 3 is the state */
	const char *p = strrchr(buf, ')');
	char *end;
	int field = 3;

	if (!p || p[1] != ' ' || !p[2])
		return -1;
	p += 2;
	*state = *p;
	while (field < 22) {
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
		field++;
	}
	if (*p < '0' || *p > '9')
		return -1;
	*start = strtoull(p, &end, 10);
	return *end == ' ' || *end == '\n' || !*end ? 0 : -1;
}

/* /proc/TGID/task/ID/stat: the thread's own (/proc/ID/stat sums the
 * times of every thread of the process, slow for a big process), and
 * there only while ID is a thread of TGID */
static int read_stat(uint32_t tgid, uint32_t id, char *state, uint64_t *start)
{
	char buf[1024];

	if (proc_read(buf, sizeof(buf), "/proc/%u/task/%u/stat", tgid, id) <= 0)
		return -1;
	return task_stat_parse(buf, state, start);
}

uint32_t tid_tgid(uint32_t id)
{
	char buf[4096];

	if (proc_read(buf, sizeof(buf), "/proc/%u/status", id) <= 0)
		return 0;
	return (uint32_t)status_u64(buf, "Tgid");
}

/* Is task ID of process TGID, in state st, alive?  For a process
 * (process): its first thread that has ended alone (pthread_exit() in
 * main) stays a zombie until the last of its threads exits, and the
 * process lives on while its group counts more threads than that zombie
 * (/proc/TGID/status "Threads" counts it until the group is gone) */
static bool live(uint32_t tgid, uint32_t id, char st, bool process)
{
	char buf[4096];

	if (st == 'X')
		return false;
	if (st != 'Z')
		return true;
	if (!process || id != tgid || proc_read(buf, sizeof(buf), "/proc/%u/status", tgid) <= 0)
		return false;
	return status_u64(buf, "Threads") > 1;
}

static int read_id(uint32_t id, bool process, struct task_id *out)
{
	char st;

	out->process = process;
	out->tgid = tid_tgid(id);
	if (!out->tgid || read_stat(out->tgid, id, &st, &out->start) ||
	    !live(out->tgid, id, st, process))
		return -1;
	return 0;
}

int task_id_read(uint32_t id, struct task_id *out)
{
	return read_id(id, false, out);
}

int task_id_read_process(uint32_t id, struct task_id *out)
{
	return read_id(id, true, out);
}

bool task_id_alive(uint32_t id, const struct task_id *t)
{
	uint64_t start;
	char st;

	if (read_stat(t->tgid, id, &st, &start) || !live(t->tgid, id, st, t->process))
		return false;
	return start == t->start;
}

void task_id_start_ns(const struct task_id *t, uint64_t *lo, uint64_t *hi)
{
	static uint64_t tick_ns;

	if (!tick_ns) {
		long hz = sysconf(_SC_CLK_TCK);

		tick_ns = 1000000000ull / (uint64_t)(hz > 0 ? hz : 100);
	}
	*lo = t->start * tick_ns;
	*hi = *lo + tick_ns;
}
