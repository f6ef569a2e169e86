// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "exporter.h"
#include "bpfmaps.h"
#include "clock.h"
#include "http.h"
#include "msg.h"
#include "opts.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define EXPORT_INTERVAL_NS 1000000000ull

struct exporter {
	struct http_server *http;
	const char *file;
	char *tmp;			/* FILE.PID.tmp */
	__u64 file_failures;
	struct mtext text;
	exporter_render_fn render;
	void *ctx;
	int (*inner)(void *ctx, int timeout_ms);
	void *inner_ctx;
	__u64 next_ns, interval_ns;
};

bool exporter_parse_opt(int key, char *arg, struct exporter_opts *m)
{
	if (key == OPT_METRICS)
		m->listen = arg;
	else if (key == OPT_METRICS_FILE)
		m->file = arg;
	else if (key == OPT_METRICS_INTERVAL) {
		m->interval = opt_seconds("--metrics-interval", arg);
		if (m->interval < 0.1 || m->interval > 3600)
			die_usage("invalid --metrics-interval: %s (0.1 to 3600 seconds)", arg);
	}
	else
		return false;
	return true;
}

/* The text into the temporary file, renamed over the file; 0 or errno */
static int write_file(struct exporter *e, const char *s, size_t n)
{
	int fd = open(e->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	int err = 0;

	if (fd < 0)
		return errno;
	while (n && !err) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno != EINTR)
			err = errno;
		else if (w > 0)
			s += w, n -= (size_t)w;
	}
	if (close(fd) && !err)
		err = errno;
	if (!err && rename(e->tmp, e->file))
		err = errno;
	if (err)
		unlink(e->tmp);
	return err;
}

struct exporter *exporter_open(const struct exporter_opts *m)
{
	struct exporter *e;
	char err[256], bound[128];
	struct stat st;
	int fd, r;

	if (!exporter_wanted(m)) {
		if (m->interval)
			die_usage("--metrics-interval needs --metrics or --metrics-file");
		return NULL;
	}
	e = xcalloc(1, sizeof(*e));
	e->interval_ns = m->interval ? (__u64)(m->interval * 1e9 + 0.5) : EXPORT_INTERVAL_NS;
	if (m->file) {
		size_t len = strlen(m->file) + 32;

		if (!m->file[0])
			die_usage("--metrics-file: an empty path");
		if (!stat(m->file, &st) && S_ISDIR(st.st_mode))
			die_usage("--metrics-file: %s is a directory", m->file);
		e->file = m->file;
		e->tmp = xmalloc(len);
		snprintf(e->tmp, len, "%s.%d.tmp", m->file, (int)getpid());
		/* the first write now, so that a bad path is bad input */
		r = write_file(e, "", 0);
		if (r)
			die_usage("--metrics-file: cannot write %s: %s", m->file, strerror(r));
	}
	if (m->listen) {
		fd = http_listen(m->listen, bound, sizeof(bound), err, sizeof(err));
		if (fd < 0)
			die_usage("--metrics %s", err);
		e->http = http_start(fd, "text/plain; version=0.0.4; charset=utf-8");
		if (!e->http)
			die_unsupported("--metrics: cannot start serving: %s", strerror(errno));
		msg_warn("serving metrics on http://%s/metrics", bound);
	}
	return e;
}

void exporter_render(struct exporter *e)
{
	int err;

	if (!e || !e->render)
		return;
	e->text.n = 0;
	e->render(&e->text, e->ctx);
	if (!e->text.v)
		return;
	if (e->http)
		http_publish(e->http, e->text.v, e->text.n);
	if (e->file && (err = write_file(e, e->text.v, e->text.n))) {
		if (!e->file_failures)
			msg_warn("--metrics-file: cannot write %s: %s", e->file, strerror(err));
		e->file_failures++;
	}
}

static int exporter_poll(void *ctx, int timeout_ms)
{
	struct exporter *e = ctx;
	__u64 now = now_ns();

	if (now >= e->next_ns) {
		exporter_render(e);
		e->next_ns = now + e->interval_ns;
	}
	if ((__u64)timeout_ms * 1000000 > e->next_ns - now)
		timeout_ms = (int)((e->next_ns - now) / 1000000) + 1;
	if (e->inner)
		return e->inner(e->inner_ctx, timeout_ms);
	usleep((useconds_t)timeout_ms * 1000);
	return 0;
}

void exporter_hook(struct exporter *e, struct run_opts *run,
		   exporter_render_fn fn, void *ctx)
{
	if (!e)
		return;
	e->render = fn;
	e->ctx = ctx;
	e->inner = run->poll;
	e->inner_ctx = run->ctx;
	run->poll = exporter_poll;
	run->ctx = e;
	exporter_render(e);
	e->next_ns = now_ns() + e->interval_ns;
}

void exporter_common(struct exporter *e, struct mtext *t, const __u64 l[LOSS_KINDS],
		     const char *const *names, const __u64 *counts, size_t n)
{
	char name[128];
	struct mlabel lb = { "kind", NULL };
	uint64_t timeouts, refused;

	snprintf(name, sizeof(name), "%s_build_info", tool_name);
	mtext_family(t, name, "gauge", "The tool's version, as a label");
	lb = (struct mlabel){ "version", SUITE_VERSION };
	mtext_u64(t, name, &lb, 1, 1);
	snprintf(name, sizeof(name), "%s_losses_total", tool_name);
	mtext_family(t, name, "counter", "What the tool could not record or export, by kind");
	lb.name = "kind";
	for (int k = 0; l && k < LOSS_KINDS; k++) {
		lb.value = loss_name(k);
		mtext_u64(t, name, &lb, 1, l[k]);
	}
	for (size_t i = 0; i < n; i++) {
		lb.value = names[i];
		mtext_u64(t, name, &lb, 1, counts[i]);
	}
	http_counts(e ? e->http : NULL, &timeouts, &refused);
	lb.value = "scrapes_timed_out";
	mtext_u64(t, name, &lb, 1, timeouts);
	lb.value = "scrapes_refused";
	mtext_u64(t, name, &lb, 1, refused);
	lb.value = "metrics_file_writes_failed";
	mtext_u64(t, name, &lb, 1, e ? e->file_failures : 0);
}

void exporter_close(struct exporter *e)
{
	if (!e)
		return;
	http_stop(e->http);
	mtext_free(&e->text);
	free(e->tmp);
	free(e);
}
