// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "sym.h"
#include "addrname.h"
#include "msg.h"
#include "opts.h"
#include "hashmap.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The key of a name in the cache */
struct sym_key {
	uint64_t addr, pid, data;
};

#define SYM_KEY(pid_, addr_, data_) (&(struct sym_key){ .addr = (addr_), .pid = (pid_), .data = (data_) })

struct hitm_symname *hitm_sym_find(struct hitm_symcache *s, uint32_t pid, uint64_t addr, bool data)
{
	return hashmap_lookup(s->names, SYM_KEY(pid, addr, data));
}

static void sym_put(struct hitm_symcache *s, uint32_t pid, uint64_t addr, bool data,
		    const struct addrname_result *b)
{
	struct hitm_symname *e = hashmap_get(s->names, SYM_KEY(pid, addr, data), NULL);
	char buf[1024];

	if (b && b->name) {
		if (data)
			snprintf(buf, sizeof(buf), "%s+0x%zx", b->name, b->offset);
		else
			snprintf(buf, sizeof(buf), "%s", b->name);
		e->name = strdup(buf);
	}
	if (data && !b) {
		e->where = strdup("[exited]");	/* no live process to read */
	} else if (data && b->module) {
		const char *m = b->module[0] == '/' ? strrchr(b->module, '/') + 1 : b->module;

		e->where = strdup(m);
	} else if (!data && b && b->file && b->line) {
		snprintf(buf, sizeof(buf), "%s:%u", b->file, b->line);
		e->where = strdup(buf);
	}
}

/* What addrname_process() hands each address to */
struct put_ctx {
	struct hitm_symcache *s;
	uint32_t pid;
	const uint64_t *addrs;
	bool data;
};

static void put_named(void *arg, size_t i, const struct addrname_result *r)
{
	struct put_ctx *c = arg;

	sym_put(c->s, c->pid, c->addrs[i], c->data, r);
}

/* Name every address of pid not named yet, in one call per kind */
void hitm_sym_resolve(struct hitm_symcache *s, uint32_t pid, const uint64_t *addrs,
			size_t n, bool data)
{
	uint64_t *miss = xcalloc(n ? n : 1, sizeof(*miss));
	size_t nmiss = 0;
	bool alive = pid_alive(pid);

	for (size_t i = 0; i < n; i++) {
		bool dup = false;

		for (size_t k = 0; k < nmiss && !dup; k++)
			dup = miss[k] == addrs[i];
		if (!dup && !hitm_sym_find(s, pid, addrs[i], data))
			miss[nmiss++] = addrs[i];
	}
	if (alive) {
		struct put_ctx c = { s, pid, miss, data };

		addrname_process(s->sym, pid, miss, nmiss, data, put_named, &c);
	} else {
		/* a process gone before it was named stays unnamed */
		for (size_t i = 0; i < nmiss; i++)
			sym_put(s, pid, miss[i], data, NULL);
	}
	free(miss);
}

int hitm_sym_init(struct hitm_symcache *s)
{
	memset(s, 0, sizeof(*s));
	s->names = hashmap_new(sizeof(struct sym_key), sizeof(struct hitm_symname));
	s->sym = addrname_new();
	return s->sym ? 0 : -1;
}

static void name_free(const void *key, void *val, void *arg)
{
	struct hitm_symname *e = val;

	free(e->name);
	free(e->where);
}

void hitm_sym_free(struct hitm_symcache *s)
{
	if (s->names)
		hashmap_each(s->names, name_free, NULL);
	hashmap_free(s->names);
	addrname_free(s->sym);
}

/* Every address the shown lines need, per process */
void hitm_sym_views(struct hitm_symcache *s, const struct hitm_view *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t nd = 0, nc = 0, cap = 1 + v[i].noffs, ccap = 0;
		uint64_t *d, *c;

		for (size_t k = 0; k < v[i].noffs; k++)
			ccap += v[i].offs[k].ncode;
		d = xcalloc(cap, sizeof(*d));
		c = xcalloc(ccap ? ccap : 1, sizeof(*c));
		d[nd++] = v[i].l->line;
		for (size_t k = 0; k < v[i].noffs; k++) {
			d[nd++] = v[i].l->line + v[i].offs[k].offset;
			for (size_t j = 0; j < v[i].offs[k].ncode; j++)
				c[nc++] = v[i].offs[k].code[j].ip;
		}
		hitm_sym_resolve(s, v[i].l->pid, d, nd, true);
		hitm_sym_resolve(s, v[i].l->pid, c, nc, false);
		free(d);
		free(c);
	}
}

/* What the line is: the variable at its start, else at its first offset */
void hitm_sym_line(struct hitm_symcache *s, const struct hitm_view *v, const char **sym,
		       const char **mapping)
{
	struct hitm_symname *e = hitm_sym_find(s, v->l->pid, v->l->line, true);

	*sym = e ? e->name : NULL;
	*mapping = e ? e->where : NULL;
	for (size_t k = 0; !*sym && k < v->noffs; k++) {
		e = hitm_sym_find(s, v->l->pid, v->l->line + v->offs[k].offset, true);
		if (e && e->name)
			*sym = e->name;
		if (e && e->where && !*mapping)
			*mapping = e->where;
	}
}
