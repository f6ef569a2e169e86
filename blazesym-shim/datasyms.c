/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Data addresses of a live process: the global or static variable (ELF
 * STT_OBJECT symbol) that covers each address, or else the mapping it is
 * in ([heap], [stack], a file).  See blaze_symbolize_process_data_addrs()
 * in blazesym.h.
 *
 * Separate from the code path on purpose: code symbolization keeps
 * executable mappings and function symbols only.  Here every mapping
 * counts, and .bss (past the end of the file, so in the anonymous mapping
 * that follows the file's last one) is found through the ELF program
 * headers (p_memsz).  Nothing is cached between calls: callers that ask
 * often keep their own cache of names. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* One ELF file mapped by the process, loaded once per call */
struct dfile {
	uint64_t dev, ino;
	int reason;		/* 0: loaded */
	struct bzs_load *loads;
	size_t nloads;
	struct bzs_symtab syms;
};

static int load_data_syms(Elf *elf, struct dfile *f)
{
	struct bzs_symtab_builder b = { 0 };
	Elf_Scn *scn = NULL, *best = NULL;
	GElf_Shdr best_sh;

	if (elf_kind(elf) != ELF_K_ELF || bzs_elf_read_loads(elf, &f->loads, &f->nloads))
		return BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR;
	/* .symtab has the statics; .dynsym only the exported ones */
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_size > BZS_SECTION_MAX)
			continue;	/* a hostile size: libelf would read it whole */
		if (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !best)) {
			best = scn;
			best_sh = sh;
		}
	}
	if (best) {
		Elf_Data *data = elf_getdata(best, NULL), *sdata;
		Elf_Scn *sscn = elf_getscn(elf, best_sh.sh_link);
		size_t entsz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
		char *pool = NULL;

		GElf_Shdr ssh;

		sdata = sscn && gelf_getshdr(sscn, &ssh) && ssh.sh_size <= BZS_SECTION_MAX ?
			elf_getdata(sscn, NULL) : NULL;
		if (data && data->d_buf && sdata && sdata->d_buf && sdata->d_size && entsz) {
			pool = malloc(sdata->d_size + 1);
			if (pool) {
				memcpy(pool, sdata->d_buf, sdata->d_size);
				pool[sdata->d_size] = 0;
				if (bzs_builder_own(&b, pool, sdata->d_size + 1)) {
					free(pool);
					pool = NULL;
				}
			}
		}
		for (size_t i = 1; pool && i < data->d_size / entsz; i++) {
			GElf_Sym s;
			unsigned bind;

			if (!gelf_getsym(data, (int)i, &s))
				break;
			if (GELF_ST_TYPE(s.st_info) != STT_OBJECT || s.st_shndx == SHN_UNDEF ||
			    s.st_shndx >= SHN_LORESERVE || !s.st_name ||
			    s.st_name >= sdata->d_size || !pool[s.st_name])
				continue;
			bind = GELF_ST_BIND(s.st_info);
			/* sized over unsized, global over weak over local */
			if (bzs_builder_add(&b, s.st_value, s.st_size, 0, pool + s.st_name,
					    (s.st_size > 0) << 4 | (bind == STB_GLOBAL ? 2 :
								    bind == STB_WEAK)))
				break;
		}
	}
	if (bzs_symtab_finish(&b, &f->syms))
		return BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR;
	return f->syms.cnt ? 0 : BLAZE_SYMBOLIZE_REASON_MISSING_SYMS;
}

static int open_file(pid_t pid, const struct bzs_maps_entry *e, bool map_files)
{
	struct bzs_open_opts o = { .max_size = BZS_ELF_MAX, .min_size = 52 };
	char path[96], root[64];
	int fd;

	if (map_files) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
			 (int)pid, e->start, e->end);
		fd = bzs_safe_open(path, &o, NULL, NULL);
		if (fd >= 0)
			return fd;
	}
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	o.root = root;
	return bzs_safe_open(e->path, &o, NULL, NULL);
}

static struct dfile *dfile_get(struct dfile **files, size_t *n, pid_t pid,
			       const struct bzs_maps_entry *e, bool map_files)
{
	struct dfile *f, *nf;
	Elf *elf;
	int fd;

	for (size_t i = 0; i < *n; i++)
		if ((*files)[i].dev == e->dev && (*files)[i].ino == e->ino)
			return &(*files)[i];
	nf = realloc(*files, (*n + 1) * sizeof(*nf));
	if (!nf)
		return NULL;
	*files = nf;
	f = &nf[(*n)++];
	memset(f, 0, sizeof(*f));
	f->dev = e->dev;
	f->ino = e->ino;
	fd = open_file(pid, e, map_files);
	if (fd < 0) {
		f->reason = BLAZE_SYMBOLIZE_REASON_MISSING_COMPONENT;
		return f;
	}
	bzs_elf_init();
	elf = elf_begin(fd, ELF_C_READ, NULL);
	f->reason = elf ? load_data_syms(elf, f) : BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR;
	if (elf)
		elf_end(elf);
	close(fd);
	return f;
}

/* Load bias of a file from one of its mappings: the PT_LOAD that holds the
 * mapping's file offset */
static bool file_bias(const struct dfile *f, const struct bzs_maps_entry *e, uint64_t *bias)
{
	for (size_t i = 0; i < f->nloads; i++) {
		const struct bzs_load *l = &f->loads[i];
		uint64_t lo = l->off & ~(uint64_t)0xfff;

		if (e->off >= lo && e->off < l->off + (l->filesz ? l->filesz : 1)) {
			*bias = e->start - e->off + l->off - l->vaddr;
			return true;
		}
	}
	return false;
}

static void sym_one(blaze_symbolizer *s, pid_t pid, bool map_files,
		    const struct bzs_maps_entry *m, size_t nm, struct dfile **files,
		    size_t *nfiles, uint64_t addr, struct bzs_res *r)
{
	const struct bzs_maps_entry *e = NULL, *fe;
	size_t lo = 0, hi = nm;
	struct dfile *f;
	uint64_t bias, vaddr;
	ssize_t i;
	bool in_load = false;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < m[mid].start) {
			hi = mid;
		} else if (addr >= m[mid].end) {
			lo = mid + 1;
		} else {
			e = &m[mid];
			break;
		}
	}
	r->reason = BLAZE_SYMBOLIZE_REASON_UNMAPPED;
	if (!e)
		return;
	fe = e;
	/* .bss past the file: the anonymous mapping right after the file's */
	if (e->kind == BZS_VMA_ANON && !e->path && e > m && e[-1].end == e->start &&
	    e[-1].kind == BZS_VMA_FILE)
		fe = e - 1;
	r->module = fe->path;
	if (fe->kind != BZS_VMA_FILE) {
		r->reason = BLAZE_SYMBOLIZE_REASON_UNSUPPORTED;
		return;
	}
	f = dfile_get(files, nfiles, pid, fe, map_files);
	if (!f) {
		r->reason = BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR;
		return;
	}
	if (f->reason) {
		r->reason = f->reason;
		return;
	}
	if (!file_bias(f, fe, &bias)) {
		r->reason = BLAZE_SYMBOLIZE_REASON_INVALID_FILE_OFFSET;
		return;
	}
	vaddr = addr - bias;
	for (size_t k = 0; k < f->nloads; k++)
		if (vaddr >= f->loads[k].vaddr && vaddr - f->loads[k].vaddr < f->loads[k].memsz)
			in_load = true;
	i = in_load ? bzs_symtab_lookup(&f->syms, vaddr) : -1;
	if (i < 0) {
		r->reason = BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR;
		if (fe != e)
			r->module = NULL;	/* anonymous memory, not the file's */
		return;
	}
	r->name = bzs_symtab_name_opts(&f->syms, (size_t)i, s->opts.demangle,
				       bzs_dmgl_flags(s));
	r->offset = (size_t)(vaddr - f->syms.syms[i].addr);
	r->addr = addr - r->offset;
	r->reason = BLAZE_SYMBOLIZE_REASON_SUCCESS;
}

const blaze_syms *blaze_symbolize_process_data_addrs(blaze_symbolizer *s,
						     const blaze_symbolize_src_process *src,
						     const uint64_t *addrs, size_t n)
{
	struct bzs_maps_entry *m = NULL;
	struct dfile *files = NULL;
	size_t nm = 0, nfiles = 0, len, bad;
	struct bzs_res *t;
	blaze_syms *r;
	char path[64], *buf;
	pid_t pid;

	t = bzs_call_results(s && src && (!n || addrs) &&
			     (!src->type_size || src->type_size >= sizeof(size_t)), n, sizeof(*t));
	if (!t)
		return NULL;
	pid = src->pid ? (pid_t)src->pid : getpid();
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	buf = bzs_read_proc(path, BZS_PROC_MAX, &len);
	if (buf) {
		m = bzs_maps_parse(buf, len, false, &nm, &bad);
		free(buf);
	}
	for (size_t i = 0; i < n; i++) {
		if (!nm)
			t[i].reason = BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR;	/* process gone */
		else
			sym_one(s, pid, !src->no_map_files, m, nm, &files, &nfiles, addrs[i], &t[i]);
	}
	r = bzs_build_syms(t, n);
	for (size_t i = 0; i < nfiles; i++) {
		bzs_symtab_free(&files[i].syms);
		free(files[i].loads);
	}
	free(files);
	bzs_maps_free(m, nm);
	return bzs_call_done(r, t);
}
