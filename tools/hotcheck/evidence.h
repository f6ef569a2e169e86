/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What hotcheck's report adds to the verdict, and where it goes:
 * --correlate (the slow requests against the timeline), --baseline (this
 * run against an earlier one), --pprof and -o DIR (the bundle).
 *
 * Calls, from hotcheck.c: hc_evidence_open() when the options are read
 * (bad input exits 2 before anything is loaded; the request file is read
 * again when the window ends, with what the application added); once the
 * run is collected, hc_evidence_report() (the verdict on stdout, plain or
 * -j, with what the evidence adds, then the profile and the bundle); at
 * the end hc_evidence_free(). */
#ifndef HOTCHECK_EVIDENCE_H
#define HOTCHECK_EVIDENCE_H

#include <stdbool.h>
#include <stdio.h>

#include "baseline.h"
#include "bundle.h"
#include "compare.h"
#include "correlate.h"

struct common_opts;
struct hc_run;
struct json;

/* The options that ask for evidence (NULL: not given) */
struct hc_evidence_opts {
	const char *correlate;		/* --correlate FILE ("-": stdin) */
	enum hc_clock clock;		/* --clock */
	bool clock_given;
	const char *baseline;		/* --baseline FILE */
	const char *pprof;		/* --pprof FILE */
	const char *outdir;		/* -o DIR */
	const struct common_opts *c;	/* -j, and what pprof_open needs */
};

struct hc_evidence {
	struct hc_evidence_opts o;
	const struct hc_run *run;	/* set by hc_evidence_report() */
	struct hc_requests rq;
	struct hc_correlation corr;
	bool have_corr;
	struct hc_baseline base;
	struct hc_compare cmp;
	bool have_base;
	struct hc_bundle bundle;
	bool have_bundle;
	FILE *pprof;
	bool failed;		/* exit 2: input or output that failed, said */
};

/* Reads, checks or opens what o asks for (kept in ev): exits 2, said,
 * on bad input */
void hc_evidence_open(struct hc_evidence *ev, const struct hc_evidence_opts *o);
/* The report of run (its timeline built): on stdout the verdict, plain
 * or JSON, with the correlation and the baseline's comparison; then the
 * profile and the bundle.  A failure is said and sets ev->failed. */
void hc_evidence_report(struct hc_evidence *ev, const struct hc_run *run);
/* The keys -j adds to the document: "correlation", "baseline" (ev: a
 * struct hc_evidence, for hc_report_json_with()) */
void hc_evidence_json(struct json *j, void *ev);
void hc_evidence_free(struct hc_evidence *ev);

#endif
