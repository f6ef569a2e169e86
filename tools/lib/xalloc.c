// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "xalloc.h"
#include "msg.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *checked(void *p)
{
	if (!p)
		die_unsupported("out of memory");
	return p;
}

void *xmalloc(size_t size)
{
	return checked(malloc(size ? size : 1));
}

void *xcalloc(size_t n, size_t size)
{
	return checked(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		die_unsupported("out of memory");
	n *= size;
	return checked(realloc(p, n ? n : 1));
}

char *xstrdup(const char *s)
{
	return checked(strdup(s));
}
