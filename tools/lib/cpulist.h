/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Lists of CPUs: parsed from and formatted as "0-3,7" (the -C option and
 * the sysfs lists), parsed from cpumask hex ("ff,ffffffff"). */
#ifndef SUITE_CPULIST_H
#define SUITE_CPULIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_CPUS_SUPPORTED 4096

struct cpu_list {
	uint32_t *cpus;		/* sorted, unique */
	size_t n, cap;
};

/* "3", "2,5", "4-7", "0-2,6"; each < ncpus; sorted, unique */
int parse_cpu_list(const char *s, unsigned ncpus, struct cpu_list *l,
		   char *err, size_t errlen);
/* "3", "ff,ffffffff" (cpumask hex, 32-bit words) -> list */
int cpumask_hex_parse(const char *hex, struct cpu_list *l);
/* A list as ranges: "0-2,5" ("" when empty), ending in "..." where it
 * does not fit */
void cpu_list_str(const struct cpu_list *l, char *buf, size_t size);
/* CPUs online now, from /sys/devices/system/cpu/online (override with
 * SUITE_CPU_ONLINE for tests); returns 0 or -1 */
int cpus_online(struct cpu_list *l);

/* cpu added in its place (once) */
void cpu_list_add(struct cpu_list *l, uint32_t cpu);
bool cpu_list_has(const struct cpu_list *l, uint32_t cpu);
/* out gets the CPUs of a that are not in b */
void cpu_list_minus(const struct cpu_list *a, const struct cpu_list *b,
		    struct cpu_list *out);
void cpu_list_free(struct cpu_list *l);

/* Moves the calling process's threads off the CPUs of l (onto every other
 * online CPU): false if no other CPU is online or the move failed */
bool cpus_self_avoid(const struct cpu_list *l);

#endif
