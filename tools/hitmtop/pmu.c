// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "pmu.h"
#include "msg.h"
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void chomp(char *s)
{
	s[strcspn(s, "\n")] = 0;
}

static bool exists(const char *dir, const char *rel)
{
	char path[2048];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return access(path, F_OK) == 0;
}

static bool read_u32(const char *dir, const char *rel, uint32_t *out)
{
	char path[1024], buf[64];
	uint64_t v;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (read_small_file(path, buf, sizeof(buf)) <= 0)
		return false;
	chomp(buf);
	if (parse_u64(buf, 0, UINT32_MAX, true, &v, path, sizeof(path)))
		return false;
	*out = (uint32_t)v;
	return true;
}

static void add_pmu(struct hitm_pmu *out, int *n, int max, const char *root,
		    const char *name, enum hitm_pmu_kind kind)
{
	struct hitm_pmu *p;
	char path[1024], buf[4096];

	if (*n >= max)
		return;
	p = &out[*n];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->dir, sizeof(p->dir), "%s/%s", root, name);
	p->kind = kind;
	if (!read_u32(p->dir, "type", &p->type))
		return;
	p->has_stores = kind == HITM_PMU_PEBS && exists(p->dir, "events/mem-stores");
	p->has_aux = kind == HITM_PMU_PEBS && exists(p->dir, "events/mem-loads-aux");
	/* hybrid PMUs cover some CPUs only */
	snprintf(path, sizeof(path), "%s/cpus", p->dir);
	if (read_small_file(path, buf, sizeof(buf)) > 0) {
		char err[128];

		chomp(buf);
		if (parse_cpu_list(buf, MAX_CPUS_SUPPORTED, &p->cpus, err, sizeof(err)))
			cpu_list_free(&p->cpus);
	}
	(*n)++;
}

int hitm_pmu_detect(const char *root, struct hitm_pmu *out, int max, char *why,
		    size_t whylen)
{
	static const char *const intel[] = { "cpu", "cpu_core", "cpu_atom" };
	char path[1024], seen[512] = "";
	struct dirent *de;
	size_t off = 0;
	DIR *d;
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(intel); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, intel[i]);
		if (exists(path, "events/mem-loads"))
			add_pmu(out, &n, max, root, intel[i], HITM_PMU_PEBS);
	}
	if (!n) {
		snprintf(path, sizeof(path), "%s/ibs_op", root);
		if (exists(path, "type"))
			add_pmu(out, &n, max, root, "ibs_op", HITM_PMU_IBS);
	}
	if (n)
		return n;
	d = opendir(root);
	while (d && (de = readdir(d))) {
		int k;

		if (de->d_name[0] == '.')
			continue;
		k = snprintf(seen + off, sizeof(seen) - off, "%s%s", off ? " " : "", de->d_name);
		if (k < 0 || (size_t)k >= sizeof(seen) - off)
			break;
		off += k;
	}
	if (d)
		closedir(d);
	snprintf(why, whylen, "no PEBS/IBS memory sampling exposed: %s has no "
		 "cpu/events/mem-loads (Intel PEBS load latency) and no ibs_op (AMD IBS), "
		 "only: %s; bare metal or a VM with PMU passthrough is needed",
		 root, *seen ? seen : "nothing");
	return 0;
}

void hitm_pmu_free(struct hitm_pmu *p, int n)
{
	for (int i = 0; i < n; i++)
		cpu_list_free(&p[i].cpus);
}

int hitm_pmu_apply_format(const char *spec, uint64_t value, struct perf_event_attr *attr,
			  char *err, size_t errlen)
{
	const char *colon = strchr(spec, ':'), *p;
	uint64_t *word;
	unsigned shift = 0;
	size_t wl;

	if (!colon)
		return fail_msg(err, errlen, "format '%s' has no ':'", spec);
	wl = colon - spec;
	if (wl == 6 && !strncmp(spec, "config", 6))
		word = (uint64_t *)&attr->config;
	else if (wl == 7 && !strncmp(spec, "config1", 7))
		word = (uint64_t *)&attr->config1;
	else if (wl == 7 && !strncmp(spec, "config2", 7))
		word = (uint64_t *)&attr->config2;
	else
		return fail_msg(err, errlen, "format '%s': unknown field", spec);
	/* the value's bits fill the ranges in order, low bits first */
	for (p = colon + 1; *p && *p != '\n';) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;

		if (end == p)
			return fail_msg(err, errlen, "format '%s': bad bit range", spec);
		p = end;
		if (*p == '-') {
			hi = strtoul(p + 1, &end, 10);
			if (end == p + 1)
				return fail_msg(err, errlen, "format '%s': bad bit range", spec);
			p = end;
		}
		if (hi < lo || hi > 63)
			return fail_msg(err, errlen, "format '%s': bad bit range", spec);
		for (unsigned long b = lo; b <= hi; b++, shift++) {
			if (shift < 64 && (value >> shift & 1))
				*word |= 1ULL << b;
			else
				*word &= ~(1ULL << b);
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return fail_msg(err, errlen, "format '%s': bad bit range", spec);
	}
	if (shift < 64 && value >> shift)
		return fail_msg(err, errlen, "value 0x%llx does not fit format '%s'",
			    (unsigned long long)value, spec);
	return 0;
}

int hitm_pmu_event_attr(const char *dir, const char *name, uint64_t ldlat,
			struct perf_event_attr *attr, char *err, size_t errlen)
{
	char path[1024], ev[512], fmt[128], *save = NULL, *term;

	snprintf(path, sizeof(path), "%s/events/%s", dir, name);
	if (read_small_file(path, ev, sizeof(ev)) <= 0)
		return fail_msg(err, errlen, "cannot read %s", path);
	chomp(ev);
	for (term = strtok_r(ev, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(term, '=');
		uint64_t v = 1;

		if (eq) {
			*eq = 0;
			if (parse_u64(eq + 1, 0, UINT64_MAX, true, &v, err, errlen))
				return fail_msg(err, errlen, "%s: term %s: bad value '%s'", path,
					    term, eq + 1);
		}
		if (!strcmp(term, "ldlat"))
			v = ldlat;
		snprintf(path, sizeof(path), "%s/format/%s", dir, term);
		if (read_small_file(path, fmt, sizeof(fmt)) <= 0)
			return fail_msg(err, errlen, "cannot read %s", path);
		chomp(fmt);
		if (hitm_pmu_apply_format(fmt, v, attr, err, errlen))
			return -1;
	}
	return 0;
}
