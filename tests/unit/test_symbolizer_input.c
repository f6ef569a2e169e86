/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Unit tests of blazesym-shim on awkward input: maps lines that do not
 * parse, perf maps (JIT) with garbage that grow while read, libraries
 * dlopen'ed after the first call, corrupt and symbol-less ELF files mapped
 * next to good ones, processes that vanish while they are symbolized.
 *
 * Build: cc -Iblazesym-shim tests/unit/test_symbolizer_input.c blazesym-shim/\*.c
 *           -lelf -ldw -lz -lpthread */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "unit.h"
#include "../symbolizer/testelf.h"

int bzs_input_fn(int x);
__attribute__((noinline, used)) int bzs_input_fn(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 7;
}

static char tmpdir[64];

static const blaze_syms *sym(blaze_symbolizer *s, bool perf_map, const uint64_t *a, size_t n)
{
	blaze_symbolize_src_process src = { .type_size = sizeof(src), .pid = (uint32_t)getpid(),
					    .perf_map = perf_map };

	return blaze_symbolize_process_abs_addrs(s, &src, a, n);
}

static void write_file(const char *path, const char *mode, const void *data, size_t len)
{
	FILE *f = fopen(path, mode);

	if (!f || fwrite(data, 1, len, f) != len)
		perror(path);
	if (f)
		fclose(f);
}

static void test_maps_garbage(void)
{
	static const char maps[] =
		"00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/dbus-daemon\n"
		"garbage\n"
		"00652000-00655000 rw-p 00052000 08:02 173521      /usr/bin/dbus-daemon\n"
		"7f0000000000-7f0000001000 r-xp 00001000 fd:01 42   /lib/with space/lib x.so (deleted)\n"
		"7f0000002000-7f0000001000 r-xp 00000000 00:00 0\n"	/* end < start */
		"7f0000003000-7f0000004000 r-zp 00000000 00:00 0\n"	/* bad perms */
		"7f0000005000-7f0000006000 r-xp 00000000 fd:01\n"	/* truncated */
		"7f0000007000-7f0000008000 r-xp 00000000 00:00 0 \n"	/* anon */
		"7f0000007800-7f0000009000 r-xp 00000000 00:00 0\n"	/* overlaps */
		"1ffffffffffffffff-2 r-xp 0 0:0 0\n"			/* overflow */
		"7ffd5a9f0000-7ffd5a9f2000 r-xp 00000000 00:00 0    [vdso]\n"
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]";
	size_t n, bad;
	struct bzs_maps_entry *e = bzs_maps_parse(maps, sizeof(maps) - 1, true, &n, &bad);

	CHECK(n == 5, "maps: 5 executable mappings kept (%zu)", n);
	CHECK(bad == 6, "maps: 6 bad lines counted (%zu)", bad);
	if (n == 5) {
		CHECK_STR(e[0].path, "/usr/bin/dbus-daemon", "plain path");
		CHECK(e[0].kind == BZS_VMA_FILE && e[0].ino == 173521, "file kind and inode");
		CHECK_STR(e[1].path, "/lib/with space/lib x.so", "spaces kept, (deleted) stripped");
		CHECK(e[1].deleted && e[1].off == 0x1000, "deleted flag and offset");
		CHECK(e[2].kind == BZS_VMA_ANON && !e[2].path, "anonymous mapping");
		CHECK(e[3].kind == BZS_VMA_VDSO, "[vdso]");
		CHECK(e[4].kind == BZS_VMA_OTHER, "[vsyscall]");
	}
	bzs_maps_free(e, n);
	e = bzs_maps_parse("", 0, true, &n, &bad);
	CHECK(n == 0, "empty maps");
	bzs_maps_free(e, n);
}

static void test_perfmap_parse(void)
{
	static const char text[] =
		"1000 100 jit_one\n"
		"0x2000 0x20 name with spaces\r\n"
		"zzzz 10 bad_start\n"
		"3000 0 zero_size\n"
		"3000\n"
		"4000 10\n"
		"ffffffffffffffff 10 wraps\n"
		"1000 80 jit_one_again\n"
		"\n\n5000 10 last_no_newline";
	struct bzs_perfmap *pm = bzs_perfmap_parse(text, sizeof(text) - 1);
	const char *name = NULL;
	uint64_t start = 0;

	CHECK(pm && bzs_perfmap_count(pm) == 3, "perf map: 3 distinct entries (%zu)",
	      bzs_perfmap_count(pm));
	CHECK(bzs_perfmap_lookup(pm, 0x1010, &name, &start) && !strcmp(name, "jit_one_again") &&
	      start == 0x1000, "later entry at the same start wins");
	CHECK(!bzs_perfmap_lookup(pm, 0x1090, &name, &start), "past the later entry's size");
	CHECK(bzs_perfmap_lookup(pm, 0x201f, &name, &start) && !strcmp(name, "name with spaces"),
	      "names with spaces, CR stripped");
	CHECK(bzs_perfmap_lookup(pm, 0x5000, &name, &start) && !strcmp(name, "last_no_newline"),
	      "last line without newline");
	CHECK(!bzs_perfmap_lookup(pm, 0x3000, &name, &start), "zero-size entry skipped");
	bzs_perfmap_free(pm);
}

/* JIT code in an anonymous executable mapping, named by /tmp/perf-PID.map. */
static void test_perfmap_process(blaze_symbolizer *s)
{
	char path[64], line[256];
	unsigned char *m = mmap(NULL, 0x2000, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);
	uint64_t b = (uint64_t)(uintptr_t)m, a[4] = { b + 4, b + 0x105, b + 0x84, b + 0x1800 };
	const blaze_syms *r;
	int n;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	n = snprintf(line, sizeof(line), "%" PRIx64 " 40 jit_alpha\nnot a line\n"
		     "%" PRIx64 " 20 jit beta(int)\n", b, b + 0x100);
	write_file(path, "w", line, (size_t)n);
	r = sym(s, true, a, 4);
	CHECK(r && r->cnt == 4, "perf map: 4 results");
	if (r && r->cnt == 4) {
		CHECK_STR(r->syms[0].name, "jit_alpha", "JIT symbol");
		CHECK_STR(r->syms[0].module, "[perf-map]", "module [perf-map]");
		CHECK_U64(r->syms[0].offset, 4, "JIT offset");
		CHECK_STR(r->syms[1].name, "jit beta(int)", "JIT name with spaces");
		CHECK(!r->syms[2].name && r->syms[2].reason == BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR,
		      "JIT gap: UNKNOWN_ADDR");
	}
	blaze_syms_free(r);
	r = sym(s, false, a, 1);
	CHECK(r && !r->syms[0].name && r->syms[0].reason == BLAZE_SYMBOLIZE_REASON_UNSUPPORTED,
	      "anonymous code without perf_map: UNSUPPORTED");
	blaze_syms_free(r);
	/* the JIT appends as it goes */
	n = snprintf(line, sizeof(line), "%" PRIx64 " 10 jit_gamma\n%" PRIx64 " 1000 jit_late\n",
		     b + 0x80, b + 0x1000);
	write_file(path, "a", line, (size_t)n);
	r = sym(s, true, a, 4);
	CHECK(r && r->syms[2].name && !strcmp(r->syms[2].name, "jit_gamma") && r->syms[3].name &&
	      !strcmp(r->syms[3].name, "jit_late"), "perf map read again when it grew");
	blaze_syms_free(r);
	unlink(path);
	munmap(m, 0x2000);
}

static void test_dlopen(blaze_symbolizer *s)
{
	uint64_t a = (uint64_t)(uintptr_t)&bzs_input_fn;
	const blaze_syms *r = sym(s, false, &a, 1);
	void *h, *fn;

	CHECK(r && r->syms[0].name && !strcmp(r->syms[0].name, "bzs_input_fn"),
	      "before dlopen: own function");
	blaze_syms_free(r);
	h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
	fn = h ? dlsym(h, "cbrt") : NULL;
	if (!fn) {
		CHECK(1, "# SKIP no libm.so.6 to dlopen");
		return;
	}
	a = (uint64_t)(uintptr_t)fn;
	r = sym(s, false, &a, 1);
	CHECK(r && r->syms[0].name && strstr(r->syms[0].name, "cbrt") && r->syms[0].module &&
	      strstr(r->syms[0].module, "libm"), "dlopen'ed library found after the first call "
	      "(%s in %s)", r ? r->syms[0].name : "-", r ? r->syms[0].module : "-");
	blaze_syms_free(r);
	dlclose(h);
}

/* Corrupt, non-ELF and symbol-less files mapped next to good code: each
 * gets its reason, the rest of the call still resolves. */
static void test_bad_files(blaze_symbolizer *s)
{
	unsigned char *img, *m[3];
	size_t len = build_elf(&img, 0), len2;
	unsigned char *nosym;
	char path[3][128];
	uint64_t a[4];
	const blaze_syms *r;

	len2 = build_elf(&nosym, TESTELF_NO_SYMTAB);
	snprintf(path[0], sizeof(path[0]), "%s/corrupt.elf", tmpdir);
	snprintf(path[1], sizeof(path[1]), "%s/text.txt", tmpdir);
	snprintf(path[2], sizeof(path[2]), "%s/nosyms.elf", tmpdir);
	memset(img + 0x20, 0xff, 0x20); /* e_phoff, e_shoff and more: garbage */
	write_file(path[0], "w", img, len);
	memset(img, 'x', len);
	write_file(path[1], "w", img, len);
	write_file(path[2], "w", nosym, len2);
	for (int i = 0; i < 3; i++) {
		int fd = open(path[i], O_RDONLY);

		m[i] = mmap(NULL, 0x1000, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0x1000);
		close(fd);
	}
	if (m[0] == MAP_FAILED || m[1] == MAP_FAILED || m[2] == MAP_FAILED) {
		CHECK(0, "mmap test files");
		goto out;
	}
	a[0] = (uint64_t)(uintptr_t)m[0] + 0x10;
	a[1] = (uint64_t)(uintptr_t)&bzs_input_fn;
	a[2] = (uint64_t)(uintptr_t)m[1] + 0x10;
	a[3] = (uint64_t)(uintptr_t)m[2] + 0x10;
	r = sym(s, false, a, 4);
	CHECK(r && r->cnt == 4, "bad files: 4 results");
	if (r && r->cnt == 4) {
		CHECK(!r->syms[0].name && r->syms[0].reason != BLAZE_SYMBOLIZE_REASON_SUCCESS &&
		      r->syms[0].module && strstr(r->syms[0].module, "corrupt.elf"),
		      "corrupt ELF: reason %s, module set",
		      blaze_symbolize_reason_str(r->syms[0].reason));
		CHECK_STR(r->syms[1].name, "bzs_input_fn", "good address in the same call");
		CHECK(!r->syms[2].name && r->syms[2].reason == BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR,
		      "not an ELF: IGNORED_ERROR (%s)", blaze_symbolize_reason_str(r->syms[2].reason));
		CHECK(!r->syms[3].name && r->syms[3].reason == BLAZE_SYMBOLIZE_REASON_MISSING_SYMS,
		      "ELF without symbols: MISSING_SYMS (%s)",
		      blaze_symbolize_reason_str(r->syms[3].reason));
	}
	blaze_syms_free(r);
out:
	for (int i = 0; i < 3; i++)
		if (m[i] != MAP_FAILED)
			munmap(m[i], 0x1000);
	free(img);
	free(nosym);
}

/* Processes that exit while (or before) they are cached and symbolized. */
static void test_vanishing(blaze_symbolizer *s)
{
	uint64_t a[3] = { (uint64_t)(uintptr_t)&bzs_input_fn, (uint64_t)(uintptr_t)&getpid, 16 };
	int ok = 0, total = 200;

	for (int i = 0; i < total; i++) {
		blaze_symbolize_src_process src = { .type_size = sizeof(src), .perf_map = true };
		blaze_cache_src_process c = { .type_size = sizeof(c) };
		const blaze_syms *r;
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			if (i % 2)
				execl("/bin/true", "true", (char *)NULL);
			_exit(0);
		}
		src.pid = c.pid = (uint32_t)pid;
		if (i % 3 == 0)
			blaze_symbolize_cache_process(s, &c);
		r = blaze_symbolize_process_abs_addrs(s, &src, a, 3);
		ok += r && r->cnt == 3;
		blaze_syms_free(r);
		waitpid(pid, &st, 0);
		r = blaze_symbolize_process_abs_addrs(s, &src, a, 3);
		ok += r && r->cnt == 3;
		blaze_syms_free(r);
	}
	CHECK(ok == 2 * total, "vanishing processes: every call returned one entry per address");
}

/* One symbolizer shared by threads, kernel and process calls mixed. */
static blaze_symbolizer *shared;
static int thread_ok[4];

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	uint64_t a[2] = { (uint64_t)(uintptr_t)&bzs_input_fn, (uint64_t)(uintptr_t)&getpid };
	blaze_symbolize_src_kernel k = { .type_size = sizeof(k) };
	blaze_cache_src_process c = { .type_size = sizeof(c) };

	for (int i = 0; i < 200; i++) {
		const blaze_syms *r = sym(shared, false, a, 2);

		thread_ok[id] += r && r->syms[0].name && !strcmp(r->syms[0].name, "bzs_input_fn");
		blaze_syms_free(r);
		if (i % 50 == 0) {
			blaze_symbolize_cache_process(shared, &c);
			blaze_syms_free(blaze_symbolize_kernel_abs_addrs(shared, &k, a, 1));
		}
	}
	return NULL;
}

static void test_threads(void)
{
	pthread_t t[4];

	shared = blaze_symbolizer_new();
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	blaze_symbolizer_free(shared);
	CHECK(thread_ok[0] + thread_ok[1] + thread_ok[2] + thread_ok[3] == 800,
	      "4 threads sharing a symbolizer: all 800 calls right");
}

int main(void)
{
	blaze_symbolizer *s;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/bzs-input-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	s = blaze_symbolizer_new();
	test_maps_garbage();
	test_perfmap_parse();
	test_perfmap_process(s);
	test_dlopen(s);
	test_bad_files(s);
	test_vanishing(s);
	blaze_symbolizer_free(s);
	test_threads();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
		if (system(cmd))
			fprintf(stderr, "cleanup of %s failed\n", tmpdir);
	}
	return unit_exit();
}
