// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "vec.h"
#include "xalloc.h"

void *vec_grow(void *p, size_t *cap, size_t want, size_t size)
{
	size_t c = *cap ? *cap : 16;

	if (want <= *cap)
		return p;
	while (c < want)
		c *= 2;
	p = xrealloc(p, c, size);
	*cap = c;
	return p;
}
