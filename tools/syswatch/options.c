// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "options.h"
#include "msg.h"
#include "syscalls.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sw_parse_syscalls(struct sw_opts *o, const char *arg)
{
	char *dup, *p, *save = NULL;

	if (!*arg || arg[0] == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,"))
		die_usage("invalid --syscall: '%s': empty element in the list", arg);
	dup = xstrdup(arg);
	for (p = strtok_r(dup, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		long nr = syscall_lookup(p);

		if (nr < 0) {
			char name[64];

			snprintf(name, sizeof(name), "%s", p);
			free(dup);
			die_usage("invalid --syscall: unknown syscall '%s' on %s (names "
				  "are those of the kernel headers, e.g. getppid)",
				  name, syscall_table_arch());
		}
		if (nr >= SW_MAX_SYSCALLS) {
			free(dup);
			die_usage("invalid --syscall: %ld is out of range [0, %d]", nr,
				  SW_MAX_SYSCALLS - 1);
		}
		o->mask[nr / 64] |= 1ULL << (nr % 64);
	}
	o->filter = true;
	free(dup);
}

bool sw_nr_wanted(const struct sw_opts *o, long nr)
{
	if (!o->filter)
		return true;
	return nr >= 0 && nr < SW_MAX_SYSCALLS && (o->mask[nr / 64] & (1ULL << (nr % 64)));
}
