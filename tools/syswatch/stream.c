// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "stream.h"
#include "msg.h"
#include "clock.h"
#include "dwunw.h"
#include "escape.h"
#include "flamesvg.h"
#include "folddiff.h"
#include "folded.h"
#include "histogram.h"
#include "output.h"
#include "stacks.h"
#include "stackstore.h"
#include "syscalls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>

/* Events taken in one poll at most */
#define POLL_BATCH 512
#define BATCH_FULL (-EAGAIN)

int slow_calls_start(struct slow_calls *s, const struct common_opts *o,
		     const struct stack_opts *so, struct stackstore *stacks, int stack_rb_fd,
		     bool dwarf)
{
	s->keep = o->json;
	s->sym = stacksym_for(so);
	stacksym_set_dwarf_hint(s->sym, !so->dwarf);
	stacksym_cache_targets(s->sym, o);
	s->wall_offset = realtime_ns() - now_ns();
	s->stacks = stacks;
	/* a ring buffer of its own, so that it can be read before each call */
	s->stack_rb = ring_buffer__new(stack_rb_fd, stackstore_on_event, stacks, NULL);
	if (!s->stack_rb)
		return -errno;
	if (dwarf) {
		s->dw = dwunw_new();
		dwunw_cache_targets(s->dw, o);
	}
	return 0;
}

void slow_call_frames(const struct slow_calls *s, const struct sw_event *e,
		      int dwarf_id, struct stack_frames *f)
{
	struct stack_ref r = { .kstack = STACK_NONE, .ustack = e->ustack,
			       .pid = e->pid, .image = e->exec_id };

	if (e->ustack == STACK_IN_SAMPLE) {
		r.ustack = dwarf_id >= 0 && s->dw ? (__u64)dwarf_id : STACK_LOST;
		r.dw = dwarf_id >= 0 ? s->dw : NULL;
	}
	stack_frames_resolve(s->sym, s->stacks, &r, f);
}

static void print_slow(struct slow_calls *s, const struct sw_event *e,
		       const struct stack_frames *fr, __u64 wall)
{
	char tb[32], lb[24], nb[40];
	time_t sec = wall / 1000000000ULL;
	struct tm tm;

	if (!s->header_done) {
		printf("%-15s %-8s %-16s %-20s %10s %s\n", "TIME", "TID", "COMM",
		       "SYSCALL", "LATENCY", "RET");
		s->header_done = true;
	}
	localtime_r(&sec, &tm);
	strftime(tb, sizeof(tb), "%H:%M:%S", &tm);
	fmt_dur(lb, sizeof(lb), e->lat_ns, DUR_CELL);
	printf("%s.%06llu %-8u %s %-20s %10s %lld\n", tb,
	       (unsigned long long)(wall % 1000000000ULL / 1000), e->tid, ESC_COL(e->comm, 16),
	       syscall_name_fmt(e->nr, nb, sizeof(nb)), lb, (long long)e->ret);
	stack_frames_print(stdout, fr, true);
	fflush(stdout);
}

/* Name the frames later, even if the process exits: each image once (an
 * exec maps other files) */
static void cache_image(struct slow_calls *s, __u32 pid, __u64 exec_id)
{
	struct cached_image *c = NULL;

	for (size_t k = 0; k < s->cached.n && !c; k++)
		if (s->cached.v[k].pid == pid)
			c = &s->cached.v[k];
	if (!c) {
		c = vec_add(&s->cached);
		c->pid = pid;
		c->exec_id = ~0ULL;
	}
	if (c->exec_id != exec_id) {
		c->exec_id = exec_id;
		stacksym_cache_image(s->sym, pid, exec_id);
	}
}

/* The call as a stack of the flame graph and of -f: the thread, its user
 * frames, then the syscall (a kernel frame); its latency (us) the value */
static void stack_call(struct slow_calls *s, const struct sw_event *e, struct stack_frames *fr)
{
	char nb[40];
	__u64 us = e->lat_ns / 1000;

	fr->k[0] = syscall_name_fmt(e->nr, nb, sizeof(nb));
	fr->kn = 1;
	fr->klost = false;
	if (s->svg)
		flamesvg_add_stack(s->svg, s->sym, e->comm, NULL, fr, NULL, us);
	if (s->fo || s->diff) {
		char *line = folded_line(e->comm, fr->u, fr->un, fr->k, fr->kn);

		if (s->diff)
			folddiff_add(s->diff, line, us);
		if (s->fo)
			folded_add_line(s->fo, line, us);	/* the line is fo's */
		else
			free(line);
	}
	fr->k[0] = NULL;	/* nb goes out of scope */
	fr->kn = 0;
}

/* One slow call, its stack where slow_call_frames() finds it */
static int take_call(struct slow_calls *s, const struct sw_event *e, int dwarf_id)
{
	__u64 wall = e->ts + s->wall_offset;
	bool print = !s->keep && !s->fo && !out_closed();
	struct stack_frames fr;

	s->nslow_all++;
	s->total_us += e->lat_ns / 1000;
	if (print || s->svg || s->fo || s->diff)
		slow_call_frames(s, e, dwarf_id, &fr);
	if (print)
		print_slow(s, e, &fr, wall);
	if (s->svg || s->fo || s->diff)
		stack_call(s, e, &fr);
	if (s->keep && s->nslow < MAX_JSON_SLOW) {
		struct slow *k;

		cache_image(s, e->pid, e->exec_id);
		array_reserve(s->slow, s->slow_cap, s->nslow + 1);
		k = &s->slow[s->nslow++];
		k->e = *e;
		k->wall_ns = wall;
		k->dwarf_id = dwarf_id;
	}
	/* the event is taken either way; a negative return ends the poll */
	return ++s->batch >= POLL_BATCH && !s->draining ? BATCH_FULL : 0;
}

int slow_calls_on_event(void *ctx, void *data, size_t size)
{
	struct slow_calls *s = ctx;
	const struct sw_event *e = data;

	if (size < sizeof(*e) || e->type != SW_EV_SLOW)
		return 0;
	/* the frames of a new stack went on stack_rb before this record was
	 * reserved: read them first, whichever ring the poll took first */
	ring_buffer__consume(s->stack_rb);
	return take_call(s, e, -1);
}

int slow_calls_on_dwarf(void *ctx, void *data, size_t size)
{
	struct slow_calls *s = ctx;
	const struct sw_event *e = data;

	/* a sample is unwound and kept until its call, which follows it */
	if (dwunw_on_record(s->dw, data, size) != SW_EV_SLOW || size < sizeof(*e))
		return 0;
	return take_call(s, e, e->ustack == STACK_IN_SAMPLE ? dwunw_take(s->dw, e->seq) : -1);
}

int slow_calls_poll(void *ctx, int timeout_ms)
{
	struct slow_calls *s = ctx;
	int err;

	s->batch = 0;
	err = ring_buffer__poll(s->rb, timeout_ms);
	/* the stacks of calls whose records were lost: not left to fill it */
	ring_buffer__consume(s->stack_rb);
	return err < 0 && err != BATCH_FULL ? err : 0;
}

void slow_calls_free(struct slow_calls *s)
{
	stacksym_free(s->sym);
	ring_buffer__free(s->stack_rb);
	dwunw_free(s->dw);
	free(s->slow);
	vec_free(&s->cached);
	flamesvg_free(s->svg);
	folded_free(s->fo);
	folddiff_free(s->diff);
	memset(s, 0, sizeof(*s));	/* freed again: nothing to free */
}
