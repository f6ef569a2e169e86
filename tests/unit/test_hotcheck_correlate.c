// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hotcheck --correlate: the request file's rules (numbers, comments, bad
 * lines named by their line, hostile lines), the events' phrases and
 * causes, the attribution of each request, and the sweep on many. */
#include "unit.h"
#include "unit_json.h"
#include "clock.h"
#include "msg.h"
#include "json.h"
#include "correlate.h"
#include "event.h"
#include <stdlib.h>

#define S 1000000000ull
#define MS 1000000ull
#define US 1000ull
#define OFF 1700000000000000000ll	/* CLOCK_REALTIME - CLOCK_MONOTONIC */

static struct hc_event evs[] = {
	{ .kind = HC_PREEMPT, .tid = 100, .cpu = 3, .start_ns = 2 * S, .dur_ns = 2100 * US,
	  .what = "", .actor = "rdkafka-metrics", .actor_tid = 812,
	  .stack = "hot;main;serve;compute", .waker_stack = "" },
	{ .kind = HC_SYSCALL, .tid = 100, .cpu = 3, .start_ns = 2 * S + 2500 * US,
	  .dur_ns = 35 * US, .what = "write", .actor = "",
	  .stack = "hot;main;serve;log_write;entry_SYSCALL_64_[k]", .waker_stack = "" },
	{ .kind = HC_BLOCK, .tid = 100, .cpu = 3, .start_ns = 3 * S, .dur_ns = 4 * MS,
	  .what = "futex", .actor = "diag_flusher", .actor_tid = 77,
	  .stack = "hot;main;serve;book_lock;book_lock_wait;futex_wait_[k]",
	  .waker_stack = "diag_flusher;flush_journal;book_unlock;futex_wake_[k]" },
	{ .kind = HC_FAULT, .tid = 100, .cpu = 3, .start_ns = 4 * S + 500 * US, .what = "major",
	  .actor = "", .stack = "hot;main;order_book_grow;asm_exc_page_fault_[k]",
	  .waker_stack = "" },
	{ .kind = HC_INTRUDER, .tid = 0, .cpu = 3, .start_ns = 5 * S, .dur_ns = 12 * US,
	  .what = "irq", .actor = "eth0", .actor_tid = 24, .stack = "", .waker_stack = "" },
	{ .kind = HC_PREEMPT, .tid = 100, .cpu = 3, .start_ns = 6 * S, .dur_ns = 500 * MS,
	  .what = "", .actor = "rdkafka-metrics", .actor_tid = 812,
	  .stack = "hot;main;serve;compute", .waker_stack = "" },
	{ .kind = HC_FAULT, .tid = 100, .cpu = 3, .start_ns = 6 * S + 200 * MS, .what = "minor",
	  .actor = "", .stack = "hot;main;order_book_grow", .waker_stack = "" },
	{ .kind = HC_SIGNAL, .tid = 100, .cpu = 3, .start_ns = 7 * S, .what = "SIGUSR1",
	  .actor = "kill", .actor_tid = 5, .stack = "", .waker_stack = "" },
	{ .kind = HC_MIGRATE, .tid = 100, .cpu = 5, .start_ns = 7 * S + 500 * MS,
	  .what = "cpu 3 -> 5", .actor = "", .stack = "", .waker_stack = "" },
};

static struct hc_timeline tl = {
	.ev = evs,
	.n = ARRAY_SIZE(evs),
	.realtime_offset_ns = OFF,
	.window_start_ns = 1 * S,
	.window_end_ns = 11 * S,
};

static const char requests_mono[] =
	"# slow requests of the order book\n"
	"2.003000000 2500000\n"		/* preemption 1.6 ms, write 35 us */
	"\n"
	"3004000000 0.005\r\n"		/* the block, 4 ms */
	"   4.001   # no latency: the 1 ms before\n"	/* the major fault */
	"5.000010000\t100000\n"		/* the IRQ, 10 us of it */
	"6.1 1000000\n"			/* inside the long preemption */
	"6.200000000 1000000\n"		/* the preemption and a fault at its end */
	"8.0 1000\n"			/* nothing */
	"0.5 1000\n";			/* before the window */

static const char summary_want[] =
	"5 of 8 slow requests explained: 3 by preemption by rdkafka-metrics (tid 812), "
	"1 by blocks woken by diag_flusher (tid 77), 1 by page faults in order_book_grow; "
	"3 unexplained (1 outside the recording window, 1 overlapped by too little: under half)\n";

static int read_text(struct hc_requests *rq, const char *text, size_t len, enum hc_clock clock,
		     char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, len, "r");
	int r = hc_requests_read_stream(rq, f, "slow.txt", clock, err, errlen);

	fclose(f);
	return r;
}

static void summary_of(FILE *f, void *arg)
{
	hc_correlation_summary(f, arg);
}

/* The summary of the requests in text (n bytes, CLOCK_MONOTONIC) against
 * t is want */
static void check_summary(const struct hc_timeline *t, const char *text, size_t n,
			  const char *want, const char *what)
{
	struct hc_requests rq;
	struct hc_correlation c;
	char err[256];

	read_text(&rq, text, n, HC_CLOCK_MONO, err, sizeof(err));
	hc_correlate(&c, t, &rq, HC_CORR_DEFAULT_WINDOW_NS);
	CHECK_CAPTURE(summary_of, &c, want, "%s", what);
	hc_correlation_free(&c);
	hc_requests_free(&rq);
}

static void print_of(FILE *f, void *arg)
{
	hc_correlation_print(f, arg);
}

UNIT_JSON_OF(json_of, hc_correlation_json)

static void test_phrases(void)
{
	char buf[512];
	size_t n;
	const char *leaf;

	CHECK_STR(hc_event_phrase(buf, sizeof(buf), &evs[0]),
		  "preempted by rdkafka-metrics (tid 812) for 2.1 ms", "phrase: preemption");
	CHECK_STR(hc_event_phrase(buf, sizeof(buf), &evs[1]), "syscall write took 35 us in log_write",
		  "phrase: syscall, at its user leaf");
	CHECK_STR(hc_event_phrase(buf, sizeof(buf), &evs[2]),
		  "blocked in futex for 4.0 ms, woken by diag_flusher (tid 77) from book_unlock",
		  "phrase: block, its waker and the waker's leaf");
	CHECK_STR(hc_event_phrase(buf, sizeof(buf), &evs[3]), "page fault (major) at order_book_grow",
		  "phrase: page fault");
	CHECK_STR(hc_event_phrase(buf, sizeof(buf), &evs[4]), "IRQ 24 (eth0) for 12 us", "phrase: IRQ");
	CHECK_STR(hc_event_phrase(buf, sizeof(buf), &evs[7]), "signal SIGUSR1 from kill (tid 5)",
		  "phrase: signal");
	CHECK_STR(hc_event_phrase(buf, sizeof(buf), &evs[8]), "migrated (cpu 3 -> 5)",
		  "phrase: migration");
	{
		/* as collect.c makes them: a softirq's actor_tid is its vector */
		struct hc_event sirq = { .kind = HC_INTRUDER, .dur_ns = 11 * US, .what = "softirq",
					 .actor = "RCU", .actor_tid = 9, .stack = "",
					 .waker_stack = "" };
		struct hc_event task = sirq;

		CHECK_STR(hc_event_phrase(buf, sizeof(buf), &sirq), "softirq RCU for 11 us",
			  "phrase: a softirq, its vector no tid");
		CHECK_STR(hc_event_cause(buf, sizeof(buf), &sirq), "softirq RCU on the CPU",
			  "cause: a softirq, its vector no tid");
		task.what = "task";
		task.actor = "stats";
		CHECK_STR(hc_event_cause(buf, sizeof(buf), &task), "task stats (tid 9) on the CPU",
			  "cause: a task on the CPU, with its tid");
	}
	CHECK_STR(hc_event_cause(buf, sizeof(buf), &evs[1]), "syscalls in log_write",
		  "cause: syscalls by leaf");
	CHECK_STR(hc_event_cause(buf, sizeof(buf), &evs[2]), "blocks woken by diag_flusher (tid 77)",
		  "cause: blocks by waker");
	CHECK_STR(hc_event_cause(buf, sizeof(buf), &evs[8]), "migrations (cpu 3 -> 5)",
		  "cause: migrations by what");
	CHECK_STR(hc_event_cause(buf, sizeof(buf), &evs[7]), "signals from kill (tid 5)",
		  "cause: signals by sender");

	leaf = hc_stack_leaf("hot;main;foo;bar_[k]", &n);
	CHECK(leaf && n == 3 && !strncmp(leaf, "foo", 3), "leaf: the last user frame before kernel ones");
	leaf = hc_stack_leaf("hot;a_[k];b_[k]", &n);
	CHECK(leaf && n == 5 && !strncmp(leaf, "b_[k]", 5), "leaf: the last kernel frame without user ones");
	CHECK(!hc_stack_leaf("hot", &n) && n == 0, "leaf: the comm alone is no leaf");
	CHECK(!hc_stack_leaf("hot;[unknown];[user stack lost]", &n), "leaf: marks are no leaf");
	CHECK(!hc_stack_leaf("", &n) && !hc_stack_leaf(NULL, &n), "leaf: no stack, no leaf");

	fmt_dur(buf, sizeof(buf), 999, DUR_TEXT);
	CHECK_STR(buf, "999 ns", "duration in ns");
	fmt_dur(buf, sizeof(buf), 35999, DUR_TEXT);
	CHECK_STR(buf, "35 us", "duration in whole us");
	fmt_dur(buf, sizeof(buf), 2100000, DUR_TEXT);
	CHECK_STR(buf, "2.1 ms", "duration in ms");
	fmt_dur(buf, sizeof(buf), 1250000000, DUR_TEXT);
	CHECK_STR(buf, "1.25 s", "duration in s");
}

/* One line through hc_request_parse: its message, or "" */
static const char *parse1(const char *line, size_t len, struct hc_request *r)
{
	static char err[256];

	err[0] = 0;
	if (hc_request_parse(line, len, r, err, sizeof(err)) < 0)
		return err;
	return "";
}

/* line's message is that bad (a field and its quoted text) is not a number */
static void check_nan(const char *line, size_t len, const char *bad, const char *what)
{
	char want[256];
	struct hc_request r;

	snprintf(want, sizeof(want), "bad %s: not a number (integer nanoseconds, or seconds "
		 "with a fraction: 12345.678901234)", bad);
	CHECK_STR(parse1(line, len, &r), want, "%s", what);
}

/* Lines hc_request_parse refuses, with their messages */
static const struct bad_line {
	const char *line;
	size_t len;
	const char *want, *what;
} bad_lines[] = {
	{ "18446744073.709551616", 21,
	  "bad timestamp \"18446744073.709551616\": out of range (more than 2^64-1 ns)",
	  "one more ns is out of range" },
	{ "18446744073709551616", 20,
	  "bad timestamp \"18446744073709551616\": out of range (more than 2^64-1 ns)",
	  "one more integer ns is out of range" },
	{ "99999999999999999999999999999999999999999999999", 47,
	  "bad timestamp \"9999999999999999999999999999999999999999...\": out of range (more than "
	  "2^64-1 ns)", "a huge number: out of range, quoted cut" },
	{ "-5", 2, "bad timestamp \"-5\": a negative number", "negative" },
	{ "5. 1", 4, "bad timestamp \"5.\": no digit after the point", "a point without digits" },
	{ "1.5 2.0000000001", 16, "bad latency \"2.0000000001\": more than 9 digits after the point "
	  "(nanoseconds are the finest)", "a tenth fraction digit" },
	{ "1 2 3", 5, "bad text after the latency \"3\": one timestamp and one latency a line",
	  "a third field" },
	{ "12\0 34", 6, "a NUL byte at column 3", "a NUL byte" },
};

static void test_numbers(void)
{
	struct hc_request r;
	char want[256];

	CHECK_STR(parse1("12345.678901234 35", 18, &r), "", "seconds with a fraction and ns");
	CHECK_U64(r.ts_ns, 12345678901234ull, "12345.678901234 s is 12345678901234 ns");
	CHECK(r.has_latency && r.latency_ns == 35, "latency 35 ns");
	CHECK_STR(parse1("7.5", 3, &r), "", "a short fraction");
	CHECK_U64(r.ts_ns, 7500000000ull, "7.5 s");
	CHECK(!r.has_latency, "no latency");
	CHECK_STR(parse1("18446744073.709551615", 21, &r), "", "the largest time");
	CHECK_U64(r.ts_ns, UINT64_MAX, "2^64-1 ns");
	CHECK_STR(parse1("18446744073709551615 0", 22, &r), "", "the largest integer");
	CHECK(r.has_latency && r.latency_ns == 0, "latency 0: an instant");
	check_nan("12a4 5", 6, "timestamp \"12a4\"", "letters in a timestamp");
	check_nan("100 1e6", 7, "latency \"1e6\"", "an exponent is not a number");
	check_nan(".5", 2, "timestamp \".5\"", "a fraction needs its integer");
	CHECK_STR(parse1("1 2 # served late", 17, &r), "", "a comment after the fields");
	for (size_t i = 0; i < ARRAY_SIZE(bad_lines); i++)
		CHECK_STR(parse1(bad_lines[i].line, bad_lines[i].len, &r), bad_lines[i].want, "%s",
			  bad_lines[i].what);
	check_nan("\x1b[31m", 5, "timestamp \"\\x1b[31m\"", "a control byte is escaped in the message");
	CHECK(hc_request_parse("  # x", 5, &r, want, sizeof(want)) == 0, "a comment is skipped");
	CHECK(hc_request_parse(" \t ", 3, &r, want, sizeof(want)) == 0, "a blank line is skipped");
}

static void test_file_errors(void)
{
	struct hc_requests rq;
	char err[512], *big;
	int r;
	static const char bad_line[] = "# header\n\n100 5\nbad\n200\n";
	size_t n;

	r = read_text(&rq, bad_line, sizeof(bad_line) - 1, HC_CLOCK_MONO, err, sizeof(err));
	CHECK(r == -1, "a bad line fails the file");
	CHECK_STR(err,
		  "slow.txt:4: bad timestamp \"bad\": not a number (integer nanoseconds, or seconds "
		  "with a fraction: 12345.678901234)",
		  "the message names FILE:LINE");
	hc_requests_free(&rq);

	/* a line of 300 digits; a comment of 300 bytes is skipped whole */
	big = malloc(2000);
	n = (size_t)sprintf(big, "#%0300d\n1 2\n", 0);
	r = read_text(&rq, big, n, HC_CLOCK_MONO, err, sizeof(err));
	CHECK(r == 0 && rq.n == 1 && rq.v[0].line == 2, "an over-long comment is skipped");
	hc_requests_free(&rq);
	n = (size_t)sprintf(big, "1 2\n%0300d\n", 0);
	r = read_text(&rq, big, n, HC_CLOCK_MONO, err, sizeof(err));
	CHECK(r == -1, "an over-long line fails");
	CHECK_STR(err, "slow.txt:2: longer than 256 bytes", "an over-long line is named");
	hc_requests_free(&rq);
	free(big);

	/* one request more than the bound */
	n = 2 * (HC_CORR_MAX_REQUESTS + 1);
	big = malloc(n);
	for (size_t i = 0; i < n; i += 2)
		big[i] = '1', big[i + 1] = '\n';
	r = read_text(&rq, big, n, HC_CLOCK_MONO, err, sizeof(err));
	CHECK(r == -1 && rq.n == HC_CORR_MAX_REQUESTS, "at most 1000000 requests are kept");
	CHECK_STR(err,
		  "slow.txt:1000001: more than 1000000 requests: give the slow requests of the "
		  "window only",
		  "the bound is named at its line");
	hc_requests_free(&rq);
	/* the bound itself is fine */
	r = read_text(&rq, big, n - 2, HC_CLOCK_MONO, err, sizeof(err));
	CHECK(r == 0 && rq.n == HC_CORR_MAX_REQUESTS, "1000000 requests are read");
	hc_requests_free(&rq);
	free(big);

	CHECK(hc_requests_read(&rq, "/nonexistent/slow.txt", HC_CLOCK_MONO, err, sizeof(err)) == -1,
	      "a missing file fails");
	CHECK_STR(err, "cannot open /nonexistent/slow.txt: No such file or directory",
		  "a missing file is named");
	hc_requests_free(&rq);
	CHECK(hc_requests_read(&rq, "/tmp", HC_CLOCK_MONO, err, sizeof(err)) == -1,
	      "a directory fails");
	CHECK_STR(err, "/tmp is a directory, not a file of requests", "a directory is named");
	hc_requests_free(&rq);

	enum hc_clock c;

	CHECK(hc_clock_parse("mono", &c) == 0 && c == HC_CLOCK_MONO, "--clock mono");
	CHECK(hc_clock_parse("real", &c) == 0 && c == HC_CLOCK_REAL, "--clock real");
	CHECK(hc_clock_parse("boot", &c) == -1, "--clock boot is refused");
}

static void check_scenario(const struct hc_timeline *t, const char *text, enum hc_clock clock,
			   const char *what)
{
	struct hc_requests rq;
	struct hc_correlation c;
	char err[256];

	CHECK(read_text(&rq, text, strlen(text), clock, err, sizeof(err)) == 0, "%s: read", what);
	CHECK_U64(rq.n, 8, "%s: 8 requests", what);
	CHECK(rq.v[1].line == 4 && rq.v[2].line == 5 && rq.v[7].line == 10,
	      "%s: requests keep their lines", what);
	CHECK(hc_correlate(&c, t, &rq, HC_CORR_DEFAULT_WINDOW_NS) == 0, "%s: correlate", what);
	CHECK_CAPTURE(summary_of, &c, summary_want, "%s: the summary", what);
	CHECK(c.res[0].cause == 0 && c.res[0].covered_ns == 1600 * US && c.res[0].n_events == 2,
	      "%s: request 1: the preemption covers 1.6 ms, 2 events", what);
	CHECK(c.res[5].n_events == 2 && c.res[5].cause == 0 && c.res[5].covered_ns == 1 * MS,
	      "%s: the preemption (1 ms) beats the instant fault", what);
	CHECK(c.res[6].state == HC_REQ_NO_EVENT && c.res[7].state == HC_REQ_OUTSIDE,
	      "%s: unexplained: no event, outside", what);
	CHECK_U64(c.causes[0].covered_ns, 1600 * US + 1 * MS + 1 * MS,
		  "%s: the preemption covered 3.6 ms of its requests", what);
	hc_correlation_free(&c);
	hc_requests_free(&rq);
}

static const char print_want[] =
	"5 of 8 slow requests explained: 3 by preemption by rdkafka-metrics (tid 812), "
	"1 by blocks woken by diag_flusher (tid 77), 1 by page faults in order_book_grow; "
	"3 unexplained (1 outside the recording window, 1 overlapped by too little: under half)\n"
	"slow requests of slow.txt (clock mono; without a latency, the 1.0 ms before):\n"
	"  line 2: 2.003000000, latency 2.5 ms: preemption by rdkafka-metrics (tid 812), 1.6 ms of 2.5 ms\n"
	"    preempted by rdkafka-metrics (tid 812) for 2.1 ms\n"
	"    syscall write took 35 us in log_write\n"
	"  line 4: 3.004000000, latency 5.0 ms: blocks woken by diag_flusher (tid 77), 4.0 ms of 5.0 ms\n"
	"    blocked in futex for 4.0 ms, woken by diag_flusher (tid 77) from book_unlock\n"
	"  line 5: 4.001000000, window 1.0 ms: page faults in order_book_grow, 0 ns of 1.0 ms\n"
	"    page fault (major) at order_book_grow\n"
	"  line 6: 5.000010000, latency 100 us: unexplained: what overlaps it covers too little of it (most: IRQ 24 (eth0) on the CPU, 10 us of 100 us); nothing recorded covers 90 us of its 100 us\n"
	"    IRQ 24 (eth0) for 12 us\n"
	"  line 7: 6.100000000, latency 1.0 ms: preemption by rdkafka-metrics (tid 812), 1.0 ms of 1.0 ms\n"
	"    preempted by rdkafka-metrics (tid 812) for 500.0 ms\n"
	"  line 8: 6.200000000, latency 1.0 ms: preemption by rdkafka-metrics (tid 812), 1.0 ms of 1.0 ms\n"
	"    preempted by rdkafka-metrics (tid 812) for 500.0 ms\n"
	"    page fault (minor) at order_book_grow\n"
	"  line 9: 8.000000000, latency 1 us: unexplained: no recorded event in its interval; nothing recorded covers 1 us of its 1 us\n"
	"  line 10: 0.500000000, latency 1 us: unexplained: outside the recording window\n";

static void test_scenario(void)
{
	struct hc_event rev[ARRAY_SIZE(evs)];
	struct hc_timeline t2 = tl;
	char real[2048], *p = real;
	const char *line = requests_mono;
	struct hc_requests rq;
	struct hc_correlation c;
	char err[256];

	check_scenario(&tl, requests_mono, HC_CLOCK_MONO, "mono");
	/* the events in reverse order: the same answers */
	for (size_t i = 0; i < ARRAY_SIZE(evs); i++)
		rev[i] = evs[ARRAY_SIZE(evs) - 1 - i];
	t2.ev = rev;
	check_scenario(&t2, requests_mono, HC_CLOCK_MONO, "mono, events unsorted");

	/* the same requests on CLOCK_REALTIME, as integer ns */
	while (*line) {
		const char *nl = strchr(line, '\n');
		struct hc_request r;
		char tmp[256];

		size_t ln = (size_t)(nl - line);

		if (ln && line[ln - 1] == '\r')
			ln--;
		if (hc_request_parse(line, ln, &r, tmp, sizeof(tmp)) == 1) {
			p += sprintf(p, "%" PRIu64, r.ts_ns + (uint64_t)OFF);
			if (r.has_latency)
				p += sprintf(p, " %" PRIu64, r.latency_ns);
		} else {
			p += sprintf(p, "#");
		}
		*p++ = '\n';
		line = nl + 1;
	}
	*p = 0;
	check_scenario(&tl, real, HC_CLOCK_REAL, "real");

	read_text(&rq, requests_mono, strlen(requests_mono), HC_CLOCK_MONO, err, sizeof(err));
	hc_correlate(&c, &tl, &rq, HC_CORR_DEFAULT_WINDOW_NS);
	CHECK_CAPTURE(print_of, &c, print_want, "the report of every request");
	{
		char *js = unit_capture(json_of, &c);

		CHECK(strstr(js, "\"requests\":8,\"explained\":5,\"unexplained\":3,\"outside_window\":1,\"too_little\":1") != NULL,
		      "JSON: the counts");
		CHECK(strstr(js, "{\"cause\":\"preemption by rdkafka-metrics (tid 812)\",\"kind\":\"preempt\",\"requests\":3,\"covered_ns\":3600000}") != NULL,
		      "JSON: the first cause");
		CHECK(strstr(js, "{\"line\":5,\"ts_ns\":4001000000,\"latency_ns\":null,\"start_mono_ns\":4000000000,\"end_mono_ns\":4001000000,\"state\":\"explained\",\"cause\":\"page faults in order_book_grow\",\"covered_ns\":0,\"uncovered_ns\":1000000,\"events\":1,\"shown\":[{\"kind\":\"fault\",\"start_ns\":4000500000,\"dur_ns\":0,\"overlap_ns\":0,\"text\":\"page fault (major) at order_book_grow\"}]}") != NULL,
		      "JSON: a request without latency");
		CHECK(strstr(js, "{\"line\":10,\"ts_ns\":500000000,\"latency_ns\":1000,\"start_mono_ns\":499999000,\"end_mono_ns\":500000000,\"state\":\"outside_window\",\"covered_ns\":0,\"uncovered_ns\":1000,\"events\":0,\"shown\":[]}") != NULL,
		      "JSON: an unexplained request is listed");
		free(js);
	}
	hc_correlation_free(&c);
	hc_requests_free(&rq);

	/* an empty file: nothing to explain */
	read_text(&rq, "# none\n", 7, HC_CLOCK_MONO, err, sizeof(err));
	hc_correlate(&c, &tl, &rq, HC_CORR_DEFAULT_WINDOW_NS);
	CHECK_CAPTURE(summary_of, &c, "0 of 0 slow requests explained\n", "no request");
	hc_correlation_free(&c);
	hc_requests_free(&rq);
}

/* One request over 10 events: the 8 longest overlaps shown, in time order */
static void test_shown(void)
{
	struct hc_event e[10];
	struct hc_timeline t = { .ev = e, .n = 10, .window_start_ns = 0, .window_end_ns = 100 * S };
	struct hc_requests rq;
	struct hc_correlation c;
	char err[256];
	static const char want[] =
		"0 of 1 slow requests explained; 1 unexplained (1 overlapped by too little: under half)\n"
		"slow requests of slow.txt (clock mono; without a latency, the 1.0 ms before):\n"
		"  line 1: 2.000000000, latency 1.00 s: unexplained: what overlaps it covers too little of it (most: syscalls (read), 41 us of 1.00 s); nothing recorded covers 1000.0 ms of its 1.00 s\n"
		"    syscall read took 2 us\n"
		"    syscall read took 3 us\n"
		"    syscall read took 4 us\n"
		"    syscall read took 5 us\n"
		"    syscall read took 6 us\n"
		"    syscall read took 7 us\n"
		"    syscall read took 3 us\n"
		"    syscall read took 8 us\n"
		"    ... and 2 more events\n";
	static const uint64_t dur_us[10] = { 1, 2, 3, 4, 5, 6, 7, 3, 8, 2 };

	for (int i = 0; i < 10; i++)
		e[i] = (struct hc_event){ .kind = HC_SYSCALL, .start_ns = 1 * S + (uint64_t)i * MS,
					  .dur_ns = dur_us[i] * US, .what = "read", .actor = "",
					  .stack = "", .waker_stack = "" };
	read_text(&rq, "2.0 1.0\n", 8, HC_CLOCK_MONO, err, sizeof(err));
	hc_correlate(&c, &t, &rq, HC_CORR_DEFAULT_WINDOW_NS);
	/* the 2 us ones tie for the last place: the earlier (event 1) is kept */
	CHECK_CAPTURE(print_of, &c, want, "the longest 8 overlaps, in time order, and the rest counted");
	hc_correlation_free(&c);
	hc_requests_free(&rq);
}

/* A preemption by X and X's stay on the CPU cover a request alike: the
 * hot thread's event names the cause, whichever came first.  And a
 * summary of many causes names the first HC_CORR_SUMMARY_CAUSES. */
static void test_thread_first(void)
{
	struct hc_event e[9] = {
		{ .kind = HC_INTRUDER, .tid = 0, .start_ns = 1 * S, .dur_ns = 2 * MS, .what = "task",
		  .actor = "stats", .actor_tid = 9, .stack = "", .waker_stack = "" },
		{ .kind = HC_PREEMPT, .tid = 100, .start_ns = 1 * S, .dur_ns = 2 * MS,
		  .what = "preempted", .actor = "stats", .actor_tid = 9, .stack = "",
		  .waker_stack = "" },
	};
	struct hc_timeline t = { .ev = e, .n = 2, .window_start_ns = 0, .window_end_ns = 9 * S };
	struct hc_requests rq;
	struct hc_correlation c;
	char err[256], text[512];
	size_t len = 0;

	read_text(&rq, "1.002 2000000\n", 15, HC_CLOCK_MONO, err, sizeof(err));
	CHECK(hc_correlate(&c, &t, &rq, HC_CORR_DEFAULT_WINDOW_NS) == 0, "tie: correlate");
	CHECK_CAPTURE(summary_of, &c,
		      "1 of 1 slow requests explained: 1 by preemption by stats (tid 9)\n",
		      "tie: the preemption, not the task on the CPU seen first");
	hc_correlation_free(&c);
	hc_requests_free(&rq);

	/* a futex call of 4.1 ms, 4 ms of it blocked: the block explains */
	e[0] = (struct hc_event){ .kind = HC_SYSCALL, .tid = 100, .start_ns = 1 * S,
				  .dur_ns = 4100 * US, .what = "futex", .actor = "",
				  .stack = "hot;lock_wait", .waker_stack = "" };
	e[1] = (struct hc_event){ .kind = HC_BLOCK, .tid = 100, .start_ns = 1 * S + 50 * US,
				  .dur_ns = 4 * MS, .what = "futex", .actor = "flusher",
				  .actor_tid = 77, .stack = "hot;lock_wait",
				  .waker_stack = "flusher;unlock" };
	check_summary(&t, "1.0042 5000000\n", 15,
		      "1 of 1 slow requests explained: 1 by blocks woken by flusher (tid 77)\n",
		      "a blocking syscall: its block names the cause");
	/* blocked 4 ms while another task ran 5 ms on the CPU: the block */
	e[0] = (struct hc_event){ .kind = HC_INTRUDER, .tid = 0, .start_ns = 1 * S,
				  .dur_ns = 5 * MS, .what = "task", .actor = "other",
				  .actor_tid = 50, .stack = "", .waker_stack = "" };
	check_summary(&t, "1.0042 5000000\n", 15,
		      "1 of 1 slow requests explained: 1 by blocks woken by flusher (tid 77)\n",
		      "blocked while another task ran: the block names the cause");
	e[0] = (struct hc_event){ .kind = HC_SYSCALL, .tid = 100, .start_ns = 1 * S,
				  .dur_ns = 4100 * US, .what = "futex", .actor = "",
				  .stack = "hot;lock_wait", .waker_stack = "" };
	/* a write of 4.1 ms, 1 ms of it blocked: the syscall explains */
	e[0].what = "write";
	e[1].dur_ns = 1 * MS;
	check_summary(&t, "1.0042 5000000\n", 15,
		      "1 of 1 slow requests explained: 1 by syscalls in lock_wait\n",
		      "a syscall mostly on CPU: the syscall names the cause");

	for (int i = 0; i < 8; i++) {
		static char actors[8][8];

		snprintf(actors[i], sizeof(actors[i]), "t%d", i);
		e[i] = (struct hc_event){ .kind = HC_PREEMPT, .tid = 100,
					  .start_ns = 2 * S + (uint64_t)i * 10 * MS,
					  .dur_ns = (uint64_t)(9 - i) * MS, .what = "preempted",
					  .actor = actors[i], .actor_tid = (uint32_t)i + 1,
					  .stack = "", .waker_stack = "" };
		len += (size_t)sprintf(text + len, "%" PRIu64 "\n", (uint64_t)(2 * S + (uint64_t)i * 10 * MS + MS / 2));
	}
	t.n = 8;
	check_summary(&t, text, len,
		      "8 of 8 slow requests explained: 1 by preemption by t0 (tid 1), "
		      "1 by preemption by t1 (tid 2), 1 by preemption by t2 (tid 3), "
		      "1 by preemption by t3 (tid 4), 1 by preemption by t4 (tid 5), "
		      "1 by preemption by t5 (tid 6), 2 by 2 other causes\n",
		      "summary: six causes named, the others counted");
}

/* Many requests, many events: each request its own event, and one
 * request over all of them */
static void test_many(void)
{
	size_t m = 100000;
	struct hc_event *e = calloc(m, sizeof(*e));
	struct hc_timeline t = { .ev = e, .n = m, .window_start_ns = 1 * S, .window_end_ns = 3 * S };
	size_t len = 0, cap = m * 40;
	char *text = malloc(cap), err[256];
	struct hc_requests rq;
	struct hc_correlation c;

	for (size_t i = 0; i < m; i++) {
		e[i] = (struct hc_event){ .kind = HC_PREEMPT, .start_ns = 1 * S + i * 10 * US,
					  .dur_ns = 1 * US, .what = "",
					  .actor = i % 2 ? "b" : "a", .actor_tid = i % 2 ? 2 : 1,
					  .stack = "", .waker_stack = "" };
		len += (size_t)sprintf(text + len, "%" PRIu64 " 1000\n",
				       (uint64_t)(1 * S + i * 10 * US + 1500));
	}
	len += (size_t)sprintf(text + len, "3000000000 2000000000\n");
	CHECK(read_text(&rq, text, len, HC_CLOCK_MONO, err, sizeof(err)) == 0, "many: read");
	CHECK(hc_correlate(&c, &t, &rq, HC_CORR_DEFAULT_WINDOW_NS) == 0, "many: correlate");
	CHECK_CAPTURE(summary_of, &c,
		      "100000 of 100001 slow requests explained: 50000 by preemption by a (tid 1), "
		      "50000 by preemption by b (tid 2); 1 unexplained (1 overlapped by too little: under half)\n",
		      "many: each request its event; the one over all covered by too little (50 ms of its 2 s)");
	CHECK_U64(c.res[m].n_events, m, "many: the request over all overlaps all 100000 events");
	CHECK_U64(c.res[m].covered_ns, 50000 * US, "many: its cause covers 50 ms");
	CHECK(c.res[12345].n_events == 1 && c.res[12345].covered_ns == 500,
	      "many: request 12345 overlaps its event by 500 ns");
	hc_correlation_free(&c);
	hc_requests_free(&rq);
	free(text);
	free(e);
}

/* Stolen time: made-up readings of CPU 1's steal time.  A request that a
 * step covers is explained by the hypervisor, with the amount and the two
 * readings; one nothing covers says how much of it nothing covers and,
 * where the hypervisor does not report steal time, that it can be
 * neither ruled in nor out. */
static void test_steal(void)
{
	/* readings at 2.000 s and 2.001 s: 310 us stolen between them */
	struct hc_event e[2] = {
		{ .kind = HC_STEAL, .cpu = 1, .start_ns = 2 * S, .dur_ns = 1 * MS,
		  .stolen_ns = 310 * US, .what = "steal", .actor = "", .stack = "",
		  .waker_stack = "" },
		{ .kind = HC_INTRUDER, .tid = 0, .cpu = 1, .start_ns = 3 * S, .dur_ns = 100 * US,
		  .what = "task", .actor = "stats", .actor_tid = 9, .stack = "",
		  .waker_stack = "" },
	};
	struct hc_timeline t = { .ev = e, .n = 2, .window_start_ns = 1 * S, .window_end_ns = 9 * S,
				 .steal_reported = true };
	struct hc_requests rq;
	struct hc_correlation c;
	char err[256];
	/* 1: 400 us inside the readings: 310 us stolen covers more than half;
	 * 2: 400 us with 100 us of another task; 3: 300 us with nothing */
	static const char req[] = "2.0006 400000\n3.0003 400000\n5.0003 300000\n";

	read_text(&rq, req, strlen(req), HC_CLOCK_MONO, err, sizeof(err));
	CHECK(hc_correlate(&c, &t, &rq, HC_CORR_DEFAULT_WINDOW_NS) == 0, "steal: correlate");
	CHECK(c.res[0].state == HC_REQ_EXPLAINED && c.res[0].covered_ns == 310 * US,
	      "steal: the request inside the readings is explained by the 310 us stolen");
	CHECK_U64(c.res[0].uncovered_ns, 90 * US, "steal: 90 us of it not covered");
	CHECK(c.res[1].state == HC_REQ_TOO_LITTLE && c.res[1].uncovered_ns == 300 * US,
	      "steal: a request covered by 100 us of 400: 300 us not covered");
	CHECK(c.res[2].state == HC_REQ_NO_EVENT && c.res[2].uncovered_ns == 300 * US,
	      "steal: a request nothing covers: all 300 us not covered");
	CHECK_CAPTURE(print_of, &c,
		"1 of 3 slow requests explained: 1 by the hypervisor holding CPU 1 (steal time); "
		"2 unexplained (1 overlapped by too little: under half)\n"
		"slow requests of slow.txt (clock mono; without a latency, the 1.0 ms before):\n"
		"  line 1: 2.000600000, latency 400 us: the hypervisor holding CPU 1 (steal time), 310 us of 400 us\n"
		"    the hypervisor held CPU 1 for 310 us (its steal time grew by that between two "
		"readings 1.0 ms apart, at 2.000000000 and 2.001000000)\n"
		"  line 2: 3.000300000, latency 400 us: unexplained: what overlaps it covers too little "
		"of it (most: task stats (tid 9) on the CPU, 100 us of 400 us); nothing recorded "
		"covers 300 us of its 400 us (nor steal time: the hypervisor reports it)\n"
		"    task stats (tid 9) for 100 us\n"
		"  line 3: 5.000300000, latency 300 us: unexplained: no recorded event in its "
		"interval; nothing recorded covers 300 us of its 300 us (nor steal time: the "
		"hypervisor reports it)\n",
		"steal: the hypervisor named with the amount and the readings; the rest says what nothing covers");
	hc_correlation_free(&c);
	hc_requests_free(&rq);

	/* the hypervisor does not report steal time: no step, and the
	 * request nothing covers says it cannot be ruled in or out */
	t.n = 0;
	t.steal_reported = false;
	t.steal_unknown = "steal time is not reported by the hypervisor on this machine";
	read_text(&rq, "2.0006 400000\n", 14, HC_CLOCK_MONO, err, sizeof(err));
	hc_correlate(&c, &t, &rq, HC_CORR_DEFAULT_WINDOW_NS);
	CHECK_U64(c.res[0].uncovered_ns, 400 * US, "not reported: all 400 us not covered");
	CHECK_CAPTURE(print_of, &c,
		"0 of 1 slow requests explained; 1 unexplained\n"
		"slow requests of slow.txt (clock mono; without a latency, the 1.0 ms before):\n"
		"  line 1: 2.000600000, latency 400 us: unexplained: no recorded event in its "
		"interval; nothing recorded covers 400 us of its 400 us (steal time is not reported "
		"by the hypervisor on this machine: it can be neither ruled in nor out)\n",
		"not reported: the uncovered amount, and steal time neither ruled in nor out");
	{
		char *js = unit_capture(json_of, &c);

		CHECK(strstr(js, "\"steal_unknown\":\"steal time is not reported by the hypervisor on this machine\"") &&
		      strstr(js, "\"uncovered_ns\":400000"),
		      "not reported: JSON steal_unknown and uncovered_ns");
		free(js);
	}
	hc_correlation_free(&c);
	hc_requests_free(&rq);
}

int main(void)
{
	tool_name = "hotcheck";
	test_phrases();
	test_numbers();
	test_file_errors();
	test_scenario();
	test_shown();
	test_thread_first();
	test_many();
	test_steal();
	return unit_exit();
}
