// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* CPU lists: the "0-3,7" of -C and of sysfs, and cpumask hex, both ways */
#include "cpulist.h"
#include "msg.h"
#include "procfs.h"
#include "parse.h"
#include "vec.h"

#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cpu_list_add(struct cpu_list *l, uint32_t cpu)
{
	size_t i;

	for (i = 0; i < l->n && l->cpus[i] < cpu; i++)
		;
	if (i < l->n && l->cpus[i] == cpu)
		return;
	array_reserve(l->cpus, l->cap, l->n + 1);
	memmove(l->cpus + i + 1, l->cpus + i, (l->n - i) * sizeof(*l->cpus));
	l->cpus[i] = cpu;
	l->n++;
}

/* the list is sorted: a binary search */
bool cpu_list_has(const struct cpu_list *l, uint32_t cpu)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->cpus[mid] == cpu)
			return true;
		if (l->cpus[mid] < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

void cpu_list_free(struct cpu_list *l)
{
	free(l->cpus);
	memset(l, 0, sizeof(*l));
}

struct cpu_piece_arg {
	struct cpu_list *l;
	unsigned ncpus;
};

static int cpu_piece(const char *p, void *varg, char *err, size_t errlen)
{
	struct cpu_piece_arg *a = varg;
	const char *dash = strchr(p, '-');
	uint64_t lo, hi;
	char buf[32];

	if (dash) {
		size_t n = dash - p;

		if (n == 0 || n >= sizeof(buf))
			return fail_msg(err, errlen, "'%s' is not a CPU range", p);
		memcpy(buf, p, n);
		buf[n] = 0;
		if (parse_u64(buf, 0, MAX_CPUS_SUPPORTED - 1, false, &lo, err, errlen) ||
		    parse_u64(dash + 1, 0, MAX_CPUS_SUPPORTED - 1, false, &hi, err, errlen))
			return -1;
		if (hi < lo)
			return fail_msg(err, errlen, "'%s': range goes backwards", p);
	} else {
		if (parse_u64(p, 0, MAX_CPUS_SUPPORTED - 1, false, &lo, err, errlen))
			return -1;
		hi = lo;
	}
	if (hi >= a->ncpus)
		return fail_msg(err, errlen, "CPU %llu does not exist (this machine has "
			    "CPUs 0-%u)", (unsigned long long)hi, a->ncpus - 1);
	for (uint64_t c = lo; c <= hi; c++)
		cpu_list_add(a->l, (uint32_t)c);
	return 0;
}

int parse_cpu_list(const char *s, unsigned ncpus, struct cpu_list *l,
		   char *err, size_t errlen)
{
	struct cpu_piece_arg a = { l, ncpus };

	return split_list(s, "CPU", err, errlen, cpu_piece, &a);
}

int cpus_online(struct cpu_list *l)
{
	const char *path = getenv("SUITE_CPU_ONLINE");
	char buf[4096], err[128];
	size_t n;

	if (!path)
		path = "/sys/devices/system/cpu/online";
	if (read_small_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	n = strcspn(buf, "\n");
	buf[n] = 0;
	return parse_cpu_list(buf, MAX_CPUS_SUPPORTED, l, err, sizeof(err));
}

int cpumask_hex_parse(const char *hex, struct cpu_list *l)
{
	size_t n = strlen(hex);
	uint32_t bit = 0;
	bool any = false;

	l->n = 0;
	/* from the last (lowest) digit up; commas separate 32-bit words */
	for (size_t i = n; i-- > 0;) {
		char ch = hex[i];
		int v;

		if (ch == ',' || ch == '\n')
			continue;
		if (!isxdigit((unsigned char)ch))
			return -1;
		v = isdigit((unsigned char)ch) ? ch - '0' : tolower(ch) - 'a' + 10;
		for (int b = 0; b < 4; b++, bit++) {
			if (!(v & (1 << b)))
				continue;
			if (bit >= MAX_CPUS_SUPPORTED)
				return -1;
			cpu_list_add(l, bit);
		}
		any = true;
	}
	return any ? 0 : -1;
}

void cpu_list_str(const struct cpu_list *l, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; i < l->n;) {
		size_t j = i;
		int n;

		while (j + 1 < l->n && l->cpus[j + 1] == l->cpus[j] + 1)
			j++;
		if (j == i)
			n = snprintf(buf + off, size - off, "%s%u", off ? "," : "",
				     l->cpus[i]);
		else
			n = snprintf(buf + off, size - off, "%s%u-%u", off ? "," : "",
				     l->cpus[i], l->cpus[j]);
		if (n < 0 || (size_t)n >= size - off) {
			if (size > 4)
				strcpy(buf + size - 4, "...");
			return;
		}
		off += n;
		i = j + 1;
	}
}

void cpu_list_minus(const struct cpu_list *a, const struct cpu_list *b,
		    struct cpu_list *out)
{
	for (size_t i = 0; i < a->n; i++)
		if (!cpu_list_has(b, a->cpus[i]))
			cpu_list_add(out, a->cpus[i]);
}

bool cpus_self_avoid(const struct cpu_list *watched)
{
	struct cpu_list online = { 0 };
	cpu_set_t *set;
	size_t setsize;
	bool ok = false;

	if (cpus_online(&online))
		return false;
	setsize = CPU_ALLOC_SIZE(MAX_CPUS_SUPPORTED);
	set = CPU_ALLOC(MAX_CPUS_SUPPORTED);
	if (set) {
		CPU_ZERO_S(setsize, set);
		for (size_t i = 0; i < online.n; i++)
			if (!cpu_list_has(watched, online.cpus[i])) {
				CPU_SET_S(online.cpus[i], setsize, set);
				ok = true;
			}
		if (ok && sched_setaffinity(0, setsize, set))
			ok = false;
		CPU_FREE(set);
	}
	cpu_list_free(&online);
	return ok;
}
