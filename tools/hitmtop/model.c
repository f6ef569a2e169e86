// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "model.h"
#include "msg.h"
#include "cpulist.h"
#include "hashmap.h"
#include "xalloc.h"
#include "vec.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define HITM_FIELDS 7

static const char *const field_names[HITM_FIELDS] = {
	"cpu", "pid", "tid", "ip", "addr", "data_src", "weight",
};

/* ---- the text format ---- */

/* One number of p..end: decimal or 0x-hex, no sign */
static bool parse_num(const char *p, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;
	size_t i = 0;

	if (n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i >= n)
		return false;
	for (; i < n; i++) {
		unsigned d;
		char ch = p[i];

		if (ch >= '0' && ch <= '9')
			d = ch - '0';
		else if (base == 16 && ch >= 'a' && ch <= 'f')
			d = ch - 'a' + 10;
		else if (base == 16 && ch >= 'A' && ch <= 'F')
			d = ch - 'A' + 10;
		else
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

int hitm_parse_line(const char *line, struct hitm_sample *s, char *err, size_t errlen)
{
	const char *p = line, *end = line + strcspn(line, "#\n");
	uint64_t v[HITM_FIELDS];
	int n = 0;

	while (p < end) {
		const char *q;

		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p >= end)
			break;
		for (q = p; q < end && *q != ' ' && *q != '\t' && *q != '\r'; q++)
			;
		if (n == HITM_FIELDS)
			return fail_msg(err, errlen, "more than %d fields (want: cpu pid tid "
				    "ip addr data_src weight)", HITM_FIELDS);
		if (!parse_num(p, q - p, &v[n]))
			return fail_msg(err, errlen, "%s '%.*s' is not a decimal or 0x-hex "
				    "number", field_names[n], (int)(q - p > 40 ? 40 : q - p), p);
		n++;
		p = q;
	}
	if (n == 0)
		return 0;
	if (n < HITM_FIELDS)
		return fail_msg(err, errlen, "%d field%s, want %d: cpu pid tid ip addr "
			    "data_src weight", n, n == 1 ? "" : "s", HITM_FIELDS);
	if (v[0] >= HITM_MAX_CPUS)
		return fail_msg(err, errlen, "cpu %" PRIu64 " is out of range [0, %d]",
			    v[0], HITM_MAX_CPUS - 1);
	if (v[1] > UINT32_MAX || v[2] > UINT32_MAX)
		return fail_msg(err, errlen, "%s %" PRIu64 " is out of range",
			    v[1] > UINT32_MAX ? "pid" : "tid", v[1] > UINT32_MAX ? v[1] : v[2]);
	memset(s, 0, sizeof(*s));
	s->type = HITM_EV_SAMPLE;
	s->cpu = (__u32)v[0];
	s->pid = (__u32)v[1];
	s->tid = (__u32)v[2];
	s->ip = v[3];
	s->addr = v[4];
	s->data_src = v[5];
	s->weight = v[6];
	return 1;
}

void hitm_write_header(FILE *f, const char *what)
{
	fprintf(f, "# hitmtop samples%s%s\n", what ? ": " : "", what ? what : "");
	fprintf(f, "# cpu pid tid ip addr data_src weight\n");
}

void hitm_write_sample(FILE *f, const struct hitm_sample *s)
{
	fprintf(f, "%u %u %u 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64 "\n",
		s->cpu, s->pid, s->tid, (uint64_t)s->ip, (uint64_t)s->addr,
		(uint64_t)s->data_src, (uint64_t)s->weight);
}

/* ---- aggregation ---- */

/* The key of a line in the index (hashmap: line number in a->lines) */
struct line_key {
	uint64_t line, pid;
};

#define LINE_KEY(pid_, line_) (&(struct line_key){ .line = (line_), .pid = (pid_) })

void hitm_agg_init(struct hitm_agg *a)
{
	memset(a, 0, sizeof(*a));
}

void hitm_agg_bound(struct hitm_agg *a, size_t max_lines)
{
	a->max_lines = max_lines;
	a->max_cells = 4 * max_lines;
}

static void lines_free(struct hitm_agg *a)
{
	for (size_t i = 0; i < a->nlines; i++)
		free(a->lines[i].cells);
}

void hitm_agg_free(struct hitm_agg *a)
{
	lines_free(a);
	free(a->lines);
	hashmap_free(a->index);
	free(a->heap);
	memset(a, 0, sizeof(*a));
}

void hitm_agg_reset(struct hitm_agg *a)
{
	lines_free(a);
	a->nlines = 0;
	a->ncells = 0;
	hashmap_free(a->index);
	a->index = NULL;
	a->samples = a->kept = 0;
	memset(a->skips, 0, sizeof(a->skips));
	memset(&a->other, 0, sizeof(a->other));
}

/* ---- the bound: a min-heap of the lines by rank ---- */

static bool rank_below(const struct hitm_line *x, const struct hitm_line *y)
{
	uint64_t rx = x->base + x->c.hitm, ry = y->base + y->c.hitm;

	if (rx != ry)
		return rx < ry;
	return x->c.loads + x->c.stores < y->c.loads + y->c.stores;
}

static void heap_set(struct hitm_agg *a, size_t pos, size_t line)
{
	a->heap[pos] = line;
	a->lines[line].heap_pos = pos;
}

/* The rank of the line at pos went up (counts only grow): move it down */
static void heap_down(struct hitm_agg *a, size_t pos)
{
	size_t n = a->nlines, line = a->heap[pos];

	for (;;) {
		size_t c = 2 * pos + 1;

		if (c >= n)
			break;
		if (c + 1 < n && rank_below(&a->lines[a->heap[c + 1]], &a->lines[a->heap[c]]))
			c++;
		if (!rank_below(&a->lines[a->heap[c]], &a->lines[line]))
			break;
		heap_set(a, pos, a->heap[c]);
		pos = c;
	}
	heap_set(a, pos, line);
}

static void heap_up(struct hitm_agg *a, size_t pos)
{
	size_t line = a->heap[pos];

	while (pos) {
		size_t p = (pos - 1) / 2;

		if (!rank_below(&a->lines[line], &a->lines[a->heap[p]]))
			break;
		heap_set(a, pos, a->heap[p]);
		pos = p;
	}
	heap_set(a, pos, line);
}

static void ranked(struct hitm_agg *a, struct hitm_line *l)
{
	if (a->max_lines)
		heap_down(a, l->heap_pos);
}

struct hitm_line *hitm_agg_find(struct hitm_agg *a, uint32_t pid, uint64_t line)
{
	size_t *idx;

	if (!a->index)
		return NULL;
	idx = hashmap_lookup(a->index, LINE_KEY(pid, line));
	return idx ? &a->lines[*idx] : NULL;
}

/* The line of lowest rank goes to a->other; its record is reused for
 * (pid, line), which inherits its rank.  Returns the record. */
static struct hitm_line *line_fold(struct hitm_agg *a, uint32_t pid, uint64_t line)
{
	size_t idx = a->heap[0];
	struct hitm_line *l = &a->lines[idx];
	uint64_t rank = l->base + l->c.hitm;

	a->other.lines++;
	a->other.samples += l->c.loads + l->c.stores;
	a->other.hitm += l->c.hitm;
	a->ncells -= l->ncells;
	free(l->cells);
	hashmap_del(a->index, LINE_KEY(l->pid, l->line));
	memset(l, 0, sizeof(*l));
	l->pid = pid;
	l->line = line;
	l->base = rank;
	l->heap_pos = 0;
	*(size_t *)hashmap_get(a->index, LINE_KEY(pid, line), NULL) = idx;
	heap_down(a, 0);
	return l;
}

static struct hitm_line *line_get(struct hitm_agg *a, uint32_t pid, uint64_t line)
{
	struct hitm_line *l;
	size_t *idx;
	bool created;

	if (a->max_lines && a->nlines >= a->max_lines) {
		struct hitm_line *f = hitm_agg_find(a, pid, line);

		return f ? f : line_fold(a, pid, line);
	}
	if (!a->index)
		a->index = hashmap_new(sizeof(struct line_key), sizeof(size_t));
	idx = hashmap_get(a->index, LINE_KEY(pid, line), &created);
	if (!created)
		return &a->lines[*idx];
	*idx = a->nlines;
	array_reserve(a->lines, a->cap, a->nlines + 1);
	l = &a->lines[a->nlines++];
	memset(l, 0, sizeof(*l));
	l->pid = pid;
	l->line = line;
	if (a->max_lines) {
		if (!a->heap)
			a->heap = xrealloc(NULL, a->max_lines, sizeof(*a->heap));
		heap_set(a, a->nlines - 1, a->nlines - 1);
		heap_up(a, a->nlines - 1);
	}
	return l;
}

/* NULL when the bound leaves no room for a new cell */
static struct hitm_cell *cell_get(struct hitm_agg *a, struct hitm_line *l,
				  uint32_t offset, uint64_t ip)
{
	struct hitm_cell *c;

	for (size_t i = 0; i < l->ncells; i++)
		if (l->cells[i].offset == offset && l->cells[i].ip == ip)
			return &l->cells[i];
	if (a->max_cells && a->ncells >= a->max_cells)
		return NULL;
	a->ncells++;
	array_reserve(l->cells, l->cap, l->ncells + 1);
	c = &l->cells[l->ncells++];
	memset(c, 0, sizeof(*c));
	c->offset = offset;
	c->ip = ip;
	return c;
}

static void thread_merge(__u32 *first, __u32 *multi, __u32 sfirst, __u32 smulti)
{
	if (!*first)
		*first = sfirst;
	else if (sfirst && sfirst != *first)
		*multi = 1;
	*multi |= smulti;
}

static void counts_add(struct hitm_counts *d, const struct hitm_counts *s)
{
	thread_merge(&d->wtid, &d->wmulti, s->wtid, s->wmulti);
	thread_merge(&d->htid, &d->hmulti, s->htid, s->hmulti);
	d->hitm += s->hitm;
	d->hitm_local += s->hitm_local;
	d->hitm_remote += s->hitm_remote;
	d->loads += s->loads;
	d->stores += s->stores;
	for (int w = 0; w < HITM_CPU_WORDS; w++) {
		d->cpus[w] |= s->cpus[w];
		d->wcpus[w] |= s->wcpus[w];
		d->hcpus[w] |= s->hcpus[w];
	}
}

void hitm_agg_sample(struct hitm_agg *a, const struct hitm_sample *s)
{
	struct hitm_counts one = { 0 };
	struct hitm_cell *cell;
	struct hitm_line *l;
	__u32 c = hitm_classify(s->data_src);
	uint64_t line = s->addr & ~(uint64_t)(HITM_LINE_SIZE - 1);
	uint64_t bit = 1ULL << (s->cpu % 64);
	size_t w = (s->cpu / 64) % HITM_CPU_WORDS;

	a->samples++;
	if (!s->addr || s->addr >= HITM_USER_ADDR_END) {
		a->skips[HITM_SKIP_NO_ADDR]++;
		return;
	}
	if (!(c & (HITM_C_LOAD | HITM_C_STORE))) {
		a->skips[HITM_SKIP_NOT_MEM]++;
		return;
	}
	if (!(c & (HITM_C_HITM | HITM_C_STORE))) {
		l = hitm_agg_find(a, s->pid, line);
		if (!l) {
			a->skips[HITM_SKIP_COLD_LOAD]++;
			return;
		}
	} else {
		l = line_get(a, s->pid, line);
	}
	one.loads = !!(c & HITM_C_LOAD);
	one.stores = !!(c & HITM_C_STORE);
	one.hitm = !!(c & HITM_C_HITM);
	one.hitm_remote = one.hitm && (c & HITM_C_REMOTE);
	one.hitm_local = one.hitm && !(c & HITM_C_REMOTE);
	one.cpus[w] = bit;
	if (one.stores) {
		one.wcpus[w] = bit;
		one.wtid = s->tid;
	}
	if (one.hitm) {
		one.hcpus[w] = bit;
		one.htid = s->tid;
	}
	counts_add(&l->c, &one);
	ranked(a, l);
	cell = cell_get(a, l, (uint32_t)(s->addr - line), s->ip);
	if (cell)
		counts_add(&cell->c, &one);
	else
		a->other.cell_samples++;
	a->kept++;
}

void hitm_agg_add_line(struct hitm_agg *a, const struct hitm_line_key *k,
		       const struct hitm_counts *c)
{
	struct hitm_line *l = line_get(a, k->tgid, k->line);

	counts_add(&l->c, c);
	ranked(a, l);
	a->kept += c->loads + c->stores;
}

void hitm_agg_add_cell(struct hitm_agg *a, const struct hitm_off_key *k,
		       const struct hitm_counts *c)
{
	struct hitm_line *l = line_get(a, k->tgid, k->line);
	struct hitm_cell *cell = cell_get(a, l, k->offset % HITM_LINE_SIZE, k->ip);

	if (cell)
		counts_add(&cell->c, c);
	else
		a->other.cell_samples += c->loads + c->stores;
}

/* ---- the report model ---- */

unsigned hitm_cpu_count(const __u64 set[HITM_CPU_WORDS])
{
	unsigned n = 0;

	for (int w = 0; w < HITM_CPU_WORDS; w++)
		n += (unsigned)__builtin_popcountll(set[w]);
	return n;
}

static bool cpu_has(const __u64 set[HITM_CPU_WORDS], unsigned cpu)
{
	return set[cpu / 64] & (1ULL << (cpu % 64));
}

void hitm_cpu_str(const __u64 set[HITM_CPU_WORDS], char *buf, size_t size)
{
	struct cpu_list l = { 0 };

	for (unsigned c = 0; c < HITM_MAX_CPUS; c++)
		if (cpu_has(set, c))
			cpu_list_add(&l, c);
	cpu_list_str(&l, buf, size);
	cpu_list_free(&l);
}

/* Some thread of (first, multi) a differs from some thread of b */
static bool threads_differ(__u32 a, __u32 am, __u32 b, __u32 bm)
{
	return a && b && (am || bm || a != b);
}

unsigned hitm_writer_threads(const struct hitm_counts *c)
{
	return !c->wtid ? 0 : c->wmulti ? 2 : 1;
}

/* The same data is shared: written by two threads or more, or written by
 * one and HITM'd by another */
static bool offset_shared(const struct hitm_counts *c)
{
	return c->wmulti || threads_differ(c->wtid, 0, c->htid, c->hmulti);
}

/*
 * Threads, not CPUs: a thread that migrates stays one writer.  (HITMs
 * themselves show that the line moved between cores.)
 * false sharing: an offset written by one thread while another thread
 *   writes, or takes HITMs on, a different offset of the line; and most
 *   HITMs are not on offsets that are themselves shared.
 * true sharing: most HITMs are on shared offsets: written by several
 *   threads, or written by one and HITM'd by another.
 * unclear: neither (no store sampled, one thread only, no HITM).
 */
enum hitm_verdict hitm_verdict(const struct hitm_offset *o, size_t n)
{
	uint64_t hitm = 0, hitm_shared = 0;
	bool pair = false;

	for (size_t i = 0; i < n; i++) {
		hitm += o[i].c.hitm;
		if (offset_shared(&o[i].c))
			hitm_shared += o[i].c.hitm;
	}
	for (size_t a = 0; a < n && !pair; a++) {
		if (!o[a].c.stores)
			continue;
		for (size_t b = 0; b < n && !pair; b++) {
			if (b == a || (!o[b].c.stores && !o[b].c.hitm))
				continue;
			pair = o[b].c.stores ?
				threads_differ(o[a].c.wtid, o[a].c.wmulti, o[b].c.wtid, o[b].c.wmulti) :
				threads_differ(o[a].c.wtid, o[a].c.wmulti, o[b].c.htid, o[b].c.hmulti);
		}
	}
	if (!hitm)
		return HITM_UNCLEAR;
	if (pair && 2 * hitm_shared < hitm)
		return HITM_FALSE_SHARING;
	if (hitm_shared && 2 * hitm_shared >= hitm)
		return HITM_TRUE_SHARING;
	return HITM_UNCLEAR;
}

/* Each verdict's name and its fix, in one line */
static const struct {
	const char *name, *fix;
} verdicts[] = {
	[HITM_UNCLEAR] = {
		"unclear",
		"not enough evidence (no stores sampled, or one CPU): sample "
		"longer or look at the offsets",
	},
	[HITM_FALSE_SHARING] = {
		"false sharing",
		"different variables written from different CPUs share the line: "
		"pad or align them apart (64 bytes; 128 on Intel, whose "
		"adjacent-line prefetcher pairs lines)",
	},
	[HITM_TRUE_SHARING] = {
		"true sharing",
		"one variable is written from several CPUs: change the algorithm "
		"(per-CPU or per-thread copies, batching, fewer writers), "
		"padding will not help",
	},
};

static enum hitm_verdict verdict_known(enum hitm_verdict v)
{
	return v == HITM_FALSE_SHARING || v == HITM_TRUE_SHARING ? v : HITM_UNCLEAR;
}

const char *hitm_verdict_str(enum hitm_verdict v)
{
	return verdicts[verdict_known(v)].name;
}

const char *hitm_fix_str(enum hitm_verdict v)
{
	return verdicts[verdict_known(v)].fix;
}

static int code_cmp(const void *x, const void *y)
{
	const struct hitm_code *a = x, *b = y;

	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	return a->ip < b->ip ? -1 : a->ip > b->ip;
}

static void build_offsets(const struct hitm_line *l, struct hitm_view *v)
{
	struct hitm_offset *o = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < l->ncells; i++) {
		const struct hitm_cell *c = &l->cells[i];
		struct hitm_offset *t = NULL;
		size_t k;

		for (k = 0; k < n; k++)
			if (o[k].offset == c->offset)
				t = &o[k];
		if (!t) {
			/* keep them sorted by offset */
			array_reserve(o, cap, n + 1);
			for (k = n; k > 0 && o[k - 1].offset > c->offset; k--)
				o[k] = o[k - 1];
			t = &o[k];
			memset(t, 0, sizeof(*t));
			t->offset = c->offset;
			n++;
		}
		counts_add(&t->c, &c->c);
		array_reserve(t->code, t->code_cap, t->ncode + 1);
		t->code[t->ncode].ip = c->ip;
		t->code[t->ncode].samples = c->c.loads + c->c.stores;
		t->ncode++;
	}
	for (size_t k = 0; k < n; k++)
		qsort(o[k].code, o[k].ncode, sizeof(*o[k].code), code_cmp);
	v->offs = o;
	v->noffs = n;
	v->verdict = hitm_verdict(o, n);
}

static int view_cmp(const void *x, const void *y)
{
	const struct hitm_line *a = ((const struct hitm_view *)x)->l;
	const struct hitm_line *b = ((const struct hitm_view *)y)->l;

	if (a->c.hitm != b->c.hitm)
		return a->c.hitm < b->c.hitm ? 1 : -1;
	if (a->c.stores != b->c.stores)
		return a->c.stores < b->c.stores ? 1 : -1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

size_t hitm_views(const struct hitm_agg *a, size_t max, struct hitm_view **out)
{
	struct hitm_view *v = xrealloc(NULL, a->nlines ? a->nlines : 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < a->nlines; i++) {
		if (!a->lines[i].c.hitm)
			continue;
		memset(&v[n], 0, sizeof(v[n]));
		v[n++].l = &a->lines[i];
	}
	qsort(v, n, sizeof(*v), view_cmp);
	if (max && n > max)
		n = max;
	for (size_t i = 0; i < n; i++)
		build_offsets(v[i].l, &v[i]);
	*out = v;
	return n;
}

void hitm_views_free(struct hitm_view *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < v[i].noffs; k++)
			free(v[i].offs[k].code);
		free(v[i].offs);
	}
	free(v);
}
