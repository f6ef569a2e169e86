// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "vmas.h"
#include "msg.h"
#include "xalloc.h"
#include "hashmap.h"
#include "vec.h"
#include "procfs.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One process: its mappings sorted by start, never overlapping */
struct pid_vmas {
	struct vma_ent *e;
	size_t n;
};

/* (pid, image) -> struct pid_vmas */
struct vmas {
	struct hashmap *p;
};

struct vmas_key {
	uint64_t image, pid;
};

#define VMAS_KEY(pid_, image_) (&(struct vmas_key){ .image = (image_), .pid = (pid_) })

struct vmas *vmas_new(void)
{
	struct vmas *v = xcalloc(1, sizeof(struct vmas));

	v->p = hashmap_new(sizeof(struct vmas_key), sizeof(struct pid_vmas));
	return v;
}

static void free_ents(struct vma_ent *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)e[i].name);
	free(e);
}

static void pid_vmas_free(const void *key, void *val, void *arg)
{
	struct pid_vmas *p = val;

	free_ents(p->e, p->n);
}

void vmas_free(struct vmas *v)
{
	if (!v)
		return;
	hashmap_each(v->p, pid_vmas_free, NULL);
	hashmap_free(v->p);
	free(v);
}

static struct pid_vmas *pid_slot(struct vmas *v, uint32_t pid, uint64_t image)
{
	bool created;
	struct pid_vmas *p = hashmap_get(v->p, VMAS_KEY(pid, image), &created), *u;

	/* the capture made before the image was known is this one's */
	if (created && image && (u = hashmap_lookup(v->p, VMAS_KEY(pid, 0)))) {
		*p = *u;
		hashmap_del(v->p, VMAS_KEY(pid, 0));
	}
	return p;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct vma_ent *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void push(struct vma_ent **e, size_t *n, size_t *cap, uint64_t start,
		 uint64_t end, const char *name)
{
	array_reserve(*e, *cap, *n + 1);
	(*e)[*n].start = start;
	(*e)[*n].end = end;
	(*e)[*n].name = xstrdup(name);
	(*n)++;
}

/* The parts of old that none of the first nf (sorted) entries of *e
 * covers are appended to *e (which may move) */
static void keep_uncovered(const struct vma_ent *old, size_t nf,
			   struct vma_ent **e, size_t *n, size_t *cap)
{
	uint64_t cur = old->start;
	size_t lo = 0, hi = nf;

	while (lo < hi) {	/* first entry ending after old->start */
		size_t mid = (lo + hi) / 2;

		if ((*e)[mid].end <= old->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < nf && (*e)[i].start < old->end; i++) {
		uint64_t fs = (*e)[i].start, fe = (*e)[i].end;

		if (fs > cur)
			push(e, n, cap, cur, fs, old->name);
		if (fe > cur)
			cur = fe;
	}
	if (cur < old->end)
		push(e, n, cap, cur, old->end, old->name);
}

int vmas_capture(struct vmas *v, uint32_t pid, uint64_t image)
{
	struct vma_ent *e = NULL;
	size_t n = 0, cap = 0, fresh;
	struct pid_vmas *p;
	struct proc_lines pl;
	char *line;

	if (proc_lines_open(&pl, "/proc/%u/maps", pid))
		return -1;
	while ((line = proc_lines_next(&pl))) {
		uint64_t start, end;
		const char *name;

		if (!proc_maps_line(line, &start, &end, &name))
			push(&e, &n, &cap, start, end, name);
	}
	qsort(e, n, sizeof(*e), ent_cmp);	/* sorted already, normally */

	/* what was seen before, where nothing is mapped now, keeps its name */
	p = pid_slot(v, pid, image);
	fresh = n;
	for (size_t i = 0; i < p->n; i++)
		keep_uncovered(&p->e[i], fresh, &e, &n, &cap);
	free_ents(p->e, p->n);
	qsort(e, n, sizeof(*e), ent_cmp);
	p->e = e;
	p->n = n;
	return 0;
}

const struct vma_ent *vmas_find(const struct vmas *v, uint32_t pid, uint64_t image,
				uint64_t addr)
{
	const struct pid_vmas *p;
	size_t lo = 0, hi;

	p = hashmap_lookup(v->p, VMAS_KEY(pid, image));
	if (!p && image)
		p = hashmap_lookup(v->p, VMAS_KEY(pid, 0));
	if (!p)
		return NULL;
	hi = p->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->e[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->n && p->e[lo].start <= addr ? &p->e[lo] : NULL;
}
