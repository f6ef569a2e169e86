/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --baseline FILE: the verdict of an earlier `hotcheck -j` run, to be put
 * beside this one's, check by check (compare.h; the fix-and-re-verify
 * step).
 *
 * FILE must be one JSON document (parsed by json-c, at most
 * HC_BASELINE_MAX_BYTES, nested at most 64 deep) whose "tool" is
 * "hotcheck" and whose "version" is the running one, with an array
 * "checks" of {"check": S, "silent": B, "count": N, "time_ns": N, ...}
 * (each check once).  Anything else is refused with the reason.
 *
 * Calls, from hotcheck.c: hc_baseline_load() when the options are read
 * (a failure is exit 2: "--baseline: " and the message), with
 * SUITE_VERSION; hc_baseline_free() at the end. */
#ifndef HOTCHECK_BASELINE_H
#define HOTCHECK_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HC_BASELINE_MAX_BYTES (64u << 20)	/* 64 MiB */

struct hc_base_check {
	char *name;
	bool silent;
	uint64_t count, time_ns;
};

struct hc_baseline {
	char *path;
	char *version;
	struct hc_base_check *checks;
	size_t n;
};

/* The baseline in path: 0, or -1 with why in err */
int hc_baseline_load(struct hc_baseline *b, const char *path, const char *version,
		     char *err, size_t errlen);
/* The same from len bytes of text (path names it in messages) */
int hc_baseline_parse(struct hc_baseline *b, const char *text, size_t len, const char *path,
		      const char *version, char *err, size_t errlen);
void hc_baseline_free(struct hc_baseline *b);

#endif
