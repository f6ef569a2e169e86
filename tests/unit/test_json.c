// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The JSON writer: structure and complete string escaping. */
#include "unit.h"
#include "json.h"
#include <stdlib.h>

static char *render(void (*fn)(struct json *j))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_init(&j, f);
	fn(&j);
	fclose(f);
	return buf;
}

static char *escaped(const char *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	json_escape(f, s, n);
	fclose(f);
	return buf;
}

static void doc1(struct json *j)
{
	json_obj_begin(j);
	json_kv_str(j, "a", "x");
	json_key(j, "list");
	json_arr_begin(j);
	json_u64(j, 1);
	json_i64(j, -2);
	json_obj_begin(j);
	json_obj_end(j);
	json_arr_end(j);
	json_kv_bool(j, "t", true);
	json_kv_hex(j, "h", 255);
	json_key(j, "n");
	json_str(j, NULL);
	json_obj_end(j);
}

int main(void)
{
	char *s;

	s = render(doc1);
	CHECK_STR(s, "{\"a\":\"x\",\"list\":[1,-2,{}],\"t\":true,\"h\":\"0xff\",\"n\":null}",
		  "commas and nesting");
	free(s);
	s = escaped("a\"b\\c\n\t\x01\x1f\x7f", 10);
	CHECK_STR(s, "\"a\\\"b\\\\c\\n\\t\\u0001\\u001f\\u007f\"", "control bytes escaped");
	free(s);
	s = escaped("caf\xc3\xa9", 5);
	CHECK_STR(s, "\"caf\xc3\xa9\"", "valid UTF-8 kept");
	free(s);
	s = escaped("bad\xff\xc3", 5);
	CHECK_STR(s, "\"bad\\u00ff\\u00c3\"", "invalid UTF-8 bytes escaped");
	free(s);
	s = escaped("\xed\xa0\x80", 3);
	CHECK_STR(s, "\"\\u00ed\\u00a0\\u0080\"", "UTF-16 surrogates are not UTF-8");
	free(s);
	s = escaped("a\0b", 3);
	CHECK_STR(s, "\"a\\u0000b\"", "NUL byte escaped");
	free(s);
	return unit_exit();
}
