// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "output.h"
#include "msg.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One checked output: stdout, or a file of out_open() */
struct out {
	bool used;
	int fd;
	int err;		/* errno of the first failure; 0 while it takes output */
	const char *label;	/* "--record", NULL for stdout */
	char *path;		/* NULL for stdout */
	FILE *f;
};

#define MAX_OUTPUTS 8

static struct out outs[MAX_OUTPUTS];	/* [0] is stdout */
static bool stdout_was_closed;
static bool failed;			/* a failure other than EPIPE was said */

/* The first failure of o: remembered, and said unless the reader is gone */
static void out_fail(struct out *o, int err)
{
	if (o->err)
		return;
	o->err = err;
	if (err == EPIPE)
		return;
	failed = true;
	if (!o->path)
		msg_warn("cannot write to stdout: %s%s", strerror(err),
			 stdout_was_closed ? " (stdout is closed)" : "");
	else
		msg_warn("%s: cannot write %s: %s", o->label, o->path, strerror(err));
}

/* stdio's write callback: all of buf, or -1 and the output has failed.
 * A signal that interrupts a write does not fail it (the first Ctrl-C
 * only ends tracing; the second ends the process in its handler). */
static ssize_t out_write(void *cookie, const char *buf, size_t size)
{
	struct out *o = cookie;
	size_t done = 0;

	if (o->err) {
		errno = o->err;
		return -1;
	}
	while (done < size) {
		ssize_t n = write(o->fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			out_fail(o, n < 0 ? errno : EIO);
			errno = o->err;
			return -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)size;
}

static int out_close_fd(void *cookie)
{
	struct out *o = cookie;
	int r = 0;

	/* close() reports what a network or full file system kept back */
	if (o->fd > STDERR_FILENO && close(o->fd) && errno != EINTR) {
		out_fail(o, errno);
		r = o->err == EPIPE ? 0 : -1;
	}
	o->fd = -1;
	return r;
}

static const cookie_io_functions_t out_io = {
	.write = out_write,
	.close = out_close_fd,
};

static FILE *out_stream(struct out *o)
{
	FILE *f = fopencookie(o, "w", out_io);

	if (!f)
		return NULL;
	/* what glibc does for its own stdout: lines on a terminal */
	setvbuf(f, NULL, isatty(o->fd) ? _IOLBF : _IOFBF, BUFSIZ);
	return f;
}

/* At exit, on every way out: what is still buffered, then the status */
static void out_at_exit(int status, void *arg)
{
	/* (stdio flushes what is left after this handler: too late to count) */
	for (int i = 1; i < MAX_OUTPUTS; i++)
		if (outs[i].used)
			fflush(outs[i].f);
	fflush(stdout);
	/* 2 and 3 stand; "reported" and "found" do not, when output was lost */
	if (failed && (status == EXIT_REPORTED || status == EXIT_FOUND))
		_exit(EXIT_USAGE);
}

/* A closed fd 0, 1 or 2 gets /dev/null, opened so that its use fails */
static void occupy_std_fds(void)
{
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		int nfd;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* the lowest free fd: this one, since those below are open */
		nfd = open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
		if (nfd < 0)
			nfd = open("/", O_PATH);	/* no /dev here: any fd will do */
		if (nfd >= 0 && nfd != fd) {
			dup2(nfd, fd);
			close(nfd);
		}
		if (fd == STDOUT_FILENO)
			stdout_was_closed = true;
	}
}

void out_init(void)
{
	FILE *f;

	occupy_std_fds();
	outs[0] = (struct out){ .used = true, .fd = STDOUT_FILENO };
	/* nothing has been written yet: glibc's stdout is empty */
	f = out_stream(&outs[0]);
	if (f)
		stdout = f;
	on_exit(out_at_exit, NULL);
}

FILE *out_fdopen(int fd, const char *path, const char *label)
{
	struct out *o = NULL;
	FILE *f;

	for (int i = 1; i < MAX_OUTPUTS && !o; i++)
		if (!outs[i].used)
			o = &outs[i];
	if (!o) {
		close(fd);
		errno = EMFILE;
		return NULL;
	}
	*o = (struct out){ .used = true, .fd = fd, .label = label, .path = strdup(path) };
	f = o->path ? out_stream(o) : NULL;
	o->f = f;
	if (!f) {
		int err = o->path ? errno : ENOMEM;

		close(fd);
		free(o->path);
		*o = (struct out){ 0 };
		errno = err;
	}
	return f;
}

FILE *out_open(const char *path, const char *label)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

	return fd < 0 ? NULL : out_fdopen(fd, path, label);
}

int out_close(FILE *f)
{
	struct out *o = NULL;
	int r;

	for (int i = 1; i < MAX_OUTPUTS && !o; i++)
		if (outs[i].used && outs[i].f == f)
			o = &outs[i];
	if (!o)
		return fclose(f);
	fclose(f);	/* flushes, then out_close_fd(): failures are said there */
	r = o->err && o->err != EPIPE ? -1 : 0;
	free(o->path);
	*o = (struct out){ 0 };
	return r;
}

bool out_closed(void)
{
	return outs[0].err != 0;
}

bool out_ended(void)
{
	for (int i = 0; i < MAX_OUTPUTS; i++)
		if (outs[i].used && outs[i].err)
			return true;
	return false;
}

void out_watch_reader(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO };

	/* POLLERR: a pipe without reader; POLLHUP: a socket shut down */
	if (!outs[0].err && poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)))
		outs[0].err = EPIPE;
}
