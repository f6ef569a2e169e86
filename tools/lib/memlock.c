// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "memlock.h"
#include "common.h"
#include "vmas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t status_kb(const char *buf, const char *field)
{
	const char *p = strstr(buf, field);

	return p ? strtoull(p + strlen(field), NULL, 10) : 0;
}

/* VM_IO, VM_DONTEXPAND, VM_PFNMAP, VM_MIXEDMAP mappings are never locked */
static bool vmflags_special(const char *flags)
{
	static const char *const special[] = { " io", " de", " pf", " mm" };

	for (size_t i = 0; i < ARRAY_SIZE(special); i++) {
		const char *p = strstr(flags, special[i]);

		if (p && (p[3] == ' ' || p[3] == '\n' || !p[3]))
			return true;
	}
	return false;
}

bool memlock_read_status(uint32_t pid, struct memlock *m)
{
	char path[64], buf[8192];

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	if (read_small_file(path, buf, sizeof(buf)) <= 0 || !strstr(buf, "VmRSS:"))
		return false;
	m->vmlck_kb = status_kb(buf, "VmLck:");
	m->vmrss_kb = status_kb(buf, "VmRSS:");
	m->at_ns = now_ns();
	return true;
}

bool memlock_read(uint32_t pid, struct memlock *m)
{
	char path[64], *line = NULL;
	bool gate = false;
	size_t len = 0;
	FILE *f;

	memset(m, 0, sizeof(*m));
	if (!memlock_read_status(pid, m))
		return false;
	snprintf(path, sizeof(path), "/proc/%u/smaps", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (getline(&line, &len, f) > 0) {
		uint64_t start, end;
		const char *name;

		if (!vmas_parse_line(line, &start, &end, &name)) {
			gate = start >> 63;	/* [vsyscall] is never locked */
			continue;
		}
		if (strncmp(line, "VmFlags:", 8) || gate || vmflags_special(line + 8))
			continue;
		m->vmas++;
		if (strstr(line + 8, " lo"))
			m->locked++;
	}
	free(line);
	fclose(f);
	m->valid = true;
	return true;
}

const char *memlock_verdict(const struct memlock *m)
{
	if (!m->vmlck_kb && !m->locked)
		return "memory is not locked";
	if (m->vmas && m->locked == m->vmas)
		return "mlockall appears to be in effect";
	return "part of the memory is locked (mlock), mlockall is not in effect";
}

bool memlock_all(const struct memlock *m)
{
	return m->vmas && m->locked == m->vmas;
}
