/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* /proc/kallsyms: "ADDR TYPE NAME[\t[MODULE]]" per line.  Text symbols
 * (t T w W) are results; data symbols only end the text symbol before them.
 * kallsyms has no sizes: a symbol extends to the next one. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module;	/* NULL: core kernel */
	uint32_t idx;
	bool text;
};

struct bzs_ksyms {
	struct ksym *syms;
	size_t cnt;
	char *buf;	/* the text, cut in place into names */
};

static int ksym_cmp(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;
	unsigned ua = 0, ub = 0;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->text != b->text)
		return a->text ? -1 : 1;
	while (a->name[ua] == '_')
		ua++;
	while (b->name[ub] == '_')
		ub++;
	if (ua != ub)
		return ua < ub ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The end of the sorted run of a that begins at i (n elements) */
static size_t run_end(const struct ksym *a, size_t i, size_t n)
{
	while (++i < n && ksym_cmp(&a[i - 1], &a[i]) <= 0)
		;
	return i;
}

/* Sort the n symbols of a by ksym_cmp (a total order: the result is the
 * one qsort() gives).  /proc/kallsyms comes in address order but for a
 * few runs (modules, BPF programs, trampolines): merging the runs costs
 * a pass over the table per halving of their number, where a sort of
 * 100,000 symbols was most of the parse */
static void ksyms_sort(struct ksym *a, size_t n)
{
	struct ksym *tmp;
	size_t runs = 0;

	for (size_t i = 0; i < n; i = run_end(a, i, n))
		runs++;
	if (runs <= 1)
		return;
	tmp = runs <= 64 ? malloc(n * sizeof(*a)) : NULL;
	if (!tmp) {
		qsort(a, n, sizeof(*a), ksym_cmp);
		return;
	}
	while (runs > 1) {
		runs = 0;
		for (size_t lo = 0; lo < n; runs++) {
			size_t mid = run_end(a, lo, n), hi = mid < n ? run_end(a, mid, n) : n;
			size_t i = lo, j = mid, o = lo;

			while (i < mid && j < hi)
				tmp[o++] = ksym_cmp(&a[j], &a[i]) < 0 ? a[j++] : a[i++];
			while (i < mid)
				tmp[o++] = a[i++];
			while (j < hi)
				tmp[o++] = a[j++];
			lo = hi;
		}
		memcpy(a, tmp, n * sizeof(*a));
	}
	free(tmp);
}

struct bzs_ksyms *bzs_ksyms_parse(const char *text, size_t len)
{
	struct bzs_ksyms *k = calloc(1, sizeof(*k));
	size_t cap = 0;
	char *p, *end;

	if (!k)
		return NULL;
	k->buf = malloc(len + 1);
	if (!k->buf)
		goto fail;
	memcpy(k->buf, text, len);
	k->buf[len] = '\0';
	p = k->buf;
	end = k->buf + len;
	while (p < end) {
		char *eol = memchr(p, '\n', (size_t)(end - p)), *q, *name, *mod = NULL;
		uint64_t addr = 0;
		int digits = 0;
		char type;

		if (!eol)
			eol = end;
		*eol = '\0';
		q = p;
		p = eol + 1;
		for (; *q; q++, digits++) {
			int d = bzs_hex_digit(*q);

			if (d < 0)
				break;
			addr = addr << 4 | (uint64_t)d;
		}
		if (!digits || digits > 16 || *q != ' ')
			continue;
		type = q[1];
		if (!type || q[2] != ' ')
			continue;
		name = q + 3;
		q = strchr(name, '\t');
		if (q) {
			*q = '\0';
			mod = q + 1;
			if (*mod == '[') {
				char *c = strchr(mod, ']');

				mod++;
				if (c)
					*c = '\0';
			}
			if (!*mod)
				mod = NULL;
		}
		/* trailing spaces/CR of hand-written fixtures */
		for (q = name + strlen(name); q > name && (q[-1] == ' ' || q[-1] == '\r');)
			*--q = '\0';
		if (!*name || addr == 0 || type == 'a' || type == 'A' || type == 'U')
			continue;
		if (BZS_ARRAY_RESERVE(k->syms, cap, k->cnt, 4096))
			goto fail;
		k->syms[k->cnt] = (struct ksym){ addr, name, mod, (uint32_t)k->cnt,
			type == 't' || type == 'T' || type == 'w' || type == 'W' };
		k->cnt++;
	}
	if (k->cnt) {
		size_t n = 1;

		ksyms_sort(k->syms, k->cnt);
		for (size_t i = 1; i < k->cnt; i++)
			if (k->syms[i].addr != k->syms[n - 1].addr)
				k->syms[n++] = k->syms[i];
		k->cnt = n;
	}
	return k;
fail:
	bzs_ksyms_free(k);
	return NULL;
}

struct bzs_ksyms *bzs_ksyms_load(const char *path)
{
	size_t len;
	char *text = bzs_read_proc(path, BZS_PROC_MAX, &len);
	struct bzs_ksyms *k;

	if (!text)
		return NULL;
	k = bzs_ksyms_parse(text, len);
	free(text);
	return k;
}

/* the longest a symbol without a known end may be */
#define LAST_SYM_MAX 0x10000

static bool same_module(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The text symbol of the (non-empty) table k that covers addr, or NULL */
static const struct ksym *ksym_covering(const struct bzs_ksyms *k, uint64_t addr)
{
	size_t lo;

	if (addr < k->syms[0].addr)
		return NULL;
	lo = BZS_SORTED_LAST_AT_MOST(k->syms, k->cnt, addr, addr);
	/* non-text symbols are not code */
	if (!k->syms[lo].text)
		return NULL;
	/* the last symbol of the table or of a module has no known end: do
	 * not let it stretch over the gap that follows */
	if (addr - k->syms[lo].addr >= LAST_SYM_MAX &&
	    (lo + 1 == k->cnt || !same_module(k->syms[lo].module, k->syms[lo + 1].module)))
		return NULL;
	return &k->syms[lo];
}

int bzs_ksyms_lookup(const struct bzs_ksyms *k, uint64_t addr, struct bzs_res *r)
{
	const struct ksym *y;

	if (!k || !k->cnt)
		return r->reason = BLAZE_SYMBOLIZE_REASON_MISSING_SYMS;
	y = ksym_covering(k, addr);
	if (!y)
		return r->reason = BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR;
	*r = (struct bzs_res){ .name = y->name, .module = y->module, .addr = y->addr,
			       .offset = (size_t)(addr - y->addr),
			       .reason = BLAZE_SYMBOLIZE_REASON_SUCCESS };
	return r->reason;
}

void bzs_ksyms_free(struct bzs_ksyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->buf);
	free(k);
}
