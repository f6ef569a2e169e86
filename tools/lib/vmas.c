// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "vmas.h"
#include "common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* open addressing on (pid, start) */
struct vmas {
	struct vma_ent *t;
	size_t cap, n;
};

static uint64_t mix(uint32_t pid, uint64_t start)
{
	uint64_t x = start ^ ((uint64_t)pid << 44) ^ pid;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static void oom(void)
{
	msg_warn("out of memory");
	exit(EXIT_UNSUPPORTED);
}

struct vmas *vmas_new(void)
{
	struct vmas *v = calloc(1, sizeof(*v));

	if (!v)
		oom();
	return v;
}

void vmas_free(struct vmas *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->cap; i++)
		free((char *)v->t[i].name);
	free(v->t);
	free(v);
}

static struct vma_ent *slot(struct vma_ent *t, size_t cap, uint32_t pid,
			    uint64_t start)
{
	size_t i = mix(pid, start) & (cap - 1);

	while (t[i].name && !(t[i].pid == pid && t[i].start == start))
		i = (i + 1) & (cap - 1);
	return &t[i];
}

static void grow(struct vmas *v)
{
	size_t cap = v->cap ? v->cap * 2 : 1024;
	struct vma_ent *t = calloc(cap, sizeof(*t));

	if (!t)
		oom();
	for (size_t i = 0; i < v->cap; i++)
		if (v->t[i].name)
			*slot(t, cap, v->t[i].pid, v->t[i].start) = v->t[i];
	free(v->t);
	v->t = t;
	v->cap = cap;
}

static void put(struct vmas *v, uint32_t pid, uint64_t start, uint64_t end,
		const char *name, bool replace)
{
	struct vma_ent *e;
	char *dup;

	if (2 * (v->n + 1) > v->cap)
		grow(v);
	e = slot(v->t, v->cap, pid, start);
	if (e->name && !replace)
		return;
	if (e->name && e->end == end && !strcmp(e->name, name))
		return;
	dup = strdup(name);
	if (!dup)
		oom();
	if (e->name)
		free((char *)e->name);
	else
		v->n++;
	*e = (struct vma_ent){ .pid = pid, .start = start, .end = end, .name = dup };
}

int vmas_parse_line(char *line, uint64_t *start, uint64_t *end,
		    const char **name)
{
	char *p = line, *nl;
	int field;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64, start, end) != 2 || *end <= *start)
		return -1;
	/* address perms offset dev inode, then the name after spaces */
	for (field = 0; field < 5; field++) {
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

int vmas_capture(struct vmas *v, uint32_t pid)
{
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
			put(v, pid, start, end, name, true);
	}
	free(line);
	fclose(f);
	return 0;
}

void vmas_add(struct vmas *v, uint32_t pid, uint64_t start, uint64_t end,
	      const char *name)
{
	put(v, pid, start, end, name, false);
}

const struct vma_ent *vmas_by_start(const struct vmas *v, uint32_t pid,
				    uint64_t start)
{
	const struct vma_ent *e;

	if (!v->cap)
		return NULL;
	e = slot(v->t, v->cap, pid, start);
	return e->name ? e : NULL;
}

const struct vma_ent *vmas_by_addr(const struct vmas *v, uint32_t pid,
				   uint64_t addr)
{
	for (size_t i = 0; i < v->cap; i++) {
		const struct vma_ent *e = &v->t[i];

		if (e->name && e->pid == pid && e->start <= addr && addr < e->end)
			return e;
	}
	return NULL;
}
