/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* hitmtop's user-space model, without BPF or symbols, so that unit tests
 * and the fuzz target use it directly: the sample text format (--record,
 * --replay), aggregation by cache line, offset and code address, and the
 * verdict (true sharing, false sharing, unclear).
 *
 * Text format, one sample a line, fields separated by blanks, each decimal
 * or 0x-hex; '#' starts a comment:
 *     cpu pid tid ip addr data_src weight
 * data_src is the raw value of union perf_mem_data_src (linux/perf_event.h). */
#ifndef SUITE_HITM_H
#define SUITE_HITM_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "hitmtop.h"

/* ---- the text format ---- */

/* Parses one line (without or with its '\n').  Returns 1 and fills *s for a
 * sample, 0 for a blank or comment line, -1 with a message in err when the
 * line is malformed. */
int hitm_parse_line(const char *line, struct hitm_sample *s, char *err, size_t errlen);
/* The header --record writes, and one sample line */
void hitm_write_header(FILE *f, const char *what);
void hitm_write_sample(FILE *f, const struct hitm_sample *s);

/* ---- aggregation ---- */

/* One (offset, ip) of a line */
struct hitm_cell {
	uint32_t offset;
	uint64_t ip;
	struct hitm_counts c;
};

struct hitm_line {
	uint32_t pid;
	uint64_t line;
	struct hitm_counts c;
	struct hitm_cell *cells;
	size_t ncells, cap;
	/* bounded aggregation: the rank that decides which line is folded
	 * first (base, inherited from the line folded to make room, plus
	 * its own HITMs), and its place in the heap */
	uint64_t base;
	size_t heap_pos;
};

/* What a bounded aggregation folded into "other": line records made room
 * for others (with their samples and HITMs), and samples counted in their
 * line without an (offset, ip) cell */
struct hitm_other {
	uint64_t lines, samples, hitm;
	uint64_t cell_samples;
};

struct hitm_agg {
	struct hitm_line *lines;
	size_t nlines, cap;
	struct hashmap *index;	/* (pid, line) -> its number in lines */
	uint64_t samples;	/* every sample given to hitm_agg_sample() */
	uint64_t kept;		/* counted in a line */
	uint64_t skips[HITM_SKIP_KINDS];
	/* the bound (hitm_agg_bound): at most max_lines lines and max_cells
	 * (offset, ip) cells; 0: none */
	size_t max_lines, max_cells, ncells;
	size_t *heap;		/* line indices, lowest rank first */
	struct hitm_other other;
};

void hitm_agg_init(struct hitm_agg *a);
/* Keep at most max_lines lines and 4 max_lines cells (the kernel map's
 * shape), whatever the input: when a new line needs room, the line of
 * lowest rank is folded into a->other.  The rank is that of Space-Saving
 * (the folded line's rank plus the new line's own HITMs), so a line with
 * a large share of the HITMs is kept; the counts shown stay exact (what a
 * line had before it was folded is in other), so samples = kept + skipped
 * and kept = the lines' samples + other.samples. */
void hitm_agg_bound(struct hitm_agg *a, size_t max_lines);
void hitm_agg_free(struct hitm_agg *a);
/* Forget every line and count (the agg stays usable) */
void hitm_agg_reset(struct hitm_agg *a);
/* One sample, by the rule of the BPF program: HITM loads and stores
 * create a line; other loads count only on lines that exist. */
void hitm_agg_sample(struct hitm_agg *a, const struct hitm_sample *s);
/* Counts from the kernel's maps (added to what is there) */
void hitm_agg_add_line(struct hitm_agg *a, const struct hitm_line_key *k,
		       const struct hitm_counts *c);
void hitm_agg_add_cell(struct hitm_agg *a, const struct hitm_off_key *k,
		       const struct hitm_counts *c);
struct hitm_line *hitm_agg_find(struct hitm_agg *a, uint32_t pid, uint64_t line);

/* ---- the report model ---- */

/* A code address that touched an offset */
struct hitm_code {
	uint64_t ip;
	uint64_t samples;	/* loads + stores */
};

struct hitm_offset {
	uint32_t offset;
	struct hitm_counts c;
	struct hitm_code *code;	/* most samples first */
	size_t ncode, code_cap;
};

enum hitm_verdict {
	HITM_UNCLEAR,
	HITM_FALSE_SHARING,
	HITM_TRUE_SHARING,
};

struct hitm_view {
	const struct hitm_line *l;
	struct hitm_offset *offs;	/* by offset */
	size_t noffs;
	enum hitm_verdict verdict;
};

/* Lines with at least one HITM, most HITMs first (then most stores, then
 * lowest pid and address); at most max (0: all).  Returns the count;
 * *out is malloc'ed, free with hitm_views_free(). */
size_t hitm_views(const struct hitm_agg *a, size_t max, struct hitm_view **out);
void hitm_views_free(struct hitm_view *v, size_t n);
/* The offsets of a line with their code, and its verdict */
enum hitm_verdict hitm_verdict(const struct hitm_offset *offs, size_t n);
const char *hitm_verdict_str(enum hitm_verdict v);
/* The fix, in one line */
const char *hitm_fix_str(enum hitm_verdict v);

/* Threads that wrote: 0, 1, or 2 for two or more */
unsigned hitm_writer_threads(const struct hitm_counts *c);

/* CPU sets */
unsigned hitm_cpu_count(const __u64 set[HITM_CPU_WORDS]);
/* "0,2-3" into buf */
void hitm_cpu_str(const __u64 set[HITM_CPU_WORDS], char *buf, size_t size);

#endif
