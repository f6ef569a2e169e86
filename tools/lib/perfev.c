// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "perfev.h"
#include "kfeat.h"
#include "msg.h"
#include "opts.h"
#include "vec.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>

struct perfev {
	int fd;			/* owned by link once attached */
	int tag;
	struct bpf_link *link;
};

struct perfev_set {
	VEC(struct perfev) ev;
};

struct perfev_set *perfev_new(void)
{
	return xcalloc(1, sizeof(struct perfev_set));
}

void perfev_free(struct perfev_set *s)
{
	if (!s)
		return;
	perfev_disable(s);
	for (size_t i = 0; i < s->ev.n; i++) {
		if (s->ev.v[i].link)
			bpf_link__destroy(s->ev.v[i].link);	/* closes fd */
		else if (s->ev.v[i].fd >= 0)
			close(s->ev.v[i].fd);
	}
	vec_free(&s->ev);
	free(s);
}

int perfev_open_fd(const struct perf_event_attr *attr, pid_t pid, int cpu, int leader)
{
	struct perf_event_attr a = *attr;
	int fd;

	a.size = sizeof(a);
	a.disabled = 1;		/* libbpf enables it once the program is on */
	fd = syscall(SYS_perf_event_open, &a, pid, cpu, leader, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int perfev_add(struct perfev_set *s, int fd, struct bpf_program *prog, int tag,
	       uint64_t cookie)
{
	/* a kernel without attach cookies (before 5.15) refuses any */
	LIBBPF_OPTS(bpf_perf_event_opts, opts,
		    .bpf_cookie = kfeat_has(KF_ATTACH_COOKIE) ? cookie : 0);
	struct bpf_link *link = NULL;
	int err;

	if (prog) {
		link = bpf_program__attach_perf_event_opts(prog, fd, &opts);
		if (!link) {
			err = -errno;
			close(fd);
			return err ? err : -EINVAL;
		}
	}
	vec_push(&s->ev, ((struct perfev){ .fd = fd, .tag = tag, .link = link }));
	return 0;
}

static int open_one(struct perfev_set *s, const struct perf_event_attr *attr,
		    pid_t pid, int cpu, struct bpf_program *prog, int tag,
		    uint64_t cookie)
{
	int fd = perfev_open_fd(attr, pid, cpu, -1);

	return fd < 0 ? fd : perfev_add(s, fd, prog, tag, cookie);
}

int perfev_open_cpus(struct perfev_set *s, const struct perf_event_attr *attr,
		     struct bpf_program *prog, int tag)
{
	struct cpu_list online = { 0 };
	int err = 0;

	if (cpus_online(&online))
		return -ENOENT;
	for (size_t i = 0; i < online.n && !err; i++) {
		err = open_one(s, attr, -1, (int)online.cpus[i], prog, tag, 0);
		if (err == -ENODEV)	/* went offline meanwhile */
			err = 0;
	}
	cpu_list_free(&online);
	return err;
}

int perfev_open_thread(struct perfev_set *s, const struct perf_event_attr *attr,
		       pid_t tid, struct bpf_program *prog, int tag,
		       uint64_t cookie)
{
	return open_one(s, attr, tid, -1, prog, tag, cookie);
}

void perfev_disable(struct perfev_set *s)
{
	for (size_t i = 0; s && i < s->ev.n; i++)
		ioctl(s->ev.v[i].fd, PERF_EVENT_IOC_DISABLE, 0);
}

uint64_t perfev_count(const struct perfev_set *s, int tag)
{
	uint64_t sum = 0, v;

	for (size_t i = 0; s && i < s->ev.n; i++)
		if (s->ev.v[i].tag == tag &&
		    read(s->ev.v[i].fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
			sum += v;
	return sum;
}

size_t perfev_size(const struct perfev_set *s)
{
	return s ? s->ev.n : 0;
}

uint64_t perfev_fd_room(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return 1024;
	if (r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
		getrlimit(RLIMIT_NOFILE, &r);
	}
	return r.rlim_cur;
}

const char *perfev_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
		return "this kernel lacks the perf event (CONFIG_PERF_EVENTS)";
	case EACCES:
	case EPERM:
		return "permission denied: need root or CAP_PERFMON "
		       "(kernel.perf_event_paranoid)";
	case EMFILE:
	case ENFILE:
		return "too many open files (raise ulimit -n)";
	default:
		return strerror(err);
	}
}

void perfev_fault_attr(struct perf_event_attr *a, bool major, bool inherit)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->config = major ? PERF_COUNT_SW_PAGE_FAULTS_MAJ : PERF_COUNT_SW_PAGE_FAULTS_MIN;
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_ADDR;
	/* threads created later are followed, child processes not where
	 * the kernel can say so (5.13): before, they are followed too and
	 * the BPF target filter leaves their faults out */
	a->inherit = inherit;
	a->inherit_thread = inherit && kfeat_has(KF_INHERIT_THREAD);
}
