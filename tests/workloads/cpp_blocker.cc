// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* cpp_blocker N MS [DELAY_MS]
 * After DELAY_MS (default 300), a thread named "cpp_blocker" blocks N
 * times for MS milliseconds in ledger::Book<int>::apply() (a member of a
 * class template, never inlined), through Book<int>::settle() (an inline
 * member, always inlined: its code is apply's, and only the DWARF inline
 * information knows it), which makes the nanosleep system call itself
 * (inline asm), so that a frame-pointer unwinder starts in apply's own
 * frame.  The main thread ("cpp_main") waits for it and exits.  Prints
 * its pid.  With WL_GO=PATH in the environment, the blocker starts only
 * once PATH exists (tests/workloads/wl.h's protocol).
 * Built by the Makefile with g++ -O2 -g -fno-omit-frame-pointer. */
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace ledger {

template <typename T> class Book {
public:
	explicit Book(T unit) : unit_(unit) {}

	__attribute__((noinline)) void apply(long n, long ms)
	{
		for (long i = 0; i < n; i++)
			settle(ms);
		__asm__ volatile("" ::: "memory");
	}

private:
	/* the system call, in apply's frame */
	__attribute__((always_inline)) inline void settle(long ms)
	{
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
		long ret;

		do {
#if defined(__x86_64__)
			__asm__ volatile("syscall"
					 : "=a"(ret)
					 : "a"((long)SYS_nanosleep), "D"(&ts), "S"(0L)
					 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
			register long x8 __asm__("x8") = SYS_nanosleep;
			register long x0 __asm__("x0") = (long)&ts;
			register long x1 __asm__("x1") = 0;

			__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
			ret = x0;
#endif
		} while (ret == -4); /* EINTR */
		unit_ += 1;
	}

	T unit_;
};

} // namespace ledger

static long n_blocks, block_ms;

static void *blocker(void *)
{
	const char *go = getenv("WL_GO");
	ledger::Book<int> book(0);

	prctl(PR_SET_NAME, "cpp_blocker", 0, 0, 0);
	while (go && access(go, F_OK))
		usleep(5000);
	book.apply(n_blocks, block_ms);
	return nullptr;
}

int main(int argc, char **argv)
{
	pthread_t t;

	n_blocks = argc > 1 ? strtol(argv[1], nullptr, 0) : 10;
	block_ms = argc > 2 ? strtol(argv[2], nullptr, 0) : 50;
	prctl(PR_SET_NAME, "cpp_main", 0, 0, 0);
	printf("%d\n", getpid());
	fflush(stdout);
	usleep((argc > 3 ? strtol(argv[3], nullptr, 0) : 300) * 1000);
	pthread_create(&t, nullptr, blocker, nullptr);
	pthread_join(t, nullptr);
	return 0;
}
