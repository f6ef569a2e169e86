/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Sorted symbol tables: build from candidates, deduplicate aliases, compute
 * symbol ends, look up by binary search, demangle lazily. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int bzs_builder_add(struct bzs_symtab_builder *b, uint64_t addr, uint64_t size,
		    uint64_t limit, const char *name, uint32_t score)
{
	if (BZS_ARRAY_RESERVE(b->c, b->cap, b->cnt, 1024))
		return -ENOMEM;
	b->c[b->cnt] = (struct bzs_cand){ addr, size, limit, name, score, (uint32_t)b->cnt };
	b->cnt++;
	return 0;
}

int bzs_builder_own(struct bzs_symtab_builder *b, char *pool, size_t len)
{
	if (BZS_ARRAY_RESERVE(b->pools, b->pcap, b->npools, 4))
		return -ENOMEM;
	b->pools[b->npools++] = pool;
	b->mem += len;
	return 0;
}

void bzs_builder_free(struct bzs_symtab_builder *b)
{
	for (size_t i = 0; i < b->npools; i++)
		free(b->pools[i]);
	free(b->pools);
	free(b->c);
	memset(b, 0, sizeof(*b));
}

struct kv {
	uint64_t key;
	size_t idx;
};

/* Stable LSD radix sort by key (8-bit digits; digits all keys share are
 * skipped).  qsort was most of the load time of large tables. */
static int radix_sort(struct kv *a, size_t n)
{
	struct kv *tmp = malloc(n * sizeof(*tmp)), *src = a, *dst = tmp;

	if (!tmp)
		return -ENOMEM;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t cnt[256] = { 0 }, sum = 0;
		bool skip = false;

		for (size_t i = 0; i < n; i++)
			cnt[(src[i].key >> shift) & 255]++;
		for (int d = 0; d < 256; d++) {
			size_t c = cnt[d];

			if (c == n) {
				skip = true;
				break;
			}
			cnt[d] = sum;
			sum += c;
		}
		if (skip)
			continue;
		for (size_t i = 0; i < n; i++)
			dst[cnt[(src[i].key >> shift) & 255]++] = src[i];
		{
			struct kv *t = src;

			src = dst;
			dst = t;
		}
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	free(tmp);
	return 0;
}

int bzs_symtab_finish(struct bzs_symtab_builder *b, struct bzs_symtab *t)
{
	struct bzs_sym *syms;
	uint64_t cover_end = 0;
	size_t n = 0;

	struct kv *kv;
	size_t *keep;

	memset(t, 0, sizeof(*t));
	kv = malloc((b->cnt ? b->cnt : 1) * sizeof(*kv));
	keep = malloc((b->cnt ? b->cnt : 1) * sizeof(*keep));
	if (!kv || !keep)
		goto nomem;
	for (size_t i = 0; i < b->cnt; i++)
		kv[i] = (struct kv){ b->c[i].addr, i };
	if (radix_sort(kv, b->cnt))
		goto nomem;
	/* Keep the best candidate per address (highest score, then the first
	 * added); drop zero-size labels that lie inside a sized symbol
	 * (assembly labels within a function). */
	for (size_t i = 0; i < b->cnt;) {
		size_t best = kv[i].idx, j = i + 1;
		struct bzs_cand *c;

		for (; j < b->cnt && kv[j].key == kv[i].key; j++)
			if (b->c[kv[j].idx].score > b->c[best].score)
				best = kv[j].idx;
		i = j;
		c = &b->c[best];
		if (c->addr == UINT64_MAX || (c->size == 0 && c->addr < cover_end))
			continue;
		if (c->size) {
			uint64_t e = c->addr + c->size < c->addr ? UINT64_MAX : c->addr + c->size;

			if (e > cover_end)
				cover_end = e;
		}
		keep[n++] = best;
	}
	free(kv);
	kv = NULL;
	syms = malloc((n ? n : 1) * sizeof(*syms));
	if (!syms)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		struct bzs_cand *c = &b->c[keep[i]];
		uint64_t end;

		if (c->size) {
			end = c->addr + c->size;
			if (end < c->addr)
				end = UINT64_MAX;
		} else {
			end = i + 1 < n ? b->c[keep[i + 1]].addr : UINT64_MAX;
			if (c->limit > c->addr && c->limit < end)
				end = c->limit;
			if (end == UINT64_MAX)
				end = c->addr + 1;
		}
		syms[i] = (struct bzs_sym){ c->addr, end, c->name };
	}
	t->syms = syms;
	t->cnt = n;
	t->pools = b->pools;
	t->npools = b->npools;
	t->mem = b->mem + n * sizeof(*syms);
	free(keep);
	free(b->c);
	memset(b, 0, sizeof(*b));
	return 0;
nomem:
	free(kv);
	free(keep);
	bzs_builder_free(b);
	return -ENOMEM;
}

ssize_t bzs_symtab_lookup(const struct bzs_symtab *t, uint64_t addr)
{
	size_t lo;

	if (!t->cnt || addr < t->syms[0].addr)
		return -1;
	lo = BZS_SORTED_LAST_AT_MOST(t->syms, t->cnt, addr, addr);
	if (addr < t->syms[lo].end)
		return (ssize_t)lo;
	/* a sized symbol nested in a bigger one: look a little further back */
	for (size_t k = 1; k <= 8 && k <= lo; k++) {
		if (addr < t->syms[lo - k].end)
			return (ssize_t)(lo - k);
	}
	return -1;
}

static char not_mangled;

const char *bzs_symtab_name(struct bzs_symtab *t, size_t i, bool demangle)
{
	return bzs_symtab_name_opts(t, i, demangle, 0);
}

/* The names are demangled once each, with the flags of the first call (a
 * table belongs to the file cache of one symbolizer: one set of flags) */
const char *bzs_symtab_name_opts(struct bzs_symtab *t, size_t i, bool demangle, unsigned flags)
{
	const char *name = t->syms[i].name;

	if (!demangle || (name[0] != '_' ))
		return name;
	if (!t->demangled) {
		t->demangled = calloc(t->cnt, sizeof(*t->demangled));
		if (!t->demangled)
			return name;
	}
	if (!t->demangled[i]) {
		char *d = bzs_demangle_opts(name, flags);

		t->demangled[i] = d ? d : &not_mangled;
		if (d)
			t->mem += strlen(d) + 1;
	}
	return t->demangled[i] == &not_mangled ? name : t->demangled[i];
}

void bzs_symtab_free(struct bzs_symtab *t)
{
	if (t->demangled) {
		for (size_t i = 0; i < t->cnt; i++)
			if (t->demangled[i] != &not_mangled)
				free(t->demangled[i]);
		free(t->demangled);
	}
	for (size_t i = 0; i < t->npools; i++)
		free(t->pools[i]);
	free(t->pools);
	free(t->syms);
	memset(t, 0, sizeof(*t));
}
