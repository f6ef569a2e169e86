// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* syswatch: which system calls a process or thread makes, how long each
 * kind takes, and (--check) the proof that a hot thread makes none. */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common.h"
#include "mapmem.h"
#include "opts.h"
#include "run.h"
#include "json.h"
#include "histogram.h"
#include "table.h"
#include "stacks.h"
#include "escape.h"
#include "bpfutil.h"
#include "syscalls.h"
#include "taskstate.h"
#include "perfev.h"
#include "syswatch.h"
#include "syswatch.skel.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* Linux 6.9 */
#endif

static struct env {
	struct common_opts c;
	bool per_thread;
	bool errors_only;
	__u64 slower_us;	/* 0: no streaming */
	bool filter;		/* --syscall */
	__u64 mask[SW_MAX_SYSCALLS / 64];
	__u32 max_entries;
} env = {
	.max_entries = 10240,
};

enum {
	OPT_PER_THREAD = OPT_TOOL_BASE,
	OPT_SYSCALL,
	OPT_ERRORS,
	OPT_SLOWER,
};

static const char doc[] =
"Syscall latency histograms per syscall (and per thread), and the proof that\n"
"a thread makes none.\n"
"\n"
"USAGE: syswatch [-p PID | -t TID] [-d SECS] [--per-thread] [--syscall NAME,...]\n"
"                [--errors] [--slower-than USEC] [-j] [--check]\n"
"\n"
"EXAMPLES:\n"
"    syswatch -d 5                     # every process but syswatch, 5 seconds\n"
"    syswatch -p 1 -d 5                # process 1 (all its threads)\n"
"    syswatch -p 1 --per-thread -d 5   # process 1, thread by thread\n"
"    syswatch -t 1 --check -d 10       # exit 1 if thread 1 makes any syscall\n"
"    syswatch -p 1 --syscall read,write -d 5   # only these syscalls\n"
"    syswatch -p 1 --errors -d 5       # only the calls that failed\n"
"    syswatch -p 1 --slower-than 10000 -d 5    # also stream calls over 10 ms\n"
"    syswatch -p 1 -j -d 5             # JSON\n";

static const struct argp_option options[] = {
	OPTS_PID,
	OPTS_TID,
	OPTS_DURATION,
	{ "per-thread", OPT_PER_THREAD, NULL, 0, "Statistics per thread and syscall", 0 },
	{ "syscall", OPT_SYSCALL, "NAME,...", 0, "Only these syscalls (names, or numbers as "
	  "syscall_NNN or NNN)", 0 },
	{ "errors", OPT_ERRORS, NULL, 0, "Only calls that failed (returned -1 .. -4095)", 0 },
	{ "slower-than", OPT_SLOWER, "USEC", 0, "Also stream every call slower than USEC "
	  "microseconds, with its user stack", 0 },
	OPTS_JSON,
	OPTS_CHECK("Exit 1 if any syscall was recorded (or is in progress), with a "
		   "one-line verdict"),
	{ "max-entries", OPT_MAX_ENTRIES, "N", 0, "Room for N (thread, syscall) entries "
	  "and N (syscall, errno) pairs (default 10240)", 0 },
	OPTS_VERBOSE,
	OPTS_HELP_SHORT,
	{},
};

static void parse_syscalls(const char *arg)
{
	char *dup, *p, *save = NULL;

	if (!*arg || arg[0] == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,"))
		die_usage("invalid --syscall: '%s': empty element in the list", arg);
	dup = strdup(arg);
	if (!dup)
		die_usage("out of memory");
	for (p = strtok_r(dup, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		long nr = syscall_lookup(p);

		if (nr < 0) {
			char name[64];

			snprintf(name, sizeof(name), "%s", p);
			free(dup);
			die_usage("invalid --syscall: unknown syscall '%s' on %s (names "
				  "are those of the kernel headers, e.g. getppid)",
				  name, syscall_table_arch());
		}
		if (nr >= SW_MAX_SYSCALLS) {
			free(dup);
			die_usage("invalid --syscall: %ld is out of range [0, %d]", nr,
				  SW_MAX_SYSCALLS - 1);
		}
		env.mask[nr / 64] |= 1ULL << (nr % 64);
	}
	env.filter = true;
	free(dup);
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case OPT_PER_THREAD:
		env.per_thread = true;
		break;
	case OPT_SYSCALL:
		parse_syscalls(arg);
		break;
	case OPT_ERRORS:
		env.errors_only = true;
		break;
	case OPT_SLOWER:
		env.slower_us = opt_u64("--slower-than", arg, 1, ~0ULL / 1000);
		break;
	case OPT_MAX_ENTRIES:
		env.max_entries = opt_u64("--max-entries", arg, 1, UINT32_MAX);
		break;
	default:
		return common_parse_opt(key, arg, state, &env.c);
	}
	return 0;
}

static bool nr_wanted(long nr)
{
	if (!env.filter)
		return true;
	return nr >= 0 && nr < SW_MAX_SYSCALLS && (env.mask[nr / 64] & (1ULL << (nr % 64)));
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		msg_warn("out of memory");
		exit(EXIT_UNSUPPORTED);
	}
	return p;
}

/* ---- collection ---- */

struct errcnt {
	__u32 err;
	__u64 count;
};

struct row {
	__u32 tid, pid;		/* 0: every thread */
	char comm[TASK_COMM_LEN];
	long nr;
	struct sw_val v;
	struct errcnt *errs;
	size_t nerr;
};

/* A target thread at the stop: first the syscall /proc says it is in
 * (-1: none, or running), then the call in progress */
struct inprog {
	__u32 tid, pid;
	char comm[TASK_COMM_LEN];
	long nr;
	__u64 elapsed_ns;
	bool before_start;	/* in it since before tracing began */
};

struct collected {
	struct row *rows;		/* per syscall */
	size_t n, cap;
	size_t sys_idx[SW_MAX_SYSCALLS];	/* nr -> index + 1 in rows */
	struct row *trows;		/* per thread and syscall */
	size_t tn, tcap;
	struct inprog *ip;		/* threads seen, then calls in progress */
	size_t ipn, ipcap;
	__u64 calls, early, noreturn, misc_range;
};

static struct row *row_new(struct row **rows, size_t *n, size_t *cap, __u32 tid,
			   long nr)
{
	struct row *r;

	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*rows = xrealloc(*rows, *cap * sizeof(**rows));
	}
	r = &(*rows)[(*n)++];
	memset(r, 0, sizeof(*r));
	r->tid = tid;
	r->nr = nr;
	return r;
}

/* The per-syscall row of nr, made on first use; NULL out of range (the
 * BPF side records no such number) */
static struct row *sys_row(struct collected *c, long nr)
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
	r->errs = xrealloc(r->errs, (r->nerr + 1) * sizeof(*r->errs));
	r->errs[r->nerr].err = err;
	r->errs[r->nerr++].count = count;
}

static int collect_percpu(struct syswatch_bpf *skel, struct collected *c)
{
	int ncpu = ncpus_possible(), fd = bpf_map__fd(skel->maps.sys_stats);
	__u32 slots = bpf_map__max_entries(skel->maps.sys_stats);
	struct sw_val *vals = calloc(ncpu, sizeof(*vals));
	int err = 0;

	if (!vals)
		return -ENOMEM;
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

static int collect_threads(struct syswatch_bpf *skel, struct collected *c)
{
	int fd = bpf_map__fd(skel->maps.thread_stats);
	struct sw_tkey k, next, *prev = NULL;
	struct sw_tval tv;
	int err;

	while (!(err = bpf_map_get_next_key(fd, prev, &next))) {
		if (!bpf_map_lookup_elem(fd, &next, &tv)) {
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
		k = next;
		prev = &k;
	}
	return err == -ENOENT ? 0 : err;
}

static int collect_errnos(struct syswatch_bpf *skel, struct collected *c)
{
	int fd = bpf_map__fd(skel->maps.errnos);
	struct sw_errkey k, next, *prev = NULL;
	__u64 count;
	int err;

	/* thread rows by (tid, nr) for the lookups */
	if (c->tn)
		qsort(c->trows, c->tn, sizeof(*c->trows), tkey_cmp);
	while (!(err = bpf_map_get_next_key(fd, prev, &next))) {
		if (!bpf_map_lookup_elem(fd, &next, &count)) {
			struct row want = { .tid = next.tid, .nr = next.nr }, *r;

			r = sys_row(c, next.nr);
			if (r)
				err_add(r, next.err, count);
			r = c->tn ? bsearch(&want, c->trows, c->tn, sizeof(*c->trows),
					    tkey_cmp) : NULL;
			if (env.per_thread && r)
				err_add(r, next.err, count);
		}
		k = next;
		prev = &k;
	}
	return err == -ENOENT ? 0 : err;
}

/* ---- calls in progress at the stop ---- */

static void snap_thread(struct collected *c, __u32 pid, __u32 tid)
{
	long nr = task_syscall_now(pid, tid);
	struct inprog *s;

	if (nr == -2 || pid == (__u32)getpid())
		return;
	if (c->ipn == c->ipcap) {
		c->ipcap = c->ipcap ? 2 * c->ipcap : 64;
		c->ip = xrealloc(c->ip, c->ipcap * sizeof(*c->ip));
	}
	s = &c->ip[c->ipn++];
	memset(s, 0, sizeof(*s));
	s->tid = tid;
	s->pid = pid;
	s->nr = nr;
	task_comm(tid, s->comm, sizeof(s->comm));
}

/* While still tracing: which target threads sit in a syscall */
static void snap_targets(struct collected *c)
{
	struct id_list pids = { 0 }, tids = { 0 }, none = { 0 };

	if (env.c.tids.n || env.c.pids.n) {
		/* a target whose number went to another task is gone */
		for (size_t i = 0; i < env.c.pids.n; i++)
			if (id_list_alive(&env.c.pids, i))
				id_list_add(&pids, env.c.pids.ids[i]);
		for (size_t i = 0; i < env.c.tids.n; i++) {
			__u32 tid = env.c.tids.ids[i], pid = env.c.tids.who[i].tgid;

			if (id_list_alive(&env.c.tids, i) && !id_list_has(&pids, pid))
				snap_thread(c, pid, tid);
		}
	} else {
		proc_pids(&pids);
	}
	for (size_t i = 0; i < pids.n; i++) {
		tids.n = 0;
		perfev_list_threads(pids.ids[i], &none, &tids);
		for (size_t k = 0; k < tids.n; k++)
			snap_thread(c, pids.ids[i], tids.ids[k]);
	}
	id_list_free(&pids);
	id_list_free(&tids);
}

/* The thread's in-flight record, looked up by pidfd; 0 if there is one */
static int inflight_of(int map_fd, __u32 tid, __u32 pid, struct sw_inflight *s)
{
	int pidfd = syscall(SYS_pidfd_open, tid, PIDFD_THREAD), err;

	if (pidfd < 0 && tid == pid)
		pidfd = syscall(SYS_pidfd_open, tid, 0);
	if (pidfd < 0)
		return -errno;
	err = bpf_map_lookup_elem(map_fd, &pidfd, s);
	err = err ? -errno : 0;
	close(pidfd);
	return err;
}

/* After detaching: calls entered during tracing and not finished (from
 * task storage), and calls in progress since before it began (/proc said
 * so while tracing, and no entry was seen) */
static void collect_in_progress(struct syswatch_bpf *skel, struct collected *c)
{
	int fd = bpf_map__fd(skel->maps.inflight);
	size_t n = 0;

	for (size_t i = 0; i < c->ipn; i++) {
		struct inprog ip = c->ip[i];
		struct sw_inflight s;
		int err = inflight_of(fd, ip.tid, ip.pid, &s);

		if (!err && s.ts) {
			if (s.ts >= run_end_ns)
				continue;	/* entered after the stop */
			ip.nr = s.nr;
			ip.elapsed_ns = run_end_ns - s.ts;
		} else if (err == -ENOENT && ip.nr >= 0 && nr_wanted(ip.nr)) {
			ip.elapsed_ns = run_end_ns - run_start_ns;
			ip.before_start = true;
		} else {
			continue;
		}
		c->ip[n++] = ip;
	}
	c->ipn = n;
}

/* ---- output ---- */

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

#define TOP_ERRNOS 3

static void print_table(const struct row *rows, size_t n, const char *indent)
{
	static const char *const hdr[] = { "SYSCALL", "COUNT", "ERRORS", "TOTAL", "AVG",
		"MIN", "P50", "P99", "P99.9", "MAX", "TOP ERRNOS" };
	struct table *t = table_new(11, hdr, "lrrrrrrrrrl");
	const double pct[] = { 0.50, 0.99, 0.999 };
	char b[40], errs[200];
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		const struct hist *h = &r->v.h;
		size_t off = 0;

		if (!h->count)
			continue;
		any = true;
		table_cell(t, "%s", syscall_name_fmt(r->nr, b, sizeof(b)));
		table_cell(t, "%llu", (unsigned long long)h->count);
		table_cell(t, "%llu", (unsigned long long)r->v.errors);
		table_cell(t, "%s", (fmt_ns(b, sizeof(b), h->sum), b));
		table_cell(t, "%s", (fmt_ns(b, sizeof(b), h->sum / h->count), b));
		table_cell(t, "%s", (fmt_ns(b, sizeof(b), hist_min(h)), b));
		for (int k = 0; k < 3; k++)
			table_cell(t, "%s", (fmt_ns(b, sizeof(b), hist_percentile(h, pct[k])), b));
		table_cell(t, "%s", (fmt_ns(b, sizeof(b), h->max), b));
		errs[0] = 0;
		for (size_t k = 0; k < r->nerr && k < TOP_ERRNOS && off < sizeof(errs); k++)
			off += snprintf(errs + off, sizeof(errs) - off, "%s%s:%llu", k ? " " : "",
					errno_name(r->errs[k].err, b, sizeof(b)),
					(unsigned long long)r->errs[k].count);
		if (r->nerr > TOP_ERRNOS && off < sizeof(errs))
			snprintf(errs + off, sizeof(errs) - off, " +%zu more",
				 r->nerr - TOP_ERRNOS);
		table_cell(t, "%s", errs);
	}
	if (any)
		table_print(t, stdout, indent);
	table_free(t);
}

/* Calls with no latency: "what: name:count ..." for a field of sw_val */
static void print_uncounted(const struct row *rows, size_t n, const char *indent,
			    size_t off, const char *what)
{
	bool any = false;
	char nb[40];

	for (size_t i = 0; i < n; i++) {
		__u64 v = *(const __u64 *)((const char *)&rows[i].v + off);

		if (!v)
			continue;
		if (!any)
			printf("%s%s:", indent, what);
		any = true;
		printf(" %s:%llu", syscall_name_fmt(rows[i].nr, nb, sizeof(nb)),
		       (unsigned long long)v);
	}
	if (any)
		printf("\n");
}

static void print_early(const struct row *rows, size_t n, const char *indent)
{
	print_uncounted(rows, n, indent, offsetof(struct sw_val, early),
			"entered before tracing began, finished during it "
			"(latency unknown)");
	print_uncounted(rows, n, indent, offsetof(struct sw_val, noreturn),
			"entered, never return (thread or process exit)");
}

static void print_hists(const struct row *rows, size_t n, const char *indent)
{
	char nb[40], ind[32];

	snprintf(ind, sizeof(ind), "%s    ", indent);
	for (size_t i = 0; i < n; i++) {
		if (!rows[i].v.h.count)
			continue;
		printf("\n%s%s (nr %ld)\n", indent,
		       syscall_name_fmt(rows[i].nr, nb, sizeof(nb)), rows[i].nr);
		hist_print(stdout, &rows[i].v.h, ind);
	}
}

static void print_in_progress(const struct collected *c)
{
	static const char *const hdr[] = { "TID", "PID", "COMM", "SYSCALL", "ELAPSED" };
	struct table *t;
	bool before = false;
	char b[40];

	if (!c->ipn)
		return;
	t = table_new(5, hdr, "rrlll");
	for (size_t i = 0; i < c->ipn; i++) {
		const struct inprog *ip = &c->ip[i];

		table_cell(t, "%u", ip->tid);
		table_cell(t, "%u", ip->pid);
		table_cell(t, "%s", ip->comm);
		table_cell(t, "%s", syscall_name_fmt(ip->nr, b, sizeof(b)));
		fmt_ns(b, sizeof(b), ip->elapsed_ns);
		table_cell(t, "%s%s", ip->before_start ? ">= " : "", b);
		before |= ip->before_start;
	}
	printf("\nIn progress when tracing stopped:\n");
	table_print(t, stdout, "");
	table_free(t);
	if (before)
		printf("(\">=\": in the call since before tracing began)\n");
}

static void print_plain(const struct collected *c)
{
	if (!c->n) {
		printf("No syscalls recorded.\n");
	} else if (!env.per_thread) {
		print_table(c->rows, c->n, "");
		print_early(c->rows, c->n, "");
		print_hists(c->rows, c->n, "");
	} else {
		for (size_t i = 0; i < c->tn; ) {
			size_t j = i;

			while (j < c->tn && c->trows[j].tid == c->trows[i].tid)
				j++;
			printf("%stid %u (%s), pid %u\n", i ? "\n" : "", c->trows[i].tid,
			       ESC(c->trows[i].comm), c->trows[i].pid);
			print_table(c->trows + i, j - i, "  ");
			print_early(c->trows + i, j - i, "  ");
			print_hists(c->trows + i, j - i, "  ");
			i = j;
		}
	}
	print_in_progress(c);
}

static void json_row(struct json *j, const struct row *r)
{
	char nb[40], eb[24];

	json_obj_begin(j);
	if (r->tid) {
		json_kv_u64(j, "tid", r->tid);
		json_kv_u64(j, "pid", r->pid);
		json_kv_str(j, "comm", r->comm);
	}
	json_kv_str(j, "name", syscall_name_fmt(r->nr, nb, sizeof(nb)));
	json_kv_i64(j, "nr", r->nr);
	json_kv_u64(j, "count", r->v.h.count);
	json_kv_u64(j, "errors", r->v.errors);
	json_kv_u64(j, "total_ns", r->v.h.sum);
	json_kv_u64(j, "min_ns", hist_min(&r->v.h));
	json_kv_u64(j, "max_ns", r->v.h.max);
	hist_json_percentiles(j, &r->v.h);
	json_kv_u64(j, "entered_before_start", r->v.early);
	json_kv_u64(j, "no_return", r->v.noreturn);
	json_key(j, "errnos");
	json_arr_begin(j);
	for (size_t k = 0; k < r->nerr; k++) {
		json_obj_begin(j);
		json_kv_u64(j, "errno", r->errs[k].err);
		json_kv_str(j, "name", errno_name(r->errs[k].err, eb, sizeof(eb)));
		json_kv_u64(j, "count", r->errs[k].count);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "histogram");
	hist_json(j, &r->v.h);
	json_obj_end(j);
}

/* Slow calls kept for the JSON document */
struct slow {
	struct sw_event e;
	__u64 wall_ns;
};

struct ctx {
	struct ring_buffer *rb;
	struct stacksym *sym;
	__u64 wall_offset;	/* realtime - monotonic */
	struct slow *slow;
	size_t nslow, slow_cap;
	unsigned batch;		/* events taken in this poll */
	bool draining;		/* after the stop: take every event left */
	__u64 nslow_all;
	bool header_done;
	struct id_list cached;	/* pids whose maps the symbolizer holds */
	__u64 *cached_image;	/* parallel to cached.ids: the last image captured */
};

#define MAX_JSON_SLOW 100000
/* Events taken in one poll at most, so that a steady stream cannot keep
 * the run loop from its deadline and signals */
#define POLL_BATCH 512
#define BATCH_FULL (-EAGAIN)

static void json_stack(struct json *j, struct stacksym *sym, const struct sw_event *e)
{
	const char *fr[MAX_STACK_DEPTH];
	int n = 0;

	json_key(j, "user_stack");
	json_arr_begin(j);
	if (e->ustack_bytes > 0)
		n = stacksym_user_image(sym, e->pid, e->exec_id, e->ustack,
					e->ustack_bytes / 8, fr);
	for (int i = 0; i < n; i++)
		json_str(j, fr[i]);
	json_arr_end(j);
}

static void print_json(const struct collected *c, struct ctx *ctx,
		       const __u64 losses[LOSS_KINDS], const char *who, __u64 total,
		       const char *verdict)
{
	char nb[40];
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "tool", "syswatch");
	json_kv_str(&j, "version", SUITE_VERSION);
	json_kv_str(&j, "arch", syscall_table_arch());
	json_kv_str(&j, "target", who);
	json_kv_double(&j, "duration_s", (run_end_ns - run_start_ns) / 1e9);
	json_kv_bool(&j, "errors_only", env.errors_only);
	json_kv_u64(&j, "total_calls", c->calls);
	json_key(&j, "syscalls");
	json_arr_begin(&j);
	for (size_t i = 0; i < c->n; i++)
		json_row(&j, &c->rows[i]);
	json_arr_end(&j);
	if (env.per_thread) {
		json_key(&j, "per_thread");
		json_arr_begin(&j);
		for (size_t i = 0; i < c->tn; i++)
			json_row(&j, &c->trows[i]);
		json_arr_end(&j);
	}
	json_key(&j, "in_progress");
	json_arr_begin(&j);
	for (size_t i = 0; i < c->ipn; i++) {
		json_obj_begin(&j);
		json_kv_u64(&j, "tid", c->ip[i].tid);
		json_kv_u64(&j, "pid", c->ip[i].pid);
		json_kv_str(&j, "comm", c->ip[i].comm);
		json_kv_str(&j, "name", syscall_name_fmt(c->ip[i].nr, nb, sizeof(nb)));
		json_kv_i64(&j, "nr", c->ip[i].nr);
		json_kv_u64(&j, "elapsed_ns", c->ip[i].elapsed_ns);
		json_kv_bool(&j, "entered_before_start", c->ip[i].before_start);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	if (env.slower_us) {
		json_kv_u64(&j, "slower_than_us", env.slower_us);
		json_key(&j, "slow_calls");
		json_arr_begin(&j);
		for (size_t i = 0; i < ctx->nslow; i++) {
			const struct sw_event *e = &ctx->slow[i].e;

			json_obj_begin(&j);
			json_kv_u64(&j, "time_ns", ctx->slow[i].wall_ns);
			json_kv_u64(&j, "tid", e->tid);
			json_kv_u64(&j, "pid", e->pid);
			json_kv_str(&j, "comm", e->comm);
			json_kv_str(&j, "name", syscall_name_fmt(e->nr, nb, sizeof(nb)));
			json_kv_i64(&j, "nr", e->nr);
			json_kv_u64(&j, "latency_ns", e->lat_ns);
			json_kv_i64(&j, "ret", e->ret);
			json_stack(&j, ctx->sym, e);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_kv_u64(&j, "slow_calls_not_kept", ctx->nslow_all - ctx->nslow);
	}
	json_key(&j, "losses");
	json_obj_begin(&j);
	for (int k = 0; k < LOSS_KINDS; k++)
		json_kv_u64(&j, loss_name(k), losses[k]);
	json_kv_u64(&j, "syscall_number_out_of_range", c->misc_range);
	json_obj_end(&j);
	if (env.c.check) {
		json_key(&j, "check");
		json_obj_begin(&j);
		json_kv_u64(&j, "syscalls", total);
		json_kv_bool(&j, "found", total > 0);
		json_kv_str(&j, "verdict", verdict);
		json_obj_end(&j);
	}
	json_obj_end(&j);
	json_finish(&j);
}

/* ---- streamed slow calls ---- */

static void print_slow(struct ctx *ctx, const struct sw_event *e, __u64 wall)
{
	const char *fr[MAX_STACK_DEPTH];
	char tb[32], lb[24], nb[40];
	time_t sec = wall / 1000000000ULL;
	struct tm tm;
	int n = 0;

	if (!ctx->header_done) {
		printf("%-15s %-8s %-16s %-20s %10s %s\n", "TIME", "TID", "COMM",
		       "SYSCALL", "LATENCY", "RET");
		ctx->header_done = true;
	}
	localtime_r(&sec, &tm);
	strftime(tb, sizeof(tb), "%H:%M:%S", &tm);
	fmt_ns(lb, sizeof(lb), e->lat_ns);
	printf("%s.%06llu %-8u %s %-20s %10s %lld\n", tb,
	       (unsigned long long)(wall % 1000000000ULL / 1000), e->tid, ESC_COL(e->comm, 16),
	       syscall_name_fmt(e->nr, nb, sizeof(nb)), lb, (long long)e->ret);
	if (e->ustack_bytes > 0)
		n = stacksym_user_image(ctx->sym, e->pid, e->exec_id, e->ustack,
					e->ustack_bytes / 8, fr);
	else
		printf("    %s\n", FRAME_USER_LOST);
	stack_print_frames(stdout, "    ", fr, n);
	fflush(stdout);
}

static int on_event(void *vctx, void *data, size_t size)
{
	struct ctx *ctx = vctx;
	const struct sw_event *e = data;
	__u64 wall;

	if (size < sizeof(*e) || e->type != SW_EV_SLOW)
		return 0;
	wall = e->ts + ctx->wall_offset;
	ctx->nslow_all++;
	if (!env.c.json) {
		if (!out_closed())
			print_slow(ctx, e, wall);
	} else if (ctx->nslow < MAX_JSON_SLOW) {
		/* name the frames later, even if the process exits */
		size_t k;

		for (k = 0; k < ctx->cached.n && ctx->cached.ids[k] != e->pid; k++)
			;
		if (k == ctx->cached.n) {
			id_list_add(&ctx->cached, e->pid);
			ctx->cached_image = xrealloc(ctx->cached_image,
						     ctx->cached.cap * sizeof(__u64));
			ctx->cached_image[k] = ~0ULL;
		}
		/* each image once: an exec maps other files */
		if (ctx->cached_image[k] != e->exec_id) {
			ctx->cached_image[k] = e->exec_id;
			stacksym_cache_image(ctx->sym, e->pid, e->exec_id);
		}
		if (ctx->nslow == ctx->slow_cap) {
			ctx->slow_cap = ctx->slow_cap ? 2 * ctx->slow_cap : 64;
			ctx->slow = xrealloc(ctx->slow, ctx->slow_cap * sizeof(*ctx->slow));
		}
		ctx->slow[ctx->nslow].e = *e;
		ctx->slow[ctx->nslow++].wall_ns = wall;
	}
	/* the event is taken either way; a negative return ends the poll */
	return ++ctx->batch >= POLL_BATCH && !ctx->draining ? BATCH_FULL : 0;
}

static int poll_events(void *vctx, int timeout_ms)
{
	struct ctx *ctx = vctx;
	int err;

	ctx->batch = 0;
	err = ring_buffer__poll(ctx->rb, timeout_ms);
	return err < 0 && err != BATCH_FULL ? err : 0;
}

static const char *const loss_hints[LOSS_KINDS] = {
	[LOSS_AGG_FULL] = "raise --max-entries",
	[LOSS_NOMEM] = "calls not timed (no task storage for a thread) or "
		       "--per-thread rows lost",
	[LOSS_RINGBUF] = "raise --slower-than",
	[LOSS_USTACK] = "shown as " FRAME_USER_LOST,
};

/* "12 syscalls by tid 4242 in 60 s": the -d duration when it ran out,
 * else the time traced */
static void format_verdict(char *buf, size_t size, __u64 total, __u64 in_progress,
			   const char *who, enum run_end end)
{
	char what[64];
	size_t n;

	snprintf(what, sizeof(what), "%llu %s%s", (unsigned long long)total,
		 env.errors_only ? "failed syscall" : "syscall", total == 1 ? "" : "s");
	run_verdict(buf, size, what, who, end, env.c.duration);
	n = strlen(buf);
	if (in_progress)
		snprintf(buf + n, size - n, " (%llu still in progress)",
			 (unsigned long long)in_progress);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, NULL, doc, NULL, NULL, NULL };
	struct syswatch_bpf *skel = NULL;
	struct ctx ctx = { 0 };
	struct collected c = { 0 };
	__u64 losses[LOSS_KINDS], total, in_progress = 0;
	__u32 slots;
	enum run_end end;
	char who[256], verdict[400];
	int err = 0;

	suite_init("syswatch");
	argp_parse(&argp, argc, argv, 0, NULL, NULL);
	common_opts_finish(&env.c);
	bpf_env_check();
	run_install_signals();

	skel = syswatch_bpf__open();
	if (!skel) {
		err = bpf_fail("opening the BPF object", errno);
		goto cleanup;
	}
	/* the per-syscall array covers the name table, rounded up */
	slots = (__u32)((syscall_table_size() + 63) / 64 * 64);
	if (slots < SW_MIN_SYSCALLS)
		slots = SW_MIN_SYSCALLS;
	if (slots > SW_MAX_SYSCALLS)
		slots = SW_MAX_SYSCALLS;
	skel->rodata->nr_slots = slots;
	skel->rodata->per_thread = env.per_thread;
	skel->rodata->errors_only = env.errors_only;
	skel->rodata->slow_ns = env.slower_us * 1000;
	skel->rodata->filter_syscalls = env.filter;
	memcpy((void *)skel->rodata->sys_mask, env.mask, sizeof(env.mask));
	skel->rodata->nr_exit = syscall_lookup("exit");
	skel->rodata->nr_exit_group = syscall_lookup("exit_group");
	if (!env.c.pids.n && !env.c.tids.n)
		skel->rodata->self_tgid = getpid();
	filter_configure(&skel->rodata->tfilter, skel->maps.target_tgids,
			 skel->maps.target_tids, skel->maps.target_cpus, &env.c);
	map_resize(skel->maps.sys_stats, env.per_thread ? 1 : slots);
	if (env.per_thread)
		map_resize_opt(skel->maps.thread_stats, env.max_entries, "--max-entries",
			       env.max_entries);
	else
		map_resize(skel->maps.thread_stats, 1);
	map_resize_opt(skel->maps.errnos, env.max_entries, "--max-entries", env.max_entries);
	map_resize(skel->maps.events, env.slower_us ? 4 << 20 : 4096);
	bpf_pick_tp_flavour(skel->obj);
	map_mem_check(skel->obj);

	err = syswatch_bpf__load(skel);
	if (err) {
		err = bpf_fail("loading the BPF programs", err);
		goto cleanup;
	}
	err = filter_fill(skel->maps.target_tgids, skel->maps.target_tids,
			  skel->maps.target_cpus, &env.c);
	if (err) {
		err = bpf_fail("filling the target filter", err);
		goto cleanup;
	}
	if (env.slower_us) {
		ctx.sym = stacksym_new(false);
		stacksym_cache_targets(ctx.sym, &env.c);
		ctx.wall_offset = realtime_ns() - now_ns();
		ctx.rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event,
					  &ctx, NULL);
		if (!ctx.rb) {
			err = bpf_fail("creating the ring buffer", errno);
			goto cleanup;
		}
	}
	err = syswatch_bpf__attach(skel);
	if (err) {
		err = bpf_fail("attaching to raw_syscalls sys_enter/sys_exit", err);
		goto cleanup;
	}

	common_opts_target(&env.c, who, sizeof(who));
	run_say_tracing("syscalls", &env.c);

	end = run_loop(&(struct run_opts){
		.duration = env.c.duration,
		.pids = &env.c.pids,
		.tids = &env.c.tids,
		.poll = ctx.rb ? poll_events : NULL,
		.ctx = &ctx,
		.streaming = ctx.rb && !env.c.json,	/* --slower-than prints each call */
	});
	/* which threads sit in a syscall, read while the entries are still
	 * being recorded; then stop, so the report is one instant */
	snap_targets(&c);
	syswatch_bpf__detach(skel);
	ctx.draining = true;
	if (ctx.rb)
		ring_buffer__consume(ctx.rb);
	run_report_end(end);

	err = env.per_thread ? collect_threads(skel, &c) : collect_percpu(skel, &c);
	if (!err)
		err = collect_errnos(skel, &c);
	if (err) {
		msg_warn("reading the maps failed: %s", strerror(-err));
		err = EXIT_UNSUPPORTED;
		goto cleanup;
	}
	collect_in_progress(skel, &c);
	sort_rows(c.rows, c.n);
	sort_rows(c.trows, c.tn);
	if (c.ipn)
		qsort(c.ip, c.ipn, sizeof(*c.ip), inprog_cmp);
	for (size_t i = 0; i < c.n; i++) {
		c.calls += c.rows[i].v.h.count;
		c.early += c.rows[i].v.early;
		c.noreturn += c.rows[i].v.noreturn;
	}
	c.misc_range = percpu_u64_sum(skel->maps.misc, SW_MISC_NR_RANGE);
	if (!env.errors_only)
		in_progress = c.ipn;
	total = c.calls + c.early + c.noreturn + in_progress;
	losses_read(skel->maps.losses, losses);

	format_verdict(verdict, sizeof(verdict), total, in_progress, who, end);
	if (env.c.json) {
		print_json(&c, &ctx, losses, who, total, verdict);
		if (env.c.check)
			msg_warn("%s", verdict);
	} else {
		if (ctx.header_done)
			printf("\n");
		print_plain(&c);
		if (env.c.check)
			printf("\n%s\n", verdict);
	}
	fflush(stdout);
	losses_report(losses, loss_hints);
	if (c.misc_range)
		msg_warn("%llu calls with a number outside 0..%u were not recorded",
			 (unsigned long long)c.misc_range, slots - 1);
	if (ctx.sym)
		stacksym_report(ctx.sym);
	if (env.c.json && ctx.nslow_all > ctx.nslow)
		msg_warn("%llu slow calls beyond the first %d left out of the JSON",
			 (unsigned long long)(ctx.nslow_all - ctx.nslow), MAX_JSON_SLOW);
	err = (env.c.check && total) ? EXIT_FOUND : EXIT_REPORTED;

cleanup:
	ring_buffer__free(ctx.rb);
	syswatch_bpf__destroy(skel);
	stacksym_free(ctx.sym);
	for (size_t i = 0; i < c.n; i++)
		free(c.rows[i].errs);
	for (size_t i = 0; i < c.tn; i++)
		free(c.trows[i].errs);
	free(c.rows);
	free(c.trows);
	free(c.ip);
	free(ctx.slow);
	id_list_free(&ctx.cached);
	free(ctx.cached_image);
	return err;
}
