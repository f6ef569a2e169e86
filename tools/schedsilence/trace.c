// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include "msg.h"
#include "trace.h"

/* What the slice is called on its track: what ran */
static void slice_name(const struct intruder *r, char *buf, size_t size)
{
	switch (r->kind) {
	case SK_TASK:
		snprintf(buf, size, "%s (%u)", r->name, r->id);
		break;
	case SK_MIGRATION:
		snprintf(buf, size, "migrated in: %s (%u)", r->name, r->id);
		break;
	case SK_IRQ:
		if (r->id != SILENCE_NO_ID)
			snprintf(buf, size, "irq %u: %s", r->id, r->name);
		else
			snprintf(buf, size, "irq: %s", r->name);
		break;
	case SK_SOFTIRQ:
		snprintf(buf, size, "softirq %s", r->name);
		break;
	case SK_TIMER_TICK:
		snprintf(buf, size, "tick (%s)", r->name);
		break;
	case SK_IPI:
		snprintf(buf, size, "IPI %s", r->name);
		break;
	case SK_WORKQUEUE:
		snprintf(buf, size, "work %s", r->name);
		break;
	case SK_HRTIMER:
		snprintf(buf, size, "hrtimer %s", r->name);
		break;
	default:
		snprintf(buf, size, "%s", r->name);
		break;
	}
}

static void slice(struct tracefmt *t, const struct silence *s, const struct timeline_ev *e)
{
	const struct intruder *r = &s->rows[e->row];
	bool instant = r->kind == SK_MIGRATION;
	char name[96];
	struct json *j;

	slice_name(r, name, sizeof(name));
	tracefmt_ev_begin(t, instant ? 'i' : 'X', name, silence_kind_name(r->kind),
			  TRACEFMT_CPU_PID, TRACEFMT_CPU_TID(r->cpu), e->ts);
	if (!instant)
		tracefmt_ev_dur(t, e->dur);
	j = tracefmt_args_begin(t);
	report_json_identity(j, r);
	if (r->kind == SK_TASK)
		json_kv_bool(j, "resumed", e->resumed);
	if (r->kind == SK_MIGRATION)
		json_kv_u64(j, "from_cpu", r->from_cpu);
	json_kv_u64(j, "intruder", e->row);	/* its entry in otherData's intruders */
	tracefmt_args_end(t);
	tracefmt_ev_end(t);
}

void trace_write(const struct report *rp, struct tracefmt *t, const char *path)
{
	const struct silence *s = rp->s;
	struct json *j;

	tracefmt_begin(t);
	tracefmt_process(t, TRACEFMT_CPU_PID, "schedsilence: watched CPUs");
	for (size_t i = 0; i < s->ncpus; i++)
		tracefmt_cpu_track(t, s->cpus[i].cpu);
	for (size_t i = 0; i < s->ntimeline; i++)
		slice(t, s, &s->timeline[i]);
	j = tracefmt_meta_begin(t, &(struct tracefmt_window){
					.start_ns = s->cfg.start_ts, .end_ns = s->cfg.end_ts,
					.realtime_offset_ns = rp->wall_offset });
	json_key(j, "cpus");
	json_arr_begin(j);
	for (size_t i = 0; i < s->ncpus; i++)
		json_u64(j, s->cpus[i].cpu);
	json_arr_end(j);
	json_kv_u64(j, "events_kept", s->ntimeline);
	json_kv_u64(j, "events_not_kept", s->timeline_dropped);
	json_kv_u64(j, "keep_limit", silence_timeline_cap(&s->cfg));
	json_kv_u64(j, "events_lost", rp->total_losses);
	json_key(j, "intruders");
	json_arr_begin(j);
	for (size_t i = 0; i < s->nrows; i++)
		report_json_intruder(j, rp, &s->rows[i]);
	json_arr_end(j);
	tracefmt_close(t);
	if (s->timeline_dropped)
		msg_warn("--trace: %llu intruding events after the first %zu are not in %s",
			 (unsigned long long)s->timeline_dropped, s->ntimeline, path);
}
