// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "suite.h"
#include "bpfload.h"
#include "msg.h"
#include "output.h"

#include <argp.h>

void suite_print_version(FILE *f, struct argp_state *state)
{
	fprintf(f, "%s %s (latency-tools suite)\n", tool_name, SUITE_VERSION);
}

void suite_init(const char *name)
{
	out_init();
	tool_name = name;
	argp_err_exit_status = EXIT_USAGE;
	argp_program_version_hook = suite_print_version;
	libbpf_setup_logging();
}
