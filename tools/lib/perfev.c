// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "perfev.h"
#include "common.h"
#include "opts.h"

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
	struct perfev *ev;
	size_t n, cap;
};

struct perfev_set *perfev_new(void)
{
	struct perfev_set *s = calloc(1, sizeof(*s));

	if (!s) {
		msg_warn("out of memory");
		exit(EXIT_UNSUPPORTED);
	}
	return s;
}

void perfev_free(struct perfev_set *s)
{
	if (!s)
		return;
	perfev_disable(s);
	for (size_t i = 0; i < s->n; i++) {
		if (s->ev[i].link)
			bpf_link__destroy(s->ev[i].link);	/* closes fd */
		else if (s->ev[i].fd >= 0)
			close(s->ev[i].fd);
	}
	free(s->ev);
	free(s);
}

static int open_one(struct perfev_set *s, const struct perf_event_attr *attr,
		    pid_t pid, int cpu, struct bpf_program *prog, int tag,
		    uint64_t cookie)
{
	LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = cookie);
	struct perf_event_attr a = *attr;
	struct bpf_link *link;
	int fd, err;

	a.size = sizeof(a);
	a.disabled = 1;		/* libbpf enables it once the program is on */
	fd = syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	link = bpf_program__attach_perf_event_opts(prog, fd, &opts);
	if (!link) {
		err = -errno;
		close(fd);
		return err ? err : -EINVAL;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct perfev *p = realloc(s->ev, cap * sizeof(*p));

		if (!p) {
			bpf_link__destroy(link);
			msg_warn("out of memory");
			exit(EXIT_UNSUPPORTED);
		}
		s->ev = p;
		s->cap = cap;
	}
	s->ev[s->n++] = (struct perfev){ .fd = fd, .tag = tag, .link = link };
	return 0;
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
	for (size_t i = 0; s && i < s->n; i++)
		ioctl(s->ev[i].fd, PERF_EVENT_IOC_DISABLE, 0);
}

uint64_t perfev_count(const struct perfev_set *s, int tag)
{
	uint64_t sum = 0, v;

	for (size_t i = 0; s && i < s->n; i++)
		if (s->ev[i].tag == tag &&
		    read(s->ev[i].fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
			sum += v;
	return sum;
}

size_t perfev_size(const struct perfev_set *s)
{
	return s ? s->n : 0;
}

int perfev_list_threads(uint32_t pid, const struct id_list *skip,
			struct id_list *out)
{
	char path[64];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		char *end;
		unsigned long tid = strtoul(d->d_name, &end, 10);

		if (*end || !tid || tid > UINT32_MAX || id_list_has(skip, (uint32_t)tid))
			continue;
		id_list_add(out, (uint32_t)tid);
	}
	closedir(dir);
	return 0;
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
