/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Knobs the tests set through the environment (docs/CLI.md, RELIABILITY.md). */
#ifndef SUITE_TESTENV_H
#define SUITE_TESTENV_H

#include <stdlib.h>

/* SUITE_TEST_HIDE_SWITCH_IN=N: the BPF side ignores every Nth switch-in it
 * would act on (bpf/schedinfo.bpf.h); 0 when unset */
static inline unsigned int testenv_hide_switch_in(void)
{
	const char *v = getenv("SUITE_TEST_HIDE_SWITCH_IN");

	return v ? (unsigned int)strtoul(v, NULL, 10) : 0;
}

#endif
