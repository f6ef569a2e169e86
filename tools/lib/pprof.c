// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The pprof writer: profile.proto's messages encoded by hand.  A field
 * is a key (field number << 3 | wire type) then a varint (type 0) or a
 * length and that many bytes (type 2: strings, messages, packed
 * numbers).  Zero numbers are left out, as proto3 leaves them. */
#include "pprof.h"
#include "clock.h"
#include "hashmap.h"
#include "msg.h"
#include "opts.h"
#include "output.h"
#include "run.h"
#include "vec.h"
#include "xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* profile.proto's field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING, PROFILE_LOCATION,
	PROFILE_FUNCTION, PROFILE_STRING_TABLE,
	PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS, PROFILE_PERIOD_TYPE, PROFILE_PERIOD,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE, SAMPLE_LABEL,
	LABEL_KEY = 1, LABEL_STR, LABEL_NUM,
	MAPPING_ID = 1, MAPPING_MEMORY_START, MAPPING_MEMORY_LIMIT, MAPPING_FILE_OFFSET,
	MAPPING_FILENAME, MAPPING_BUILD_ID, MAPPING_HAS_FUNCTIONS,
	LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE,
	LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME,
};

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

struct pbuf {
	uint8_t *p;
	size_t n, cap;
};

static void pb_bytes(struct pbuf *b, const void *data, size_t n)
{
	array_reserve(b->p, b->cap, b->n + n);
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

static void pb_varint(struct pbuf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_bytes(b, tmp, n);
}

static void pb_key(struct pbuf *b, int field, int wire)
{
	pb_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

/* an int64 or uint64 field; negative numbers take ten bytes */
static void pb_num(struct pbuf *b, int field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, WIRE_VARINT);
	pb_varint(b, v);
}

static void pb_len(struct pbuf *b, int field, const void *data, size_t n)
{
	pb_key(b, field, WIRE_LEN);
	pb_varint(b, n);
	pb_bytes(b, data, n);
}

/* a message field: the bytes of msg, which is emptied for the next */
static void pb_msg(struct pbuf *b, int field, struct pbuf *msg)
{
	pb_len(b, field, msg->p, msg->n);
	msg->n = 0;
}

/* numbers, packed */
static void pb_packed(struct pbuf *b, int field, const uint64_t *v, size_t n, struct pbuf *tmp)
{
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		pb_varint(tmp, v[i]);
	pb_msg(b, field, tmp);
}

/* ---- the profile ---- */

struct loc_key {
	uint64_t map, addr, func;
};

struct map_row {
	const struct stack_module *mod;	/* NULL: the kernel */
	uint64_t lo, hi;		/* the kernel's: the addresses seen */
	uint64_t filename, build_id;	/* strings */
	bool unnamed;			/* a location without function */
};

struct pprof {
	int ntypes;
	uint64_t types[PPROF_TYPES][2];
	uint64_t period_type[2];
	int64_t period, time_ns, duration_ns;
	bool has_period;
	struct hashmap *strs;		/* string -> its index (uint64_t) */
	VEC(const char *) strtab;	/* the hash map's keys */
	struct hashmap *funcs;		/* name index -> id */
	VEC(uint64_t) func;		/* by id - 1: the name index */
	struct hashmap *locs;		/* struct loc_key -> id */
	VEC(struct loc_key) loc;
	struct hashmap *maps;		/* module pointer -> id */
	VEC(struct map_row) map;
	struct pbuf samples;		/* the encoded sample fields */
	struct pbuf out, tmp, tmp2;
};

static uint64_t str_idx(struct pprof *p, const char *s)
{
	bool created;
	uint64_t *i = hashmap_get_blob(p->strs, s, strlen(s) + 1, &created);

	if (created) {
		*i = p->strtab.n;
		vec_push(&p->strtab, (const char *)hashmap_key(p->strs, i));
	}
	return *i;
}

struct pprof *pprof_new(const char *const types[][2], int ntypes)
{
	struct pprof *p = xcalloc(1, sizeof(*p));

	p->strs = hashmap_new(0, sizeof(uint64_t));
	p->funcs = hashmap_new(sizeof(uint64_t), sizeof(uint64_t));
	p->locs = hashmap_new(sizeof(struct loc_key), sizeof(uint64_t));
	p->maps = hashmap_new(sizeof(uintptr_t), sizeof(uint64_t));
	str_idx(p, "");
	if (ntypes > PPROF_TYPES)
		ntypes = PPROF_TYPES;
	p->ntypes = ntypes;
	for (int i = 0; i < ntypes; i++) {
		p->types[i][0] = str_idx(p, types[i][0]);
		p->types[i][1] = str_idx(p, types[i][1]);
	}
	return p;
}

void pprof_free(struct pprof *p)
{
	if (!p)
		return;
	hashmap_free(p->strs);
	hashmap_free(p->funcs);
	hashmap_free(p->locs);
	hashmap_free(p->maps);
	vec_free(&p->strtab);
	vec_free(&p->func);
	vec_free(&p->loc);
	vec_free(&p->map);
	free(p->samples.p);
	free(p->out.p);
	free(p->tmp.p);
	free(p->tmp2.p);
	free(p);
}

void pprof_period(struct pprof *p, const char *type, const char *unit, int64_t period)
{
	p->period_type[0] = str_idx(p, type);
	p->period_type[1] = str_idx(p, unit);
	p->period = period;
	p->has_period = true;
}

void pprof_times(struct pprof *p, int64_t time_ns, int64_t duration_ns)
{
	p->time_ns = time_ns;
	p->duration_ns = duration_ns;
}

static uint64_t func_id(struct pprof *p, const char *name)
{
	uint64_t s = str_idx(p, name);
	bool created;
	uint64_t *id = hashmap_get(p->funcs, &s, &created);

	if (created) {
		vec_push(&p->func, s);
		*id = p->func.n;
	}
	return *id;
}

static uint64_t map_id(struct pprof *p, const struct stack_module *mod)
{
	uintptr_t key = (uintptr_t)mod;
	bool created;
	uint64_t *id = hashmap_get(p->maps, &key, &created);

	if (created) {
		struct map_row *m = vec_add(&p->map);
		char hex[2 * STACK_BUILD_ID_MAX + 1];

		memset(m, 0, sizeof(*m));
		m->mod = mod;
		m->lo = UINT64_MAX;
		m->filename = str_idx(p, mod ? mod->path : "[kernel]");
		if (mod && mod->build_id_len) {
			for (int i = 0; i < mod->build_id_len; i++)
				snprintf(hex + 2 * i, 3, "%02x", mod->build_id[i]);
			m->build_id = str_idx(p, hex);
		}
		*id = p->map.n;
	}
	return *id;
}

/* A name the symbolizer gives what it could not name at fl: "[unknown]",
 * "[MODULE]" or "MODULE+0xADDR" (stacksym.h) */
static bool unnamed(const char *name, const struct frame_loc *fl)
{
	char buf[512];
	const char *base;

	if (name[0] == '[')
		return true;
	if (!fl->mod || !fl->file_addr)
		return false;
	base = strrchr(fl->mod->path, '/');
	snprintf(buf, sizeof(buf), "%s+%#llx", base ? base + 1 : fl->mod->path,
		 (unsigned long long)fl->file_addr);
	return !strcmp(buf, name);
}

static uint64_t loc_id(struct pprof *p, const char *name, const struct frame_loc *fl, bool kernel)
{
	struct loc_key k = { 0 };
	bool created, known_map = fl->addr && (kernel || fl->mod);
	uint64_t *id;

	k.addr = fl->addr;
	if (known_map)
		k.map = map_id(p, kernel ? NULL : fl->mod);
	/* a frame not named, in a mapping the consumer can read: address
	 * and mapping only, for it to name */
	if (!known_map || !unnamed(name, fl))
		k.func = func_id(p, name);
	id = hashmap_get(p->locs, &k, &created);
	if (created) {
		vec_push(&p->loc, k);
		*id = p->loc.n;
		if (k.map) {
			struct map_row *m = &p->map.v[k.map - 1];

			m->unnamed |= !k.func;
			if (kernel) {
				if (k.addr < m->lo)
					m->lo = k.addr;
				if (k.addr >= m->hi)
					m->hi = k.addr + 1;
			}
		}
	}
	return *id;
}

void pprof_add(struct pprof *p, const struct stack_frames *f, const struct stack_locs *l,
	       const int64_t *values, const struct pprof_label *labels, int nlabels)
{
	uint64_t ids[2 * STACK_FRAMES_MAX + 3], vals[PPROF_TYPES];
	static const struct frame_loc none;
	struct pbuf *s = &p->tmp, *lb = &p->tmp2;
	size_t n = 0;

	/* leaf first: the kernel's frames, then the user's */
	for (int i = f->kn - 1; i >= 0; i--)
		ids[n++] = loc_id(p, f->k[i], l ? &l->k[i] : &none, true);
	for (int i = f->un - 1; i >= 0; i--)
		ids[n++] = loc_id(p, f->u[i], l ? &l->u[i] : f->uloc ? &f->uloc[i] : &none,
				  false);
	for (int i = 0; i < p->ntypes; i++)
		vals[i] = (uint64_t)values[i];
	pb_packed(s, SAMPLE_LOCATION_ID, ids, n, lb);
	pb_packed(s, SAMPLE_VALUE, vals, (size_t)p->ntypes, lb);
	for (int i = 0; i < nlabels; i++) {
		pb_num(lb, LABEL_KEY, str_idx(p, labels[i].key));
		if (labels[i].str)
			pb_num(lb, LABEL_STR, str_idx(p, labels[i].str));
		else
			pb_num(lb, LABEL_NUM, (uint64_t)labels[i].num);
		pb_msg(s, SAMPLE_LABEL, lb);
	}
	pb_msg(&p->samples, PROFILE_SAMPLE, s);
}

int pprof_task_labels(struct pprof_label *lb, uint32_t pid, uint32_t tid, const char *comm)
{
	lb[0] = (struct pprof_label){ .key = "pid", .num = pid };
	lb[1] = (struct pprof_label){ .key = "tid", .num = tid };
	lb[2] = (struct pprof_label){ .key = "comm", .str = comm && *comm ? comm : "[unknown]" };
	return 3;
}

struct pprof *pprof_run_new(const char *const types[][2], int ntypes)
{
	struct pprof *p = pprof_new(types, ntypes);
	uint64_t mono = now_ns(), wall = realtime_ns();

	if (run_start_ns && run_start_ns <= mono)
		pprof_times(p, (int64_t)(wall - (mono - run_start_ns)),
			    run_end_ns > run_start_ns ? (int64_t)(run_end_ns - run_start_ns) : 0);
	return p;
}

static void value_type(struct pbuf *b, int field, const uint64_t t[2], struct pbuf *tmp)
{
	pb_num(tmp, VALUE_TYPE_TYPE, t[0]);
	pb_num(tmp, VALUE_TYPE_UNIT, t[1]);
	pb_msg(b, field, tmp);
}

const uint8_t *pprof_encode(struct pprof *p, size_t *len)
{
	struct pbuf *b = &p->out, *m = &p->tmp, *sub = &p->tmp2;

	b->n = 0;
	for (int i = 0; i < p->ntypes; i++)
		value_type(b, PROFILE_SAMPLE_TYPE, p->types[i], m);
	pb_bytes(b, p->samples.p, p->samples.n);
	/* the user mappings first: consumers take the first mapping for
	 * the program's ("File:" of go tool pprof) */
	for (size_t k = 0; k < 2 * p->map.n; k++) {
		size_t i = k % p->map.n;
		const struct map_row *r = &p->map.v[i];

		if (!r->mod != (k >= p->map.n))
			continue;
		pb_num(m, MAPPING_ID, i + 1);
		if (r->mod) {
			pb_num(m, MAPPING_MEMORY_START, r->mod->start);
			pb_num(m, MAPPING_MEMORY_LIMIT, r->mod->end);
			pb_num(m, MAPPING_FILE_OFFSET, r->mod->off);
		} else if (r->hi) {
			pb_num(m, MAPPING_MEMORY_START, r->lo);
			pb_num(m, MAPPING_MEMORY_LIMIT, r->hi);
		}
		pb_num(m, MAPPING_FILENAME, r->filename);
		pb_num(m, MAPPING_BUILD_ID, r->build_id);
		pb_num(m, MAPPING_HAS_FUNCTIONS, !r->unnamed);
		pb_msg(b, PROFILE_MAPPING, m);
	}
	for (size_t i = 0; i < p->loc.n; i++) {
		const struct loc_key *k = &p->loc.v[i];

		pb_num(m, LOCATION_ID, i + 1);
		pb_num(m, LOCATION_MAPPING_ID, k->map);
		pb_num(m, LOCATION_ADDRESS, k->addr);
		if (k->func) {
			pb_num(sub, LINE_FUNCTION_ID, k->func);
			pb_msg(m, LOCATION_LINE, sub);
		}
		pb_msg(b, PROFILE_LOCATION, m);
	}
	for (size_t i = 0; i < p->func.n; i++) {
		pb_num(m, FUNCTION_ID, i + 1);
		pb_num(m, FUNCTION_NAME, p->func.v[i]);
		pb_num(m, FUNCTION_SYSTEM_NAME, p->func.v[i]);
		pb_msg(b, PROFILE_FUNCTION, m);
	}
	for (size_t i = 0; i < p->strtab.n; i++)
		pb_len(b, PROFILE_STRING_TABLE, p->strtab.v[i], strlen(p->strtab.v[i]));
	pb_num(b, PROFILE_TIME_NANOS, (uint64_t)p->time_ns);
	pb_num(b, PROFILE_DURATION_NANOS, (uint64_t)p->duration_ns);
	if (p->has_period) {
		value_type(b, PROFILE_PERIOD_TYPE, p->period_type, m);
		pb_num(b, PROFILE_PERIOD, (uint64_t)p->period);
	}
	*len = b->n;
	return b->p;
}

int pprof_write(struct pprof *p, FILE *f)
{
	size_t len;
	const uint8_t *raw = pprof_encode(p, &len);
	z_stream z = { 0 };
	uLong cap;
	uint8_t *gz;
	int r;

	/* windowBits 15 + 16: a gzip header and trailer */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		msg_warn("--pprof: cannot compress the profile: %s", z.msg ? z.msg : "zlib");
		return -1;
	}
	cap = deflateBound(&z, len);
	gz = xmalloc(cap);
	z.next_in = (Bytef *)raw;
	z.avail_in = (uInt)len;
	z.next_out = gz;
	z.avail_out = (uInt)cap;
	r = deflate(&z, Z_FINISH);
	if (r != Z_STREAM_END) {
		msg_warn("--pprof: cannot compress the profile: %s", z.msg ? z.msg : "zlib");
		deflateEnd(&z);
		free(gz);
		return -1;
	}
	/* a failed write is said by the checked output (output.h) */
	r = fwrite(gz, 1, z.total_out, f) == z.total_out ? 0 : -1;
	deflateEnd(&z);
	free(gz);
	return r;
}

FILE *pprof_open(const char *path, const struct common_opts *o)
{
	FILE *f;

	if (!strcmp(path, "-")) {
		if (o->folded || o->json)
			die_usage("--pprof - and %s both write to stdout",
				  o->folded ? "-f/--folded" : "-j/--json");
		return stdout;
	}
	if (!*path)
		die_usage("--pprof: empty path");
	f = out_open(path, "--pprof");
	if (!f)
		die_usage("--pprof: cannot write %s: %s", path, strerror(errno));
	return f;
}

int pprof_finish(struct pprof *p, FILE *f)
{
	int r = pprof_write(p, f);

	if (f == stdout)
		return fflush(stdout) || r ? -1 : 0;
	return out_close(f) || r ? -1 : 0;
}
