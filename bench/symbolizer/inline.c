// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* inline ELF [N]: the cost of --inline, per distinct address, in the
 * symbolizer's DWARF reader (blazesym-shim/debuginfo.c): N addresses
 * (default 20000), one in the middle of each function of ELF's symbol
 * table, looked up for their line (what --lines pays) and then for the
 * chain of functions inlined there, names demangled (what --inline adds).
 * Prints ns per address for each: the inline look-up twice, the first
 * time with the index of each compile unit built (once per unit, at its
 * first look-up), then again with the indexes built; and the inlined
 * frames found per address.  A tool pays this once per distinct address
 * (cached).  INLINE_DUMP=1 prints each address's chain. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* The inline look-up of the n addresses a; the frames found.  dump:
 * print each address's chain (to compare two builds) */
static size_t inline_pass(struct bzs_dwarf *d, const uint64_t *a, size_t n, bool dump)
{
	size_t frames = 0;

	for (size_t i = 0; i < n; i++) {
		struct bzs_inl *in, outer;
		size_t k;

		bzs_dwarf_inlined(d, a[i], true, 0, &in, &k, &outer);
		frames += k;
		if (dump) {
			printf("%#llx %s:%u", (unsigned long long)a[i], outer.src ? outer.src : "?",
			       outer.line);
			for (size_t j = 0; j < k; j++)
				printf(" | %s %s:%u", in[j].name, in[j].src ? in[j].src : "?",
				       in[j].line);
			printf("\n");
		}
		bzs_inl_free(in, k);
	}
	return frames;
}

int main(int argc, char **argv)
{
	size_t max = argc > 2 ? strtoul(argv[2], NULL, 10) : 20000, n = 0, frames = 0;
	struct bzs_dwarf *d;
	struct bzs_elf e;
	uint64_t *a;
	double t0, t1, t2, t3;
	int fd;

	if (argc < 2 || (fd = open(argv[1], O_RDONLY)) < 0 || (bzs_elf_init(), bzs_elf_load_fd(fd, &e))) {
		fprintf(stderr, "usage: %s ELF [N] (an ELF file with a symbol table and DWARF)\n", argv[0]);
		return 2;
	}
	a = malloc(sizeof(*a) * (max ? max : 1));
	for (size_t i = 0; i < e.syms.cnt && n < max; i++)
		if (e.syms.syms[i].end - e.syms.syms[i].addr > 8)
			a[n++] = e.syms.syms[i].addr + (e.syms.syms[i].end - e.syms.syms[i].addr) / 2;
	d = bzs_dwarf_open(fd);
	if (!d || !n) {
		fprintf(stderr, "%s: no DWARF or no functions\n", argv[1]);
		return 2;
	}
	t0 = now();
	for (size_t i = 0; i < n; i++) {
		const char *p;
		uint32_t l;
		uint16_t c;

		bzs_dwarf_lookup(d, a[i], &p, &l, &c);
	}
	t1 = now();
	frames = inline_pass(d, a, n, getenv("INLINE_DUMP") != NULL);
	t2 = now();
	inline_pass(d, a, n, false);
	t3 = now();
	printf("inline_addresses: %zu\n", n);
	printf("line_ns_per_addr: %.0f\n", (t1 - t0) / n * 1e9);
	printf("inline_first_ns_per_addr: %.0f\n", (t2 - t1) / n * 1e9);
	printf("inline_again_ns_per_addr: %.0f\n", (t3 - t2) / n * 1e9);
	printf("inlined_frames_per_addr: %.2f\n", (double)frames / n);
	bzs_dwarf_close(d);
	bzs_elf_free(&e);
	free(a);
	return 0;
}
