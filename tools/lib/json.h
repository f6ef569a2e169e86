/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A streaming JSON writer: commas and nesting are tracked for the caller,
 * strings are escaped completely (every control byte, invalid UTF-8 bytes
 * as \u00XX), so any comm or path yields valid JSON. */
#ifndef SUITE_JSON_H
#define SUITE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];	/* no element yet at this depth */
	bool after_key;
};

void json_init(struct json *j, FILE *f);
void json_obj_begin(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);
void json_strn(struct json *j, const char *s, size_t n);
void json_u64(struct json *j, uint64_t v);
void json_i64(struct json *j, int64_t v);
void json_double(struct json *j, double v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* v thousandths as a decimal number with three decimals: 1234567 ->
 * 1234.567 (ns as microseconds, exactly) */
void json_thousandths(struct json *j, uint64_t v);
/* A number already in JSON's grammar, as the caller wrote it */
void json_number_text(struct json *j, const char *text);
/* "0x..." string, for addresses */
void json_hex(struct json *j, uint64_t v);
/* Ends the document with a newline and flushes */
void json_finish(struct json *j);

/* key + value shorthands */
void json_kv_str(struct json *j, const char *k, const char *v);
void json_kv_u64(struct json *j, const char *k, uint64_t v);
void json_kv_i64(struct json *j, const char *k, int64_t v);
void json_kv_double(struct json *j, const char *k, double v);
void json_kv_bool(struct json *j, const char *k, bool v);
void json_kv_hex(struct json *j, const char *k, uint64_t v);
/* key + an array of n strings (stack frames, names...) */
void json_kv_strs(struct json *j, const char *k, const char *const *v, int n);

/* Writes s (n bytes) as a quoted, escaped JSON string */
void json_escape(FILE *f, const char *s, size_t n);

#endif
