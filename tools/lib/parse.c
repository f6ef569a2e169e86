// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "parse.h"
#include "msg.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int parse_u64(const char *s, uint64_t min, uint64_t max, bool hex,
	      uint64_t *out, char *err, size_t errlen)
{
	unsigned long long v;
	char *end;
	int base = 10;

	if (!s || !*s)
		return fail_msg(err, errlen, "empty number");
	if (!isdigit((unsigned char)s[0]))
		return fail_msg(err, errlen, "'%s' is not a non-negative number", s);
	if (hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		if (!isxdigit((unsigned char)s[2]))
			return fail_msg(err, errlen, "'%s' is not a number", s);
	}
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE)
		return fail_msg(err, errlen, "'%s' is too large", s);
	if (*end)
		return fail_msg(err, errlen, "'%s' is not a number", s);
	if (v < min || v > max)
		return fail_msg(err, errlen, "%s is out of range [%llu, %llu]", s,
			    (unsigned long long)min, (unsigned long long)max);
	*out = v;
	return 0;
}

int parse_seconds(const char *s, double *out, char *err, size_t errlen)
{
	char *end;
	double v;

	if (!s || !*s)
		return fail_msg(err, errlen, "empty duration");
	if (!isdigit((unsigned char)s[0]) && s[0] != '.')
		return fail_msg(err, errlen, "'%s' is not a positive number of seconds", s);
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return fail_msg(err, errlen, "'%s' is not a number of seconds", s);
	if (v <= 0 || v > 1e7)
		return fail_msg(err, errlen, "%s seconds is out of range (0, 10000000]", s);
	*out = v;
	return 0;
}

int split_list(const char *s, const char *what, char *err, size_t errlen,
	       int (*cb)(const char *piece, void *arg, char *err, size_t errlen),
	       void *arg)
{
	char *dup, *p, *save = NULL;
	int ret = 0;

	if (!s || !*s)
		return fail_msg(err, errlen, "empty %s list", what);
	if (s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return fail_msg(err, errlen, "'%s': empty element in %s list", s, what);
	dup = strdup(s);
	if (!dup)
		return fail_msg(err, errlen, "out of memory");
	for (p = strtok_r(dup, ",", &save); p && !ret; p = strtok_r(NULL, ",", &save))
		ret = cb(p, arg, err, errlen);
	free(dup);
	return ret;
}
