/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* hotcheck --pprof FILE: the hot threads' off-CPU stacks (their blocks,
 * the voluntary waits of the "blocks" check) as a pprof profile
 * (tools/lib/pprof.h): one sample per thread and stack, with the time
 * off CPU ("off_cpu", nanoseconds) and the number of blocks ("blocks",
 * count), labelled pid, tid and comm, as offcputime's.  Preemptions carry
 * no stack (the BPF side takes none) and are not in it. */
#ifndef HOTCHECK_OFFCPU_PPROF_H
#define HOTCHECK_OFFCPU_PPROF_H

#include <stdio.h>

struct hc_run;

/* Writes the profile to f and closes it (stdout: flushed): 0, or -1
 * when it could not be written (said) */
int hc_pprof_write(const struct hc_run *r, FILE *f);

#endif
