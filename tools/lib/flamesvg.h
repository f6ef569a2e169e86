/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Flame graphs as one self-contained SVG file (--svg FILE, CLI.md):
 * stacks with values merged into a tree, each frame a <rect> and a
 * <text> whose width is its share of the total, coloured by its kind;
 * a title (tool, target, window, unit), a legend, and an inline script
 * (click to zoom, search with the share matched, hover details) over
 * frames that read as a static image without it.
 *
 * Names are hostile (a traced process chooses them): escaped by the
 * suite's rule (escape.h), then for XML.  A frame narrower than
 * FLAMESVG_MIN_PX of FLAMESVG_WIDTH is not drawn: the narrow children
 * of one frame become one grey "[N frames < 1 px]" frame when that is
 * wide enough, and the frames left out are counted in the file.  The
 * file stays under a size cap: the deepest frames go first, and what
 * was cut is said in it.
 *
 * A differential graph (--diff with --svg, flamesvg_add_diff()): each
 * frame also has its value in an earlier run, matched by the path of
 * names from the root (kernel frames as folded output marks them); the
 * widths are this run's, the colour the change: red grew, blue shrank,
 * the lightness in proportion to |change| over the largest |change| of
 * a drawn frame (flamesvg_diff_fill()), grey unchanged.  Frames with
 * nothing now (gone) have no width: the stacks gone and their value
 * before are said under the title. */
#ifndef SUITE_FLAMESVG_H
#define SUITE_FLAMESVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stacks.h"

#define FLAMESVG_WIDTH 1200
#define FLAMESVG_MIN_PX 1.0
/* the default cap on the file's size */
#define FLAMESVG_MAX_BYTES (8u << 20)

enum flamesvg_kind {
	FLAME_ROOT,		/* "all" */
	FLAME_THREAD,		/* the comm */
	FLAME_USER,
	FLAME_KERNEL,
	FLAME_INLINED,		/* --inline: a function inlined in its caller */
	FLAME_JIT,		/* named by a perf map: code in no file */
	FLAME_UNRESOLVED,	/* [unknown], [MODULE], MODULE+0xADDR, lost stacks */
	FLAME_MERGED,		/* frames narrower than a pixel, together */
	FLAME_KINDS
};

/* What the title says: "TOOL: WHAT of TARGET, WINDOW (UNIT)" */
struct flamesvg_meta {
	const char *tool;	/* "offcputime" */
	const char *what;	/* "off-CPU time" */
	const char *target;	/* "pid 42", "all threads" */
	const char *unit;	/* "us", "wakeups" */
	const char *window;	/* "5.0 s from 2026-12-04 05:10:00 UTC", or NULL */
};

struct flamesvg;
struct flamesvg *flamesvg_new(void);
void flamesvg_free(struct flamesvg *g);
/* One stack, root first (its first frame the thread), each frame of
 * kinds[i]; the same path of (name, kind) adds up */
void flamesvg_add(struct flamesvg *g, const char *const *names, const unsigned char *kinds,
		  int n, uint64_t value);
/* One entry of a stack tool: comm, then f's user frames, then its
 * kernel frames (as folded output orders them), kinds from f, l (where
 * the user frames are, may be NULL) and sym (which names are not
 * resolved).  In interrupt context (wakers), irq is the frame that
 * stands where the user frames would ("[NET_RX]", a kernel frame; "":
 * none) and comm the context's label; NULL otherwise. */
void flamesvg_add_stack(struct flamesvg *g, const struct stacksym *sym, const char *comm,
			const char *irq, const struct stack_frames *f,
			const struct stack_locs *l, uint64_t value);

/* One line of folded output (docs/CLI.md "Folded stacks"), its count
 * apart: stack is "comm;frame;...", names escaped by the suite's rule
 * (undone here: the writer escapes once), kernel frames marked "_[k]"
 * (the mark dropped, kind kernel), "[...]" frames unresolved (kernel
 * ones too: "[unknown]_[k]"), the first frame the thread */
void flamesvg_add_folded(struct flamesvg *g, const char *stack, uint64_t value);

/* One line of folded output (as flamesvg_add_folded()) with its value
 * in the earlier run (before) and in this one (after): the graph becomes
 * a differential one.  A line with nothing now (gone) adds its before to
 * the frames that exist only: add the lines of this run first */
void flamesvg_add_diff(struct flamesvg *g, const char *stack, uint64_t before, uint64_t after);
/* What the title says the graph is set against ("against PATH") */
void flamesvg_against(struct flamesvg *g, const char *path);
/* A differential frame's fill for change against the largest |change|
 * max_abs: "hsl(0,80%,L%)" grew, "hsl(220,80%,L%)" shrank, L = 90 -
 * round(40 * |change| / max_abs) (90: the least change, 50: the largest);
 * "hsl(0,0%,90%)" unchanged */
void flamesvg_diff_fill(char *buf, size_t size, int64_t change, uint64_t max_abs);

/* What the last write left out (for tests and the tool's note) */
struct flamesvg_stats {
	size_t frames;		/* in the tree, the root included */
	size_t drawn;		/* <rect>s written, merged ones included */
	size_t narrow;		/* frames narrower than a pixel, not drawn */
	size_t merged;		/* "[N frames < 1 px]" boxes among the drawn */
	size_t cut;		/* frames left out for the size cap */
	int cut_depth;		/* the first depth cut (0: none) */
	size_t gone;		/* differential: stacks with nothing now */
	uint64_t gone_before;	/* their value before */
	uint64_t max_change;	/* differential: the largest |change| drawn */
};

/* The SVG to f, at most max_bytes (0: FLAMESVG_MAX_BYTES); -1 when f
 * failed (ferror) */
int flamesvg_write(struct flamesvg *g, FILE *f, const struct flamesvg_meta *m,
		   size_t max_bytes, struct flamesvg_stats *st);

struct common_opts;
/* --svg PATH opened at once, before anything is attached; exits with
 * EXIT_USAGE ("--svg: cannot write PATH: REASON") when it cannot be */
FILE *flamesvg_open(const char *path);
/* flamesvg_write() and close; -1 when it failed (said: output.h) */
int flamesvg_finish(struct flamesvg *g, FILE *f, const struct flamesvg_meta *m);
/* "N s from YYYY-MM-DD HH:MM:SS UTC": the window from start_ns to end_ns
 * (CLOCK_MONOTONIC; CLOCK_REALTIME = it + realtime_offset_ns) */
void flamesvg_window(char *buf, size_t size, uint64_t start_ns, uint64_t end_ns,
		     int64_t realtime_offset_ns);
/* "N s from YYYY-MM-DD HH:MM:SS UTC": the run's window (run.h) */
void flamesvg_run_window(char *buf, size_t size);
/* The graph of this run (a tool's --svg): titled with tool, what, the
 * target of o and the run's window, written to f and closed; g freed.
 * -1 when it could not be written (said) */
int flamesvg_finish_run(struct flamesvg *g, FILE *f, const char *tool, const char *what,
			const char *unit, const struct common_opts *o);

#endif
