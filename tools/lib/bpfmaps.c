// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "bpfmaps.h"
#include "msg.h"
#include "bpfload.h"
#include "json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static void ident_of(const struct id_list *l, size_t i, struct target_ident *id)
{
	uint64_t lo, hi;

	memset(id, 0, sizeof(*id));
	if (!l->who)
		return;		/* an empty range: nothing matches */
	id->tgid = l->who[i].tgid;
	task_id_start_ns(&l->who[i], &lo, &hi);
	id->start_lo = lo;
	id->start_hi = hi;
}

void filter_configure(volatile struct target_filter *tf, struct bpf_map *tgids,
		      struct bpf_map *tids, struct bpf_map *cpus,
		      const struct common_opts *o)
{
	struct target_ident id;

	tf->by_pid = o->pids.n > 0;
	tf->by_tid = o->tids.n > 0;
	tf->by_cpu = o->cpus.n > 0;
	tf->one_tgid = o->pids.n == 1 ? o->pids.ids[0] : 0;
	tf->one_tid = o->tids.n == 1 ? o->tids.ids[0] : 0;
	if (tf->one_tgid) {
		ident_of(&o->pids, 0, &id);
		tf->one_pid_ident.tgid = id.tgid;
		tf->one_pid_ident.start_lo = id.start_lo;
		tf->one_pid_ident.start_hi = id.start_hi;
	}
	if (tf->one_tid) {
		ident_of(&o->tids, 0, &id);
		tf->one_tid_ident.tgid = id.tgid;
		tf->one_tid_ident.start_lo = id.start_lo;
		tf->one_tid_ident.start_hi = id.start_hi;
	}
	map_resize(tgids, o->pids.n ? o->pids.n : 1);
	map_resize(tids, o->tids.n ? o->tids.n : 1);
	map_resize(cpus, ncpus_possible());
}

static int fill_ids(struct bpf_map *m, const struct id_list *l)
{
	struct target_ident id;

	for (size_t i = 0; i < l->n; i++) {
		int err;

		ident_of(l, i, &id);
		err = bpf_map__update_elem(m, &l->ids[i], sizeof(__u32), &id,
					   sizeof(id), BPF_ANY);
		if (err)
			return err;
	}
	return 0;
}

int filter_fill(struct bpf_map *tgids, struct bpf_map *tids,
		struct bpf_map *cpus, const struct common_opts *o)
{
	__u8 one = 1;
	int err;

	err = fill_ids(tgids, &o->pids);
	if (!err)
		err = fill_ids(tids, &o->tids);
	for (size_t i = 0; !err && i < o->cpus.n; i++)
		err = bpf_map__update_elem(cpus, &o->cpus.cpus[i], sizeof(__u32),
					   &one, sizeof(one), BPF_ANY);
	return err;
}

void losses_read(struct bpf_map *losses, __u64 out[LOSS_KINDS])
{
	for (__u32 k = 0; k < LOSS_KINDS; k++)
		out[k] = percpu_u64_sum(losses, k);
}

__u64 percpu_u64_sum(struct bpf_map *m, __u32 key)
{
	int n = ncpus_possible();
	__u64 *vals = calloc(n, sizeof(__u64)), sum = 0;

	if (vals && !bpf_map__lookup_elem(m, &key, sizeof(key), vals, n * sizeof(__u64), 0))
		for (int c = 0; c < n; c++)
			sum += vals[c];
	free(vals);
	return sum;
}

/* Each kind of loss: its JSON name and what the report says of it */
static const struct loss_desc {
	const char *name;	/* "stack_ring_full" */
	const char *text;	/* "stacks lost to hash collisions ..." */
} loss_kinds[LOSS_KINDS] = {
	[LOSS_STACK_RING] = { "stack_ring_full", "stacks lost: the stack ring buffer was full" },
	[LOSS_STACK_BUSY] = { "stack_nested", "stacks lost: taken by programs nested too deeply" },
	[LOSS_USTACK] = { "user_stack_unreadable", "user stacks could not be read" },
	[LOSS_KSTACK] = { "kernel_stack_unreadable", "kernel stacks could not be read" },
	[LOSS_AGG_FULL] = { "aggregation_map_full", "events lost: aggregation map full" },
	[LOSS_START_FULL] = { "inflight_map_full", "intervals lost: in-flight map full" },
	[LOSS_RINGBUF] = { "ringbuf_full", "events lost: ring buffer full" },
	[LOSS_OTHER] = { "map_update_failed", "map updates failed" },
	[LOSS_NOMEM] = { "no_kernel_memory", "map elements could not be allocated: no kernel memory" },
	[LOSS_HIST_FULL] = { "histogram_map_full", "latency samples lost: histogram map full" },
	[LOSS_END_UNSEEN] = { "interval_end_unseen", "intervals lost: the kernel reported no switch-in of the thread, which ran more than once before it was seen again" },
	[LOSS_RB_NESTED] = { "ringbuf_nested", "events lost: an interrupt came while its CPU reserved ring-buffer space, which this kernel (PREEMPT_RT before 6.0) cannot nest" },
};

const char *loss_name(int kind)
{
	return kind >= 0 && kind < LOSS_KINDS ? loss_kinds[kind].name : "unknown";
}

__u64 losses_report(const __u64 l[LOSS_KINDS], const char *const hints[LOSS_KINDS])
{
	__u64 total = 0;

	for (int k = 0; k < LOSS_KINDS; k++) {
		if (!l[k])
			continue;
		total += l[k];
		msg_warn("%llu %s%s%s", (unsigned long long)l[k], loss_kinds[k].text,
			 hints && hints[k] ? "; " : "",
			 hints && hints[k] ? hints[k] : "");
	}
	return total;
}

void losses_json_fields(struct json *j, const __u64 l[LOSS_KINDS])
{
	for (int k = 0; k < LOSS_KINDS; k++)
		json_kv_u64(j, loss_name(k), l[k]);
}
