/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --slower-than: the calls over the threshold, from the ring buffer
 * "events" (with --dwarf, from ustack_rb after their samples), printed as
 * they come with their user stacks, or with -j kept for the JSON
 * document.  Their stacks are the stack engine's (lc->stacks): the frames
 * of a new stack come on stack_rb, which is read before each call. */
#ifndef SYSWATCH_STREAM_H
#define SYSWATCH_STREAM_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "opts.h"
#include "syswatch.h"
#include "vec.h"

struct ring_buffer;
struct stacksym;
struct stackstore;
struct dwunw;
struct flamesvg;
struct folded;
struct folddiff;

/* A slow call kept for the JSON document */
struct slow {
	struct sw_event e;
	__u64 wall_ns;
	int dwarf_id;		/* --dwarf: its unwound stack, < 0: lost */
};

/* A process whose maps the symbolizer holds, and the last image of it */
struct cached_image {
	__u32 pid;
	__u64 exec_id;
};

#define MAX_JSON_SLOW 100000

struct slow_calls {
	struct ring_buffer *rb;
	struct ring_buffer *stack_rb;	/* stack_rb alone, into stacks */
	struct stackstore *stacks;
	struct dwunw *dw;		/* --dwarf, else NULL */
	struct stacksym *sym;
	bool keep;		/* -j: keep them, else print each */
	__u64 wall_offset;	/* realtime - monotonic */
	struct slow *slow;	/* the first MAX_JSON_SLOW kept */
	size_t nslow, slow_cap;
	unsigned batch;		/* events taken in this poll */
	bool draining;		/* after the stop: take every event left */
	__u64 nslow_all;
	bool header_done;	/* the plain header is out */
	struct flamesvg *svg;	/* --svg: every slow call, else NULL */
	/* -f: every slow call as a folded line (comm; user frames; the
	 * syscall as kernel frame), its latency in us the value; then
	 * nothing is printed as it comes */
	struct folded *fo;
	struct folddiff *diff;	/* --diff: the same lines, against a file */
	__u64 total_us;		/* the latencies of all of them, in us */
	VEC(struct cached_image) cached;
};

/* The symbolizer (of so: --lines, --inline, --no-params), with the
 * targets' maps, and the clock offset; stacks:
 * the store that stack_rb (map fd stack_rb_fd) fills; dwarf: unwind the
 * samples of ustack_rb.  0 or a negative errno */
struct stack_opts;
int slow_calls_start(struct slow_calls *s, const struct common_opts *o,
		     const struct stack_opts *so, struct stackstore *stacks, int stack_rb_fd,
		     bool dwarf);
/* The callback of "events" (ctx: the slow_calls) */
int slow_calls_on_event(void *ctx, void *data, size_t size);
/* --dwarf: the callback of ustack_rb (samples, and the calls after them) */
int slow_calls_on_dwarf(void *ctx, void *data, size_t size);
/* The run loop's poll of s->rb: at most a batch of events per call, so
 * that a steady stream cannot keep the loop from its deadline and signals */
int slow_calls_poll(void *ctx, int timeout_ms);
/* The user stack of a slow call; dwarf_id: its unwound stack with
 * --dwarf (< 0: lost), else unused */
struct stack_frames;
void slow_call_frames(const struct slow_calls *s, const struct sw_event *e,
		      int dwarf_id, struct stack_frames *f);
void slow_calls_free(struct slow_calls *s);

#endif
