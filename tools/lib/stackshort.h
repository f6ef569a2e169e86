/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* User stacks taken with frame pointers that stop after one or two
 * frames, counted per process (each stack once): when most of a
 * process's do, its code likely lacks frame pointers, and the report
 * says so once. */
#ifndef SUITE_STACKSHORT_H
#define SUITE_STACKSHORT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>

#include "stackeng.h"

struct stackshort;

struct stackshort *stackshort_new(void);
void stackshort_free(struct stackshort *sh);
/* A user stack (id ustack) of pid, n addresses (leaf first, zero-ended
 * or n long), resolved */
void stackshort_count(struct stackshort *sh, uint32_t pid, __u64 ustack, const __u64 *ips, int n);
/* The note on stderr, once, naming the processes; with dwarf_hint, that
 * --dwarf unwinds whole stacks */
void stackshort_report(const struct stackshort *sh, bool dwarf_hint);

#endif
