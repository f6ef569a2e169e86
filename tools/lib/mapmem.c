// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "mapmem.h"
#include "msg.h"
#include "bpfload.h"
#include "procfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>

/* The kernel's per-element and per-bucket costs (64-bit kernels):
 * struct htab_elem (hash node, LRU node or per-CPU pointer, hash) before
 * the key; struct bucket (list head and lock); struct stack_map_bucket
 * (freelist node, hash, nr) before the frames. */
#define HTAB_ELEM_HDR		48
#define HTAB_BUCKET		16
#define STACK_BUCKET_HDR	16
#define PTR			8

static uint64_t round8(uint64_t v)
{
	return (v + 7) & ~7ull;
}

static uint64_t pow2_up(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

uint64_t map_mem_estimate(uint32_t type, uint32_t key_size, uint32_t value_size,
			  uint32_t max_entries, uint32_t flags, int ncpus)
{
	uint64_t n = max_entries, key = round8(key_size), val = round8(value_size);
	uint64_t elems, elem;
	bool percpu = false, lru = false;

	if (ncpus < 1)
		ncpus = 1;
	switch (type) {
	case BPF_MAP_TYPE_STACK_TRACE:
		/* buckets, rounded up to a power of two, and one preallocated
		 * element (header and frames) per entry */
		return pow2_up(n) * PTR + n * (STACK_BUCKET_HDR + value_size);
	case BPF_MAP_TYPE_PERCPU_HASH:
		percpu = true;
		break;
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		percpu = lru = true;
		break;
	case BPF_MAP_TYPE_LRU_HASH:
		lru = true;
		break;
	case BPF_MAP_TYPE_HASH:
		break;
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_CGROUP_ARRAY:
	case BPF_MAP_TYPE_PROG_ARRAY:
	case BPF_MAP_TYPE_PERF_EVENT_ARRAY:
	case BPF_MAP_TYPE_ARRAY_OF_MAPS:
		return n * (val ? val : PTR);
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return n * (PTR + val * ncpus);
	case BPF_MAP_TYPE_RINGBUF:
	case BPF_MAP_TYPE_USER_RINGBUF:
		/* the data pages, and the array of their pointers */
		return n + n / 4096 * PTR;
	case BPF_MAP_TYPE_TASK_STORAGE:
	case BPF_MAP_TYPE_INODE_STORAGE:
	case BPF_MAP_TYPE_SK_STORAGE:
		return 0;	/* one element per object, not sized by entries */
	default:
		return n * (key + val);
	}
	/* hash maps: the elements (prealloc: max_entries plus one spare per
	 * CPU for non-LRU maps; BPF_F_NO_PREALLOC: as many once full), the
	 * buckets, and the per-CPU copies of each value */
	elem = HTAB_ELEM_HDR + key + (percpu ? PTR : val);
	elems = n + (!lru && !(flags & BPF_F_NO_PREALLOC) ? (uint64_t)ncpus : 0);
	return elems * elem + pow2_up(n) * HTAB_BUCKET +
	       (percpu ? elems * val * ncpus : 0);
}

uint64_t map_mem_of(const struct bpf_map *map)
{
	return map_mem_estimate(bpf_map__type(map), bpf_map__key_size(map),
				bpf_map__value_size(map), bpf_map__max_entries(map),
				bpf_map__map_flags(map), ncpus_possible());
}

/* Which option sized which map: a handful per tool */
#define MAX_SIZED 32

static struct sized {
	const struct bpf_map *map;
	const char *opt;
	uint64_t value;
} sized[MAX_SIZED];
static int nsized;

void map_resize_opt(struct bpf_map *map, uint32_t entries, const char *opt,
		    uint64_t value)
{
	map_resize(map, entries);
	for (int i = 0; i < nsized; i++) {
		if (sized[i].map == map) {
			sized[i].opt = opt;
			sized[i].value = value;
			return;
		}
	}
	if (nsized < MAX_SIZED)
		sized[nsized++] = (struct sized){ map, opt, value };
}

uint64_t mem_available(void)
{
	const char *env = getenv("SUITE_MEMAVAILABLE_KB");
	char buf[8192], *p;

	if (env)
		return strtoull(env, NULL, 10) * 1024;
	if (read_small_file("/proc/meminfo", buf, sizeof(buf)) <= 0)
		return 0;
	p = strstr(buf, "MemAvailable:");
	return p ? strtoull(p + 13, NULL, 10) * 1024 : 0;
}

void mem_str(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= 1000000000000ull)
		snprintf(buf, size, "%.1f TB", bytes / 1e12);
	else if (bytes >= 1000000000ull)
		snprintf(buf, size, "%.1f GB", bytes / 1e9);
	else if (bytes >= 1000000)
		snprintf(buf, size, "%.1f MB", bytes / 1e6);
	else
		snprintf(buf, size, "%llu kB", (unsigned long long)(bytes + 999) / 1000);
}

/* The length of the name of an aggregation map's half (bpf/agg.bpf.h:
 * NAME_a, NAME_b, both sized by opt) without its "_a"; -1 for "_b" (said
 * with its "_a"); 0 for any other map */
static int agg_half(int i)
{
	const char *name = bpf_map__name(sized[i].map);
	size_t len = strlen(name);

	if (len < 3 || name[len - 2] != '_' || (name[len - 1] != 'a' && name[len - 1] != 'b'))
		return 0;
	for (int j = 0; j < nsized; j++) {
		const char *other = bpf_map__name(sized[j].map);

		if (j != i && !strcmp(sized[j].opt, sized[i].opt) && strlen(other) == len &&
		    !strncmp(other, name, len - 1) && other[len - 1] != name[len - 1])
			return name[len - 1] == 'a' ? (int)len - 2 : -1;
	}
	return 0;
}

/* What the maps sized by opt are called: "the ring buffer", "map
 * counts", "maps stack_seen and stack_rb", "maps agg, latency and
 * tstates" (the two halves of an aggregation map named once) */
static void maps_desc(const char *opt, char *buf, size_t size)
{
	int n = 0, k = 0, off;

	for (int i = 0; i < nsized; i++)
		n += !strcmp(sized[i].opt, opt) && agg_half(i) >= 0;
	for (int i = 0; i < nsized; i++) {
		int half;

		if (strcmp(sized[i].opt, opt) || (half = agg_half(i)) < 0)
			continue;
		if (half) {
			off = k ? (int)strlen(buf) : 0;
			snprintf(buf + off, size - off, "%s%.*s", !k ? (n == 1 ? "map " : "maps ") :
				 k == n - 1 ? " and " : ", ", half, bpf_map__name(sized[i].map));
			k++;
			continue;
		}
		if (n == 1) {
			uint32_t t = bpf_map__type(sized[i].map);

			if (t == BPF_MAP_TYPE_RINGBUF)
				snprintf(buf, size, "the ring buffer");
			else
				snprintf(buf, size, "map %s", bpf_map__name(sized[i].map));
			return;
		}
		off = k ? (int)strlen(buf) : 0;
		snprintf(buf + off, size - off, "%s%s", !k ? "maps " :
			 k == n - 1 ? " and " : ", ", bpf_map__name(sized[i].map));
		k++;
	}
}

void map_mem_check(const struct bpf_object *obj)
{
	uint64_t avail = mem_available(), limit = avail / 2, total = 0;
	char need[32], have[32], desc[200], opts[300] = "";
	const struct bpf_map *map;
	size_t off = 0;

	if (!avail)
		return;		/* unknown: the kernel will say */
	mem_str(avail, have, sizeof(have));
	/* each option alone first: its name is the most useful answer */
	for (int i = 0; i < nsized; i++) {
		uint64_t sum = 0;
		bool first = true;

		for (int j = 0; j < i && first; j++)
			first = strcmp(sized[j].opt, sized[i].opt);
		if (!first)
			continue;
		for (int j = 0; j < nsized; j++)
			if (!strcmp(sized[j].opt, sized[i].opt))
				sum += map_mem_of(sized[j].map);
		if (sum <= limit)
			continue;
		mem_str(sum, need, sizeof(need));
		maps_desc(sized[i].opt, desc, sizeof(desc));
		die_usage("%s %llu: %s would take %s of kernel memory, more than "
			  "half of the %s available", sized[i].opt,
			  (unsigned long long)sized[i].value, desc, need, have);
	}
	bpf_object__for_each_map(map, obj)
		total += map_mem_of(map);
	if (total <= limit)
		return;
	/* together, then: name every option that sized a map */
	for (int i = 0; i < nsized; i++) {
		bool first = true;

		for (int j = 0; j < i && first; j++)
			first = strcmp(sized[j].opt, sized[i].opt);
		if (first && off < sizeof(opts))
			off += snprintf(opts + off, sizeof(opts) - off, "%s%s %llu",
					off ? " with " : "", sized[i].opt,
					(unsigned long long)sized[i].value);
	}
	mem_str(total, need, sizeof(need));
	die_usage("%s%sthe maps would take %s of kernel memory together, more "
		  "than half of the %s available", opts, *opts ? ": " : "",
		  need, have);
}
