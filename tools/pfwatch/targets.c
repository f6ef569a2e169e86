// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "targets.h"
#include "msg.h"
#include "clock.h"
#include "opts.h"
#include "procfs.h"
#include "xalloc.h"

#include <stdlib.h>

void targets_init(struct targets *ts, const struct common_opts *o)
{
	size_t n = o->pids.n + o->tids.n;

	ts->t = xcalloc(n, sizeof(*ts->t));
	for (size_t i = 0; i < n; i++) {
		__u32 pid = i < o->pids.n ? o->pids.ids[i]
					  : o->tids.who[i - o->pids.n].tgid;
		bool dup = false;

		for (size_t k = 0; k < ts->n; k++)
			dup |= ts->t[k].pid == pid;
		if (!pid || dup)
			continue;
		ts->t[ts->n].pid = pid;
		task_comm(pid, ts->t[ts->n].comm, sizeof(ts->t[ts->n].comm));
		memlock_read(pid, &ts->t[ts->n].start);
		ts->t[ts->n].last = ts->t[ts->n].start;
		ts->n++;
	}
}

/* VmLck every 250 ms while tracing (cheap), the mappings (smaps walks the
 * page tables, under the target's mmap lock) when VmLck changed, and
 * everything at the end */
void targets_refresh(struct targets *ts, bool final)
{
	__u64 now = now_ns();

	if (!final && now - ts->last_refresh_ns < 250000000ull)
		return;
	ts->last_refresh_ns = now;
	for (size_t i = 0; i < ts->n; i++) {
		struct target *t = &ts->t[i];
		struct memlock m = t->last;

		if (t->ended)
			continue;
		if (!pid_alive(t->pid) || !memlock_read_status(t->pid, &m)) {
			t->ended = true;
			continue;
		}
		if ((final || m.vmlck_kb != t->last.vmlck_kb) && !memlock_read(t->pid, &m)) {
			t->ended = true;
			continue;
		}
		t->last = m;
	}
}

void targets_free(struct targets *ts)
{
	free(ts->t);
	ts->t = NULL;
	ts->n = 0;
}
