/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Benchmark of blazesym-shim (not a test): see bench/symbolizer/run.sh.
 *
 *   bench [-n N] [-o OUTDIR] BIGLIB
 *
 * Loads libstdc++.so.6 and BIGLIB (a large shared library) into this
 * process, picks N addresses inside functions of libc, libstdc++ and BIGLIB
 * (fixed seed), then measures:
 *   - the time to load BIGLIB's symbol table (median of 5), and the first
 *     symbolizer call that has to load it;
 *   - addresses/second once loaded: one call of N, and calls of 32 (stacks);
 *   - peak RSS.
 * It writes, per module, the ELF virtual addresses (OUTDIR/addrs.K) and our
 * names (OUTDIR/names.K), and the module paths (OUTDIR/modules), so the
 * script can time addr2line and eu-addr2line on the same addresses.
 * Output: "key: value" lines. */
#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "internal.h"

#define NMOD 3

struct mod {
	const char *want;	/* substring of the path */
	char path[4096];
	uint64_t bias;
	struct bzs_elf elf;
	unsigned weight;	/* percent of the addresses */
};

static struct mod mods[NMOD] = {
	{ .want = "/libc.so.6", .weight = 30 },
	{ .want = "/libstdc++.so.6", .weight = 30 },
	{ .want = NULL, .weight = 40 },	/* BIGLIB */
};

static int find_mod(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	for (int i = 0; i < NMOD; i++)
		if (!mods[i].path[0] && info->dlpi_name && strstr(info->dlpi_name, mods[i].want)) {
			snprintf(mods[i].path, sizeof(mods[i].path), "%s", info->dlpi_name);
			mods[i].bias = info->dlpi_addr;
		}
	return 0;
}

static double now(void)
{
	return (double)bzs_now_ns() / 1e9;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* What the first warm pass checks and writes for the script: per module,
 * the ELF virtual addresses (OUTDIR/addrs.K) and our names (OUTDIR/names.K),
 * and the module paths (OUTDIR/modules) */
struct first_pass {
	const char *outdir;
	const int *mi;		/* module of each address */
	const uint64_t *va;	/* ELF virtual address of each address */
	size_t ok, same;	/* resolved; at the expected symbol start */
};

static void write_first_pass(const blaze_syms *r, void *ctx)
{
	struct first_pass *fp = ctx;
	const int *mi = fp->mi;
	const uint64_t *va = fp->va;
	char path[4200];
	FILE *fa[NMOD], *fn[NMOD], *fm;

	snprintf(path, sizeof(path), "%s/modules", fp->outdir);
	fm = fopen(path, "w");
	for (int m = 0; m < NMOD; m++) {
		if (fm)
			fprintf(fm, "%s\n", mods[m].path);
		snprintf(path, sizeof(path), "%s/addrs.%d", fp->outdir, m);
		fa[m] = fopen(path, "w");
		snprintf(path, sizeof(path), "%s/names.%d", fp->outdir, m);
		fn[m] = fopen(path, "w");
	}
	if (fm)
		fclose(fm);
	for (size_t i = 0; i < r->cnt; i++) {
		const blaze_sym *y = &r->syms[i];
		ssize_t k2 = bzs_symtab_lookup(&mods[mi[i]].elf.syms, va[i]);

		fp->ok += y->reason == BLAZE_SYMBOLIZE_REASON_SUCCESS;
		fp->same += k2 >= 0 && y->name &&
			y->addr == mods[mi[i]].elf.syms.syms[k2].addr + mods[mi[i]].bias;
		if (fa[mi[i]])
			fprintf(fa[mi[i]], "%#" PRIx64 "\n", va[i]);
		if (fn[mi[i]])
			fprintf(fn[mi[i]], "%s\n", y->name ? y->name : "??");
	}
	for (int m = 0; m < NMOD; m++) {
		if (fa[m])
			fclose(fa[m]);
		if (fn[m])
			fclose(fn[m]);
	}
}

/* The best time (s) of 5 calls symbolizing the n addresses abs in one
 * call; first (or NULL) sees the result of the first call, untimed */
static double best_of_5_calls(blaze_symbolizer *s, const blaze_symbolize_src_process *src,
			      const uint64_t *abs, size_t n,
			      void (*first)(const blaze_syms *r, void *ctx), void *ctx)
{
	double best = 1e9, t0, t1;

	for (int k = 0; k < 5; k++) {
		const blaze_syms *r;

		t0 = now();
		r = blaze_symbolize_process_abs_addrs(s, src, abs, n);
		t1 = now();
		if (t1 - t0 < best)
			best = t1 - t0;
		if (k == 0 && first)
			first(r, ctx);
		blaze_syms_free(r);
	}
	return best;
}

int main(int argc, char **argv)
{
	const char *outdir = ".", *big;
	size_t n = 100000;
	uint64_t *abs, *va;
	int *mi, c;
	double t0, t1, loads[5], best, rate_one, rate_32;
	blaze_symbolizer *s;
	blaze_symbolize_src_process src = { .type_size = sizeof(src), .pid = 0 };
	const blaze_syms *r;
	long rss0 = peak_rss_kb();
	size_t ok = 0, same = 0;

	while ((c = getopt(argc, argv, "n:o:")) != -1) {
		if (c == 'n')
			n = strtoul(optarg, NULL, 0);
		else if (c == 'o')
			outdir = optarg;
		else
			return 2;
	}
	if (optind >= argc || !n) {
		fprintf(stderr, "usage: %s [-n N] [-o OUTDIR] BIGLIB\n", argv[0]);
		return 2;
	}
	big = argv[optind];
	mods[2].want = strrchr(big, '/') ? strrchr(big, '/') : big;
	if (!dlopen("libstdc++.so.6", RTLD_NOW) || !dlopen(big, RTLD_NOW)) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	dl_iterate_phdr(find_mod, NULL);
	for (int i = 0; i < NMOD; i++) {
		int fd = open(mods[i].path, O_RDONLY);

		if (fd < 0 || bzs_elf_load_fd(fd, &mods[i].elf) || !mods[i].elf.syms.cnt) {
			fprintf(stderr, "cannot load %s (%s)\n", mods[i].path, mods[i].want);
			return 1;
		}
		close(fd);
		printf("module%d: %s (%zu symbols)\n", i, mods[i].path, mods[i].elf.syms.cnt);
	}
	/* symbol table load time of BIGLIB */
	for (int k = 0; k < 5; k++) {
		struct bzs_elf e;
		int fd = open(mods[2].path, O_RDONLY);

		t0 = now();
		bzs_elf_load_fd(fd, &e);
		loads[k] = now() - t0;
		close(fd);
		bzs_elf_free(&e);
	}
	qsort(loads, 5, sizeof(loads[0]), dcmp);
	{
		struct stat_s { long long size; } st = { 0 };
		FILE *f = fopen(mods[2].path, "r");

		if (f) {
			fseek(f, 0, SEEK_END);
			st.size = ftell(f);
			fclose(f);
		}
		printf("big_elf_bytes: %lld\n", st.size);
	}
	printf("big_symtab_load_ms: %.2f (median of 5; min %.2f max %.2f)\n", loads[2] * 1e3,
	       loads[0] * 1e3, loads[4] * 1e3);

	/* the addresses */
	abs = calloc(n, sizeof(*abs));
	va = calloc(n, sizeof(*va));
	mi = calloc(n, sizeof(*mi));
	for (size_t i = 0; i < n; i++) {
		unsigned w = (unsigned)(rnd() % 100);
		int m = w < mods[0].weight ? 0 : w < mods[0].weight + mods[1].weight ? 1 : 2;
		struct bzs_symtab *t = &mods[m].elf.syms;
		struct bzs_sym *y = &t->syms[rnd() % t->cnt];
		uint64_t len = y->end - y->addr;

		mi[i] = m;
		va[i] = y->addr + (len > 1 ? rnd() % (len < 4096 ? len : 4096) : 0);
		abs[i] = va[i] + mods[m].bias;
	}

	/* first call: loads BIGLIB's table through the process path */
	s = blaze_symbolizer_new();
	{
		uint64_t one = 0;

		for (size_t i = 0; i < n && !one; i++)
			if (mi[i] == 2)
				one = abs[i];
		t0 = now();
		r = blaze_symbolize_process_abs_addrs(s, &src, &one, 1);
		t1 = now();
		printf("first_call_ms: %.2f (maps + BIGLIB table)\n", (t1 - t0) * 1e3);
		blaze_syms_free(r);
	}
	t0 = now();
	r = blaze_symbolize_process_abs_addrs(s, &src, abs, n);
	t1 = now();
	printf("cold_pass_ms: %.2f (libc, libstdc++ loaded; names demangled)\n", (t1 - t0) * 1e3);
	blaze_syms_free(r);

	/* warm: best of 5 single calls */
	{
		struct first_pass fp = { outdir, mi, va, 0, 0 };

		best = best_of_5_calls(s, &src, abs, n, write_first_pass, &fp);
		ok = fp.ok;
		same = fp.same;
	}
	rate_one = (double)n / best;
	printf("resolved: %zu of %zu (%zu at the expected symbol start)\n", ok, n, same);
	printf("warm_one_call_addrs_per_s: %.0f\n", rate_one);

	/* warm: calls of 32 addresses, like stacks */
	best = 1e9;
	for (int k = 0; k < 5; k++) {
		t0 = now();
		for (size_t i = 0; i < n; i += 32) {
			r = blaze_symbolize_process_abs_addrs(s, &src, abs + i, n - i < 32 ? n - i : 32);
			blaze_syms_free(r);
		}
		t1 = now();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	rate_32 = (double)n / best;
	printf("warm_calls_of_32_addrs_per_s: %.0f\n", rate_32);
	blaze_symbolizer_free(s);

	/* demangling off */
	{
		blaze_symbolizer_opts o = { .type_size = sizeof(o) };

		s = blaze_symbolizer_new_opts(&o);
		r = blaze_symbolize_process_abs_addrs(s, &src, abs, n);
		blaze_syms_free(r);
		best = best_of_5_calls(s, &src, abs, n, NULL, NULL);
		printf("warm_no_demangle_addrs_per_s: %.0f\n", (double)n / best);
		blaze_symbolizer_free(s);
	}
	/* re-caching a process whose files are loaded already */
	{
		blaze_cache_src_process cs = { .type_size = sizeof(cs), .pid = 0 };

		s = blaze_symbolizer_new();
		blaze_symbolize_cache_process(s, &cs);
		t0 = now();
		for (int k = 0; k < 100; k++)
			blaze_symbolize_cache_process(s, &cs);
		t1 = now();
		printf("recache_process_us: %.1f (files already loaded; maps read again)\n",
		       (t1 - t0) * 1e6 / 100);
		blaze_symbolizer_free(s);
	}
	printf("peak_rss_kb: %ld (at start %ld)\n", peak_rss_kb(), rss0);
	for (int m = 0; m < NMOD; m++)
		bzs_elf_free(&mods[m].elf);
	free(abs);
	free(va);
	free(mi);
	return 0;
}
