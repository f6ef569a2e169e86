// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* id_exec N1 N2 DIR [FIFO]
 * Prints its pid, waits for the file $WL_GO, then as "execer": blocks N1
 * times 500 ms in before_exec_sleep(), touches N1 fresh pages of a private
 * mapping of DIR/before.data in before_exec_touch() (N1 page faults),
 * waits 300 ms in before_exec_pause(), and executes itself again.  The
 * new image, "execed": blocks N2 times 100 ms in after_exec_sleep(),
 * touches N2 fresh pages of DIR/after.data in after_exec_touch(), waits
 * 300 ms in after_exec_linger() (mappings are read while it lives) and
 * exits.  Both files are mapped at the same address (FILE_ADDR, far from
 * anything else): the faults after the exec land where the old mapping
 * was.  With FIFO (a named pipe someone reads), each part also writes one
 * byte to it N1 (N2) times, 50 ms apart, from before_exec_wake()
 * (after_exec_wake(), after the touches): the reader is woken that many
 * times by it. */
#include <fcntl.h>
#include <sys/mman.h>
#include "wl.h"

#define PAGE 4096L
#define FILE_ADDR ((void *)0x500000000000UL)

static volatile char *file_pages(const char *dir, const char *name, long n)
{
	char path[4096];
	char *p;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, n * PAGE))
		exit(1);
	p = mmap(FILE_ADDR, n * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, 0);
	if (p == MAP_FAILED)
		exit(1);
	close(fd);
	return p;
}

NOINLINE void before_exec_sleep(void)
{
	WL_SLEEP_MS(500);
}

/* Each part's functions have the same body and names of their own */
#define TOUCH_FN(name)							\
	NOINLINE void name(volatile char *p, long n)			\
	{								\
		wl_touch_pages(p, n);					\
	}
/* the write is made from the waking function itself (wl.h) */
#define WAKE_FN(name)							\
	NOINLINE void name(int fd, long n)				\
	{								\
		for (long i = 0; fd >= 0 && i < n; i++) {		\
			WL_SLEEP_MS(50);				\
			if (wl_syscall4(SYS_write, fd, (long)"w", 1, 0) != 1) \
				exit(1);				\
		}							\
		wl_keep(n);						\
	}

TOUCH_FN(before_exec_touch)
TOUCH_FN(after_exec_touch)
WAKE_FN(before_exec_wake)
WAKE_FN(after_exec_wake)

NOINLINE void before_exec_pause(void)
{
	WL_SLEEP_MS(300);
}

NOINLINE void after_exec_sleep(void)
{
	WL_SLEEP_MS(100);
}

static int open_fifo(const char *fifo)
{
	int fd = fifo ? open(fifo, O_WRONLY | O_CLOEXEC) : -1;

	if (fifo && fd < 0)
		exit(1);
	return fd;
}

NOINLINE void after_exec_linger(void)
{
	WL_SLEEP_MS(300);
}


int main(int argc, char **argv)
{
	long n1, n2;
	volatile char *pages;

	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "after")) {
		int fd = open_fifo(argc == 6 ? argv[5] : NULL);

		n2 = wl_arg(argc, argv, 3, 3);
		wl_name("execed");
		pages = file_pages(argv[4], "after.data", n2);
		for (long i = 0; i < n2; i++)
			after_exec_sleep();
		after_exec_touch(pages, n2);
		after_exec_wake(fd, n2);
		after_exec_linger();
		return 0;
	}
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: id_exec N1 N2 DIR [FIFO]\n");
		return 2;
	}
	n1 = wl_arg(argc, argv, 1, 2);
	n2 = wl_arg(argc, argv, 2, 3);
	wl_name("execer");
	pages = file_pages(argv[3], "before.data", n1);
	wl_ready();
	wl_wait_go();
	for (long i = 0; i < n1; i++)
		before_exec_sleep();
	before_exec_touch(pages, n1);
	if (argc == 5) {
		int fd = open_fifo(argv[4]);

		before_exec_wake(fd, n1);
		close(fd);
	}
	before_exec_pause();
	execl("/proc/self/exe", argv[0], "after", argv[1], argv[2], argv[3],
	      argc == 5 ? argv[4] : (char *)NULL, (char *)NULL);
	perror("execl");
	return 1;
}
