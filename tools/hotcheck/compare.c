// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The verdict of a baseline beside this run's, check by check. */
#include "compare.h"
#include "clock.h"
#include "event.h"
#include "escape.h"
#include "json.h"
#include "msg.h"
#include "xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *hc_change_name(enum hc_change ch)
{
	static const char *const names[] = {
		[HC_SAME] = "same",   [HC_FIXED] = "fixed", [HC_NEW] = "new",
		[HC_BETTER] = "better", [HC_WORSE] = "worse", [HC_NOT_CHECKED] = "not checked now",
	};

	return (unsigned)ch < ARRAY_SIZE(names) ? names[ch] : "?";
}

static enum hc_change change_of(const struct hc_base_check *b, const struct hc_check *a)
{
	if (!a)
		return HC_NOT_CHECKED;
	if (!b || b->silent)
		return a->silent ? HC_SAME : HC_NEW;
	if (a->silent)
		return HC_FIXED;
	if (a->count != b->count)
		return a->count < b->count ? HC_BETTER : HC_WORSE;
	if (a->time_ns != b->time_ns)
		return a->time_ns < b->time_ns ? HC_BETTER : HC_WORSE;
	return HC_SAME;
}

void hc_compare_build(struct hc_compare *c, const struct hc_baseline *b,
		      const struct hc_check *now, size_t n_now)
{
	bool *used = xcalloc(b->n + 1, sizeof(*used));

	*c = (struct hc_compare){ .base = b };
	c->rows = xcalloc(n_now + b->n + 1, sizeof(*c->rows));
	for (size_t i = 0; i < n_now; i++) {
		struct hc_compare_row *r = &c->rows[c->n++];

		*r = (struct hc_compare_row){ .name = now[i].name, .after = &now[i] };
		for (size_t k = 0; k < b->n && !r->before; k++)
			if (!used[k] && !strcmp(b->checks[k].name, now[i].name)) {
				r->before = &b->checks[k];
				used[k] = true;
			}
		r->change = change_of(r->before, r->after);
	}
	for (size_t k = 0; k < b->n; k++)
		if (!used[k])
			c->rows[c->n++] = (struct hc_compare_row){
				.name = b->checks[k].name,
				.before = &b->checks[k],
				.change = HC_NOT_CHECKED,
			};
	free(used);
}

void hc_compare_free(struct hc_compare *c)
{
	free(c->rows);
	*c = (struct hc_compare){ 0 };
}

/* "SILENT", "87 (174.2 ms)", "87", "-" */
static void cell(char *buf, size_t size, bool have, bool silent, uint64_t count, uint64_t t)
{
	char d[32];

	if (!have) {
		snprintf(buf, size, "-");
	} else if (silent) {
		snprintf(buf, size, "SILENT");
	} else if (t) {
		fmt_dur(d, sizeof(d), t, DUR_TEXT);
		snprintf(buf, size, "%" PRIu64 " (%s)", count, d);
	} else {
		snprintf(buf, size, "%" PRIu64, count);
	}
}

void hc_compare_print(FILE *f, const struct hc_compare *c)
{
	char b[64], a[64];

	fprintf(f, "against the baseline %s (hotcheck %s):\n", ESC(c->base->path),
		ESC(c->base->version ? c->base->version : "?"));
	fprintf(f, "%-16s %-22s %-22s %s\n", "CHECK", "BEFORE", "AFTER", "CHANGE");
	for (size_t i = 0; i < c->n; i++) {
		const struct hc_compare_row *r = &c->rows[i];

		cell(b, sizeof(b), r->before, r->before && r->before->silent,
		     r->before ? r->before->count : 0, r->before ? r->before->time_ns : 0);
		cell(a, sizeof(a), r->after, r->after && r->after->silent,
		     r->after ? r->after->count : 0, r->after ? r->after->time_ns : 0);
		fprintf(f, "%s %-22s %-22s %s\n", ESC_COL(r->name, 16), b, a,
			hc_change_name(r->change));
	}
}

static void side_json(struct json *j, const char *key, bool have, bool silent, uint64_t count,
		      uint64_t t)
{
	json_key(j, key);
	if (!have) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_kv_bool(j, "silent", silent);
	json_kv_u64(j, "count", count);
	json_kv_u64(j, "time_ns", t);
	json_obj_end(j);
}

void hc_compare_json(struct json *j, const struct hc_compare *c)
{
	json_key(j, "baseline");
	json_obj_begin(j);
	json_kv_str(j, "file", c->base->path);
	json_kv_str(j, "version", c->base->version ? c->base->version : "");
	json_key(j, "checks");
	json_arr_begin(j);
	for (size_t i = 0; i < c->n; i++) {
		const struct hc_compare_row *r = &c->rows[i];

		json_obj_begin(j);
		json_kv_str(j, "check", r->name);
		side_json(j, "before", r->before, r->before && r->before->silent,
			  r->before ? r->before->count : 0, r->before ? r->before->time_ns : 0);
		side_json(j, "after", r->after, r->after && r->after->silent,
			  r->after ? r->after->count : 0, r->after ? r->after->time_ns : 0);
		json_kv_str(j, "change", hc_change_name(r->change));
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}
