/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* ELF files through libelf: function symbols (.symtab, else .dynsym),
 * PT_LOAD segments (file offset -> virtual address), build-id, debuglink. */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif
#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;

static void elf_init_once(void)
{
	elf_version(EV_CURRENT);
}

void bzs_elf_init(void)
{
	pthread_once(&elf_once, elf_init_once);
}

struct sec_info {
	uint64_t addr, size, flags;
	uint32_t type;
};

/* Preference among aliases at one address: typed over NOTYPE, sized over
 * zero-size, fewer leading underscores, global over weak over local,
 * then shorter names. */
static uint32_t sym_score(const GElf_Sym *s, const char *name)
{
	unsigned type = GELF_ST_TYPE(s->st_info), bind = GELF_ST_BIND(s->st_info);
	unsigned us = 0, b = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0;
	size_t len = strlen(name);

	while (name[us] == '_' && us < 3)
		us++;
	if (len > 0x3fff)
		len = 0x3fff;
	return (uint32_t)(type != STT_NOTYPE) << 20 | (uint32_t)(s->st_size > 0) << 19 |
	       (uint32_t)(3 - us) << 16 | (uint32_t)b << 14 | (uint32_t)(0x3fff - len);
}

static int add_syms(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const struct sec_info *secs,
		    size_t nsecs, struct bzs_symtab_builder *b, size_t *added)
{
	Elf_Data *data, *sdata;
	Elf_Scn *sscn;
	GElf_Shdr ssh;
	size_t entsz, n;
	char *pool;

	/* a hostile file may claim tables of any size: libelf reads them whole */
	if (sh->sh_size > BZS_SECTION_MAX)
		return 0;
	sscn = elf_getscn(elf, sh->sh_link);
	if (!sscn || !gelf_getshdr(sscn, &ssh) || ssh.sh_type != SHT_STRTAB ||
	    ssh.sh_size > BZS_SECTION_MAX)
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || !data->d_size)
		return 0;
	sdata = elf_getdata(sscn, NULL);
	if (!sdata || !sdata->d_buf || !sdata->d_size)
		return 0;
	pool = malloc(sdata->d_size + 1);
	if (!pool)
		return -ENOMEM;
	memcpy(pool, sdata->d_buf, sdata->d_size);
	pool[sdata->d_size] = '\0';
	if (bzs_builder_own(b, pool, sdata->d_size + 1)) {
		free(pool);
		return -ENOMEM;
	}
	entsz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!entsz)
		return 0;
	n = data->d_size / entsz;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		unsigned type;
		const struct sec_info *sec;
		const char *name;

		if (!gelf_getsym(data, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
			continue;
		if (s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE || s.st_shndx >= nsecs)
			continue;
		if (s.st_name == 0 || s.st_name >= sdata->d_size)
			continue;
		name = pool + s.st_name;
		if (!name[0])
			continue;
		/* glibc's debug .symtab names compat symbols "fn@GLIBC_2.2.5"
		 * and defaults "fn@@GLIBC_2.34": the version is not part of the
		 * function's name (the pool is our copy: cut it there) */
		{
			char *at = strchr(pool + s.st_name, '@');

			if (at && at != pool + s.st_name)
				*at = '\0';
		}
		sec = &secs[s.st_shndx];
		if (type == STT_NOTYPE) {
			/* only code labels, not local assembler labels */
			if (!(sec->flags & SHF_EXECINSTR) || name[0] == '$' ||
			    (name[0] == '.' && name[1] == 'L'))
				continue;
		}
		if (bzs_builder_add(b, s.st_value, s.st_size,
				    sec->size ? sec->addr + sec->size : 0, name, sym_score(&s, name)))
			return -ENOMEM;
		(*added)++;
	}
	return 0;
}

static void parse_build_id(Elf_Data *data, struct bzs_elf *out)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (off < data->d_size &&
	       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((char *)data->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz > 0 && nh.n_descsz <= sizeof(out->build_id)) {
			memcpy(out->build_id, (char *)data->d_buf + desc_off, nh.n_descsz);
			out->build_id_len = nh.n_descsz;
			return;
		}
	}
}

static void parse_debuglink(Elf_Data *data, struct bzs_elf *out)
{
	const char *p = data->d_buf;
	size_t len, crc_off;

	if (!p || !data->d_size)
		return;
	len = strnlen(p, data->d_size);
	if (len == 0 || len == data->d_size)
		return;
	crc_off = (len + 1 + 3) & ~(size_t)3;
	if (crc_off + 4 > data->d_size)
		return;
	out->debuglink = strndup(p, len);
	memcpy(&out->debuglink_crc, p + crc_off, 4);
}

/* The number of program headers of elf; 0 when there are none, or too
 * many to be real */
static size_t phdr_count(Elf *elf)
{
	size_t nph = 0;

	if (elf_getphdrnum(elf, &nph) == 0 && nph > 0 && nph < 65536)
		return nph;
	return 0;
}

int bzs_elf_read_loads(Elf *elf, struct bzs_load **loads, size_t *n)
{
	size_t nph = phdr_count(elf);

	*loads = NULL;
	*n = 0;
	if (!nph)
		return 0;
	*loads = calloc(nph, sizeof(**loads));
	if (!*loads)
		return -ENOMEM;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			break;
		if (ph.p_type == PT_LOAD)
			(*loads)[(*n)++] = (struct bzs_load){ ph.p_offset, ph.p_filesz,
							      ph.p_vaddr, ph.p_memsz };
	}
	return 0;
}

static int load_elf(Elf *elf, struct bzs_elf *out)
{
	struct bzs_symtab_builder b = { 0 };
	struct sec_info *secs = NULL;
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr symtab_sh, dynsym_sh;
	size_t nph = 0, nsecs = 0, shstrndx = 0, added = 0;
	GElf_Ehdr eh;
	int reason = BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR;

	memset(out, 0, sizeof(*out));
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return reason;
	if (bzs_elf_read_loads(elf, &out->loads, &out->nloads))
		return BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR;
	/* no sections: the build-id is found through the PT_NOTE headers */
	nph = phdr_count(elf);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			break;
		if (ph.p_type == PT_NOTE && !elf_getshdrnum(elf, &nsecs) && nsecs == 0 &&
		    !out->build_id_len && ph.p_filesz <= BZS_NOTE_MAX) {
			Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset,
							   ph.p_filesz, ELF_T_NHDR);
			if (d)
				parse_build_id(d, out);
		}
	}
	if (elf_getshdrnum(elf, &nsecs) || elf_getshdrstrndx(elf, &shstrndx))
		nsecs = 0;
	if (nsecs > (1u << 20))
		nsecs = 0;
	if (nsecs) {
		secs = calloc(nsecs, sizeof(*secs));
		if (!secs)
			goto out;
	}
	while (nsecs && (scn = elf_nextscn(elf, scn))) {
		size_t idx = elf_ndxscn(scn);
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || idx >= nsecs)
			continue;
		secs[idx] = (struct sec_info){ sh.sh_addr, sh.sh_size, sh.sh_flags, sh.sh_type };
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			symtab_sh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dynsym_sh = sh;
		}
		if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_type == SHT_NOBITS)
			out->is_debug_only = true;
		if (sh.sh_type == SHT_NOBITS)
			continue;
		if (sh.sh_type == SHT_NOTE && !out->build_id_len && sh.sh_size <= BZS_NOTE_MAX) {
			Elf_Data *d = elf_getdata(scn, NULL);

			if (d && d->d_buf)
				parse_build_id(d, out);
		}
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".gnu_debuglink") && !out->debuglink &&
		    sh.sh_size <= BZS_NOTE_MAX) {
			Elf_Data *d = elf_getdata(scn, NULL);

			if (d)
				parse_debuglink(d, out);
		} else if (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")) {
			out->has_dwarf = true;
		}
	}
	if (symtab) {
		if (add_syms(elf, symtab, &symtab_sh, secs, nsecs, &b, &added))
			goto out;
		out->has_symtab = added > 0;
	}
	if (dynsym && !out->has_symtab) {
		if (add_syms(elf, dynsym, &dynsym_sh, secs, nsecs, &b, &added))
			goto out;
	}
	if (bzs_symtab_finish(&b, &out->syms))
		goto out;
	reason = 0;
out:
	bzs_builder_free(&b);
	free(secs);
	if (reason)
		bzs_elf_free(out);
	return reason;
}

/* Parse the ELF file libelf opened as elf (NULL: it could not), and close it */
static int load_elf_and_end(Elf *elf, struct bzs_elf *out)
{
	int r;

	if (!elf) {
		memset(out, 0, sizeof(*out));
		return BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR;
	}
	r = load_elf(elf, out);
	elf_end(elf);
	return r;
}

int bzs_elf_load_fd(int fd, struct bzs_elf *out)
{
	bzs_elf_init();
	return load_elf_and_end(elf_begin(fd, ELF_C_READ, NULL), out);
}

int bzs_elf_load_mem(const void *buf, size_t len, struct bzs_elf *out)
{
	bzs_elf_init();
	/* libelf takes a non-const pointer but only reads a native-order image */
	return load_elf_and_end(elf_memory((char *)(uintptr_t)buf, len), out);
}

size_t bzs_elf_read_build_id(int fd, uint8_t *id, size_t cap)
{
	struct bzs_elf tmp;
	Elf_Scn *scn = NULL;
	Elf *elf;
	size_t len = 0;

	bzs_elf_init();
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return 0;
	memset(&tmp, 0, sizeof(tmp));
	while (elf_kind(elf) == ELF_K_ELF && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || sh.sh_size > BZS_NOTE_MAX)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf)
			parse_build_id(d, &tmp);
		if (tmp.build_id_len)
			break;
	}
	elf_end(elf);
	if (tmp.build_id_len && tmp.build_id_len <= cap) {
		memcpy(id, tmp.build_id, tmp.build_id_len);
		len = tmp.build_id_len;
	}
	return len;
}

int bzs_elf_merge_syms(struct bzs_elf *e, struct bzs_elf *dbg)
{
	struct bzs_symtab_builder b = { 0 };
	struct bzs_symtab *tabs[2] = { &dbg->syms, &e->syms };
	struct bzs_symtab merged;

	for (int k = 0; k < 2; k++) {
		struct bzs_symtab *t = tabs[k];

		for (size_t i = 0; i < t->cnt; i++)
			if (bzs_builder_add(&b, t->syms[i].addr, t->syms[i].end - t->syms[i].addr,
					    0, t->syms[i].name, k == 0 ? 2 : 1))
				goto fail;
	}
	/* reserve room so that moving the string pools cannot fail half-way */
	b.pcap = e->syms.npools + dbg->syms.npools + 1;
	b.pools = malloc(b.pcap * sizeof(*b.pools));
	if (!b.pools)
		goto fail;
	for (int k = 0; k < 2; k++) {
		struct bzs_symtab *t = tabs[k];

		for (size_t i = 0; i < t->npools; i++) {
			b.pools[b.npools++] = t->pools[i];
			t->pools[i] = NULL;
		}
	}
	if (bzs_symtab_finish(&b, &merged)) {
		/* the names are gone with the pools: drop the old tables too */
		bzs_symtab_free(&e->syms);
		bzs_symtab_free(&dbg->syms);
		return -ENOMEM;
	}
	merged.mem += e->syms.mem + dbg->syms.mem;
	bzs_symtab_free(&e->syms);
	bzs_symtab_free(&dbg->syms);
	e->syms = merged;
	e->has_symtab = e->has_symtab || dbg->has_symtab;
	return 0;
fail:
	bzs_builder_free(&b);
	return -ENOMEM;
}

bool bzs_elf_off_to_vaddr(const struct bzs_elf *e, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < e->nloads; i++) {
		const struct bzs_load *l = &e->loads[i];

		if (off >= l->off && off - l->off < l->filesz) {
			*vaddr = off - l->off + l->vaddr;
			return true;
		}
	}
	return false;
}

void bzs_elf_free(struct bzs_elf *e)
{
	bzs_symtab_free(&e->syms);
	free(e->loads);
	free(e->debuglink);
	memset(e, 0, sizeof(*e));
}
