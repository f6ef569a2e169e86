/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Knobs the tests set through the environment (docs/CLI.md, RELIABILITY.md). */
#ifndef SUITE_TESTENV_H
#define SUITE_TESTENV_H

#include <stdlib.h>

/* The number in the environment variable name; 0 when unset */
static inline unsigned int testenv_u32(const char *name)
{
	const char *v = getenv(name);

	return v ? (unsigned int)strtoul(v, NULL, 10) : 0;
}

/* SUITE_TEST_HIDE_SWITCH_IN=N: the BPF side ignores every Nth switch-in it
 * would act on (bpf/schedinfo.bpf.h) */
static inline unsigned int testenv_hide_switch_in(void)
{
	return testenv_u32("SUITE_TEST_HIDE_SWITCH_IN");
}

/* SUITE_TEST_SKIP_FAULT=N: pfwatch's programs do nothing on every Nth run
 * (bpf/pfwatch.bpf.c), as if the kernel had not run them */
static inline unsigned int testenv_skip_fault(void)
{
	return testenv_u32("SUITE_TEST_SKIP_FAULT");
}

#endif
