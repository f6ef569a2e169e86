// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "folded.h"
#include "sbuf.h"
#include "vec.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

struct fline {
	char *text;
	uint64_t value;
};

struct folded {
	VEC(struct fline) lines;
};

struct folded *folded_new(void)
{
	return xcalloc(1, sizeof(struct folded));
}

void folded_free(struct folded *fo)
{
	if (!fo)
		return;
	for (size_t i = 0; i < fo->lines.n; i++)
		free(fo->lines.v[i].text);
	vec_free(&fo->lines);
	free(fo);
}

/* A frame may not hold ';' (the separator, written ':'); the rest of a
 * name is escaped as everywhere else (escape.h): one line per stack */
static void sb_frame(struct sbuf *b, const char *s, const char *suffix)
{
	if (b->n)
		sbuf_put(b, ";", 1);
	sbuf_esc(b, s, true);
	if (suffix)
		sbuf_put(b, suffix, strlen(suffix));
}

char *folded_line(const char *comm, const char **ufr, int un, const char **kfr, int kn)
{
	struct sbuf b = { 0 };

	sb_frame(&b, comm && *comm ? comm : "[unknown]", NULL);
	for (int i = 0; i < un; i++)
		sb_frame(&b, ufr[i], NULL);
	for (int i = 0; i < kn; i++)
		sb_frame(&b, kfr[i], "_[k]");
	return b.p;
}

void folded_add_line(struct folded *fo, char *line, uint64_t value)
{
	vec_push(&fo->lines, ((struct fline){ .text = line, .value = value }));
}

void folded_add(struct folded *fo, const char *comm, const char **ufr, int un,
		const char **kfr, int kn, uint64_t value)
{
	folded_add_line(fo, folded_line(comm, ufr, un, kfr, kn), value);
}

static int fline_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fline *)a)->text, ((const struct fline *)b)->text);
}

void folded_print(struct folded *fo, FILE *f)
{
	struct fline *l = fo->lines.v;
	size_t n = fo->lines.n;

	qsort(l, n, sizeof(*l), fline_cmp);
	for (size_t i = 0; i < n;) {
		uint64_t v = l[i].value;
		size_t j = i + 1;

		while (j < n && !strcmp(l[j].text, l[i].text))
			v += l[j++].value;
		fprintf(f, "%s %llu\n", l[i].text, (unsigned long long)v);
		i = j;
	}
}
