/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A target for tests/symbolizer/run.sh: prints the addresses of two of its
 * functions (and, with "jit", of code it names in /tmp/perf-PID.map, where
 * PID is its pid in its own namespace), then waits until killed.
 *   prog_target [jit]
 * Output: "alpha=0xADDR beta=0xADDR [jit=0xADDR]" and a newline. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) static int target_alpha(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 2; /* LINE_ALPHA */
}

__attribute__((noinline)) int target_beta(int x)
{
	__asm__ volatile("" ::: "memory");
	return target_alpha(x) + 1;
}

int main(int argc, char **argv)
{
	uintptr_t a = (uintptr_t)&target_alpha, b = (uintptr_t)&target_beta;

	printf("alpha=%#lx beta=%#lx", (unsigned long)a, (unsigned long)b);
	if (argc > 1 && !strcmp(argv[1], "jit")) {
		void *m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		char path[64];
		FILE *f;

		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		f = fopen(path, "w");
		if (!f || m == MAP_FAILED)
			return 1;
		fprintf(f, "%lx 40 jit_fn_1\ngarbage line\n%lx 40 jit_fn_2\n", (unsigned long)m,
			(unsigned long)m + 0x100);
		fclose(f);
		printf(" jit=%#lx", (unsigned long)m + 0x104);
	}
	printf("\n");
	fflush(stdout);
	for (;;)
		pause();
	return target_beta(argc);
}
