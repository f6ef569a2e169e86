/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* /proc/PID/maps parsing:
 *   START-END PERMS OFFSET MAJOR:MINOR INODE [PATH]
 * all numbers hex except INODE (decimal); PATH may hold spaces and ends
 * with " (deleted)" when the file was unlinked. */
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "internal.h"

static bool parse_num(const char **pp, const char *end, unsigned base, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int digits = 0;

	while (p < end) {
		int d = bzs_hex_digit(*p);

		if (d < 0 || (unsigned)d >= base)
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return false; /* overflow */
		v = v * base + (uint64_t)d;
		p++;
		digits++;
	}
	if (!digits)
		return false;
	*pp = p;
	*out = v;
	return true;
}

static bool expect(const char **pp, const char *end, char c)
{
	if (*pp >= end || **pp != c)
		return false;
	(*pp)++;
	return true;
}

static void skip_spaces(const char **pp, const char *end)
{
	while (*pp < end && (**pp == ' ' || **pp == '\t'))
		(*pp)++;
}

static bool parse_line(const char *p, const char *end, struct bzs_maps_entry *e)
{
	uint64_t major, minor;
	const char *perms;
	size_t plen;

	memset(e, 0, sizeof(*e));
	if (!parse_num(&p, end, 16, &e->start) || !expect(&p, end, '-') ||
	    !parse_num(&p, end, 16, &e->end) || !expect(&p, end, ' '))
		return false;
	if (e->end <= e->start || end - p < 5)
		return false;
	perms = p;
	for (int i = 0; i < 4; i++)
		if (!perms[i] || !strchr("rwxps-", perms[i]))
			return false;
	e->exec = perms[2] == 'x';
	p += 4;
	if (!expect(&p, end, ' ') || !parse_num(&p, end, 16, &e->off) || !expect(&p, end, ' ') ||
	    !parse_num(&p, end, 16, &major) || !expect(&p, end, ':') ||
	    !parse_num(&p, end, 16, &minor) || !expect(&p, end, ' ') ||
	    !parse_num(&p, end, 10, &e->ino))
		return false;
	if (major > 0xfffff || minor > 0xfffff)
		return false;
	e->dev = makedev((unsigned)major, (unsigned)minor);
	if (p < end && *p != ' ' && *p != '\t')
		return false;
	skip_spaces(&p, end);
	plen = (size_t)(end - p);
	if (plen == 0) {
		e->kind = BZS_VMA_ANON;
		return true;
	}
	if (p[0] == '[') {
		if (plen == 6 && !memcmp(p, "[vdso]", 6))
			e->kind = BZS_VMA_VDSO;
		else if ((plen == 6 && !memcmp(p, "[heap]", 6)) ||
			 (plen >= 6 && !memcmp(p, "[stack", 6)) ||
			 (plen >= 6 && !memcmp(p, "[anon:", 6)))
			e->kind = BZS_VMA_ANON;
		else
			e->kind = BZS_VMA_OTHER;
	} else if (p[0] == '/') {
		e->kind = BZS_VMA_FILE;
		if (plen > 10 && !memcmp(end - 10, " (deleted)", 10)) {
			plen -= 10;
			e->deleted = true;
		}
	} else {
		e->kind = BZS_VMA_OTHER;
	}
	if (memchr(p, '\0', plen))
		return false;
	e->path = strndup(p, plen);
	return e->path != NULL;
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct bzs_maps_entry *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return 0;
}

struct bzs_maps_entry *bzs_maps_parse(const char *buf, size_t len, bool exec_only,
				      size_t *n, size_t *bad)
{
	struct bzs_maps_entry *v = NULL;
	size_t cnt = 0, cap = 0, nbad = 0;
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		struct bzs_maps_entry e;

		if (!eol)
			eol = end;
		if (eol > p) {
			if (!parse_line(p, eol, &e)) {
				nbad++;
			} else if (exec_only && !e.exec) {
				free(e.path);
			} else {
				if (BZS_ARRAY_RESERVE(v, cap, cnt, 64)) {
					free(e.path);
					bzs_maps_free(v, cnt);
					*n = 0;
					return NULL;
				}
				v[cnt++] = e;
			}
		}
		p = eol + 1;
	}
	if (cnt > 1)
		qsort(v, cnt, sizeof(*v), entry_cmp);
	/* drop overlapping entries (never in a real maps file) */
	if (cnt) {
		size_t k = 1;

		for (size_t i = 1; i < cnt; i++) {
			if (v[i].start < v[k - 1].end) {
				free(v[i].path);
				nbad++;
			} else {
				v[k++] = v[i];
			}
		}
		cnt = k;
	}
	if (bad)
		*bad = nbad;
	*n = cnt;
	return v;
}

void bzs_maps_free(struct bzs_maps_entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(e[i].path);
	free(e);
}
