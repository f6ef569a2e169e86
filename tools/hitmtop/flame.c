// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hitmtop's flame graph: lines, offsets and code, from the report model */
#include <inttypes.h>
#include <stdio.h>

#include "flame.h"

/* "true_counter+0x0 (line 0x5601a1c950c0)", "[heap] (line 0x...)" */
static void line_name(char *buf, size_t size, struct hitm_symcache *s, const struct hitm_view *v)
{
	const char *sym, *mapping;

	hitm_sym_line(s, v, &sym, &mapping);
	snprintf(buf, size, "%s (line 0x%" PRIx64 ")", sym ? sym : mapping ? mapping : "?",
		 v->l->line);
}

uint64_t hitm_flame(struct flamesvg *g, struct hitm_symcache *s, const struct hitm_agg *a)
{
	unsigned char kinds[] = { FLAME_THREAD, FLAME_USER, FLAME_USER, FLAME_USER };
	struct hitm_view *v;
	size_t n = hitm_views(a, 0, &v);
	uint64_t total = 0;

	hitm_sym_views(s, v, n);
	for (size_t i = 0; i < n; i++) {
		char proc[32], line[300], off[300], code[600];
		const char *names[] = { proc, line, off, code };
		uint32_t pid = v[i].l->pid;

		snprintf(proc, sizeof(proc), "pid %" PRIu32, pid);
		line_name(line, sizeof(line), s, &v[i]);
		for (size_t k = 0; k < v[i].noffs; k++) {
			const struct hitm_offset *o = &v[i].offs[k];
			struct hitm_symname *e = hitm_sym_find(s, pid, v[i].l->line + o->offset, true);

			snprintf(off, sizeof(off), "+0x%" PRIx32 " %s", o->offset,
				 e && e->name ? e->name : "-");
			kinds[2] = e && e->name ? FLAME_USER : FLAME_UNRESOLVED;
			for (size_t j = 0; j < o->ncode; j++) {
				const struct hitm_code *c = &o->code[j];
				struct hitm_symname *f = hitm_sym_find(s, pid, c->ip, false);

				if (!c->samples)
					continue;
				snprintf(code, sizeof(code), "%s%s%s",
					 f && f->name ? f->name : "[unknown]",
					 f && f->where ? " " : "", f && f->where ? f->where : "");
				kinds[3] = f && f->name ? FLAME_USER : FLAME_UNRESOLVED;
				flamesvg_add(g, names, kinds, 4, c->samples);
				total += c->samples;
			}
		}
	}
	hitm_views_free(v, n);
	return total;
}
