// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The pprof writer (tools/lib/pprof.h): the profile decoded again by a
 * small protobuf reader written here, field by field, and the gzip
 * stream inflated by zlib. */
#include "unit.h"
#include "pprof.h"
#include "opts.h"
#include "output.h"

#include <unistd.h>

#include <zlib.h>

/* ---- a protobuf reader: the fields of one message ---- */

struct field {
	int num, wire;
	uint64_t v;		/* varint */
	const uint8_t *p;	/* length-delimited */
	size_t len;
};

static bool rd_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* The fields of msg; -1 when malformed */
static int fields(const uint8_t *p, size_t len, struct field *out, int max)
{
	const uint8_t *end = p + len;
	int n = 0;

	while (p < end) {
		uint64_t key;

		if (n == max || !rd_varint(&p, end, &key))
			return -1;
		out[n].num = (int)(key >> 3);
		out[n].wire = (int)(key & 7);
		if (out[n].wire == 0) {
			if (!rd_varint(&p, end, &out[n].v))
				return -1;
		} else if (out[n].wire == 2) {
			if (!rd_varint(&p, end, &out[n].v) || out[n].v > (uint64_t)(end - p))
				return -1;
			out[n].p = p;
			out[n].len = out[n].v;
			p += out[n].len;
		} else {
			return -1;
		}
		n++;
	}
	return n;
}

/* the varint of field num in msg, 0 when absent */
static uint64_t get_num(const struct field *f, int n, int num)
{
	for (int i = 0; i < n; i++)
		if (f[i].num == num && f[i].wire == 0)
			return f[i].v;
	return 0;
}

static const struct field *get_msg(const struct field *f, int n, int num)
{
	for (int i = 0; i < n; i++)
		if (f[i].num == num && f[i].wire == 2)
			return &f[i];
	return NULL;
}

/* packed numbers */
static int unpack(const struct field *f, uint64_t *out, int max)
{
	const uint8_t *p = f->p, *end = f->p + f->len;
	int n = 0;

	while (p < end && n < max)
		if (!rd_varint(&p, end, &out[n++]))
			return -1;
	return n;
}

#define MAXF 4096
static struct field top[MAXF];
static int ntop;
static char strs[64][128];
static int nstrs;

static const char *str(uint64_t i)
{
	return i < (uint64_t)nstrs ? strs[i] : "(out of range)";
}

/* the n-th top-level field of number num */
static const struct field *nth(int num, int k)
{
	for (int i = 0; i < ntop; i++)
		if (top[i].num == num && !k--)
			return &top[i];
	return NULL;
}

static int count(int num)
{
	int c = 0;

	for (int i = 0; i < ntop; i++)
		c += top[i].num == num;
	return c;
}

/* the location of id: its mapping, address and function's name (NULL: none) */
static void location(uint64_t id, uint64_t *map, uint64_t *addr, const char **fname)
{
	struct field f[16], l[8], fn[8];
	const struct field *loc, *line;
	int n;

	*map = *addr = 0;
	*fname = NULL;
	for (int k = 0; (loc = nth(4, k)); k++) {
		n = fields(loc->p, loc->len, f, 16);
		if (get_num(f, n, 1) != id)
			continue;
		*map = get_num(f, n, 2);
		*addr = get_num(f, n, 3);
		line = get_msg(f, n, 4);
		if (!line)
			return;
		n = fields(line->p, line->len, l, 8);
		uint64_t fid = get_num(l, n, 1);

		for (int j = 0; (loc = nth(5, j)); j++) {
			int m = fields(loc->p, loc->len, fn, 8);

			if (get_num(fn, m, 1) == fid)
				*fname = str(get_num(fn, m, 2));
		}
		return;
	}
}

static void mapping(uint64_t id, struct field *f, int *n)
{
	const struct field *m;

	*n = 0;
	for (int k = 0; (m = nth(3, k)); k++) {
		*n = fields(m->p, m->len, f, 16);
		if (get_num(f, *n, 1) == id)
			return;
	}
	*n = 0;
}

static uint8_t raw[1 << 16];

/* gunzip buf into raw; its length, or 0 */
static size_t gunzip(const uint8_t *buf, size_t len)
{
	z_stream z = { 0 };
	size_t out;

	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return 0;
	z.next_in = (Bytef *)buf;
	z.avail_in = (uInt)len;
	z.next_out = raw;
	z.avail_out = sizeof(raw);
	out = inflate(&z, Z_FINISH) == Z_STREAM_END ? z.total_out : 0;
	inflateEnd(&z);
	return out;
}

int main(void)
{
	static const char *const types[][2] = { { "off_cpu", "nanoseconds" }, { "intervals", "count" } };
	struct stack_module lib = { .path = "/usr/lib/libfoo.so", .start = 0x7f0000001000,
				    .end = 0x7f0000005000, .off = 0x1000,
				    .build_id = { 0xde, 0xad, 0xbe, 0xef }, .build_id_len = 4 };
	struct stack_frames *f = calloc(1, sizeof(*f));
	struct stack_locs *l = calloc(1, sizeof(*l));
	struct pprof_label lb[PPROF_LABELS];
	int64_t v1[2] = { 5000000000LL, 3 }, v2[2] = { 7, 1 };
	struct field sf[16], mf[16];
	uint64_t ids[16], vals[4];
	struct pprof *p;
	const uint8_t *enc;
	size_t len;
	int n, nl;

	out_init();
	p = pprof_new(types, 2);
	pprof_times(p, 1700000000123456789LL, 2500000000LL);
	/* root first: main -> libfoo.so+0x2345 (not named: stacks.h) ->
	 * read; kernel: entry -> schedule */
	f->u[0] = "main", l->u[0] = (struct frame_loc){ 0x401000, NULL };
	f->u[1] = "libfoo.so+0x2345", l->u[1] = (struct frame_loc){ 0x7f0000002345, &lib, 0x2345 };
	f->u[2] = "read", l->u[2] = (struct frame_loc){ 0x7f0000003000, &lib };
	f->un = 3;
	f->k[0] = "entry_SYSCALL_64", l->k[0] = (struct frame_loc){ 0xffffffff81000100, NULL };
	f->k[1] = "schedule", l->k[1] = (struct frame_loc){ 0xffffffff81000200, NULL };
	f->kn = 2;
	nl = pprof_task_labels(lb, 42, 43, "work;er");
	pprof_add(p, f, l, v1, lb, nl);
	/* a second sample sharing frames, a lost user stack (no address) */
	f->u[0] = FRAME_USER_LOST, l->u[0] = (struct frame_loc){ 0, NULL };
	f->un = 1;
	nl = pprof_task_labels(lb, 42, 44, "");
	pprof_add(p, f, l, v2, lb, nl);

	enc = pprof_encode(p, &len);
	ntop = fields(enc, len, top, MAXF);
	CHECK(ntop > 0, "the profile decodes as protobuf (%d fields, %zu bytes)", ntop, len);
	for (int k = 0; k < 64; k++) {
		const struct field *s = nth(6, k);

		if (!s)
			break;
		snprintf(strs[k], sizeof(strs[k]), "%.*s", (int)s->len, (const char *)s->p);
		nstrs = k + 1;
	}
	CHECK(nstrs > 0 && nth(6, 0)->len == 0, "string_table[0] is \"\"");
	n = 0;
	for (int i = 0; i < nstrs; i++)
		for (int j = i + 1; j < nstrs; j++)
			n += !strcmp(strs[i], strs[j]);
	CHECK(n == 0, "strings are interned: no string twice (%d)", n);

	CHECK(count(1) == 2, "two sample types");
	n = fields(nth(1, 0)->p, nth(1, 0)->len, sf, 16);
	CHECK_STR(str(get_num(sf, n, 1)), "off_cpu", "sample type 0");
	CHECK_STR(str(get_num(sf, n, 2)), "nanoseconds", "its unit");
	n = fields(nth(1, 1)->p, nth(1, 1)->len, sf, 16);
	CHECK_STR(str(get_num(sf, n, 1)), "intervals", "sample type 1");
	CHECK_U64(get_num(top, ntop, 9), 1700000000123456789ULL, "time_nanos");
	CHECK_U64(get_num(top, ntop, 10), 2500000000ULL, "duration_nanos");
	CHECK(!nth(11, 0) && !get_num(top, ntop, 12), "no period where none was given");

	CHECK(count(2) == 2, "two samples");
	n = fields(nth(2, 0)->p, nth(2, 0)->len, sf, 16);
	int nid = unpack(get_msg(sf, n, 1), ids, 16);
	int nv = unpack(get_msg(sf, n, 2), vals, 4);

	CHECK(nid == 5, "sample 0: five locations (%d)", nid);
	CHECK(nv == 2 && vals[0] == 5000000000ULL && vals[1] == 3, "sample 0: its values");
	{
		static const char *const want[] = { "schedule", "entry_SYSCALL_64", "read", NULL, "main" };
		uint64_t map, addr, kmap = 0;
		const char *fname;
		int nm;

		for (int i = 0; i < 5 && i < nid; i++) {
			location(ids[i], &map, &addr, &fname);
			if (want[i])
				CHECK_STR(fname, want[i], "location %d, leaf first", i);
			else
				CHECK(!fname && addr == 0x7f0000002345 && map,
				      "a frame not named: no function, its address and mapping kept");
			if (i == 0) {
				kmap = map;
				CHECK(addr == 0xffffffff81000200, "kernel frame: its address");
			}
			if (i == 1)
				CHECK(map == kmap && map, "the kernel frames share a mapping");
			if (i == 2) {
				mapping(map, mf, &nm);
				CHECK_STR(str(get_num(mf, nm, 5)), "/usr/lib/libfoo.so", "user mapping: file");
				CHECK_STR(str(get_num(mf, nm, 6)), "deadbeef", "user mapping: build id in hex");
				CHECK(get_num(mf, nm, 2) == 0x7f0000001000 && get_num(mf, nm, 3) == 0x7f0000005000 &&
				      get_num(mf, nm, 4) == 0x1000, "user mapping: range and offset");
				CHECK(!get_num(mf, nm, 7), "a mapping with a frame not named: has_functions false");
			}
			if (i == 4)
				CHECK(map == 0 && addr == 0x401000,
				      "a frame in no known mapping: named, its address kept, no mapping");
		}
		mapping(kmap, mf, &nm);
		CHECK_STR(str(get_num(mf, nm, 5)), "[kernel]", "the kernel mapping is named [kernel]");
		CHECK(get_num(mf, nm, 2) == 0xffffffff81000100 && get_num(mf, nm, 3) == 0xffffffff81000201,
		      "the kernel mapping spans the addresses seen");
		CHECK(get_num(mf, nm, 7) == 1, "the kernel mapping: has_functions");
	}
	{
		const char *pid = NULL, *tid = NULL, *comm = NULL;
		uint64_t pidv = 0, tidv = 0;

		for (int i = 0; i < n; i++) {
			struct field lf[8];
			int m;

			if (sf[i].num != 3)
				continue;
			m = fields(sf[i].p, sf[i].len, lf, 8);
			const char *k = str(get_num(lf, m, 1));

			if (!strcmp(k, "pid"))
				pid = k, pidv = get_num(lf, m, 3);
			else if (!strcmp(k, "tid"))
				tid = k, tidv = get_num(lf, m, 3);
			else if (!strcmp(k, "comm"))
				comm = str(get_num(lf, m, 2));
		}
		CHECK(pid && pidv == 42, "label pid (numeric)");
		CHECK(tid && tidv == 43, "label tid (numeric)");
		CHECK_STR(comm, "work;er", "label comm (text, as it is)");
	}
	n = fields(nth(2, 1)->p, nth(2, 1)->len, sf, 16);
	{
		uint64_t ids2[16], map, addr;
		const char *fname;
		int n2 = unpack(get_msg(sf, n, 1), ids2, 16);

		CHECK(n2 == 3 && ids2[0] == ids[0] && ids2[1] == ids[1],
		      "sample 1: the same kernel frames, the same locations");
		location(ids2[2], &map, &addr, &fname);
		CHECK_STR(fname, FRAME_USER_LOST, "sample 1: the lost stack's marker");
	}
	CHECK(count(4) == 6 && count(5) == 5 && count(3) == 2,
	      "6 locations, 5 functions, 2 mappings (%d %d %d)", count(4), count(5), count(3));

	/* negative and large numbers: ten-byte varints */
	{
		struct pprof *q = pprof_new(types, 1);
		int64_t neg = -1;

		pprof_period(q, "cpu", "nanoseconds", 1000000);
		f->un = f->kn = 0;
		pprof_add(q, f, NULL, &neg, NULL, 0);
		enc = pprof_encode(q, &len);
		ntop = fields(enc, len, top, MAXF);
		n = fields(nth(2, 0)->p, nth(2, 0)->len, sf, 16);
		nv = unpack(get_msg(sf, n, 2), vals, 4);
		CHECK(nv == 1 && vals[0] == UINT64_MAX, "a negative value round-trips");
		CHECK(get_num(top, ntop, 12) == 1000000 && nth(11, 0), "period and period_type");

		/* gzip: the file inflates to the same bytes */
		char path[] = "/tmp/test_pprof.XXXXXX";
		int fd = mkstemp(path);
		FILE *out;
		uint8_t buf[1 << 16];
		size_t got;

		close(fd);
		out = pprof_open(path, &(struct common_opts){ 0 });
		CHECK(pprof_finish(q, out) == 0, "written to a file");
		out = fopen(path, "r");
		got = fread(buf, 1, sizeof(buf), out);
		fclose(out);
		unlink(path);
		CHECK(got > 18 && buf[0] == 0x1f && buf[1] == 0x8b, "the file is gzip");
		enc = pprof_encode(q, &len);
		CHECK(gunzip(buf, got) == len && !memcmp(raw, enc, len), "it inflates to the profile");

		/* a full disk is said and fails */
		out = pprof_open("/dev/full", &(struct common_opts){ 0 });
		CHECK(pprof_finish(q, out) == -1, "/dev/full: the write fails, not silently");
		pprof_free(q);
	}
	pprof_free(p);
	free(f);
	free(l);
	/* /dev/full above set the exit status: this test's is its checks' */
	fflush(stdout);
	_exit(unit_failed ? 1 : 0);
}
