// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "memlock.h"
#include "msg.h"
#include "clock.h"
#include "procfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	char buf[8192];

	if (proc_read(buf, sizeof(buf), "/proc/%u/status", pid) <= 0 ||
	    !status_field(buf, "VmRSS"))
		return false;
	m->vmlck_kb = status_u64(buf, "VmLck");
	m->vmrss_kb = status_u64(buf, "VmRSS");
	m->at_ns = now_ns();
	return true;
}

bool memlock_read(uint32_t pid, struct memlock *m)
{
	struct proc_lines pl;
	bool gate = false;
	char *line;

	memset(m, 0, sizeof(*m));
	if (!memlock_read_status(pid, m))
		return false;
	if (proc_lines_open(&pl, "/proc/%u/smaps", pid))
		return false;
	while ((line = proc_lines_next(&pl))) {
		uint64_t start, end;
		const char *name;

		if (!proc_maps_line(line, &start, &end, &name)) {
			gate = start >> 63;	/* [vsyscall] is never locked */
			continue;
		}
		if (strncmp(line, "VmFlags:", 8) || gate || vmflags_special(line + 8))
			continue;
		m->vmas++;
		if (strstr(line + 8, " lo"))
			m->locked++;
	}
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
