/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* libFuzzer target: /proc/PID/maps parsing.  See tests/fuzz/run.sh. */
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return bzs_fuzz_maps(data, size);
}
