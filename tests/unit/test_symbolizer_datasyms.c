// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* blaze_symbolize_process_data_addrs() (blazesym-shim/datasyms.c) on this
 * very process: initialized globals (.data), zeroed statics (.bss, past the
 * end of the file), the brk heap, the stack, a process that does not exist. */
#include "unit.h"
#include "blazesym.h"

#include <stdlib.h>
#include <unistd.h>

long hitm_ds_data[4] = { 1, 2, 3, 4 };		/* .data */
static char hitm_ds_bss[65536];		/* .bss: most of it in the anonymous mapping after the file */
static volatile long hitm_ds_bss_after;

int main(void)
{
	blaze_symbolizer *s = blaze_symbolizer_new();
	blaze_symbolize_src_process src = { .type_size = sizeof(src), .pid = (uint32_t)getpid() };
	long local = 5;
	/* the brk heap itself (malloc may use mmap, under ASan always) */
	char *heap = sbrk(4096);
	uint64_t addrs[] = {
		(uint64_t)(uintptr_t)&hitm_ds_data[0],
		(uint64_t)(uintptr_t)&hitm_ds_data[3],
		(uint64_t)(uintptr_t)&hitm_ds_bss[60000],
		(uint64_t)(uintptr_t)&hitm_ds_bss_after,
		(uint64_t)(uintptr_t)heap,
		(uint64_t)(uintptr_t)&local,
		0x10,
	};
	const blaze_syms *r;

	hitm_ds_bss[60000] = (char)local;
	hitm_ds_bss_after = local;
	r = blaze_symbolize_process_data_addrs(s, &src, addrs, 7);
	CHECK(r && r->cnt == 7, "one result per address");
	if (r && r->cnt == 7) {
		CHECK_STR(r->syms[0].name, "hitm_ds_data", ".data global named");
		CHECK_U64(r->syms[0].offset, 0, "at offset 0");
		CHECK_STR(r->syms[1].name, "hitm_ds_data", "its last element too");
		CHECK_U64(r->syms[1].offset, 24, "at offset 24");
		CHECK(r->syms[1].module && strstr(r->syms[1].module, "test_symbolizer_datasyms"),
		      "module is the executable");
		CHECK_STR(r->syms[2].name, "hitm_ds_bss", ".bss static named (beyond the file)");
		CHECK_U64(r->syms[2].offset, 60000, "at offset 60000");
		CHECK_STR(r->syms[3].name, "hitm_ds_bss_after", "the next .bss variable");
		CHECK(!r->syms[4].name && r->syms[4].module && !strcmp(r->syms[4].module, "[heap]"),
		      "heap: no name, module [heap]");
		CHECK(!r->syms[5].name && r->syms[5].module && !strcmp(r->syms[5].module, "[stack]"),
		      "stack: no name, module [stack]");
		CHECK(!r->syms[6].name && r->syms[6].reason == BLAZE_SYMBOLIZE_REASON_UNMAPPED,
		      "an unmapped address: unmapped");
	}
	blaze_syms_free(r);
	src.pid = 999999999;
	r = blaze_symbolize_process_data_addrs(s, &src, addrs, 2);
	CHECK(r && r->cnt == 2 && !r->syms[0].name &&
	      r->syms[0].reason == BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR,
	      "a process that does not exist: entries with a reason, not NULL");
	blaze_syms_free(r);
	CHECK(blaze_symbolize_process_data_addrs(s, NULL, addrs, 1) == NULL &&
	      blaze_err_last() == BLAZE_ERR_INVALID_INPUT, "no source: NULL, invalid input");
	blaze_symbolizer_free(s);
	return unit_exit();
}
