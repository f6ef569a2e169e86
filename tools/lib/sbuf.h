/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Text built in memory, then written at once (a stack in one write, a
 * folded line, an identity's bytes). */
#ifndef SUITE_SBUF_H
#define SUITE_SBUF_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf {
	char *p;	/* NUL-terminated; free() it */
	size_t n, cap;
};

/* n bytes of s appended */
void sbuf_put(struct sbuf *b, const char *s, size_t n);
/* printf's output appended, whole */
void sbuf_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s escaped (escape.h) appended; with semi, a ';' is written ':' */
void sbuf_esc(struct sbuf *b, const char *s, bool semi);

#endif
