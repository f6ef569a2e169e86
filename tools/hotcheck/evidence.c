// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hotcheck's evidence: what --correlate, --baseline, --pprof and -o add
 * to the verdict, and the report that carries it (evidence.h). */
#include "evidence.h"
#include "collect.h"
#include "msg.h"
#include "offcpu_pprof.h"
#include "opts.h"
#include "pprof.h"
#include "report.h"

#include <string.h>

void hc_evidence_open(struct hc_evidence *ev, const struct hc_evidence_opts *o)
{
	char err[768];

	ev->o = *o;
	if (o->clock_given && !o->correlate)
		die_usage("--clock applies to --correlate's timestamps: give --correlate FILE");
	if (o->correlate && strcmp(o->correlate, "-")) {
		if (hc_requests_read(&ev->rq, o->correlate, o->clock, err, sizeof(err)))
			die_usage("--correlate: %s", err);
		hc_requests_free(&ev->rq);
	}
	if (o->baseline) {
		if (hc_baseline_load(&ev->base, o->baseline, SUITE_VERSION, err, sizeof(err)))
			die_usage("--baseline: %s", err);
		ev->have_base = true;
	}
	if (o->pprof)
		ev->pprof = pprof_open(o->pprof, o->c);
	ev->bundle.dirfd = -1;
	/* last: a directory is made only once the rest is known good */
	if (o->outdir) {
		if (hc_bundle_open(&ev->bundle, o->outdir, err, sizeof(err)))
			die_usage("-o: %s", err);
		ev->have_bundle = true;
	}
}

/* The requests of --correlate, read now that the window is over (the
 * application wrote them during it) and set against the timeline */
static void correlate(struct hc_evidence *ev, const struct hc_timeline *tl)
{
	char err[768];

	hc_requests_free(&ev->rq);
	if (hc_requests_read(&ev->rq, ev->o.correlate, ev->o.clock, err, sizeof(err))) {
		msg_warn("--correlate: %s: no correlation", err);
		ev->failed = true;
		return;
	}
	if (hc_correlate(&ev->corr, tl, &ev->rq, HC_CORR_DEFAULT_WINDOW_NS)) {
		msg_warn("--correlate: the timeline holds too many events to correlate");
		ev->failed = true;
		return;
	}
	ev->have_corr = true;
}

void hc_evidence_json(struct json *j, void *arg)
{
	const struct hc_evidence *ev = arg;

	if (ev->have_corr)
		hc_correlation_json(j, &ev->corr);
	if (ev->have_base)
		hc_compare_json(j, &ev->cmp);
}

/* report.json of the bundle, and -j's document */
static void write_json(FILE *f, void *arg)
{
	const struct hc_evidence *ev = arg;

	hc_report_json_with(ev->run, f, hc_evidence_json, arg);
}

void hc_evidence_report(struct hc_evidence *ev, const struct hc_run *run)
{
	const struct hc_timeline *tl = hc_timeline(run);
	char who[420], target[448];

	ev->run = run;
	if (ev->o.correlate)
		correlate(ev, tl);
	if (ev->have_base)
		hc_compare_build(&ev->cmp, &ev->base, tl->checks, tl->n_checks);
	if (ev->pprof && hc_pprof_write(run, ev->pprof))
		ev->failed = true;
	/* --pprof -: stdout is the profile's alone */
	if (ev->pprof == stdout) {
	} else if (ev->o.c->json) {
		write_json(stdout, ev);
	} else {
		hc_report_table(run, stdout);
		if (ev->have_corr) {
			putchar('\n');
			hc_correlation_print(stdout, &ev->corr);
		}
		if (ev->have_base) {
			putchar('\n');
			hc_compare_print(stdout, &ev->cmp);
		}
	}
	fflush(stdout);
	common_opts_target(ev->o.c, who, sizeof(who));
	snprintf(target, sizeof(target), "hot threads of %s", who);
	if (ev->have_bundle &&
	    hc_bundle_write(&ev->bundle, &(struct hc_bundle_src){
				.tl = tl, .write_json = write_json, .arg = ev,
				.corr = ev->have_corr ? &ev->corr : NULL,
				.cmp = ev->have_base ? &ev->cmp : NULL, .target = target }))
		ev->failed = true;
}

void hc_evidence_free(struct hc_evidence *ev)
{
	if (ev->have_corr)
		hc_correlation_free(&ev->corr);
	hc_requests_free(&ev->rq);
	if (ev->have_base) {
		hc_compare_free(&ev->cmp);
		hc_baseline_free(&ev->base);
	}
	hc_bundle_close(&ev->bundle);
}
