// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The Prometheus text writer (mtext.h): label values from traced
 * processes, HELP escaping, histogram lines; and --metrics' address
 * parser (http.h). */
#include "unit.h"
#include "mtext.h"
#include "http.h"
#include "msg.h"
#include <arpa/inet.h>
#include <netinet/in.h>

static const char *one(const char *value)
{
	static struct mtext t;
	struct mlabel l = { "comm", value };

	t.n = 0;
	mtext_u64(&t, "x_total", &l, 1, 7);
	return t.v;
}

static void test_labels(void)
{
	struct mtext t = { 0 };
	struct mlabel two[] = { { "a", "1" }, { "b", "" } };

	CHECK_STR(one("futex"), "x_total{comm=\"futex\"} 7\n", "plain value");
	CHECK_STR(one("a\"b"), "x_total{comm=\"a\\\"b\"} 7\n", "a double quote as \\\"");
	CHECK_STR(one("a\\b"), "x_total{comm=\"a\\\\\\\\b\"} 7\n",
		  "a backslash: the suite's \\\\, each escaped for the format");
	CHECK_STR(one("a\nb"), "x_total{comm=\"a\\\\x0ab\"} 7\n",
		  "a newline: \\x0a (suite), its backslash escaped: one line");
	CHECK_STR(one("\x1b[31m"), "x_total{comm=\"\\\\x1b[31m\"} 7\n", "ESC as \\\\x1b");
	CHECK_STR(one("\xff\xfe"), "x_total{comm=\"\\\\xff\\\\xfe\"} 7\n",
		  "bytes that are not UTF-8: \\\\xNN each (the value stays valid UTF-8)");
	CHECK_STR(one("caf\xc3\xa9"), "x_total{comm=\"caf\xc3\xa9\"} 7\n", "valid UTF-8 kept");
	CHECK_STR(one("\xe2\x80\xae"), "x_total{comm=\"\\\\xe2\\\\x80\\\\xae\"} 7\n",
		  "a bidirectional override escaped");
	mtext_u64(&t, "y", NULL, 0, 18446744073709551615ull);
	mtext_u64(&t, "z", two, 2, 0);
	CHECK_STR(t.v, "y 18446744073709551615\nz{a=\"1\",b=\"\"} 0\n",
		  "no labels: no braces; two labels; the largest u64");
	mtext_free(&t);
	mtext_family(&t, "x_total", "counter", "line one\nback\\slash \"quoted\"");
	CHECK_STR(t.v, "# HELP x_total line one\\nback\\\\slash \"quoted\"\n# TYPE x_total counter\n",
		  "HELP escapes backslash and newline, keeps quotes");
	mtext_free(&t);
}

static void test_fixed(void)
{
	struct mtext t = { 0 };

	mtext_fixed(&t, "a", NULL, 0, 1024, 9);
	mtext_fixed(&t, "b", NULL, 0, 17179869184ull, 9);
	mtext_fixed(&t, "c", NULL, 0, 3000000000ull, 9);
	mtext_fixed(&t, "d", NULL, 0, 0, 9);
	mtext_fixed(&t, "e", NULL, 0, 42, 0);
	CHECK_STR(t.v, "a 0.000001024\nb 17.179869184\nc 3\nd 0\ne 42\n",
		  "v / 10^scale written exactly, trailing zeros trimmed");
	mtext_free(&t);
}

static void test_hist(void)
{
	static struct hist h;
	struct mtext t = { 0 };
	struct mlabel l = { "syscall", "read" };
	const struct mbounds *b = &mbounds_ns_pow4;
	char want[4096];
	size_t o = 0;

	/* the bounds are slot bounds: a bucket holds whole slots */
	for (size_t i = 0; i < b->n; i++)
		CHECK(hist_slot_low(hist_slot(b->b[i])) == b->b[i] &&
		      (i == 0 || b->b[i] == 4 * b->b[i - 1]),
		      "bound %zu (%llu ns) is a slot's low bound, 4x the one before", i,
		      (unsigned long long)b->b[i]);
	CHECK(b->n == 13 && b->b[0] == 1024 && b->scale == 9, "2^10 .. 2^34 ns, as seconds");
	/* 3 calls of 1023 ns (below 2^10), 2 of exactly 1024 ns (the next
	 * bucket: le counts the values below it), 1 of 5 s, 1 of 60 s */
	h.slots[hist_slot(1023)] = 3;
	h.slots[hist_slot(1024)] = 2;
	h.slots[hist_slot(5000000000ull)] = 1;
	h.slots[hist_slot(60000000000ull)] = 1;
	h.count = 6;	/* read while the BPF side adds: the slots win */
	h.sum = 3 * 1023 + 2 * 1024 + 5000000000ull + 60000000000ull;
	mtext_hist(&t, "x_seconds", &l, 1, &h, b);
	{
		static const char *const le[] = { "0.000001024", "0.000004096", "0.000016384",
			"0.000065536", "0.000262144", "0.001048576", "0.004194304", "0.016777216",
			"0.067108864", "0.268435456", "1.073741824", "4.294967296", "17.179869184" };
		static const int cum[] = { 3, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6 };

		for (int i = 0; i < 13; i++)
			o += (size_t)snprintf(want + o, sizeof(want) - o,
					      "x_seconds_bucket{syscall=\"read\",le=\"%s\"} %d\n",
					      le[i], cum[i]);
	}
	snprintf(want + o, sizeof(want) - o,
		 "x_seconds_bucket{syscall=\"read\",le=\"+Inf\"} 7\n"
		 "x_seconds_sum{syscall=\"read\"} 65.000005117\n"
		 "x_seconds_count{syscall=\"read\"} 7\n");
	CHECK_STR(t.v, want, "cumulative buckets, +Inf = count = the slots' sum, exact sum");
	mtext_free(&t);
	memset(&h, 0, sizeof(h));
	mtext_hist(&t, "e", NULL, 0, &h, b);
	CHECK(strstr(t.v, "e_bucket{le=\"0.000001024\"} 0\n") && strstr(t.v, "e_count 0\n") &&
	      strstr(t.v, "e_sum 0\n"), "an empty histogram without labels");
	mtext_free(&t);
}

static void addr(const char *s, int want_rc, int fam, const char *host, int port)
{
	struct sockaddr_storage sa;
	socklen_t len;
	char err[256] = "", got[64] = "";
	int rc = http_parse_addr(s, &sa, &len, err, sizeof(err)), p = -1;

	if (!rc && sa.ss_family == AF_INET) {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, got, sizeof(got));
		p = ntohs(((struct sockaddr_in *)&sa)->sin_port);
	} else if (!rc) {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, got, sizeof(got));
		p = ntohs(((struct sockaddr_in6 *)&sa)->sin6_port);
	}
	if (want_rc)
		CHECK(rc == -1 && err[0], "'%s' refused: %s", s, err);
	else
		CHECK(rc == 0 && sa.ss_family == fam && !strcmp(got, host) && p == port,
		      "'%s' -> %s port %d (got %s %d, %s)", s, host, port, got, p, err);
}

static void test_addr(void)
{
	addr("9433", 0, AF_INET, "127.0.0.1", 9433);
	addr(":9433", 0, AF_INET, "127.0.0.1", 9433);
	addr("0.0.0.0:80", 0, AF_INET, "0.0.0.0", 80);
	addr("10.1.2.3:0", 0, AF_INET, "10.1.2.3", 0);
	addr("[::1]:9100", 0, AF_INET6, "::1", 9100);
	addr("[::]:9100", 0, AF_INET6, "::", 9100);
	addr("65536", -1, 0, NULL, 0);
	addr("-1", -1, 0, NULL, 0);
	addr("12abc", -1, 0, NULL, 0);
	addr("", -1, 0, NULL, 0);
	addr("localhost:80", -1, 0, NULL, 0);
	addr("1.2.3:80", -1, 0, NULL, 0);
	addr("1.2.3.4:", -1, 0, NULL, 0);
	addr("::1:80", -1, 0, NULL, 0);
	addr("[::1]", -1, 0, NULL, 0);
	addr("[zz]:80", -1, 0, NULL, 0);
}

int main(void)
{
	tool_name = "test_metrics";
	test_labels();
	test_fixed();
	test_hist();
	test_addr();
	return unit_exit();
}
