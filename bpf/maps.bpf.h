/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The map shapes the tools declare, one macro each, so that a kernel half
 * reads as a list of its maps: NAME, key and value types, entries.  The
 * name is the one the skeleton gives user space (skel->maps.NAME).  An
 * entry count of 1 means "sized by user space" (bpf_map__set_max_entries
 * before load); the call site says from which option. */
#ifndef SUITE_MAPS_BPF_H
#define SUITE_MAPS_BPF_H

/* A map with key and value types; the extra arguments, if any, are more
 * fields (e.g. __uint(map_flags, ...);) */
#define KV_MAP(_name, _type, _key, _value, _entries, ...)		\
	struct {							\
		__uint(type, _type);					\
		__VA_ARGS__						\
		__uint(max_entries, _entries);				\
		__type(key, _key);					\
		__type(value, _value);					\
	} _name SEC(".maps")

#define HASH_MAP(name, key, value, entries)				\
	KV_MAP(name, BPF_MAP_TYPE_HASH, key, value, entries)

/* values allocated on first use: for large values or sparse keys */
#define HASH_MAP_NO_PREALLOC(name, key, value, entries)		\
	KV_MAP(name, BPF_MAP_TYPE_HASH, key, value, entries,		\
	       __uint(map_flags, BPF_F_NO_PREALLOC);)

#define LRU_HASH_MAP(name, key, value, entries)			\
	KV_MAP(name, BPF_MAP_TYPE_LRU_HASH, key, value, entries)

#define PERCPU_HASH_MAP(name, key, value, entries)			\
	KV_MAP(name, BPF_MAP_TYPE_PERCPU_HASH, key, value, entries)

/* arrays are indexed by a __u32 */
#define ARRAY_MAP(name, value, entries)					\
	KV_MAP(name, BPF_MAP_TYPE_ARRAY, __u32, value, entries)

#define PERCPU_ARRAY_MAP(name, value, entries)				\
	KV_MAP(name, BPF_MAP_TYPE_PERCPU_ARRAY, __u32, value, entries)

#define RINGBUF_MAP(_name, bytes)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_RINGBUF);			\
		__uint(max_entries, bytes);				\
	} _name SEC(".maps")

/* Adds one to counter kind of a per-CPU array of __u64 counters (user
 * space sums the CPUs); a kind out of range is ignored */
static __always_inline void counter_inc(void *counters, __u32 kind)
{
	__u64 *v = bpf_map_lookup_elem(counters, &kind);

	if (v)
		(*v)++;
}

/* A per-CPU array of kinds __u64 counters, and inc(kind) to count one */
#define COUNTER_MAP(name, kinds, inc)					\
	PERCPU_ARRAY_MAP(name, __u64, kinds);				\
	static __always_inline void inc(__u32 kind)			\
	{								\
		counter_inc(&name, kind);				\
	}

#endif
