// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "syscalls.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "syscall_names.h"	/* generated into the build directory */

#if defined(__x86_64__)
#define TABLE syscall_names_x86_64
#define TABLE_N SYSCALL_NAMES_X86_64_N
#define TABLE_ARCH "x86_64"
#elif defined(__aarch64__)
#define TABLE syscall_names_arm64
#define TABLE_N SYSCALL_NAMES_ARM64_N
#define TABLE_ARCH "arm64"
#endif

const char *syscall_name(long nr)
{
#ifdef TABLE
	if (nr >= 0 && nr < TABLE_N)
		return TABLE[nr];
#endif
	return NULL;
}

long syscall_table_size(void)
{
#ifdef TABLE
	return TABLE_N;
#else
	return 0;
#endif
}

const char *syscall_table_arch(void)
{
#ifdef TABLE
	return TABLE_ARCH;
#else
	return "unknown";
#endif
}

const char *syscall_name_fmt(long nr, char *buf, size_t size)
{
	const char *n = syscall_name(nr);

	if (n)
		snprintf(buf, size, "%s", n);
	else
		snprintf(buf, size, "syscall_%ld", nr);
	return buf;
}

/* a decimal number without sign or trailing bytes, below 1 << 20 */
static long small_number(const char *s)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s) || v >= (1L << 20))
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v < (1L << 20) ? v : -1;
}

long syscall_lookup(const char *name)
{
	if (!name || !*name)
		return -1;
	if (isdigit((unsigned char)name[0]))
		return small_number(name);
	if (!strncmp(name, "syscall_", 8))
		return small_number(name + 8);
#ifdef TABLE
	for (long i = 0; i < TABLE_N; i++)
		if (TABLE[i] && !strcmp(TABLE[i], name))
			return i;
#endif
	return -1;
}

const char *errno_name(int e, char *buf, size_t size)
{
	/* include/linux/errno.h: never seen by user space, but the exit
	 * tracepoint runs before signal delivery rewrites them */
	static const char *const restart[] = {
		[0] = "ERESTARTSYS", [1] = "ERESTARTNOINTR",
		[2] = "ERESTARTNOHAND", [3] = "ENOIOCTLCMD",
		[4] = "ERESTART_RESTARTBLOCK",
	};
	const char *n = e > 0 ? strerrorname_np(e) : NULL;

	if (!n && e >= 512 && e < 512 + (int)(sizeof(restart) / sizeof(restart[0])))
		n = restart[e - 512];
	if (n)
		snprintf(buf, size, "%s", n);
	else
		snprintf(buf, size, "E%d", e);
	return buf;
}
