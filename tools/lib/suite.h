/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What every tool does first (lifecycle.c calls it): its name in
 * messages, argp's exit status and --version, libbpf's logging. */
#ifndef SUITE_SUITE_H
#define SUITE_SUITE_H

#include <argp.h>
#include <stdio.h>

/* argp's --version */
void suite_print_version(FILE *f, struct argp_state *state);

/* First call of every tool's main(): names the tool in messages, makes
 * argp exit with EXIT_USAGE on bad usage, installs --version and libbpf
 * logging. */
void suite_init(const char *name);

#endif
