// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* -o DIR: the files of the evidence bundle (bundle.h) */
#include "bundle.h"
#include "clock.h"
#include "compare.h"
#include "correlate.h"
#include "event.h"
#include "escape.h"
#include "flamesvg.h"
#include "hashmap.h"
#include "msg.h"
#include "output.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool dir_empty(int fd)
{
	int dfd = dup(fd);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;
	bool empty = true;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return false;
	}
	while (empty && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

int hc_bundle_open(struct hc_bundle *b, const char *dir, char *err, size_t errlen)
{
	char *path = xstrdup(dir);
	size_t n = strlen(path);
	bool made = false;
	int fd;

	*b = (struct hc_bundle){ .dirfd = -1 };
	/* "dir/" would follow a link named dir: the bare name, not followed */
	while (n > 1 && path[n - 1] == '/')
		path[--n] = 0;
	if (!n) {
		free(path);
		return fail_msg(err, errlen, "an empty directory name");
	}
	if (mkdir(path, 0700) == 0)
		made = true;
	else if (errno != EEXIST) {
		fail_msg(err, errlen, "cannot create %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		struct stat st;

		/* (O_DIRECTORY fails on a link with ENOTDIR, O_NOFOLLOW with ELOOP) */
		if (errno == ELOOP || (!lstat(path, &st) && S_ISLNK(st.st_mode)))
			fail_msg(err, errlen, "%s is a symbolic link: give a new directory", path);
		else if (errno == ENOTDIR)
			fail_msg(err, errlen, "%s exists and is not a directory", path);
		else
			fail_msg(err, errlen, "cannot open %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	if (!made && !dir_empty(fd)) {
		fail_msg(err, errlen, "%s exists and is not empty: give a new or empty directory",
			 path);
		close(fd);
		free(path);
		return -1;
	}
	b->dirfd = fd;
	b->path = path;
	return 0;
}

void hc_bundle_close(struct hc_bundle *b)
{
	if (b->dirfd >= 0)
		close(b->dirfd);
	free(b->path);
	*b = (struct hc_bundle){ .dirfd = -1 };
}

/* ---- the files ---- */

/* A new file of the bundle, checked: NULL when it cannot be made (said) */
static FILE *bundle_file(struct hc_bundle *b, const char *name, char *path, size_t size)
{
	int fd;
	FILE *f;

	snprintf(path, size, "%s/%s", b->path, name);
	fd = openat(b->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		msg_warn("-o: cannot create %s: %s", path, strerror(errno));
		return NULL;
	}
	f = out_fdopen(fd, path, "-o");
	if (!f)
		msg_warn("-o: cannot write %s: %s", path, strerror(errno));
	return f;
}

/* Closes f: 0, or -1 when something of it was not written (said) */
static int bundle_close(FILE *f)
{
	return out_close(f);
}

enum fold_value { FOLD_COUNT, FOLD_US };

struct fold_line {
	const char *stack;
	size_t len;
	uint64_t v;
};

static int cmp_fold(const void *a, const void *b)
{
	const struct fold_line *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->stack, y->stack, n);

	return c ? c : x->len < y->len ? -1 : x->len > y->len;
}

static void collect_line(const void *key, void *val, void *arg)
{
	struct fold_line **p = arg;

	(*p)->stack = key;
	(*p)->v = *(uint64_t *)val;
	(*p)++;
}

/* The stack an event counts under in a folded file: waker for wakers.folded */
static const char *fold_stack(const struct hc_event *e, bool waker)
{
	const char *s = waker ? e->waker_stack : e->stack;

	if (s && *s)
		return s;
	if (waker)
		return e->actor && *e->actor ? e->actor : "[waker unknown]";
	return "[no stack]";
}

/* The folded file to f, and its lines, with the same values, into g */
static void write_folded(FILE *f, struct flamesvg *g, const struct hc_timeline *tl,
			 enum hc_kind kind, bool waker, enum fold_value value)
{
	struct hashmap *m = hashmap_new(0, sizeof(uint64_t));
	struct fold_line *lines, *p;
	size_t n;

	/* every event of the window, when the collect half summed them */
	for (size_t i = 0; tl->folds && i < tl->n_folds; i++) {
		const struct hc_fold *fo = &tl->folds[i];
		uint64_t *v;

		if (fo->kind != kind || fo->waker != waker)
			continue;
		v = hashmap_get_blob(m, fo->stack, strlen(fo->stack) + 1, NULL);
		*v += value == FOLD_US ? fo->time_ns : fo->count;
	}
	for (size_t i = 0; !tl->folds && i < tl->n; i++) {
		const struct hc_event *e = &tl->ev[i];
		const char *s;
		uint64_t *v;

		if (e->kind != kind)
			continue;
		s = fold_stack(e, waker);
		v = hashmap_get_blob(m, s, strlen(s) + 1, NULL);	/* the NUL too: keys are strings */
		*v += value == FOLD_US ? e->dur_ns : 1;
	}
	n = hashmap_count(m);
	p = lines = xcalloc(n + 1, sizeof(*lines));
	hashmap_each(m, collect_line, &p);
	for (size_t i = 0; i < n; i++)
		lines[i].len = strlen(lines[i].stack);
	qsort(lines, n, sizeof(*lines), cmp_fold);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = value == FOLD_US ? lines[i].v / 1000 : lines[i].v;

		fprintf(f, "%s %" PRIu64 "\n", lines[i].stack, v);
		flamesvg_add_folded(g, lines[i].stack, v);
	}
	free(lines);
	hashmap_free(m);
}

static const char *s_or_empty(const char *s)
{
	return s ? s : "";
}

static void write_tsv(FILE *f, const struct hc_timeline *tl)
{
	fputs(HC_TSV_HEADER, f);
	for (size_t i = 0; i < tl->n; i++) {
		const struct hc_event *e = &tl->ev[i];

		fprintf(f, "%" PRIu64 "\t%" PRId64 "\t%s\t%" PRIu32 "\t%" PRId32 "\t%" PRIu64
			   "\t%s\t%s\t%" PRIu32 "\t%s\t%s\n",
			e->start_ns, (int64_t)e->start_ns + tl->realtime_offset_ns,
			hc_kind_name(e->kind), e->tid, e->cpu, e->dur_ns, s_or_empty(e->what),
			s_or_empty(e->actor), e->actor_tid, s_or_empty(e->stack),
			s_or_empty(e->waker_stack));
	}
}

void hc_summary_write(FILE *f, const struct hc_timeline *tl, const struct hc_correlation *corr,
		      const struct hc_compare *cmp)
{
	char d[32];
	size_t found = 0;

	fmt_dur(d, sizeof(d),
		   tl->window_end_ns > tl->window_start_ns ? tl->window_end_ns - tl->window_start_ns
							   : 0, DUR_TEXT);
	fprintf(f, "window: %s, CLOCK_MONOTONIC %" PRIu64 " to %" PRIu64
		   " ns (CLOCK_REALTIME = CLOCK_MONOTONIC %+" PRId64 " ns)\n",
		d, tl->window_start_ns, tl->window_end_ns, tl->realtime_offset_ns);
	fprintf(f, "events: %zu recorded", tl->n);
	if (tl->events_not_kept)
		fprintf(f, ", %" PRIu64 " more counted but not kept (not in timeline.tsv; "
			   "--max-events)", tl->events_not_kept);
	if (tl->events_dropped)
		fprintf(f, ", %" PRIu64 " not recorded (not in timeline.tsv)", tl->events_dropped);
	fputc('\n', f);
	for (size_t i = 0; i < tl->n_checks; i++)
		found += !tl->checks[i].silent;
	fprintf(f, "\nverdict: %zu of %zu checks silent\n", tl->n_checks - found, tl->n_checks);
	fprintf(f, "%-16s %s\n", "CHECK", "VERDICT");
	for (size_t i = 0; i < tl->n_checks; i++) {
		const struct hc_check *c = &tl->checks[i];

		fputs(ESC_COL(s_or_empty(c->name), 16), f);
		if (c->silent) {
			fputs(" SILENT\n", f);
			continue;
		}
		fprintf(f, " %" PRIu64, c->count);
		if (c->time_ns) {
			fmt_dur(d, sizeof(d), c->time_ns, DUR_TEXT);
			fprintf(f, " (%s)", d);
		}
		if (c->top_cause && *c->top_cause)
			fprintf(f, ": %s", c->top_cause);
		if (c->fix && *c->fix)
			fprintf(f, "; fix: %s", c->fix);
		fputc('\n', f);
	}
	if (corr) {
		fputs("\ncorrelation: ", f);
		hc_correlation_summary(f, corr);
	}
	if (cmp) {
		fputc('\n', f);
		hc_compare_print(f, cmp);
	}
}

/* name.svg beside name.folded: g titled with what of the hot threads in
 * the window, in unit; g freed */
static int write_svg(struct hc_bundle *b, const struct hc_bundle_src *src, const char *folded,
		     struct flamesvg *g, const char *what, const char *unit)
{
	const struct hc_timeline *tl = src->tl;
	char name[64], path[4096], window[96];
	struct flamesvg_meta m = { .tool = "hotcheck", .what = what,
				   .target = src->target ? src->target : "hot threads",
				   .unit = unit, .window = window };
	FILE *f;
	int r = -1;

	snprintf(name, sizeof(name), "%.*s.svg", (int)(strchr(folded, '.') - folded), folded);
	flamesvg_window(window, sizeof(window), tl->window_start_ns, tl->window_end_ns,
			tl->realtime_offset_ns);
	if ((f = bundle_file(b, name, path, sizeof(path))))
		r = flamesvg_finish(g, f, &m);
	flamesvg_free(g);
	return r;
}

int hc_bundle_write(struct hc_bundle *b, const struct hc_bundle_src *src)
{
	static const struct {
		const char *name;
		enum hc_kind kind;
		bool waker;
		enum fold_value value;
		const char *what, *unit;	/* the flame graph's */
	} folded[] = {
		{ "syscalls.folded", HC_SYSCALL, false, FOLD_US, "syscalls: time in them", "us" },
		{ "faults.folded", HC_FAULT, false, FOLD_COUNT, "faults: page faults", "faults" },
		{ "blocks.folded", HC_BLOCK, false, FOLD_US, "blocks: off-CPU time", "us" },
		{ "wakers.folded", HC_BLOCK, true, FOLD_COUNT, "wakers: wakeups of the blocks",
		  "wakeups" },
		{ "preemptions.folded", HC_PREEMPT, false, FOLD_US, "preemptions: time preempted",
		  "us" },
	};
	const struct hc_timeline *tl = src->tl;
	char path[4096];
	FILE *f;

	if (!(f = bundle_file(b, "report.json", path, sizeof(path))))
		return -1;
	src->write_json(f, src->arg);
	if (bundle_close(f))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(folded); i++) {
		struct flamesvg *g;

		if (!(f = bundle_file(b, folded[i].name, path, sizeof(path))))
			return -1;
		g = flamesvg_new();
		write_folded(f, g, tl, folded[i].kind, folded[i].waker, folded[i].value);
		if (bundle_close(f)) {
			flamesvg_free(g);
			return -1;
		}
		if (write_svg(b, src, folded[i].name, g, folded[i].what, folded[i].unit))
			return -1;
	}
	if (!(f = bundle_file(b, "timeline.tsv", path, sizeof(path))))
		return -1;
	write_tsv(f, tl);
	if (bundle_close(f))
		return -1;
	if (!(f = bundle_file(b, "summary.txt", path, sizeof(path))))
		return -1;
	hc_summary_write(f, tl, src->corr, src->cmp);
	return bundle_close(f);
}
