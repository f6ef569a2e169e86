// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Allocation that exits with EXIT_UNSUPPORTED on out of memory
 * (tools/lib/xalloc.h) */
#include "unit.h"
#include "xalloc.h"
#include "msg.h"
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/wait.h>

/* the exit status and stderr of fn run in a child */
static int in_child(void (*fn)(void), char *err, size_t errlen)
{
	int fds[2], st;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 2);
		fn();
		_exit(0);
	}
	close(fds[1]);
	while (got < errlen - 1 &&
	       (n = read(fds[0], err + got, errlen - 1 - got)) > 0)
		got += n;
	err[got] = '\0';
	close(fds[0]);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void overflow(void)
{
	xrealloc(NULL, SIZE_MAX / 2, 4);
}

int main(void)
{
	char err[256];
	char *s;
	int *a;

	tool_name = "xtool";
	a = xcalloc(8, sizeof(*a));
	CHECK(a && a[0] == 0 && a[7] == 0, "xcalloc: zeroed");
	a = xrealloc(a, 1000, sizeof(*a));
	a[999] = 7;
	CHECK(a[0] == 0 && a[999] == 7, "xrealloc: n elements, old ones kept");
	free(a);
	a = xmalloc(0);
	CHECK(a != NULL, "xmalloc(0): a pointer to free");
	free(a);
	a = xrealloc(NULL, 0, sizeof(*a));
	CHECK(a != NULL, "xrealloc to 0 elements: a pointer to free");
	free(a);
	s = xstrdup("abc");
	CHECK_STR(s, "abc", "xstrdup");
	free(s);

	CHECK(in_child(overflow, err, sizeof(err)) == EXIT_UNSUPPORTED,
	      "n * size overflows: exit 3");
	CHECK_STR(err, "xtool: out of memory\n", "n * size overflows: said");
	return unit_exit();
}
