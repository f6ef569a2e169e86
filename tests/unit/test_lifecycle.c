// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The lifecycle's shared output: the ready line every tool prints, and
 * the JSON envelope around every tool's document. */
#include "unit.h"
#include "msg.h"
#include "json.h"
#include "lifecycle.h"
#include <stdlib.h>
#include <unistd.h>

/* What fn writes on fd (1 or 2) */
static char *capture(int fd, void (*fn)(void))
{
	FILE *tmp = tmpfile(), *f = fd == 1 ? stdout : stderr;
	int saved = dup(fd);
	static char buf[4096];
	size_t n;

	fflush(f);
	dup2(fileno(tmp), fd);
	fn();
	fflush(f);
	dup2(saved, fd);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = 0;
	fclose(tmp);
	return buf;
}

static struct ready_line r;
static double dur;

static void say(void)
{
	lifecycle_say_ready(&r, dur);
}

static void envelope(void)
{
	struct json j;
	__u64 l[LOSS_KINDS] = { [LOSS_RINGBUF] = 2 };

	envelope_begin(&j);
	json_kv_u64(&j, "n", 1);
	envelope_losses_begin(&j, l);
	json_kv_u64(&j, "own", 5);
	json_obj_end(&j);
	envelope_end(&j);
}

/* LIFECYCLE_TOOL over a stand-in skeleton "tool": the table names the
 * hooks the tool defines, NULL for the others, and holds its texts;
 * LIFECYCLE_OPS, a second table "other" */
struct tool_bpf {
	struct bpf_object_skeleton *skeleton;
	struct {
		struct target_filter tfilter;
	} *rodata;
};

static struct tool_bpf *tool_bpf__open_opts(const struct bpf_object_open_opts *opts)
{
	return NULL;
}

static void tool_bpf__destroy(struct tool_bpf *skel)
{
}

LIFECYCLE_TOOL(tool, .what = "x", .attach_what = "attaching to y");

int tool_configure(struct lifecycle *lc)
{
	return 0;
}

void tool_report(struct lifecycle *lc)
{
}

LIFECYCLE_OPS(other, .no_tp_flavour = true);

int other_collect(struct lifecycle *lc)
{
	return 0;
}

static void table(void)
{
	CHECK(tool_ops.open && tool_ops.destroy, "LIFECYCLE_TOOL: the skeleton's open and destroy");
	CHECK(tool_ops.configure == tool_configure && tool_ops.report == tool_report,
	      "LIFECYCLE_TOOL: the hooks the tool defines, by their names");
	CHECK(!tool_ops.probe && !tool_ops.prepare && !tool_ops.setup && !tool_ops.attach && !tool_ops.started &&
	      !tool_ops.ready && !tool_ops.stopping && !tool_ops.detach && !tool_ops.stopped &&
	      !tool_ops.collect && !tool_ops.finish && !tool_ops.cleanup,
	      "LIFECYCLE_TOOL: NULL for the hooks it does not define");
	CHECK_STR(tool_ops.what, "x", "LIFECYCLE_TOOL: the texts");
	CHECK(!tool_ops.load_what && !tool_ops.loss_hints && !tool_ops.no_tp_flavour,
	      "LIFECYCLE_TOOL: the texts it is not given are unset");
	CHECK(!other_ops.open && !other_ops.configure && other_ops.collect == other_collect &&
	      other_ops.no_tp_flavour, "LIFECYCLE_OPS: a table of its own name, no skeleton");
}

int main(void)
{
	tool_name = "t";
	snprintf(r.subject, sizeof(r.subject), "tracing x of all threads");
	dur = 5;
	CHECK_STR(capture(2, say), "t: tracing x of all threads for 5 s\n",
		  "ready line with -d");
	dur = 0;
	CHECK_STR(capture(2, say), "t: tracing x of all threads; Ctrl-C to end\n",
		  "ready line without -d");
	snprintf(r.detail, sizeof(r.detail), "3 per-CPU events");
	dur = 2.5;
	CHECK_STR(capture(2, say), "t: tracing x of all threads for 2.5 s (3 per-CPU events)\n",
		  "the detail after the duration");
	dur = 0;
	snprintf(r.after, sizeof(r.after), "and then");
	CHECK_STR(capture(2, say), "t: tracing x of all threads (3 per-CPU events); "
		  "Ctrl-C to end\nt: and then\n", "the detail, then the line after");
	memset(&r, 0, sizeof(r));
	snprintf(r.subject, sizeof(r.subject), "sampling y");
	r.no_duration = true;
	dur = 5;
	CHECK_STR(capture(2, say), "t: sampling y\n", "no_duration: -d is not said");

	CHECK_STR(capture(1, envelope), "{\"tool\":\"t\",\"version\":\"" SUITE_VERSION
		  "\",\"n\":1,\"losses\":{\"stack_ring_full\":0,\"stack_nested\":0,"
		  "\"user_stack_unreadable\":0,\"kernel_stack_unreadable\":0,"
		  "\"aggregation_map_full\":0,\"inflight_map_full\":0,"
		  "\"ringbuf_full\":2,\"map_update_failed\":0,"
		  "\"no_kernel_memory\":0,\"histogram_map_full\":0,"
		  "\"interval_end_unseen\":0,\"ringbuf_nested\":0,\"own\":5}}\n",
		  "the envelope: tool, version, the tool's keys, losses (open for more)");
	table();
	return unit_exit();
}
