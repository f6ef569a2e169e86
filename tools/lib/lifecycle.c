// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lifecycle.h"
#include "bpfmaps.h"
#include "msg.h"
#include "bpfload.h"
#include "kfeat.h"
#include "json.h"
#include "mapmem.h"
#include "agg.h"
#include "stackstore.h"
#include "clock.h"
#include "taskid.h"
#include "suite.h"

#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <stddef.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

struct bpf_map *lifecycle_map(struct lifecycle *lc, const char *name)
{
	return bpf_object__find_map_by_name(lc->obj, name);
}

/* A hook that may be absent */
static int call(int (*hook)(struct lifecycle *), struct lifecycle *lc)
{
	return hook ? hook(lc) : 0;
}

/* ---- open, configure, load, filter fill ---- */

static int open_configure(struct lifecycle *lc)
{
	const struct lifecycle_ops *ops = lc->ops;
	int err;

	lc->skeleton = ops->open(lc);
	if (!lc->skeleton)
		return bpf_fail("opening the BPF object", errno);
	lc->obj = *lc->skeleton->obj;
	filter_configure(lc->tfilter, lifecycle_map(lc, "target_tgids"),
			 lifecycle_map(lc, "target_tids"),
			 lifecycle_map(lc, "target_cpus"), lc->opts);
	err = call(ops->configure, lc);
	if (err)
		return err;
	if (!ops->no_tp_flavour)
		bpf_pick_tp_flavour(lc->obj);
	kfeat_apply(lc->obj);
	map_mem_check(lc->obj);
	return 0;
}

/* -v: what the verifier went through to load the programs (the kernel's
 * count of the instructions it followed, 5.16; a program's load time
 * grows with it) */
static void verified_say(struct bpf_object *obj)
{
	unsigned long long total = 0, most = 0;
	const char *most_name = "";
	struct bpf_program *prog;
	int n = 0;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		memset(&info, 0, sizeof(info));
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) ||
		    len < offsetof(struct bpf_prog_info, verified_insns) + sizeof(info.verified_insns))
			continue;
		n++;
		total += info.verified_insns;
		if (info.verified_insns > most) {
			most = info.verified_insns;
			most_name = bpf_program__name(prog);
		}
	}
	if (n && total)
		msg_warn("BPF programs verified: %llu instructions followed in all, %d programs "
			 "(the most: %s, %llu)", total, n, most_name, most);
}

static int load_fill(struct lifecycle *lc)
{
	const struct lifecycle_ops *ops = lc->ops;
	int err;

	err = bpf_object__load_skeleton(lc->skeleton);
	if (err)
		return bpf_fail(ops->load_what ? ops->load_what
				: "loading the BPF programs", err);
	if (verbose)
		verified_say(lc->obj);
	err = filter_fill(lifecycle_map(lc, "target_tgids"),
			  lifecycle_map(lc, "target_tids"),
			  lifecycle_map(lc, "target_cpus"), lc->opts);
	if (err)
		return bpf_fail(ops->fill_what ? ops->fill_what
				: "filling the target filter", err);
	return 0;
}

static void lifecycle_init(struct lifecycle *lc, const struct lifecycle_ops *ops,
			   struct common_opts *opts, void *tool)
{
	memset(lc, 0, sizeof(*lc));
	lc->ops = ops;
	lc->opts = opts;
	lc->tool = tool;
	lc->run.duration = opts->duration;
	lc->run.pids = &opts->pids;
	lc->run.tids = &opts->tids;
}

int lifecycle_load(struct lifecycle *lc, const struct lifecycle_ops *ops,
		   struct common_opts *opts, void *tool)
{
	int err;

	lifecycle_init(lc, ops, opts, tool);
	err = open_configure(lc);
	return err ? err : load_fill(lc);
}

void lifecycle_free(struct lifecycle *lc)
{
	if (lc->ops->cleanup)
		lc->ops->cleanup(lc);
	ring_buffer__free(lc->rb);
	lc->rb = NULL;
	agg_free(lc->agg);
	lc->agg = NULL;
	stackstore_free(lc->stacks);
	lc->stacks = NULL;
	if (lc->skel)
		lc->ops->destroy(lc->skel);
	lc->skel = NULL;
}

int lifecycle_ring(struct lifecycle *lc, struct bpf_map *map,
		   lifecycle_ring_fn fn, void *ctx, const char *what)
{
	int err;

	if (!lc->rb) {
		lc->rb = ring_buffer__new(bpf_map__fd(map), fn, ctx, NULL);
		return lc->rb ? 0 : bpf_fail(what, errno);
	}
	err = ring_buffer__add(lc->rb, bpf_map__fd(map), fn, ctx);
	return err ? bpf_fail(what, err) : 0;
}

int lifecycle_stack_rings(struct lifecycle *lc, bool dwarf,
			  lifecycle_ring_fn announce, void *actx,
			  lifecycle_ring_fn sample, void *sctx)
{
	int err;

	lc->stacks = stackstore_new();
	err = lifecycle_ring(lc, lifecycle_map(lc, "stack_rb"), stackstore_on_event,
			     lc->stacks, "creating the stack ring buffer");
	if (!err)
		err = lifecycle_ring(lc, lifecycle_map(lc, "announce_rb"), announce, actx,
				     "adding the ring buffer");
	if (err || !dwarf)
		return err;
	return lifecycle_ring(lc, lifecycle_map(lc, "ustack_rb"), sample, sctx,
			      "adding the stack-sample ring buffer");
}

/* Room on stack_rb for the frames of n new stacks between two reads of
 * user space (256 bytes each: 30 frames), a power of two */
static __u32 stack_ring_bytes(__u64 n)
{
	__u64 want = n * 256, b = 256 << 10;

	while (b < want && b < (1u << 30))
		b <<= 1;
	return (__u32)b;
}

void lifecycle_size_stacks(struct lifecycle *lc, const struct stack_opts *s)
{
	/* --dwarf copies the user registers of the current task */
	if (s->dwarf)
		kfeat_require(KF_TASK_PT_REGS, "--dwarf");
	/* an object without --dwarf (no bpf/ustack.bpf.h) has neither */
	if (lifecycle_map(lc, "ustack_rb"))
		map_resize(lifecycle_map(lc, "ustack_rb"), s->dwarf ? 32 << 20 : 4096);
	if (lifecycle_map(lc, "ustack_scratch"))
		map_resize(lifecycle_map(lc, "ustack_scratch"), s->dwarf ? ncpus_possible() : 1);
	map_resize_opt(lifecycle_map(lc, "stack_seen"), s->stack_storage,
		       "--stack-storage-size", s->stack_storage);
	map_resize_opt(lifecycle_map(lc, "stack_rb"), stack_ring_bytes(s->stack_storage),
		       "--stack-storage-size", s->stack_storage);
}

int lifecycle_agg(struct lifecycle *lc, volatile __u32 *slot)
{
	lc->agg = agg_new(slot, lifecycle_map(lc, "agg_new"));
	return lc->agg ? 0 : bpf_fail("making the map that drains the aggregation maps", errno);
}

int lifecycle_poll(void *ctx, int timeout_ms)
{
	struct lifecycle *lc = ctx;
	int err = lc->rb ? run_poll_ringbuf(lc->rb, timeout_ms) : (usleep(timeout_ms * 1000), 0);

	if (err < 0)
		return err;
	err = agg_tick(lc->agg);
	if (err)
		msg_warn("draining the aggregation maps failed: %s", strerror(-err));
	return err;
}

/* ---- attach, the ready line, the loop, detach ---- */

static int attach(struct lifecycle *lc)
{
	const struct lifecycle_ops *ops = lc->ops;
	int err;

	if (ops->attach)
		return ops->attach(lc);
	err = bpf_object__attach_skeleton(lc->skeleton);
	return err ? bpf_fail(ops->attach_what, err) : 0;
}

void ready_tracing(struct ready_line *r, const char *what,
		   const struct common_opts *o)
{
	char who[512];

	common_opts_target(o, who, sizeof(who));
	snprintf(r->subject, sizeof(r->subject), "tracing %s of %s", what, who);
}

void lifecycle_say_ready(const struct ready_line *r, double duration)
{
	char dur[64] = "", detail[sizeof(r->detail) + 3] = "";

	if (duration && !r->no_duration)
		snprintf(dur, sizeof(dur), " for %g s", duration);
	if (r->detail[0])
		snprintf(detail, sizeof(detail), " (%s)", r->detail);
	msg_warn("%s%s%s%s", r->subject, dur, detail,
		 duration ? "" : "; Ctrl-C to end");
	if (r->after[0])
		msg_warn("%s", r->after);
}

static void say_ready(struct lifecycle *lc)
{
	struct ready_line r;

	memset(&r, 0, sizeof(r));
	if (lc->ops->ready)
		lc->ops->ready(lc, &r);
	else
		ready_tracing(&r, lc->ops->what, lc->opts);
	lifecycle_say_ready(&r, lc->opts->duration);
}

/* Targets (-p, -t) that started less than this before tracing began:
 * what they did until then (their start-up) is not in the report, and
 * is said so */
#define YOUNG_TARGET_NS (60ULL * 1000000000ULL)

/* The targets that started shortly before tracing began: how many, and
 * the latest of them, on one line ("pid 42 started 1.3 s before tracing
 * began: what it did until then is not counted") */
static void say_young_targets(const struct common_opts *o)
{
	const struct id_list *lists[2] = { &o->pids, &o->tids };
	const char *kinds[2] = { "pid", "tid" };
	uint64_t now = boottime_ns(), young_age = 0;
	uint32_t young_id = 0;
	const char *young_kind = NULL;
	size_t n = 0;

	for (int l = 0; l < 2; l++) {
		for (size_t i = 0; lists[l]->who && i < lists[l]->n; i++) {
			uint64_t lo, hi, age;

			task_id_start_ns(&lists[l]->who[i], &lo, &hi);
			if (!lo || lo > now || (age = now - lo) >= YOUNG_TARGET_NS)
				continue;
			if (!n++ || age < young_age) {
				young_age = age;
				young_id = lists[l]->ids[i];
				young_kind = kinds[l];
			}
		}
	}
	if (n == 1)
		msg_warn("%s %u started %.1f s before tracing began: what it did until "
			 "then is not counted", young_kind, young_id, young_age / 1e9);
	else if (n)
		msg_warn("%zu targets started less than %llu s before tracing began (the "
			 "latest, %s %u, %.1f s before): what they did until then is not "
			 "counted", n, YOUNG_TARGET_NS / 1000000000ULL, young_kind, young_id,
			 young_age / 1e9);
}

static void loop_and_stop(struct lifecycle *lc)
{
	const struct lifecycle_ops *ops = lc->ops;
	int err;

	if (!lc->run.poll && lc->agg) {
		lc->run.poll = lifecycle_poll;
		lc->run.ctx = lc;
	} else if (!lc->run.poll && lc->rb) {
		lc->run.poll = run_poll_ringbuf;
		lc->run.ctx = lc->rb;
	}
	lc->end = run_loop(&lc->run);
	if (ops->stopping)
		ops->stopping(lc);
	/* stop recording before reading, so the report is one instant */
	if (ops->detach)
		ops->detach(lc);
	else
		bpf_object__detach_skeleton(lc->skeleton);
	if (lc->agg && (err = agg_finish(lc->agg)))
		msg_warn("draining the aggregation maps failed: %s", strerror(-err));
	if (lc->rb)
		ring_buffer__consume(lc->rb);
	if (ops->stopped)
		ops->stopped(lc);
	run_report_end(lc->end);
}

/* ---- collect, losses, report, exit code ---- */

int lifecycle_check_exit(const struct lifecycle *lc, bool found)
{
	return lc->opts->check && found ? EXIT_FOUND : EXIT_REPORTED;
}

static int collect_report(struct lifecycle *lc)
{
	const struct lifecycle_ops *ops = lc->ops;
	struct bpf_map *losses;
	int err;

	/* first: collect may set what it builds against them */
	losses = lc->obj ? lifecycle_map(lc, "losses") : NULL;
	if (losses)
		losses_read(losses, lc->losses);
	if (ops->collect && (err = ops->collect(lc))) {
		msg_warn("reading the maps failed: %s", strerror(-err));
		return EXIT_UNSUPPORTED;
	}
	if (ops->report)
		ops->report(lc);
	fflush(stdout);
	losses_report(lc->losses, ops->loss_hints);
	return ops->finish ? ops->finish(lc) : EXIT_REPORTED;
}

void lifecycle_options(const char *name, const struct argp *argp, int argc,
		       char **argv, struct common_opts *opts)
{
	suite_init(name);
	argp_parse(argp, argc, argv, 0, NULL, NULL);
	common_opts_finish(opts);
}

/* open .. detach: the phases with a BPF object */
static int trace(struct lifecycle *lc)
{
	const struct lifecycle_ops *ops = lc->ops;
	int err;

	bpf_env_check();
	run_install_signals();
	err = call(ops->prepare, lc);
	if (!err)
		err = open_configure(lc);
	if (!err)
		err = load_fill(lc);
	if (!err)
		err = call(ops->setup, lc);
	if (!err)
		err = attach(lc);
	if (!err)
		err = call(ops->started, lc);
	if (!err) {
		say_ready(lc);
		say_young_targets(lc->opts);
		loop_and_stop(lc);
	}
	return err;
}

int lifecycle_run(const struct lifecycle_ops *ops, struct common_opts *opts,
		  void *tool)
{
	struct lifecycle lc;
	int err;

	lifecycle_init(&lc, ops, opts, tool);
	err = call(ops->probe, &lc);
	if (!err && ops->open) {
		err = trace(&lc);
	} else if (!err) {
		/* no BPF object: a closed stdout is an output error, not a signal */
		signal(SIGPIPE, SIG_IGN);
		err = call(ops->prepare, &lc);
	}
	if (!err)
		err = collect_report(&lc);
	lifecycle_free(&lc);
	return err;
}

/* ---- the JSON envelope ---- */

void envelope_begin(struct json *j)
{
	envelope_begin_to(j, stdout);
}

void envelope_begin_to(struct json *j, FILE *f)
{
	json_init(j, f);
	json_obj_begin(j);
	json_kv_str(j, "tool", tool_name);
	json_kv_str(j, "version", SUITE_VERSION);
}

void envelope_duration(struct json *j)
{
	json_kv_double(j, "duration_s", (run_end_ns - run_start_ns) / 1e9);
}

void envelope_losses_begin(struct json *j, const __u64 l[LOSS_KINDS])
{
	json_key(j, "losses");
	json_obj_begin(j);
	losses_json_fields(j, l);
}

void envelope_losses(struct json *j, const __u64 l[LOSS_KINDS])
{
	envelope_losses_begin(j, l);
	json_obj_end(j);
}

void envelope_end(struct json *j)
{
	json_obj_end(j);
	json_finish(j);
}
