// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hotcheck --baseline: what is refused (another tool, another version,
 * malformed, oversized, not a file) and the side-by-side of an accepted
 * one, check by check. */
#include "unit.h"
#include "unit_json.h"
#include "msg.h"
#include "json.h"
#include "baseline.h"
#include "compare.h"
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define VER "0.1.0"

static const char good[] =
	"{\"tool\":\"hotcheck\",\"version\":\"0.1.0\",\"duration_s\":3.0,\n"
	" \"checks\":[\n"
	"  {\"check\":\"syscalls\",\"silent\":true,\"count\":0,\"time_ns\":0,\"top_cause\":\"\",\"fix\":\"\"},\n"
	"  {\"check\":\"preemptions\",\"silent\":false,\"count\":87,\"time_ns\":174200000,"
	"\"top_cause\":\"rdkafka-metrics (tid 812)\",\"fix\":\"move it off CPU 3\"},\n"
	"  {\"check\":\"blocks\",\"silent\":false,\"count\":2,\"time_ns\":40000000,\"top_cause\":\"futex\",\"fix\":\"\"},\n"
	"  {\"check\":\"page faults\",\"silent\":false,\"count\":5,\"time_ns\":0,\"top_cause\":\"order_book_grow\",\"fix\":\"mlockall\"},\n"
	"  {\"check\":\"signals\",\"silent\":false,\"count\":1,\"time_ns\":0,\"top_cause\":\"kill\",\"fix\":\"\"},\n"
	"  {\"check\":\"irqs\",\"silent\":true,\"count\":0,\"time_ns\":0},\n"
	"  {\"check\":\"isolation\",\"silent\":false,\"count\":1,\"time_ns\":0}\n"
	" ],\n"
	" \"losses\":{\"ringbuf_full\":0}}\n";

static const struct hc_check now[] = {
	{ .name = "syscalls", .silent = true, .top_cause = "", .fix = "" },
	{ .name = "preemptions", .silent = true, .top_cause = "", .fix = "" },
	{ .name = "blocks", .count = 2, .time_ns = 39100000, .top_cause = "futex", .fix = "" },
	{ .name = "page faults", .count = 9, .top_cause = "order_book_grow", .fix = "" },
	{ .name = "signals", .count = 1, .top_cause = "kill", .fix = "" },
	{ .name = "irqs", .count = 4, .time_ns = 48000, .top_cause = "eth0", .fix = "" },
	{ .name = "migrations", .count = 3, .top_cause = "", .fix = "" },
};

static const char table_want[] =
	"against the baseline base.json (hotcheck 0.1.0):\n"
	"CHECK            BEFORE                 AFTER                  CHANGE\n"
	"syscalls         SILENT                 SILENT                 same\n"
	"preemptions      87 (174.2 ms)          SILENT                 fixed\n"
	"blocks           2 (40.0 ms)            2 (39.1 ms)            better\n"
	"page faults      5                      9                      worse\n"
	"signals          1                      1                      same\n"
	"irqs             SILENT                 4 (48 us)              new\n"
	"migrations       -                      3                      new\n"
	"isolation        1                      -                      not checked now\n";

static void table_of(FILE *f, void *arg)
{
	hc_compare_print(f, arg);
}

UNIT_JSON_OF(json_of, hc_compare_json)

/* The message that refuses text, "" when it is accepted */
static const char *refusal(const char *text, size_t len)
{
	static char err[512];
	struct hc_baseline b;

	err[0] = 0;
	if (!hc_baseline_parse(&b, text, len, "base.json", VER, err, sizeof(err)))
		err[0] = 0;
	hc_baseline_free(&b);
	return err;
}

#define REFUSAL(s) refusal((s), sizeof(s) - 1)

static void test_refused(void)
{
	char deep[400], *p = deep;

	CHECK_STR(REFUSAL("{\"tool\":\"syswatch\",\"version\":\"0.1.0\",\"syscalls\":[]}"),
		  "base.json is a report of syswatch, not of hotcheck", "another tool is refused");
	CHECK_STR(REFUSAL("{\"tool\":\"hotcheck\",\"version\":\"0.0.9\",\"checks\":[]}"),
		  "base.json is from hotcheck 0.0.9, this is 0.1.0: compare runs of one version",
		  "another version is refused");
	CHECK_STR(REFUSAL("{\"tool\":\"hotcheck\",\"checks\":[]}"), "base.json: no \"version\"",
		  "no version is refused");
	CHECK_STR(REFUSAL("{\"version\":\"0.1.0\",\"checks\":[]}"),
		  "base.json: not a report of the suite (no \"tool\")", "no tool is refused");
	CHECK_STR(REFUSAL("{\"tool\":\"\\u001b[31mevil\",\"version\":\"0.1.0\"}"),
		  "base.json is a report of \\x1b[31mevil, not of hotcheck",
		  "a hostile tool name is escaped");
	CHECK_STR(REFUSAL("{\"tool\":\"hotcheck\",\n\"version\":"),
		  "base.json:2: not valid JSON: it ends too early", "a cut document is refused");
	CHECK_STR(REFUSAL("{\"tool\":\"hotcheck\"}\n{}"),
		  "base.json:2: not valid JSON: unexpected character", "a second document is refused");
	CHECK_STR(REFUSAL("\n\n{\"tool\" \"hotcheck\"}"),
		  "base.json:3: not valid JSON: object property name separator ':' expected",
		  "a syntax error is named at its line");
	CHECK_STR(REFUSAL("[1,2]"), "base.json: not a hotcheck report (not a JSON object)",
		  "an array is refused");
	CHECK_STR(REFUSAL("{\"tool\":\"hotcheck\",\"version\":\"0.1.0\"}"),
		  "base.json: no \"checks\" array", "no checks is refused");
	CHECK_STR(REFUSAL("{\"tool\":\"hot\0check\"}"), "base.json:1: a NUL byte: not a JSON document",
		  "a NUL byte is refused");
	CHECK_STR(REFUSAL("{\"tool\":\"hotcheck\",\"version\":\"0.1.0\",\"checks\":"
			  "[{\"check\":\"blocks\",\"silent\":false,\"count\":-1,\"time_ns\":0}]}"),
		  "base.json: check \"blocks\": \"count\" is not a non-negative integer",
		  "a negative count is refused");
	CHECK_STR(REFUSAL("{\"tool\":\"hotcheck\",\"version\":\"0.1.0\",\"checks\":"
			  "[{\"check\":\"blocks\",\"silent\":false,\"count\":1.5,\"time_ns\":0}]}"),
		  "base.json: check \"blocks\": \"count\" is not a non-negative integer",
		  "a fractional count is refused");
	CHECK_STR(REFUSAL("{\"tool\":\"hotcheck\",\"version\":\"0.1.0\",\"checks\":"
			  "[{\"check\":\"blocks\",\"silent\":false,\"count\":1,"
			  "\"time_ns\":99999999999999999999999}]}"),
		  "base.json: check \"blocks\": \"time_ns\" is not a non-negative integer",
		  "a time beyond 64 bits is refused");
	CHECK_STR(REFUSAL("{\"tool\":\"hotcheck\",\"version\":\"0.1.0\",\"checks\":"
			  "[{\"check\":\"blocks\",\"silent\":\"no\",\"count\":1,\"time_ns\":0}]}"),
		  "base.json: check \"blocks\": \"silent\" is not true or false",
		  "a silent that is no boolean is refused");
	CHECK_STR(REFUSAL("{\"tool\":\"hotcheck\",\"version\":\"0.1.0\",\"checks\":"
			  "[{\"check\":\"irqs\",\"silent\":true,\"count\":0,\"time_ns\":0},"
			  "{\"check\":\"irqs\",\"silent\":true,\"count\":0,\"time_ns\":0}]}"),
		  "base.json: check \"irqs\" appears twice", "a check twice is refused");
	CHECK_STR(REFUSAL("{\"tool\":\"hotcheck\",\"version\":\"0.1.0\",\"checks\":[7]}"),
		  "base.json: checks[0] is not an object", "a check that is no object is refused");
	CHECK_STR(REFUSAL("{\"tool\":\"hotcheck\",\"version\":\"0.1.0\",\"checks\":"
			  "[{\"silent\":true,\"count\":0,\"time_ns\":0}]}"),
		  "base.json: checks[0] has no \"check\" name", "a check without name is refused");
	CHECK_STR(REFUSAL("{\"tool\":\"hotcheck\",\"version\":\"0.1.0\",\"checks\":[],}"),
		  "base.json:1: not valid JSON: unexpected character", "strict JSON: no trailing comma");
	for (int i = 0; i < 100; i++)
		*p++ = '[';
	*p = 0;
	CHECK_STR(refusal(deep, strlen(deep)), "base.json:1: not valid JSON: nesting too deep",
		  "nesting beyond 64 is refused");
	CHECK_STR(REFUSAL(""), "base.json:1: not valid JSON: it ends too early", "an empty file");
}

static void test_files(void)
{
	char dir[64], path[128], err[512];
	struct hc_baseline b;
	int fd;

	if (unit_tmpdir(dir, sizeof(dir), "hc-base"))
		return;
	snprintf(path, sizeof(path), "%s/big.json", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0 && ftruncate(fd, HC_BASELINE_MAX_BYTES + 1) == 0, "a sparse file of 64 MiB + 1");
	close(fd);
	CHECK(hc_baseline_load(&b, path, VER, err, sizeof(err)) == -1, "an oversized file fails");
	CHECK(strstr(err, "big.json is larger than 64 MiB: not a hotcheck verdict") != NULL,
	      "an oversized file is named: %s", err);
	hc_baseline_free(&b);

	snprintf(path, sizeof(path), "%s/fifo", dir);
	CHECK(mkfifo(path, 0600) == 0, "a FIFO");
	CHECK(hc_baseline_load(&b, path, VER, err, sizeof(err)) == -1, "a FIFO is refused at once");
	CHECK(strstr(err, "/fifo is not a regular file") != NULL, "a FIFO is named: %s", err);
	hc_baseline_free(&b);

	CHECK(hc_baseline_load(&b, "/nonexistent.json", VER, err, sizeof(err)) == -1,
	      "a missing file fails");
	CHECK_STR(err, "cannot open /nonexistent.json: No such file or directory",
		  "a missing file is named");
	hc_baseline_free(&b);

	snprintf(path, sizeof(path), "%s/good.json", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	CHECK(write(fd, good, sizeof(good) - 1) == (ssize_t)sizeof(good) - 1, "a good baseline file");
	close(fd);
	CHECK(hc_baseline_load(&b, path, VER, err, sizeof(err)) == 0, "a good file is read");
	CHECK_U64(b.n, 7, "its 7 checks");
	CHECK(b.checks[1].count == 87 && b.checks[1].time_ns == 174200000 && !b.checks[1].silent,
	      "preemptions: 87, 174.2 ms");
	hc_baseline_free(&b);
	unit_tmpdir_remove(dir);
}

static void test_compare(void)
{
	struct hc_baseline b;
	struct hc_compare c;
	char err[256], *js;

	CHECK(hc_baseline_parse(&b, good, sizeof(good) - 1, "base.json", VER, err, sizeof(err)) == 0,
	      "the baseline is accepted");
	hc_compare_build(&c, &b, now, ARRAY_SIZE(now));
	CHECK_U64(c.n, 8, "8 rows: 7 now, 1 of the baseline only");
	CHECK_CAPTURE(table_of, &c, table_want, "the side-by-side");
	js = unit_capture(json_of, &c);
	CHECK(strstr(js, "{\"check\":\"preemptions\",\"before\":{\"silent\":false,\"count\":87,"
			 "\"time_ns\":174200000},\"after\":{\"silent\":true,\"count\":0,\"time_ns\":0},"
			 "\"change\":\"fixed\"}") != NULL,
	      "JSON: a fixed check");
	CHECK(strstr(js, "{\"check\":\"migrations\",\"before\":null,\"after\":{\"silent\":false,"
			 "\"count\":3,\"time_ns\":0},\"change\":\"new\"}") != NULL,
	      "JSON: a check not in the baseline");
	CHECK(strstr(js, "{\"check\":\"isolation\",\"before\":{\"silent\":false,\"count\":1,"
			 "\"time_ns\":0},\"after\":null,\"change\":\"not checked now\"}") != NULL,
	      "JSON: a check not made now");
	CHECK(!strncmp(js, "{\"baseline\":{\"file\":\"base.json\",\"version\":\"0.1.0\",\"checks\":[",
		       strlen("{\"baseline\":{\"file\":\"base.json\",\"version\":\"0.1.0\",\"checks\":[")),
	      "JSON: the baseline object");
	free(js);
	hc_compare_free(&c);
	hc_baseline_free(&b);
}

int main(void)
{
	tool_name = "hotcheck";
	test_refused();
	test_files();
	test_compare();
	return unit_exit();
}
