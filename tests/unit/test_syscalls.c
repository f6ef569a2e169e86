// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The generated syscall name table against the C library's SYS_*
 * numbers, name lookups as --syscall takes them, errno names. */
#include "unit.h"
#include "syscalls.h"
#include <errno.h>
#include <sys/syscall.h>

static const struct {
	const char *name;
	long nr;
} known[] = {
	{ "read", SYS_read }, { "write", SYS_write }, { "close", SYS_close },
	{ "getppid", SYS_getppid }, { "nanosleep", SYS_nanosleep },
	{ "clock_nanosleep", SYS_clock_nanosleep }, { "futex", SYS_futex },
	{ "exit", SYS_exit }, { "exit_group", SYS_exit_group },
	{ "rt_sigtimedwait", SYS_rt_sigtimedwait }, { "openat", SYS_openat },
	{ "mmap", SYS_mmap }, { "bpf", SYS_bpf }, { "clone3", SYS_clone3 },
	{ "io_uring_enter", SYS_io_uring_enter }, { "epoll_pwait", SYS_epoll_pwait },
	{ "fcntl", SYS_fcntl }, { "newfstatat", SYS_newfstatat },
};

int main(void)
{
	char buf[64];
	long n = syscall_table_size(), named = 0, roundtrip = 0;

	CHECK(n > 300, "the table has %ld slots for %s", n, syscall_table_arch());
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		CHECK_STR(syscall_name(known[i].nr), known[i].name, "nr %ld is %s",
			  known[i].nr, known[i].name);
		CHECK(syscall_lookup(known[i].name) == known[i].nr,
		      "%s looks up as %ld", known[i].name, known[i].nr);
	}
	/* every name maps back to its own number: no name twice */
	for (long i = 0; i < n; i++) {
		const char *s = syscall_name(i);

		if (!s)
			continue;
		named++;
		roundtrip += syscall_lookup(s) == i;
	}
	CHECK(named > 300 && roundtrip == named, "%ld of %ld names round-trip",
	      roundtrip, named);

	CHECK_STR(syscall_name_fmt(511, buf, sizeof(buf)), "syscall_511",
		  "a number without a name prints as syscall_511");
	CHECK_STR(syscall_name_fmt(-1, buf, sizeof(buf)), "syscall_-1",
		  "-1 prints as syscall_-1");
	CHECK(syscall_name(n) == NULL && syscall_name(-1) == NULL,
	      "out of the table: no name");
	CHECK(syscall_lookup("syscall_511") == 511, "syscall_511 looks up");
	CHECK(syscall_lookup("110") == 110, "a bare number looks up");
	CHECK(syscall_lookup("nosuch") == -1, "an unknown name is -1");
	CHECK(syscall_lookup("") == -1, "empty is -1");
	CHECK(syscall_lookup("12abc") == -1, "12abc is -1");
	CHECK(syscall_lookup("syscall_") == -1, "syscall_ alone is -1");
	CHECK(syscall_lookup("syscall_99999999999") == -1, "a huge number is -1");
	CHECK(syscall_lookup("GETPPID") == -1, "names are case-sensitive");

	CHECK_STR(errno_name(EBADF, buf, sizeof(buf)), "EBADF", "errno 9 is EBADF");
	CHECK_STR(errno_name(ENOSYS, buf, sizeof(buf)), "ENOSYS", "ENOSYS");
	CHECK_STR(errno_name(512, buf, sizeof(buf)), "ERESTARTSYS",
		  "512 is the kernel's ERESTARTSYS");
	CHECK_STR(errno_name(516, buf, sizeof(buf)), "ERESTART_RESTARTBLOCK",
		  "516 is ERESTART_RESTARTBLOCK");
	CHECK_STR(errno_name(4000, buf, sizeof(buf)), "E4000", "unnamed: E4000");
	return unit_exit();
}
