/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* libFuzzer target: kallsyms, perf maps and the demangler (the first byte
 * picks one).  See tests/fuzz/run.sh. */
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return bzs_fuzz_text(data, size);
}
