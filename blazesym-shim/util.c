/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Errors, reason strings and small I/O helpers. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "internal.h"

static __thread blaze_err last_err = BLAZE_ERR_OK;

void bzs_set_err(blaze_err err)
{
	last_err = err;
}

blaze_err blaze_err_last(void)
{
	return last_err;
}

const char *blaze_err_str(blaze_err err)
{
	switch (err) {
	case BLAZE_ERR_OK: return "success";
	case BLAZE_ERR_NOT_FOUND: return "not found";
	case BLAZE_ERR_PERMISSION_DENIED: return "permission denied";
	case BLAZE_ERR_INVALID_DATA: return "invalid data";
	case BLAZE_ERR_OUT_OF_MEMORY: return "out of memory";
	case BLAZE_ERR_INVALID_INPUT: return "invalid input";
	case BLAZE_ERR_UNSUPPORTED: return "unsupported";
	case BLAZE_ERR_OTHER: return "other error";
	}
	return "unknown error";
}

const char *blaze_symbolize_reason_str(blaze_symbolize_reason reason)
{
	switch (reason) {
	case BLAZE_SYMBOLIZE_REASON_SUCCESS: return "success";
	case BLAZE_SYMBOLIZE_REASON_UNMAPPED: return "address not mapped";
	case BLAZE_SYMBOLIZE_REASON_INVALID_FILE_OFFSET: return "invalid file offset";
	case BLAZE_SYMBOLIZE_REASON_MISSING_COMPONENT: return "missing component";
	case BLAZE_SYMBOLIZE_REASON_MISSING_SYMS: return "missing symbols";
	case BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR: return "unknown address";
	case BLAZE_SYMBOLIZE_REASON_UNSUPPORTED: return "unsupported";
	case BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR: return "ignored error";
	}
	return "unknown reason";
}

char *bzs_read_fd(int fd, size_t *len)
{
	size_t cap = 16384, n = 0;
	char *buf = malloc(cap + 1);

	if (!buf)
		return NULL;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb;

			if (cap > (size_t)1 << 31)
				goto fail; /* refuse absurd sizes */
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb)
				goto fail;
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
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

char *bzs_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;
	int saved;

	if (fd < 0)
		return NULL;
	buf = bzs_read_fd(fd, len);
	saved = errno;
	close(fd);
	errno = saved;
	return buf;
}

/* CRC32 as used by .gnu_debuglink (the zlib polynomial) of a whole file. */
uint32_t bzs_crc32_fd(int fd, bool *ok)
{
	unsigned char buf[65536];
	uLong crc = crc32(0L, Z_NULL, 0);
	off_t off = 0;

	*ok = false;
	for (;;) {
		ssize_t r = pread(fd, buf, sizeof(buf), off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return 0;
		}
		if (r == 0)
			break;
		crc = crc32(crc, buf, (uInt)r);
		off += r;
	}
	*ok = true;
	return (uint32_t)crc;
}

uint64_t bzs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
