/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What syswatch reads back: the rows per syscall (and per thread and
 * syscall) with their errnos from the maps, and the calls in progress
 * when tracing stopped. */
#ifndef SYSWATCH_COLLECT_H
#define SYSWATCH_COLLECT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "options.h"
#include "syswatch.h"

struct bpf_map;

struct errcnt {
	__u32 err;
	__u64 count;
};

struct row {
	__u32 tid, pid;		/* 0: every thread */
	char comm[TASK_COMM_LEN];
	long nr;
	struct sw_val v;
	struct errcnt *errs;	/* most first, after collected_sort() */
	size_t nerr, errcap;
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

/* What a run collected: the syscalls, per syscall and per thread */
struct calls {
	struct row *rows;		/* per syscall */
	size_t n, cap;
	size_t sys_idx[SW_MAX_SYSCALLS];	/* nr -> index + 1 in rows */
	struct row *trows;		/* per thread and syscall */
	size_t tn, tcap;
	struct inprog *ip;		/* threads seen, then calls in progress */
	size_t ipn, ipcap;
	__u64 calls, early, noreturn, misc_range;
};

/* While still tracing: which target threads sit in a syscall */
void collect_snap_targets(struct calls *c, const struct sw_opts *o);
/* After detaching: the per-syscall array sys_stats (or, --per-thread,
 * the hash thread_stats) and the errnos; 0 or a negative errno */
int collect_rows(struct calls *c, const struct sw_opts *o,
		 struct bpf_map *sys_stats, struct bpf_map *thread_stats,
		 struct bpf_map *errnos);
/* After detaching: of the threads snapped, those in a call (from the
 * task storage inflight, or since before tracing began) */
void collect_in_progress(struct calls *c, const struct sw_opts *o,
			 struct bpf_map *inflight);
/* The rows in report order, and the totals */
void collected_sort(struct calls *c);
void collected_free(struct calls *c);

#endif
