/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Files a traced process controls: its ELF files, their debug files, its
 * perf map, its /proc files.  The tool runs as root and the process may be
 * hostile, so every such file is
 *   - resolved inside the process's root when one is given (openat2
 *     RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS: an absolute symlink or ".."
 *     cannot lead out of it, nor a /proc/PID/... link), with a fallback to
 *     the plain path on kernels without openat2;
 *   - opened first as O_PATH (no open() side effect of a device, no wait
 *     for a FIFO's writer), checked with fstat on that descriptor (a
 *     regular file of sane size, owned by the expected user, and fstatfs:
 *     not on a pseudo filesystem whose "regular" files block or never end,
 *     like tracefs's trace_pipe), and only then reopened for reading
 *     through /proc/self/fd, O_NONBLOCK | O_NOCTTY;
 *   - read with a bound on bytes (and the size seen at open) and on time.
 * A file served by FUSE is not refused: the kernel denies a FUSE mount's
 * files to every user but its owner (unless allow_other, which another
 * user namespace cannot give to ours), so another user's FUSE daemon can
 * never hold us; root's own FUSE mounts (AppImages) are trusted. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <zlib.h>

#include "internal.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif
#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif
#ifndef CONFIGFS_MAGIC
#define CONFIGFS_MAGIC 0x62656570
#endif

/* ---- the symbolizer call in progress (its lock is held) ---- */
static __thread blaze_symbolizer *cur;

void bzs_call_begin(blaze_symbolizer *s)
{
	cur = s;
}

void bzs_call_end(void)
{
	cur = NULL;
}

bool bzs_interrupted(void)
{
	return cur && cur->interrupt && cur->interrupt(cur->interrupt_ctx);
}

void bzs_notify(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!cur || !cur->notify || cur->notices >= BZS_NOTICES_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (++cur->notices == BZS_NOTICES_MAX)
		snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
			 " (further notices of the symbolizer are not shown)");
	cur->notify(cur->notify_ctx, msg);
}

/* ---- opening ---- */
static bool pseudo_fs(long type)
{
	switch (type) {
	case PROC_SUPER_MAGIC:
	case SYSFS_MAGIC:
	case TRACEFS_MAGIC:
	case DEBUGFS_MAGIC:
	case SECURITYFS_MAGIC:
	case CGROUP_SUPER_MAGIC:
	case CGROUP2_SUPER_MAGIC:
	case BPF_FS_MAGIC:
	case CONFIGFS_MAGIC:
		return true;
	}
	return false;
}

static int open_path(const char *path, const char *root, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	static int no_openat2;
	int rfd, fd, saved;
	char buf[4200];

	if (!root)
		return open(path, flags | O_CLOEXEC);
	if (!no_openat2) {
		rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (rfd < 0)
			return -1;
		fd = (int)syscall(SYS_openat2, rfd, path, &how, sizeof(how));
		saved = errno;
		close(rfd);
		if (fd >= 0 || (saved != ENOSYS && saved != EPERM)) {
			errno = saved;
			return fd;
		}
		/* no openat2 (or a seccomp filter refusing it) */
		no_openat2 = 1;
	}
	if ((size_t)snprintf(buf, sizeof(buf), "%s%s", root, path) >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open(buf, flags | O_CLOEXEC);
}

int bzs_safe_open(const char *path, const struct bzs_open_opts *o, struct stat *stp,
		  const char **why)
{
	const char *dummy;
	struct stat st, st2;
	struct statfs sfs;
	char self[64];
	int pfd, fd;

	if (!why)
		why = &dummy;
	*why = NULL;
	if (o->proc_file) {
		/* a file the kernel makes (/proc/PID/maps): no FIFO, no
		 * device can be there, and its size reads as 0 */
		fd = open_path(path, o->root, O_RDONLY | O_NONBLOCK | O_NOCTTY);
		if (fd < 0)
			return -1;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			*why = "not a regular file";
			close(fd);
			errno = EINVAL;
			return -1;
		}
		if (stp)
			*stp = st;
		return fd;
	}
	pfd = open_path(path, o->root, O_PATH);
	if (pfd < 0)
		return -1;
	if (fstat(pfd, &st)) {
		close(pfd);
		return -1;
	}
	if (stp)
		*stp = st;	/* (also when refused) */
	if (!S_ISREG(st.st_mode))
		*why = "not a regular file";
	else if (o->max_size && (uint64_t)st.st_size > o->max_size)
		*why = "too large";
	else if (st.st_size < (off_t)o->min_size)
		*why = "too small";
	else if (o->check_owner && st.st_uid != 0 && st.st_uid != o->owner)
		*why = "owned by another user than the process's or root";
	else if (fstatfs(pfd, &sfs) == 0 && pseudo_fs((long)sfs.f_type))
		*why = "on a pseudo filesystem";
	if (*why) {
		close(pfd);
		errno = EINVAL;
		return -1;
	}
	/* reopen the very file checked, for reading */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) /* no /proc of our own */
		fd = open_path(path, o->root, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	close(pfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st2) || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino) {
		close(fd);
		*why = "changed while opened";
		errno = EINVAL;
		return -1;
	}
	if (stp)
		*stp = st2;
	return fd;
}

/* ---- reading ---- */
char *bzs_read_bounded(int fd, size_t max, uint64_t max_ns, size_t *len, bool *truncated)
{
	uint64_t deadline = max_ns ? bzs_now_ns() + max_ns : 0;
	size_t cap = 16384, n = 0;
	char *buf;

	if (truncated)
		*truncated = false;
	if (cap > max)
		cap = max;
	buf = malloc(cap + 1);
	if (!buf)
		return NULL;
	for (;;) {
		ssize_t r;

		if (n == max || (deadline && bzs_now_ns() > deadline) || bzs_interrupted()) {
			char c;

			/* more to come? (said only when there is) */
			if (truncated && (n < max || pread(fd, &c, 1, (off_t)n) == 1))
				*truncated = true;
			break;
		}
		if (n == cap) {
			size_t ncap = cap * 2 > max ? max : cap * 2;
			char *nb = realloc(buf, ncap + 1);

			if (!nb)
				goto fail;
			buf = nb;
			cap = ncap;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			goto fail; /* EAGAIN too: nothing waits */
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:
	free(buf);
	return NULL;
}

char *bzs_read_proc(const char *path, size_t max, size_t *len)
{
	const struct bzs_open_opts o = { .proc_file = true };
	bool trunc;
	char *buf;
	int fd, saved;

	fd = bzs_safe_open(path, &o, NULL, NULL);
	if (fd < 0)
		return NULL;
	/* no time bound: the kernel makes these files, nothing waits (a
	 * slow read of /proc/kallsyms on a busy machine is still whole) */
	buf = bzs_read_bounded(fd, max, 0, len, &trunc);
	saved = errno;
	close(fd);
	if (buf && trunc) {
		/* half a /proc file is a wrong one */
		free(buf);
		buf = NULL;
		saved = EFBIG;
	}
	errno = saved;
	return buf;
}

/* CRC32 as used by .gnu_debuglink (the zlib polynomial) of a whole file,
 * size bytes long (as fstat said); false when cut short (by the deadline,
 * on the clock of bzs_now_ns(), or an interruption). */
bool bzs_crc32_fd(int fd, uint64_t size, uint64_t deadline, uint32_t *out)
{
	unsigned char buf[65536];
	uLong crc = crc32(0L, Z_NULL, 0);
	uint64_t off = 0;

	while (off < size) {
		size_t want = size - off < sizeof(buf) ? (size_t)(size - off) : sizeof(buf);
		ssize_t r;

		if (bzs_now_ns() > deadline || bzs_interrupted())
			return false;
		r = pread(fd, buf, want, (off_t)off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		if (r == 0)
			break;
		crc = crc32(crc, buf, (uInt)r);
		off += (uint64_t)r;
	}
	*out = (uint32_t)crc;
	return true;
}
