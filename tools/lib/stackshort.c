// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "stackshort.h"
#include "hashmap.h"
#include "msg.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>

struct stackshort {
	struct hashmap *counts;	/* pid -> struct short_count */
	struct hashmap *seen;	/* struct short_key: counted already */
};

struct short_count {
	uint64_t stacks, short_ones;
};

struct short_key {
	uint64_t pid, ustack;
};

struct stackshort *stackshort_new(void)
{
	struct stackshort *sh = xcalloc(1, sizeof(*sh));

	sh->counts = hashmap_new(sizeof(uint32_t), sizeof(struct short_count));
	sh->seen = hashmap_new(sizeof(struct short_key), 1);
	return sh;
}

void stackshort_free(struct stackshort *sh)
{
	if (!sh)
		return;
	hashmap_free(sh->counts);
	hashmap_free(sh->seen);
	free(sh);
}

/* A frame-pointer user stack of pid taken, of n addresses: its
 * frames, not its names (with --inline a short stack may name more) */
void stackshort_count(struct stackshort *sh, uint32_t pid, __u64 ustack,
			   const __u64 *ips, int n)
{
	struct short_count *c;
	bool created;
	int len = 0;

	while (len < n && len < STACK_FRAMES && ips[len])
		len++;
	if (!len)
		return;
	/* each stack once, however often a report resolves it */
	hashmap_get(sh->seen, &(struct short_key){ .pid = pid, .ustack = ustack }, &created);
	if (!created)
		return;
	c = hashmap_get(sh->counts, &pid, NULL);
	c->stacks++;
	c->short_ones += len <= 2;
}

struct short_say {
	char pids[160];
	size_t len;
	int n;
	uint64_t stacks, short_ones;
};

static void short_one(const void *key, void *val, void *arg)
{
	const struct short_count *c = val;
	struct short_say *w = arg;
	uint32_t pid = *(const uint32_t *)key;

	/* most of its stacks: more than half */
	if (2 * c->short_ones <= c->stacks)
		return;
	w->stacks += c->stacks;
	w->short_ones += c->short_ones;
	if (w->n++ < 5 && w->len < sizeof(w->pids))
		w->len += snprintf(w->pids + w->len, sizeof(w->pids) - w->len, "%s%u",
				   w->len ? ", " : "", pid);
	else if (w->n == 6 && w->len < sizeof(w->pids))
		w->len += snprintf(w->pids + w->len, sizeof(w->pids) - w->len, ", ...");
}

void stackshort_report(const struct stackshort *sh, bool dwarf_hint)
{
	struct short_say w = { .len = 0 };

	hashmap_each(sh->counts, short_one, &w);
	if (!w.n)
		return;
	msg_warn("%llu of %llu user stacks of process%s %s stop after one or two frames: "
		 "%s code seems to lack frame pointers%s",
		 (unsigned long long)w.short_ones, (unsigned long long)w.stacks,
		 w.n > 1 ? "es" : "", w.pids, w.n > 1 ? "their" : "its",
		 dwarf_hint ? "; --dwarf unwinds whole stacks" : "");
}
