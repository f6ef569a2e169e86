/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The options of syswatch: parsed by its main file (syswatch.c), read by
 * its modules (collect, stream, report). */
#ifndef SYSWATCH_OPTIONS_H
#define SYSWATCH_OPTIONS_H

#include <linux/types.h>
#include <stdbool.h>
#include "opts.h"
#include "syswatch.h"

struct sw_opts {
	struct common_opts c;
	bool per_thread;
	bool errors_only;
	__u64 slower_us;	/* 0: no streaming */
	bool filter;		/* --syscall */
	__u64 mask[SW_MAX_SYSCALLS / 64];
	__u32 max_entries;
	struct stack_opts s;	/* --slower-than's stacks: sizes, --dwarf */
};

/* --syscall NAME,...: each syscall into o->mask (a bad list exits 2) */
void sw_parse_syscalls(struct sw_opts *o, const char *arg);
/* Whether --syscall (if given) lets syscall nr in */
bool sw_nr_wanted(const struct sw_opts *o, long nr);

#endif
