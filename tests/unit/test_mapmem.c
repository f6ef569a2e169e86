// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel memory of a map, estimated from its shape, and the machine's
 * available memory (SUITE_MEMAVAILABLE_KB). */
#include "unit.h"
#include "mapmem.h"
#include <stdlib.h>
#include <linux/bpf.h>

int main(void)
{
	char buf[32];
	uint64_t m;

	/* stack map: 2^24 buckets of 8 bytes and 2^24 elements of a
	 * 16-byte header and 127 frames */
	m = map_mem_estimate(BPF_MAP_TYPE_STACK_TRACE, 4, 127 * 8, 1 << 24, 0, 2);
	CHECK_U64(m, (1ull << 24) * 8 + (1ull << 24) * (16 + 1016),
		  "stack map of 16777216 entries");
	mem_str(m, buf, sizeof(buf));
	CHECK_STR(buf, "17.4 GB", "and it reads as 17.4 GB");
	/* buckets round up to a power of two, elements do not */
	CHECK_U64(map_mem_estimate(BPF_MAP_TYPE_STACK_TRACE, 4, 1016, 100000, 0, 2),
		  131072ull * 8 + 100000ull * 1032, "stack map of 100000 entries");
	/* hash: header, rounded key and value, one spare element per CPU */
	CHECK_U64(map_mem_estimate(BPF_MAP_TYPE_HASH, 4, 12, 1000, 0, 2),
		  1002ull * (48 + 8 + 16) + 1024 * 16, "preallocated hash");
	CHECK_U64(map_mem_estimate(BPF_MAP_TYPE_HASH, 4, 4096, 1000, BPF_F_NO_PREALLOC, 2),
		  1000ull * (48 + 8 + 4096) + 1024 * 16, "hash without prealloc, when full");
	CHECK_U64(map_mem_estimate(BPF_MAP_TYPE_LRU_HASH, 8, 8, 1000, 0, 2),
		  1000ull * (48 + 8 + 8) + 1024 * 16, "LRU hash: no spare elements");
	/* per-CPU values: a pointer in the element, a copy per CPU */
	CHECK_U64(map_mem_estimate(BPF_MAP_TYPE_PERCPU_HASH, 8, 8, 1000, 0, 4),
		  1004ull * (48 + 8 + 8) + 1024 * 16 + 1004ull * 8 * 4,
		  "per-CPU hash");
	CHECK_U64(map_mem_estimate(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 12, 10, 0, 4),
		  10ull * (8 + 16 * 4), "per-CPU array");
	CHECK_U64(map_mem_estimate(BPF_MAP_TYPE_ARRAY, 4, 12, 10, 0, 4), 160,
		  "array");
	CHECK_U64(map_mem_estimate(BPF_MAP_TYPE_RINGBUF, 0, 0, 1 << 30, 0, 4),
		  (1ull << 30) + (1ull << 30) / 4096 * 8, "ring buffer of 1 GiB");
	CHECK_U64(map_mem_estimate(BPF_MAP_TYPE_TASK_STORAGE, 4, 64, 0, BPF_F_NO_PREALLOC, 4),
		  0, "task storage is not sized by entries");

	mem_str(999, buf, sizeof(buf));
	CHECK_STR(buf, "1 kB", "999 bytes");
	mem_str(3200000, buf, sizeof(buf));
	CHECK_STR(buf, "3.2 MB", "3.2 MB");
	mem_str(4466800000000ull, buf, sizeof(buf));
	CHECK_STR(buf, "4.5 TB", "4.5 TB");

	setenv("SUITE_MEMAVAILABLE_KB", "1000", 1);
	CHECK_U64(mem_available(), 1024000, "SUITE_MEMAVAILABLE_KB overrides");
	unsetenv("SUITE_MEMAVAILABLE_KB");
	CHECK(mem_available() > 0, "MemAvailable from /proc/meminfo");
	return unit_exit();
}
