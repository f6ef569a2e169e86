/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --metrics ADDR:PORT and --metrics-file PATH: a tool as a Prometheus
 * exporter.  The tool's loop renders a snapshot of its maps every second
 * (--metrics-interval)
 * (mtext.h); the HTTP responder (http.h, its own thread) serves the
 * last one, and --metrics-file gets it written to a temporary file in
 * the same directory, then renamed over PATH.
 *
 *	main:      exporter_parse_opt() in the argp parser, then
 *	           exporter_open() before lifecycle_run(): a bad address, a
 *	           port in use or a path that cannot be written exit 2 before
 *	           anything is loaded
 *	setup():   exporter_hook(e, &lc->run, render, ctx), after the tool
 *	           chose its poll
 *	stopping(): exporter_render() (the last snapshot, still recording)
 *	cleanup(): exporter_close() */
#ifndef SUITE_EXPORTER_H
#define SUITE_EXPORTER_H

#include <linux/types.h>
#include <stdbool.h>
#include "losses.h"
#include "mtext.h"
#include "run.h"

enum {
	OPT_METRICS = 0x1040,
	OPT_METRICS_FILE,
	OPT_METRICS_INTERVAL,
};

#define OPTS_METRICS							\
	{ "metrics", OPT_METRICS, "ADDR:PORT", 0, "Run as a Prometheus exporter: "	\
	  "serve GET /metrics on ADDR:PORT (PORT alone: 127.0.0.1:PORT)", 0 },	\
	{ "metrics-file", OPT_METRICS_FILE, "PATH", 0, "Write the same metrics to PATH "	\
	  "every interval, atomically (node_exporter's textfile collector)", 0 },	\
	{ "metrics-interval", OPT_METRICS_INTERVAL, "SECS", 0, "Take a snapshot for "	\
	  "--metrics and --metrics-file every SECS seconds (default 1; 0.1 to 3600)", 0 }

struct exporter_opts {
	const char *listen;	/* --metrics */
	const char *file;	/* --metrics-file */
	double interval;	/* --metrics-interval, s (0: the default, 1 s) */
};

/* The keys above into m: true if key was one of them */
bool exporter_parse_opt(int key, char *arg, struct exporter_opts *m);
static inline bool exporter_wanted(const struct exporter_opts *m)
{
	return m->listen || m->file;
}

struct exporter;
typedef void (*exporter_render_fn)(struct mtext *t, void *ctx);

/* Binds --metrics and tries --metrics-file's directory; exits 2 naming
 * the option on failure.  NULL when neither was given */
struct exporter *exporter_open(const struct exporter_opts *m);
/* The loop (run->poll, kept and called first) renders with fn(ctx) now
 * and then every interval */
void exporter_hook(struct exporter *e, struct run_opts *run,
		   exporter_render_fn fn, void *ctx);
/* Renders and publishes a snapshot now (NULL: nothing) */
void exporter_render(struct exporter *e);
/* PREFIX_build_info{version=...} 1 and PREFIX_losses_total{kind=...}:
 * the counters of losses.h (l, NULL: none), the tool's own n kinds
 * (names[i], counts[i]) and the exporter's (scrapes_timed_out,
 * scrapes_refused, metrics_file_writes_failed); PREFIX is the tool's name */
void exporter_common(struct exporter *e, struct mtext *t, const __u64 l[LOSS_KINDS],
		     const char *const *names, const __u64 *counts, size_t n);
/* Stops serving, frees (NULL: nothing) */
void exporter_close(struct exporter *e);

#endif
