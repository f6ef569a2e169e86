// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "collect.h"
#include "msg.h"
#include "bpfload.h"
#include "histogram.h"
#include "mapiter.h"
#include "procfs.h"
#include "run.h"
#include "taskstate.h"
#include "vec.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* Linux 6.9 */
#endif

/* ---- the maps ---- */

static struct row *row_new(struct row **rows, size_t *n, size_t *cap, __u32 tid,
			   long nr)
{
	struct row *r;

	array_reserve(*rows, *cap, *n + 1);
	r = &(*rows)[(*n)++];
	memset(r, 0, sizeof(*r));
	r->tid = tid;
	r->nr = nr;
	return r;
}

/* The per-syscall row of nr, made on first use; NULL out of range (the
 * BPF side records no such number) */
static struct row *sys_row(struct calls *c, long nr)
{
	if (nr < 0 || nr >= SW_MAX_SYSCALLS)
		return NULL;
	if (!c->sys_idx[nr]) {
		row_new(&c->rows, &c->n, &c->cap, 0, nr);
		c->sys_idx[nr] = c->n;
	}
	return &c->rows[c->sys_idx[nr] - 1];
}

static int tkey_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

static void val_merge(struct sw_val *dst, const struct sw_val *src)
{
	hist_merge(&dst->h, &src->h);
	dst->errors += src->errors;
	dst->early += src->early;
	dst->noreturn += src->noreturn;
}

static void err_add(struct row *r, __u32 err, __u64 count)
{
	for (size_t i = 0; i < r->nerr; i++) {
		if (r->errs[i].err == err) {
			r->errs[i].count += count;
			return;
		}
	}
	array_reserve(r->errs, r->errcap, r->nerr + 1);
	r->errs[r->nerr].err = err;
	r->errs[r->nerr++].count = count;
}

static int collect_percpu(struct bpf_map *sys_stats, struct calls *c)
{
	int ncpu = ncpus_possible(), fd = bpf_map__fd(sys_stats);
	__u32 slots = bpf_map__max_entries(sys_stats);
	struct sw_val *vals = xcalloc(ncpu, sizeof(*vals));
	int err = 0;

	for (__u32 nr = 0; nr < slots; nr++) {
		struct sw_val sum = { 0 };

		err = bpf_map_lookup_elem(fd, &nr, vals);
		if (err)
			break;
		for (int i = 0; i < ncpu; i++)
			val_merge(&sum, &vals[i]);
		if ((sum.h.count || sum.early || sum.noreturn) && sys_row(c, nr))
			sys_row(c, nr)->v = sum;
	}
	free(vals);
	return err;
}

static int collect_threads(struct bpf_map *thread_stats, struct calls *c)
{
	struct sw_tkey next;
	struct sw_tval tv;
	struct map_iter it;

	map_iter_init(&it, bpf_map__fd(thread_stats), &next, sizeof(next), &tv);
	while (map_iter_next(&it)) {
		struct row *r = row_new(&c->trows, &c->tn, &c->tcap, next.tid,
					next.nr), *sr;

		r->pid = tv.pid;
		memcpy(r->comm, tv.comm, sizeof(r->comm));
		r->comm[TASK_COMM_LEN - 1] = 0;
		r->v = tv.v;
		sr = sys_row(c, next.nr);
		if (sr)
			val_merge(&sr->v, &tv.v);
	}
	return map_iter_end(&it);
}

static int collect_errnos(struct bpf_map *errnos, struct calls *c, bool per_thread)
{
	struct sw_errkey next;
	struct map_iter it;
	__u64 count;

	/* thread rows by (tid, nr) for the lookups */
	if (c->tn)
		qsort(c->trows, c->tn, sizeof(*c->trows), tkey_cmp);
	map_iter_init(&it, bpf_map__fd(errnos), &next, sizeof(next), &count);
	while (map_iter_next(&it)) {
		struct row want = { .tid = next.tid, .nr = next.nr }, *r;

		r = sys_row(c, next.nr);
		if (r)
			err_add(r, next.err, count);
		r = c->tn ? bsearch(&want, c->trows, c->tn, sizeof(*c->trows),
				    tkey_cmp) : NULL;
		if (per_thread && r)
			err_add(r, next.err, count);
	}
	return map_iter_end(&it);
}

int collect_rows(struct calls *c, const struct sw_opts *o,
		 struct bpf_map *sys_stats, struct bpf_map *thread_stats,
		 struct bpf_map *errnos)
{
	int err = o->per_thread ? collect_threads(thread_stats, c)
				: collect_percpu(sys_stats, c);

	return err ? err : collect_errnos(errnos, c, o->per_thread);
}

/* ---- calls in progress at the stop ---- */

static void snap_thread(struct calls *c, __u32 pid, __u32 tid)
{
	long nr = task_syscall_now(pid, tid);
	struct inprog *s;

	if (nr == -2 || pid == (__u32)getpid())
		return;
	array_reserve(c->ip, c->ipcap, c->ipn + 1);
	s = &c->ip[c->ipn++];
	memset(s, 0, sizeof(*s));
	s->tid = tid;
	s->pid = pid;
	s->nr = nr;
	task_comm(tid, s->comm, sizeof(s->comm));
}

void collect_snap_targets(struct calls *c, const struct sw_opts *o)
{
	const struct id_list *tpids = &o->c.pids, *ttids = &o->c.tids;
	struct id_list pids = { 0 }, tids = { 0 }, none = { 0 };

	if (ttids->n || tpids->n) {
		/* a target whose number went to another task is gone */
		for (size_t i = 0; i < tpids->n; i++)
			if (id_list_alive(tpids, i))
				id_list_add(&pids, tpids->ids[i]);
		for (size_t i = 0; i < ttids->n; i++) {
			__u32 tid = ttids->ids[i], pid = ttids->who[i].tgid;

			if (id_list_alive(ttids, i) && !id_list_has(&pids, pid))
				snap_thread(c, pid, tid);
		}
	} else {
		id_list_add_pids(&pids);
	}
	for (size_t i = 0; i < pids.n; i++) {
		tids.n = 0;
		id_list_add_threads(pids.ids[i], &none, &tids);
		for (size_t k = 0; k < tids.n; k++)
			snap_thread(c, pids.ids[i], tids.ids[k]);
	}
	id_list_free(&pids);
	id_list_free(&tids);
}

/* The thread's in-flight record, looked up by pidfd in task storage, by
 * tid where the kernel has none (bpf/sysregs.bpf.h); 0 if there is one */
static int inflight_of(const struct bpf_map *map, __u32 tid, __u32 pid,
		       struct sw_inflight *s)
{
	int map_fd = bpf_map__fd(map), pidfd, err;

	if (bpf_map__type(map) != BPF_MAP_TYPE_TASK_STORAGE)
		return bpf_map_lookup_elem(map_fd, &tid, s) ? -errno : 0;
	pidfd = syscall(SYS_pidfd_open, tid, PIDFD_THREAD);

	if (pidfd < 0 && tid == pid)
		pidfd = syscall(SYS_pidfd_open, tid, 0);
	if (pidfd < 0)
		return -errno;
	err = bpf_map_lookup_elem(map_fd, &pidfd, s);
	err = err ? -errno : 0;
	close(pidfd);
	return err;
}

/* Calls entered during tracing and not finished (from task storage), and
 * calls in progress since before it began (/proc said so while tracing,
 * and no entry was seen) */
void collect_in_progress(struct calls *c, const struct sw_opts *o,
			 struct bpf_map *inflight)
{
	size_t n = 0;

	for (size_t i = 0; i < c->ipn; i++) {
		struct inprog ip = c->ip[i];
		struct sw_inflight s;
		int err = inflight_of(inflight, ip.tid, ip.pid, &s);

		if (!err && s.ts) {
			if (s.ts >= run_end_ns)
				continue;	/* entered after the stop */
			ip.nr = s.nr;
			ip.elapsed_ns = run_end_ns - s.ts;
		} else if (err == -ENOENT && ip.nr >= 0 && sw_nr_wanted(o, ip.nr)) {
			ip.elapsed_ns = run_end_ns - run_start_ns;
			ip.before_start = true;
		} else {
			continue;
		}
		c->ip[n++] = ip;
	}
	c->ipn = n;
}

/* ---- report order and totals ---- */

static int errcnt_cmp(const void *a, const void *b)
{
	const struct errcnt *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->err < y->err ? -1 : x->err > y->err;
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->v.h.sum != y->v.h.sum)
		return x->v.h.sum < y->v.h.sum ? 1 : -1;
	if (x->v.h.count != y->v.h.count)
		return x->v.h.count < y->v.h.count ? 1 : -1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

static int inprog_cmp(const void *a, const void *b)
{
	const struct inprog *x = a, *y = b;

	if (x->elapsed_ns != y->elapsed_ns)
		return x->elapsed_ns < y->elapsed_ns ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void sort_rows(struct row *rows, size_t n)
{
	if (!n)
		return;
	qsort(rows, n, sizeof(*rows), row_cmp);
	for (size_t i = 0; i < n; i++)
		if (rows[i].nerr)
			qsort(rows[i].errs, rows[i].nerr, sizeof(*rows[i].errs),
			      errcnt_cmp);
}

void collected_sort(struct calls *c)
{
	sort_rows(c->rows, c->n);
	sort_rows(c->trows, c->tn);
	if (c->ipn)
		qsort(c->ip, c->ipn, sizeof(*c->ip), inprog_cmp);
	for (size_t i = 0; i < c->n; i++) {
		c->calls += c->rows[i].v.h.count;
		c->early += c->rows[i].v.early;
		c->noreturn += c->rows[i].v.noreturn;
	}
}

void collected_free(struct calls *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->rows[i].errs);
	for (size_t i = 0; i < c->tn; i++)
		free(c->trows[i].errs);
	free(c->rows);
	free(c->trows);
	free(c->ip);
}
