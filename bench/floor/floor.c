// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* floor HOOK [PID]: attaches the floor programs of bench/floor/floor.bpf.c
 * (one per-CPU array lookup and one add each) to HOOK until SIGINT or
 * SIGTERM, then prints how often each ran.  make bench runs it as one more
 * tracer: its ns per event is the least any program on that hook costs.
 *   sched_switch     tp_btf/sched_switch
 *   syscalls         raw_tp/sys_enter and raw_tp/sys_exit
 *   page_fault_user  tp_btf/page_fault_user (x86 exceptions tracepoint)
 *   page-faults      a perf_event program on the software event page-faults
 *                    (period 1) of process PID (one event, the thread
 *                    PID, not inherited), or of every CPU without PID
 *   walks PID        the stack walks a tracer of PID's blocks and wakers
 *                    cannot do without (tp_btf/sched_switch and
 *                    tp_btf/sched_waking): the user stack of a thread of
 *                    PID that blocks, the kernel stack it waited in when
 *                    it is switched back in, the user and kernel stacks
 *                    of whoever wakes it; the frames are not used; the
 *                    user stacks walked as the tools walk them
 *   walks-kernel PID the same, the user stacks by bpf_get_stack()
 * Needs no tracefs.  Exit 2: bad arguments; 3: a program does not load or
 * attach on this machine. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "floor.skel.h"
#include "procfs.h"	/* tools/lib: sysctl_long() */

#define MAX_LINKS 256

static volatile sig_atomic_t stop;

static void on_signal(int sig __attribute__((unused)))
{
	stop = 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: floor sched_switch|syscalls|page_fault_user|page-faults [PID]\n"
			"       floor walks|walks-kernel PID\n");
	return 2;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* The page-faults events: one on PID, or one per CPU */
static int attach_faults(struct bpf_program *prog, long pid, struct bpf_link **links, int *n)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
		.config = PERF_COUNT_SW_PAGE_FAULTS, .sample_period = 1,
	};
	int ncpu = pid > 0 ? 1 : libbpf_num_possible_cpus();

	if (ncpu < 0 || ncpu > MAX_LINKS)
		return -E2BIG;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int fd = syscall(SYS_perf_event_open, &a, pid > 0 ? (pid_t)pid : -1,
				 pid > 0 ? -1 : cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			if (pid <= 0 && errno == ENODEV)
				continue;	/* a possible CPU that is not online */
			return -errno;
		}
		links[*n] = bpf_program__attach_perf_event(prog, fd);
		if (!links[*n]) {
			int err = -errno;

			close(fd);
			return err;
		}
		(*n)++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const names[] = {
		"sched_switch", "sys_enter", "sys_exit", "page_fault_user", "page-faults",
		"sched_switch (walks)", "sched_waking (walks)",
	};
	struct bpf_link *links[MAX_LINKS];
	struct bpf_program *progs[7];
	struct floor_bpf *skel;
	bool want[7] = { false };
	int nlinks = 0, err = 0, ncpu;
	long pid = 0;
	char *end;

	if (argc < 2 || argc > 3)
		return usage();
	if (!strcmp(argv[1], "sched_switch"))
		want[0] = true;
	else if (!strcmp(argv[1], "syscalls"))
		want[1] = want[2] = true;
	else if (!strcmp(argv[1], "page_fault_user"))
		want[3] = true;
	else if (!strcmp(argv[1], "page-faults"))
		want[4] = true;
	else if (!strcmp(argv[1], "walks") || !strcmp(argv[1], "walks-kernel"))
		want[5] = want[6] = true;
	else
		return usage();
	if (argc == 3) {
		errno = 0;
		pid = strtol(argv[2], &end, 10);
		if (!(want[4] || want[5]) || errno || end == argv[2] || *end || pid < 1 ||
		    pid > 0x3fffffff)
			return usage();
	} else if (want[5]) {
		return usage();
	}
	libbpf_set_print(libbpf_quiet);
	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "floor: cannot open the BPF object: %s\n", strerror(errno));
		return 3;
	}
	progs[0] = skel->progs.floor_sched_switch;
	progs[1] = skel->progs.floor_sys_enter;
	progs[2] = skel->progs.floor_sys_exit;
	progs[3] = skel->progs.floor_page_fault_user;
	progs[4] = skel->progs.floor_page_faults;
	progs[5] = skel->progs.walk_switch;
	progs[6] = skel->progs.walk_waking;
	skel->rodata->walk_tgid = (__u32)pid;
	/* as tools/lib/kfeat.c sets it; 0 sends every user walk to the kernel */
	if (!strcmp(argv[1], "walks")) {
		skel->rodata->ustack_min_addr =
			(__u64)sysctl_long("/proc/sys/vm/mmap_min_addr", 0);
		skel->rodata->ustack_max =
			(__u32)sysctl_long("/proc/sys/kernel/perf_event_max_stack", 127);
	}
	for (int i = 0; i < 7; i++)
		bpf_program__set_autoload(progs[i], want[i]);
	err = floor_bpf__load(skel);
	if (err) {
		fprintf(stderr, "floor: cannot load %s: %s\n", argv[1], strerror(-err));
		err = 3;
		goto cleanup;
	}
	for (int i = 0; i < 7 && !err; i++) {
		if (!want[i])
			continue;
		if (i == 4) {
			err = attach_faults(progs[i], pid, links, &nlinks);
		} else {
			links[nlinks] = bpf_program__attach(progs[i]);
			err = links[nlinks] ? 0 : -errno;
			nlinks += !err;
		}
		if (err)
			fprintf(stderr, "floor: cannot attach to %s: %s\n", names[i], strerror(-err));
	}
	if (err) {
		err = 3;
		goto cleanup;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "floor: tracing %s; Ctrl-C to end\n", argv[1]);
	while (!stop)
		usleep(100000);
	ncpu = libbpf_num_possible_cpus();
	for (__u32 i = 0; i < 7 && ncpu > 0; i++) {
		__u64 v[ncpu], sum = 0;

		if (!want[i] || bpf_map__lookup_elem(skel->maps.hits, &i, sizeof(i), v,
						     sizeof(v), 0))
			continue;
		for (int c = 0; c < ncpu; c++)
			sum += v[c];
		printf("%s: %llu runs\n", names[i], (unsigned long long)sum);
	}
cleanup:
	for (int i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	floor_bpf__destroy(skel);
	return err;
}
