// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One printer for both outputs (emit.h) */
#include "emit.h"
#include "escape.h"
#include "json.h"

#include <stdarg.h>
#include <string.h>

static void key_of(struct emit *o, const char *key)
{
	if (key)
		json_key(o->j, key);
}

/* JSON: a number, or with hex an "0x..." string; text: fmt */
static void unsigned_(struct emit *o, const char *key, const char *fmt, uint64_t v, bool hex)
{
	if (o->j) {
		if (key && hex)
			json_kv_hex(o->j, key, v);
		else if (key)
			json_kv_u64(o->j, key, v);
	} else if (fmt) {
		fprintf(o->f, fmt, (unsigned long long)v);
	}
}

void emit_u64(struct emit *o, const char *key, const char *fmt, uint64_t v)
{
	unsigned_(o, key, fmt, v, false);
}

void emit_hex(struct emit *o, const char *key, const char *fmt, uint64_t v)
{
	unsigned_(o, key, fmt, v, true);
}

void emit_i64(struct emit *o, const char *key, const char *fmt, int64_t v)
{
	if (o->j) {
		if (key)
			json_kv_i64(o->j, key, v);
	} else if (fmt) {
		fprintf(o->f, fmt, (long long)v);
	}
}

void emit_double(struct emit *o, const char *key, const char *fmt, double v)
{
	if (o->j) {
		if (key)
			json_kv_double(o->j, key, v);
	} else if (fmt) {
		fprintf(o->f, fmt, v);
	}
}

/* fmt's text up to its %s (a %% is one percent sign), then s escaped,
 * then the rest: no length limit on s, and no byte of s is a format */
static void text_str(FILE *f, const char *fmt, const char *s)
{
	const char *p = fmt;

	for (; *p; p++) {
		if (p[0] == '%' && p[1] == '%') {
			fputc('%', f);
			p++;
		} else if (p[0] == '%' && p[1] == 's') {
			esc_fputs(s, f);
			p++;
		} else {
			fputc(*p, f);
		}
	}
}

void emit_str(struct emit *o, const char *key, const char *fmt, const char *s)
{
	if (o->j) {
		if (!key)
			return;
		json_key(o->j, key);
		if (s)
			json_str(o->j, s);
		else
			json_null(o->j);
	} else if (fmt && s) {
		text_str(o->f, fmt, s);
	}
}

void emit_flag(struct emit *o, const char *key, const char *fmt, bool v)
{
	if (o->j) {
		if (key)
			json_kv_bool(o->j, key, v);
	} else if (fmt && v) {
		fputs(fmt, o->f);
	}
}

void emit_text(struct emit *o, const char *fmt, ...)
{
	va_list ap;

	if (o->j)
		return;
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}

/* JSON only: an object or array opened under key, or closed */
static void open_(struct emit *o, const char *key, bool arr)
{
	if (!o->j)
		return;
	key_of(o, key);
	if (arr)
		json_arr_begin(o->j);
	else
		json_obj_begin(o->j);
}

void emit_obj_begin(struct emit *o, const char *key)
{
	open_(o, key, false);
}

void emit_arr_begin(struct emit *o, const char *key)
{
	open_(o, key, true);
}

void emit_obj_end(struct emit *o)
{
	if (o->j)
		json_obj_end(o->j);
}

void emit_arr_end(struct emit *o)
{
	if (o->j)
		json_arr_end(o->j);
}
