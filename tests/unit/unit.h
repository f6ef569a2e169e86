/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A minimal unit-test harness: each check prints "ok - ..." or
 * "not ok - ..." (TAP style); tests/run.sh counts them.  main() returns
 * unit_exit(), non-zero when any check failed. */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>
#include <string.h>
#include <inttypes.h>

static int unit_failed, unit_passed;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (cond) {                                                    \
			unit_passed++;                                         \
			printf("ok - ");                                       \
		} else {                                                       \
			unit_failed++;                                         \
			printf("not ok - %s:%d: (%s) ", __FILE__, __LINE__,    \
			       #cond);                                         \
		}                                                              \
		printf(__VA_ARGS__);                                           \
		printf("\n");                                                  \
	} while (0)

#define CHECK_STR(got, want, ...)                                              \
	do {                                                                   \
		const char *g_ = (got), *w_ = (want);                          \
		int same_ = (g_ && w_) ? strcmp(g_, w_) == 0 : g_ == w_;       \
		CHECK(same_, __VA_ARGS__);                                     \
		if (!same_)                                                    \
			printf("#   got \"%s\", want \"%s\"\n",                \
			       g_ ? g_ : "(null)", w_ ? w_ : "(null)");        \
	} while (0)

#define CHECK_U64(got, want, ...)                                              \
	do {                                                                   \
		uint64_t g_ = (got), w_ = (want);                              \
		CHECK(g_ == w_, __VA_ARGS__);                                  \
		if (g_ != w_)                                                  \
			printf("#   got %" PRIu64 ", want %" PRIu64 "\n", g_,  \
			       w_);                                            \
	} while (0)

static inline int unit_exit(void)
{
	fflush(stdout);
	return unit_failed ? 1 : 0;
}

#endif
