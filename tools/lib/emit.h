/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One printer for both outputs: a record is written once, field by field,
 * and each call writes its field as text or as a JSON key and value,
 * whichever the emitter was opened for.
 *
 *	emit_str(o, "comm", "    -  %s", comm);	text: the format, the
 *						string escaped for a terminal
 *						JSON: "comm":"..." (raw bytes,
 *						JSON-escaped)
 *	emit_u64(o, "count", " %llu", n);	a NULL format writes nothing
 *						as text, a NULL key nothing
 *						as JSON
 *	emit_text(o, " interval%s", ...);	text only (plurals, prose)
 *	emit_obj_begin(o, "target");		JSON only (structure)
 *
 * Formats take exactly the one conversion of their value (%llu, %lld,
 * %llx or %#llx for numbers, %s for strings), and %% for a percent sign.
 * The text is written in the order of the calls; so is JSON, whose
 * readers look fields up by key. */
#ifndef SUITE_EMIT_H
#define SUITE_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json;

struct emit {
	FILE *f;		/* text to f, when j is NULL */
	struct json *j;		/* JSON to j */
};

static inline struct emit emit_to_text(FILE *f)
{
	return (struct emit){ .f = f };
}
static inline struct emit emit_to_json(struct json *j)
{
	return (struct emit){ .j = j };
}
static inline bool emit_json(const struct emit *o)
{
	return o->j != NULL;
}

void emit_u64(struct emit *o, const char *key, const char *fmt, uint64_t v);
void emit_i64(struct emit *o, const char *key, const char *fmt, int64_t v);
/* fmt with one conversion of a double (%.1f) */
void emit_double(struct emit *o, const char *key, const char *fmt, double v);
/* JSON: "0x..." (addresses); text: fmt with %llx or %#llx */
void emit_hex(struct emit *o, const char *key, const char *fmt, uint64_t v);
/* s NULL: JSON null, nothing as text */
void emit_str(struct emit *o, const char *key, const char *fmt, const char *s);
/* JSON: true or false; text: fmt (no conversion) when v is true */
void emit_flag(struct emit *o, const char *key, const char *fmt, bool v);
/* text only, a printf format */
void emit_text(struct emit *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* JSON only: an object or array, under key (NULL: an element) */
void emit_obj_begin(struct emit *o, const char *key);
void emit_obj_end(struct emit *o);
void emit_arr_begin(struct emit *o, const char *key);
void emit_arr_end(struct emit *o);

#endif
