/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Unit tests of blazesym-shim/safefile.c and the streaming perf map
 * reader: files a traced process controls.  A FIFO, a device, a procfs
 * file, a symlink out of the process's root, a file of the wrong owner or
 * size are refused without blocking; reads stop at their byte limit; a
 * perf map is cut at its line and byte limits (and says so once), parses
 * lines across read chunks and skips over-long ones; an interruption
 * stops a read. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "unit.h"

static char dir[64];
static char notes[8][512];
static int nnotes;

static void on_note(void *ctx, const char *msg)
{
	if (nnotes < 8)
		snprintf(notes[nnotes], sizeof(notes[0]), "%s", msg);
	nnotes++;
}

static bool interrupt_now;

static bool on_interrupt(void *ctx)
{
	return interrupt_now;
}

static void put(const char *name, const char *text, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
}

static const char *at(const char *name)
{
	static char path[4][128];
	static int k;

	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", dir, name);
	return path[k];
}

/* the test would hang on a blocking open: a watchdog ends it */
static void on_alarm(int sig)
{
	static const char m[] = "not ok - safefile: an open or a read blocked\n";

	(void)sig;
	if (write(1, m, sizeof(m) - 1) < 0)
		_exit(2);
	_exit(1);
}

static void test_open(void)
{
	const struct bzs_open_opts plain = { 0 };
	struct bzs_open_opts o = { 0 };
	const char *why = NULL;
	struct stat st;
	char root[128];
	int fd;

	put("regular", "hello\n", 6);
	fd = bzs_safe_open(at("regular"), &plain, &st, &why);
	CHECK(fd >= 0 && st.st_size == 6 && !why, "a regular file opens");
	if (fd >= 0) {
		int fl = fcntl(fd, F_GETFL);

		CHECK((fl & O_NONBLOCK) && (fl & O_ACCMODE) == O_RDONLY,
		      "read-only and non-blocking (flags %#x)", fl);
		close(fd);
	}

	mkfifo(at("fifo"), 0600);
	fd = bzs_safe_open(at("fifo"), &plain, NULL, &why);
	CHECK(fd < 0 && why && !strcmp(why, "not a regular file"),
	      "a FIFO is refused without waiting for a writer (%s)", why ? why : "-");
	symlink(at("fifo"), at("fifo-link"));
	fd = bzs_safe_open(at("fifo-link"), &plain, NULL, &why);
	CHECK(fd < 0 && why && !strcmp(why, "not a regular file"), "a symlink to a FIFO too");

	fd = bzs_safe_open("/dev/zero", &plain, NULL, &why);
	CHECK(fd < 0 && why && !strcmp(why, "not a regular file"), "a device is refused");
	fd = bzs_safe_open("/proc/self/status", &plain, NULL, &why);
	CHECK(fd < 0 && why && !strcmp(why, "on a pseudo filesystem"),
	      "a procfs file is refused as an ELF or perf map (%s)", why ? why : "-");
	fd = bzs_safe_open("/proc/self/status", &(struct bzs_open_opts){ .proc_file = true },
			   NULL, &why);
	CHECK(fd >= 0, "and opens as a /proc file");
	if (fd >= 0)
		close(fd);

	o.max_size = 5;
	fd = bzs_safe_open(at("regular"), &o, NULL, &why);
	CHECK(fd < 0 && why && !strcmp(why, "too large"), "above max_size: refused");
	o = (struct bzs_open_opts){ .min_size = 52 };
	fd = bzs_safe_open(at("regular"), &o, NULL, &why);
	CHECK(fd < 0 && why && !strcmp(why, "too small"), "below min_size: refused");

	if (chown(at("regular"), 4242, 4242) == 0) {
		o = (struct bzs_open_opts){ .check_owner = true, .owner = 4243 };
		fd = bzs_safe_open(at("regular"), &o, NULL, &why);
		CHECK(fd < 0 && why && strstr(why, "owned by another user"),
		      "owned by another user: refused");
		o.owner = 4242;
		fd = bzs_safe_open(at("regular"), &o, NULL, &why);
		CHECK(fd >= 0, "owned by the expected user: opens");
		if (fd >= 0)
			close(fd);
	}

	/* a root: symlinks and ".." stay inside it */
	snprintf(root, sizeof(root), "%s/root", dir);
	mkdir(root, 0755);
	mkdir(at("root/tmp"), 0755);
	put("root/tmp/inside", "in\n", 3);
	symlink(at("regular"), at("root/tmp/abs-out"));	/* absolute, outside */
	symlink("../../regular", at("root/tmp/rel-out"));
	symlink("/tmp/inside", at("root/tmp/abs-in"));	/* absolute, inside */
	o = (struct bzs_open_opts){ .root = root };
	fd = bzs_safe_open("/tmp/inside", &o, NULL, &why);
	CHECK(fd >= 0, "a file inside the root opens");
	if (fd >= 0)
		close(fd);
	fd = bzs_safe_open("/tmp/abs-in", &o, NULL, &why);
	CHECK(fd >= 0, "an absolute symlink is resolved inside the root");
	if (fd >= 0)
		close(fd);
	errno = 0;
	fd = bzs_safe_open("/tmp/abs-out", &o, NULL, &why);
	CHECK(fd < 0 && errno == ENOENT, "an absolute symlink cannot lead out of the root");
	fd = bzs_safe_open("/tmp/rel-out", &o, NULL, &why);
	CHECK(fd < 0, "nor a relative one through ..");
	fd = bzs_safe_open("/../../../../etc/hostname", &o, NULL, &why);
	CHECK(fd < 0, "nor a path with ..");
	symlink("/proc/self/root/etc/hostname", at("root/tmp/magic"));
	fd = bzs_safe_open("/tmp/magic", &o, NULL, &why);
	CHECK(fd < 0, "nor a /proc magic link");
}

static void test_read_bounded(void)
{
	const struct bzs_open_opts plain = { 0 };
	char big[10000];
	size_t len = 0;
	bool trunc = false;
	char *buf;
	int fd;

	memset(big, 'x', sizeof(big));
	put("big", big, sizeof(big));
	fd = bzs_safe_open(at("big"), &plain, NULL, NULL);
	buf = bzs_read_bounded(fd, 4096, 0, &len, &trunc);
	CHECK(buf && len == 4096 && trunc, "read stops at its byte limit, and says there is more");
	free(buf);
	lseek(fd, 0, SEEK_SET);
	buf = bzs_read_bounded(fd, 1 << 20, 0, &len, &trunc);
	CHECK(buf && len == sizeof(big) && !trunc, "a whole file under the limit: not cut");
	free(buf);
	close(fd);
}

static struct bzs_perfmap *pm_read(blaze_symbolizer *s, const char *name, size_t lines,
				   size_t bytes, struct bzs_perfmap *old)
{
	bool said = false;
	struct bzs_perfmap_src src = { .path = at(name), .owner = getuid(), .pid = 4321,
				       .max_lines = lines, .max_bytes = bytes,
				       .refused_said = &said };

	bzs_call_begin(s);
	bzs_perfmap_refresh(&old, &src);
	bzs_call_end();
	return old;
}

static void test_perfmap_stream(blaze_symbolizer *s)
{
	size_t n = 20000, cap = n * 40 + 20000, len = 0;
	char *text = malloc(cap);
	struct bzs_perfmap *pm;
	const char *name;
	uint64_t start;
	bool all = true;

	/* 20000 lines (over 600 KiB: many read chunks), then an over-long
	 * line, then one more */
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "%zx 10 jit_fn_%zu\n",
					0x100000 + i * 0x10, i);
	memset(text + len, 'a', 10000);
	memcpy(text + len, "900000 10 ", 10);
	len += 10000;
	text[len++] = '\n';
	len += (size_t)snprintf(text + len, cap - len, "a00000 10 after_long\n");
	put("perf.map", text, len);

	nnotes = 0;
	pm = pm_read(s, "perf.map", 1000000, 128 << 20, NULL);
	CHECK(pm && bzs_perfmap_count(pm) == n + 1, "perf map streamed: %zu entries (want %zu)",
	      bzs_perfmap_count(pm), n + 1);
	for (size_t i = 0; pm && i < n; i += 997) {
		char want[32];

		snprintf(want, sizeof(want), "jit_fn_%zu", i);
		if (!bzs_perfmap_lookup(pm, 0x100000 + i * 0x10 + 3, &name, &start) ||
		    strcmp(name, want))
			all = false;
	}
	CHECK(all, "lines across read chunks are whole");
	CHECK(pm && !bzs_perfmap_lookup(pm, 0x900003, &name, &start), "an over-long line is skipped");
	CHECK(pm && bzs_perfmap_lookup(pm, 0xa00003, &name, &start) && !strcmp(name, "after_long"),
	      "and the line after it is read");
	CHECK(nnotes == 0, "nothing said within the limits");
	bzs_perfmap_free(pm);

	nnotes = 0;
	pm = pm_read(s, "perf.map", 1000, 128 << 20, NULL);
	CHECK(pm && bzs_perfmap_count(pm) == 1000, "line limit: 1000 entries kept");
	CHECK(nnotes == 1 && strstr(notes[0], "perf map of pid 4321 truncated at 1000 lines"),
	      "line limit: said (%s)", nnotes ? notes[0] : "-");
	/* the same file again: cut already, not read nor said again */
	pm = pm_read(s, "perf.map", 1000, 128 << 20, pm);
	CHECK(nnotes == 1, "a cut perf map is said once");
	bzs_perfmap_free(pm);

	nnotes = 0;
	pm = pm_read(s, "perf.map", 1000000, 4096, NULL);
	CHECK(pm && bzs_perfmap_count(pm) > 100 && bzs_perfmap_count(pm) < 300,
	      "byte limit: only the first 4096 bytes (%zu entries)", bzs_perfmap_count(pm));
	CHECK(nnotes == 1 && strstr(notes[0], "(4096 of "), "byte limit: said (%s)",
	      nnotes ? notes[0] : "-");
	bzs_perfmap_free(pm);

	nnotes = 0;
	interrupt_now = true;
	pm = pm_read(s, "perf.map", 1000000, 128 << 20, NULL);
	interrupt_now = false;
	CHECK(pm && bzs_perfmap_count(pm) == 0, "interrupted: nothing read");
	CHECK(nnotes == 0, "an interruption is not a cut to tell");
	bzs_perfmap_free(pm);

	nnotes = 0;
	pm = pm_read(s, "fifo", 1000000, 128 << 20, NULL);
	CHECK(!pm && nnotes == 1 && strstr(notes[0], "not read: not a regular file"),
	      "a FIFO perf map: refused, said (%s)", nnotes ? notes[0] : "-");
	free(text);
}

int main(void)
{
	blaze_symbolizer *s;

	signal(SIGALRM, on_alarm);
	alarm(20);
	if (unit_tmpdir(dir, sizeof(dir), "bzs-safefile"))
		return 1;
	s = blaze_symbolizer_new();
	blaze_symbolizer_set_notify(s, on_note, NULL);
	blaze_symbolizer_set_interrupt(s, on_interrupt, NULL);
	test_open();
	test_read_bounded();
	test_perfmap_stream(s);
	blaze_symbolizer_free(s);
	unit_tmpdir_remove(dir);
	return unit_exit();
}
