// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hotcheck -o DIR: which directories are refused, every file of the
 * bundle as written, a file planted in the way, and a write that fails. */
#include "unit.h"
#include "msg.h"
#include "bundle.h"
#include "correlate.h"
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define S 1000000000ull
#define MS 1000000ull
#define US 1000ull

static struct hc_event evs[] = {
	{ .kind = HC_SYSCALL, .tid = 100, .cpu = 3, .start_ns = 2 * S, .dur_ns = 35 * US,
	  .what = "write", .actor = "", .stack = "hot;main;log_write", .waker_stack = "" },
	{ .kind = HC_PREEMPT, .tid = 100, .cpu = 3, .start_ns = 2 * S + 1 * MS, .dur_ns = 2100 * US,
	  .what = "", .actor = "rdkafka-metrics", .actor_tid = 812, .stack = "hot;main;compute",
	  .waker_stack = "" },
	{ .kind = HC_SYSCALL, .tid = 100, .cpu = 3, .start_ns = 2 * S + 5 * MS, .dur_ns = 10 * US,
	  .what = "write", .actor = "", .stack = "hot;main;log_write", .waker_stack = "" },
	{ .kind = HC_SYSCALL, .tid = 100, .cpu = 3, .start_ns = 2 * S + 6 * MS, .dur_ns = 5 * US,
	  .what = "read", .actor = "", .stack = "", .waker_stack = "" },
	{ .kind = HC_BLOCK, .tid = 100, .cpu = 3, .start_ns = 3 * S, .dur_ns = 4 * MS,
	  .what = "futex", .actor = "diag_flusher", .actor_tid = 77,
	  .stack = "hot;main;book_lock_wait",
	  .waker_stack = "diag_flusher;flush_journal;book_unlock" },
	{ .kind = HC_BLOCK, .tid = 100, .cpu = 3, .start_ns = 3 * S + 10 * MS, .dur_ns = 1500,
	  .what = "", .actor = "kworker/0:1", .actor_tid = 9, .stack = "", .waker_stack = "" },
	{ .kind = HC_FAULT, .tid = 100, .cpu = 3, .start_ns = 4 * S, .what = "minor", .actor = "",
	  .stack = "hot;main;order_book_grow", .waker_stack = "" },
	{ .kind = HC_FAULT, .tid = 100, .cpu = 3, .start_ns = 4 * S + 1, .what = "minor",
	  .actor = "", .stack = "hot;main;order_book_grow", .waker_stack = "" },
	{ .kind = HC_FAULT, .tid = 100, .cpu = 3, .start_ns = 4 * S + 2, .what = "major",
	  .actor = "", .stack = "hot;main;init", .waker_stack = "" },
	{ .kind = HC_INTRUDER, .tid = 0, .cpu = 3, .start_ns = 5 * S, .dur_ns = 12 * US,
	  .what = "irq", .actor = "eth0", .actor_tid = 24, .stack = "", .waker_stack = "" },
};

static struct hc_check checks[] = {
	{ .name = "syscalls", .count = 3, .time_ns = 50 * US, .top_cause = "write (2)",
	  .fix = "" },
	{ .name = "page faults", .count = 3, .top_cause = "order_book_grow",
	  .fix = "mlockall(MCL_CURRENT | MCL_FUTURE)" },
	{ .name = "signals", .silent = true, .top_cause = "", .fix = "" },
};

static struct hc_timeline tl = {
	.ev = evs,
	.n = ARRAY_SIZE(evs),
	.realtime_offset_ns = 1700000000000000000ll,
	.window_start_ns = 1 * S,
	.window_end_ns = 7 * S,
	.checks = checks,
	.n_checks = ARRAY_SIZE(checks),
	.events_dropped = 2,
};

static void write_json(FILE *f, void *arg)
{
	fprintf(f, "{\"tool\":\"hotcheck\",\"n\":%d}\n", *(int *)arg);
}

static char *slurp(const char *dir, const char *name)
{
	char path[256], *buf = calloc(1, 65536);
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, 65535) : -1;
	if (fd >= 0)
		close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

#define CHECK_FILE(dir, name, want)                                            \
	do {                                                                   \
		char *got_ = slurp((dir), (name));                             \
		CHECK_STR(got_, (want), "%s as written", (name));              \
		free(got_);                                                    \
	} while (0)

static const char tsv_want[] =
	HC_TSV_HEADER
	"2000000000\t1700000002000000000\tsyscall\t100\t3\t35000\twrite\t\t0\thot;main;log_write\t\n"
	"2001000000\t1700000002001000000\tpreempt\t100\t3\t2100000\t\trdkafka-metrics\t812\thot;main;compute\t\n"
	"2005000000\t1700000002005000000\tsyscall\t100\t3\t10000\twrite\t\t0\thot;main;log_write\t\n"
	"2006000000\t1700000002006000000\tsyscall\t100\t3\t5000\tread\t\t0\t\t\n"
	"3000000000\t1700000003000000000\tblock\t100\t3\t4000000\tfutex\tdiag_flusher\t77\thot;main;book_lock_wait\tdiag_flusher;flush_journal;book_unlock\n"
	"3010000000\t1700000003010000000\tblock\t100\t3\t1500\t\tkworker/0:1\t9\t\t\n"
	"4000000000\t1700000004000000000\tfault\t100\t3\t0\tminor\t\t0\thot;main;order_book_grow\t\n"
	"4000000001\t1700000004000000001\tfault\t100\t3\t0\tminor\t\t0\thot;main;order_book_grow\t\n"
	"4000000002\t1700000004000000002\tfault\t100\t3\t0\tmajor\t\t0\thot;main;init\t\n"
	"5000000000\t1700000005000000000\tintruder\t0\t3\t12000\tirq\teth0\t24\t\t\n";

static const char summary_want[] =
	"window: 6.00 s, CLOCK_MONOTONIC 1000000000 to 7000000000 ns (CLOCK_REALTIME = "
	"CLOCK_MONOTONIC +1700000000000000000 ns)\n"
	"events: 10 recorded, 2 not recorded (not in timeline.tsv)\n"
	"\n"
	"verdict: 1 of 3 checks silent\n"
	"CHECK            VERDICT\n"
	"syscalls         3 (50 us): write (2)\n"
	"page faults      3: order_book_grow; fix: mlockall(MCL_CURRENT | MCL_FUTURE)\n"
	"signals          SILENT\n"
	"\n"
	"correlation: 2 of 3 slow requests explained: 1 by blocks woken by diag_flusher (tid 77), "
	"1 by preemption by rdkafka-metrics (tid 812); 1 unexplained (1 outside the recording "
	"window)\n";

static void test_dirs(const char *base)
{
	struct hc_bundle b;
	char p[256], q[512], err[512];
	struct stat st;
	int fd;

	snprintf(p, sizeof(p), "%s/new", base);
	CHECK(hc_bundle_open(&b, p, err, sizeof(err)) == 0, "a new directory is made");
	CHECK(stat(p, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700,
	      "with mode 0700");
	hc_bundle_close(&b);
	CHECK(hc_bundle_open(&b, p, err, sizeof(err)) == 0, "an empty directory is taken");
	hc_bundle_close(&b);

	snprintf(q, sizeof(q), "%s/new/x", base);
	fd = open(q, O_WRONLY | O_CREAT, 0600);
	close(fd);
	CHECK(hc_bundle_open(&b, p, err, sizeof(err)) == -1, "a non-empty directory is refused");
	snprintf(q, sizeof(q), "%s exists and is not empty: give a new or empty directory", p);
	CHECK_STR(err, q, "and named");

	snprintf(p, sizeof(p), "%s/link", base);
	snprintf(q, sizeof(q), "%s/empty", base);
	mkdir(q, 0700);
	CHECK(symlink(q, p) == 0, "a link to an empty directory");
	CHECK(hc_bundle_open(&b, p, err, sizeof(err)) == -1, "a symbolic link is refused");
	snprintf(q, sizeof(q), "%s is a symbolic link: give a new directory", p);
	CHECK_STR(err, q, "and named");
	strcat(p, "//");
	CHECK(hc_bundle_open(&b, p, err, sizeof(err)) == -1, "a symbolic link with a slash is refused");
	CHECK_STR(err, q, "and named without the slashes");

	snprintf(p, sizeof(p), "%s/dangling", base);
	CHECK(symlink("/nonexistent/dir", p) == 0, "a dangling link");
	CHECK(hc_bundle_open(&b, p, err, sizeof(err)) == -1, "a dangling link is refused");
	CHECK(access("/nonexistent/dir", F_OK) == -1, "and nothing is made where it points");

	snprintf(p, sizeof(p), "%s/new/x", base);
	CHECK(hc_bundle_open(&b, p, err, sizeof(err)) == -1, "a file is refused");
	snprintf(q, sizeof(q), "%s exists and is not a directory", p);
	CHECK_STR(err, q, "and named");

	CHECK(hc_bundle_open(&b, "/nonexistent/bundle", err, sizeof(err)) == -1,
	      "a directory in a missing one fails");
	CHECK_STR(err, "cannot create /nonexistent/bundle: No such file or directory", "and is named");
}

static void test_write(const char *base)
{
	struct hc_bundle b;
	char p[256], err[512];
	int n = 7;
	struct hc_requests rq;
	struct hc_correlation c;
	static const char req[] = "2.003 3000000\n3.004 5000000\n9.0\n";
	FILE *f = fmemopen((void *)req, sizeof(req) - 1, "r");
	struct hc_bundle_src src = { .tl = &tl, .write_json = write_json, .arg = &n, .corr = &c,
				     .target = "hot threads of tid 42" };

	hc_requests_read_stream(&rq, f, "slow.txt", HC_CLOCK_MONO, err, sizeof(err));
	fclose(f);
	hc_correlate(&c, &tl, &rq, HC_CORR_DEFAULT_WINDOW_NS);

	snprintf(p, sizeof(p), "%s/bundle", base);
	CHECK(hc_bundle_open(&b, p, err, sizeof(err)) == 0, "the bundle's directory");
	CHECK(hc_bundle_write(&b, &src) == 0, "the bundle is written");
	hc_bundle_close(&b);
	{
		static const char *const files[][2] = {
			{ "report.json", "{\"tool\":\"hotcheck\",\"n\":7}\n" },
			{ "syscalls.folded", "[no stack] 5\nhot;main;log_write 45\n" },
			{ "faults.folded", "hot;main;init 1\nhot;main;order_book_grow 2\n" },
			{ "blocks.folded", "[no stack] 1\nhot;main;book_lock_wait 4000\n" },
			{ "wakers.folded", "diag_flusher;flush_journal;book_unlock 1\nkworker/0:1 1\n" },
			{ "preemptions.folded", "hot;main;compute 2100\n" },
			{ "timeline.tsv", tsv_want },
			{ "summary.txt", summary_want },
		};

		for (size_t i = 0; i < ARRAY_SIZE(files); i++)
			CHECK_FILE(p, files[i][0], files[i][1]);
	}
	{
		/* beside each folded file its flame graph, of the same lines */
		static const char *const svgs[][2] = {
			{ "syscalls.svg", ">hotcheck: syscalls: time in them of hot threads of tid 42, " },
			{ "faults.svg", ">hotcheck: faults: page faults of hot threads of tid 42, " },
			{ "blocks.svg", "data-v=\"4000\" data-d=\"3\"><title>book_lock_wait (4000 us, " },
			{ "wakers.svg", "<title>kworker/0:1 (1 wakeups, 50.00%)</title>" },
			{ "preemptions.svg", "Total 2100 us;" },
		};

		for (size_t i = 0; i < ARRAY_SIZE(svgs); i++) {
			char *s = slurp(p, svgs[i][0]);

			CHECK(s && strstr(s, svgs[i][1]) && strstr(s, "</svg>\n"), "%s: %s", svgs[i][0],
			      svgs[i][1]);
			free(s);
		}
	}

	/* a file planted in the way is never written through */
	snprintf(p, sizeof(p), "%s/planted", base);
	CHECK(hc_bundle_open(&b, p, err, sizeof(err)) == 0, "another bundle");
	snprintf(err, sizeof(err), "%s/faults.folded", p);
	CHECK(symlink("/etc/passwd-of-nobody", err) == 0, "a link planted as faults.folded");
	CHECK(hc_bundle_write(&b, &src) == -1, "the bundle stops at it");
	hc_bundle_close(&b);
	CHECK(access("/etc/passwd-of-nobody", F_OK) == -1, "the link's target was not made");
	CHECK_FILE(p, "syscalls.folded", "[no stack] 5\nhot;main;log_write 45\n");
	{
		char *s = slurp(p, "timeline.tsv");

		CHECK(s == NULL, "nothing after the failure");
		free(s);
	}
	hc_correlation_free(&c);
	hc_requests_free(&rq);
}

/* A write that fails (the file size limit stands for a full disk): said,
 * naming the file, and the bundle fails */
static void test_full(const char *base)
{
	char p[256], log[256], err[256], want[512], *msg;
	int n = 7, st;
	pid_t pid;

	snprintf(p, sizeof(p), "%s/full", base);
	snprintf(log, sizeof(log), "%s/full.stderr", base);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 300, 300 };
		struct hc_bundle b;
		struct hc_bundle_src src = { .tl = &tl, .write_json = write_json, .arg = &n };
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(fd, 2);
		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		if (hc_bundle_open(&b, p, err, sizeof(err)))
			_exit(10);
		_exit(hc_bundle_write(&b, &src) == -1 ? 0 : 11);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a failed write fails the bundle (%d)", st);
	msg = slurp(base, "full.stderr");
	/* the first file over 300 bytes: the first flame graph */
	snprintf(want, sizeof(want), "hotcheck: -o: cannot write %s/syscalls.svg: File too large\n", p);
	CHECK_STR(msg, want, "the failure names the file and the error");
	free(msg);
	msg = slurp(p, "syscalls.folded");
	CHECK_STR(msg, "[no stack] 5\nhot;main;log_write 45\n", "the files before it are whole");
	free(msg);
}

int main(void)
{
	char base[64];

	tool_name = "hotcheck";
	if (unit_tmpdir(base, sizeof(base), "hc-bundle"))
		return 1;
	test_dirs(base);
	test_write(base);
	test_full(base);
	unit_tmpdir_remove(base);
	return unit_exit();
}
