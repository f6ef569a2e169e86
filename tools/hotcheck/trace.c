// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "msg.h"
#include "procfs.h"
#include "collect.h"
#include "correlate.h"
#include "event.h"
#include "trace.h"

/* The hot threads' tracks and the requests' track, in processes of their
 * own below the CPUs' (numbers no process has: PID_MAX_LIMIT is 2^22) */
#define HC_TRACE_THREADS_PID (TRACEFMT_CPU_PID - 1)
#define HC_TRACE_REQUESTS_PID (TRACEFMT_CPU_PID - 2)

void hc_trace_open(struct hc_trace *tr, const char *path)
{
	tr->path = path;
	if (path && tracefmt_open(&tr->t, path))
		die_usage("--trace: cannot write %s: %s", path, strerror(errno));
}

/* On a CPU's track: what ran there instead, and the stolen time */
static bool on_cpu_track(const struct hc_event *e)
{
	return e->kind == HC_INTRUDER || e->kind == HC_STEAL || !e->tid;
}

/* The event's slice (or instant) cut to the window: spans that began
 * before it (a block, a preemption) keep their real start in args */
static void clip(const struct hc_timeline *tl, const struct hc_event *e, uint64_t *ts,
		 uint64_t *dur)
{
	uint64_t end = e->start_ns + e->dur_ns;

	*ts = e->start_ns < tl->window_start_ns ? tl->window_start_ns : e->start_ns;
	if (tl->window_end_ns && end > tl->window_end_ns)
		end = tl->window_end_ns;
	*dur = end > *ts ? end - *ts : 0;
}

/* What the event is called on its track */
static void ev_name(const struct hc_event *e, char *buf, size_t size)
{
	switch (e->kind) {
	case HC_SYSCALL:
		snprintf(buf, size, "%s", e->what);
		break;
	case HC_FAULT:
		snprintf(buf, size, "page fault (%s)", e->what);
		break;
	case HC_BLOCK:
		snprintf(buf, size, "blocked: %s", e->what);
		break;
	case HC_PREEMPT:
		if (e->actor_tid)
			snprintf(buf, size, "preempted by %s (%u)", e->actor, e->actor_tid);
		else
			snprintf(buf, size, "preempted by %s", e->actor[0] ? e->actor : "?");
		break;
	case HC_MIGRATE:
		snprintf(buf, size, "migrated: %s", e->what);
		break;
	case HC_SIGNAL:
		snprintf(buf, size, "signal %s", e->what);
		break;
	case HC_INTRUDER:
		if (!strcmp(e->what, "task"))
			snprintf(buf, size, "%s (%u)", e->actor, e->actor_tid);
		else if (!strcmp(e->what, "irq"))
			snprintf(buf, size, "irq %u: %s", e->actor_tid, e->actor);
		else
			snprintf(buf, size, "%s %s", e->what, e->actor);
		break;
	case HC_STEAL:
		snprintf(buf, size, "stolen by the hypervisor");
		break;
	default:
		snprintf(buf, size, "%s", e->what);
		break;
	}
}

static void event(struct tracefmt *t, const struct hc_timeline *tl, const struct hc_event *e)
{
	bool slice = e->kind == HC_BLOCK || e->kind == HC_PREEMPT || e->kind == HC_INTRUDER ||
		     e->kind == HC_STEAL;
	uint32_t pid = on_cpu_track(e) ? TRACEFMT_CPU_PID : HC_TRACE_THREADS_PID;
	uint32_t tid = on_cpu_track(e) ? TRACEFMT_CPU_TID(e->cpu) : e->tid;
	uint64_t ts, dur;
	char name[160];
	struct json *j;

	clip(tl, e, &ts, &dur);
	ev_name(e, name, sizeof(name));
	tracefmt_ev_begin(t, slice ? 'X' : 'i', name, hc_kind_name(e->kind), pid, tid, ts);
	if (slice)
		tracefmt_ev_dur(t, dur);
	j = tracefmt_args_begin(t);
	json_kv_str(j, "kind", hc_kind_name(e->kind));
	json_kv_u64(j, "tid", e->tid);
	json_kv_i64(j, "cpu", e->cpu);
	json_kv_u64(j, "start_ns", e->start_ns);
	json_kv_u64(j, "dur_ns", e->dur_ns);
	json_kv_str(j, "what", e->what);
	if (e->actor[0] || e->actor_tid) {
		/* a block's waker, a preemption's taker, a signal's sender */
		json_kv_str(j, e->kind == HC_BLOCK ? "waker" : "actor", e->actor);
		json_kv_u64(j, e->kind == HC_BLOCK ? "waker_tid" : "actor_tid", e->actor_tid);
	}
	if (e->stack[0])
		json_kv_str(j, "stack", e->stack);
	if (e->waker_stack[0])
		json_kv_str(j, "waker_stack", e->waker_stack);
	if (e->kind == HC_STEAL)
		json_kv_u64(j, "stolen_ns", e->stolen_ns);
	tracefmt_args_end(t);
	tracefmt_ev_end(t);
}

/* A hot thread's track name: "comm (tid)", the comm from the first frame
 * of one of its stacks (what it was called then), else /proc now */
static void thread_track(struct tracefmt *t, const struct hc_timeline *tl, uint32_t tid)
{
	char comm[64] = "", name[96];

	for (size_t i = 0; i < tl->n && !comm[0]; i++) {
		const struct hc_event *e = &tl->ev[i];
		size_t n;

		if (e->tid != tid || on_cpu_track(e) || !e->stack[0])
			continue;
		n = strcspn(e->stack, ";");
		snprintf(comm, sizeof(comm), "%.*s", (int)(n < sizeof(comm) ? n : sizeof(comm) - 1),
			 e->stack);
	}
	if (!comm[0])
		task_comm(tid, comm, sizeof(comm));
	snprintf(name, sizeof(name), "%s (%u)", comm, tid);
	tracefmt_thread(t, HC_TRACE_THREADS_PID, tid, name, tid);
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The tracks: the hot CPUs (and any other CPU an event of the CPUs' was
 * on), the hot threads (every thread an event of its own names) */
static uint32_t *tracks(struct tracefmt *t, const struct hc_run *r, size_t *n_tids)
{
	const struct hc_timeline *tl = &r->tl;
	uint32_t *cpus = calloc(tl->n + r->cpus->n + 1, sizeof(*cpus));
	uint32_t *tids = calloc(tl->n + tl->n_marks + 1, sizeof(*tids));
	size_t nc = 0, nt = 0;

	if (!cpus || !tids)
		die_unsupported("out of memory");
	for (size_t i = 0; i < r->cpus->n && !r->unpinned; i++)
		cpus[nc++] = r->cpus->cpus[i];
	for (size_t i = 0; i < tl->n; i++) {
		if (on_cpu_track(&tl->ev[i]))
			cpus[nc++] = (uint32_t)tl->ev[i].cpu;
		else
			tids[nt++] = tl->ev[i].tid;
	}
	/* a thread whose only news is a mark: on its CPU, or off it, all along */
	for (size_t i = 0; i < tl->n_marks; i++)
		tids[nt++] = tl->marks[i].tid;
	qsort(cpus, nc, sizeof(*cpus), u32_cmp);
	qsort(tids, nt, sizeof(*tids), u32_cmp);
	tracefmt_process(t, TRACEFMT_CPU_PID, "hotcheck: hot CPUs");
	for (size_t i = 0; i < nc; i++)
		if (!i || cpus[i] != cpus[i - 1])
			tracefmt_cpu_track(t, cpus[i]);
	tracefmt_process(t, HC_TRACE_THREADS_PID, "hotcheck: hot threads");
	*n_tids = 0;
	for (size_t i = 0; i < nt; i++)
		if (!i || tids[i] != tids[i - 1]) {
			thread_track(t, tl, tids[i]);
			tids[(*n_tids)++] = tids[i];
		}
	free(cpus);
	return tids;
}

static void slice(struct tracefmt *t, const char *name, const char *cat, uint32_t tid,
		  uint64_t from, uint64_t to)
{
	struct json *j;

	tracefmt_ev_begin(t, 'X', name, cat, HC_TRACE_THREADS_PID, tid, from);
	tracefmt_ev_dur(t, to - from);
	j = tracefmt_args_begin(t);
	json_kv_str(j, "kind", cat);
	json_kv_u64(j, "tid", tid);
	json_kv_u64(j, "start_ns", from);
	json_kv_u64(j, "dur_ns", to - from);
	tracefmt_args_end(t);
	tracefmt_ev_end(t);
}

static const struct hc_mark *mark_of(const struct hc_timeline *tl, uint32_t tid,
				     enum hc_mark_kind kind)
{
	for (size_t i = 0; i < tl->n_marks; i++)
		if (tl->marks[i].tid == tid && tl->marks[i].kind == kind)
			return &tl->marks[i];
	return NULL;
}

/* A hot thread's time on its CPU: the gaps between its off-CPU intervals
 * (blocks, preemptions: each ends at its switch-in, each begins at a
 * switch-out), from the window's start (or the first switch-in of a
 * thread off its CPU since before tracing) to the window's end (or its
 * exit, or the switch-out of an interval still open then), cut where the
 * timeline stops being complete.  The spans no event covers are slices
 * too ("off CPU"), so that the track tiles the window.  Returns the
 * running slices written. */
static uint64_t running(struct tracefmt *t, const struct hc_timeline *tl, uint32_t tid)
{
	const struct hc_mark *in = mark_of(tl, tid, HC_MARK_ONCPU);
	const struct hc_mark *exit = mark_of(tl, tid, HC_MARK_EXIT);
	const struct hc_mark *open = mark_of(tl, tid, HC_MARK_OFF_AT_END);
	uint64_t ws = tl->window_start_ns, we = tl->window_end_ns, limit = we, cur = ws, n = 0;

	if (tl->complete_until_ns && tl->complete_until_ns < limit)
		limit = tl->complete_until_ns;
	if (exit && exit->ts_ns >= ws && exit->ts_ns < limit)
		limit = exit->ts_ns;
	if (in && in->ts_ns > ws) {
		cur = in->ts_ns < limit ? in->ts_ns : limit;
		slice(t, "off CPU (since before tracing)", "offcpu", tid, ws, cur);
	}
	for (size_t i = 0; i < tl->n && cur < limit; i++) {
		const struct hc_event *e = &tl->ev[i];
		uint64_t from = e->start_ns > ws ? e->start_ns : ws;
		uint64_t to = e->start_ns + e->dur_ns < we ? e->start_ns + e->dur_ns : we;

		if (e->tid != tid || (e->kind != HC_BLOCK && e->kind != HC_PREEMPT) ||
		    on_cpu_track(e) || to <= cur)
			continue;
		if (from > cur) {
			slice(t, "running", "running", tid, cur, from < limit ? from : limit);
			n++;
		}
		cur = to;
	}
	if (open && cur < limit) {
		uint64_t off = open->ts_ns > cur ? open->ts_ns : cur;

		if (off > cur) {
			slice(t, "running", "running", tid, cur, off);
			n++;
		}
		slice(t, open->preempted ? "off CPU to the window's end: preempted" :
					   "off CPU to the window's end: blocked", "offcpu", tid, off, we);
	} else if (cur < limit) {
		slice(t, "running", "running", tid, cur, limit);
		n++;
	}
	return n;
}

struct req_span {
	uint64_t start, end;
	size_t i;
};

/* by start, then the longest first (the lines may be in any order) */
static int req_span_cmp(const void *a, const void *b)
{
	const struct req_span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* the tracks' min-heap by the end of their last request */
struct lane_end {
	uint64_t end;
	uint32_t lane;
};

static void heap_down(struct lane_end *h, size_t n, size_t i)
{
	for (;;) {
		size_t m = i, l = 2 * i + 1, r = l + 1;
		struct lane_end tmp;

		if (l < n && h[l].end < h[m].end)
			m = l;
		if (r < n && h[r].end < h[m].end)
			m = r;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

static void heap_up(struct lane_end *h, size_t i)
{
	while (i && h[(i - 1) / 2].end > h[i].end) {
		struct lane_end tmp = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

/* --correlate: each slow request a slice, named by what explains it.
 * Late requests overlap (a queue drains late all at once) and the slices
 * of one track must nest: each goes on a track whose last request ended
 * by its start, "slow requests", "slow requests 2", ... (as many tracks
 * as requests were late at once) */
static void requests(struct tracefmt *t, const struct hc_correlation *c)
{
	struct req_span *order = calloc(c->rq->n + 1, sizeof(*order));
	struct lane_end *heap = calloc(c->rq->n + 1, sizeof(*heap));
	uint32_t *lane = calloc(c->rq->n + 1, sizeof(*lane));
	size_t lanes = 0, n = 0;

	if (!order || !heap || !lane)
		die_unsupported("out of memory");
	for (size_t i = 0; i < c->rq->n; i++)
		if (c->res[i].state != HC_REQ_OUTSIDE)	/* counted in otherData */
			order[n++] = (struct req_span){ c->res[i].start_ns, c->res[i].end_ns, i };
	if (n)
		qsort(order, n, sizeof(*order), req_span_cmp);
	for (size_t k = 0; k < n; k++) {
		if (lanes && heap[0].end <= order[k].start) {
			heap[0].end = order[k].end;
			lane[order[k].i] = heap[0].lane;
			heap_down(heap, lanes, 0);
		} else {
			heap[lanes] = (struct lane_end){ order[k].end, (uint32_t)lanes };
			lane[order[k].i] = (uint32_t)lanes;
			heap_up(heap, lanes++);
		}
	}
	tracefmt_process(t, HC_TRACE_REQUESTS_PID, "hotcheck: slow requests (--correlate)");
	for (size_t l = 0; l < lanes || l == 0; l++) {
		char name[48];

		if (l)
			snprintf(name, sizeof(name), "slow requests %zu", l + 1);
		tracefmt_thread(t, HC_TRACE_REQUESTS_PID, HC_TRACE_REQUESTS_PID + (uint32_t)l,
				l ? name : "slow requests", (int64_t)l);
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k].i;
		const struct hc_req_result *q = &c->res[i];
		const char *cause = q->cause != HC_NO_CAUSE ? c->causes[q->cause].name : NULL;
		uint32_t tid = HC_TRACE_REQUESTS_PID + lane[i];
		char name[192];
		struct json *j;

		if (q->state == HC_REQ_EXPLAINED && cause)
			snprintf(name, sizeof(name), "request (line %llu): %s",
				 (unsigned long long)c->rq->v[i].line, cause);
		else
			snprintf(name, sizeof(name), "request (line %llu): unexplained (%s)",
				 (unsigned long long)c->rq->v[i].line, hc_req_state_name(q->state));
		tracefmt_ev_begin(t, 'X', name, "request", HC_TRACE_REQUESTS_PID, tid, q->start_ns);
		tracefmt_ev_dur(t, q->end_ns - q->start_ns);
		j = tracefmt_args_begin(t);
		json_kv_u64(j, "line", c->rq->v[i].line);
		json_kv_str(j, "state", hc_req_state_name(q->state));
		json_kv_str(j, "cause", cause ? cause : "");
		json_kv_u64(j, "covered_ns", q->covered_ns);
		json_kv_u64(j, "uncovered_ns", q->uncovered_ns);
		json_kv_u64(j, "events", q->n_events);
		tracefmt_args_end(t);
		tracefmt_ev_end(t);
	}
	free(order);
	free(heap);
	free(lane);
}

void hc_trace_write(struct hc_trace *tr, const struct hc_run *r,
		    const struct hc_correlation *corr)
{
	const struct hc_timeline *tl = &r->tl;
	struct tracefmt *t = &tr->t;
	uint64_t n_running = 0;
	uint32_t *tids;
	size_t n_tids;
	struct json *j;

	if (!tr->path)
		return;
	tracefmt_begin(t);
	tids = tracks(t, r, &n_tids);
	for (size_t i = 0; i < tl->n; i++)
		event(t, tl, &tl->ev[i]);
	for (size_t i = 0; i < n_tids && !tl->offcpu_incomplete && tl->window_end_ns; i++)
		n_running += running(t, tl, tids[i]);
	free(tids);
	if (corr)
		requests(t, corr);
	j = tracefmt_meta_begin(t, &(struct tracefmt_window){
					.start_ns = tl->window_start_ns, .end_ns = tl->window_end_ns,
					.realtime_offset_ns = (uint64_t)tl->realtime_offset_ns });
	json_kv_u64(j, "events", r->events);
	json_kv_u64(j, "events_kept", tl->n);
	json_kv_u64(j, "events_not_kept", r->not_kept);
	json_kv_u64(j, "keep_limit", r->timeline_max ? r->timeline_max : HC_TIMELINE_DEFAULT);
	json_kv_u64(j, "complete_until_ns", tl->complete_until_ns);
	json_kv_u64(j, "events_lost", tl->events_dropped);
	json_kv_u64(j, "running_slices", n_running);
	json_kv_str(j, "running_not_written", tl->offcpu_incomplete ? tl->offcpu_incomplete : "");
	if (corr) {
		json_kv_u64(j, "requests", corr->rq->n);
		json_kv_u64(j, "requests_outside", corr->outside);
	}
	tracefmt_close(t);
}
