/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Symbolize addresses of a process through blazesym-shim and print one line
 * per address, for the scripts in tests/symbolizer/ and bench/symbolizer/:
 *   symcheck [-d] [-c] [-m] [-j] [-C] PID ADDR...
 *   -d debug_syms  -c code_info  -m no_map_files  -j perf_map
 *   -C cache the process first (blaze_symbolize_cache_process)
 * Output: NAME|MODULE|REASON|FILE:LINE|OFFSET   ("-" for NULL) */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "blazesym.h"

int main(int argc, char **argv)
{
	blaze_symbolizer_opts opts = { .type_size = sizeof(opts), .demangle = true };
	blaze_symbolize_src_process src = { .type_size = sizeof(src) };
	bool cache = false;
	blaze_symbolizer *s;
	const blaze_syms *r;
	uint64_t *addrs;
	size_t n;
	int c;

	while ((c = getopt(argc, argv, "dcmjC")) != -1) {
		switch (c) {
		case 'd': src.debug_syms = true; break;
		case 'c': opts.code_info = true; break;
		case 'm': src.no_map_files = true; break;
		case 'j': src.perf_map = true; break;
		case 'C': cache = true; break;
		default:
			fprintf(stderr, "usage: %s [-d] [-c] [-m] [-j] [-C] PID ADDR...\n", argv[0]);
			return 2;
		}
	}
	if (argc - optind < 2)
		return 2;
	src.pid = (uint32_t)strtoul(argv[optind], NULL, 0);
	n = (size_t)(argc - optind - 1);
	addrs = calloc(n, sizeof(*addrs));
	for (size_t i = 0; i < n; i++)
		addrs[i] = strtoull(argv[optind + 1 + i], NULL, 0);
	s = blaze_symbolizer_new_opts(&opts);
	if (cache) {
		blaze_cache_src_process cs = { .type_size = sizeof(cs), .pid = src.pid,
					       .cache_vmas = true };

		if (blaze_symbolize_cache_process(s, &cs))
			fprintf(stderr, "cache: %s\n", blaze_err_str(blaze_err_last()));
	}
	r = blaze_symbolize_process_abs_addrs(s, &src, addrs, n);
	if (!r) {
		fprintf(stderr, "symbolize: %s\n", blaze_err_str(blaze_err_last()));
		return 1;
	}
	for (size_t i = 0; i < r->cnt; i++) {
		const blaze_sym *y = &r->syms[i];

		printf("%s|%s|%s|%s:%u|%zu\n", y->name ? y->name : "-", y->module ? y->module : "-",
		       blaze_symbolize_reason_str(y->reason),
		       y->code_info.file ? y->code_info.file : "-", y->code_info.line, y->offset);
	}
	blaze_syms_free(r);
	blaze_symbolizer_free(s);
	free(addrs);
	return 0;
}
