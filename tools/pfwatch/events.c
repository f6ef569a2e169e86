// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "events.h"
#include "kfeat.h"
#include "msg.h"
#include "clock.h"
#include "perfev.h"
#include "procfs.h"

#include <errno.h>
#include <string.h>

enum { TAG_MAJOR, TAG_MINOR };

/* The two events of thread tid, which then has its own (a thread gone
 * meanwhile is no error) */
static int open_thread(struct fault_events *fe, __u32 tid, bool inherit)
{
	struct perf_event_attr a;
	int err;

	perfev_fault_attr(&a, true, inherit);
	err = perfev_open_thread(fe->pev, &a, tid, fe->major, TAG_MAJOR, tid);
	if (!err) {
		perfev_fault_attr(&a, false, inherit);
		err = perfev_open_thread(fe->pev, &a, tid, fe->minor, TAG_MINOR, tid);
	}
	id_list_add(&fe->done, tid);
	return err == -ESRCH ? 0 : err;
}

size_t fault_events_threads(const struct common_opts *o)
{
	struct id_list none = { 0 }, all = { 0 };
	size_t n;

	for (size_t i = 0; i < o->pids.n; i++)
		id_list_add_threads(o->pids.ids[i], &none, &all);
	n = all.n + o->tids.n;
	id_list_free(&all);
	return n;
}

/* The threads of the processes that have no event of their own yet */
static int open_late(struct fault_events *fe, bool initial)
{
	int err = 0;

	for (size_t i = 0; i < fe->o->pids.n && !err; i++) {
		struct id_list todo = { 0 };

		if (id_list_add_threads(fe->o->pids.ids[i], &fe->done, &todo) || !todo.n) {
			id_list_free(&todo);
			continue;
		}
		if (!kfeat_has(KF_ATTACH_COOKIE)) {
			/* no cookie tells the events apart, so no event of
			 * its own that could count a thread twice: a thread
			 * made by one that had its event inherits it, the
			 * ones made before that are not counted */
			for (size_t k = 0; k < todo.n; k++)
				id_list_add(&fe->done, todo.ids[k]);
			fe->uncovered += todo.n;
			id_list_free(&todo);
			continue;
		}
		*fe->dedupe = true;
		fe->relist = true;
		for (size_t k = 0; k < todo.n && !err; k++) {
			err = open_thread(fe, todo.ids[k], false);
			fe->late += !initial;
		}
		id_list_free(&todo);
	}
	return err;
}

static int open_task_events(struct fault_events *fe)
{
	int err = 0;

	for (size_t i = 0; i < fe->o->pids.n && !err; i++) {
		struct id_list todo = { 0 };

		id_list_add_threads(fe->o->pids.ids[i], &fe->done, &todo);
		for (size_t k = 0; k < todo.n && !err; k++)
			err = open_thread(fe, todo.ids[k], true);
		id_list_free(&todo);
	}
	for (size_t i = 0; i < fe->o->tids.n && !err; i++)
		if (!id_list_has(&fe->done, fe->o->tids.ids[i]))
			err = open_thread(fe, fe->o->tids.ids[i], false);
	/* threads created meanwhile */
	return err ? err : open_late(fe, true);
}

static int open_cpu_events(struct fault_events *fe)
{
	struct perf_event_attr a;
	int err;

	perfev_fault_attr(&a, true, false);
	err = perfev_open_cpus(fe->pev, &a, fe->major, TAG_MAJOR);
	if (err)
		return err;
	perfev_fault_attr(&a, false, false);
	return perfev_open_cpus(fe->pev, &a, fe->minor, TAG_MINOR);
}

int fault_events_open(struct fault_events *fe, bool per_thread)
{
	fe->pev = perfev_new();
	return per_thread ? open_task_events(fe) : open_cpu_events(fe);
}

void fault_events_tick(struct fault_events *fe)
{
	__u64 now = now_ns();
	int err;

	if (!fe->relist || now - fe->last_list_ns < 100000000ull)
		return;
	fe->last_list_ns = now;
	err = open_late(fe, false);
	if (err)
		msg_warn("opening a perf event on a new thread: %s", perfev_strerror(err));
}

__u64 fault_events_count(const struct fault_events *fe)
{
	return perfev_count(fe->pev, TAG_MAJOR) + perfev_count(fe->pev, TAG_MINOR);
}

void fault_events_free(struct fault_events *fe)
{
	perfev_free(fe->pev);
	fe->pev = NULL;
	id_list_free(&fe->done);
}
