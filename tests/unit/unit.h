/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A minimal unit-test harness: each check prints "ok - ..." or
 * "not ok - ..." (TAP style); tests/run.sh counts them.  main() returns
 * unit_exit(), non-zero when any check failed. */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>
#include <stdlib.h>
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

/* What fn(f, arg) writes to the stream f, as a malloc'ed string */
static inline char *unit_capture(void (*fn)(FILE *f, void *arg), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, arg);
	fclose(f);
	return buf;
}

/* CHECK_STR on what fn(f, arg) writes */
#define CHECK_CAPTURE(fn, arg, want, ...)                                      \
	do {                                                                   \
		char *out_ = unit_capture(fn, arg);                            \
		CHECK_STR(out_, want, __VA_ARGS__);                            \
		free(out_);                                                    \
	} while (0)

/* A fresh directory "/tmp/PREFIX-XXXXXX" for a test's files, in dir;
 * 0, or -1 when it cannot be made (said on stderr) */
static inline int unit_tmpdir(char *dir, size_t size, const char *prefix)
{
	snprintf(dir, size, "/tmp/%s-XXXXXX", prefix);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return -1;
	}
	return 0;
}

/* Removes the directory of unit_tmpdir() and all in it */
static inline void unit_tmpdir_remove(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "cleanup of %s failed\n", dir);
}

static inline int unit_exit(void)
{
	fflush(stdout);
	return unit_failed ? 1 : 0;
}

#endif
