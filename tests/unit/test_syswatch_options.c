// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --syscall as syswatch parses it (options.c): names and numbers into
 * the mask, the lists it refuses (exit 2), and what the mask lets in. */
#include "unit.h"
#include "msg.h"
#include "options.h"
#include "syscalls.h"
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

/* The exit code of parsing arg in a child (it exits on a bad list) */
static int parse_exit(const char *arg)
{
	struct sw_opts o = { 0 };
	int status;
	pid_t pid;

	fflush(stdout);	/* the child must not print the checks again */
	pid = fork();
	if (pid == 0) {
		/* the usage message is not the test's output */
		freopen("/dev/null", "w", stderr);
		sw_parse_syscalls(&o, arg);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(void)
{
	struct sw_opts o = { 0 };

	CHECK(sw_nr_wanted(&o, SYS_read), "without --syscall every syscall is wanted");
	CHECK(sw_nr_wanted(&o, -1), "even -1");

	sw_parse_syscalls(&o, "read,write");
	CHECK(o.filter, "--syscall sets the filter");
	CHECK(sw_nr_wanted(&o, SYS_read), "read is wanted");
	CHECK(sw_nr_wanted(&o, SYS_write), "write is wanted");
	CHECK(!sw_nr_wanted(&o, SYS_getppid), "getppid is not");
	CHECK(!sw_nr_wanted(&o, -1), "-1 is not");
	CHECK(!sw_nr_wanted(&o, SW_MAX_SYSCALLS), "out of range is not");

	sw_parse_syscalls(&o, "syscall_110");
	CHECK(sw_nr_wanted(&o, 110) && sw_nr_wanted(&o, SYS_read),
	      "a second --syscall adds to the first");
	sw_parse_syscalls(&o, "4095");
	CHECK(sw_nr_wanted(&o, 4095), "the highest number fits");

	CHECK(parse_exit("getppid") == 0, "a good list is accepted");
	CHECK(parse_exit("") == EXIT_USAGE, "an empty list exits 2");
	CHECK(parse_exit("read,") == EXIT_USAGE, "a trailing comma exits 2");
	CHECK(parse_exit(",read") == EXIT_USAGE, "a leading comma exits 2");
	CHECK(parse_exit("read,,write") == EXIT_USAGE, "an empty element exits 2");
	CHECK(parse_exit("no_such_call") == EXIT_USAGE, "an unknown name exits 2");
	CHECK(parse_exit("4096") == EXIT_USAGE, "a number out of range exits 2");
	return unit_exit();
}
