// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "export.h"
#include "agg.h"
#include "bpfload.h"
#include "bpfmaps.h"
#include "collect.h"
#include "events.h"
#include "hashmap.h"
#include "targets.h"
#include "xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define FAULTS "pfwatch_faults_total"
#define WARM "pfwatch_warmup_faults_total"

struct series_key {
	__u32 tgid, tid;
};

struct series {
	__u64 v[2];		/* minor, major */
	char comm[TASK_COMM_LEN];	/* the first seen */
};

struct snap {
	struct hashmap *sum;	/* series_key -> struct series */
	__u64 warm[2];
};

static void add(struct snap *s, const struct pf_key *k, const struct pf_val *v)
{
	struct series_key sk = { k->tgid, k->tid };
	struct series *se;
	bool created;

	if (k->warmup) {
		s->warm[0] += v->minor;
		s->warm[1] += v->major;
		return;
	}
	se = hashmap_get(s->sum, &sk, &created);
	if (created)
		memcpy(se->comm, v->comm, sizeof(se->comm));
	se->v[0] += v->minor;
	se->v[1] += v->major;
}

static void add_one(const void *key, void *val, void *arg)
{
	add(arg, key, val);
}

/* the published values: never lower than before */
static void raise_one(const void *key, void *val, void *arg)
{
	struct pf_export *x = arg;
	const struct series *now = val;
	struct series *pub;
	bool created;

	pub = hashmap_get(x->series, key, &created);
	if (created) {
		memcpy(pub->comm, now->comm, sizeof(pub->comm));
		pub->comm[TASK_COMM_LEN - 1] = 0;
	}
	for (int k = 0; k < 2; k++)
		if (now->v[k] > pub->v[k])
			pub->v[k] = now->v[k];
}

static int read_pending(struct bpf_map *m, struct snap *s)
{
	int n = ncpus_possible(), err = 0;
	struct pf_pending *v;
	__u32 zero = 0;

	if (n <= 0)
		return n;
	v = xcalloc((size_t)n, sizeof(*v));
	if (bpf_map_lookup_elem(bpf_map__fd(m), &zero, v))
		err = -errno;
	for (int c = 0; !err && c < n; c++)
		if (v[c].n)
			add(s, &v[c].key, &v[c].val);
	free(v);
	return err;
}

static void emit_one(const void *key, void *val, void *arg)
{
	const struct series_key *k = key;
	const struct series *se = val;
	static const char *const kinds[2] = { "minor", "major" };
	struct mtext *t = arg;
	char tid[16], pid[16];
	struct mlabel l[4] = { { "tid", tid }, { "pid", pid }, { "comm", se->comm } };

	snprintf(tid, sizeof(tid), "%u", k->tid);
	snprintf(pid, sizeof(pid), "%u", k->tgid);
	for (int i = 0; i < 2; i++) {
		l[3] = (struct mlabel){ "kind", kinds[i] };
		mtext_u64(t, FAULTS, l, 4, se->v[i]);
	}
}

static void memlock(struct mtext *t, const struct targets *ts)
{
	static const char *const names[3] = { "pfwatch_memory_all_locked",
		"pfwatch_memory_locked_bytes", "pfwatch_memory_rss_bytes" };
	static const char *const help[3] = {
		"1 when every mapping mlockall would lock is locked (VmFlags lo)",
		"VmLck of the process", "VmRSS of the process" };

	for (int g = 0; g < 3; g++) {
		mtext_family(t, names[g], "gauge", help[g]);
		for (size_t i = 0; i < ts->n; i++) {
			const struct memlock *m = &ts->t[i].last;
			char pid[16];
			struct mlabel l[2] = { { "pid", pid }, { "comm", ts->t[i].comm } };
			__u64 v = g == 0 ? memlock_all(m) : g == 1 ? m->vmlck_kb * 1024
								  : m->vmrss_kb * 1024;

			if (!m->valid || ts->t[i].ended)
				continue;
			snprintf(pid, sizeof(pid), "%u", ts->t[i].pid);
			mtext_u64(t, names[g], l, 2, v);
		}
	}
}

/* The kernel's count of our events, then what the program saw of them:
 * read in this order, a fault counted by the kernel whose program has not
 * yet run is not taken for lost */
static void not_seen(struct pf_export *x)
{
	__u64 kernel, seen = 0;

	if (!x->count_missed)
		return;
	kernel = fault_events_count(x->ev);
	for (__u32 k = PF_STAT_MAJOR; k <= PF_STAT_DUP; k++)
		seen += percpu_u64_sum(x->stats, k);
	if (kernel > seen && kernel - seen > x->not_seen)
		x->not_seen = kernel - seen;
}

void pf_export_render(struct mtext *t, void *ctx)
{
	struct pf_export *x = ctx;
	struct snap s = { .sum = hashmap_new(sizeof(struct series_key), sizeof(struct series)) };
	static const char *const names[] = { "snapshot_read_failed", "faults_not_seen" };
	struct mlabel l = { "kind", "minor" };
	__u64 losses[LOSS_KINDS], own[2];

	if (!x->series)
		x->series = hashmap_new(sizeof(struct series_key), sizeof(struct series));
	hashmap_each(agg_table(x->counts), add_one, &s);
	if (x->c->dw_recs)	/* each a struct dw_rec, its pf_val first */
		hashmap_each(x->c->dw_recs, add_one, &s);
	if (read_pending(x->pending, &s))
		x->read_failed++;
	hashmap_each(s.sum, raise_one, x);
	for (int k = 0; k < 2; k++)
		if (s.warm[k] > x->warm[k])
			x->warm[k] = s.warm[k];
	hashmap_free(s.sum);

	mtext_family(t, FAULTS, "counter", "Page faults after the warm-up, by thread and "
		     "kind (minor, major)");
	hashmap_each(x->series, emit_one, t);
	mtext_family(t, WARM, "counter", "Page faults in the warm-up, by kind");
	mtext_u64(t, WARM, &l, 1, x->warm[0]);
	l.value = "major";
	mtext_u64(t, WARM, &l, 1, x->warm[1]);
	memlock(t, x->targets);
	losses_read(x->losses, losses);
	not_seen(x);
	own[0] = x->read_failed;
	own[1] = x->not_seen;
	exporter_common(x->e, t, losses, names, own, 2);
}

void pf_export_free(struct pf_export *x)
{
	hashmap_free(x->series);
	x->series = NULL;
	exporter_close(x->e);
	x->e = NULL;
}
