/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* perf maps of JIT compilers, /tmp/perf-PID.map: "START SIZE NAME" per line,
 * START and SIZE in hex (with or without 0x), NAME to the end of the line.
 * The process appends as it compiles; a later entry at the same start wins.
 * Lines that do not parse are skipped.
 *
 * The file belongs to the process, so it is read as safefile.c says
 * (inside the process's root, a regular file on a real filesystem, owned
 * by the process's user or root) and parsed as it streams in, a chunk at a
 * time: only the names kept are held, never the file.  A line longer than
 * PM_LINE_MAX is skipped.  Reading stops at the symbolizer's line and byte
 * limits (pm_max_lines, pm_max_bytes: BLAZESYM_SHIM_PERF_MAP_MAX_LINES and
 * _MAX_BYTES, see blazesym.h), after BZS_READ_NS, or when the caller
 * interrupts; a cut is said once (bzs_notify). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define PM_LINE_MAX 8192
#define PM_CHUNK 65536
#define PM_POOL_BLOCK 65536

struct pm_ent {
	uint64_t start, end;
	const char *name;
	uint32_t idx;
};

struct bzs_perfmap {
	struct pm_ent *ents;
	size_t cnt, cap;
	char **pools;		/* blocks holding the names */
	size_t npools;
	char *pool_pos;		/* free space at the end of the last block */
	size_t pool_left;
	/* identity of the file read, to re-read it when it changes */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	bool cut;		/* stopped at the line or byte limit */
};

static bool parse_hex(char **pp, uint64_t *out)
{
	char *p = *pp;
	uint64_t v = 0;
	int digits = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (;; p++) {
		int d = bzs_hex_digit(*p);

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

static char *pool_put(struct bzs_perfmap *pm, const char *name, size_t len)
{
	char *dst;

	if (len + 1 > pm->pool_left) {
		size_t sz = len + 1 > PM_POOL_BLOCK ? len + 1 : PM_POOL_BLOCK;
		char **np = realloc(pm->pools, (pm->npools + 1) * sizeof(*np));

		if (!np)
			return NULL;
		pm->pools = np;
		np[pm->npools] = malloc(sz);
		if (!np[pm->npools])
			return NULL;
		pm->pool_pos = np[pm->npools++];
		pm->pool_left = sz;
	}
	dst = pm->pool_pos;
	memcpy(dst, name, len);
	dst[len] = '\0';
	pm->pool_pos += len + 1;
	pm->pool_left -= len + 1;
	return dst;
}

/* One line (no newline, NUL-terminated, writable).  -1: out of memory. */
static int add_line(struct bzs_perfmap *pm, char *line)
{
	char *q = line, *name, *e;
	uint64_t start, size;
	size_t len;

	if (!parse_hex(&q, &start) || *q != ' ')
		return 0;
	q++;
	if (!parse_hex(&q, &size) || *q != ' ' || size == 0 || start + size < start)
		return 0;
	name = q + 1;
	len = strlen(name);
	for (e = name + len; e > name && (e[-1] == '\r' || e[-1] == ' ');)
		e--;
	if (e == name)
		return 0;
	if (BZS_ARRAY_RESERVE(pm->ents, pm->cap, pm->cnt, 256))
		return -1;
	name = pool_put(pm, name, (size_t)(e - name));
	if (!name)
		return -1;
	pm->ents[pm->cnt] = (struct pm_ent){ start, start + size, name, (uint32_t)pm->cnt };
	pm->cnt++;
	return 0;
}

static void finish(struct bzs_perfmap *pm)
{
	size_t n = 1;

	if (!pm->cnt)
		return;
	qsort(pm->ents, pm->cnt, sizeof(*pm->ents), ent_cmp);
	for (size_t i = 1; i < pm->cnt; i++)
		if (pm->ents[i].start != pm->ents[n - 1].start)
			pm->ents[n++] = pm->ents[i];
	pm->cnt = n;
}

/* Feed len bytes; *carry holds a partial line between calls (*clen bytes,
 * or SIZE_MAX while skipping an over-long one).  Counts lines in *lines and
 * stops at max_lines.  -1: out of memory. */
static int feed(struct bzs_perfmap *pm, char *carry, size_t *clen, const char *p, size_t len,
		size_t *lines, size_t max_lines, size_t *used)
{
	const char *end = p + len, *start = p;

	while (p < end && *lines < max_lines) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((eol ? eol : end) - p);

		if (*clen != SIZE_MAX) {
			if (*clen + n > PM_LINE_MAX) {
				*clen = SIZE_MAX;	/* too long: skip to its end */
			} else {
				memcpy(carry + *clen, p, n);
				*clen += n;
			}
		}
		if (!eol) {
			p = end;
			break;
		}
		if (*clen != SIZE_MAX) {
			carry[*clen] = '\0';
			if (memchr(carry, '\0', *clen) == NULL && add_line(pm, carry))
				return -1;
		}
		*clen = 0;
		++*lines;
		p = eol + 1;
	}
	*used = (size_t)(p - start);
	return 0;
}

static void flush_last(struct bzs_perfmap *pm, char *carry, size_t clen)
{
	if (clen && clen != SIZE_MAX) {
		carry[clen] = '\0';
		if (!memchr(carry, '\0', clen))
			add_line(pm, carry);
	}
}

struct bzs_perfmap *bzs_perfmap_parse(const char *text, size_t len)
{
	struct bzs_perfmap *pm = calloc(1, sizeof(*pm));
	char *carry = malloc(PM_LINE_MAX + 1);
	size_t clen = 0, lines = 0, used;

	if (!pm || !carry ||
	    feed(pm, carry, &clen, text, len, &lines, SIZE_MAX, &used)) {
		free(carry);
		bzs_perfmap_free(pm);
		return NULL;
	}
	flush_last(pm, carry, clen);
	free(carry);
	finish(pm);
	return pm;
}

/* Read fd as it streams in, within the limits; *lines, *bytes: how far */
static struct bzs_perfmap *read_stream(int fd, size_t max_lines, size_t max_bytes,
				       size_t *lines, size_t *bytes, bool *cut, bool *late)
{
	uint64_t deadline = bzs_now_ns() + BZS_READ_NS;
	struct bzs_perfmap *pm = calloc(1, sizeof(*pm));
	char *carry = malloc(PM_LINE_MAX + 1), *buf = malloc(PM_CHUNK);
	size_t clen = 0;

	*lines = *bytes = 0;
	*cut = *late = false;
	if (!pm || !carry || !buf)
		goto fail;
	for (;;) {
		size_t want = PM_CHUNK, used;
		ssize_t r;

		if (*lines >= max_lines || *bytes >= max_bytes) {
			*cut = true;
			break;
		}
		if (bzs_now_ns() > deadline || bzs_interrupted()) {
			*late = true;
			break;
		}
		if (max_bytes - *bytes < want)
			want = max_bytes - *bytes;
		r = read(fd, buf, want);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			goto fail;	/* EAGAIN too: nothing is waited for */
		}
		if (r == 0) {
			flush_last(pm, carry, clen);
			break;
		}
		if (feed(pm, carry, &clen, buf, (size_t)r, lines, max_lines, &used))
			goto fail;
		*bytes += used;
	}
	if (*cut || *late) {
		char c;

		/* at the very end of the file is no cut */
		if (*cut && *lines < max_lines && read(fd, &c, 1) == 0)
			*cut = false;
	}
	free(carry);
	free(buf);
	finish(pm);
	return pm;
fail:
	free(carry);
	free(buf);
	bzs_perfmap_free(pm);
	return NULL;
}

int bzs_perfmap_refresh(struct bzs_perfmap **pmp, const struct bzs_perfmap_src *src)
{
	struct bzs_open_opts o = { .root = src->root, .check_owner = true, .owner = src->owner };
	struct bzs_perfmap *pm = *pmp, *npm;
	size_t lines, bytes;
	const char *why;
	struct stat st;
	bool cut, late;
	int fd;

	fd = bzs_safe_open(src->path, &o, &st, &why);
	if (fd < 0) {
		if (why && !*src->refused_said && (*src->refused_said = true))
			bzs_notify("perf map of pid %d (%s) not read: %s", (int)src->pid,
				   src->path, why);
		return -1;
	}
	if (pm && pm->dev == st.st_dev && pm->ino == st.st_ino &&
	    (pm->cut || (pm->size == st.st_size && pm->mtime.tv_sec == st.st_mtim.tv_sec &&
			 pm->mtime.tv_nsec == st.st_mtim.tv_nsec))) {
		/* unchanged; or cut at the limits, where an append changes nothing */
		close(fd);
		return 0;
	}
	npm = read_stream(fd, src->max_lines, src->max_bytes, &lines, &bytes, &cut, &late);
	close(fd);
	if (!npm)
		return -1;
	if (cut && !(pm && pm->cut))
		bzs_notify("perf map of pid %d truncated at %zu lines (%zu of %lld bytes): "
			   "BLAZESYM_SHIM_PERF_MAP_MAX_LINES and _MAX_BYTES raise the limits",
			   (int)src->pid, lines, bytes, (long long)st.st_size);
	else if (late && !bzs_interrupted())
		bzs_notify("perf map of pid %d truncated at %zu lines (%zu of %lld bytes): "
			   "reading took more than %llu s", (int)src->pid, lines, bytes,
			   (long long)st.st_size, BZS_READ_NS / 1000000000ull);
	if (late)
		st.st_size = -1;	/* keep what was read, read it again next time */
	npm->cut = cut;
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
	size_t lo;

	if (!pm || !pm->cnt || addr < pm->ents[0].start)
		return false;
	lo = BZS_SORTED_LAST_AT_MOST(pm->ents, pm->cnt, start, addr);
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
	for (size_t i = 0; i < pm->npools; i++)
		free(pm->pools[i]);
	free(pm->pools);
	free(pm);
}
