// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "vmas.h"
#include "common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One process: its mappings sorted by start, never overlapping */
struct pid_vmas {
	uint32_t pid;		/* 0: free slot */
	uint64_t image;
	struct vma_ent *e;
	size_t n;
};

/* open addressing on (pid, image) */
struct vmas {
	struct pid_vmas *p;
	size_t cap, n;
};

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p) {
		msg_warn("out of memory");
		exit(EXIT_UNSUPPORTED);
	}
	return p;
}

struct vmas *vmas_new(void)
{
	struct vmas *v = xrealloc(NULL, sizeof(*v));

	memset(v, 0, sizeof(*v));
	return v;
}

static void free_ents(struct vma_ent *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)e[i].name);
	free(e);
}

void vmas_free(struct vmas *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->cap; i++)
		free_ents(v->p[i].e, v->p[i].n);
	free(v->p);
	free(v);
}

static struct pid_vmas *slot(struct pid_vmas *t, size_t cap, uint32_t pid, uint64_t image)
{
	size_t i = ((pid ^ image * 0x9e3779b97f4a7c15ull) * 0x9e3779b1u) & (cap - 1);

	while (t[i].pid && (t[i].pid != pid || t[i].image != image))
		i = (i + 1) & (cap - 1);
	return &t[i];
}

static struct pid_vmas *pid_slot(struct vmas *v, uint32_t pid, uint64_t image)
{
	struct pid_vmas *p;

	if (2 * (v->n + 1) > v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		struct pid_vmas *t = xrealloc(NULL, cap * sizeof(*t));

		memset(t, 0, cap * sizeof(*t));
		for (size_t i = 0; i < v->cap; i++)
			if (v->p[i].pid)
				*slot(t, cap, v->p[i].pid, v->p[i].image) = v->p[i];
		free(v->p);
		v->p = t;
		v->cap = cap;
	}
	p = slot(v->p, v->cap, pid, image);
	if (!p->pid && image) {
		/* the capture made before the image was known is this one's */
		struct pid_vmas *u = slot(v->p, v->cap, pid, 0);

		if (u->pid) {
			*p = *u;
			p->image = image;
			memset(u, 0, sizeof(*u));
			/* keep the probe chains whole: re-insert what follows */
			for (size_t i = (u - v->p + 1) & (v->cap - 1); v->p[i].pid;
			     i = (i + 1) & (v->cap - 1)) {
				struct pid_vmas x = v->p[i];

				memset(&v->p[i], 0, sizeof(v->p[i]));
				*slot(v->p, v->cap, x.pid, x.image) = x;
			}
			return slot(v->p, v->cap, pid, image);
		}
	}
	if (!p->pid) {
		p->pid = pid;
		p->image = image;
		v->n++;
	}
	return p;
}

int vmas_parse_line(char *line, uint64_t *start, uint64_t *end,
		    const char **name)
{
	char *p = line, *nl;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64, start, end) != 2 || *end <= *start)
		return -1;
	/* address perms offset dev inode, then the name after spaces */
	for (int field = 0; field < 5; field++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return -1;
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	while (*p == ' ')
		p++;
	nl = strchr(p, '\n');
	if (nl)
		*nl = 0;
	*name = *p ? p : "[anon]";
	return 0;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct vma_ent *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void push(struct vma_ent **e, size_t *n, size_t *cap, uint64_t start,
		 uint64_t end, const char *name)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*e = xrealloc(*e, *cap * sizeof(**e));
	}
	(*e)[*n].start = start;
	(*e)[*n].end = end;
	(*e)[*n].name = strdup(name);
	if (!(*e)[*n].name) {
		msg_warn("out of memory");
		exit(EXIT_UNSUPPORTED);
	}
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
	char path[64], *line = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (getline(&line, &len, f) > 0) {
		uint64_t start, end;
		const char *name;

		if (!vmas_parse_line(line, &start, &end, &name))
			push(&e, &n, &cap, start, end, name);
	}
	free(line);
	fclose(f);
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

	if (!v->cap)
		return NULL;
	p = slot(v->p, v->cap, pid, image);
	if (!p->pid && image)
		p = slot(v->p, v->cap, pid, 0);
	if (!p->pid)
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
