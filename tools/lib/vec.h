/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A growable array of any element type, for the tables the tools collect
 * into. A vec is a struct with three fields, of the type VEC(type):
 *
 *	VEC(struct row) rows;		(a member)	VEC(int) idx = { 0 };
 *
 * .v the elements, .n how many are used, .cap how many are allocated.
 * Zeroed, it is empty. It grows by doubling (from 16), and exits with
 * EXIT_UNSUPPORTED on out of memory (xalloc.h). An array already kept
 * in separate variables grows the same way with array_reserve(). */
#ifndef SUITE_VEC_H
#define SUITE_VEC_H

#include <stddef.h>
#include <stdlib.h>

#define VEC(type) struct { type *v; size_t n, cap; }

/* the array p, grown (by doubling) to hold at least want elements of
 * size bytes; *cap updated */
void *vec_grow(void *p, size_t *cap, size_t want, size_t size);

/* make room for at least want elements in all */
#define vec_reserve(vec, want)                                                 \
	((vec)->v = vec_grow((vec)->v, &(vec)->cap, (want), sizeof(*(vec)->v)))

/* the same for an array kept in two variables: p of cap elements (size_t) */
#define array_reserve(p, cap, want)                                            \
	((p) = vec_grow((p), &(cap), (want), sizeof(*(p))))

/* append one element (an expression of the element type) */
#define vec_push(vec, elem)                                                    \
	do {                                                                   \
		vec_reserve((vec), (vec)->n + 1);                              \
		(vec)->v[(vec)->n++] = (elem);                                 \
	} while (0)

/* the address of a new element at the end, not initialized */
#define vec_add(vec) (vec_reserve((vec), (vec)->n + 1), &(vec)->v[(vec)->n++])

#define vec_free(vec)                                                          \
	do {                                                                   \
		free((vec)->v);                                                \
		(vec)->v = NULL;                                               \
		(vec)->n = (vec)->cap = 0;                                     \
	} while (0)

#endif
