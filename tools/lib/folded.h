/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Folded stacks (CLI.md), the input of flamegraph.pl: one line per
 * stack, "comm;root;...;leaf COUNT", frames escaped, a ';' in a name
 * written ':', kernel frames marked "_[k]". */
#ifndef SUITE_FOLDED_H
#define SUITE_FOLDED_H

#include <stdint.h>
#include <stdio.h>

/* Folded stacks: lines gathered, merged by identical text, printed sorted */
struct folded;
struct folded *folded_new(void);
void folded_free(struct folded *fo);
/* comm; user frames (root first); kernel frames (root first, "_[k]" added) */
void folded_add(struct folded *fo, const char *comm, const char **ufr, int un,
		const char **kfr, int kn, uint64_t value);
void folded_print(struct folded *fo, FILE *f);
/* The stack part of folded_add()'s line (no value): malloc'ed */
char *folded_line(const char *comm, const char **ufr, int un, const char **kfr, int kn);
/* A line of folded_line() and its value (the line is the folded's now) */
void folded_add_line(struct folded *fo, char *line, uint64_t value);

#endif
