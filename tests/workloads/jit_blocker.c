// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* jit_blocker N MS
 * Like a JIT: copies a tiny function into an anonymous executable
 * mapping and calls it N times; it sleeps MS milliseconds (nanosleep made
 * from the copied code), so the leaf frame of each off-CPU stack is in
 * anonymous memory, named only by /tmp/perf-PID.map.  Prints its pid,
 * then "jit=ADDR". x86-64 and arm64; elsewhere it prints "unsupported". */
#include <sys/mman.h>
#include <time.h>
#include "wl.h"

#if defined(__x86_64__)
/* mov eax, 35 (nanosleep); syscall; ret  -- rdi, rsi: the caller's args */
static const unsigned char code[] = { 0xb8, 0x23, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xc3 };
#elif defined(__aarch64__)
/* mov x8, #101 (nanosleep); svc #0; ret */
static const unsigned char code[] = { 0xa8, 0x0c, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4,
				      0xc0, 0x03, 0x5f, 0xd6 };
#endif

int main(int argc, char **argv)
{
	long n = wl_arg(argc, argv, 1, 1000), ms = wl_arg(argc, argv, 2, 50);
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
#if defined(__x86_64__) || defined(__aarch64__)
	void (*fn)(struct timespec *, void *);
	unsigned char *m;

	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	memcpy(m, code, sizeof(code));
	__builtin___clear_cache((char *)m, (char *)m + sizeof(code));
	if (mprotect(m, 4096, PROT_READ | PROT_EXEC))
		return 1;
	fn = (void (*)(struct timespec *, void *))(void *)m;
	printf("%d\njit=%p\n", (int)getpid(), (void *)m);
	fflush(stdout);
	for (long i = 0; i < n; i++)
		fn(&ts, NULL);
	return 0;
#else
	printf("unsupported\n");
	return 0;
#endif
}
