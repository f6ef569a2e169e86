/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Entry points for the fuzz targets (tests/fuzz/): parse a buffer the way
 * the symbolizer parses files, exercise the lookups, check invariants
 * (abort() when one breaks), free everything. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

static void check_symtab(struct bzs_symtab *t)
{
	for (size_t i = 0; i < t->cnt; i++) {
		const struct bzs_sym *s = &t->syms[i];
		ssize_t k;

		if (s->end <= s->addr || (i && s->addr <= t->syms[i - 1].addr) || !s->name)
			abort();
		k = bzs_symtab_lookup(t, s->addr);
		if (k < 0)
			abort(); /* every symbol start resolves */
		bzs_symtab_lookup(t, s->end - 1);
		bzs_symtab_lookup(t, s->end);
		if (i < 64)
			bzs_symtab_name(t, i, true);
	}
	bzs_symtab_lookup(t, 0);
	bzs_symtab_lookup(t, UINT64_MAX);
}

/* The DWARF reader on the same bytes (a file in memory): file:line and the
 * inlined functions (with the index of each compile unit) at the start and
 * the middle of the first symbols, names demangled */
static void check_dwarf(const uint8_t *data, size_t size, const struct bzs_symtab *t)
{
	int fd = memfd_create("fuzz-dwarf", MFD_CLOEXEC);
	struct bzs_dwarf *d;

	if (fd < 0)
		return;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return;
	}
	d = bzs_dwarf_open(fd);	/* takes fd */
	for (size_t i = 0; d && i < t->cnt && i < 64; i++) {
		uint64_t at[2] = { t->syms[i].addr,
				   t->syms[i].addr + (t->syms[i].end - t->syms[i].addr) / 2 };

		for (int k = 0; k < 2; k++) {
			struct bzs_inl *inl, outer;
			const char *src;
			uint32_t line;
			uint16_t col;
			size_t n;

			bzs_dwarf_lookup(d, at[k], &src, &line, &col);
			if (bzs_dwarf_inlined(d, at[k], true, (unsigned)k, &inl, &n, &outer)) {
				for (size_t j = 0; j < n; j++)
					if (!inl[j].name)
						abort();
				bzs_inl_free(inl, n);
			}
		}
	}
	bzs_dwarf_close(d);
}

int bzs_fuzz_elf(const uint8_t *data, size_t size)
{
	struct bzs_elf e;
	void *copy = malloc(size ? size : 1);
	uint64_t va;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (bzs_elf_load_mem(copy, size, &e) == 0) {
		check_symtab(&e.syms);
		if (e.has_dwarf)
			check_dwarf(data, size, &e.syms);
		for (size_t i = 0; i < e.nloads; i++) {
			bzs_elf_off_to_vaddr(&e, e.loads[i].off, &va);
			bzs_elf_off_to_vaddr(&e, e.loads[i].off + e.loads[i].filesz, &va);
		}
		bzs_elf_off_to_vaddr(&e, 0, &va);
		bzs_elf_free(&e);
	}
	free(copy);
	return 0;
}

int bzs_fuzz_maps(const uint8_t *data, size_t size)
{
	for (int exec_only = 0; exec_only < 2; exec_only++) {
		size_t n, bad;
		struct bzs_maps_entry *e = bzs_maps_parse((const char *)data, size, exec_only,
							  &n, &bad);

		for (size_t i = 0; i < n; i++) {
			if (e[i].end <= e[i].start || (i && e[i].start < e[i - 1].end))
				abort();
			if (exec_only && !e[i].exec)
				abort();
			if (e[i].path && !e[i].path[0] && e[i].kind == BZS_VMA_FILE)
				abort();
		}
		bzs_maps_free(e, n);
	}
	return 0;
}

int bzs_fuzz_text(const uint8_t *data, size_t size)
{
	struct bzs_res res;
	const char *name;
	uint64_t start;

	if (!size)
		return 0;
	switch (data[0] % 3) {
	case 0: {
		struct bzs_ksyms *k = bzs_ksyms_parse((const char *)data + 1, size - 1);

		for (uint64_t a = 0; k && a < 16; a++)
			bzs_ksyms_lookup(k, a * 0x1111111111111111ull, &res);
		bzs_ksyms_lookup(k, 0xffffffff81000000ull, &res);
		bzs_ksyms_free(k);
		break;
	}
	case 1: {
		struct bzs_perfmap *pm = bzs_perfmap_parse((const char *)data + 1, size - 1);

		for (uint64_t a = 0; pm && a < 16; a++)
			bzs_perfmap_lookup(pm, a * 0x1111111111111111ull, &name, &start);
		bzs_perfmap_free(pm);
		break;
	}
	default: {
		char *s = malloc(size);
		char *d;

		if (!s)
			return 0;
		memcpy(s, data + 1, size - 1);
		s[size - 1] = '\0';
		/* Rust v0, Rust legacy and C++, with and without parameters */
		d = bzs_demangle(s);
		free(d);
		d = bzs_demangle_opts(s, BZS_DEMANGLE_NO_PARAMS);
		free(d);
		free(s);
		break;
	}
	}
	return 0;
}
