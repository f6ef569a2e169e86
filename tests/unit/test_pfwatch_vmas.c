// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What pfwatch names mappings and the memory-locking state with
 * (tools/pfwatch/vmas.c, tools/pfwatch/memlock.c), on this very process. */
#include "unit.h"
#include "vmas.h"
#include "memlock.h"
#include "procfs.h"

#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

static void test_parse(void)
{
	char l1[] = "7f0000000000-7f0000021000 rw-p 00000000 00:00 0 \n";
	char l2[] = "55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0                          [heap]\n";
	char l3[] = "7f1000000000-7f1000002000 r--p 00001000 fe:01 1234   /opt/my app/lib x.so (deleted)\n";
	char l4[] = "Size:                132 kB\n";
	char l5[] = "AnonHugePages:         0 kB\n";
	uint64_t s, e;
	const char *n;

	CHECK(!proc_maps_line(l1, &s, &e, &n), "anonymous line parses");
	CHECK_U64(s, 0x7f0000000000ull, "start");
	CHECK_U64(e, 0x7f0000021000ull, "end");
	CHECK_STR(n, "[anon]", "no name: [anon]");
	CHECK(!proc_maps_line(l2, &s, &e, &n), "heap line parses");
	CHECK_STR(n, "[heap]", "[heap] named");
	CHECK(!proc_maps_line(l3, &s, &e, &n), "file line parses");
	CHECK_STR(n, "/opt/my app/lib x.so (deleted)", "a path with spaces is whole");
	CHECK(proc_maps_line(l4, &s, &e, &n), "smaps field lines are not mappings");
	CHECK(proc_maps_line(l5, &s, &e, &n), "a field starting with hex letters is not a mapping");
}

/* initialised: in .data, inside the file's mapping (a zeroed global is in
 * .bss, which past the file's last page is an anonymous mapping: so under
 * the sanitizer build, whose .bss is larger) */
static int in_data = 1;

static void test_self(void)
{
	struct vmas *v = vmas_new();
	uint32_t pid = getpid();
	int on_stack = 0;
	const struct vma_ent *m;
	size_t len = 4 * 4096;
	char *r;
	int fd;

	CHECK(vmas_find(v, pid, 0, (uint64_t)(uintptr_t)&on_stack) == NULL,
	      "nothing known before a capture");
	CHECK(vmas_capture(v, pid, 0) == 0, "capture of this process");
	CHECK(vmas_capture(v, 0x7ffffff0, 0) == -1, "capture of a process that does not exist fails");
	m = vmas_find(v, pid, 0, (uint64_t)(uintptr_t)&on_stack);
	CHECK_STR(m ? m->name : NULL, "[stack]", "a local variable is on [stack]");
	m = vmas_find(v, pid, 0, (uint64_t)(uintptr_t)&in_data);
	CHECK(m && strstr(m->name, "test_pfwatch_vmas"), "a global is in the test's own file");
	CHECK(vmas_find(v, pid, 0, 16) == NULL, "page 0 is not mapped");
	CHECK(vmas_find(v, pid + 1, 0, (uint64_t)(uintptr_t)&on_stack) == NULL,
	      "another pid knows nothing");

	/* a mapping made after the capture, then gone, then replaced */
	r = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(r != MAP_FAILED, "mmap");
	vmas_capture(v, pid, 0);
	m = vmas_find(v, pid, 0, (uint64_t)(uintptr_t)r + 4096);
	CHECK_STR(m ? m->name : NULL, "[anon]", "known after a new capture");
	munmap(r, len);
	vmas_capture(v, pid, 0);
	m = vmas_find(v, pid, 0, (uint64_t)(uintptr_t)r + 4096);
	CHECK_STR(m ? m->name : NULL, "[anon]", "still named once unmapped (the last seen there)");
	fd = memfd_create("pfw_unit", 0);
	CHECK(fd >= 0 && ftruncate(fd, len) == 0, "memfd");
	CHECK(mmap(r, len, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == r, "a file mapped there");
	vmas_capture(v, pid, 0);
	m = vmas_find(v, pid, 0, (uint64_t)(uintptr_t)r + 4096);
	CHECK(m && strstr(m->name, "memfd:pfw_unit"), "the newer mapping replaces the older: %s",
	      m ? m->name : "(none)");
	munmap(r, len);
	close(fd);
	vmas_free(v);
}

static void test_memlock(void)
{
	struct memlock m;

	CHECK(memlock_read(getpid(), &m), "memlock of this process");
	CHECK(m.valid && m.vmas > 0, "mappings counted (%u)", m.vmas);
	CHECK_U64(m.locked, 0, "none locked");
	CHECK_U64(m.vmlck_kb, 0, "VmLck 0");
	CHECK(m.vmrss_kb > 0, "VmRSS read");
	CHECK_STR(memlock_verdict(&m), "memory is not locked", "verdict");
	CHECK(!memlock_all(&m), "mlockall not in effect");
	m.locked = m.vmas;
	m.vmlck_kb = 100;
	CHECK_STR(memlock_verdict(&m), "mlockall appears to be in effect", "all locked");
	m.locked = 1;
	CHECK(strstr(memlock_verdict(&m), "part of the memory is locked") != NULL, "some locked");
	CHECK(!memlock_read(0x7ffffff0, &m), "a process that does not exist");
}

/* Images: an exec gives a process other mappings; each image keeps its own */
static void test_images(void)
{
	struct vmas *v = vmas_new();
	uint32_t pid = getpid();
	uint64_t here = (uint64_t)(uintptr_t)&test_images;
	size_t len = 8 * 4096;
	const struct vma_ent *m;
	char *r;

	CHECK(vmas_capture(v, pid, 0) == 0, "capture before the image is known");
	CHECK(vmas_find(v, pid, 5, here) != NULL, "an image without a capture: from image 0");
	CHECK(vmas_capture(v, pid, 5) == 0, "image 5 takes image 0 over");
	CHECK(vmas_find(v, pid, 0, here) == NULL, "image 0 is gone");
	CHECK(vmas_find(v, pid, 5, here) != NULL, "image 5 has it");
	r = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(r != MAP_FAILED, "mmap");
	CHECK(vmas_capture(v, pid, 6) == 0, "image 6 captured after a new mapping");
	m = vmas_find(v, pid, 6, (uint64_t)(uintptr_t)r + 4096);
	CHECK_STR(m ? m->name : NULL, "[anon]", "image 6 has the new mapping");
	CHECK(vmas_find(v, pid, 5, (uint64_t)(uintptr_t)r + 4096) == NULL,
	      "image 5 does not (mapped after it)");
	munmap(r, len);
	vmas_free(v);
}

int main(void)
{
	test_parse();
	test_self();
	test_images();
	test_memlock();
	return unit_exit();
}
