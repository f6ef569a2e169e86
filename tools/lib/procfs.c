// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "procfs.h"
#include "msg.h"

#include <ctype.h>
#include <inttypes.h>
#include <dirent.h>
#include <stdarg.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int proc_read(char *buf, size_t size, const char *fmt, ...)
{
	char path[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return read_small_file(path, buf, size);
}

int proc_lines_open(struct proc_lines *pl, const char *fmt, ...)
{
	char path[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	memset(pl, 0, sizeof(*pl));
	pl->f = fopen(path, "re");
	return pl->f ? 0 : -1;
}

char *proc_lines_next(struct proc_lines *pl)
{
	if (pl->f && getline(&pl->line, &pl->len, pl->f) > 0)
		return pl->line;
	proc_lines_close(pl);
	return NULL;
}

void proc_lines_close(struct proc_lines *pl)
{
	if (pl->f)
		fclose(pl->f);
	free(pl->line);
	memset(pl, 0, sizeof(*pl));
}

bool pid_alive(uint32_t pid)
{
	char buf[512], *p;

	if (proc_read(buf, sizeof(buf), "/proc/%u/stat", pid) <= 0)
		return false;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

void task_comm(uint32_t tid, char *buf, size_t size)
{
	int n = proc_read(buf, size, "/proc/%u/comm", tid);

	if (n <= 0) {
		snprintf(buf, size, "[exited]");
		return;
	}
	if (buf[n - 1] == '\n')
		buf[n - 1] = 0;
}

const char *status_field(const char *status, const char *name)
{
	size_t n = strlen(name);

	/* at the start of a line: the first line is "Name:" and the value
	 * of a field never holds a newline (the kernel escapes it) */
	for (const char *p = status; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (!strncmp(p, name, n) && p[n] == ':') {
			p += n + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			return p;
		}
	}
	return NULL;
}

uint64_t status_u64(const char *status, const char *name)
{
	const char *p = status_field(status, name);

	return p ? strtoull(p, NULL, 10) : 0;
}

int read_small_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return (int)n;
}

long sysctl_long(const char *path, long def)
{
	char buf[32], *end;
	long v;

	if (read_small_file(path, buf, sizeof(buf)) <= 0)
		return def;
	v = strtol(buf, &end, 10);
	return end == buf ? def : v;
}

int proc_maps_line(char *line, uint64_t *start, uint64_t *end,
		    const char **name)
{
	char *p = line, *nl;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64, start, end) != 2 || *end <= *start)
		return -1;
	/* address perms offset dev inode, then the name after spaces */
	for (int field = 0; field < 5; field++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return -1;
		while (*p && *p != ' ' && *p != '\n')
			p++;
	}
	while (*p == ' ')
		p++;
	nl = strchr(p, '\n');
	if (nl)
		*nl = 0;
	*name = *p ? p : "[anon]";
	return 0;
}

int kallsyms_addrs(const char *const *names, uint64_t *at, int n)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	int found = 0;

	for (int k = 0; k < n; k++)
		at[k] = 0;
	while (f && found < n && fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[128];

		/* a module's symbol has its module after the name: skipped */
		if (strchr(line, '[') ||
		    sscanf(line, "%llx %c %127s", &addr, &type, name) != 3)
			continue;
		for (int k = 0; k < n; k++)
			if (!at[k] && !strcmp(name, names[k])) {
				at[k] = addr;
				found++;
			}
	}
	if (f)
		fclose(f);
	return found;
}
