/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A run against an earlier one (--diff BEFORE.folded): the folded lines
 * of the earlier run, read from its file, and this run's, each stack
 * with its value before and after; the stacks that grew and shrank most.
 *
 * The file is folded output (folded.h): "STACK VALUE" a line, VALUE a
 * decimal integer after the last space; the same stack twice adds up
 * (as flamegraph.pl reads it); empty lines are skipped.  Anything else is
 * refused with the line's number. */
#ifndef SUITE_FOLDDIFF_H
#define SUITE_FOLDDIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FOLDDIFF_MAX_LINE (1u << 20)	/* bytes a line, newline included */
#define FOLDDIFF_TOP 10			/* stacks listed each way */

struct folddiff;

struct folddiff_row {
	const char *stack;
	uint64_t before, after;
	int64_t change;		/* after - before */
};

/* path read whole; NULL when it cannot be (why: "PATH: line 3: no value",
 * "PATH: No such file or directory") */
struct folddiff *folddiff_load(const char *path, char *why, size_t why_size);
/* One stack of this run (folded as the file's) */
void folddiff_add(struct folddiff *d, const char *stack, uint64_t value);
/* Every stack, most grown first, most shrunk last (ties: by stack); the
 * array lives until the next call or folddiff_free() */
const struct folddiff_row *folddiff_rows(struct folddiff *d, size_t *n);
uint64_t folddiff_total_before(const struct folddiff *d);
uint64_t folddiff_total_after(const struct folddiff *d);
/* The plain report's section: the totals, then the top stacks that grew
 * and those that shrank, each with before, after and change, in unit
 * ("us", "wakeups", "faults") */
void folddiff_print(struct folddiff *d, FILE *f, const char *path, const char *unit,
		    size_t top);
/* The key "diff": {"before_file", "before_total", "after_total", "grew":
 * [...], "shrank": [...]}, each row {"stack", "before", "after",
 * "change"}, top of them each way */
struct json;
void folddiff_json(struct folddiff *d, struct json *j, const char *path, size_t top);
/* The flame graph a stack tool's --svg writes: with --diff (d not
 * NULL), the differential one, drawn from d's stacks (this run's values
 * its widths, coloured by the change: flamesvg.h) against path, in
 * place of g (freed); without, g */
struct flamesvg;
struct flamesvg *folddiff_graph(struct folddiff *d, const char *path, struct flamesvg *g);
/* --diff PATH read at once, before anything is attached; exits with
 * EXIT_USAGE ("--diff: PATH: line 3: no value") when it cannot be */
struct folddiff *folddiff_open(const char *path);
/* A stack tool's --diff (path, NULL: none), -f or not (folded): -f writes
 * what --diff reads, and both exit EXIT_USAGE; then folddiff_open() */
struct folddiff *folddiff_for(const char *path, bool folded);
void folddiff_free(struct folddiff *d);

#endif
