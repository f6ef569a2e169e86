/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Profiles in pprof's format (--pprof FILE, CLI.md): a gzipped
 * profile.proto message, encoded here (varints and length-delimited
 * fields), for go tool pprof, Pyroscope and Parca.
 *
 * A profile gathers samples, each a stack (struct stack_frames with its
 * struct stack_locs) with one value per sample type and its labels.
 * Strings, functions, locations and mappings are interned as samples
 * come: string 0 is "", ids count from 1.  Kernel frames go to one
 * mapping named "[kernel]"; a user frame in a known file mapping goes to
 * a mapping of that file (path, range, offset, build id).  A frame the
 * symbolizer could not name ("[unknown]", "[MODULE]") keeps its address
 * and mapping and has no function, so that the consumer may name it. */
#ifndef SUITE_PPROF_H
#define SUITE_PPROF_H

#include <stdint.h>
#include <stdio.h>

#include "stacks.h"

struct common_opts;
struct pprof;

/* The sample types, one per value of every sample ("off_cpu",
 * "nanoseconds"), at most PPROF_TYPES */
#define PPROF_TYPES 4
struct pprof *pprof_new(const char *const types[][2], int ntypes);
void pprof_free(struct pprof *p);
/* period_type and period (leave unset where they mean nothing) */
void pprof_period(struct pprof *p, const char *type, const char *unit, int64_t period);
/* time_nanos (wall clock, ns since the epoch) and duration_nanos */
void pprof_times(struct pprof *p, int64_t time_ns, int64_t duration_ns);

/* A sample's labels: numeric (pid, tid) or text (comm) */
#define PPROF_LABELS 6
struct pprof_label {
	const char *key;
	const char *str;	/* NULL: a numeric label */
	int64_t num;
};

/* One sample: f's kernel frames (leaf side) then its user frames, each
 * with its place in l; values[ntypes]; labels.  Names and mappings must
 * live until pprof_write() (the stacksym's do). */
void pprof_add(struct pprof *p, const struct stack_frames *f, const struct stack_locs *l,
	       const int64_t *values, const struct pprof_label *labels, int nlabels);

/* The profile's bytes, before gzip (for tests); valid until the next
 * call on p */
const uint8_t *pprof_encode(struct pprof *p, size_t *len);
/* Encodes, gzips and writes to f; -1 when it could not be (said). */
int pprof_write(struct pprof *p, FILE *f);

/* --pprof PATH opened at once, before anything is attached: "-" is
 * stdout (then -f and -j, which also write stdout, are refused), else
 * the file is created; exits with EXIT_USAGE when it cannot be. */
FILE *pprof_open(const char *path, const struct common_opts *o);
/* Writes and closes (stdout is flushed); -1 when it failed (said, and
 * the exit status is EXIT_USAGE, output.h) */
int pprof_finish(struct pprof *p, FILE *f);

/* The labels every tool puts on a sample: pid, tid, comm (an empty
 * comm is "[unknown]"); returns how many (3) */
int pprof_task_labels(struct pprof_label *lb, uint32_t pid, uint32_t tid, const char *comm);

/* A profile of this run (run.h): time_nanos its start on the wall
 * clock, duration_nanos from its start to its stop */
struct pprof *pprof_run_new(const char *const types[][2], int ntypes);

#endif
