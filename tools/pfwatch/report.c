// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* pfwatch's report: the memory locking of the targets, then the faults
 * after the warm-up and those in it, as text, folded stacks or JSON. */
#include "report.h"
#include "collect.h"
#include "msg.h"
#include "escape.h"
#include "json.h"
#include "emit.h"
#include "lifecycle.h"
#include "opts.h"
#include "pprof.h"
#include "flamesvg.h"
#include "folddiff.h"
#include "procfs.h"
#include "run.h"
#include "stacks.h"
#include "targets.h"
#include "vmas.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The frames of an entry: its key's stacks (kstack STACK_NONE: a fault
 * taken in user mode has no kernel stack), the user one unwound with
 * --dwarf when the entry says so */
static void resolve(struct stacksym *sym, struct stackstore *st, struct dwunw *dw,
		    const struct pf_key *key, bool dwarf, struct stack_frames *f,
		    struct stack_locs *l)
{
	struct stack_ref r = STACK_REF(key, tgid, exec_id, dwarf ? dw : NULL);

	stack_frames_resolve_at(sym, st, &r, f, l);
}

/* The mappings holding an entry's lowest and highest addresses */
static void entry_vmas(const struct vmas *v, const struct entry *e,
		       const struct vma_ent **lo, const struct vma_ent **hi)
{
	*lo = vmas_find(v, e->key.tgid, e->key.exec_id, e->val.addr_min);
	*hi = vmas_find(v, e->key.tgid, e->key.exec_id, e->val.addr_max);
}

static const char *vma_name(const struct vma_ent *m)
{
	return m ? m->name : "[unknown]";
}

/* seconds into the tracing when m was read (negative: before it) */
static double since_start(const struct memlock *m)
{
	return ((double)m->at_ns - (double)run_start_ns) / 1e9;
}

static void print_memlock_line(FILE *f, const char *when, const struct memlock *m)
{
	if (!m->valid) {
		fprintf(f, "  %s unknown (/proc could not be read)\n", when);
		return;
	}
	if (!m->vmlck_kb && !m->locked) {
		fprintf(f, "  %s VmLck 0 kB: memory is not locked (VmRSS %llu kB)\n", when,
			(unsigned long long)m->vmrss_kb);
		return;
	}
	fprintf(f, "  %s VmLck %llu kB of VmRSS %llu kB; %u of %u mappings locked: %s\n",
		when, (unsigned long long)m->vmlck_kb, (unsigned long long)m->vmrss_kb,
		m->locked, m->vmas, memlock_verdict(m));
}

static void print_memlock(FILE *f, const struct targets *ts)
{
	char when[64];

	for (size_t i = 0; i < ts->n; i++) {
		const struct target *t = &ts->t[i];

		fprintf(f, "Memory locking of process %u (%s):\n", t->pid, ESC(t->comm));
		print_memlock_line(f, "at start:", &t->start);
		if (t->ended)
			snprintf(when, sizeof(when), "last seen (%.1f s, then it exited):",
				 since_start(&t->last));
		else
			snprintf(when, sizeof(when), "at end:  ");
		print_memlock_line(f, when, &t->last);
	}
	if (ts->n)
		fputc('\n', f);
}

/* A mapping of an entry: its name, and its range when range */
static void emit_vma(struct emit *o, const char *fmt, const struct vma_ent *m, bool range)
{
	emit_obj_begin(o, NULL);
	emit_str(o, "name", fmt, vma_name(m));
	if (m) {
		emit_hex(o, "start", range ? " (%llx" : NULL, m->start);
		emit_hex(o, "end", range ? "-%llx)" : NULL, m->end);
	}
	emit_obj_end(o);
}

/* One entry, as text or as a JSON object */
static void print_one(struct emit *o, const struct vmas *v, const struct stack_frames *f,
		      const struct entry *e)
{
	const struct vma_ent *lo, *hi;
	__u64 n = e->val.major + e->val.minor;

	entry_vmas(v, e, &lo, &hi);
	emit_obj_begin(o, NULL);
	stack_frames_emit(o, f, true);
	emit_str(o, "comm", "    -                %s", e->val.comm);
	emit_u64(o, "pid", " (%llu", e->key.tgid);
	emit_u64(o, "tid", "/%llu)", e->key.tid);
	emit_u64(o, "count", "\n        %llu", n);
	emit_text(o, " fault%s", n == 1 ? "" : "s");
	emit_u64(o, "major", " (%llu major", e->val.major);
	emit_u64(o, "minor", ", %llu minor)", e->val.minor);
	emit_str(o, "mode", " in %s mode\n", e->key.kernel_mode ? "kernel" : "user");
	emit_hex(o, "addr_min", "        at %#llx", e->val.addr_min);
	emit_hex(o, "addr_max", "..%#llx in ", e->val.addr_max);
	emit_str(o, "mapping", NULL, vma_name(lo));
	emit_arr_begin(o, "mappings");
	emit_vma(o, "%s", lo, lo && lo == hi);
	if (lo != hi)
		emit_vma(o, " .. %s", hi, false);
	emit_arr_end(o);
	emit_text(o, "\n\n");
	emit_obj_end(o);
}

static void json_memlock(struct json *j, const char *key, const struct memlock *m)
{
	json_key(j, key);
	if (!m->valid) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_kv_u64(j, "vmlck_kb", m->vmlck_kb);
	json_kv_u64(j, "vmrss_kb", m->vmrss_kb);
	json_kv_u64(j, "mappings", m->vmas);
	json_kv_u64(j, "locked_mappings", m->locked);
	json_kv_bool(j, "locked", m->vmlck_kb || m->locked);
	json_kv_bool(j, "mlockall", memlock_all(m));
	json_kv_str(j, "verdict", memlock_verdict(m));
	json_kv_double(j, "at_s", since_start(m));
	json_obj_end(j);
}

static void json_head(struct json *j, const struct report_in *r)
{
	envelope_duration(j);
	json_kv_double(j, "warmup_s", r->warmup);
	json_kv_str(j, "events", r->task_mode ? "per-thread" : "per-cpu");
	json_key(j, "targets");
	json_arr_begin(j);
	for (size_t i = 0; i < r->targets->n; i++) {
		const struct target *t = &r->targets->t[i];

		json_obj_begin(j);
		json_kv_u64(j, "pid", t->pid);
		json_kv_str(j, "comm", t->comm);
		json_kv_bool(j, "exited", t->ended);
		json_memlock(j, "memlock_start", &t->start);
		json_memlock(j, "memlock_end", &t->last);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "totals");
	json_obj_begin(j);
	json_kv_u64(j, "faults", r->c->major[0] + r->c->minor[0]);
	json_kv_u64(j, "major", r->c->major[0]);
	json_kv_u64(j, "minor", r->c->minor[0]);
	json_kv_u64(j, "warmup_faults", r->c->major[1] + r->c->minor[1]);
	json_kv_u64(j, "warmup_major", r->c->major[1]);
	json_kv_u64(j, "warmup_minor", r->c->minor[1]);
	/* entries as printed, and the stacks seen before merging those
	 * that print the same */
	json_kv_u64(j, "stacks", r->c->stacks[0]);
	json_kv_u64(j, "stacks_seen", r->c->stacks_seen[0]);
	json_kv_u64(j, "warmup_stacks", r->c->stacks[1]);
	json_kv_u64(j, "warmup_stacks_seen", r->c->stacks_seen[1]);
	json_obj_end(j);
}

static void json_tail(struct json *j, const struct report_in *r)
{
	envelope_losses_begin(j, r->losses);
	json_kv_u64(j, "faults_not_seen", r->missed);
	json_obj_end(j);
	json_key(j, "faults_counted_by_kernel");	/* null: not comparable */
	if (r->kernel_count_valid)
		json_u64(j, r->kernel_count);
	else
		json_null(j);
	json_kv_u64(j, "duplicates_skipped", r->stats[PF_STAT_DUP]);
	json_key(j, "frames");
	stacksym_json_stats(j, r->sym);
}

static void plain_totals(const struct report_in *r)
{
	const struct faults *c = r->c;

	if (r->warmup > 0)
		printf("Warm-up (first %g s): %llu faults (%llu major, %llu minor), "
		       "not violations\n", r->warmup,
		       (unsigned long long)(c->major[1] + c->minor[1]),
		       (unsigned long long)c->major[1], (unsigned long long)c->minor[1]);
	printf("%s: %llu faults (%llu major, %llu minor)", r->warmup > 0 ?
	       "After warm-up" : "Page faults",
	       (unsigned long long)(c->major[0] + c->minor[0]),
	       (unsigned long long)c->major[0], (unsigned long long)c->minor[0]);
	if (c->stacks[0] && c->stacks[0] != c->stacks_seen[0])
		printf(" from %zu stack%s as printed (%zu stacks seen, merged where they "
		       "print the same):\n\n", c->stacks[0], c->stacks[0] == 1 ? "" : "s",
		       c->stacks_seen[0]);
	else if (c->stacks[0])
		printf(" from %zu stack%s:\n\n", c->stacks[0], c->stacks[0] == 1 ? "" : "s");
	else
		printf("\n\n");
}

/* The last image of tgid seen in the entries */
static __u64 last_image(const struct faults *c, __u32 tgid)
{
	__u64 image = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].key.tgid == tgid && c->e[i].key.exec_id > image)
			image = c->e[i].key.exec_id;
	return image;
}

/* Addresses in mappings made after the last capture (the process mapped
 * them in a region it had faulted in before, or after an exec): read the
 * maps of the processes still alive once more, for their last image only
 * (an older one is no longer there to read) */
static void name_late_mappings(struct vmas *v, const struct faults *c)
{
	struct id_list done = { 0 };

	for (size_t i = 0; i < c->n; i++) {
		const struct entry *e = &c->e[i];

		if (id_list_has(&done, e->key.tgid) ||
		    (vmas_find(v, e->key.tgid, e->key.exec_id, e->val.addr_min) &&
		     vmas_find(v, e->key.tgid, e->key.exec_id, e->val.addr_max)) ||
		    e->key.exec_id != last_image(c, e->key.tgid))
			continue;
		id_list_add(&done, e->key.tgid);
		if (pid_alive(e->key.tgid))
			vmas_capture(v, e->key.tgid, e->key.exec_id);
	}
	id_list_free(&done);
}

/* What an entry prints as its key besides its frames */
struct entry_head {
	__u32 tgid, tid;
	__u8 warmup, kernel_mode;
	char comm[TASK_COMM_LEN];
};

/* One entry per printed identity (stackframes.h): the entries whose frames
 * print the same, of one thread, mode and phase, are merged into the
 * first (counts added, address range widened), for every output */
static void merge_printed(const struct report_in *r)
{
	struct faults *c = r->c;
	struct stack_merge *m = stack_merge_new();
	struct stack_frames *f = xcalloc(1, sizeof(*f));
	size_t n = 0;

	c->stacks_seen[0] = c->stacks[0];
	c->stacks_seen[1] = c->stacks[1];
	c->stacks[0] = c->stacks[1] = 0;
	for (size_t i = 0; i < c->n; i++) {
		struct entry *e = &c->e[i];
		struct entry_head h;
		size_t first;

		memset(&h, 0, sizeof(h));
		h.tgid = e->key.tgid;
		h.tid = e->key.tid;
		h.warmup = e->key.warmup;
		h.kernel_mode = e->key.kernel_mode;
		memcpy(h.comm, e->val.comm, sizeof(h.comm));
		resolve(r->sym, r->stacks, c->dw, &e->key, e->dwarf, f, NULL);
		first = stack_merge_find(m, &h, sizeof(h), f, n);
		if (first < n) {
			pf_val_combine(&c->e[first].val, &e->val);
			continue;
		}
		c->e[n++] = *e;
		c->stacks[e->key.warmup ? 1 : 0]++;
	}
	c->n = n;
	free(f);
	stack_merge_free(m);
}

/* --pprof: the faults after the warm-up (the violations, as -f has
 * them), faults/count, by thread and stacks */
static void pprof_faults(const struct report_in *r)
{
	static const char *const types[][2] = { { "faults", "count" } };
	const struct faults *c = r->c;
	struct pprof *pp = pprof_run_new(types, 1);
	struct stack_frames *f = xcalloc(1, sizeof(*f));
	struct stack_locs *l = xcalloc(1, sizeof(*l));
	struct pprof_label lb[PPROF_LABELS];

	for (size_t i = 0; i < c->n && !c->e[i].key.warmup; i++) {
		const struct entry *e = &c->e[i];
		int64_t v = (int64_t)(e->val.major + e->val.minor);

		resolve(r->sym, r->stacks, c->dw, &e->key, e->dwarf, f, l);
		pprof_add(pp, f, l, &v, lb, pprof_task_labels(lb, e->key.tgid, e->key.tid,
							       e->val.comm));
	}
	pprof_finish(pp, r->pprof);
	pprof_free(pp);
	free(l);
	free(f);
}

/* --svg: the same faults as a flame graph (the frames and values of -f) */
static void svg_faults(const struct report_in *r)
{
	const struct faults *c = r->c;
	struct flamesvg *g = flamesvg_new();
	struct stack_frames *f = xcalloc(1, sizeof(*f));
	struct stack_locs *l = xcalloc(1, sizeof(*l));

	for (size_t i = 0; i < c->n && !c->e[i].key.warmup; i++) {
		const struct entry *e = &c->e[i];

		resolve(r->sym, r->stacks, c->dw, &e->key, e->dwarf, f, l);
		flamesvg_add_stack(g, r->sym, e->val.comm, NULL, f, l, e->val.major + e->val.minor);
	}
	/* with --diff: the differential graph (diff_faults() first) */
	flamesvg_finish_run(folddiff_graph(r->diff, r->diff_path, g), r->svg, "pfwatch", r->warmup > 0 ? "page faults after the warm-up" :
			    "page faults", "faults", r->opts);
	free(l);
	free(f);
}

/* --diff: this run's faults after the warm-up, as -f has them, against
 * the earlier run's */
static void diff_faults(const struct report_in *r)
{
	const struct faults *c = r->c;
	struct stack_frames *f = xcalloc(1, sizeof(*f));

	for (size_t i = 0; i < c->n && !c->e[i].key.warmup; i++) {
		const struct entry *e = &c->e[i];
		char *line;

		resolve(r->sym, r->stacks, c->dw, &e->key, e->dwarf, f, NULL);
		line = folded_line(e->val.comm, f->u, f->un, f->k, f->kn);
		folddiff_add(r->diff, line, e->val.major + e->val.minor);
		free(line);
	}
	free(f);
}

void report_faults(const struct report_in *r)
{
	struct faults *c = r->c;
	struct folded *fo = NULL;
	struct stack_frames *f = xcalloc(1, sizeof(*f));
	bool in_warmup = false;
	struct emit o;
	struct json j;

	name_late_mappings(r->vmas, c);
	merge_printed(r);
	collected_sort(c);
	if (r->pprof)
		pprof_faults(r);
	if (r->diff)
		diff_faults(r);
	if (r->svg)
		svg_faults(r);
	/* --pprof -: stdout is the profile's alone */
	if (r->pprof == stdout) {
		folddiff_free(r->diff);
		free(f);
		return;
	}
	if (r->folded) {
		fo = folded_new();
		print_memlock(stderr, r->targets);
	} else if (r->json) {
		envelope_begin(&j);
		json_head(&j, r);
		json_key(&j, "faults");
		json_arr_begin(&j);
	} else {
		print_memlock(stdout, r->targets);
		plain_totals(r);
	}
	o = r->json ? emit_to_json(&j) : emit_to_text(stdout);
	for (size_t i = 0; i < c->n; i++) {
		const struct entry *e = &c->e[i];

		if (e->key.warmup && !in_warmup) {
			in_warmup = true;
			if (fo)
				break;	/* folded: violations only */
			emit_arr_end(&o);
			emit_arr_begin(&o, "warmup_faults");
			emit_text(&o, "Warm-up faults:\n\n");
		}
		resolve(r->sym, r->stacks, c->dw, &e->key, e->dwarf, f, NULL);
		if (fo)
			folded_add(fo, e->val.comm, f->u, f->un, f->k, f->kn,
				   e->val.major + e->val.minor);
		else
			print_one(&o, r->vmas, f, e);
		if (ferror(stdout))
			break;
	}
	if (fo) {
		folded_print(fo, stdout);
		folded_free(fo);
	} else if (r->json) {
		json_arr_end(&j);
		if (!in_warmup) {
			json_key(&j, "warmup_faults");
			json_arr_begin(&j);
			json_arr_end(&j);
		}
		if (r->diff)
			folddiff_json(r->diff, &j, r->diff_path, FOLDDIFF_TOP);
		json_tail(&j, r);
		envelope_end(&j);
	} else if (r->diff) {
		folddiff_print(r->diff, stdout, r->diff_path, "faults", FOLDDIFF_TOP);
	}
	folddiff_free(r->diff);
	free(f);
}
