/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* perf maps of JIT compilers, /tmp/perf-PID.map: "START SIZE NAME" per line,
 * START and SIZE in hex (with or without 0x), NAME to the end of the line.
 * The process appends as it compiles; a later entry at the same start wins.
 * Lines that do not parse are skipped. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

struct pm_ent {
	uint64_t start, end;
	const char *name;
	uint32_t idx;
};

struct bzs_perfmap {
	struct pm_ent *ents;
	size_t cnt;
	char *buf;
	/* identity of the file read, to re-read it when it changes */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

static bool parse_hex(char **pp, uint64_t *out)
{
	char *p = *pp;
	uint64_t v = 0;
	int digits = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (;; p++) {
		int d = (*p >= '0' && *p <= '9') ? *p - '0' :
			(*p >= 'a' && *p <= 'f') ? *p - 'a' + 10 :
			(*p >= 'A' && *p <= 'F') ? *p - 'A' + 10 : -1;
		if (d < 0)
			break;
		if (++digits > 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits)
		return false;
	*pp = p;
	*out = v;
	return true;
}

static int ent_cmp(const void *pa, const void *pb)
{
	const struct pm_ent *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->idx > b->idx ? -1 : a->idx < b->idx; /* later first */
}

struct bzs_perfmap *bzs_perfmap_parse(const char *text, size_t len)
{
	struct bzs_perfmap *pm = calloc(1, sizeof(*pm));
	size_t cap = 0;
	char *p, *end;

	if (!pm)
		return NULL;
	pm->buf = malloc(len + 1);
	if (!pm->buf)
		goto fail;
	memcpy(pm->buf, text, len);
	pm->buf[len] = '\0';
	p = pm->buf;
	end = p + len;
	while (p < end) {
		char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p, *name;
		uint64_t start, size;

		if (!eol)
			eol = end;
		*eol = '\0';
		p = eol + 1;
		if (!parse_hex(&q, &start) || *q != ' ')
			continue;
		q++;
		if (!parse_hex(&q, &size) || *q != ' ' || size == 0 || start + size < start)
			continue;
		name = q + 1;
		for (q = name + strlen(name); q > name && (q[-1] == '\r' || q[-1] == ' ');)
			*--q = '\0';
		if (!*name || strlen(name) != (size_t)(q - name))
			continue;
		if (pm->cnt == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			struct pm_ent *ne = realloc(pm->ents, ncap * sizeof(*ne));

			if (!ne)
				goto fail;
			pm->ents = ne;
			cap = ncap;
		}
		pm->ents[pm->cnt] = (struct pm_ent){ start, start + size, name, (uint32_t)pm->cnt };
		pm->cnt++;
	}
	if (pm->cnt) {
		size_t n = 1;

		qsort(pm->ents, pm->cnt, sizeof(*pm->ents), ent_cmp);
		for (size_t i = 1; i < pm->cnt; i++)
			if (pm->ents[i].start != pm->ents[n - 1].start)
				pm->ents[n++] = pm->ents[i];
		pm->cnt = n;
	}
	return pm;
fail:
	bzs_perfmap_free(pm);
	return NULL;
}

int bzs_perfmap_refresh(struct bzs_perfmap **pmp, const char *path)
{
	struct bzs_perfmap *pm = *pmp, *npm;
	struct stat st;
	size_t len;
	char *text;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return -1;
	if (pm && pm->dev == st.st_dev && pm->ino == st.st_ino && pm->size == st.st_size &&
	    pm->mtime.tv_sec == st.st_mtim.tv_sec && pm->mtime.tv_nsec == st.st_mtim.tv_nsec)
		return 0;
	text = bzs_read_file(path, &len);
	if (!text)
		return -1;
	npm = bzs_perfmap_parse(text, len);
	free(text);
	if (!npm)
		return -1;
	npm->dev = st.st_dev;
	npm->ino = st.st_ino;
	npm->size = st.st_size;
	npm->mtime = st.st_mtim;
	bzs_perfmap_free(pm);
	*pmp = npm;
	return 0;
}

bool bzs_perfmap_lookup(const struct bzs_perfmap *pm, uint64_t addr, const char **name,
			uint64_t *start)
{
	size_t lo = 0, hi;

	if (!pm || !pm->cnt || addr < pm->ents[0].start)
		return false;
	hi = pm->cnt;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->ents[mid].start <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* entries may overlap (code regenerated): look a little back too */
	for (size_t k = 0; k <= 16 && k <= lo; k++) {
		const struct pm_ent *e = &pm->ents[lo - k];

		if (addr < e->end) {
			*name = e->name;
			*start = e->start;
			return true;
		}
	}
	return false;
}

size_t bzs_perfmap_count(const struct bzs_perfmap *pm)
{
	return pm ? pm->cnt : 0;
}

void bzs_perfmap_free(struct bzs_perfmap *pm)
{
	if (!pm)
		return;
	free(pm->ents);
	free(pm->buf);
	free(pm);
}
