// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --correlate: the slow requests of a file, each against the events of the
 * timeline that overlap its interval (correlate.h says the rules).  One
 * sweep over the requests sorted by the start of their interval: the
 * events that began before it and still run are kept in a list (each
 * leaves it once it ended), those that begin inside it are a range of the
 * events sorted by start.  Every event visited overlaps the request, so
 * the cost is O((n + m) log(n + m) + overlaps). */
#include "correlate.h"
#include "clock.h"
#include "event.h"
#include "escape.h"
#include "hashmap.h"
#include "json.h"
#include "msg.h"
#include "vec.h"
#include "xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int hc_clock_parse(const char *s, enum hc_clock *clock)
{
	if (!strcmp(s, "mono"))
		*clock = HC_CLOCK_MONO;
	else if (!strcmp(s, "real"))
		*clock = HC_CLOCK_REAL;
	else
		return -1;
	return 0;
}

const char *hc_clock_name(enum hc_clock clock)
{
	return clock == HC_CLOCK_REAL ? "real" : "mono";
}

/* ---- reading ---- */

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* n bytes at s as nanoseconds: integer ns, or seconds with a fraction.
 * 0, or -1 with why */
static int parse_ns(const char *s, size_t n, uint64_t *out, const char **why)
{
	uint64_t v = 0, frac = 0;
	size_t i = 0, nd = 0;

	if (s[0] == '-') {
		*why = "a negative number";
		return -1;
	}
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10) {
			*why = "out of range (more than 2^64-1 ns)";
			return -1;
		}
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == 0 || (i < n && s[i] != '.')) {
		*why = "not a number (integer nanoseconds, or seconds with a fraction: 12345.678901234)";
		return -1;
	}
	if (i == n) {
		*out = v;
		return 0;
	}
	for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, nd++) {
		if (nd == 9) {
			*why = "more than 9 digits after the point (nanoseconds are the finest)";
			return -1;
		}
		frac = frac * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < n) {
		*why = "not a number (integer nanoseconds, or seconds with a fraction: 12345.678901234)";
		return -1;
	}
	if (!nd) {
		*why = "no digit after the point";
		return -1;
	}
	for (; nd < 9; nd++)
		frac *= 10;
	if (v > (UINT64_MAX - frac) / 1000000000ull) {
		*why = "out of range (more than 2^64-1 ns)";
		return -1;
	}
	*out = v * 1000000000ull + frac;
	return 0;
}

static int bad(char *err, size_t errlen, const char *what, const char *tok, size_t n,
	       const char *why)
{
	char raw[48], esc[ESC_SIZE(48)];

	/* the first 40 bytes of it, escaped */
	snprintf(raw, sizeof(raw), "%.*s", (int)(n < 40 ? n : 40), tok);
	esc_str(esc, sizeof(esc), raw);
	return fail_msg(err, errlen, "bad %s \"%s%s\": %s", what, esc, n > 40 ? "..." : "", why);
}

/* The index of the first byte from i on that is not blank (blank) or
 * not a field's (!blank), len at the end */
static size_t span(const char *line, size_t len, size_t i, bool blank)
{
	while (i < len && (is_blank(line[i]) != 0) == blank)
		i++;
	return i;
}

int hc_request_parse(const char *line, size_t len, struct hc_request *r, char *err,
		     size_t errlen)
{
	size_t i = 0, t0, t1, l0 = 0, l1 = 0;
	const char *why;
	const char *nul = memchr(line, 0, len);

	i = span(line, len, i, true);
	if (i == len || line[i] == '#')
		return 0;
	if (nul)
		return fail_msg(err, errlen, "a NUL byte at column %zu", (size_t)(nul - line) + 1);
	t0 = i;
	t1 = i = span(line, len, i, false);
	i = span(line, len, i, true);
	if (i < len && line[i] != '#') {
		l0 = i;
		l1 = i = span(line, len, i, false);
		i = span(line, len, i, true);
		if (i < len && line[i] != '#')
			return bad(err, errlen, "text after the latency", line + i, len - i,
				   "one timestamp and one latency a line");
	}
	*r = (struct hc_request){ 0 };
	if (parse_ns(line + t0, t1 - t0, &r->ts_ns, &why))
		return bad(err, errlen, "timestamp", line + t0, t1 - t0, why);
	if (l1 > l0) {
		if (parse_ns(line + l0, l1 - l0, &r->latency_ns, &why))
			return bad(err, errlen, "latency", line + l0, l1 - l0, why);
		r->has_latency = true;
	}
	return 1;
}

/* The next line of f into buf (HC_CORR_LINE_MAX + 1 bytes): its length,
 * -1 at the end; *cut when it was longer (the rest skipped) */
static long read_line(FILE *f, char *buf, bool *cut, bool *any)
{
	size_t n = 0;
	int ch;

	*cut = false;
	*any = false;
	while ((ch = getc_unlocked(f)) != EOF) {
		*any = true;
		if (ch == '\n')
			break;
		if (n < HC_CORR_LINE_MAX)
			buf[n++] = (char)ch;
		else
			*cut = true;
	}
	buf[n] = 0;
	if (!*any)
		return -1;
	if (n && buf[n - 1] == '\r' && !*cut)
		n--;
	return (long)n;
}

int hc_requests_read_stream(struct hc_requests *rq, FILE *f, const char *name,
			    enum hc_clock clock, char *err, size_t errlen)
{
	char buf[HC_CORR_LINE_MAX + 1], why[256];
	uint64_t lineno = 0;
	bool cut, any;
	long n;

	*rq = (struct hc_requests){ .clock = clock, .path = xstrdup(name) };
	while ((n = read_line(f, buf, &cut, &any)) >= 0) {
		struct hc_request r;
		size_t i = 0;
		int k;

		lineno++;
		if (cut) {
			while (i < (size_t)n && is_blank(buf[i]))
				i++;
			if (buf[i] == '#')
				continue;
			return fail_msg(err, errlen, "%s:%" PRIu64 ": longer than %d bytes", name,
					lineno, HC_CORR_LINE_MAX);
		}
		k = hc_request_parse(buf, (size_t)n, &r, why, sizeof(why));
		if (k < 0)
			return fail_msg(err, errlen, "%s:%" PRIu64 ": %s", name, lineno, why);
		if (!k)
			continue;
		if (rq->n == HC_CORR_MAX_REQUESTS)
			return fail_msg(err, errlen,
					"%s:%" PRIu64 ": more than %d requests: give the slow "
					"requests of the window only",
					name, lineno, HC_CORR_MAX_REQUESTS);
		r.line = lineno;
		vec_reserve(rq, rq->n + 1);
		rq->v[rq->n++] = r;
	}
	if (ferror(f))
		return fail_msg(err, errlen, "%s: cannot read: %s", name, strerror(errno));
	return 0;
}

int hc_requests_read(struct hc_requests *rq, const char *path, enum hc_clock clock,
		     char *err, size_t errlen)
{
	bool std = !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "re");
	struct stat st;
	int r;

	*rq = (struct hc_requests){ .clock = clock };
	if (!f)
		return fail_msg(err, errlen, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		if (!std)
			fclose(f);
		return fail_msg(err, errlen, "%s is a directory, not a file of requests", path);
	}
	r = hc_requests_read_stream(rq, f, path, clock, err, errlen);
	if (!std)
		fclose(f);
	return r;
}

void hc_requests_free(struct hc_requests *rq)
{
	free(rq->v);
	free(rq->path);
	*rq = (struct hc_requests){ 0 };
}

/* ---- correlating ---- */

static uint64_t ev_end(const struct hc_event *e)
{
	return e->dur_ns > UINT64_MAX - e->start_ns ? UINT64_MAX : e->start_ns + e->dur_ns;
}

/* An event [s, e) (an instant: [s, s]) and a request [a, b] share time */
static bool overlaps(const struct hc_event *ev, uint64_t a, uint64_t b)
{
	uint64_t s = ev->start_ns, e = ev_end(ev);

	if (s == e)
		return a <= s && s <= b;
	if (a == b)
		return s <= a && a < e;
	return s < b && e > a;
}

/* Steal time is known only as an amount between two readings: of what
 * overlaps the request, no more than what was stolen */
static uint64_t overlap_ns(const struct hc_event *ev, uint64_t a, uint64_t b)
{
	uint64_t s = ev->start_ns > a ? ev->start_ns : a, e = ev_end(ev);

	e = e < b ? e : b;
	if (e <= s)
		return 0;
	if (ev->kind == HC_STEAL && e - s > ev->stolen_ns)
		return ev->stolen_ns;
	return e - s;
}

struct span_ns {
	uint64_t a, b;
};

struct sweep {
	struct hc_correlation *c;
	const struct hc_event *ev;
	uint32_t *by_start;	/* event indexes sorted by start */
	uint32_t *group;	/* an event's cause group, UINT32_MAX: not yet named */
	struct hashmap *names;	/* cause name -> group + 1 */
	VEC(struct hc_corr_cause) groups;
	/* per request, reset after each */
	uint64_t *g_cov, *g_cnt;
	VEC(uint32_t) touched;
	uint64_t *shown_ov;	/* overlap of each shown event */
	VEC(struct span_ns) spans;	/* what the request's events cover */
};

static const struct hc_event *sort_ev;

static int cmp_start(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t sx = sort_ev[x].start_ns, sy = sort_ev[y].start_ns;

	return sx < sy ? -1 : sx > sy ? 1 : x < y ? -1 : x > y;
}

static const struct hc_req_result *sort_res;

static int cmp_req(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t sx = sort_res[x].start_ns, sy = sort_res[y].start_ns;

	return sx < sy ? -1 : sx > sy ? 1 : x < y ? -1 : x > y;
}

static uint32_t group_of(struct sweep *sw, uint32_t i)
{
	char name[512];
	uint32_t *slot;
	bool created;

	if (sw->group[i] != UINT32_MAX)
		return sw->group[i];
	hc_event_cause(name, sizeof(name), &sw->ev[i]);
	slot = hashmap_get_blob(sw->names, name, strlen(name), &created);
	if (created) {
		struct hc_corr_cause *g = vec_add(&sw->groups);

		*g = (struct hc_corr_cause){ .name = xstrdup(name), .kind = sw->ev[i].kind };
		*slot = (uint32_t)sw->groups.n;
		sw->g_cov = xrealloc(sw->g_cov, sw->groups.n, sizeof(*sw->g_cov));
		sw->g_cnt = xrealloc(sw->g_cnt, sw->groups.n, sizeof(*sw->g_cnt));
		sw->g_cov[*slot - 1] = sw->g_cnt[*slot - 1] = 0;
	}
	return sw->group[i] = *slot - 1;
}

/* Event i overlaps request r */
static void visit(struct sweep *sw, struct hc_req_result *r, uint32_t i)
{
	uint64_t ov = overlap_ns(&sw->ev[i], r->start_ns, r->end_ns);
	uint32_t g = group_of(sw, i), k;

	if (!sw->g_cnt[g] && !sw->g_cov[g])
		vec_push(&sw->touched, g);
	if (ov) {
		uint64_t s = sw->ev[i].start_ns > r->start_ns ? sw->ev[i].start_ns : r->start_ns;

		vec_push(&sw->spans, ((struct span_ns){ s, s + ov }));
	}
	sw->g_cov[g] += ov;
	sw->g_cnt[g]++;
	r->n_events++;
	/* keep the HC_CORR_SHOW longest overlaps (ties: the earlier event) */
	if (r->n_shown < HC_CORR_SHOW) {
		k = r->n_shown++;
	} else {
		k = 0;
		for (uint32_t j = 1; j < HC_CORR_SHOW; j++)
			if (sw->shown_ov[j] < sw->shown_ov[k] ||
			    (sw->shown_ov[j] == sw->shown_ov[k] && r->shown[j] > r->shown[k]))
				k = j;
		if (ov < sw->shown_ov[k] || (ov == sw->shown_ov[k] && i > r->shown[k]))
			return;
	}
	r->shown[k] = i;
	sw->shown_ov[k] = ov;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Group g explains a request better than group b: a block or preemption
 * over a syscall, or over what ran on the CPU, when it covers half of
 * what the other covers (the syscall waited, and what ran meanwhile ran
 * because the thread was off: who made it wait names the cause); else it
 * covers more
 * of it; as much, and it is of the hot thread's own events where b is of the
 * CPU's (a preemption by X and X's stay on the CPU are one fact, seen
 * from the thread and from the CPU: the thread's names it); then more
 * events; then the cause seen first */
static bool off_cpu(enum hc_kind k)
{
	return k == HC_BLOCK || k == HC_PREEMPT;
}

static bool better(const struct sweep *sw, uint32_t g, uint32_t b)
{
	enum hc_kind gk = sw->groups.v[g].kind, bk = sw->groups.v[b].kind;
	bool gi = gk == HC_INTRUDER, bi = bk == HC_INTRUDER;

	/* a syscall that blocks (or is preempted) covers its wait, and what
	 * ran on the CPU meanwhile covers it too: the wait names the cause
	 * when it covers half of what the other does */
	if (off_cpu(gk) && (bk == HC_SYSCALL || bi) && sw->g_cov[g] >= sw->g_cov[b] / 2)
		return true;
	if ((gk == HC_SYSCALL || gi) && off_cpu(bk) && sw->g_cov[b] >= sw->g_cov[g] / 2)
		return false;
	if (sw->g_cov[g] != sw->g_cov[b])
		return sw->g_cov[g] > sw->g_cov[b];
	if (gi != bi)
		return bi;
	if (sw->g_cnt[g] != sw->g_cnt[b])
		return sw->g_cnt[g] > sw->g_cnt[b];
	return g < b;
}

static int cmp_span(const void *a, const void *b)
{
	const struct span_ns *x = a, *y = b;

	return x->a < y->a ? -1 : x->a > y->a;
}

/* Of [a, b], what no span covers */
static uint64_t uncovered(struct sweep *sw, uint64_t a, uint64_t b)
{
	uint64_t cov = 0, cur_a = 0, cur_b = 0;

	if (sw->spans.n)
		qsort(sw->spans.v, sw->spans.n, sizeof(*sw->spans.v), cmp_span);
	for (size_t k = 0; k < sw->spans.n; k++) {
		struct span_ns s = sw->spans.v[k];

		if (s.a < a)
			s.a = a;
		if (s.b > b)
			s.b = b;
		if (s.b <= s.a)
			continue;
		if (cur_b > cur_a && s.a <= cur_b) {
			if (s.b > cur_b)
				cur_b = s.b;
			continue;
		}
		cov += cur_b - cur_a;
		cur_a = s.a;
		cur_b = s.b;
	}
	cov += cur_b - cur_a;
	sw->spans.n = 0;
	return b - a > cov ? b - a - cov : 0;
}

/* The request's cause among the groups it touched; resets them */
static void settle(struct sweep *sw, struct hc_req_result *r)
{
	uint32_t best = HC_NO_CAUSE;
	uint64_t len = r->end_ns - r->start_ns;

	r->uncovered_ns = uncovered(sw, r->start_ns, r->end_ns);
	for (size_t k = 0; k < sw->touched.n; k++) {
		uint32_t g = sw->touched.v[k];

		if (best == HC_NO_CAUSE || better(sw, g, best))
			best = g;
	}
	/* covering less than half: the instants inside it, if any, else too
	 * little to explain it */
	if (best != HC_NO_CAUSE && sw->g_cov[best] * HC_EXPLAIN_FRACTION < len) {
		uint32_t inst = HC_NO_CAUSE;

		for (size_t k = 0; k < sw->touched.n; k++) {
			uint32_t g = sw->touched.v[k];

			if (!sw->g_cov[g] && sw->g_cnt[g] &&
			    (inst == HC_NO_CAUSE || sw->g_cnt[g] > sw->g_cnt[inst]))
				inst = g;
		}
		if (inst == HC_NO_CAUSE) {
			r->state = HC_REQ_TOO_LITTLE;
			r->nearest = xstrdup(sw->groups.v[best].name);
			r->covered_ns = sw->g_cov[best] < len ? sw->g_cov[best] : len;
			best = HC_NO_CAUSE;
		} else {
			best = inst;
		}
	}
	if (best != HC_NO_CAUSE) {
		r->state = HC_REQ_EXPLAINED;
		r->cause = best;
		r->covered_ns = sw->g_cov[best] < len ? sw->g_cov[best] : len;
		sw->groups.v[best].requests++;
		sw->groups.v[best].covered_ns += r->covered_ns;
	}
	for (size_t k = 0; k < sw->touched.n; k++)
		sw->g_cov[sw->touched.v[k]] = sw->g_cnt[sw->touched.v[k]] = 0;
	sw->touched.n = 0;
	qsort(r->shown, r->n_shown, sizeof(r->shown[0]), cmp_u32);
}

/* Each request's interval, CLOCK_MONOTONIC */
static void intervals(struct hc_correlation *c)
{
	const struct hc_timeline *tl = c->tl;

	for (size_t i = 0; i < c->rq->n; i++) {
		const struct hc_request *q = &c->rq->v[i];
		struct hc_req_result *r = &c->res[i];
		uint64_t ts = q->ts_ns, lat = q->has_latency ? q->latency_ns : c->window_ns;
		bool outside = false;

		*r = (struct hc_req_result){ .cause = HC_NO_CAUSE, .state = HC_REQ_NO_EVENT };
		if (c->rq->clock == HC_CLOCK_REAL) {
			int64_t off = tl->realtime_offset_ns;

			if (off >= 0 && ts < (uint64_t)off)
				outside = true, ts = 0;	/* before the boot */
			else
				ts = off >= 0 ? ts - (uint64_t)off : ts + (uint64_t)-off;
		}
		r->end_ns = ts;
		r->start_ns = ts > lat ? ts - lat : 0;
		r->uncovered_ns = r->end_ns - r->start_ns;
		if (tl->window_end_ns > tl->window_start_ns &&
		    (r->end_ns < tl->window_start_ns || r->start_ns > tl->window_end_ns))
			outside = true;
		/* past the timeline's cap: its events are not all there */
		if (tl->complete_until_ns && r->end_ns >= tl->complete_until_ns)
			outside = true;
		if (outside)
			r->state = HC_REQ_OUTSIDE;
	}
}

static const struct hc_corr_cause *sort_groups;

static int cmp_cause(const void *a, const void *b)
{
	const struct hc_corr_cause *x = &sort_groups[*(const uint32_t *)a];
	const struct hc_corr_cause *y = &sort_groups[*(const uint32_t *)b];

	if (x->requests != y->requests)
		return x->requests > y->requests ? -1 : 1;
	if (x->covered_ns != y->covered_ns)
		return x->covered_ns > y->covered_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* causes[]: the groups that explain a request, most requests first; the
 * requests' cause renumbered */
static void rank_causes(struct hc_correlation *c, struct sweep *sw)
{
	size_t ng = sw->groups.n, n = 0;
	uint32_t *order = xcalloc(ng + 1, sizeof(*order));
	uint32_t *to = xcalloc(ng + 1, sizeof(*to));

	for (size_t g = 0; g < ng; g++)
		if (sw->groups.v[g].requests)
			order[n++] = (uint32_t)g;
	sort_groups = sw->groups.v;
	qsort(order, n, sizeof(*order), cmp_cause);
	c->causes = xcalloc(n + 1, sizeof(*c->causes));
	for (size_t k = 0; k < n; k++) {
		c->causes[k] = sw->groups.v[order[k]];
		to[order[k]] = (uint32_t)k;
		sw->groups.v[order[k]].name = NULL;
	}
	c->n_causes = n;
	for (size_t g = 0; g < ng; g++)
		free(sw->groups.v[g].name);
	for (size_t i = 0; i < c->rq->n; i++)
		if (c->res[i].cause != HC_NO_CAUSE)
			c->res[i].cause = to[c->res[i].cause];
	free(order);
	free(to);
}

int hc_correlate(struct hc_correlation *c, const struct hc_timeline *tl,
		 const struct hc_requests *rq, uint64_t window_ns)
{
	struct sweep sw = { .c = c, .ev = tl->ev };
	size_t m = tl->n, n = rq->n, p = 0;
	uint32_t *req;
	VEC(uint32_t) live = { 0 };	/* began before the request, not yet ended */
	uint64_t shown_ov[HC_CORR_SHOW];

	*c = (struct hc_correlation){ .tl = tl, .rq = rq, .window_ns = window_ns };
	if (m >= UINT32_MAX || n >= UINT32_MAX)
		return -1;
	c->res = xcalloc(n + 1, sizeof(*c->res));
	intervals(c);
	sw.by_start = xcalloc(m + 1, sizeof(uint32_t));
	sw.group = xcalloc(m + 1, sizeof(uint32_t));
	for (size_t i = 0; i < m; i++) {
		sw.by_start[i] = (uint32_t)i;
		sw.group[i] = UINT32_MAX;
	}
	sort_ev = tl->ev;
	qsort(sw.by_start, m, sizeof(uint32_t), cmp_start);
	req = xcalloc(n + 1, sizeof(*req));
	for (size_t i = 0; i < n; i++)
		req[i] = (uint32_t)i;
	sort_res = c->res;
	qsort(req, n, sizeof(*req), cmp_req);
	sw.names = hashmap_new(0, sizeof(uint32_t));
	sw.shown_ov = shown_ov;

	for (size_t k = 0; k < n; k++) {
		struct hc_req_result *r = &c->res[req[k]];
		uint64_t a = r->start_ns, b = r->end_ns;
		size_t keep = 0;

		/* the events that begin before a: live while they have not ended */
		for (; p < m && tl->ev[sw.by_start[p]].start_ns < a; p++)
			if (ev_end(&tl->ev[sw.by_start[p]]) > a)
				vec_push(&live, sw.by_start[p]);
		for (size_t j = 0; j < live.n; j++)
			if (ev_end(&tl->ev[live.v[j]]) > a)
				live.v[keep++] = live.v[j];
		live.n = keep;
		if (r->state == HC_REQ_OUTSIDE)
			continue;
		for (size_t j = 0; j < live.n; j++)
			if (overlaps(&tl->ev[live.v[j]], a, b))
				visit(&sw, r, live.v[j]);
		/* those that begin inside [a, b] */
		for (size_t q = p; q < m && tl->ev[sw.by_start[q]].start_ns <= b; q++)
			if (overlaps(&tl->ev[sw.by_start[q]], a, b))
				visit(&sw, r, sw.by_start[q]);
		settle(&sw, r);
	}
	for (size_t i = 0; i < n; i++) {
		if (c->res[i].state == HC_REQ_EXPLAINED)
			c->explained++;
		else
			c->unexplained++;
		if (c->res[i].state == HC_REQ_OUTSIDE)
			c->outside++;
		if (c->res[i].state == HC_REQ_TOO_LITTLE)
			c->too_little++;
	}
	rank_causes(c, &sw);
	vec_free(&live);
	vec_free(&sw.touched);
	vec_free(&sw.spans);
	vec_free(&sw.groups);
	hashmap_free(sw.names);
	free(sw.g_cov);
	free(sw.g_cnt);
	free(sw.by_start);
	free(sw.group);
	free(req);
	return 0;
}

void hc_correlation_free(struct hc_correlation *c)
{
	for (size_t i = 0; i < c->n_causes; i++)
		free(c->causes[i].name);
	free(c->causes);
	for (size_t i = 0; c->res && i < c->rq->n; i++)
		free(c->res[i].nearest);
	free(c->res);
	*c = (struct hc_correlation){ 0 };
}

/* ---- output ---- */

void hc_correlation_summary(FILE *f, const struct hc_correlation *c)
{
	uint64_t rest = 0;

	fprintf(f, "%" PRIu64 " of %zu slow requests explained", c->explained, c->rq->n);
	for (size_t i = 0; i < c->n_causes && i < HC_CORR_SUMMARY_CAUSES; i++)
		fprintf(f, "%s%" PRIu64 " by %s", i ? ", " : ": ", c->causes[i].requests,
			c->causes[i].name);
	for (size_t i = HC_CORR_SUMMARY_CAUSES; i < c->n_causes; i++)
		rest += c->causes[i].requests;
	if (c->n_causes > HC_CORR_SUMMARY_CAUSES)
		fprintf(f, ", %" PRIu64 " by %zu other causes", rest,
			c->n_causes - HC_CORR_SUMMARY_CAUSES);
	if (c->unexplained) {
		fprintf(f, "; %" PRIu64 " unexplained", c->unexplained);
		if (c->outside || c->too_little)
			fprintf(f, " (");
		if (c->outside)
			fprintf(f, "%" PRIu64 " outside the recording window", c->outside);
		if (c->too_little)
			fprintf(f, "%s%" PRIu64 " overlapped by too little: under half", c->outside ? ", " : "",
				c->too_little);
		if (c->outside || c->too_little)
			fprintf(f, ")");
	}
	fputc('\n', f);
}

static void print_ts(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%09" PRIu64, (uint64_t)(ns / 1000000000u), (uint64_t)(ns % 1000000000u));
}

/* An unexplained request: how much of it nothing recorded covers, and
 * whether steal time could be that; ends the line */
static void print_uncovered(FILE *f, const struct hc_correlation *c,
			    const struct hc_req_result *r, const char *len)
{
	char u[32];

	fmt_dur(u, sizeof(u), r->uncovered_ns, DUR_TEXT);
	fprintf(f, "; nothing recorded covers %s of its %s", u, len);
	if (c->tl->steal_unknown)
		fprintf(f, " (%s: it can be neither ruled in nor out)", c->tl->steal_unknown);
	else if (c->tl->steal_reported)
		fprintf(f, " (nor steal time: the hypervisor reports it)");
	fputc('\n', f);
}

void hc_correlation_print(FILE *f, const struct hc_correlation *c)
{
	char d[32], d2[32], buf[768];

	hc_correlation_summary(f, c);
	fmt_dur(d, sizeof(d), c->window_ns, DUR_TEXT);
	fprintf(f, "slow requests of %s (clock %s; without a latency, the %s before):\n",
		ESC(c->rq->path ? c->rq->path : "-"), hc_clock_name(c->rq->clock), d);
	for (size_t i = 0; i < c->rq->n; i++) {
		const struct hc_request *q = &c->rq->v[i];
		const struct hc_req_result *r = &c->res[i];

		fprintf(f, "  line %" PRIu64 ": ", q->line);
		print_ts(f, q->ts_ns);
		fmt_dur(d, sizeof(d), r->end_ns - r->start_ns, DUR_TEXT);
		fprintf(f, ", %s%s: ", q->has_latency ? "latency " : "window ", d);
		if (r->state == HC_REQ_OUTSIDE) {
			fprintf(f, "unexplained: outside the recording window\n");
			continue;
		}
		if (r->state == HC_REQ_NO_EVENT) {
			fprintf(f, "unexplained: no recorded event in its interval");
			print_uncovered(f, c, r, d);
			continue;
		}
		fmt_dur(d2, sizeof(d2), r->covered_ns, DUR_TEXT);
		if (r->state == HC_REQ_TOO_LITTLE) {
			fprintf(f, "unexplained: what overlaps it covers too little of it "
				"(most: %s, %s of %s)", r->nearest, d2, d);
			print_uncovered(f, c, r, d);
		} else
			fprintf(f, "%s, %s of %s\n", c->causes[r->cause].name, d2, d);
		for (uint32_t k = 0; k < r->n_shown; k++)
			fprintf(f, "    %s\n", hc_event_phrase(buf, sizeof(buf), &c->tl->ev[r->shown[k]]));
		if (r->n_events > r->n_shown)
			fprintf(f, "    ... and %" PRIu64 " more events\n", r->n_events - r->n_shown);
	}
}

const char *hc_req_state_name(enum hc_req_state s)
{
	return s == HC_REQ_EXPLAINED ? "explained" : s == HC_REQ_OUTSIDE ? "outside_window"
		: s == HC_REQ_TOO_LITTLE ? "too_little" : "no_event";
}

void hc_correlation_json(struct json *j, const struct hc_correlation *c)
{
	char buf[768];

	json_key(j, "correlation");
	json_obj_begin(j);
	json_kv_str(j, "file", c->rq->path ? c->rq->path : "-");
	json_kv_str(j, "clock", hc_clock_name(c->rq->clock));
	json_kv_u64(j, "default_window_ns", c->window_ns);
	json_kv_u64(j, "requests", c->rq->n);
	json_kv_u64(j, "explained", c->explained);
	json_kv_u64(j, "unexplained", c->unexplained);
	json_kv_u64(j, "outside_window", c->outside);
	json_kv_u64(j, "too_little", c->too_little);
	json_key(j, "steal_unknown");
	if (c->tl->steal_unknown)
		json_str(j, c->tl->steal_unknown);
	else
		json_null(j);
	json_key(j, "causes");
	json_arr_begin(j);
	for (size_t i = 0; i < c->n_causes; i++) {
		json_obj_begin(j);
		json_kv_str(j, "cause", c->causes[i].name);
		json_kv_str(j, "kind", hc_kind_name(c->causes[i].kind));
		json_kv_u64(j, "requests", c->causes[i].requests);
		json_kv_u64(j, "covered_ns", c->causes[i].covered_ns);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "slow_requests");
	json_arr_begin(j);
	for (size_t i = 0; i < c->rq->n; i++) {
		const struct hc_request *q = &c->rq->v[i];
		const struct hc_req_result *r = &c->res[i];

		json_obj_begin(j);
		json_kv_u64(j, "line", q->line);
		json_kv_u64(j, "ts_ns", q->ts_ns);
		if (q->has_latency)
			json_kv_u64(j, "latency_ns", q->latency_ns);
		else {
			json_key(j, "latency_ns");
			json_null(j);
		}
		json_kv_u64(j, "start_mono_ns", r->start_ns);
		json_kv_u64(j, "end_mono_ns", r->end_ns);
		json_kv_str(j, "state", hc_req_state_name(r->state));
		if (r->cause != HC_NO_CAUSE)
			json_kv_str(j, "cause", c->causes[r->cause].name);
		if (r->nearest)
			json_kv_str(j, "nearest_cause", r->nearest);
		json_kv_u64(j, "covered_ns", r->covered_ns);
		json_kv_u64(j, "uncovered_ns", r->uncovered_ns);
		json_kv_u64(j, "events", r->n_events);
		json_key(j, "shown");
		json_arr_begin(j);
		for (uint32_t k = 0; k < r->n_shown; k++) {
			const struct hc_event *e = &c->tl->ev[r->shown[k]];

			json_obj_begin(j);
			json_kv_str(j, "kind", hc_kind_name(e->kind));
			json_kv_u64(j, "start_ns", e->start_ns);
			json_kv_u64(j, "dur_ns", e->dur_ns);
			json_kv_u64(j, "overlap_ns", overlap_ns(e, r->start_ns, r->end_ns));
			json_kv_str(j, "text", hc_event_phrase(buf, sizeof(buf), e));
			json_obj_end(j);
		}
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}
