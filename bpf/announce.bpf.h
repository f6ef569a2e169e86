/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Telling user space about processes whose user stacks were recorded, so
 * that their frames can still be named after they exit (bpf/announce.h).
 * The includer gets two maps: "announced" (tgids already sent) and
 * "announce_rb" (the ring buffer to poll; user space calls
 * stacksym_cache_pid() for each event). */
#ifndef SUITE_ANNOUNCE_BPF_H
#define SUITE_ANNOUNCE_BPF_H

#include "announce.h"
#include "losses.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} announced SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} announce_rb SEC(".maps");

/* Once per tgid, with its image (exec_id: the mappings the stacks were
 * taken in); with the exec programs below, an exec forgets the tgid, so
 * the new image is announced too.  A full ring buffer is counted and
 * retried next time */
static __always_inline void announce_tgid(__u32 tgid, __u64 exec_id)
{
	struct announce_event *e;
	__u8 one = 1;

	/* a lookup first: an LRU update takes a free node (and may evict)
	 * before it finds the key exists */
	if (bpf_map_lookup_elem(&announced, &tgid) ||
	    bpf_map_update_elem(&announced, &tgid, &one, BPF_NOEXIST))
		return;
	e = bpf_ringbuf_reserve(&announce_rb, sizeof(*e), 0);
	if (!e) {
		loss_inc(LOSS_RINGBUF);
		bpf_map_delete_elem(&announced, &tgid);
		return;
	}
	e->type = ANNOUNCE_EV_NEW_PROCESS;
	e->tgid = tgid;
	e->exec_id = exec_id;
	bpf_ringbuf_submit(e, 0);
}

/* After exec the process maps other files: announce it again */
static __always_inline void announce_forget(__u32 tgid)
{
	bpf_map_delete_elem(&announced, &tgid);
}

/* The sched_process_exec programs (tp_btf and raw_tp) that do it, for a
 * tool that defines ANNOUNCE_EXEC_PROGRAMS before including this header.
 * ANNOUNCE_EXEC_HOOK(), if defined, runs after (e.g. a generation count). */
#ifdef ANNOUNCE_EXEC_PROGRAMS
#ifndef ANNOUNCE_EXEC_HOOK
#define ANNOUNCE_EXEC_HOOK()
#endif
static __always_inline int announce_exec(void)
{
	announce_forget(bpf_get_current_pid_tgid() >> 32);
	ANNOUNCE_EXEC_HOOK();
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_process_exec_btf)
{
	return announce_exec();
}

SEC("raw_tp/sched_process_exec")
int sched_process_exec_raw(struct bpf_raw_tracepoint_args *ctx)
{
	return announce_exec();
}
#endif

#endif
