/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* libFuzzer target: hitmtop's replay parser, aggregation and verdict
 * (tools/hitmtop/model.c) and the PMU format parser (tools/hitmtop/pmu.c).
 * The input is a replay file; its first line is also tried as a sysfs
 * format spec.  Invariants are checked with abort().  See run_hitm.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "pmu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_views(const struct hitm_agg *a)
{
	struct hitm_view *v;
	size_t n = hitm_views(a, 0, &v);

	for (size_t i = 0; i < n; i++) {
		const struct hitm_line *l = v[i].l;
		struct hitm_counts sum = { 0 };

		if (!l->c.hitm || l->c.hitm > l->c.loads ||
		    l->c.hitm != l->c.hitm_local + l->c.hitm_remote)
			abort();
		if (i && v[i - 1].l->c.hitm < l->c.hitm)
			abort();	/* most HITMs first */
		for (size_t k = 0; k < v[i].noffs; k++) {
			const struct hitm_offset *o = &v[i].offs[k];
			uint64_t code = 0;

			if (o->offset >= HITM_LINE_SIZE || (k && o->offset <= v[i].offs[k - 1].offset))
				abort();
			for (size_t c = 0; c < o->ncode; c++)
				code += o->code[c].samples;
			if (code != o->c.loads + o->c.stores)
				abort();
			sum.hitm += o->c.hitm;
			sum.loads += o->c.loads;
			sum.stores += o->c.stores;
		}
		/* the line is the sum of its offsets */
		if (sum.hitm != l->c.hitm || sum.loads != l->c.loads || sum.stores != l->c.stores)
			abort();
		if (v[i].verdict > HITM_TRUE_SHARING || !hitm_verdict_str(v[i].verdict))
			abort();
	}
	hitm_views_free(v, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *line, *save = NULL, err[256];
	struct perf_event_attr attr;
	struct hitm_agg a;
	uint64_t parsed = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	memset(&attr, 0, sizeof(attr));
	line = strchr(buf, '\n');
	if (line)
		*line = 0;
	hitm_pmu_apply_format(buf, size, &attr, err, sizeof(err));
	if (line)
		*line = '\n';
	hitm_agg_init(&a);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct hitm_sample s;
		int r = hitm_parse_line(line, &s, err, sizeof(err));

		if (r < -1 || r > 1 || (r < 0 && !err[0]))
			abort();
		if (r == 1) {
			hitm_agg_sample(&a, &s);
			parsed++;
		}
	}
	if (a.samples != parsed)
		abort();
	check_views(&a);
	hitm_agg_free(&a);
	free(buf);
	return 0;
}
