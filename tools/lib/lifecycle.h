/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The loader lifecycle every tool shares: one driver runs the phases in
 * order and calls the tool's hooks between them.
 *
 *   what the machine has         probe()         a PMU, the symbolizer
 *   bpf_env_check, signals       prepare()
 *   open                         open()          "opening the BPF object"
 *   configure                    target filter sizes, configure(),
 *                                tp_btf/raw_tp pick, map_mem_check
 *   load                                         load_what
 *   filter fill                                  fill_what
 *                                setup()         symbolizers, ring buffers
 *   attach                       attach()        attach_what
 *                                started()       perf events, snapshots
 *   the ready line               ready()         (lifecycle_say_ready)
 *   the loop                     run_loop(lc->run)
 *                                stopping()
 *   detach                       detach()
 *   last ring-buffer records     stopped()
 *   losses                       read from the "losses" map
 *   collect                      collect()       "reading the maps failed"
 *   report                       report()        stdout
 *   loss report                  losses_report(lc->losses, loss_hints)
 *   exit code                    finish()        stderr notes
 *   cleanup                      cleanup(), ring buffers, destroy()
 *
 * Every hook is optional but open and destroy (a tool without a BPF
 * object has neither: see below).  An int hook returns 0 or the exit
 * code to end with (the driver then goes to cleanup).
 *
 * Without open, the tool reads recorded data instead of the kernel: no
 * BPF object, no bpf_env_check, no signal handlers (SIGPIPE is ignored),
 * no loop: probe(), prepare(), collect(), report(), the loss report,
 * finish() and cleanup().
 *
 * A tool declares its table in one line, LIFECYCLE_TOOL(X, texts), and
 * names its hooks after itself and the phase: X_configure(), X_setup(),
 * ..., X_cleanup() (see LIFECYCLE_TOOL below). */
#ifndef SUITE_LIFECYCLE_H
#define SUITE_LIFECYCLE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "bpfload.h"
#include "filter.h"
#include "losses.h"
#include "opts.h"
#include "run.h"

struct bpf_map;
struct bpf_object;
struct bpf_object_skeleton;
struct ring_buffer;
struct json;
struct lifecycle;
struct stackstore;
struct agg;

/* The ready line on stderr, once everything is attached (scripts wait
 * for it): "SUBJECT[ for N s][ (DETAIL)][; Ctrl-C to end]" */
struct ready_line {
	char subject[640];	/* "tracing off-CPU time of pid 42" */
	char detail[128];	/* "" or "12 per-thread events" */
	bool no_duration;	/* do not say " for N s" */
	char after[256];	/* "" or a line said right after it */
};

struct lifecycle_ops {
	/* the ready line "tracing WHAT of TARGETS ..." (unless ready()) */
	const char *what;
	/* the what of bpf_fail() for the phases that can fail */
	const char *load_what;		/* NULL: "loading the BPF programs" */
	const char *fill_what;		/* NULL: "filling the target filter" */
	const char *attach_what;	/* "attaching to sched_switch" */
	/* losses_report()'s hints, [LOSS_KINDS], entries may be NULL */
	const char *const *loss_hints;
	/* the object has no tp_btf/raw_tp pairs: no flavour to pick */
	bool no_tp_flavour;

	/* X_bpf__open(): sets lc->skel and lc->tfilter (LIFECYCLE_SKELETON
	 * writes both hooks); NULL with errno set on failure.  NULL: no BPF
	 * object (a replay of recorded data) */
	struct bpf_object_skeleton *(*open)(struct lifecycle *lc);
	void (*destroy)(void *skel);

	/* first of all, before bpf_env_check: what the tool needs of the
	 * machine beyond BPF (a PMU, the symbolizer) */
	int (*probe)(struct lifecycle *lc);
	int (*prepare)(struct lifecycle *lc);	/* before open */
	int (*configure)(struct lifecycle *lc);	/* rodata, map sizes, autoload */
	/* after load and fill: symbolizers, ring buffers (lifecycle_ring),
	 * the loop's poll and streaming (lc->run) */
	int (*setup)(struct lifecycle *lc);
	int (*attach)(struct lifecycle *lc);	/* NULL: the skeleton's programs */
	int (*started)(struct lifecycle *lc);	/* attached, before the ready line */
	void (*ready)(struct lifecycle *lc, struct ready_line *r);
	void (*stopping)(struct lifecycle *lc);	/* the loop ended, still recording */
	void (*detach)(struct lifecycle *lc);	/* NULL: the skeleton's programs */
	void (*stopped)(struct lifecycle *lc);	/* the ring buffers are drained */
	int (*collect)(struct lifecycle *lc);	/* 0 or a negative errno */
	void (*report)(struct lifecycle *lc);	/* stdout: report, --check verdict */
	int (*finish)(struct lifecycle *lc);	/* notes; NULL: EXIT_REPORTED */
	void (*cleanup)(struct lifecycle *lc);	/* the tool's own state */
};

struct lifecycle {
	const struct lifecycle_ops *ops;
	struct common_opts *opts;
	void *tool;			/* the tool's state, for its hooks */
	void *skel;			/* struct X_bpf * */
	struct bpf_object_skeleton *skeleton;
	struct bpf_object *obj;
	volatile struct target_filter *tfilter;	/* &skel->rodata->tfilter */
	struct ring_buffer *rb;		/* lifecycle_ring() */
	/* a stack tool's stacks, by id (lifecycle_stack_rings) */
	struct stackstore *stacks;
	/* its drained aggregation maps (lifecycle_agg), NULL without */
	struct agg *agg;
	/* the loop: duration, -p/-t and a poll of lc->rb unless setup()
	 * says otherwise */
	struct run_opts run;
	enum run_end end;
	__u64 losses[LOSS_KINDS];	/* read before collect() */
};

/* The open and destroy hooks of skeleton X_bpf: skel_open, skel_destroy,
 * and the ops fields naming them */
#define LIFECYCLE_SKEL_HOOKS .open = skel_open, .destroy = skel_destroy
#define LIFECYCLE_SKELETON(X)						\
static struct bpf_object_skeleton *skel_open(struct lifecycle *lc)	\
{									\
	struct X##_bpf *s = X##_bpf__open_opts(bpf_open_opts());	\
									\
	if (!s)								\
		return NULL;						\
	lc->skel = s;							\
	lc->tfilter = &s->rodata->tfilter;				\
	return s->skeleton;						\
}									\
static void skel_destroy(void *skel)					\
{									\
	X##_bpf__destroy(skel);						\
}

/* The hooks a tool may name after itself, in phase order: M(X, phase)
 * for each */
#define LIFECYCLE_HOOKS(M, X)						\
	M(X, probe) M(X, prepare) M(X, configure) M(X, setup)		\
	M(X, attach) M(X, started) M(X, ready) M(X, stopping)		\
	M(X, detach) M(X, stopped) M(X, collect) M(X, report)		\
	M(X, finish) M(X, cleanup)
/* X_phase, of the type of ops->phase, declared weak: NULL (the hook is
 * absent) unless X defines it */
#define LIFECYCLE_HOOK_DECLARE(X, phase)				\
	extern __typeof__(*((struct lifecycle_ops *)0)->phase)		\
		X##_##phase __attribute__((weak));
#define LIFECYCLE_HOOK_FIELD(X, phase) .phase = X##_##phase,

/* The table P_ops of the hooks P_probe() ... P_cleanup() that are
 * defined (the others are NULL), and the texts given as designated
 * initializers.  P is the tool's name (LIFECYCLE_TOOL) or, for a
 * tool's second table, a name that begins with it (hitmtop_replay): a
 * weak reference would take a library's function of the same name. */
#define LIFECYCLE_OPS(P, ...)						\
LIFECYCLE_HOOKS(LIFECYCLE_HOOK_DECLARE, P)				\
static const struct lifecycle_ops P##_ops = {				\
	LIFECYCLE_HOOKS(LIFECYCLE_HOOK_FIELD, P)			\
	__VA_ARGS__							\
}

/* Tool X's whole table, X_ops, in one declaration: the skeleton's open
 * and destroy (LIFECYCLE_SKELETON(X)), the hooks X_probe() ...
 * X_cleanup() that X defines, and the texts:
 *
 *	LIFECYCLE_TOOL(wakers, .what = "wakeups", .loss_hints = loss_hints,
 *		       .attach_what = "attaching to sched_waking");
 *	int wakers_configure(struct lifecycle *lc) { ... }
 *	...
 *	return lifecycle_run(&wakers_ops, &env.c, &tool);
 *
 * A hook is a function of X's main file X.c (a weak reference does not
 * pull a module out of the tool's archive) named exactly X_phase; a
 * misspelt one has no declaration, and -Wmissing-prototypes (Makefile)
 * says so at build time.  A tool that needs a table of another
 * shape writes its own struct lifecycle_ops (with LIFECYCLE_SKEL_HOOKS). */
#define LIFECYCLE_TOOL(X, ...)						\
LIFECYCLE_SKELETON(X)							\
LIFECYCLE_OPS(X, LIFECYCLE_SKEL_HOOKS, __VA_ARGS__)

/* The options phase of main(): suite_init(name), argp_parse, then
 * common_opts_finish(opts) */
struct argp;
void lifecycle_options(const char *name, const struct argp *argp, int argc,
		       char **argv, struct common_opts *opts);
/* Runs the whole lifecycle; returns the exit code */
int lifecycle_run(const struct lifecycle_ops *ops, struct common_opts *opts,
		  void *tool);
/* Its first phases alone (open, configure, load, filter fill), for a mode
 * that only loads: 0 or the exit code; then lifecycle_free() */
int lifecycle_load(struct lifecycle *lc, const struct lifecycle_ops *ops,
		   struct common_opts *opts, void *tool);
/* The cleanup phase: cleanup(), the ring buffers, the skeleton */
void lifecycle_free(struct lifecycle *lc);

/* In setup(): read ring-buffer map with fn(ctx) in the loop.  The first
 * call creates lc->rb, the others add to it; on failure bpf_fail(what)
 * and its exit code */
typedef int (*lifecycle_ring_fn)(void *ctx, void *data, size_t size);
int lifecycle_ring(struct lifecycle *lc, struct bpf_map *map,
		   lifecycle_ring_fn fn, void *ctx, const char *what);
/* In setup(), for a stack tool: "stack_rb" (the stack engine's new
 * stacks) read into lc->stacks, "announce_rb" read by announce(actx),
 * and with --dwarf "ustack_rb" (the copied user stacks) by sample(sctx) */
int lifecycle_stack_rings(struct lifecycle *lc, bool dwarf,
			  lifecycle_ring_fn announce, void *actx,
			  lifecycle_ring_fn sample, void *sctx);
/* In configure(), for a stack tool: the sizes of the stack engine's
 * "stack_seen" (--stack-storage-size ids) and "stack_rb" (256 bytes an
 * id), and of --dwarf's "ustack_rb" and "ustack_scratch" (its rodata
 * stays the tool's to set) */
void lifecycle_size_stacks(struct lifecycle *lc, const struct stack_opts *s);
/* In setup(), for a tool with aggregation maps (bpf/agg.bpf.h): lc->agg,
 * drained from the loop and after detach (agg.h); the tool adds its
 * maps with agg_add().  slot: &skel->bss->agg_slot.  0 or the exit code */
int lifecycle_agg(struct lifecycle *lc, volatile __u32 *slot);
/* The loop's poll of a tool with aggregation maps (ctx: the lifecycle):
 * the ring buffers, then the maps drained when due.  The default one; a
 * tool with a poll of its own calls it from there */
int lifecycle_poll(void *ctx, int timeout_ms);
/* A map of the object by name (NULL if it has none) */
struct bpf_map *lifecycle_map(struct lifecycle *lc, const char *name);

/* The ready line, the one function that prints it */
void lifecycle_say_ready(const struct ready_line *r, double duration);
/* "tracing WHAT of TARGETS" into r->subject */
void ready_tracing(struct ready_line *r, const char *what,
		   const struct common_opts *o);

/* The --check exit code: EXIT_FOUND when found, else EXIT_REPORTED */
int lifecycle_check_exit(const struct lifecycle *lc, bool found);

/* The JSON envelope every tool writes: {"tool":..,"version":.. (then the
 * tool's keys) ... "losses":{..}} on stdout */
void envelope_begin(struct json *j);
/* The same into f (a file of the tool's, e.g. an evidence bundle) */
void envelope_begin_to(struct json *j, FILE *f);
void envelope_end(struct json *j);
/* "duration_s": the time traced (run_loop's start to end) */
void envelope_duration(struct json *j);
/* "losses": the counters of losses.h, as one object */
void envelope_losses(struct json *j, const __u64 l[LOSS_KINDS]);
/* ... left open for the tool's own counters (json_obj_end() closes it) */
void envelope_losses_begin(struct json *j, const __u64 l[LOSS_KINDS]);

#endif
