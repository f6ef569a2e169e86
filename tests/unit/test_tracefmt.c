// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The Trace Event Format writer (--trace FILE): the document's shape,
 * times in microseconds with three decimals exactly, names escaped, the
 * tracks' metadata; a path that cannot be opened, a file that cannot be
 * written (said, naming it). */
#include "unit.h"
#include "msg.h"
#include "tracefmt.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static char *slurp(const char *path)
{
	char *buf = calloc(1, 65536);
	FILE *f = fopen(path, "r");

	if (f) {
		fread(buf, 1, 65535, f);
		fclose(f);
	}
	return buf;
}

static void doc(struct tracefmt *t)
{
	struct json *j;

	tracefmt_begin(t);
	tracefmt_process(t, TRACEFMT_CPU_PID, "CPUs");
	tracefmt_cpu_track(t, 3);
	tracefmt_thread(t, 42, 43, "a\"b\n", 7);
	tracefmt_ev_begin(t, 'X', "comm\x01 (43)", "task", 42, 43, 1234567);
	tracefmt_ev_dur(t, 999);
	j = tracefmt_args_begin(t);
	json_kv_u64(j, "tid", 43);
	tracefmt_args_end(t);
	tracefmt_ev_end(t);
	tracefmt_ev_begin(t, 'i', "getppid", NULL, 42, 43, 20000000000123ull);
	tracefmt_ev_end(t);
	j = tracefmt_meta_begin(t, &(struct tracefmt_window){ 1000, 20000000001000ull, 5 });
	json_kv_u64(j, "kept", 2);
}

static const char want[] =
	"{\"displayTimeUnit\":\"ms\",\"traceEvents\":["
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1073741824,\"tid\":1073741824,"
	"\"args\":{\"name\":\"CPUs\"}},"
	"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1073741824,\"tid\":1073741828,"
	"\"args\":{\"name\":\"CPU 3\"}},"
	"{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1073741824,\"tid\":1073741828,"
	"\"args\":{\"sort_index\":3}},"
	"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":42,\"tid\":43,"
	"\"args\":{\"name\":\"a\\\"b\\n\"}},"
	"{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":42,\"tid\":43,"
	"\"args\":{\"sort_index\":7}},"
	"{\"ph\":\"X\",\"name\":\"comm\\u0001 (43)\",\"cat\":\"task\",\"pid\":42,\"tid\":43,"
	"\"ts\":1234.567,\"dur\":0.99900000000002365,\"args\":{\"tid\":43}},"
	"{\"ph\":\"i\",\"name\":\"getppid\",\"pid\":42,\"tid\":43,"
	"\"ts\":20000000000.123,\"s\":\"t\"}"
	"],\"otherData\":{\"tool\":\"tracefmt\",\"version\":\"" SUITE_VERSION "\","
	"\"clock\":\"CLOCK_MONOTONIC\",\"realtime_offset_us\":0.005,"
	"\"window_start_us\":1.000,\"window_end_us\":20000000001.000,\"kept\":2}}\n";

static void test_doc(const char *dir)
{
	char path[256], *got;
	struct tracefmt t;

	snprintf(path, sizeof(path), "%s/t.json", dir);
	CHECK(!tracefmt_open(&t, path), "opens %s", path);
	doc(&t);
	CHECK(!tracefmt_close(&t), "closes it, written");
	CHECK_U64(t.events, 7, "seven events written (metadata included)");
	got = slurp(path);
	CHECK_STR(got, want, "the document: metadata, a slice, an instant, otherData");
	free(got);
}

/* Slices that end where the next begins, at times whose thousandths a
 * double does not hold (speedscope added them and saw overlaps): read
 * back as doubles, ts + dur is the next ts exactly, and ts * 1000 and
 * dur * 1000 round to the ns written, for starts from 1 ns to 20 days
 * (up to 2^41 us, 25 days, a double holds a ts to a quarter of a ns) */
static void test_exact(const char *dir)
{
	static const uint64_t starts[] = { 1, 999, 33512244051151ull, 33512252101893ull,
					   86400000000000ull * 20 + 123456789 };
	static const uint64_t durs[] = { 747039, 7124, 1, 999999, 3, 250000001 };
	int sums = 0, rounds = 0, n = 0;
	char path[256], *got, *p;
	struct tracefmt t;

	snprintf(path, sizeof(path), "%s/x.json", dir);
	CHECK(!tracefmt_open(&t, path), "opens %s", path);
	tracefmt_begin(&t);
	for (size_t i = 0; i < sizeof(starts) / sizeof(*starts); i++) {
		uint64_t at = starts[i];

		for (size_t k = 0; k < sizeof(durs) / sizeof(*durs); k++) {
			tracefmt_ev_begin(&t, 'X', "s", NULL, 1, 1, at);
			tracefmt_ev_dur(&t, durs[k]);
			tracefmt_ev_end(&t);
			at += durs[k];
		}
		tracefmt_ev_begin(&t, 'i', "end", NULL, 1, 1, at);
		tracefmt_ev_end(&t);
	}
	tracefmt_meta_begin(&t, &(struct tracefmt_window){ 1, 2, 0 });
	CHECK(!tracefmt_close(&t), "closes it, written");
	got = slurp(path);
	p = got;
	for (size_t i = 0; i < sizeof(starts) / sizeof(*starts); i++) {
		uint64_t at = starts[i];

		for (size_t k = 0; k <= sizeof(durs) / sizeof(*durs); k++) {
			double ts, dur = 0, next;
			char *q;

			p = strstr(p, "\"ts\":") + 5;
			ts = strtod(p, &q);
			rounds += (uint64_t)(ts * 1000 + 0.5) == at;
			if (k == sizeof(durs) / sizeof(*durs))
				break;
			dur = strtod(strstr(q, "\"dur\":") + 6, NULL);
			next = strtod(strstr(q, "\"ts\":") + 5, NULL);
			sums += ts + dur == next;
			rounds += (uint64_t)(dur * 1000 + 0.5) == durs[k];
			at += durs[k];
			n++;
		}
	}
	CHECK(sums == n && n == 30, "ts + dur == the next ts, exactly (%d of %d)", sums, n);
	CHECK(rounds == 65, "ts * 1000 and dur * 1000 round to their ns (%d of 65)", rounds);
	free(got);
}

static void test_bad(const char *dir)
{
	char path[256], log[256], *msg, w[512];
	struct tracefmt t;
	pid_t pid;
	int st;

	snprintf(path, sizeof(path), "%s/no/such/dir.json", dir);
	CHECK(tracefmt_open(&t, path) == -1 && errno == ENOENT,
	      "a path in a directory that does not exist: -1, ENOENT");
	CHECK(tracefmt_open(&t, "") == -1 && errno == ENOENT, "an empty path: -1, ENOENT");

	/* a file that takes no more than 100 bytes: said, -1 */
	snprintf(path, sizeof(path), "%s/full.json", dir);
	snprintf(log, sizeof(log), "%s/full.stderr", dir);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 100, 100 };
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(fd, 2);
		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		if (tracefmt_open(&t, path))
			_exit(10);
		doc(&t);
		_exit(tracefmt_close(&t) == -1 ? 0 : 11);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a failed write fails the close (%d)", st);
	msg = slurp(log);
	snprintf(w, sizeof(w), "tracefmt: --trace: cannot write %s: File too large\n", path);
	CHECK_STR(msg, w, "the failure names the file and the error");
	free(msg);
}

int main(void)
{
	char base[64];

	tool_name = "tracefmt";
	if (unit_tmpdir(base, sizeof(base), "tracefmt"))
		return 1;
	test_doc(base);
	test_exact(base);
	test_bad(base);
	unit_tmpdir_remove(base);
	return unit_exit();
}
