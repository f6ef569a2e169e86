/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Allocation that cannot fail: on out of memory it prints
 * "tool: out of memory" and exits with EXIT_UNSUPPORTED (CLI.md). A size
 * of zero still returns a pointer to free; n * size is checked for
 * overflow (an overflow counts as out of memory). */
#ifndef SUITE_XALLOC_H
#define SUITE_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
/* p resized to n elements of size bytes */
void *xrealloc(void *p, size_t n, size_t size);
char *xstrdup(const char *s);

#endif
