/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What /proc says about processes and threads now.  Every read is
 * bounded (the caller's buffer, read_small_file), and what a task names
 * itself is raw text: escape it to print it (escape.h).  A number alone
 * is no identity (a new task may have it): see taskid.h. */
#ifndef SUITE_PROCFS_H
#define SUITE_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>


/* The file named by fmt ("/proc/%u/status", ...) into buf, NUL-terminated;
 * its length, or -1 if unreadable */
int proc_read(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The lines of a file too large to read at once (/proc/PID/maps, smaps):
 *
 *	struct proc_lines pl;
 *	char *line;
 *
 *	if (proc_lines_open(&pl, "/proc/%u/maps", pid))
 *		return -1;
 *	while ((line = proc_lines_next(&pl)))
 *		... line, with its newline, is the caller's to change ...
 *
 * The last proc_lines_next() closes it; proc_lines_close() ends it early. */
struct proc_lines {
	FILE *f;
	char *line;
	size_t len;
};
/* 0, or -1 if the file cannot be opened */
int proc_lines_open(struct proc_lines *pl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The next line, or NULL at the end */
char *proc_lines_next(struct proc_lines *pl);
void proc_lines_close(struct proc_lines *pl);

/* A process is alive while /proc/PID exists and is not a zombie */
bool pid_alive(uint32_t pid);
/* comm of a task, "[exited]" when gone; raw: escape it to print it */
void task_comm(uint32_t tid, char *buf, size_t size);

/* In the text of a /proc/ID/status: the value of the field "name:" (after
 * its blanks, up to the end of the line), NULL without one */
const char *status_field(const char *status, const char *name);
/* The same as a number (0 without one) */
uint64_t status_u64(const char *status, const char *name);

/* Read a small file into buf (NUL-terminated); -1 if unreadable. */
int read_small_file(const char *path, char *buf, size_t size);
/* The number a sysctl file (path) holds, or def if it cannot be read */
long sysctl_long(const char *path, long def);

/* The addresses of n kernel symbols by name in /proc/kallsyms (the
 * kernel's own, not a module's): at[k] for names[k], 0 where absent;
 * stops reading once all are found.  How many were found. */
int kallsyms_addrs(const char *const *names, uint64_t *at, int n);

/* Parse one /proc/PID/maps line: 0, or -1 if it is not one.  name points
 * into line ("[anon]" for a mapping without a name). */
int proc_maps_line(char *line, uint64_t *start, uint64_t *end,
		   const char **name);

#endif
