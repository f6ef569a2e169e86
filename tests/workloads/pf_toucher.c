// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* pf_toucher PAGES [DELAY_MS] [MODE] [WARM_PAGES] [GAP_MS] [HOLD_MS]
 * Prints its pid, then waits DELAY_MS (default 5000; SIGUSR1 ends the
 * wait at once).  Then it touches WARM_PAGES fresh pages in
 * pf_warmup_touch(), waits GAP_MS, and touches PAGES fresh pages in
 * pf_touch_fresh_pages(): one page fault per page.  It stays HOLD_MS
 * (default 300) and exits.
 * MODE, where the fresh pages are:
 *   anon  an anonymous mapping (default)
 *   heap  the heap, grown with sbrk
 *   file  a private writable mapping of a file in the page cache
 *         (pf_toucher.PID.data in $TMPDIR or /tmp, removed at exit): minor faults
 *   major the same file dropped from the page cache first, read at random
 *         (no read-ahead): one major fault per page
 *   read  an anonymous mapping filled by read(2) from that file: the
 *         faults are taken in kernel mode, inside the system call
 *   thread an anonymous mapping touched by a thread ("pf_thread") created
 *         once the wait is over
 * Transparent huge pages are turned off on the range so that every page
 * is a fault of its own. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include "wl.h"

#define PAGE 4096L

static char file_path[256];
static int read_fd = -1;

NOINLINE void pf_warmup_touch(volatile char *p, long pages)
{
	wl_touch_pages(p, pages);
}

NOINLINE long pf_touch_fresh_pages(volatile char *p, long pages, int write)
{
	long sum = 0;

	if (read_fd >= 0) {
		/* in this frame, so that the user stack shows this function */
		sum = wl_syscall4(SYS_pread64, read_fd, (long)p, pages * PAGE, 0);
		wl_keep(sum);
		return sum;
	}
	for (long i = 0; i < pages; i++) {
		if (write)
			p[i * PAGE] = 2;
		else
			sum += p[i * PAGE];
	}
	wl_keep(sum);
	return sum;
}

struct touch {
	char *region;
	long pages;
};

static void *toucher_thread(void *arg)
{
	struct touch *t = arg;

	wl_name("pf_thread");
	pf_touch_fresh_pages(t->region, t->pages, 1);
	return NULL;
}

static char *file_region(long pages, int drop, int keep_fd)
{
	const char *dir = getenv("TMPDIR");
	char buf[PAGE];
	char *p;
	int fd;

	snprintf(file_path, sizeof(file_path), "%s/pf_toucher.%d.data", dir && *dir ? dir : "/tmp",
		 getpid());
	fd = open(file_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror(file_path);
		exit(1);
	}
	memset(buf, 'x', sizeof(buf));
	for (long i = 0; i < pages; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf)) {
			perror("write");
			exit(1);
		}
	fsync(fd);
	if (keep_fd) {
		read_fd = fd;
		return NULL;
	}
	if (drop)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	if (drop)
		madvise(p, pages * PAGE, MADV_RANDOM);
	return p;
}

static char *heap_region(long pages)
{
	char *cur = sbrk(0), *p;

	/* page-align the break, then grow it */
	sbrk(PAGE - ((unsigned long)cur & (PAGE - 1)));
	p = sbrk(pages * PAGE);
	if (p == (void *)-1) {
		perror("sbrk");
		exit(1);
	}
	madvise(p, pages * PAGE, MADV_NOHUGEPAGE);
	return p;
}

int main(int argc, char **argv)
{
	long pages = wl_arg(argc, argv, 1, 256);
	long delay = wl_arg(argc, argv, 2, 5000);
	const char *mode = argc > 3 ? argv[3] : "anon";
	long warm = wl_arg(argc, argv, 4, 0);
	long gap = wl_arg(argc, argv, 5, 0);
	long hold = wl_arg(argc, argv, 6, 300);
	struct timespec ts = { delay / 1000, (delay % 1000) * 1000000L };
	char *region, *warm_region = NULL;
	sigset_t set;

	wl_name("pf_toucher");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (!strcmp(mode, "heap"))
		region = heap_region(pages);
	else if (!strcmp(mode, "file"))
		region = file_region(pages, 0, 0);
	else if (!strcmp(mode, "major"))
		region = file_region(pages, 1, 0);
	else
		region = wl_fresh_pages(pages);
	if (!strcmp(mode, "read"))
		file_region(pages, 0, 1);
	if (warm)
		warm_region = wl_fresh_pages(warm);
	wl_ready();
	sigtimedwait(&set, NULL, &ts);

	if (warm)
		pf_warmup_touch(warm_region, warm);
	if (gap)
		wl_delay_ms(gap);
	if (!strcmp(mode, "thread")) {
		struct touch t = { region, pages };
		pthread_t th;

		pthread_create(&th, NULL, toucher_thread, &t);
		pthread_join(th, NULL);
	} else {
		pf_touch_fresh_pages(region, pages, strcmp(mode, "major") != 0);
	}
	wl_delay_ms(hold);
	if (file_path[0])
		unlink(file_path);
	return 0;
}
