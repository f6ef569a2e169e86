/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A hand-built ELF image with known symbols for the symbolizer tests:
 * one PT_LOAD maps file offset 0x1000 to vaddr 0x401000, so symbolizing
 * through it checks the offset -> vaddr translation.  build_elf(&img, flags)
 * returns the size of a malloc'ed image. */
#ifndef BZS_TESTELF_H
#define BZS_TESTELF_H

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* flags of build_elf() */
#define TESTELF_NO_SYMTAB 1	/* the .symtab section typed PROGBITS: no symbols */

/* ---- a hand-built ELF: one PT_LOAD (file 0x1000 -> vaddr 0x401000) ---- */
#define T_OFF 0x1000
#define T_ADDR 0x401000ull
#define T_SIZE 0x1000

struct tsym {
	const char *name;
	uint64_t addr, size;
	int type, bind;
};

static const struct tsym tsyms[] = {
	{ "func_a", T_ADDR, 0x100, STT_FUNC, STB_GLOBAL },
	{ "func_a_alias", T_ADDR, 0x100, STT_FUNC, STB_LOCAL },
	{ "label_in_a", T_ADDR + 0x50, 0, STT_NOTYPE, STB_LOCAL },
	{ "func_b", T_ADDR + 0x200, 0, STT_FUNC, STB_GLOBAL },	/* to func_c */
	{ "func_c", T_ADDR + 0x400, 0x10, STT_FUNC, STB_GLOBAL },
	{ "tail", T_ADDR + 0x800, 0, STT_NOTYPE, STB_GLOBAL },	/* to section end */
	{ "an_object", T_ADDR + 0x900, 8, STT_OBJECT, STB_GLOBAL },
};

static inline size_t build_elf(unsigned char **out, int flags)
{
	const size_t nsym = sizeof(tsyms) / sizeof(tsyms[0]) + 1;
	static const char shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	size_t symoff = T_OFF + T_SIZE, stroff = symoff + nsym * sizeof(Elf64_Sym), strsz = 1;
	size_t shstroff, shoff, total;
	unsigned char *b;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	Elf64_Shdr *sh;
	Elf64_Sym *sy;

	for (size_t i = 0; i < nsym - 1; i++)
		strsz += strlen(tsyms[i].name) + 1;
	shstroff = stroff + strsz;
	shoff = (shstroff + sizeof(shstr) + 7) & ~(size_t)7;
	total = shoff + 5 * sizeof(Elf64_Shdr);
	b = calloc(1, total);
	eh = (Elf64_Ehdr *)b;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = shoff;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 5;
	eh->e_shstrndx = 4;
	ph = (Elf64_Phdr *)(b + sizeof(*eh));
	*ph = (Elf64_Phdr){ PT_LOAD, PF_R | PF_X, T_OFF, T_ADDR, T_ADDR, T_SIZE, T_SIZE, 0x1000 };
	memset(b + T_OFF, 0xcc, T_SIZE);
	sy = (Elf64_Sym *)(b + symoff);
	{
		char *str = (char *)b + stroff;
		size_t so = 1;

		for (size_t i = 0; i < nsym - 1; i++) {
			sy[i + 1].st_name = (Elf64_Word)so;
			sy[i + 1].st_info = ELF64_ST_INFO(tsyms[i].bind, tsyms[i].type);
			sy[i + 1].st_shndx = 1;
			sy[i + 1].st_value = tsyms[i].addr;
			sy[i + 1].st_size = tsyms[i].size;
			strcpy(str + so, tsyms[i].name);
			so += strlen(tsyms[i].name) + 1;
		}
	}
	memcpy(b + shstroff, shstr, sizeof(shstr));
	sh = (Elf64_Shdr *)(b + shoff);
	sh[1] = (Elf64_Shdr){ 1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, T_ADDR, T_OFF, T_SIZE,
			      0, 0, 16, 0 };
	sh[2] = (Elf64_Shdr){ 7, SHT_SYMTAB, 0, 0, symoff, nsym * sizeof(Elf64_Sym), 3, 1, 8,
			      sizeof(Elf64_Sym) };
	if (flags & TESTELF_NO_SYMTAB)
		sh[2].sh_type = SHT_PROGBITS;
	sh[3] = (Elf64_Shdr){ 15, SHT_STRTAB, 0, 0, stroff, strsz, 0, 0, 1, 0 };
	sh[4] = (Elf64_Shdr){ 23, SHT_STRTAB, 0, 0, shstroff, sizeof(shstr), 0, 0, 1, 0 };
	*out = b;
	return total;
}

#endif
