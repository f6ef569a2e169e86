/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Telling user space about processes whose user stacks were recorded, so
 * that their frames can still be named after they exit (bpf/announce.h).
 * The includer gets two maps: "announced" (tgids already sent) and
 * "announce_rb" (the ring buffer to poll; user space calls
 * stacksym_cache_pid() for each event). */
#ifndef SUITE_ANNOUNCE_BPF_H
#define SUITE_ANNOUNCE_BPF_H

#include "announce.h"
#include "image.bpf.h"
#include "losses.bpf.h"
#include "rbguard.bpf.h"
#include "maps.bpf.h"
#include "tp.bpf.h"

LRU_HASH_MAP(announced, __u32, __u8, 16384);
RINGBUF_MAP(announce_rb, 256 * 1024);

/* Room on announce_rb for an event of size bytes about key, when key is
 * new in map seen (a map of __u8, then holding it): NULL if it was there
 * already, or if the ring buffer is full (counted, and key removed again
 * so that the next event retries).  The caller fills and submits it. */
static __always_inline void *announce_reserve(void *seen, const void *key, __u64 size)
{
	void *e;
	__u8 one = 1;

	if (bpf_map_update_elem(seen, key, &one, BPF_NOEXIST))
		return NULL;
	e = rb_reserve(&announce_rb, size, LOSS_RINGBUF);
	if (!e)
		bpf_map_delete_elem(seen, key);
	return e;
}

/* announce_reserve() for an event that begins as struct announce_event,
 * with that part filled in; the caller fills the rest and submits it */
static __always_inline void *announce_begin(void *seen, const void *key, __u64 size,
					    __u32 type, __u32 tgid, __u64 exec_id)
{
	struct announce_event *e = announce_reserve(seen, key, size);

	if (e) {
		e->type = type;
		e->tgid = tgid;
		e->exec_id = exec_id;
	}
	return e;
}

/* Once per tgid, with its image (task_image(): the process instance and
 * exec whose mappings the stacks were taken in); with the exec programs below, an exec forgets the tgid, so
 * the new image is announced too.  A full ring buffer is counted and
 * retried next time */
static __always_inline void announce_tgid(__u32 tgid, __u64 exec_id)
{
	struct announce_event *e;

	/* a lookup first: an LRU update takes a free node (and may evict)
	 * before it finds the key exists */
	if (bpf_map_lookup_elem(&announced, &tgid))
		return;
	e = announce_begin(&announced, &tgid, sizeof(*e), ANNOUNCE_EV_NEW_PROCESS,
			   tgid, exec_id);
	if (e)
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

TP_PROGRAMS(sched_process_exec, announce_exec())
#endif

#endif
