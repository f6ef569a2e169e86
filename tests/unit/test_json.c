// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The JSON writer: structure and complete string escaping; the shared
 * pieces built on it: string arrays (stacks), the losses object and the
 * frames object. */
#include "unit.h"
#include "msg.h"
#include "json.h"
#include "bpfmaps.h"
#include "lifecycle.h"
#include "stacks.h"
#include <stdlib.h>

/* json_escape() of n bytes: what it writes */
static const struct escape_case {
	const char *in;
	size_t n;
	const char *want, *what;
} escapes[] = {
	{ "a\"b\\c\n\t\x01\x1f\x7f", 10, "\"a\\\"b\\\\c\\n\\t\\u0001\\u001f\\u007f\"",
	  "control bytes escaped" },
	{ "caf\xc3\xa9", 5, "\"caf\xc3\xa9\"", "valid UTF-8 kept" },
	{ "bad\xff\xc3", 5, "\"bad\\u00ff\\u00c3\"", "invalid UTF-8 bytes escaped" },
	{ "\xed\xa0\x80", 3, "\"\\u00ed\\u00a0\\u0080\"", "UTF-16 surrogates are not UTF-8" },
	{ "a\0b", 3, "\"a\\u0000b\"", "NUL byte escaped" },
};

static void write_escaped(FILE *f, void *arg)
{
	const struct escape_case *c = arg;

	json_escape(f, c->in, c->n);
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

static void strs(struct json *j)
{
	static const char *const fr[] = { "main", "a\"b", "c;d" };

	json_obj_begin(j);
	json_kv_strs(j, "stack", fr, 3);
	json_kv_strs(j, "empty", fr, 0);
	json_obj_end(j);
}

static void losses(struct json *j)
{
	__u64 l[LOSS_KINDS] = { 0 };

	l[LOSS_STACK_RING] = 3;
	l[LOSS_OTHER] = 7;
	json_obj_begin(j);
	envelope_losses(j, l);
	json_obj_end(j);
}

static void frames(struct json *j)
{
	struct stacksym *s = stacksym_new(false, false);

	json_obj_begin(j);
	json_key(j, "frames");
	stacksym_json_stats(j, s);
	json_obj_end(j);
	stacksym_free(s);
}

/* whole documents: what the writer makes of each */
static const struct doc_case {
	void (*doc)(struct json *j);
	const char *want, *what;
} docs[] = {
	{ doc1, "{\"a\":\"x\",\"list\":[1,-2,{}],\"t\":true,\"h\":\"0xff\",\"n\":null}",
	  "commas and nesting" },
	{ strs, "{\"stack\":[\"main\",\"a\\\"b\",\"c;d\"],\"empty\":[]}",
	  "json_kv_strs: an array of escaped strings, empty when n is 0" },
	{ losses, "{\"losses\":{\"stack_ring_full\":3,\"stack_nested\":0,"
		  "\"user_stack_unreadable\":0,\"kernel_stack_unreadable\":0,"
		  "\"aggregation_map_full\":0,\"inflight_map_full\":0,"
		  "\"ringbuf_full\":0,\"map_update_failed\":7,"
		  "\"no_kernel_memory\":0,\"histogram_map_full\":0,"
		  "\"interval_end_unseen\":0,\"ringbuf_nested\":0}}",
	  "envelope_losses: every kind by name, in order" },
	{ frames, "{\"frames\":{\"user\":0,\"user_unknown\":0,"
		  "\"user_module_only\":0,\"kernel\":0,\"kernel_unknown\":0,"
		  "\"failed_lookups\":{}}}",
	  "stacksym_json_stats: the frame counts object" },
};

static void write_doc(FILE *f, void *arg)
{
	const struct doc_case *c = arg;
	struct json j;

	json_init(&j, f);
	c->doc(&j);
}

int main(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(docs); i++)
		CHECK_CAPTURE(write_doc, (void *)&docs[i], docs[i].want, "%s", docs[i].what);
	for (size_t i = 0; i < ARRAY_SIZE(escapes); i++)
		CHECK_CAPTURE(write_escaped, (void *)&escapes[i], escapes[i].want, "%s",
			      escapes[i].what);
	return unit_exit();
}
