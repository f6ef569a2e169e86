// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The one printer for both outputs: the same calls give the text and the
 * JSON object of a record. */
#include "unit.h"
#include "emit.h"
#include "json.h"

/* a record as the tools write one: text fields, JSON-only fields,
 * text-only prose, a flag, a nested object, an array */
static void record(struct emit *o, bool whole)
{
	emit_obj_begin(o, NULL);
	emit_str(o, "comm", "    -  %s", "we\x01ird");
	emit_u64(o, "pid", " (%llu", 42);
	emit_u64(o, "tid", "/%llu)\n", 43);
	emit_str(o, "context", NULL, "task");
	emit_i64(o, "irq", NULL, -1);
	emit_u64(o, "count", "    %llu", 1);
	emit_text(o, " interval%s", 1 == 1 ? "" : "s");
	emit_flag(o, "whole_window", " (the whole window)", whole);
	emit_hex(o, "addr", " at %#llx", 0x1000);
	emit_str(o, "mode", " 100%% %s\n", "user");
	emit_str(o, "irq_name", "%s", NULL);
	emit_obj_begin(o, "target");
	emit_str(o, "comm", NULL, "t");
	emit_obj_end(o);
	emit_arr_begin(o, "maps");
	emit_obj_begin(o, NULL);
	emit_str(o, "name", "in %s\n", "/lib/a b");
	emit_obj_end(o);
	emit_arr_end(o);
	emit_obj_end(o);
}

static void as_text(FILE *f, void *arg)
{
	struct emit o = emit_to_text(f);

	record(&o, arg != NULL);
}

static void as_json(FILE *f, void *arg)
{
	struct json j;
	struct emit o = emit_to_json(&j);

	json_init(&j, f);
	record(&o, arg != NULL);
}

int main(void)
{
	CHECK_CAPTURE(as_text, (void *)1,
		      "    -  we\\x01ird (42/43)\n    1 interval (the whole window) at 0x1000"
		      " 100% user\nin /lib/a b\n",
		      "text: formats in call order, strings escaped, NULL formats and "
		      "keys-only fields silent, a true flag's text");
	CHECK_CAPTURE(as_text, NULL,
		      "    -  we\\x01ird (42/43)\n    1 interval at 0x1000 100% user\nin /lib/a b\n",
		      "text: a false flag writes nothing");
	CHECK_CAPTURE(as_json, NULL,
		      "{\"comm\":\"we\\u0001ird\",\"pid\":42,\"tid\":43,\"context\":\"task\","
		      "\"irq\":-1,\"count\":1,\"whole_window\":false,\"addr\":\"0x1000\","
		      "\"mode\":\"user\",\"irq_name\":null,\"target\":{\"comm\":\"t\"},"
		      "\"maps\":[{\"name\":\"/lib/a b\"}]}",
		      "JSON: every keyed field, text-only calls silent, NULL string as null, "
		      "objects and arrays nested");
	return unit_exit();
}
