// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "sbuf.h"
#include "escape.h"
#include "vec.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sbuf_put(struct sbuf *b, const char *s, size_t n)
{
	array_reserve(b->p, b->cap, b->n + n + 1);
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

void sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap, again;
	int n;

	va_start(ap, fmt);
	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0) {
		/* written in place, the NUL in the room array_reserve leaves */
		array_reserve(b->p, b->cap, b->n + (size_t)n + 1);
		vsnprintf(b->p + b->n, (size_t)n + 1, fmt, again);
		b->n += (size_t)n;
	}
	va_end(again);
}

void sbuf_esc(struct sbuf *b, const char *s, bool semi)
{
	size_t n = strlen(s);

	/* room for the worst case at once: an escape takes at most four
	 * bytes per byte it stands for ("\xNN") */
	array_reserve(b->p, b->cap, b->n + 4 * n + 1);
	for (size_t i = 0; i < n;) {
		size_t run = esc_plain_len(s + i, n - i), used, l;
		const char *c = semi ? memchr(s + i, ';', run) : NULL;

		if (c)
			run = (size_t)(c - (s + i));
		if (run) {
			memcpy(b->p + b->n, s + i, run);
			b->n += run;
			i += run;
		} else if (semi && s[i] == ';') {
			b->p[b->n++] = ':';
			i++;
		} else {
			l = esc_step(s + i, n - i, b->p + b->n, &used);
			b->n += l;
			i += used;
		}
	}
	b->p[b->n] = 0;
}
