// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hitmtop's model: the sample text format, data_src classification,
 * aggregation by line, the verdict, and the PMU format files. */
#include "unit.h"
#include "model.h"
#include "pmu.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t ds(unsigned op, unsigned lvl, unsigned snoop, unsigned snoopx, unsigned remote)
{
	union perf_mem_data_src d = { .val = 0 };

	d.mem_op = op;
	d.mem_lvl = lvl;
	d.mem_snoop = snoop;
	d.mem_snoopx = snoopx;
	d.mem_remote = remote;
	d.mem_dtlb = PERF_MEM_TLB_NA;
	return d.val;
}

#define STORE ds(PERF_MEM_OP_STORE, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1, PERF_MEM_SNOOP_NA, 0, 0)
#define HITM ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3, PERF_MEM_SNOOP_HITM, 0, 0)
#define HITM_RMT ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_REM_CCE1, \
		    PERF_MEM_SNOOP_HITM, 0, 1)
#define L1 ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1, PERF_MEM_SNOOP_NONE, 0, 0)

static void add_t(struct hitm_agg *a, unsigned cpu, unsigned tid, uint64_t ip, uint64_t addr,
		  uint64_t src)
{
	struct hitm_sample s = { .type = HITM_EV_SAMPLE, .cpu = cpu, .pid = 7, .tid = tid,
				 .ip = ip, .addr = addr, .data_src = src };

	hitm_agg_sample(a, &s);
}

/* one thread per CPU */
static void add(struct hitm_agg *a, unsigned cpu, uint64_t ip, uint64_t addr, uint64_t src)
{
	add_t(a, cpu, 7 + cpu, ip, addr, src);
}

static enum hitm_verdict verdict_of(struct hitm_agg *a)
{
	struct hitm_view *v;
	size_t n = hitm_views(a, 0, &v);
	enum hitm_verdict r = n ? v[0].verdict : (enum hitm_verdict)-1;

	hitm_views_free(v, n);
	return r;
}

static void test_parse(void)
{
	struct hitm_sample s;
	char err[256];

	CHECK(hitm_parse_line("1 100 101 0x4005d0 0x601040 0x68100142 57\n", &s, err,
			      sizeof(err)) == 1, "a sample line parses");
	CHECK(s.cpu == 1 && s.pid == 100 && s.tid == 101 && s.ip == 0x4005d0 &&
	      s.addr == 0x601040 && s.data_src == 0x68100142 && s.weight == 57,
	      "every field lands in place");
	CHECK(hitm_parse_line("\t2  3\t4 0XAB 10 0x0 0 # trailing comment\r\n", &s, err,
			      sizeof(err)) == 1 && s.ip == 0xab && s.cpu == 2,
	      "tabs, upper-case 0X, CRLF and a trailing comment");
	CHECK(hitm_parse_line("# cpu pid tid\n", &s, err, sizeof(err)) == 0, "a comment is no sample");
	CHECK(hitm_parse_line("   \n", &s, err, sizeof(err)) == 0, "a blank line is no sample");
	CHECK(hitm_parse_line("", &s, err, sizeof(err)) == 0, "an empty line is no sample");
	CHECK(hitm_parse_line("1 2 3 4 5 6\n", &s, err, sizeof(err)) == -1 &&
	      strstr(err, "6 fields"), "6 fields: rejected, counted");
	CHECK(hitm_parse_line("1 2 3 4 5 6 7 8\n", &s, err, sizeof(err)) == -1 &&
	      strstr(err, "more than 7"), "8 fields: rejected");
	CHECK(hitm_parse_line("1 2 3 0xg 5 6 7\n", &s, err, sizeof(err)) == -1 &&
	      strstr(err, "ip '0xg'"), "bad hex names the field");
	CHECK(hitm_parse_line("1 2 3 0x 5 6 7\n", &s, err, sizeof(err)) == -1, "bare 0x rejected");
	CHECK(hitm_parse_line("-1 2 3 4 5 6 7\n", &s, err, sizeof(err)) == -1, "a sign is rejected");
	CHECK(hitm_parse_line("1 2 3 4 5 99999999999999999999 7\n", &s, err, sizeof(err)) == -1 &&
	      strstr(err, "data_src"), "overflow rejected, names data_src");
	CHECK(hitm_parse_line("1 2 3 4 5 0xffffffffffffffff 7\n", &s, err, sizeof(err)) == 1 &&
	      s.data_src == ~0ULL, "UINT64_MAX accepted");
	CHECK(hitm_parse_line("512 2 3 4 5 6 7\n", &s, err, sizeof(err)) == -1 &&
	      strstr(err, "cpu 512"), "a CPU past the limit is rejected");
	CHECK(hitm_parse_line("1 4294967296 3 4 5 6 7\n", &s, err, sizeof(err)) == -1 &&
	      strstr(err, "pid"), "a pid past 32 bits is rejected");
}

static void test_roundtrip(void)
{
	struct hitm_sample in = { .type = HITM_EV_SAMPLE, .cpu = 3, .pid = 42, .tid = 43,
				  .ip = 0x7f0011223344, .addr = 0x55aa00001040,
				  .data_src = HITM_RMT, .weight = 812 }, out;
	char buf[512], err[128];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	hitm_write_header(f, "cpu");
	hitm_write_sample(f, &in);
	fclose(f);
	CHECK(!strncmp(buf, "# hitmtop samples: cpu\n# cpu pid tid", 36), "the header is comments");
	CHECK(hitm_parse_line(strchr(strchr(buf, '\n') + 1, '\n') + 1, &out, err, sizeof(err)) == 1 &&
	      !memcmp(&in, &out, sizeof(in)), "--record output reads back identically");
}

static void test_classify(void)
{
	CHECK_U64(hitm_classify(HITM), HITM_C_LOAD | HITM_C_HITM, "L3 snoop HITM: a local HITM load");
	CHECK_U64(hitm_classify(HITM_RMT), HITM_C_LOAD | HITM_C_HITM | HITM_C_REMOTE,
		  "remote cache HITM: a remote HITM");
	CHECK_U64(hitm_classify(ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_REM_CCE2,
				   PERF_MEM_SNOOP_HITM, 0, 0)),
		  HITM_C_LOAD | HITM_C_HITM | HITM_C_REMOTE, "REM_CCE2 without the remote bit is remote");
	CHECK_U64(hitm_classify(ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT, PERF_MEM_SNOOP_NA,
				   PERF_MEM_SNOOPX_PEER, 0)),
		  HITM_C_LOAD | HITM_C_HITM, "AMD: a load from a peer cache counts as HITM");
	CHECK_U64(hitm_classify(L1), HITM_C_LOAD, "L1 hit: a load, no HITM");
	CHECK_U64(hitm_classify(ds(PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3,
				   PERF_MEM_SNOOP_HIT, 0, 0)), HITM_C_LOAD, "snoop HIT is not HITM");
	CHECK_U64(hitm_classify(STORE), HITM_C_STORE, "a store");
	CHECK_U64(hitm_classify(ds(PERF_MEM_OP_STORE, PERF_MEM_LVL_L1, PERF_MEM_SNOOP_HITM, 0, 0)),
		  HITM_C_STORE, "a store with a HITM snoop is not a HITM load");
	CHECK_U64(hitm_classify(ds(PERF_MEM_OP_NA, PERF_MEM_LVL_NA, PERF_MEM_SNOOP_NA, 0, 0)), 0,
		  "op N/A: neither");
	CHECK_U64(hitm_classify(0), 0, "zero: neither");
}

static void test_agg(void)
{
	struct hitm_agg a;
	struct hitm_line *l;

	hitm_agg_init(&a);
	add(&a, 0, 0x10, 0x1008, L1);
	CHECK_U64(a.skips[HITM_SKIP_COLD_LOAD], 1, "a non-HITM load on a new line is not counted");
	CHECK_U64(a.nlines, 0, "... and creates no line");
	add(&a, 0, 0x10, 0x1000, STORE);
	add(&a, 1, 0x20, 0x1008, L1);
	add(&a, 1, 0x20, 0x1008, HITM);
	add(&a, 2, 0x20, 0x103f, HITM_RMT);
	add(&a, 2, 0x20, 0x1040, HITM);
	add(&a, 2, 0x20, 0, HITM);
	add(&a, 2, 0x20, HITM_USER_ADDR_END, HITM);
	add(&a, 2, 0x20, 0x1000, 0);
	l = hitm_agg_find(&a, 7, 0x1000);
	CHECK(l != NULL, "the line of 0x1000..0x103f exists");
	CHECK(l && l->c.hitm == 2 && l->c.hitm_local == 1 && l->c.hitm_remote == 1,
	      "2 HITMs: 1 local, 1 remote");
	CHECK(l && l->c.loads == 3 && l->c.stores == 1, "3 loads (one without HITM), 1 store");
	CHECK(l && hitm_cpu_count(l->c.cpus) == 3 && hitm_cpu_count(l->c.wcpus) == 1,
	      "CPUs 0-2 touched it, CPU 0 wrote it");
	CHECK(hitm_agg_find(&a, 7, 0x1040) != NULL, "0x1040 starts the next line");
	CHECK(hitm_agg_find(&a, 8, 0x1000) == NULL, "lines are per process");
	CHECK_U64(a.skips[HITM_SKIP_NO_ADDR], 2, "no address or a kernel address: skipped");
	CHECK_U64(a.skips[HITM_SKIP_NOT_MEM], 1, "neither load nor store: skipped");
	CHECK_U64(a.samples, 9, "every sample is counted as seen");
	CHECK_U64(a.kept, 5, "5 counted in lines");
	hitm_agg_reset(&a);
	CHECK(a.nlines == 0 && a.samples == 0 && !hitm_agg_find(&a, 7, 0x1000), "reset empties it");
	/* many lines: the index grows */
	for (uint64_t i = 0; i < 5000; i++)
		add(&a, i % 4, 0x10, 0x100000 + i * 64, STORE);
	CHECK_U64(a.nlines, 5000, "5000 lines");
	CHECK(hitm_agg_find(&a, 7, 0x100000 + 4999 * 64) != NULL, "the last one is found");
	hitm_agg_free(&a);
}

/* The bound: at most max lines and 4 max cells whatever the input; the
 * heavy line stays, with its exact count; every sample is accounted for */
static void test_bound(void)
{
	struct hitm_agg a;
	struct hitm_view *v;
	uint64_t in_lines = 0, hitm = 0, maxh = 0;
	bool found_all = true;
	size_t n;

	hitm_agg_init(&a);
	hitm_agg_bound(&a, 16);
	/* 20000 lines seen once, and one line every 10th sample: 10% of all */
	for (uint64_t i = 0; i < 20000; i++) {
		add(&a, 0, 0x10 + i, 0x100000 + i * 64, HITM);
		if (i % 9 == 0)
			add(&a, 1, 0x20, 0x2000, HITM);
	}
	CHECK(a.nlines <= 16, "at most 16 lines kept (%zu)", a.nlines);
	CHECK(a.ncells <= 64, "at most 64 cells kept (%zu)", a.ncells);
	for (size_t i = 0; i < a.nlines; i++) {
		in_lines += a.lines[i].c.loads + a.lines[i].c.stores;
		hitm += a.lines[i].c.hitm;
		found_all &= hitm_agg_find(&a, a.lines[i].pid, a.lines[i].line) == &a.lines[i];
		if (a.lines[i].c.hitm > maxh)
			maxh = a.lines[i].c.hitm;
	}
	CHECK(found_all, "every kept line is found through the index");
	{
		size_t found = hitm_agg_find(&a, 7, 0x2000) != NULL;

		for (uint64_t i = 0; i < 20000; i++)
			found += hitm_agg_find(&a, 7, 0x100000 + i * 64) != NULL;
		CHECK_U64(found, a.nlines, "and no folded one");
	}
	CHECK_U64(a.samples, 20000 + 2223, "every sample seen");
	CHECK_U64(a.kept, in_lines + a.other.samples, "kept = in the lines + folded");
	CHECK_U64(hitm + a.other.hitm, 22223, "HITMs = in the lines + folded");
	CHECK(a.other.lines >= 20000 - 15, "the singletons were folded (%llu)",
	      (unsigned long long)a.other.lines);
	n = hitm_views(&a, 1, &v);
	CHECK(n == 1 && v[0].l->line == 0x2000 && v[0].l->c.hitm == 2223,
	      "the heavy line is first, with all its 2223 HITMs");
	hitm_views_free(v, n);
	/* a folded line is gone from the index, a kept one that was moved
	 * back by a deletion is still found */
	CHECK(hitm_agg_find(&a, 7, 0x100000) == NULL, "the first singleton was folded");
	hitm_agg_reset(&a);
	CHECK(a.nlines == 0 && a.ncells == 0 && a.other.lines == 0, "reset empties the bound too");
	/* one line with many (offset, ip) cells: the line keeps counting */
	for (uint64_t i = 0; i < 1000; i++)
		add(&a, 0, 0x1000 + i, 0x4000 + i % 64, HITM);
	CHECK(a.ncells == 64, "cells stop at 4 x 16");
	CHECK_U64(a.lines[0].c.hitm, 1000, "the line counts all its samples");
	CHECK_U64(a.other.cell_samples, 1000 - 64, "the rest have no cell, and are counted");
	hitm_agg_free(&a);
}

static void test_verdicts(void)
{
	struct hitm_agg a;
	struct hitm_view *v;
	size_t n;
	char buf[64];

	hitm_agg_init(&a);
	/* false sharing: +0 from CPU 0, +8 from CPU 1 */
	for (int i = 0; i < 10; i++) {
		add(&a, 0, 0xa0, 0x2000, STORE);
		add(&a, 0, 0xa0, 0x2000, HITM);
		add(&a, 1, 0xb0, 0x2008, STORE);
		add(&a, 1, 0xb0, 0x2008, HITM);
	}
	CHECK(verdict_of(&a) == HITM_FALSE_SHARING, "two offsets, two writer CPUs: false sharing");
	/* a non-HITM read of +0 from CPU 1 does not change it */
	add(&a, 1, 0xb0, 0x2000, L1);
	CHECK(verdict_of(&a) == HITM_FALSE_SHARING, "a plain read from the other CPU: still false");
	hitm_agg_reset(&a);
	/* true sharing: one counter, 3 CPUs */
	for (int i = 0; i < 10; i++)
		for (unsigned c = 0; c < 3; c++) {
			add(&a, c, 0xc0, 0x3010, STORE);
			add(&a, c, 0xc0, 0x3010, HITM);
		}
	CHECK(verdict_of(&a) == HITM_TRUE_SHARING, "one offset, 3 writer CPUs: true sharing");
	hitm_agg_reset(&a);
	/* producer/consumer: CPU 0 writes +0, CPU 1 HITMs on +0 */
	for (int i = 0; i < 10; i++) {
		add(&a, 0, 0xc0, 0x3000, STORE);
		add(&a, 1, 0xd0, 0x3000, HITM);
	}
	CHECK(verdict_of(&a) == HITM_TRUE_SHARING, "one writer, one HITM reader, same offset: true");
	hitm_agg_reset(&a);
	/* a reader of another variable suffers from the writer: false */
	for (int i = 0; i < 10; i++) {
		add(&a, 0, 0xc0, 0x3000, STORE);
		add(&a, 1, 0xd0, 0x3020, HITM);
	}
	CHECK(verdict_of(&a) == HITM_FALSE_SHARING, "writer at +0, HITM reader at +0x20: false");
	hitm_agg_reset(&a);
	/* threads that migrate: thread 100 writes +0 and thread 200 writes +8,
	 * each from both CPUs over time; still two writers, false sharing */
	for (int i = 0; i < 10; i++) {
		add_t(&a, i % 2, 100, 0xa0, 0x3000, STORE);
		add_t(&a, i % 2, 100, 0xa0, 0x3000, HITM);
		add_t(&a, (i + 1) % 2, 200, 0xb0, 0x3008, STORE);
		add_t(&a, (i + 1) % 2, 200, 0xb0, 0x3008, HITM);
	}
	CHECK(verdict_of(&a) == HITM_FALSE_SHARING,
	      "migrating threads, one per offset: false sharing (threads, not CPUs)");
	{
		struct hitm_view *v;
		size_t n = hitm_views(&a, 0, &v);

		CHECK(n == 1 && hitm_writer_threads(&v[0].offs[0].c) == 1 &&
		      hitm_cpu_count(v[0].offs[0].c.wcpus) == 2,
		      "offset 0: one writer thread, seen on two CPUs");
		hitm_views_free(v, n);
	}
	hitm_agg_reset(&a);
	/* two threads on the same counter, whatever the CPUs: true sharing */
	for (int i = 0; i < 10; i++) {
		add_t(&a, 0, 100 + i % 2, 0xa0, 0x3000, STORE);
		add_t(&a, 1, 100 + i % 2, 0xa0, 0x3000, HITM);
	}
	CHECK(verdict_of(&a) == HITM_TRUE_SHARING, "two writer threads on one offset: true sharing");
	hitm_agg_reset(&a);
	/* kernel counts merged from several (offset, ip) cells keep the threads */
	{
		struct hitm_off_key k1 = { .tgid = 7, .offset = 0, .line = 0x7000, .ip = 1 };
		struct hitm_off_key k2 = { .tgid = 7, .offset = 0, .line = 0x7000, .ip = 2 };
		struct hitm_line_key lk = { .tgid = 7, .line = 0x7000 };
		struct hitm_counts c1 = { .hitm = 1, .hitm_local = 1, .loads = 1, .stores = 1,
					  .wtid = 100, .htid = 100 };
		struct hitm_counts c2 = c1, tot = c1;

		c2.wtid = c2.htid = 200;
		tot.hitm = tot.hitm_local = tot.loads = tot.stores = 2;
		tot.wmulti = tot.hmulti = 1;
		hitm_agg_add_line(&a, &lk, &tot);
		hitm_agg_add_cell(&a, &k1, &c1);
		hitm_agg_add_cell(&a, &k2, &c2);
		CHECK(verdict_of(&a) == HITM_TRUE_SHARING,
		      "map cells of two ips, two writer threads on one offset: true sharing");
		CHECK_U64(a.kept, 4, "kept counts loads and stores of the line");
	}
	hitm_agg_reset(&a);
	/* HITMs and no store sampled: unclear */
	for (int i = 0; i < 10; i++)
		add(&a, i % 2, 0xc0, 0x3000 + 8 * (i % 2), HITM);
	CHECK(verdict_of(&a) == HITM_UNCLEAR, "no store sampled: unclear");
	hitm_agg_reset(&a);
	/* one CPU only: unclear */
	add(&a, 0, 0xc0, 0x3000, STORE);
	add(&a, 0, 0xc0, 0x3008, STORE);
	add(&a, 0, 0xc0, 0x3000, HITM);
	CHECK(verdict_of(&a) == HITM_UNCLEAR, "everything from one CPU: unclear");
	hitm_agg_reset(&a);
	/* a line with stores and no HITM is not shown */
	add(&a, 0, 0xc0, 0x4000, STORE);
	add(&a, 1, 0xc0, 0x4008, STORE);
	n = hitm_views(&a, 0, &v);
	CHECK_U64(n, 0, "no HITM, no line in the report");
	hitm_views_free(v, n);
	/* ordering and max */
	for (int i = 0; i < 3; i++)
		add(&a, 1, 0xc0, 0x5000, HITM_RMT);
	add(&a, 0, 0xc0, 0x5000, STORE);
	add(&a, 1, 0xc0, 0x6000, HITM);
	add(&a, 0, 0xc0, 0x6000, STORE);
	add(&a, 0, 0xc0, 0x6000, STORE);
	for (int i = 0; i < 2; i++)
		add(&a, 1, 0xe0 + i, 0x6004, HITM);
	n = hitm_views(&a, 0, &v);
	CHECK(n == 2 && v[0].l->line == 0x6000 && v[1].l->line == 0x5000,
	      "most HITMs first; on a tie, most stores (0x6000: 2, 0x5000: 1)");
	CHECK(n == 2 && v[0].noffs == 2 && v[0].offs[0].offset == 0 && v[0].offs[1].offset == 4,
	      "offsets sorted");
	CHECK(n == 2 && v[0].offs[1].ncode == 2, "two code addresses at +4");
	hitm_views_free(v, n);
	n = hitm_views(&a, 1, &v);
	CHECK_U64(n, 1, "max 1");
	hitm_views_free(v, n);
	hitm_agg_free(&a);

	CHECK_STR(hitm_verdict_str(HITM_FALSE_SHARING), "false sharing", "verdict names");
	CHECK_STR(hitm_verdict_str(HITM_TRUE_SHARING), "true sharing", "verdict names");
	CHECK_STR(hitm_verdict_str(HITM_UNCLEAR), "unclear", "verdict names");
	CHECK(strstr(hitm_fix_str(HITM_FALSE_SHARING), "128") != NULL, "the false-sharing fix says 128");
	{
		__u64 set[HITM_CPU_WORDS] = { 0 };

		set[0] = 0x2f;	/* 0-3,5 */
		set[1] = 1;	/* 64 */
		hitm_cpu_str(set, buf, sizeof(buf));
		CHECK_STR(buf, "0-3,5,64", "CPU sets print as ranges");
		CHECK_U64(hitm_cpu_count(set), 6, "and count");
	}
}

static void put(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void test_pmu(void)
{
	struct perf_event_attr a;
	struct hitm_pmu p[HITM_PMU_MAX];
	char err[256], dir[] = "/tmp/test_hitm.XXXXXX", sub[600], why[1024];
	int n;

	memset(&a, 0, sizeof(a));
	CHECK(!hitm_pmu_apply_format("config:0-7", 0xcd, &a, err, sizeof(err)) &&
	      a.config == 0xcd, "config:0-7");
	CHECK(!hitm_pmu_apply_format("config:8-15", 0x82, &a, err, sizeof(err)) &&
	      a.config == 0x82cd, "config:8-15 keeps the other bits");
	CHECK(!hitm_pmu_apply_format("config1:0-15", 30, &a, err, sizeof(err)) &&
	      a.config1 == 30, "config1:0-15 (ldlat)");
	CHECK(!hitm_pmu_apply_format("config2:0-3,8-11", 0xab, &a, err, sizeof(err)) &&
	      a.config2 == 0xa0b, "split ranges fill low bits first");
	CHECK(!hitm_pmu_apply_format("config:63", 1, &a, err, sizeof(err)) &&
	      a.config >> 63 == 1, "a single bit");
	CHECK(hitm_pmu_apply_format("config:0-3", 0x10, &a, err, sizeof(err)) == -1,
	      "a value too wide is an error");
	CHECK(hitm_pmu_apply_format("config3:0-3", 1, &a, err, sizeof(err)) == -1,
	      "an unknown word is an error");
	CHECK(hitm_pmu_apply_format("config:7-0", 1, &a, err, sizeof(err)) == -1,
	      "a backwards range is an error");
	CHECK(hitm_pmu_apply_format("config:0-64", 1, &a, err, sizeof(err)) == -1,
	      "bit 64 is an error");
	CHECK(hitm_pmu_apply_format("config", 1, &a, err, sizeof(err)) == -1, "no colon");

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	n = hitm_pmu_detect(dir, p, HITM_PMU_MAX, why, sizeof(why));
	CHECK(n == 0 && strstr(why, "no PEBS/IBS") && strstr(why, "only: nothing"),
	      "an empty root: none, and why");
	snprintf(sub, sizeof(sub), "%s/cpu_core", dir);
	mkdir(sub, 0755);
	snprintf(sub, sizeof(sub), "%s/cpu_core/events", dir);
	mkdir(sub, 0755);
	snprintf(sub, sizeof(sub), "%s/cpu_core/format", dir);
	mkdir(sub, 0755);
	snprintf(sub, sizeof(sub), "%s/cpu_core", dir);
	put(sub, "type", "8\n");
	put(sub, "cpus", "0-7\n");
	put(sub, "events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	put(sub, "format/event", "config:0-7\n");
	put(sub, "format/umask", "config:8-15\n");
	put(sub, "format/ldlat", "config1:0-15\n");
	n = hitm_pmu_detect(dir, p, HITM_PMU_MAX, why, sizeof(why));
	CHECK(n == 1 && !strcmp(p[0].name, "cpu_core") && p[0].type == 8 && p[0].cpus.n == 8 &&
	      p[0].kind == HITM_PMU_PEBS && !p[0].has_stores && !p[0].has_aux,
	      "a hybrid core PMU: type, CPUs 0-7, no mem-stores");
	memset(&a, 0, sizeof(a));
	CHECK(!hitm_pmu_event_attr(sub, "mem-loads", 50, &a, err, sizeof(err)) &&
	      a.config == 0x1cd && a.config1 == 50, "mem-loads: event, umask, ldlat replaced by ours");
	CHECK(hitm_pmu_event_attr(sub, "mem-stores", 50, &a, err, sizeof(err)) == -1 &&
	      strstr(err, "mem-stores"), "a missing event names its file");
	hitm_pmu_free(p, n);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
	test_parse();
	test_roundtrip();
	test_classify();
	test_agg();
	test_bound();
	test_verdicts();
	test_pmu();
	return unit_exit();
}
