/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The maps every tool's BPF object shares, from user space: the target
 * filter (bpf/filter.bpf.h), the loss counters (bpf/losses.bpf.h) and
 * sums of per-CPU counters */
#ifndef SUITE_BPFMAPS_H
#define SUITE_BPFMAPS_H

#include <linux/types.h>
#include <stdbool.h>
#include "filter.h"
#include "losses.h"
#include "opts.h"

struct bpf_map;

/* Before load: the rodata filter and the sizes of its maps */
void filter_configure(volatile struct target_filter *tf, struct bpf_map *tgids,
		      struct bpf_map *tids, struct bpf_map *cpus,
		      const struct common_opts *o);
/* After load: fill the maps; returns 0 or a negative errno.  Each -p and
 * -t target goes in with its identity (common_opts: id_list.who) */
int filter_fill(struct bpf_map *tgids, struct bpf_map *tids,
		struct bpf_map *cpus, const struct common_opts *o);

/* Sum over the CPUs of a per-CPU array's __u64 value at key (0 if
 * unreadable) */
__u64 percpu_u64_sum(struct bpf_map *m, __u32 key);
/* Sum of the per-CPU loss counters */
void losses_read(struct bpf_map *losses, __u64 out[LOSS_KINDS]);
/* Prints one stderr line per non-zero counter, with the option that
 * would avoid it; returns the total.  hints[kind] may be NULL. */
__u64 losses_report(const __u64 l[LOSS_KINDS], const char *const hints[LOSS_KINDS]);
/* The counters as JSON keys, {"stack_ring_full":..,...}, into an object
 * the caller opened (envelope_losses() writes the "losses" object) */
struct json;
void losses_json_fields(struct json *j, const __u64 l[LOSS_KINDS]);
/* Name of a loss kind, for JSON: "stack_ring_full", ... */
const char *loss_name(int kind);

#endif
