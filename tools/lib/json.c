// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "json.h"
#include "escape.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->first[0] = true;
}

/* Before any value: a comma unless first at this level or after a key */
static void sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
}

static void open_(struct json *j, char c)
{
	sep(j);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct json *j, char c)
{
	if (j->depth > 0)
		j->depth--;
	fputc(c, j->f);
}

void json_obj_begin(struct json *j) { open_(j, '{'); }
void json_obj_end(struct json *j) { close_(j, '}'); }
void json_arr_begin(struct json *j) { open_(j, '['); }
void json_arr_end(struct json *j) { close_(j, ']'); }

void json_escape(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t l;

		switch (c) {
		case '"': fputs("\\\"", f); i++; continue;
		case '\\': fputs("\\\\", f); i++; continue;
		case '\n': fputs("\\n", f); i++; continue;
		case '\r': fputs("\\r", f); i++; continue;
		case '\t': fputs("\\t", f); i++; continue;
		case '\b': fputs("\\b", f); i++; continue;
		case '\f': fputs("\\f", f); i++; continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		l = utf8_seq_len(s + i, n - i);
		if (!l) {
			/* not UTF-8: keep the byte's value as a code point */
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		fwrite(s + i, 1, l, f);
		i += l;
	}
	fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
	sep(j);
	json_escape(j->f, key, strlen(key));
	fputc(':', j->f);
	j->after_key = true;
}

void json_strn(struct json *j, const char *s, size_t n)
{
	sep(j);
	json_escape(j->f, s, n);
}

void json_str(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	json_strn(j, s, strlen(s));
}

void json_u64(struct json *j, uint64_t v)
{
	sep(j);
	fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, int64_t v)
{
	sep(j);
	fprintf(j->f, "%" PRId64, v);
}

void json_double(struct json *j, double v)
{
	sep(j);
	if (!isfinite(v))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.6g", v);
}

void json_thousandths(struct json *j, uint64_t v)
{
	sep(j);
	fprintf(j->f, "%" PRIu64 ".%03u", v / 1000, (unsigned)(v % 1000));
}

void json_number_text(struct json *j, const char *text)
{
	sep(j);
	fputs(text, j->f);
}

void json_bool(struct json *j, bool v)
{
	sep(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	sep(j);
	fputs("null", j->f);
}

void json_hex(struct json *j, uint64_t v)
{
	sep(j);
	fprintf(j->f, "\"0x%" PRIx64 "\"", v);
}

void json_finish(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}

void json_kv_str(struct json *j, const char *k, const char *v) { json_key(j, k); json_str(j, v); }
void json_kv_u64(struct json *j, const char *k, uint64_t v) { json_key(j, k); json_u64(j, v); }
void json_kv_i64(struct json *j, const char *k, int64_t v) { json_key(j, k); json_i64(j, v); }
void json_kv_double(struct json *j, const char *k, double v) { json_key(j, k); json_double(j, v); }
void json_kv_bool(struct json *j, const char *k, bool v) { json_key(j, k); json_bool(j, v); }
void json_kv_hex(struct json *j, const char *k, uint64_t v) { json_key(j, k); json_hex(j, v); }

void json_kv_strs(struct json *j, const char *k, const char *const *v, int n)
{
	json_key(j, k);
	json_arr_begin(j);
	for (int i = 0; i < n; i++)
		json_str(j, v[i]);
	json_arr_end(j);
}
