/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Unit tests of blazesym-shim: the own process (test binary, libc, vDSO),
 * a hand-built ELF mapped at a file offset, kallsyms fixtures and the real
 * kallsyms, reason codes, and a child process cached before it exits.
 *
 * Build: cc -Iblazesym-shim tests/unit/test_symbolizer.c blazesym-shim/\*.c
 *           -lelf -ldw -lz -lpthread
 * The binary re-executes itself (/proc/self/exe --child FD) for the child. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "unit.h"

int bzs_test_target_fn(int x);
__attribute__((noinline, used)) int bzs_test_target_fn(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

int bzs_test_child_fn(int x);
__attribute__((noinline, used)) int bzs_test_child_fn(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 5 + 2;
}

static const char *base(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p;
}

static bool contains(const char *s, const char *sub)
{
	return s && strstr(s, sub);
}

static const blaze_syms *sym_pid(blaze_symbolizer *s, pid_t pid, const uint64_t *a, size_t n)
{
	blaze_symbolize_src_process src = { .type_size = sizeof(src), .pid = (uint32_t)pid };

	return blaze_symbolize_process_abs_addrs(s, &src, a, n);
}

#include "../symbolizer/testelf.h"

static char tmpdir[64];
static const char *self_exe = "/proc/self/exe";

static char *write_tmp(const char *name, const void *data, size_t len)
{
	static char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		perror(path);
	close(fd);
	return path;
}

static void test_elf_direct(void)
{
	unsigned char *img;
	size_t len = build_elf(&img, 0);
	struct bzs_elf e;
	uint64_t va;
	ssize_t i;
	int fd;
	char *path = write_tmp("known.elf", img, len);

	fd = open(path, O_RDONLY);
	CHECK(bzs_elf_load_fd(fd, &e) == 0, "hand-built ELF loads");
	close(fd);
	CHECK(e.has_symtab, "it has a .symtab");
	CHECK(bzs_elf_off_to_vaddr(&e, T_OFF + 0x10, &va) && va == T_ADDR + 0x10,
	      "file offset -> vaddr through PT_LOAD");
	CHECK(!bzs_elf_off_to_vaddr(&e, 0x10, &va), "offset outside PT_LOAD is rejected");
	i = bzs_symtab_lookup(&e.syms, T_ADDR + 0x60);
	CHECK(i >= 0 && !strcmp(e.syms.syms[i].name, "func_a"),
	      "label inside a sized function does not hide it; global alias wins");
	i = bzs_symtab_lookup(&e.syms, T_ADDR + 0x150);
	CHECK(i < 0, "gap after a sized function is unknown");
	i = bzs_symtab_lookup(&e.syms, T_ADDR + 0x3ff);
	CHECK(i >= 0 && !strcmp(e.syms.syms[i].name, "func_b"), "zero-size symbol reaches the next");
	i = bzs_symtab_lookup(&e.syms, T_ADDR + 0x40f);
	CHECK(i >= 0 && !strcmp(e.syms.syms[i].name, "func_c"), "last byte of func_c");
	i = bzs_symtab_lookup(&e.syms, T_ADDR + 0x410);
	CHECK(i < 0, "one past func_c is unknown");
	i = bzs_symtab_lookup(&e.syms, T_ADDR + 0xfff);
	CHECK(i >= 0 && !strcmp(e.syms.syms[i].name, "tail"),
	      "zero-size last symbol extends to its section end (objects ignored)");
	i = bzs_symtab_lookup(&e.syms, T_ADDR + T_SIZE);
	CHECK(i < 0, "past the section end is unknown");
	bzs_elf_free(&e);

	/* truncated and corrupted copies: no crash, a reason */
	for (size_t cut = 0; cut < len; cut += len / 37 + 1) {
		int r = bzs_elf_load_mem(img, cut, &e);

		if (!r)
			bzs_elf_free(&e);
	}
	for (size_t k = 0; k < 2000; k++) {
		unsigned char *c = malloc(len);
		int r;

		memcpy(c, img, len);
		srand((unsigned)k);
		for (int j = 0; j < 8; j++)
			c[(size_t)rand() % len] = (unsigned char)rand();
		r = bzs_elf_load_mem(c, len, &e);
		if (!r) {
			for (uint64_t a = T_ADDR - 16; a < T_ADDR + T_SIZE + 16; a += 61)
				bzs_symtab_lookup(&e.syms, a);
			bzs_elf_free(&e);
		}
		free(c);
	}
	CHECK(1, "truncated and corrupted ELF images load or fail cleanly");
	free(img);
}

/* The hand-built ELF mmap'ed at its file offset into this process. */
static void test_elf_mapped(blaze_symbolizer *s)
{
	unsigned char *img;
	size_t len = build_elf(&img, 0);
	char *path = write_tmp("mapped.elf", img, len);
	int fd = open(path, O_RDONLY);
	unsigned char *m = mmap(NULL, T_SIZE, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, T_OFF);
	uint64_t a[4];
	const blaze_syms *r;

	close(fd);
	free(img);
	if (m == MAP_FAILED) {
		CHECK(0, "mmap the test ELF: %s", strerror(errno));
		return;
	}
	a[0] = (uint64_t)(uintptr_t)m + 0x10;
	a[1] = (uint64_t)(uintptr_t)m + 0x210;
	a[2] = (uint64_t)(uintptr_t)m + 0x150;
	a[3] = (uint64_t)(uintptr_t)m + 0x404;
	r = sym_pid(s, getpid(), a, 4);
	CHECK(r && r->cnt == 4, "4 results for the mapped ELF");
	if (r && r->cnt == 4) {
		CHECK_STR(r->syms[0].name, "func_a", "mapped ELF: func_a (mapping added since the "
			  "first call: maps refreshed)");
		CHECK_U64(r->syms[0].offset, 0x10, "offset within func_a");
		CHECK_U64(r->syms[0].addr, a[0] - 0x10, "addr is the absolute start of func_a");
		CHECK_STR(base(r->syms[0].module), "mapped.elf", "module is the mapped file");
		CHECK_STR(r->syms[1].name, "func_b", "mapped ELF: func_b");
		CHECK(r->syms[2].name == NULL &&
		      r->syms[2].reason == BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR,
		      "gap in the mapped ELF: UNKNOWN_ADDR (%s)",
		      blaze_symbolize_reason_str(r->syms[2].reason));
		CHECK_STR(base(r->syms[2].module), "mapped.elf", "module set when name unknown");
		CHECK_STR(r->syms[3].name, "func_c", "mapped ELF: func_c");
	}
	blaze_syms_free(r);
	munmap(m, T_SIZE);
}

static void test_self(blaze_symbolizer *s)
{
	uint64_t a[4] = {
		(uint64_t)(uintptr_t)&bzs_test_target_fn + 2,
		(uint64_t)(uintptr_t)&getpid,
		(uint64_t)(uintptr_t)&bzs_test_target_fn,
		16, /* never mapped */
	};
	const blaze_syms *r = sym_pid(s, getpid(), a, 4);

	CHECK(r && r->cnt == 4, "own process: one result per address");
	if (!r || r->cnt != 4)
		return;
	CHECK_STR(r->syms[0].name, "bzs_test_target_fn", "function of the test binary");
	CHECK_U64(r->syms[0].offset, 2, "its offset");
	CHECK_U64(r->syms[0].addr, a[2], "its start");
	CHECK(contains(base(r->syms[0].module), "test_symbolizer") ||
	      contains(r->syms[0].module, "/"), "module is the test binary's path (%s)",
	      r->syms[0].module);
	CHECK(r->syms[1].name && (!strcmp(r->syms[1].name, "getpid") ||
				  !strcmp(r->syms[1].name, "__getpid")),
	      "getpid in libc (%s)", r->syms[1].name);
	CHECK(contains(base(r->syms[1].module), "libc"), "module is libc (%s)", r->syms[1].module);
	CHECK_STR(r->syms[2].name, "bzs_test_target_fn", "same function, offset 0");
	CHECK(r->syms[3].name == NULL && r->syms[3].reason == BLAZE_SYMBOLIZE_REASON_UNMAPPED,
	      "unmapped address: UNMAPPED (%s)", blaze_symbolize_reason_str(r->syms[3].reason));
	CHECK(r->syms[0].reason == BLAZE_SYMBOLIZE_REASON_SUCCESS, "reason SUCCESS");
	blaze_syms_free(r);

	/* pid 0 means the calling process */
	r = sym_pid(s, 0, a, 1);
	CHECK(r && r->cnt == 1 && r->syms[0].name &&
	      !strcmp(r->syms[0].name, "bzs_test_target_fn"), "pid 0 is the calling process");
	blaze_syms_free(r);
	r = sym_pid(s, getpid(), a, 0);
	CHECK(r && r->cnt == 0, "zero addresses: empty result");
	blaze_syms_free(r);
}

/* Find the [vdso] range of pid. */
static bool vdso_range(pid_t pid, uint64_t *start, uint64_t *end)
{
	char path[64], *buf;
	size_t len, n;
	struct bzs_maps_entry *e;
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	buf = bzs_read_proc(path, BZS_PROC_MAX, &len);
	if (!buf)
		return false;
	e = bzs_maps_parse(buf, len, false, &n, NULL);
	for (size_t i = 0; i < n; i++)
		if (e[i].kind == BZS_VMA_VDSO) {
			*start = e[i].start;
			*end = e[i].end;
			found = true;
		}
	bzs_maps_free(e, n);
	free(buf);
	return found;
}

/* Symbolize every 16 bytes of pid's vDSO; count named and "clock_gettime"-like hits. */
static void check_vdso(blaze_symbolizer *s, pid_t pid, const char *who)
{
	uint64_t start, end, *a;
	const blaze_syms *r;
	size_t n, named = 0, clock = 0, modok = 0;

	if (!vdso_range(pid, &start, &end)) {
		/* valgrind runs its client without a vDSO */
		CHECK(1, "# SKIP %s: no [vdso] mapping", who);
		return;
	}
	n = (size_t)((end - start) / 16);
	a = malloc(n * sizeof(*a));
	for (size_t i = 0; i < n; i++)
		a[i] = start + i * 16;
	r = sym_pid(s, pid, a, n);
	for (size_t i = 0; r && i < r->cnt; i++) {
		named += r->syms[i].name != NULL;
		clock += contains(r->syms[i].name, "clock_gettime");
		modok += r->syms[i].module && !strcmp(r->syms[i].module, "[vdso]");
	}
	CHECK(named > 0 && clock > 0, "%s: vDSO symbolized (%zu named, %zu clock_gettime)", who,
	      named, clock);
	CHECK(modok == n, "%s: every vDSO address has module [vdso]", who);
	blaze_syms_free(r);
	free(a);
}

static const char kfix[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 t helper_local\n"
	"ffffffff81000200 W weak_fn\n"
	"ffffffff81000300 D some_data\n"
	"ffffffff81000400 T second_text\n"
	"ffffffff81000500 T _etext\n"
	"garbage line here\n"
	"ffffffffzz000000 T bad_hex\n"
	"\n"
	"ffffffffc0a00000 t ext4_fill_super\t[ext4]\n"
	"ffffffffc0a00200 T ext4_iget\t[ext4]\n"
	"ffffffffc0b00000 t xfs_foo\t[xfs]\n";

static void test_kallsyms_fixture(blaze_symbolizer *s)
{
	char *path = write_tmp("kallsyms", kfix, sizeof(kfix) - 1);
	blaze_symbolize_src_kernel src = { .type_size = sizeof(src), .kallsyms = path };
	uint64_t a[] = {
		0xffffffff81000010, 0xffffffff81000150, 0xffffffff81000250, 0xffffffff81000310,
		0xffffffffc0a00010, 0xffffffffc0a00210, 0xffffffffc0b00010, 0xffffffff80000000,
		0xffffffffc0b20000,
	};
	const blaze_syms *r = blaze_symbolize_kernel_abs_addrs(s, &src, a, 9);

	CHECK(r && r->cnt == 9, "kallsyms fixture: 9 results");
	if (!r || r->cnt != 9)
		return;
	CHECK_STR(r->syms[0].name, "startup_64", "alias without leading underscore wins");
	CHECK_U64(r->syms[0].offset, 0x10, "kernel offset");
	CHECK(r->syms[0].module == NULL, "core kernel: module NULL");
	CHECK_STR(r->syms[1].name, "helper_local", "local text symbol");
	CHECK_STR(r->syms[2].name, "weak_fn", "weak symbol");
	CHECK(!r->syms[3].name && r->syms[3].reason == BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR,
	      "address in data: UNKNOWN_ADDR");
	CHECK_STR(r->syms[4].name, "ext4_fill_super", "module symbol");
	CHECK_STR(r->syms[4].module, "ext4", "module name without brackets");
	CHECK_STR(r->syms[5].name, "ext4_iget", "module global symbol");
	CHECK_STR(r->syms[6].module, "xfs", "other module");
	CHECK(!r->syms[7].name && r->syms[7].reason == BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR,
	      "before the first symbol: UNKNOWN_ADDR");
	CHECK(!r->syms[8].name && r->syms[8].reason == BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR,
	      "far past the last symbol: UNKNOWN_ADDR");
	blaze_syms_free(r);

	src.kallsyms = "";
	r = blaze_symbolize_kernel_abs_addrs(s, &src, a, 1);
	CHECK(r && r->syms[0].reason == BLAZE_SYMBOLIZE_REASON_MISSING_SYMS,
	      "kallsyms disabled: MISSING_SYMS");
	blaze_syms_free(r);
	src.kallsyms = "/nonexistent/kallsyms";
	r = blaze_symbolize_kernel_abs_addrs(s, &src, a, 1);
	CHECK(r && r->syms[0].reason == BLAZE_SYMBOLIZE_REASON_MISSING_COMPONENT,
	      "kallsyms missing: MISSING_COMPONENT");
	blaze_syms_free(r);
}

/* A preload reads the table for the look-ups to come: they name
 * addresses from it, the file gone */
static void test_kallsyms_preload(void)
{
	char *path = write_tmp("kallsyms-pre", kfix, sizeof(kfix) - 1);
	blaze_symbolize_src_kernel src = { .type_size = sizeof(src), .kallsyms = path };
	blaze_symbolizer *s = blaze_symbolizer_new();
	uint64_t a = 0xffffffffc0a00010;
	const blaze_syms *r;

	CHECK(blaze_symbolize_kernel_preload(s, &src) == BLAZE_ERR_OK, "kallsyms preloaded");
	unlink(path);
	r = blaze_symbolize_kernel_abs_addrs(s, &src, &a, 1);
	CHECK_STR(r && r->cnt == 1 ? r->syms[0].name : NULL, "ext4_fill_super",
		  "a look-up after the preload names from its table");
	blaze_syms_free(r);
	CHECK(blaze_symbolize_kernel_preload(s, &src) == BLAZE_ERR_NOT_FOUND,
	      "a preload of a file that is not there: NOT_FOUND");
	blaze_symbolizer_free(s);
}

static void test_kallsyms_real(blaze_symbolizer *s)
{
	blaze_symbolize_src_kernel src = { .type_size = sizeof(src) };
	char *buf = bzs_read_proc("/proc/kallsyms", BZS_PROC_MAX, NULL), *l;
	unsigned long long addr = 0;
	const blaze_syms *r;
	uint64_t a;

	l = buf ? strstr(buf, " T schedule\n") : NULL;
	if (!l) {
		CHECK(1, "# SKIP no readable /proc/kallsyms");
		free(buf);
		return;
	}
	while (l > buf && l[-1] != '\n')
		l--;
	sscanf(l, "%llx", &addr);
	free(buf);
	if (!addr) {
		CHECK(1, "# SKIP kallsyms addresses hidden (kptr_restrict)");
		return;
	}
	a = addr + 4;
	r = blaze_symbolize_kernel_abs_addrs(s, &src, &a, 1);
	CHECK(r && r->cnt == 1 && r->syms[0].name && !strcmp(r->syms[0].name, "schedule") &&
	      r->syms[0].offset == 4, "real kallsyms: schedule+4");
	blaze_syms_free(r);
}

static void test_bad_pid(blaze_symbolizer *s)
{
	pid_t pid = 0x3ffffff0;
	uint64_t a[2] = { 0x401000, (uint64_t)(uintptr_t)&getpid };
	const blaze_syms *r;
	blaze_cache_src_process c = { .type_size = sizeof(c), .pid = (uint32_t)pid };

	while (kill(pid, 0) == 0 || errno != ESRCH)
		pid--;
	c.pid = (uint32_t)pid;
	r = sym_pid(s, pid, a, 2);
	CHECK(r && r->cnt == 2 && !r->syms[0].name && !r->syms[1].name &&
	      r->syms[0].reason == BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR,
	      "pid that does not exist: entries with reason IGNORED_ERROR (%s)",
	      r ? blaze_symbolize_reason_str(r->syms[0].reason) : "NULL");
	blaze_syms_free(r);
	CHECK(blaze_symbolize_cache_process(s, &c) == BLAZE_ERR_NOT_FOUND,
	      "caching a pid that does not exist: NOT_FOUND");
	CHECK(blaze_symbolize_process_abs_addrs(s, NULL, a, 1) == NULL &&
	      blaze_err_last() == BLAZE_ERR_INVALID_INPUT, "NULL src: NULL, INVALID_INPUT");
	CHECK(blaze_err_str(BLAZE_ERR_NOT_FOUND) && blaze_symbolize_reason_str(
		BLAZE_SYMBOLIZE_REASON_UNMAPPED), "error and reason strings");
}

/* Child mode: report addresses on fd, wait for the parent to close stdin. */
static int child_main(int fd)
{
	uint64_t a[2] = { (uint64_t)(uintptr_t)&bzs_test_child_fn + 1,
			  (uint64_t)(uintptr_t)&getpid };
	char c;

	if (write(fd, a, sizeof(a)) != sizeof(a))
		return 1;
	close(fd);
	while (read(0, &c, 1) > 0)
		;
	return bzs_test_child_fn(0) == 2 ? 0 : 1;
}

static void test_cached_child(blaze_symbolizer *s)
{
	int out[2], in[2], st;
	uint64_t a[2];
	pid_t pid;
	char fdarg[16];
	const blaze_syms *r;
	blaze_cache_src_process c = { .type_size = sizeof(c), .cache_vmas = true };

	if (pipe(out) || pipe(in))
		return;
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		close(in[1]);
		close(out[0]);
		snprintf(fdarg, sizeof(fdarg), "%d", out[1]);
		execl(self_exe, "test_symbolizer", "--child", fdarg, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	close(in[0]);
	if (read(out[0], a, sizeof(a)) != sizeof(a)) {
		CHECK(0, "child reported its addresses");
		close(in[1]);
		waitpid(pid, &st, 0);
		return;
	}
	close(out[0]);
	c.pid = (uint32_t)pid;
	CHECK(blaze_symbolize_cache_process(s, &c) == BLAZE_ERR_OK, "cache the child");
	CHECK(blaze_symbolize_cache_process(s, &c) == BLAZE_ERR_OK, "cache it again (refresh)");
	check_vdso(s, pid, "child (via /proc/PID/mem)");
	close(in[1]); /* the child exits */
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child exited normally");
	CHECK(kill(pid, 0) != 0, "child is gone");
	r = sym_pid(s, pid, a, 2);
	CHECK(r && r->cnt == 2, "exited child: 2 results");
	if (r && r->cnt == 2) {
		CHECK_STR(r->syms[0].name, "bzs_test_child_fn", "exited child: own function");
		CHECK_U64(r->syms[0].offset, 1, "exited child: offset");
		CHECK(r->syms[1].name && contains(r->syms[1].name, "getpid"),
		      "exited child: libc function (%s)", r->syms[1].name);
	}
	blaze_syms_free(r);
}

/* file:line from the test binary's own DWARF (built with -g) */
static void test_code_info(void)
{
	blaze_symbolizer_opts o = { .type_size = sizeof(o), .code_info = true };
	blaze_symbolizer *s = blaze_symbolizer_new_opts(&o);
	uint64_t a = (uint64_t)(uintptr_t)&bzs_test_target_fn;
	const blaze_syms *r = sym_pid(s, getpid(), &a, 1);

	if (r && r->cnt == 1 && r->syms[0].name && !r->syms[0].code_info.file) {
		CHECK(1, "# SKIP test binary without DWARF (not built with -g)");
	} else {
		CHECK(r && r->cnt == 1 && r->syms[0].code_info.file &&
		      !strcmp(r->syms[0].code_info.file, "test_symbolizer.c") &&
		      r->syms[0].code_info.line >= 20 && r->syms[0].code_info.line <= 40,
		      "code_info: test_symbolizer.c:%u", r ? r->syms[0].code_info.line : 0);
		CHECK(r && r->syms[0].code_info.dir && contains(r->syms[0].code_info.dir, "unit"),
		      "code_info dir (%s)", r ? r->syms[0].code_info.dir : "-");
	}
	blaze_syms_free(r);
	blaze_symbolizer_free(s);
}

static const blaze_syms *sym_image(blaze_symbolizer *s, uint64_t image, const uint64_t *a,
				   size_t n)
{
	blaze_symbolize_src_process src = {
		.type_size = sizeof(src), .pid = (uint32_t)getpid(), .image = image,
	};

	return blaze_symbolize_process_abs_addrs(s, &src, a, n);
}

static blaze_err cache_image(blaze_symbolizer *s, uint64_t image)
{
	blaze_cache_src_process c = {
		.type_size = sizeof(c), .pid = (uint32_t)getpid(), .image = image,
	};

	return blaze_symbolize_cache_process(s, &c);
}

/* Image exec of a process that started in the middle of clock tick ticks
 * (/proc/PID/stat), as the kernel half makes it (bpf/announce.h) */
static uint64_t image_at(uint64_t ticks, uint64_t exec)
{
	uint64_t q = 1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK), ns = ticks * q + q / 2;

	return (ns >> BLAZE_IMAGE_START_SHIFT << BLAZE_IMAGE_EXEC_BITS) | exec;
}

/* Images: each keeps the mappings it was captured with; a mapping made
 * after image 1 was replaced by image 2 is not image 1's */
static void test_images(void)
{
	blaze_symbolizer *s = blaze_symbolizer_new();
	uint64_t a[2] = { (uint64_t)(uintptr_t)&bzs_test_target_fn, 0 }, t0 = 0;
	const blaze_syms *r;
	void *m;
	int fd;

	CHECK(bzs_proc_start_ticks(getpid(), &t0), "our start time from /proc/self/stat");
	CHECK(bzs_image_started_at(image_at(t0, 3), t0) &&
	      !bzs_image_started_at(image_at(t0 + 1, 3), t0) &&
	      !bzs_image_started_at(image_at(t0 - 1, 3), t0),
	      "an image's start time is matched to the tick");
	CHECK(cache_image(s, 0) == BLAZE_ERR_OK, "capture before the image is known");
	CHECK(cache_image(s, image_at(t0, 1)) == BLAZE_ERR_OK, "image 1 takes that capture over");
	fd = open(self_exe, O_RDONLY | O_CLOEXEC);
	m = fd >= 0 ? mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	CHECK(m != MAP_FAILED, "a new executable mapping");
	if (fd >= 0)
		close(fd);
	if (m == MAP_FAILED) {
		blaze_symbolizer_free(s);
		return;
	}
	a[1] = (uint64_t)(uintptr_t)m + 16;
	CHECK(cache_image(s, image_at(t0, 2)) == BLAZE_ERR_OK, "image 2 captured after it");
	r = sym_image(s, image_at(t0, 1), a, 2);
	CHECK(r && r->cnt == 2, "image 1: one result per address");
	if (r && r->cnt == 2) {
		CHECK_STR(r->syms[0].name, "bzs_test_target_fn", "image 1 keeps its names");
		CHECK(!r->syms[1].module && r->syms[1].reason == BLAZE_SYMBOLIZE_REASON_UNMAPPED,
		      "image 1 does not see the mapping of image 2 (%s)",
		      blaze_symbolize_reason_str(r->syms[1].reason));
	}
	blaze_syms_free(r);
	r = sym_image(s, image_at(t0, 2), a, 2);
	CHECK(r && r->cnt == 2 && r->syms[1].module &&
	      contains(r->syms[1].module, "test_symbolizer"),
	      "image 2 has the new mapping (%s)", r && r->cnt == 2 ? r->syms[1].module : "-");
	blaze_syms_free(r);
	r = sym_image(s, 0, a, 2);
	CHECK(r && r->cnt == 2 && r->syms[1].module, "image 0: the latest");
	blaze_syms_free(r);
	CHECK(cache_image(s, image_at(t0, 1)) == BLAZE_ERR_NOT_FOUND,
	      "an older image cannot be captured again (/proc shows the later one)");
	r = sym_image(s, image_at(t0, 1), a, 1);
	CHECK(r && r->cnt == 1 && r->syms[0].name, "and it keeps what it had");
	blaze_syms_free(r);
	cache_image(s, image_at(t0, 7));
	r = sym_image(s, image_at(t0, 5), a, 1);
	CHECK(r && r->cnt == 1 && !r->syms[0].name,
	      "an image never captured and older than a known one: not named from the later one");
	blaze_syms_free(r);
	munmap(m, 4096);
	blaze_symbolizer_free(s);
}

/* Is our function bzs_test_target_fn named in image of our pid?  The
 * reason of the look-up in *why (-1: no result) */
static bool named_in(blaze_symbolizer *s, uint64_t image, int *why)
{
	uint64_t a = (uint64_t)(uintptr_t)&bzs_test_target_fn;
	const blaze_syms *r = sym_image(s, image, &a, 1);
	bool named = r && r->cnt == 1 && r->syms[0].name &&
		     !strcmp(r->syms[0].name, "bzs_test_target_fn");

	*why = r && r->cnt == 1 ? (int)r->syms[0].reason : -1;
	blaze_syms_free(r);
	return named;
}

/* PID reuse: an image of another process with our pid (one that started
 * before us, or after) is never named with our mappings: not by reading
 * /proc/self, not from a capture made before the image was known */
static void test_pid_reuse(void)
{
	uint64_t t0 = 0, before, after;
	blaze_symbolizer *s;
	int why;

	if (!bzs_proc_start_ticks(getpid(), &t0))
		return;
	before = image_at(t0 - 100, 1);
	after = image_at(t0 + 100, 1);
	s = blaze_symbolizer_new();
	CHECK(!named_in(s, before, &why) && why == BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR,
	      "an image of an earlier process with our pid: /proc/self is not read for it (%s)",
	      why >= 0 ? blaze_symbolize_reason_str(why) : "-");
	CHECK(cache_image(s, before) == BLAZE_ERR_NOT_FOUND,
	      "nor captured for it (another process has the pid)");
	CHECK(!named_in(s, before, &why), "and it stays unnamed");
	blaze_symbolizer_free(s);

	s = blaze_symbolizer_new();
	CHECK(cache_image(s, 0) == BLAZE_ERR_OK, "capture before any image is known");
	CHECK(!named_in(s, after, &why), "a later process with the pid is not named from that capture");
	CHECK(named_in(s, image_at(t0, 4), &why), "our own image is named from that capture");
	CHECK(cache_image(s, after) == BLAZE_ERR_NOT_FOUND,
	      "a capture for the later process finds ours: refused");
	CHECK(!named_in(s, after, &why), "and that process stays unnamed");
	blaze_symbolizer_free(s);
}

int main(int argc, char **argv)
{
	blaze_symbolizer *s;

	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child_main(atoi(argv[2]));
	if (strchr(argv[0], '/'))
		self_exe = argv[0]; /* not /proc/self/exe: that is valgrind under valgrind */
	if (unit_tmpdir(tmpdir, sizeof(tmpdir), "bzs-test"))
		return 1;
	s = blaze_symbolizer_new();
	CHECK(s != NULL, "blaze_symbolizer_new");
	test_self(s);
	test_elf_direct();
	test_elf_mapped(s);
	check_vdso(s, getpid(), "own process (AT_SYSINFO_EHDR)");
	test_kallsyms_fixture(s);
	test_kallsyms_preload();
	test_kallsyms_real(s);
	test_bad_pid(s);
	test_cached_child(s);
	test_images();
	test_pid_reuse();
	test_code_info();
	blaze_symbolizer_free(s);
	unit_tmpdir_remove(tmpdir);
	return unit_exit();
}
