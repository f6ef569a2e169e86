/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Strict parsing of what a user types: numbers, durations and comma
 * lists.  Each returns 0, or -1 with a message in err (unit-testable);
 * opts.h wraps them for options and exits with EXIT_USAGE. */
#ifndef SUITE_PARSE_H
#define SUITE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Number parsing: decimal (and 0x hex where hex is true); no sign, no
 * trailing bytes, within [min, max]. */
int parse_u64(const char *s, uint64_t min, uint64_t max, bool hex,
	      uint64_t *out, char *err, size_t errlen);
/* Seconds with an optional fraction, > 0 and <= 1e7 */
int parse_seconds(const char *s, double *out, char *err, size_t errlen);
/* Split s on commas, each piece parsed by cb; "what" names the list in
 * the messages ("empty id list") */
int split_list(const char *s, const char *what, char *err, size_t errlen,
	       int (*cb)(const char *piece, void *arg, char *err, size_t errlen),
	       void *arg);

#endif
