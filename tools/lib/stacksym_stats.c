// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "stacksym_stats.h"
#include "stackshort.h"
#include "blazesym.h"
#include "json.h"
#include "msg.h"

#include <stdio.h>

void stacksym_json_stats(struct json *j, const struct stacksym *s)
{
	struct stacksym_stats st;

	stacksym_stats(s, &st);
	json_obj_begin(j);
	json_kv_u64(j, "user", st.user_frames);
	json_kv_u64(j, "user_unknown", st.user_unknown);
	json_kv_u64(j, "user_module_only", st.user_module_only);
	json_kv_u64(j, "kernel", st.kernel_frames);
	json_kv_u64(j, "kernel_unknown", st.kernel_unknown);
	json_key(j, "failed_lookups");
	json_obj_begin(j);
	for (int r = 1; r < STACKSYM_REASONS; r++)
		if (st.reasons[r])
			json_kv_u64(j, blaze_symbolize_reason_str(r), st.reasons[r]);
	if (st.kernel_hidden)
		json_kv_u64(j, STACKSYM_KERNEL_HIDDEN, st.kernel_hidden);
	json_obj_end(j);
	if (stacksym_inlined(s)) {
		json_kv_u64(j, "user_inlined", st.user_inlined);
		json_kv_u64(j, "user_no_inline_info", st.user_no_inline_info);
		json_kv_u64(j, "user_inlined_dropped", st.user_inlined_dropped);
	}
	json_obj_end(j);
}

void stacksym_report(const struct stacksym *s)
{
	struct stacksym_stats stats;
	const struct stacksym_stats *st = &stats;

	stacksym_stats(s, &stats);

	stackshort_report(stacksym_shorts_of(s), stacksym_dwarf_hint(s));

	if (stacksym_inlined(s) && st->user_no_inline_info)
		msg_warn("--inline: %llu of %llu user frames had no inline information (no DWARF "
			 "debug info for them: build with -g, or debug = \"line-tables-only\")",
			 (unsigned long long)st->user_no_inline_info,
			 (unsigned long long)st->user_frames);
	if (st->user_inlined_dropped)
		msg_warn("--inline: %llu inlined frames left out of stacks longer than %d frames",
			 (unsigned long long)st->user_inlined_dropped, STACK_UFRAMES_MAX);

	if (st->user_unknown || st->user_module_only)
		msg_warn("%llu of %llu user frames had no symbol (%llu named by "
			 "module only, %llu [unknown])",
			 (unsigned long long)(st->user_unknown + st->user_module_only),
			 (unsigned long long)st->user_frames,
			 (unsigned long long)st->user_module_only,
			 (unsigned long long)st->user_unknown);
	if (st->kernel_unknown)
		msg_warn("%llu of %llu kernel frames had no symbol%s",
			 (unsigned long long)st->kernel_unknown,
			 (unsigned long long)st->kernel_frames,
			 st->kernel_hidden ? " (kernel addresses hidden, see above)" : "");
	if (st->user_unknown || st->user_module_only || st->kernel_unknown) {
		char buf[512];
		size_t off = 0;

		for (int i = 1; i < STACKSYM_REASONS; i++) {
			if (!st->reasons[i])
				continue;
			off += snprintf(buf + off, sizeof(buf) - off, "%s%llu %s",
					off ? ", " : "", (unsigned long long)st->reasons[i],
					blaze_symbolize_reason_str(i));
			if (off >= sizeof(buf))
				break;
		}
		if (st->kernel_hidden && off < sizeof(buf))
			off += snprintf(buf + off, sizeof(buf) - off, "%s%llu %s", off ? ", " : "",
					(unsigned long long)st->kernel_hidden,
					STACKSYM_KERNEL_HIDDEN);
		if (off)
			msg_warn("failed look-ups by reason: %s", buf);
	}
}
