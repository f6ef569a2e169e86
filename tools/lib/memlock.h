/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Is a process's memory locked?  VmLck and VmRSS from /proc/PID/status,
 * and how many of its mappings are locked (VmFlags "lo" in
 * /proc/PID/smaps), leaving out those mlockall never locks ([vvar],
 * [vdso], [vsyscall], I/O and PFN mappings).  Every lockable mapping
 * locked is what mlockall(MCL_CURRENT) leaves behind. */
#ifndef SUITE_MEMLOCK_H
#define SUITE_MEMLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct memlock {
	bool valid;
	uint64_t vmlck_kb, vmrss_kb;
	unsigned vmas;		/* mappings that mlockall would lock */
	unsigned locked;	/* ... and those locked */
	uint64_t at_ns;		/* when it was read (now_ns()) */
};

/* false when the process is gone or /proc cannot be read */
bool memlock_read(uint32_t pid, struct memlock *m);
/* VmLck and VmRSS only (no page-table walk, cheap enough to poll); the
 * mapping counts are left as they were */
bool memlock_read_status(uint32_t pid, struct memlock *m);
/* "memory is not locked", "mlockall appears to be in effect", or
 * "part of the memory is locked (mlock), mlockall is not in effect" */
const char *memlock_verdict(const struct memlock *m);
/* every lockable mapping is locked */
bool memlock_all(const struct memlock *m);

#endif
