// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "addrname.h"
#include "blazesym.h"

#include <stdio.h>
#include <stdlib.h>

struct addrname {
	blaze_symbolizer *sym;
};

struct addrname *addrname_new(void)
{
	blaze_symbolizer_opts o = { .type_size = sizeof(o), .code_info = true, .demangle = true };
	blaze_symbolizer *sym = blaze_symbolizer_new_opts(&o);
	struct addrname *a;

	if (!sym)
		return NULL;
	a = calloc(1, sizeof(*a));
	if (!a) {
		blaze_symbolizer_free(sym);
		return NULL;
	}
	a->sym = sym;
	return a;
}

const char *addrname_error(void)
{
	return blaze_err_str(blaze_err_last());
}

void addrname_free(struct addrname *a)
{
	if (!a)
		return;
	blaze_symbolizer_free(a->sym);
	free(a);
}

void addrname_cache_process(struct addrname *a, uint32_t pid)
{
	blaze_cache_src_process src = { .type_size = sizeof(src), .pid = pid, .cache_vmas = true };

	blaze_symbolize_cache_process(a->sym, &src);
}

void addrname_process(struct addrname *a, uint32_t pid, const uint64_t *addrs, size_t n,
		      bool data,
		      void (*fn)(void *arg, size_t i, const struct addrname_result *r),
		      void *arg)
{
	blaze_symbolize_src_process src = {
		.type_size = sizeof(src),
		.pid = pid,
		.debug_syms = true,
	};
	const blaze_syms *r = NULL;

	if (n)
		r = data ? blaze_symbolize_process_data_addrs(a->sym, &src, addrs, n)
			 : blaze_symbolize_process_abs_addrs(a->sym, &src, addrs, n);
	for (size_t i = 0; i < n; i++) {
		struct addrname_result out = { 0 };

		if (r && i < r->cnt) {
			const blaze_sym *b = &r->syms[i];

			out.name = b->name;
			out.offset = b->offset;
			out.module = b->module;
			out.file = b->code_info.file;
			out.line = b->code_info.line;
		}
		fn(arg, i, &out);
	}
	blaze_syms_free(r);
}

void addrname_kernel(struct addrname *a, uint64_t addr, char *out, size_t size)
{
	blaze_symbolize_src_kernel src = { .type_size = sizeof(src) };
	const blaze_syms *r = NULL;

	if (!addr) {
		snprintf(out, size, "-");
		return;
	}
	if (a)
		r = blaze_symbolize_kernel_abs_addrs(a->sym, &src, &addr, 1);
	if (r && r->cnt == 1 && r->syms[0].name)
		snprintf(out, size, "%s", r->syms[0].name);
	else
		snprintf(out, size, "0x%llx", (unsigned long long)addr);
	blaze_syms_free(r);
}
