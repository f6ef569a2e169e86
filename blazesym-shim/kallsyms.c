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
			int d = (*q >= '0' && *q <= '9') ? *q - '0' :
				(*q >= 'a' && *q <= 'f') ? *q - 'a' + 10 :
				(*q >= 'A' && *q <= 'F') ? *q - 'A' + 10 : -1;
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
		if (k->cnt == cap) {
			size_t ncap = cap ? cap * 2 : 4096;
			struct ksym *ns = realloc(k->syms, ncap * sizeof(*ns));

			if (!ns)
				goto fail;
			k->syms = ns;
			cap = ncap;
		}
		k->syms[k->cnt] = (struct ksym){ addr, name, mod, (uint32_t)k->cnt,
			type == 't' || type == 'T' || type == 'w' || type == 'W' };
		k->cnt++;
	}
	if (k->cnt) {
		size_t n = 1;

		qsort(k->syms, k->cnt, sizeof(*k->syms), ksym_cmp);
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

int bzs_ksyms_lookup(const struct bzs_ksyms *k, uint64_t addr, const char **name,
		     const char **module, uint64_t *start)
{
	size_t lo = 0, hi;

	if (!k || !k->cnt)
		return BLAZE_SYMBOLIZE_REASON_MISSING_SYMS;
	if (addr < k->syms[0].addr)
		return BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR;
	hi = k->cnt;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* non-text symbols are not code */
	if (!k->syms[lo].text)
		return BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR;
	/* the last symbol of the table or of a module has no known end: do
	 * not let it stretch over the gap that follows */
	if (addr - k->syms[lo].addr >= LAST_SYM_MAX &&
	    (lo + 1 == k->cnt || !same_module(k->syms[lo].module, k->syms[lo + 1].module)))
		return BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR;
	*name = k->syms[lo].name;
	*module = k->syms[lo].module;
	*start = k->syms[lo].addr;
	return BLAZE_SYMBOLIZE_REASON_SUCCESS;
}

void bzs_ksyms_free(struct bzs_ksyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->buf);
	free(k);
}
