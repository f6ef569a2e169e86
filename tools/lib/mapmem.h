/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The kernel memory a tool's maps would pin, checked against the machine
 * before they are created: a size option that would take more than half
 * of the available memory is refused (exit 2), naming the option and the
 * memory, instead of pinning most of the machine's RAM. */
#ifndef SUITE_MAPMEM_H
#define SUITE_MAPMEM_H

#include <stddef.h>
#include <stdint.h>

struct bpf_map;
struct bpf_object;

/* Bytes of kernel memory a map of this shape takes when full (an
 * estimate from the kernel's own layouts: element headers, buckets,
 * per-CPU copies).  ncpus: possible CPUs. */
uint64_t map_mem_estimate(uint32_t type, uint32_t key_size, uint32_t value_size,
			  uint32_t max_entries, uint32_t flags, int ncpus);
/* The same for a map of an opened (not yet loaded) object */
uint64_t map_mem_of(const struct bpf_map *map);

/* map_resize(), noting that option opt (given as value) sized the map,
 * so that map_mem_check() can name it */
void map_resize_opt(struct bpf_map *map, uint32_t entries, const char *opt,
		    uint64_t value);

/* MemAvailable from /proc/meminfo in bytes (SUITE_MEMAVAILABLE_KB
 * overrides it, for tests); 0 if unknown */
uint64_t mem_available(void);

/* Before load: the maps of obj, alone for each option and all together,
 * must fit in half of mem_available(); else exits with EXIT_USAGE:
 * "--stack-storage-size 16777216: the stack map would take 17.4 GB of
 * kernel memory, more than half of the 22.1 GB available". */
void map_mem_check(const struct bpf_object *obj);

/* "17.4 GB", "3.2 MB", "512 kB": decimal units */
void mem_str(uint64_t bytes, char *buf, size_t size);

#endif
