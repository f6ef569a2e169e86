/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The file cache behind process symbolization (process.c holds the
 * processes): one bzs_file per (dev, inode) as /proc/PID/maps shows
 * them, shared by every process (and every mapping) of that file, with
 * its symbol table loaded in memory, so nothing needs the file again
 * (code_info aside: then the file descriptor of the DWARF is kept open).
 * The vDSO image is keyed by its CRC32 and size.  Files no mapping uses
 * stay cached until their total size exceeds file_mem_budget; the least
 * recently used go first.  A mapping's file is opened through
 * /proc/PID/map_files, else its path inside the process's root, else the
 * plain path, and must have the inode the mapping names; a cached file is
 * used for a mapping while its size and modification time match. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "internal.h"

/* /proc/PID/WHAT, or /proc/PID/task/TID/WHAT through p->via */
void bzs_proc_path(const struct bzs_proc *p, char *buf, size_t n, const char *what)
{
	if (p->via)
		snprintf(buf, n, "/proc/%d/task/%d/%s", (int)p->pid, (int)p->via, what);
	else
		snprintf(buf, n, "/proc/%d/%s", (int)p->pid, what);
}

#define VDSO_MAX (1u << 20)

static size_t file_bucket(uint64_t dev, uint64_t ino)
{
	uint64_t h = (dev * 0x9e3779b97f4a7c15ull) ^ (ino * 0xc2b2ae3d27d4eb4full);

	return (size_t)(h >> 32) % BZS_FILE_BUCKETS;
}

static size_t file_mem(const struct bzs_file *f)
{
	return sizeof(*f) + f->elf.syms.mem + f->elf.nloads * sizeof(struct bzs_load);
}

/* Keep s->file_mem in step with what f holds now. */
static void account(blaze_symbolizer *s, struct bzs_file *f)
{
	s->file_mem -= f->accounted;
	f->accounted = file_mem(f);
	s->file_mem += f->accounted;
}

static void file_free(blaze_symbolizer *s, struct bzs_file *f)
{
	s->file_mem -= f->accounted;
	bzs_dwarf_close(f->dwarf);
	if (f->dwarf_fd >= 0)
		close(f->dwarf_fd);
	bzs_elf_free(&f->elf);
	free(f);
}

static void file_unhash(blaze_symbolizer *s, struct bzs_file *f)
{
	struct bzs_file **pp = &s->files[file_bucket(f->dev, f->ino)];

	for (; *pp; pp = &(*pp)->next) {
		if (*pp == f) {
			*pp = f->next;
			f->in_hash = false;
			s->nfiles--;
			return;
		}
	}
}

static void file_ref(blaze_symbolizer *s, struct bzs_file *f)
{
	f->refs++;
	f->last_use = ++s->tick;
}

void bzs_file_unref(blaze_symbolizer *s, struct bzs_file *f)
{
	if (!f || f->is_vdso)
		return;
	account(s, f); /* demangled names cached since */
	if (--f->refs == 0 && !f->in_hash)
		file_free(s, f);
}

/* Drop unused files, least recently used first, while over budget. */
static void evict_files(blaze_symbolizer *s)
{
	while (s->file_mem > s->file_mem_budget) {
		struct bzs_file *victim = NULL;

		for (size_t b = 0; b < BZS_FILE_BUCKETS; b++)
			for (struct bzs_file *f = s->files[b]; f; f = f->next)
				if (!f->refs && (!victim || f->last_use < victim->last_use))
					victim = f;
		if (!victim)
			return;
		file_unhash(s, victim);
		file_free(s, victim);
	}
}

static struct bzs_file *file_lookup(blaze_symbolizer *s, uint64_t dev, uint64_t ino)
{
	for (struct bzs_file *f = s->files[file_bucket(dev, ino)]; f; f = f->next)
		if (f->dev == dev && f->ino == ino)
			return f;
	return NULL;
}

/* Is the cached file still the one mapped (not a new file on a reused inode)? */
static bool same_identity(const struct bzs_proc *p, const struct bzs_vma *v,
			  const struct bzs_file *f)
{
	char path[96];
	struct stat st;

	if (p->gone || p->via)	/* (no map_files under task/TID) */
		return true;
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)p->pid,
		 v->start, v->end);
	if (stat(path, &st))
		return true; /* cannot tell: trust the cache */
	return st.st_size == f->size && st.st_mtim.tv_sec == f->mtime.tv_sec &&
	       st.st_mtim.tv_nsec == f->mtime.tv_nsec;
}

/* Open the file of a mapping: map_files (deleted files, other mount
 * namespaces), then the path inside the process's root, then the plain
 * path; each opened and checked as safefile.c says. */
static int open_mapped(const struct bzs_proc *p, const struct bzs_vma *v,
		       const struct bzs_proc_opts *o)
{
	struct bzs_open_opts so = { .max_size = BZS_ELF_MAX, .min_size = 52 };
	char path[96], root[64];
	const char *why = NULL;
	struct stat st;
	int fd;

	if (!p->gone && !p->via && !o->no_map_files) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
			 (int)p->pid, v->start, v->end);
		fd = bzs_safe_open(path, &so, &st, &why);
		/* the range may now be another file's (or another process's) */
		if (fd >= 0 && v->ino && st.st_ino != v->ino) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0)
			return fd;
	}
	bzs_proc_path(p, root, sizeof(root), "root");
	for (int k = 0; k < 2; k++) {
		if (k == 0 && p->gone)
			continue;
		so.root = k == 0 ? root : NULL;
		fd = bzs_safe_open(v->path, &so, &st, why ? NULL : &why);
		if (fd < 0)
			continue;
		/* the path may now name another file: require the same inode */
		if (v->ino && st.st_ino != v->ino) {
			close(fd);
			continue;
		}
		return fd;
	}
	if (why)
		bzs_notify("%s (mapped by pid %d) skipped: %s", v->path, (int)p->pid, why);
	return -1;
}

static void try_debug_file(blaze_symbolizer *s, struct bzs_proc *p, struct bzs_vma *v,
			   struct bzs_file *f)
{
	char root[64];
	struct bzs_elf dbg;
	int fd;

	f->debug_tried = true;
	if (f->reason || (f->elf.has_symtab && (f->elf.has_dwarf || !bzs_wants_dwarf(s))))
		return;
	bzs_proc_path(p, root, sizeof(root), "root");
	fd = bzs_debug_find(&f->elf, v->path, p->gone ? NULL : root);
	if (fd < 0) {
		/* cut short: try again in a later call */
		f->debug_tried = !bzs_interrupted();
		return;
	}
	if (bzs_elf_load_fd(fd, &dbg) == 0) {
		if (!f->elf.has_symtab && dbg.has_symtab)
			bzs_elf_merge_syms(&f->elf, &dbg);
		if (dbg.has_dwarf && bzs_wants_dwarf(s) && !f->dwarf && !f->elf.has_dwarf) {
			if (f->dwarf_fd >= 0)
				close(f->dwarf_fd);
			f->dwarf_fd = fd;
			f->dwarf_tried = false;
			fd = -1;
		}
		bzs_elf_free(&dbg);
	}
	if (fd >= 0)
		close(fd);
	account(s, f);
}

static void resolve_vdso(blaze_symbolizer *s, struct bzs_proc *p, struct bzs_vma *v)
{
	size_t len = (size_t)(v->end - v->start);
	struct bzs_file *f;
	unsigned char *buf;
	uint32_t crc;
	bool ok = false;

	if (len > VDSO_MAX) {
		v->reason = BLAZE_SYMBOLIZE_REASON_UNSUPPORTED;
		return;
	}
	buf = malloc(len);
	if (!buf) {
		v->reason = BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR;
		return;
	}
	if (p->pid == getpid() && getauxval(AT_SYSINFO_EHDR) == v->start) {
		memcpy(buf, (const void *)(uintptr_t)v->start, len);
		ok = true;
	} else if (!p->gone) {
		char path[64];
		int fd;

		bzs_proc_path(p, path, sizeof(path), "mem");
		fd = bzs_safe_open(path, &(struct bzs_open_opts){ .proc_file = true }, NULL, NULL);
		if (fd >= 0) {
			ok = pread(fd, buf, len, (off_t)v->start) == (ssize_t)len;
			close(fd);
		}
	}
	if (!ok) {
		free(buf);
		v->reason = BLAZE_SYMBOLIZE_REASON_MISSING_COMPONENT;
		return;
	}
	crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), buf, (uInt)len);
	for (f = s->vdsos; f; f = f->next)
		if (f->vdso_crc == crc && f->vdso_len == len)
			break;
	if (!f && (f = calloc(1, sizeof(*f)))) {
		f->is_vdso = true;
		f->vdso_crc = crc;
		f->vdso_len = len;
		f->dwarf_fd = -1;
		f->reason = bzs_elf_load_mem(buf, len, &f->elf);
		f->next = s->vdsos;
		s->vdsos = f;
		account(s, f);
	}
	free(buf);
	if (!f) {
		v->reason = BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR;
		return;
	}
	v->file = f;
}

void bzs_vma_resolve(blaze_symbolizer *s, struct bzs_proc *p, struct bzs_vma *v,
		     const struct bzs_proc_opts *o)
{
	struct bzs_file *f;
	struct stat st;
	int fd;

	if (v->file) {
		if (o->debug_syms && !v->file->debug_tried && !v->file->is_vdso)
			try_debug_file(s, p, v, v->file);
		return;
	}
	if (v->reason)
		return;
	if (v->kind == BZS_VMA_VDSO) {
		resolve_vdso(s, p, v);
		return;
	}
	if (v->kind != BZS_VMA_FILE || !v->path) {
		v->reason = BLAZE_SYMBOLIZE_REASON_UNSUPPORTED;
		return;
	}
	if (v->ino && (f = file_lookup(s, v->dev, v->ino))) {
		if (same_identity(p, v, f))
			goto attach;
		file_unhash(s, f); /* a new file on a reused inode */
		if (!f->refs)
			file_free(s, f);
	}
	fd = open_mapped(p, v, o);
	if (fd < 0) {
		v->reason = BLAZE_SYMBOLIZE_REASON_MISSING_COMPONENT;
		return;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		close(fd);
		v->reason = BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR;
		return;
	}
	f->dev = v->dev;
	f->ino = v->ino;
	f->dwarf_fd = -1;
	if (!fstat(fd, &st)) {
		f->size = st.st_size;
		f->mtime = st.st_mtim;
	}
	f->reason = bzs_elf_load_fd(fd, &f->elf);
	if (!f->reason && bzs_wants_dwarf(s) && f->elf.has_dwarf)
		f->dwarf_fd = fd;
	else
		close(fd);
	account(s, f);
	if (v->ino) {
		size_t b = file_bucket(f->dev, f->ino);

		f->next = s->files[b];
		s->files[b] = f;
		f->in_hash = true;
		s->nfiles++;
	}
attach:
	file_ref(s, f);
	v->file = f;
	if (o->debug_syms && !f->debug_tried)
		try_debug_file(s, p, v, f);
}

struct bzs_dwarf *bzs_file_dwarf(struct bzs_file *f)
{
	if (!f->dwarf_tried) {
		f->dwarf_tried = true;
		if (f->dwarf_fd >= 0) {
			f->dwarf = bzs_dwarf_open(f->dwarf_fd);
			f->dwarf_fd = -1;
		}
	}
	return f->dwarf;
}

/* The file cache trimmed to its budget */
void bzs_files_trim(blaze_symbolizer *s)
{
	evict_files(s);
}

/* Every cached file freed (no mapping uses one any more) */
void bzs_files_free(blaze_symbolizer *s)
{
	size_t budget = s->file_mem_budget;

	s->file_mem_budget = 0;
	evict_files(s);
	s->file_mem_budget = budget;
	while (s->vdsos) {
		struct bzs_file *f = s->vdsos;

		s->vdsos = f->next;
		file_free(s, f);
	}
}
