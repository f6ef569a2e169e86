// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A run against an earlier one's folded file (folddiff.h) */
#include "folddiff.h"
#include "escape.h"
#include "flamesvg.h"
#include "hashmap.h"
#include "json.h"
#include "msg.h"
#include "xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct fd_val {
	uint64_t before, after;
};

struct folddiff {
	struct hashmap *stacks;		/* stack (bytes, NUL included) -> struct fd_val */
	uint64_t before, after;
	struct folddiff_row *rows;
	size_t nrows;
};

static struct folddiff *folddiff_new(void)
{
	struct folddiff *d = xcalloc(1, sizeof(*d));

	d->stacks = hashmap_new(0, sizeof(struct fd_val));
	return d;
}

static struct fd_val *val_of(struct folddiff *d, const char *stack, size_t len)
{
	char *k = xmalloc(len + 1);
	struct fd_val *v;

	memcpy(k, stack, len);
	k[len] = 0;
	v = hashmap_get_blob(d->stacks, k, len + 1, NULL);
	free(k);
	return v;
}

/* Whether the n bytes at s are as folded output writes them: nothing the
 * suite's escaping would change (control bytes, invalid UTF-8, ...) but
 * its own backslashes */
static bool written_escaped(const char *s, size_t n)
{
	while (n) {
		char out[16];
		size_t used, len = esc_step(s, n, out, &used);

		if (*s != '\\' && (len != used || memcmp(out, s, used)))
			return false;
		s += used;
		n -= used;
	}
	return true;
}

/* One line of the file (its newline gone): "" when taken, else why not */
static const char *take_line(struct folddiff *d, char *line, size_t len)
{
	char *sp, *end;
	unsigned long long v;
	struct fd_val *val;

	if (!line || !len)
		return "";
	sp = memrchr(line, ' ', len);
	if (memchr(line, 0, len))
		return "a NUL byte";
	if (!sp || sp == line)
		return "no \"STACK VALUE\"";
	if (sp[1] < '0' || sp[1] > '9')
		return "the value is not a number";
	errno = 0;
	v = strtoull(sp + 1, &end, 10);
	if (errno || *end)
		return errno ? "the value is too large" : "the value is not a number";
	if (!written_escaped(line, (size_t)(sp - line)))
		return "a byte folded output never holds unescaped (control, invalid UTF-8)";
	if (d->before + v < d->before)
		return "the values overflow 64 bits";
	val = val_of(d, line, (size_t)(sp - line));
	val->before += v;
	d->before += v;
	return "";
}

struct folddiff *folddiff_load(const char *path, char *why, size_t why_size)
{
	FILE *f = fopen(path, "re");
	struct folddiff *d;
	char *line = NULL;
	size_t cap = 0, no = 0;
	ssize_t len;

	if (!f) {
		snprintf(why, why_size, "%s: %s", path, strerror(errno));
		return NULL;
	}
	d = folddiff_new();
	while ((len = getline(&line, &cap, f)) >= 0) {
		const char *bad;

		no++;
		if ((size_t)len > FOLDDIFF_MAX_LINE) {
			bad = "longer than 1 MiB";
		} else {
			if (len && line[len - 1] == '\n')
				line[--len] = 0;
			bad = take_line(d, line, (size_t)len);
		}
		if (*bad) {
			snprintf(why, why_size, "%s: line %zu: %s", path, no, bad);
			goto fail;
		}
	}
	if (ferror(f)) {
		snprintf(why, why_size, "%s: %s", path, strerror(errno));
		goto fail;
	}
	free(line);
	fclose(f);
	return d;
fail:
	free(line);
	fclose(f);
	folddiff_free(d);
	return NULL;
}

void folddiff_add(struct folddiff *d, const char *stack, uint64_t value)
{
	val_of(d, stack, strlen(stack))->after += value;
	d->after += value;
}

uint64_t folddiff_total_before(const struct folddiff *d)
{
	return d->before;
}

uint64_t folddiff_total_after(const struct folddiff *d)
{
	return d->after;
}

static void row_one(const void *key, void *val, void *arg)
{
	struct folddiff *d = arg;
	const struct fd_val *v = val;

	d->rows[d->nrows++] = (struct folddiff_row){
		.stack = key, .before = v->before, .after = v->after,
		.change = (int64_t)(v->after - v->before),
	};
}

static int row_cmp(const void *a, const void *b)
{
	const struct folddiff_row *x = a, *y = b;

	if (x->change != y->change)
		return x->change > y->change ? -1 : 1;
	return strcmp(x->stack, y->stack);
}

const struct folddiff_row *folddiff_rows(struct folddiff *d, size_t *n)
{
	free(d->rows);
	d->rows = xcalloc(hashmap_count(d->stacks) + 1, sizeof(*d->rows));
	d->nrows = 0;
	hashmap_each(d->stacks, row_one, d);
	if (d->nrows)
		qsort(d->rows, d->nrows, sizeof(*d->rows), row_cmp);
	*n = d->nrows;
	return d->rows;
}

static void print_row(FILE *f, const struct folddiff_row *r)
{
	fprintf(f, "    %+14" PRId64 " %14" PRIu64 " %14" PRIu64 "  %s\n", r->change, r->before,
		r->after, r->stack);
}

void folddiff_print(struct folddiff *d, FILE *f, const char *path, const char *unit,
		    size_t top)
{
	size_t n, grew = 0, shrank = 0;
	const struct folddiff_row *r = folddiff_rows(d, &n);

	for (size_t i = 0; i < n; i++) {
		grew += r[i].change > 0;
		shrank += r[i].change < 0;
	}
	fprintf(f, "\nagainst %s: %" PRIu64 " %s before, %" PRIu64 " %s now; %zu stacks grew, "
		"%zu shrank, %zu the same\n", ESC(path), d->before, unit, d->after, unit, grew,
		shrank, n - grew - shrank);
	if (grew) {
		fprintf(f, "  grew most (%s):\n    %14s %14s %14s  %s\n", unit, "CHANGE", "BEFORE",
			"AFTER", "STACK");
		for (size_t i = 0; i < n && i < top && r[i].change > 0; i++)
			print_row(f, &r[i]);
	}
	if (shrank) {
		fprintf(f, "  shrank most (%s):\n    %14s %14s %14s  %s\n", unit, "CHANGE",
			"BEFORE", "AFTER", "STACK");
		for (size_t i = 0; i < top && i < n && r[n - 1 - i].change < 0; i++)
			print_row(f, &r[n - 1 - i]);
	}
}

static void json_rows(struct json *j, const char *key, const struct folddiff_row *r, size_t n,
		      size_t top, int dir)
{
	json_key(j, key);
	json_arr_begin(j);
	for (size_t i = 0; i < n && i < top; i++) {
		const struct folddiff_row *x = dir > 0 ? &r[i] : &r[n - 1 - i];

		if (dir > 0 ? x->change <= 0 : x->change >= 0)
			break;
		json_obj_begin(j);
		json_kv_str(j, "stack", x->stack);
		json_kv_u64(j, "before", x->before);
		json_kv_u64(j, "after", x->after);
		json_kv_i64(j, "change", x->change);
		json_obj_end(j);
	}
	json_arr_end(j);
}

void folddiff_json(struct folddiff *d, struct json *j, const char *path, size_t top)
{
	size_t n;
	const struct folddiff_row *r = folddiff_rows(d, &n);

	json_key(j, "diff");
	json_obj_begin(j);
	json_kv_str(j, "before_file", path);
	json_kv_u64(j, "before_total", d->before);
	json_kv_u64(j, "after_total", d->after);
	json_rows(j, "grew", r, n, top, 1);
	json_rows(j, "shrank", r, n, top, -1);
	json_obj_end(j);
}

/* The stacks of this run into the graph, then (gone: true) those with
 * nothing now, whose frames the graph keeps only where this run has them */
struct graph_pass {
	struct flamesvg *g;
	bool gone;
};

static void graph_one(const void *key, void *val, void *arg)
{
	const struct fd_val *v = val;
	const struct graph_pass *p = arg;

	if (p->gone == !v->after)
		flamesvg_add_diff(p->g, key, v->before, v->after);
}

struct flamesvg *folddiff_graph(struct folddiff *d, const char *path, struct flamesvg *g)
{
	if (!d)
		return g;
	flamesvg_free(g);
	g = flamesvg_new();
	flamesvg_against(g, path);
	hashmap_each(d->stacks, graph_one, &(struct graph_pass){ g, false });
	hashmap_each(d->stacks, graph_one, &(struct graph_pass){ g, true });
	return g;
}

struct folddiff *folddiff_open(const char *path)
{
	char why[512];
	struct folddiff *d = folddiff_load(path, why, sizeof(why));

	if (!d)
		die_usage("--diff: %s", why);
	return d;
}

struct folddiff *folddiff_for(const char *path, bool folded)
{
	if (!path)
		return NULL;
	if (folded)
		die_usage("--diff and -f exclude each other: -f writes what --diff reads");
	return folddiff_open(path);
}

void folddiff_free(struct folddiff *d)
{
	if (!d)
		return;
	hashmap_free(d->stacks);
	free(d->rows);
	free(d);
}
