/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Separate debug files and source lines.
 *
 * Debug roots: $BLAZESYM_SHIM_DEBUG_DIRS (colon-separated directories) when
 * set, else /usr/lib/debug.  For a file mapped at PATH in a process whose
 * root is ROOT (/proc/PID/root), candidates are tried under ROOT first,
 * then in our own mount namespace:
 *   DEBUGROOT/.build-id/xx/yyyy.debug       (build-id must match)
 *   dirname(PATH)/LINK, dirname(PATH)/.debug/LINK, DEBUGROOT/dirname(PATH)/LINK
 * where LINK is the .gnu_debuglink name (its CRC32 must match).
 * Under ROOT, paths are resolved inside it (a symlink cannot lead out);
 * every candidate is opened and checked as safefile.c says: a FIFO or a
 * device named by a hostile debuglink is refused, never waited on. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static const char *debug_dirs(void)
{
	const char *d = getenv("BLAZESYM_SHIM_DEBUG_DIRS");

	return d && *d ? d : "/usr/lib/debug";
}

/* A candidate debug file: opened safely (see safefile.c), inside root
 * when one is given.  A file that is there but refused is said once. */
static int open_candidate(const char *root, const char *path, struct stat *st)
{
	const struct bzs_open_opts o = { .root = root, .max_size = BZS_ELF_MAX, .min_size = 52 };
	static __thread dev_t last_dev;
	static __thread ino_t last_ino;
	const char *why;
	int fd = bzs_safe_open(path, &o, st, &why);

	/* seen from the process's root, then from ours: said once */
	if (fd < 0 && why && !(st->st_dev == last_dev && st->st_ino == last_ino)) {
		last_dev = st->st_dev;
		last_ino = st->st_ino;
		bzs_notify("debug file %s%s%s skipped: %s", path, root ? " in the root " : "",
			   root ? root : "", why);
	}
	return fd;
}

static int open_buildid(const struct bzs_elf *e, const char *root, const char *dir,
			size_t dlen)
{
	char path[PATH_MAX], hex[2 * sizeof(e->build_id) + 1];
	uint8_t id[sizeof(e->build_id)];
	struct stat st;
	int fd, n;

	for (size_t i = 0; i < e->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", e->build_id[i]);
	n = snprintf(path, sizeof(path), "%.*s/.build-id/%.2s/%s.debug", (int)dlen, dir, hex,
		     hex + 2);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -1;
	fd = open_candidate(root, path, &st);
	if (fd < 0)
		return -1;
	if (bzs_elf_read_build_id(fd, id, sizeof(id)) != e->build_id_len ||
	    memcmp(id, e->build_id, e->build_id_len)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int open_debuglink(const struct bzs_elf *e, uint64_t deadline, const char *fmt,
			  const char *root, const char *a, size_t alen, const char *b, size_t blen)
{
	char path[PATH_MAX];
	struct stat st;
	uint32_t crc;
	int fd, n;

	n = snprintf(path, sizeof(path), fmt, (int)alen, a, (int)blen, b, e->debuglink);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -1;
	fd = open_candidate(root, path, &st);
	if (fd < 0)
		return -1;
	if (!bzs_crc32_fd(fd, (uint64_t)st.st_size, deadline, &crc) || crc != e->debuglink_crc) {
		close(fd);
		return -1;
	}
	return fd;
}

int bzs_debug_find(const struct bzs_elf *e, const char *path, const char *root)
{
	const char *roots[2] = { root, NULL };
	const char *dirs = debug_dirs(), *slash;
	/* every candidate may be a huge file to checksum: one budget for all */
	uint64_t deadline = bzs_now_ns() + BZS_CRC_NS;
	size_t fdirlen = 0;
	int fd;

	if (path && (slash = strrchr(path, '/')))
		fdirlen = (size_t)(slash - path);
	for (int k = 0; k < 2; k++) {
		const char *r = roots[k];

		if (k == 1 && !root)
			break; /* same as the first round */
		for (const char *d = dirs; e->build_id_len && *d;) {
			size_t dlen = strcspn(d, ":");

			if (bzs_interrupted())
				return -1;
			if (dlen && (fd = open_buildid(e, r, d, dlen)) >= 0)
				return fd;
			d += dlen + (d[dlen] == ':');
		}
		if (!e->debuglink || strchr(e->debuglink, '/') || !path)
			continue;
		fd = open_debuglink(e, deadline, "%.*s%.*s/%s", r, path, fdirlen, "", 0);
		if (fd >= 0)
			return fd;
		fd = open_debuglink(e, deadline, "%.*s%.*s/.debug/%s", r, path, fdirlen, "", 0);
		if (fd >= 0)
			return fd;
		for (const char *d = dirs; *d;) {
			size_t dlen = strcspn(d, ":");

			if (bzs_interrupted())
				return -1;
			if (dlen && (fd = open_debuglink(e, deadline, "%.*s%.*s/%s", r, d, dlen,
							 path, fdirlen)) >= 0)
				return fd;
			d += dlen + (d[dlen] == ':');
		}
	}
	return -1;
}

int blaze_open_elf_file(const char *path)
{
	const struct bzs_open_opts o = { .max_size = BZS_ELF_MAX, .min_size = 52 };

	return path ? bzs_safe_open(path, &o, NULL, NULL) : -1;
}

int blaze_open_debug_file(const char *path, const unsigned char *build_id, size_t build_id_len,
			  const char *debuglink, uint32_t debuglink_crc)
{
	struct bzs_elf e;
	int fd;

	memset(&e, 0, sizeof(e));
	if (build_id && build_id_len <= sizeof(e.build_id)) {
		memcpy(e.build_id, build_id, build_id_len);
		e.build_id_len = build_id_len;
	}
	e.debuglink = (char *)(uintptr_t)debuglink;
	e.debuglink_crc = debuglink_crc;
	fd = bzs_debug_find(&e, path, NULL);
	return fd;
}

struct cu_index;

struct bzs_dwarf {
	Dwarf *dw;
	int fd;
	/* the inline indexes of the compile units looked up so far, sorted
	 * by unit offset (see "inlined functions" below) */
	struct cu_index **cus;
	size_t ncus, cus_cap;
};

static void cu_index_free(struct cu_index *x);

struct bzs_dwarf *bzs_dwarf_open(int fd)
{
	struct bzs_dwarf *d = calloc(1, sizeof(*d));

	if (!d) {
		close(fd);
		return NULL;
	}
	d->fd = fd;
	d->dw = dwarf_begin(fd, DWARF_C_READ);
	if (!d->dw) {
		close(fd);
		free(d);
		return NULL;
	}
	return d;
}

static bool find_cu(Dwarf *dw, uint64_t addr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(dw, addr, cu))
		return true;
	/* no usable .debug_aranges: walk the compile units */
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, addr) > 0)
			return true;
		off = next;
	}
	return false;
}

bool bzs_dwarf_lookup(struct bzs_dwarf *d, uint64_t vaddr, const char **path,
		      uint32_t *line, uint16_t *col)
{
	Dwarf_Die cu;
	Dwarf_Line *l;
	const char *src;
	int ln = 0, c = 0;

	if (!d || !find_cu(d->dw, vaddr, &cu))
		return false;
	l = dwarf_getsrc_die(&cu, vaddr);
	if (!l)
		return false;
	src = dwarf_linesrc(l, NULL, NULL);
	if (!src || dwarf_lineno(l, &ln))
		return false;
	dwarf_linecol(l, &c);
	*path = src;
	*line = ln > 0 ? (uint32_t)ln : 0;
	*col = c > 0 && c < 65536 ? (uint16_t)c : 0;
	return true;
}

void bzs_dwarf_close(struct bzs_dwarf *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->ncus; i++)
		cu_index_free(d->cus[i]);
	free(d->cus);
	dwarf_end(d->dw);
	close(d->fd);
	free(d);
}

/* ---- inlined functions ---- */

/* The file index attr of die (DW_AT_call_file) as a path of cu's file
 * table, or NULL */
static const char *call_file(Dwarf_Die *cu, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Files *files;
	Dwarf_Word idx;
	size_t nfiles;

	if (!dwarf_attr(die, DW_AT_call_file, &a) || dwarf_formudata(&a, &idx) ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) || idx >= nfiles)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

static uint32_t die_udata(Dwarf_Die *die, unsigned name, uint32_t max)
{
	Dwarf_Attribute a;
	Dwarf_Word v;

	if (!dwarf_attr(die, name, &a) || dwarf_formudata(&a, &v) || v > max)
		return 0;
	return (uint32_t)v;
}

/* The name of an inlined subroutine: its linkage name (the whole path of
 * a Rust or C++ function), demangled, else its DW_AT_name, both found
 * through its abstract origin.  malloc'ed; "[inlined]" without either. */
static char *inl_name(Dwarf_Die *die, bool demangle, unsigned flags)
{
	Dwarf_Attribute a;
	const char *n = NULL;
	char *d;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (n && demangle && (d = bzs_demangle_opts(n, flags)))
		return d;
	if (!n)
		n = dwarf_diename(die);
	return strdup(n && *n ? n : "[inlined]");
}

/* The inline index of one compile unit, built once, at its first look-up:
 * every code scope of the unit (subprograms with code, inlined
 * subroutines) by the address ranges it covers, each with its enclosing
 * scope.  A look-up is then a binary search and a walk up the parents,
 * instead of a walk of the unit's DIE tree (milliseconds in a unit of
 * Rust's std) for each address. */
struct scope {
	Dwarf_Off off;		/* its DIE */
	int32_t parent;		/* the enclosing scope, -1: none */
	bool inlined;		/* DW_TAG_inlined_subroutine, else a subprogram */
};

struct range {
	uint64_t lo, hi;	/* [lo, hi) */
	uint64_t max_hi;	/* the largest hi of this range and those before */
	uint32_t scope;
	uint32_t depth;		/* nesting: an inner scope sorts after an outer one */
};

struct cu_index {
	Dwarf_Off cu_off;
	struct scope *scopes;
	size_t nscopes, scopes_cap;
	struct range *ranges;
	size_t nranges, ranges_cap;
	bool failed;		/* out of memory while built: no inline information */
};

static void cu_index_free(struct cu_index *x)
{
	if (!x)
		return;
	free(x->scopes);
	free(x->ranges);
	free(x);
}

/* The scope die, inside scope parent at depth, and its ranges: its index,
 * or -1 when it covers no code */
static int32_t index_scope(struct cu_index *x, Dwarf_Die *die, int32_t parent, uint32_t depth,
			   bool inlined)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int32_t id = (int32_t)x->nscopes;
	bool any = false;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (BZS_ARRAY_RESERVE(x->ranges, x->ranges_cap, x->nranges, 256)) {
			x->failed = true;
			return -1;
		}
		x->ranges[x->nranges++] = (struct range){ .lo = lo, .hi = hi, .scope = (uint32_t)id,
							  .depth = depth };
		any = true;
	}
	if (!any)
		return -1;
	if (BZS_ARRAY_RESERVE(x->scopes, x->scopes_cap, x->nscopes, 64)) {
		x->failed = true;
		return -1;
	}
	x->scopes[x->nscopes++] = (struct scope){ .off = dwarf_dieoffset(die), .parent = parent,
						  .inlined = inlined };
	return id;
}

/* The code scopes under die (parent: the scope that holds it), depth
 * bounding the recursion */
static void index_walk(struct cu_index *x, Dwarf_Die *die, int32_t parent, uint32_t depth)
{
	Dwarf_Die child;

	if (depth > 256 || x->failed || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		int32_t id;

		switch (tag) {
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_lexical_block:
			/* (code is not inside types: C++ and Rust put the
			 * concrete functions at namespace level) */
			index_walk(x, &child, parent, depth + 1);
			break;
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
			id = index_scope(x, &child, parent, depth, tag == DW_TAG_inlined_subroutine);
			/* an abstract instance (no code) holds no code either */
			if (id >= 0)
				index_walk(x, &child, id, depth + 1);
			break;
		default:
			break;
		}
	} while (!x->failed && dwarf_siblingof(&child, &child) == 0);
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return 0;
}

static struct cu_index *cu_index_build(Dwarf_Die *cu)
{
	struct cu_index *x = calloc(1, sizeof(*x));
	uint64_t max_hi = 0;

	if (!x)
		return NULL;
	x->cu_off = dwarf_dieoffset(cu);
	index_walk(x, cu, -1, 0);
	if (x->failed) {
		cu_index_free(x);
		return NULL;
	}
	if (x->nranges)
		qsort(x->ranges, x->nranges, sizeof(*x->ranges), range_cmp);
	for (size_t i = 0; i < x->nranges; i++) {
		if (x->ranges[i].hi > max_hi)
			max_hi = x->ranges[i].hi;
		x->ranges[i].max_hi = max_hi;
	}
	return x;
}

/* The index of unit cu, built at the first look-up in it; NULL when out
 * of memory */
static struct cu_index *cu_index_get(struct bzs_dwarf *d, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	size_t lo = 0, hi = d->ncus;
	struct cu_index *x;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->cus[mid]->cu_off == off)
			return d->cus[mid];
		if (d->cus[mid]->cu_off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	x = cu_index_build(cu);
	if (!x)
		return NULL;
	if (BZS_ARRAY_RESERVE(d->cus, d->cus_cap, d->ncus, 16)) {
		cu_index_free(x);
		return NULL;
	}
	memmove(&d->cus[lo + 1], &d->cus[lo], (d->ncus - lo) * sizeof(*d->cus));
	d->cus[lo] = x;
	d->ncus++;
	return x;
}

/* The innermost scope of x that holds pc, or -1: the last range (by start,
 * inner after outer) that starts at or before pc and holds it; nested
 * ranges make it the innermost.  max_hi ends the search where no earlier
 * range reaches pc. */
static int32_t innermost(const struct cu_index *x, uint64_t pc)
{
	size_t i;

	if (!x->nranges || x->ranges[0].lo > pc)
		return -1;
	i = BZS_SORTED_LAST_AT_MOST(x->ranges, x->nranges, lo, pc);
	/* ties on lo: the deepest is the last of them */
	for (;; i--) {
		if (x->ranges[i].max_hi <= pc)
			return -1;
		if (x->ranges[i].hi > pc)
			return (int32_t)x->ranges[i].scope;
		if (!i)
			return -1;
	}
}

/* The DW_TAG_inlined_subroutine DIEs that hold pc, outermost first, into
 * found (at most max): from the innermost scope up to the function that
 * holds them.  Their count. */
static int inl_find(struct bzs_dwarf *d, Dwarf_Die *cu, uint64_t pc, Dwarf_Die *found, int max)
{
	Dwarf_Off chain[BZS_INLINE_MAX];
	struct cu_index *x = cu_index_get(d, cu);
	int32_t sc = x ? innermost(x, pc) : -1;
	int n = 0, k = 0;

	for (; sc >= 0 && x->scopes[sc].inlined; sc = x->scopes[sc].parent) {
		/* the innermost ones are dropped past max: keep the outermost */
		if (n == BZS_INLINE_MAX)
			memmove(chain, chain + 1, (BZS_INLINE_MAX - 1) * sizeof(*chain));
		chain[n < BZS_INLINE_MAX ? n++ : BZS_INLINE_MAX - 1] = x->scopes[sc].off;
	}
	/* chain is innermost first */
	for (int i = n - 1; i >= 0 && k < max; i--)
		if (dwarf_offdie(d->dw, chain[i], &found[k]))
			k++;
	return k;
}

bool bzs_dwarf_inlined(struct bzs_dwarf *d, uint64_t vaddr, bool demangle, unsigned dmgl_flags,
		       struct bzs_inl **out,
		       size_t *n, struct bzs_inl *outer)
{
	Dwarf_Die cu, *scopes = NULL, *chain[BZS_INLINE_MAX], found[BZS_INLINE_MAX];
	struct bzs_inl *inl;
	int ns, k = 0;

	*out = NULL;
	*n = 0;
	memset(outer, 0, sizeof(*outer));
	if (!d || !find_cu(d->dw, vaddr, &cu))
		return false;
	/* outermost first: the inlined subroutines around vaddr, from the
	 * unit's inline index (built at its first look-up) */
	ns = inl_find(d, &cu, vaddr, found, BZS_INLINE_MAX);
	for (int i = 0; i < ns && k < BZS_INLINE_MAX; i++)
		chain[k++] = &found[ns - 1 - i];
	if (!k) {
		free(scopes);
		return true;
	}
	inl = calloc((size_t)k, sizeof(*inl));
	if (!inl) {
		free(scopes);
		return false;
	}
	/* inl[j] is chain[k - 1 - j]: outermost first.  Each is where its
	 * caller called it: the caller's location.  The innermost one's own
	 * location is the address's line (the caller's, bzs_dwarf_lookup) */
	for (int j = 0; j < k; j++) {
		Dwarf_Die *die = chain[k - 1 - j];
		struct bzs_inl *at = j ? &inl[j - 1] : outer;

		inl[j].name = inl_name(die, demangle, dmgl_flags);
		at->src = call_file(&cu, die);
		at->line = die_udata(die, DW_AT_call_line, UINT32_MAX);
		at->col = (uint16_t)die_udata(die, DW_AT_call_column, UINT16_MAX);
		if (!inl[j].name) {
			bzs_inl_free(inl, (size_t)k);
			free(scopes);
			return false;
		}
	}
	bzs_dwarf_lookup(d, vaddr, &inl[k - 1].src, &inl[k - 1].line, &inl[k - 1].col);
	free(scopes);
	*out = inl;
	*n = (size_t)k;
	return true;
}
