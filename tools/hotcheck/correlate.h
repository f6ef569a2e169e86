/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --correlate FILE: the application's slow requests against the timeline.
 *
 * FILE has one request a line: its timestamp (when it was served), then
 * optionally blanks and its latency.  A number without '.' is integer
 * nanoseconds; with one it is seconds with a fraction of 1 to 9 digits
 * (12345.678901234).  The timestamp is CLOCK_MONOTONIC or CLOCK_REALTIME
 * (--clock mono|real).  Blank lines and lines whose first non-blank is
 * '#' are skipped; a CR before the newline is ignored.  Limits: a line
 * of HC_CORR_LINE_MAX bytes (a longer comment is skipped whole), at most
 * HC_CORR_MAX_REQUESTS requests (about 100 bytes each in memory).  The
 * first bad line ends the reading with "FILE:LINE: what is wrong".
 *
 * A request's interval is [ts - latency, ts]; without a latency, the
 * default window before ts (HC_CORR_DEFAULT_WINDOW_NS).  An event
 * overlaps it when they share time (an instant event inside it counts).
 * Each event stands for a cause (event.h, hc_event_cause); the request is
 * explained by the cause whose events overlap most of its interval (ties:
 * the hot thread's own events before the CPU's, then more events, then
 * the cause seen first in the window; but a block or preemption beats a
 * syscall, or what ran on the CPU, when it covers half of what that
 * covers: the syscall waited, the CPU ran others because the thread was
 * off it, and the wait names who made it), unexplained when
 * no event overlaps it, or when it lies outside the recording window.
 *
 * Calls, from hotcheck.c: hc_requests_read() when the options are read
 * (a failure is exit 2); after collect, hc_correlate(); in the report,
 * hc_correlation_print() or hc_correlation_json(); bundle.c writes
 * hc_correlation_summary() into summary.txt; then hc_correlation_free()
 * and hc_requests_free(). */
#ifndef HOTCHECK_CORRELATE_H
#define HOTCHECK_CORRELATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "timeline.h"

struct json;

#define HC_CORR_LINE_MAX 256		/* bytes of a line, its newline aside */
#define HC_CORR_MAX_REQUESTS 1000000
#define HC_CORR_DEFAULT_WINDOW_NS 1000000ull	/* 1 ms before ts */
#define HC_CORR_SHOW 8			/* events shown per request, the longest overlaps */
#define HC_CORR_SUMMARY_CAUSES 6	/* causes named in the summary, the rest counted */

enum hc_clock { HC_CLOCK_MONO, HC_CLOCK_REAL };

/* "mono" or "real" into *clock: 0, or -1 */
int hc_clock_parse(const char *s, enum hc_clock *clock);
const char *hc_clock_name(enum hc_clock clock);

struct hc_request {
	uint64_t line;		/* its line in FILE */
	uint64_t ts_ns;		/* as written, in FILE's clock */
	uint64_t latency_ns;
	bool has_latency;
};

struct hc_requests {
	struct hc_request *v;	/* in the file's order */
	size_t n, cap;
	enum hc_clock clock;
	char *path;
};

/* One line (len bytes, no newline) into *r: 1 a request, 0 a line to skip
 * (blank, comment), -1 bad (why in err) */
int hc_request_parse(const char *line, size_t len, struct hc_request *r, char *err,
		     size_t errlen);
/* Every request of path ("-": stdin) into rq: 0, or -1 with
 * "PATH:LINE: why" (or "PATH: why") in err */
int hc_requests_read(struct hc_requests *rq, const char *path, enum hc_clock clock,
		     char *err, size_t errlen);
/* The same from an open stream; name stands for it in messages */
int hc_requests_read_stream(struct hc_requests *rq, FILE *f, const char *name,
			    enum hc_clock clock, char *err, size_t errlen);
void hc_requests_free(struct hc_requests *rq);

#define HC_NO_CAUSE UINT32_MAX

struct hc_corr_cause {
	char *name;		/* hc_event_cause() */
	enum hc_kind kind;
	uint64_t requests;	/* requests it explains */
	uint64_t covered_ns;	/* of their intervals, by its events */
};

/* A request is explained when one cause's events cover half of its
 * interval or more, or, when none does, by instants (faults, signals)
 * inside it; overlapped by less, it is HC_REQ_TOO_LITTLE, with the cause
 * that covers most (nearest) */
#define HC_EXPLAIN_FRACTION 2	/* covered >= interval / 2 */
enum hc_req_state { HC_REQ_EXPLAINED, HC_REQ_NO_EVENT, HC_REQ_OUTSIDE, HC_REQ_TOO_LITTLE };

struct hc_req_result {
	uint64_t start_ns, end_ns;	/* its interval, CLOCK_MONOTONIC */
	enum hc_req_state state;
	uint32_t cause;			/* in causes[], HC_NO_CAUSE */
	uint64_t covered_ns;		/* by the cause's events (at most the interval) */
	uint64_t uncovered_ns;		/* by no event (steal: its amount at most) */
	char *nearest;			/* HC_REQ_TOO_LITTLE: the cause covering most */
	uint64_t n_events;		/* events that overlap it */
	uint32_t n_shown;
	uint32_t shown[HC_CORR_SHOW];	/* in ev[], in time order */
};

/* "explained", "no_event", "outside_window", "too_little" (the JSON's) */
const char *hc_req_state_name(enum hc_req_state s);
struct hc_correlation {
	const struct hc_timeline *tl;
	const struct hc_requests *rq;
	uint64_t window_ns;		/* the interval of a request without latency */
	struct hc_req_result *res;	/* one per request, in the file's order */
	struct hc_corr_cause *causes;	/* most requests first */
	size_t n_causes;
	uint64_t explained, unexplained, outside, too_little;
};

/* rq against tl (events sorted by start or not): 0, or -1 when the
 * timeline holds more events than an index reaches (2^32 - 1) */
int hc_correlate(struct hc_correlation *c, const struct hc_timeline *tl,
		 const struct hc_requests *rq, uint64_t window_ns);
void hc_correlation_free(struct hc_correlation *c);

/* "38 of 41 slow requests explained: 35 by preemption by rdkafka-metrics
 * (tid 812), 3 by page faults in order_book_grow; 3 unexplained" and a
 * newline; past HC_CORR_SUMMARY_CAUSES causes, ", N by M other causes" */
void hc_correlation_summary(FILE *f, const struct hc_correlation *c);
/* The summary, then every request with its events */
void hc_correlation_print(FILE *f, const struct hc_correlation *c);
/* "correlation": { ... } (docs/hotcheck.md), inside the caller's object */
void hc_correlation_json(struct json *j, const struct hc_correlation *c);

#endif
