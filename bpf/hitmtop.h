/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* hitmtop: what the BPF program (bpf/hitmtop.bpf.c) and user space
 * (tools/hitmtop/) share. */
#ifndef HITMTOP_H
#define HITMTOP_H

#define HITM_LINE_SIZE	64
#define HITM_MAX_CPUS	512
#define HITM_CPU_WORDS	(HITM_MAX_CPUS / 64)

/* union perf_mem_data_src of linux/perf_event.h, spelled out for the BPF
 * side (vmlinux.h has the union but not the uapi macros) */
#define HITM_DS_OP(v)		((v) & 0x1f)
#define HITM_DS_LVL(v)		(((v) >> 5) & 0x3fff)
#define HITM_DS_SNOOP(v)	(((v) >> 19) & 0x1f)
#define HITM_DS_LVLNUM(v)	(((v) >> 33) & 0xf)
#define HITM_DS_REMOTE(v)	(((v) >> 37) & 0x1)
#define HITM_DS_SNOOPX(v)	(((v) >> 38) & 0x3)
#define HITM_OP_LOAD		0x02
#define HITM_OP_STORE		0x04
#define HITM_LVL_L3		0x40
#define HITM_LVL_REM_CCE1	0x400
#define HITM_LVL_REM_CCE2	0x800
#define HITM_SNOOP_HITM		0x10
#define HITM_SNOOPX_PEER	0x02

/* perf_sample_data.sample_flags bits (enum perf_event_sample_format) */
#define HITM_SAMPLE_ADDR	(1ULL << 3)
#define HITM_SAMPLE_WEIGHT	(1ULL << 14)
#define HITM_SAMPLE_DATA_SRC	(1ULL << 15)
#define HITM_SAMPLE_WEIGHT_STRUCT (1ULL << 24)

/* What a sample is, from its data source; the one decision both halves use */
#define HITM_C_LOAD	0x1
#define HITM_C_STORE	0x2
#define HITM_C_HITM	0x4	/* a load that hit a modified line of another core */
#define HITM_C_REMOTE	0x8	/* ... of another socket */

static inline __u32 hitm_classify(__u64 src)
{
	__u32 op = HITM_DS_OP(src), lvl = HITM_DS_LVL(src), c = 0;

	if (op & HITM_OP_LOAD)
		c |= HITM_C_LOAD;
	if (op & HITM_OP_STORE)
		c |= HITM_C_STORE;
	/* Intel: snoop HITM; AMD: the line came from a peer cache */
	if ((c & HITM_C_LOAD) && ((HITM_DS_SNOOP(src) & HITM_SNOOP_HITM) ||
				  (HITM_DS_SNOOPX(src) & HITM_SNOOPX_PEER))) {
		c |= HITM_C_HITM;
		if (HITM_DS_REMOTE(src) || (lvl & (HITM_LVL_REM_CCE1 | HITM_LVL_REM_CCE2)))
			c |= HITM_C_REMOTE;
	}
	return c;
}

/* Data addresses of user space end below this */
#define HITM_USER_ADDR_END 0x0001000000000000ULL

/* Counts of one cache line, or of one (line, offset, ip) */
struct hitm_counts {
	__u64 hitm;		/* loads that hit a modified line in another core */
	__u64 hitm_local;	/* ... of this socket (LLC) */
	__u64 hitm_remote;	/* ... of another socket */
	__u64 loads;		/* every load sampled (HITM ones included) */
	__u64 stores;
	__u64 cpus[HITM_CPU_WORDS];	/* CPUs that touched it */
	__u64 wcpus[HITM_CPU_WORDS];	/* CPUs that wrote it */
	__u64 hcpus[HITM_CPU_WORDS];	/* CPUs that took a HITM on it */
	/* Threads, for the verdict (a migrating thread is still one): the
	 * first that wrote / took a HITM, and whether another one did too */
	__u32 wtid, htid;
	__u32 wmulti, hmulti;
};

struct hitm_line_key {
	__u32 tgid;
	__u32 pad;
	__u64 line;		/* address & ~63 */
};

struct hitm_off_key {
	__u32 tgid;
	__u32 offset;		/* byte offset in the line */
	__u64 line;
	__u64 ip;
};

/* One sample, streamed when recording (--record) */
struct hitm_sample {
	__u32 type;		/* HITM_EV_* */
	__u32 cpu;
	__u32 pid;
	__u32 tid;
	__u64 ip;
	__u64 addr;
	__u64 data_src;
	__u64 weight;
};

enum hitm_event_type {
	HITM_EV_SAMPLE = 1,
};

/* Samples the program looked at but did not count (not losses) */
enum hitm_skip_kind {
	HITM_SKIP_NO_ADDR,	/* no data address (or not in user space) */
	HITM_SKIP_NO_SRC,	/* the PMU gave no data source */
	HITM_SKIP_NOT_MEM,	/* neither a load nor a store */
	HITM_SKIP_COLD_LOAD,	/* a load without HITM on a line not seen yet */
	HITM_SKIP_KINDS,
};

#endif
