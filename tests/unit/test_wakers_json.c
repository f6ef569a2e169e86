// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The shared JSON pieces wakers added: string arrays (stacks), the losses
 * object and the frames object. */
#include "unit.h"
#include "json.h"
#include "bpfutil.h"
#include "stacks.h"
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

	l[LOSS_STACK_COLLISION] = 3;
	l[LOSS_OTHER] = 7;
	json_obj_begin(j);
	json_key(j, "losses");
	losses_json(j, l);
	json_obj_end(j);
}

static void frames(struct json *j)
{
	struct stacksym *s = stacksym_new(false);

	json_obj_begin(j);
	json_key(j, "frames");
	stacksym_json_stats(j, s);
	json_obj_end(j);
	stacksym_free(s);
}

int main(void)
{
	char *out;

	out = render(strs);
	CHECK_STR(out, "{\"stack\":[\"main\",\"a\\\"b\",\"c;d\"],\"empty\":[]}",
		  "json_kv_strs: an array of escaped strings, empty when n is 0");
	free(out);

	out = render(losses);
	CHECK_STR(out, "{\"losses\":{\"stack_collision\":3,\"stack_map_full\":0,"
		  "\"user_stack_unreadable\":0,\"kernel_stack_unreadable\":0,"
		  "\"aggregation_map_full\":0,\"inflight_map_full\":0,"
		  "\"ringbuf_full\":0,\"map_update_failed\":7,"
		  "\"no_kernel_memory\":0,\"histogram_map_full\":0}}",
		  "losses_json: every kind by name, in order");
	free(out);

	out = render(frames);
	CHECK_STR(out, "{\"frames\":{\"user\":0,\"user_unknown\":0,"
		  "\"user_module_only\":0,\"kernel\":0,\"kernel_unknown\":0,"
		  "\"failed_lookups\":{}}}",
		  "stacksym_json_stats: the frame counts object");
	free(out);
	return unit_exit();
}
