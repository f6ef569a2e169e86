/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Perf events that carry a BPF program (SEC("perf_event")): one per
 * online CPU, or one per thread (cpu -1; with attr.inherit the threads it
 * creates get a copy).  Events are opened disabled and enabled once the
 * program is attached, so every counted event ran the program.  Each has
 * a caller-chosen tag, for summing the kernel's own counts per kind. */
#ifndef SUITE_PERFEV_H
#define SUITE_PERFEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

struct bpf_program;
struct perfev_set;

struct perfev_set *perfev_new(void);
/* Disables, detaches and closes every event; accepts NULL */
void perfev_free(struct perfev_set *s);

/* attr on every online CPU (pid -1).  0, or a negative errno (the first
 * failure; CPUs that went offline are skipped). */
int perfev_open_cpus(struct perfev_set *s, const struct perf_event_attr *attr,
		     struct bpf_program *prog, int tag);
/* attr on thread tid, any CPU; the program reads cookie with
 * bpf_get_attach_cookie().  0, -ESRCH if the thread is gone, or a
 * negative errno. */
int perfev_open_thread(struct perfev_set *s, const struct perf_event_attr *attr,
		       pid_t tid, struct bpf_program *prog, int tag,
		       uint64_t cookie);

/* The two steps of those, for events placed by the caller (a CPU of its
 * choice, a group): attr, opened disabled, on pid and cpu in the group of
 * leader (-1: none); the fd, or a negative errno */
int perfev_open_fd(const struct perf_event_attr *attr, pid_t pid, int cpu, int leader);
/* fd into the set, running prog (NULL: none, the set only closes it, as
 * for a group leader that samples nothing itself); 0, or a negative errno
 * with fd closed */
int perfev_add(struct perfev_set *s, int fd, struct bpf_program *prog, int tag,
	       uint64_t cookie);

/* Stop counting (the programs stop running); counts stay readable */
void perfev_disable(struct perfev_set *s);
/* Sum of the counts of the events with this tag, inherited copies
 * included (the kernel folds them into their parent) */
uint64_t perfev_count(const struct perfev_set *s, int tag);
size_t perfev_size(const struct perfev_set *s);

struct id_list;

/* Raise the soft RLIMIT_NOFILE to the hard one; returns the limit now */
uint64_t perfev_fd_room(void);

/* Text for a failed perf_event_open (errno), naming what is missing */
const char *perfev_strerror(int err);

/* The software event of every major (or minor) page fault, each one a
 * sample with its address (PERF_SAMPLE_ADDR); inherit: followed into the
 * threads created later */
void perfev_fault_attr(struct perf_event_attr *a, bool major, bool inherit);

#endif
