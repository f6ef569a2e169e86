// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hitmtop's report: the top cache lines with their offsets, code and
 * verdict, as text or as JSON, from an aggregation (live or replayed) */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

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

static void print_plain(const struct hitm_report_opts *ro, struct hitm_symcache *s,
			const struct hitm_view *v, size_t n, const struct hitm_totals *t)
{
	char cpus[256], when[32];
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	if (ro->replay) {
		printf("hitmtop: replay of ");
		esc_fputs(ro->replay, stdout);
	} else {
		printf("hitmtop %s, %.1f s", when, t->seconds);
	}
	printf(": %" PRIu64 " samples, %" PRIu64 " counted, %" PRIu64 " HITMs, %" PRIu64
	       " lines with HITMs (top %zu shown)\n", t->samples, t->kept, t->hitm, t->lines, n);
	if (t->other.lines || t->other.cell_samples)
		printf("other: %" PRIu64 " line records folded to stay within --max-lines %"
		       PRIu64 " (%" PRIu64 " samples, %" PRIu64 " HITMs); %" PRIu64
		       " samples counted in their line without their offset and code\n",
		       t->other.lines, ro->max_lines, t->other.samples, t->other.hitm,
		       t->other.cell_samples);
	printf("\n");
	if (!n) {
		printf("no cache line with a HITM sampled yet\n");
		return;
	}
	printf("%-18s %7s %9s %7s %7s %7s %-9s %-14s %s\n", "LINE", "PID", "HITM", "(LCL/RMT)",
	       "LOADS", "STORES", "CPUS", "VERDICT", "WHAT");
	for (size_t i = 0; i < n; i++) {
		const struct hitm_line *l = v[i].l;
		const char *sym, *map;
		char lr[48];

		hitm_sym_line(s, &v[i], &sym, &map);
		hitm_cpu_str(l->c.cpus, cpus, sizeof(cpus));
		snprintf(lr, sizeof(lr), "%" PRIu64 "/%" PRIu64, (uint64_t)l->c.hitm_local,
			 (uint64_t)l->c.hitm_remote);
		printf("0x%-16" PRIx64 " %7u %7" PRIu64 " %9s %7" PRIu64 " %7" PRIu64
		       " %-9s %-14s ", (uint64_t)l->line, l->pid, (uint64_t)l->c.hitm,
		       lr, (uint64_t)l->c.loads, (uint64_t)l->c.stores, cpus,
		       hitm_verdict_str(v[i].verdict));
		esc_fputs(sym ? sym : (map ? map : "[unknown]"), stdout);
		if (sym && map) {
			printf(" (");
			esc_fputs(map, stdout);
			printf(")");
		}
		printf("\n");
		printf("    fix: %s\n", hitm_fix_str(v[i].verdict));
		printf("    %-8s %7s %7s %7s %-9s %-22s %s\n", "OFFSET", "HITM", "LOADS", "STORES",
		       "CPUS", "VARIABLE", "CODE (samples)");
		for (size_t k = 0; k < v[i].noffs; k++) {
			const struct hitm_offset *o = &v[i].offs[k];
			struct hitm_symname *e = hitm_sym_find(s, l->pid, l->line + o->offset, true);
			char off[16];

			snprintf(off, sizeof(off), "+0x%x", o->offset);
			hitm_cpu_str(o->c.cpus, cpus, sizeof(cpus));
			printf("    %-8s %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %-9s %s", off,
			       (uint64_t)o->c.hitm, (uint64_t)o->c.loads, (uint64_t)o->c.stores,
			       cpus, ESC_COL(e && e->name ? e->name : "-", 22));
			for (size_t j = 0; j < o->ncode && j < 3; j++) {
				const char *where, *fn = code_name(s, l->pid, o->code[j].ip, &where);

				printf("%*s", j ? CODE_COL : 1, "");
				esc_fputs(fn, stdout);
				if (where) {
					printf(" ");
					esc_fputs(where, stdout);
				}
				printf(" (%" PRIu64 ")\n", o->code[j].samples);
			}
			if (o->ncode > 3)
				printf("%*s... %zu more\n", CODE_COL, "", o->ncode - 3);
		}
		printf("\n");
	}
}

/* key: the CPUs of set, as an array */
static void json_cpus(struct json *j, const char *key, const __u64 set[HITM_CPU_WORDS])
{
	json_key(j, key);
	json_arr_begin(j);
	for (unsigned c = 0; c < HITM_MAX_CPUS; c++)
		if (set[c / 64] & (1ULL << (c % 64)))
			json_u64(j, c);
	json_arr_end(j);
}

/* The counts of a line (with its local and remote HITMs) or of an offset
 * (with the CPUs that wrote it and took HITMs on it) */
static void json_counts(struct json *j, const struct hitm_counts *c, bool line)
{
	json_kv_u64(j, "hitm", c->hitm);
	if (line) {
		json_kv_u64(j, "hitm_local", c->hitm_local);
		json_kv_u64(j, "hitm_remote", c->hitm_remote);
	}
	json_kv_u64(j, "loads", c->loads);
	json_kv_u64(j, "stores", c->stores);
	json_cpus(j, "cpus", c->cpus);
	if (!line) {
		json_cpus(j, "write_cpus", c->wcpus);
		json_cpus(j, "hitm_cpus", c->hcpus);
	}
}

static void print_json(const struct hitm_report_opts *ro, struct hitm_symcache *s,
		       const struct hitm_view *v, size_t n, const struct hitm_totals *t)
{
	struct json j;

	envelope_begin(&j);
	json_kv_str(&j, "source", ro->replay ? "replay" : "sampling");
	json_kv_double(&j, "duration_s", t->seconds);
	json_kv_u64(&j, "samples", t->samples);
	json_kv_u64(&j, "counted", t->kept);
	json_kv_u64(&j, "hitm", t->hitm);
	json_kv_u64(&j, "lines_with_hitm", t->lines);
	json_key(&j, "other");
	json_obj_begin(&j);
	json_kv_u64(&j, "lines", t->other.lines);
	json_kv_u64(&j, "samples", t->other.samples);
	json_kv_u64(&j, "hitm", t->other.hitm);
	json_kv_u64(&j, "cell_samples", t->other.cell_samples);
	json_obj_end(&j);
	json_key(&j, "lines");
	json_arr_begin(&j);
	for (size_t i = 0; i < n; i++) {
		const struct hitm_line *l = v[i].l;
		const char *sym, *map;

		hitm_sym_line(s, &v[i], &sym, &map);
		json_obj_begin(&j);
		json_kv_hex(&j, "addr", l->line);
		json_kv_u64(&j, "pid", l->pid);
		json_counts(&j, &l->c, true);
		json_kv_str(&j, "verdict", hitm_verdict_str(v[i].verdict));
		json_kv_str(&j, "fix", hitm_fix_str(v[i].verdict));
		json_key(&j, "symbol");
		sym ? json_str(&j, sym) : json_null(&j);
		json_key(&j, "mapping");
		map ? json_str(&j, map) : json_null(&j);
		json_key(&j, "offsets");
		json_arr_begin(&j);
		for (size_t k = 0; k < v[i].noffs; k++) {
			const struct hitm_offset *o = &v[i].offs[k];
			struct hitm_symname *e = hitm_sym_find(s, l->pid, l->line + o->offset, true);

			json_obj_begin(&j);
			json_kv_u64(&j, "offset", o->offset);
			json_counts(&j, &o->c, false);
			json_kv_u64(&j, "writer_threads", hitm_writer_threads(&o->c));
			json_key(&j, "symbol");
			e && e->name ? json_str(&j, e->name) : json_null(&j);
			json_key(&j, "code");
			json_arr_begin(&j);
			for (size_t c = 0; c < o->ncode; c++) {
				const char *where, *fn = code_name(s, l->pid, o->code[c].ip, &where);

				json_obj_begin(&j);
				json_kv_hex(&j, "ip", o->code[c].ip);
				json_kv_str(&j, "symbol", fn);
				json_key(&j, "source");
				where ? json_str(&j, where) : json_null(&j);
				json_kv_u64(&j, "samples", o->code[c].samples);
				json_obj_end(&j);
			}
			json_arr_end(&j);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_key(&j, "skipped");
	json_obj_begin(&j);
	for (int k = 0; k < HITM_SKIP_KINDS; k++)
		json_kv_u64(&j, skip_names[k], t->skips[k]);
	json_kv_u64(&j, "malformed_lines", t->malformed);
	json_obj_end(&j);
	envelope_losses(&j, t->losses);
	envelope_end(&j);
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
	if (ro->json)
		print_json(ro, s, v, n, t);
	else
		print_plain(ro, s, v, n, t);
	fflush(stdout);
	for (int k = 0; k < HITM_SKIP_KINDS; k++)
		t->skips[k] -= a->skips[k];
	hitm_views_free(v, n);
}
