/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* System call and errno names.  The syscall tables are generated at build
 * time from the system's kernel headers (scripts/gen_syscalls.sh, x86_64
 * and arm64); the one of the architecture the tool is built for is used.
 * Numbers the table lacks print as "syscall_NNN". */
#ifndef SUITE_SYSCALLS_H
#define SUITE_SYSCALLS_H

#include <stddef.h>

/* The name of syscall nr, NULL when the table has none */
const char *syscall_name(long nr);
/* The name, or "syscall_NNN", written into buf (returns buf) */
const char *syscall_name_fmt(long nr, char *buf, size_t size);
/* The number of "getppid", "syscall_110" or "110"; -1 when unknown */
long syscall_lookup(const char *name);
/* One more than the highest number the table names (0: no table) */
long syscall_table_size(void);
/* "x86_64", "arm64" or "unknown" */
const char *syscall_table_arch(void);

/* "EBADF"; the kernel-internal restart codes ("ERESTARTSYS") that a
 * syscall-exit tracepoint can see; "E<n>" otherwise */
const char *errno_name(int e, char *buf, size_t size);

#endif
