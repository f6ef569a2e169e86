// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hitmtop's report: the top cache lines with their offsets, code and
 * verdict, as text or as JSON, from an aggregation (live or replayed) */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "emit.h"
#include "escape.h"
#include "json.h"
#include "lifecycle.h"
#include "report.h"

static const char *const skip_names[HITM_SKIP_KINDS] = {
	[HITM_SKIP_NO_ADDR] = "no_addr",
	[HITM_SKIP_NO_SRC] = "no_data_src",
	[HITM_SKIP_NOT_MEM] = "not_load_or_store",
	[HITM_SKIP_COLD_LOAD] = "cold_load",
};

static const char *code_name(struct hitm_symcache *s, uint32_t pid, uint64_t ip,
			     const char **where)
{
	struct hitm_symname *e = hitm_sym_find(s, pid, ip, false);

	*where = e ? e->where : NULL;
	return e && e->name ? e->name : "[unknown]";
}

#define CODE_COL 70	/* where the CODE column starts */

/* The CPUs of set: JSON, an array under key; text, a list in fmt */
static void emit_cpus(struct emit *o, const char *key, const char *fmt,
		      const __u64 set[HITM_CPU_WORDS])
{
	char cpus[256];

	if (emit_json(o)) {
		json_key(o->j, key);
		json_arr_begin(o->j);
		for (unsigned c = 0; c < HITM_MAX_CPUS; c++)
			if (set[c / 64] & (1ULL << (c % 64)))
				json_u64(o->j, c);
		json_arr_end(o->j);
	} else if (fmt) {
		hitm_cpu_str(set, cpus, sizeof(cpus));
		fprintf(o->f, fmt, cpus);
	}
}

/* The counts of a line (with its local and remote HITMs) or of an offset
 * (with the CPUs that wrote it and took HITMs on it): the columns HITM
 * ((LCL/RMT)) LOADS STORES CPUS */
static void emit_counts(struct emit *o, const struct hitm_counts *c, bool line)
{
	char lr[48];

	emit_u64(o, "hitm", " %7llu", c->hitm);
	if (line) {
		emit_u64(o, "hitm_local", NULL, c->hitm_local);
		emit_u64(o, "hitm_remote", NULL, c->hitm_remote);
		snprintf(lr, sizeof(lr), "%" PRIu64 "/%" PRIu64, (uint64_t)c->hitm_local,
			 (uint64_t)c->hitm_remote);
		emit_text(o, " %9s", lr);
	}
	emit_u64(o, "loads", " %7llu", c->loads);
	emit_u64(o, "stores", " %7llu", c->stores);
	emit_cpus(o, "cpus", " %-9s", c->cpus);
	if (!line) {
		emit_cpus(o, "write_cpus", NULL, c->wcpus);
		emit_cpus(o, "hitm_cpus", NULL, c->hcpus);
	}
}

/* An offset of a line: its row, then its code, the first three as text */
static void emit_offset(struct emit *o, struct hitm_symcache *s, const struct hitm_line *l,
			const struct hitm_offset *f)
{
	struct hitm_symname *e = hitm_sym_find(s, l->pid, l->line + f->offset, true);
	const char *var = e && e->name ? e->name : NULL;
	char off[16];

	emit_obj_begin(o, NULL);
	snprintf(off, sizeof(off), "+0x%x", f->offset);
	emit_u64(o, "offset", NULL, f->offset);
	emit_text(o, "    %-8s", off);
	emit_counts(o, &f->c, false);
	emit_u64(o, "writer_threads", NULL, hitm_writer_threads(&f->c));
	emit_str(o, "symbol", NULL, var);
	emit_text(o, " %s", ESC_COL(var ? var : "-", 22));
	emit_arr_begin(o, "code");
	for (size_t j = 0; j < f->ncode && (emit_json(o) || j < 3); j++) {
		const char *where, *fn = code_name(s, l->pid, f->code[j].ip, &where);

		emit_obj_begin(o, NULL);
		emit_hex(o, "ip", NULL, f->code[j].ip);
		emit_text(o, "%*s", j ? CODE_COL : 1, "");
		emit_str(o, "symbol", "%s", fn);
		emit_str(o, "source", " %s", where);
		emit_u64(o, "samples", " (%llu)\n", f->code[j].samples);
		emit_obj_end(o);
	}
	emit_arr_end(o);
	if (f->ncode > 3)
		emit_text(o, "%*s... %zu more\n", CODE_COL, "", f->ncode - 3);
	emit_obj_end(o);
}

/* A line: its row, its fix, its offsets */
static void emit_line(struct emit *o, struct hitm_symcache *s, const struct hitm_view *v)
{
	const struct hitm_line *l = v->l;
	const char *sym, *map, *verdict = hitm_verdict_str(v->verdict);

	hitm_sym_line(s, v, &sym, &map);
	emit_obj_begin(o, NULL);
	emit_hex(o, "addr", "0x%-16llx", l->line);
	emit_u64(o, "pid", " %7llu", l->pid);
	emit_counts(o, &l->c, true);
	emit_str(o, "verdict", NULL, verdict);
	emit_text(o, " %-14s ", verdict);
	emit_str(o, "symbol", NULL, sym);
	emit_str(o, "mapping", NULL, map);
	emit_str(o, NULL, "%s", sym ? sym : (map ? map : "[unknown]"));
	if (sym && map)
		emit_str(o, NULL, " (%s)", map);
	emit_str(o, "fix", "\n    fix: %s\n", hitm_fix_str(v->verdict));
	emit_text(o, "    %-8s %7s %7s %7s %-9s %-22s %s\n", "OFFSET", "HITM", "LOADS", "STORES",
		  "CPUS", "VARIABLE", "CODE (samples)");
	emit_arr_begin(o, "offsets");
	for (size_t k = 0; k < v->noffs; k++)
		emit_offset(o, s, l, &v->offs[k]);
	emit_arr_end(o);
	emit_text(o, "\n");
	emit_obj_end(o);
}

/* The report, as text or as a JSON document: the totals, the top n
 * lines, and in JSON what was skipped and lost */
static void print_report(struct emit *o, const struct hitm_report_opts *ro,
			 struct hitm_symcache *s, const struct hitm_view *v, size_t n,
			 const struct hitm_totals *t)
{
	const struct hitm_other *x = &t->other;
	char when[32];
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	emit_str(o, "source", NULL, ro->replay ? "replay" : "sampling");
	if (ro->replay)
		emit_str(o, NULL, "hitmtop: replay of %s", ro->replay);
	else
		emit_text(o, "hitmtop %s, %.1f s", when, t->seconds);
	emit_double(o, "duration_s", NULL, t->seconds);
	emit_u64(o, "samples", ": %llu samples", t->samples);
	emit_u64(o, "counted", ", %llu counted", t->kept);
	emit_u64(o, "hitm", ", %llu HITMs", t->hitm);
	emit_u64(o, "lines_with_hitm", ", %llu lines with HITMs", t->lines);
	emit_text(o, " (top %zu shown)\n", n);
	emit_obj_begin(o, "other");
	if (emit_json(o) || x->lines || x->cell_samples) {
		emit_u64(o, "lines", "other: %llu line records folded to stay within "
			 "--max-lines ", x->lines);
		emit_text(o, "%" PRIu64 " (", ro->max_lines);
		emit_u64(o, "samples", "%llu samples", x->samples);
		emit_u64(o, "hitm", ", %llu HITMs); ", x->hitm);
		emit_u64(o, "cell_samples", "%llu samples counted in their line without their "
			 "offset and code\n", x->cell_samples);
	}
	emit_obj_end(o);
	emit_text(o, "\n");
	if (!n)
		emit_text(o, "no cache line with a HITM sampled yet\n");
	else
		emit_text(o, "%-18s %7s %9s %7s %7s %7s %-9s %-14s %s\n", "LINE", "PID", "HITM",
			  "(LCL/RMT)", "LOADS", "STORES", "CPUS", "VERDICT", "WHAT");
	emit_arr_begin(o, "lines");
	for (size_t i = 0; i < n; i++)
		emit_line(o, s, &v[i]);
	emit_arr_end(o);
	if (!emit_json(o))
		return;
	json_key(o->j, "skipped");
	json_obj_begin(o->j);
	for (int k = 0; k < HITM_SKIP_KINDS; k++)
		json_kv_u64(o->j, skip_names[k], t->skips[k]);
	json_kv_u64(o->j, "malformed_lines", t->malformed);
	json_obj_end(o->j);
	envelope_losses(o->j, t->losses);
}

void hitm_report(const struct hitm_report_opts *ro, struct hitm_symcache *s,
		 const struct hitm_agg *a, struct hitm_totals *t, bool redraw)
{
	struct hitm_view *v = NULL;
	size_t n = hitm_views(a, ro->top, &v);

	t->hitm = 0;
	t->lines = 0;
	for (size_t i = 0; i < a->nlines; i++) {
		t->hitm += a->lines[i].c.hitm;
		t->lines += a->lines[i].c.hitm > 0;
	}
	t->other = a->other;
	t->hitm += a->other.hitm;
	t->kept = a->kept;
	t->samples = a->samples;
	/* t->skips holds the kernel's; the agg's are added for the report */
	for (int k = 0; k < HITM_SKIP_KINDS; k++) {
		t->samples += t->skips[k];
		t->skips[k] += a->skips[k];
	}
	hitm_sym_views(s, v, n);
	if (redraw)
		printf("\033[H\033[2J");
	if (ro->json) {
		struct json j;
		struct emit o = emit_to_json(&j);

		envelope_begin(&j);
		print_report(&o, ro, s, v, n, t);
		envelope_end(&j);
	} else {
		struct emit o = emit_to_text(stdout);

		print_report(&o, ro, s, v, n, t);
	}
	fflush(stdout);
	for (int k = 0; k < HITM_SKIP_KINDS; k++)
		t->skips[k] -= a->skips[k];
	hitm_views_free(v, n);
}
