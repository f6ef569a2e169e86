// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "table.h"
#include "msg.h"
#include "escape.h"
#include "vec.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct table {
	int ncols;
	char **cells;		/* row-major, headers first */
	size_t n, cap;
	char *align;
	int *width;
};

/* The escaped form of s, allocated */
static char *escaped_copy(const char *s)
{
	size_t size = ESC_SIZE(strlen(s));

	return esc_str(xmalloc(size), size, s);
}

static void push(struct table *t, char *s)
{
	array_reserve(t->cells, t->cap, t->n + 1);
	t->cells[t->n] = s;
	if ((int)esc_width(s) > t->width[t->n % t->ncols])
		t->width[t->n % t->ncols] = esc_width(s);
	t->n++;
}

struct table *table_new(int ncols, const char *const *headers, const char *align)
{
	struct table *t = xcalloc(1, sizeof(*t));

	t->width = xcalloc(ncols, sizeof(int));
	t->align = xstrdup(align);
	t->ncols = ncols;
	for (int i = 0; i < ncols; i++)
		push(t, escaped_copy(headers[i]));
	return t;
}

void table_cell(struct table *t, const char *fmt, ...)
{
	va_list ap;
	char *raw, *s;

	va_start(ap, fmt);
	if (vasprintf(&raw, fmt, ap) < 0)
		raw = NULL;
	va_end(ap);
	/* cells quote names of traced processes: escaped, so that no cell
	 * holds a line break or a terminal control */
	s = escaped_copy(raw ? raw : "?");
	free(raw);
	push(t, s);
}

void table_print(const struct table *t, FILE *f, const char *indent)
{
	for (size_t i = 0; i < t->n; i++) {
		int c = i % t->ncols;
		bool right = c < (int)strlen(t->align) && t->align[c] == 'r';
		bool last = c == t->ncols - 1;

		if (c == 0)
			fputs(indent, f);
		/* padded by characters, not bytes: UTF-8 names line up */
		int pad = t->width[c] - (int)esc_width(t->cells[i]);

		if (right)
			fprintf(f, "%*s%s", pad, "", t->cells[i]);
		else if (last)
			fputs(t->cells[i], f);
		else
			fprintf(f, "%s%*s", t->cells[i], pad, "");
		fputs(last || i + 1 == t->n ? "\n" : "  ", f);
	}
}

void table_free(struct table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->width);
	free(t->align);
	free(t);
}
