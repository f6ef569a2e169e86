/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The process cache behind process symbolization (the files its mappings
 * name: files.c).
 *
 * Processes: the executable mappings of up to max_procs processes, the
 * least recently used dropped first.  A process that exits keeps its
 * entry (and the files it maps), so it is still symbolized later.  An
 * exec gives a process new mappings: each image (the caller's number for
 * it, the kernel's exec count) has its own entry, so that addresses taken
 * before the exec are named with the mappings from before it.  An image
 * also names the process instance (its start time): /proc/PID is read for
 * an entry only while it shows that process, so a new process that got
 * the pid of an old one is never read in its place. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "internal.h"

/* How long a perf map is read as the process's after /proc/PID was seen
 * to be that process */
#define PERF_MAP_CHECK_NS 1000000ull

static void vmas_free(blaze_symbolizer *s, struct bzs_vma *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bzs_file_unref(s, v[i].file);
		free(v[i].path);
	}
	free(v);
}

struct bzs_vma *bzs_proc_find(struct bzs_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nvmas;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < p->vmas[mid].start)
			hi = mid;
		else if (addr >= p->vmas[mid].end)
			lo = mid + 1;
		else
			return &p->vmas[mid];
	}
	return NULL;
}

static struct bzs_vma *find_same(struct bzs_vma *old, size_t n, const struct bzs_maps_entry *e)
{
	struct bzs_proc tmp = { .vmas = old, .nvmas = n };
	struct bzs_vma *v = bzs_proc_find(&tmp, e->start);

	if (v && v->start == e->start && v->end == e->end && v->off == e->off &&
	    v->dev == e->dev && v->ino == e->ino && v->kind == e->kind && v->file)
		return v;
	return NULL;
}

/* ---- identity: which process /proc/PID is ---- */

bool bzs_proc_start_ticks(pid_t pid, uint64_t *ticks)
{
	char path[64], *buf, *f, *end;
	bool ok = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	buf = bzs_read_proc(path, 4096, NULL);
	if (!buf)
		return false;
	/* the name, in parentheses, may hold anything: the fields begin
	 * after the last ')', field 3 first */
	f = strrchr(buf, ')');
	for (int field = 3; f && field <= 22; field++)
		f = strchr(f + 1, ' ');
	if (f) {
		errno = 0;
		*ticks = strtoull(f + 1, &end, 10);
		ok = !errno && end != f + 1 && (*end == ' ' || *end == '\n' || !*end);
	}
	free(buf);
	return ok;
}

/* Nanoseconds per clock tick of /proc (USER_HZ) */
static uint64_t ns_per_tick(void)
{
	static uint64_t q;

	if (!q) {
		long hz = sysconf(_SC_CLK_TCK);

		q = 1000000000ull / (uint64_t)(hz > 0 ? hz : 100);
	}
	return q;
}

/* What /proc adds to CLOCK_BOOTTIME for us: the offset of our time
 * namespace (/proc/self/timens_offsets; none without one) */
static int64_t boottime_offset(void)
{
	static int64_t off;
	static bool known;
	char *buf, *l;
	long long sec, nsec;

	if (known)
		return off;
	known = true;
	buf = bzs_read_proc("/proc/self/timens_offsets", 4096, NULL);
	if (!buf)
		return off;
	for (l = buf; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (sscanf(l, "boottime %lld %lld", &sec, &nsec) == 2)
			off = (int64_t)sec * 1000000000 + nsec;
	free(buf);
	return off;
}

bool bzs_image_started_at(uint64_t image, uint64_t ticks)
{
	uint64_t lo = image >> BLAZE_IMAGE_EXEC_BITS << BLAZE_IMAGE_START_SHIFT;
	uint64_t hi = lo + (1ull << BLAZE_IMAGE_START_SHIFT) - 1, q = ns_per_tick();
	int64_t off = boottime_offset();

	/* the image knows the start to the microsecond, /proc to the tick */
	return (lo + off) / q <= ticks && ticks <= (hi + off) / q;
}

bool bzs_proc_is_current(struct bzs_proc *p)
{
	uint64_t t;
	bool same;

	if (!bzs_proc_start_ticks(p->pid, &t))
		return false;
	if (p->image) {
		same = bzs_image_started_at(p->image, t);
	} else {
		if (!p->start_known) {
			p->start_ticks = t;
			p->start_known = true;
		}
		same = p->start_ticks == t;
	}
	if (same)
		p->current_ns = bzs_now_ns();
	return same;
}

/* The entry captured before the image was known: does it hold the
 * process of image (image 0: any)? */
static bool unknown_is(const struct bzs_proc *u, uint64_t image)
{
	return !image || (u->start_known && bzs_image_started_at(image, u->start_ticks));
}

/* The maps of p read through one of its live threads, p->via set to it;
 * NULL when none has any (the whole process is a zombie). */
static char *maps_via_thread(struct bzs_proc *p, size_t *len)
{
	char path[64], *buf = NULL;
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pid);
	dir = opendir(path);
	if (!dir)
		return NULL;
	while (!buf && (d = readdir(dir))) {
		char *e;
		long tid = strtol(d->d_name, &e, 10);

		if (e == d->d_name || *e || tid <= 0 || tid > INT32_MAX || tid == p->pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/maps", (int)p->pid, tid);
		buf = bzs_read_proc(path, BZS_PROC_MAX, len);
		if (buf && !*len) {
			free(buf);
			buf = NULL;
		}
		if (buf)
			p->via = (pid_t)tid;
	}
	closedir(dir);
	return buf;
}

int bzs_proc_refresh(blaze_symbolizer *s, struct bzs_proc *p, bool eager,
		     const struct bzs_proc_opts *o)
{
	struct bzs_maps_entry *ents;
	struct bzs_vma *nv;
	char path[64];
	size_t len, n, bad;
	char *buf;

	/* the maps read are p's when /proc/PID is p's process before and
	 * after: the pid cannot pass to another process in between */
	if (!bzs_proc_is_current(p)) {
		p->gone = true;
		return -ESRCH;
	}
	bzs_proc_path(p, path, sizeof(path), "maps");
	errno = 0;
	buf = bzs_read_proc(path, BZS_PROC_MAX, &len);
	if ((buf && !len) || (!buf && p->via)) {
		/* empty: a zombie, or a first thread that ended alone (the
		 * process lives on in its other threads); or the thread read
		 * through has ended */
		free(buf);
		p->via = 0;
		buf = maps_via_thread(p, &len);
		if (!buf) {
			p->gone = true;
			return -ESRCH;
		}
	}
	if (!buf) {
		int err = errno ? errno : EIO;

		if (err == ENOENT || err == ESRCH)
			p->gone = true;
		return -err;
	}
	ents = bzs_maps_parse(buf, len, true, &n, &bad);
	free(buf);
	if (n && !bzs_proc_is_current(p)) {
		bzs_maps_free(ents, n);
		p->gone = true;
		return -ESRCH;
	}
	if (!n) {
		/* a zombie shows empty maps: keep what was captured */
		free(ents);
		p->gone = true;
		return -ESRCH;
	}
	nv = calloc(n, sizeof(*nv));
	if (!nv) {
		bzs_maps_free(ents, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct bzs_maps_entry *e = &ents[i];
		struct bzs_vma *old = find_same(p->vmas, p->nvmas, e);

		nv[i] = (struct bzs_vma){ e->start, e->end, e->off, e->dev, e->ino,
					  e->path, e->kind, 0, NULL };
		e->path = NULL;
		if (old) { /* keep the loaded file: no reopening */
			nv[i].file = old->file;
			old->file = NULL;
		}
	}
	bzs_maps_free(ents, n);
	if (p->vmas) {
		struct bzs_grave *g = malloc(sizeof(*g));

		if (g) {
			*g = (struct bzs_grave){ p->vmas, p->nvmas, s->graves };
			s->graves = g;
		} else {
			/* no memory to defer: free now, results may lose module names */
			vmas_free(s, p->vmas, p->nvmas);
		}
	}
	p->vmas = nv;
	p->nvmas = n;
	p->gone = false;
	if (eager) {
		/* when interrupted, what is left is loaded by a later call */
		for (size_t i = 0; i < n && !bzs_interrupted(); i++)
			bzs_vma_resolve(s, p, &nv[i], o);
		/* while the process lives, its perf map can be read */
		if (!bzs_interrupted())
			bzs_proc_perfmap(s, p);
	}
	return 0;
}

void bzs_caches_flush(blaze_symbolizer *s)
{
	while (s->graves) {
		struct bzs_grave *g = s->graves;

		s->graves = g->next;
		vmas_free(s, g->vmas, g->n);
		free(g);
	}
	bzs_files_trim(s);
}

static pid_t ns_pid(pid_t pid)
{
	char path[64], *buf, *l;
	long v = pid;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	buf = bzs_read_proc(path, 1 << 16, NULL);
	if (!buf)
		return pid;
	l = strstr(buf, "\nNSpid:");
	if (l) {
		char *p = l + 7, *e;

		for (;;) { /* the last field is the pid in the innermost namespace */
			long x = strtol(p, &e, 10);

			if (e == p)
				break;
			v = x;
			p = e;
		}
	}
	free(buf);
	return (pid_t)v;
}

struct bzs_perfmap *bzs_proc_perfmap(blaze_symbolizer *s, struct bzs_proc *p)
{
	struct bzs_perfmap_src src = { .pid = p->pid, .max_lines = s->pm_max_lines,
				       .max_bytes = s->pm_max_bytes,
				       .refused_said = &p->pm_refused_said };
	char path[64], root[64];
	struct stat st;

	/* (a JIT's perf map is looked at for every stack: /proc/PID/stat is
	 * read again after a millisecond, not at every call) */
	if (!p->gone && bzs_now_ns() - p->current_ns > PERF_MAP_CHECK_NS && !bzs_proc_is_current(p))
		p->gone = true;
	if (!p->gone) {
		if (!p->pm_path) {
			/* the owner of /proc/PID is the process's user */
			snprintf(path, sizeof(path), "/proc/%d", (int)p->pid);
			if (stat(path, &st))
				return p->pm;
			p->pm_owner = st.st_uid;
			snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)ns_pid(p->pid));
			p->pm_path = strdup(path);
		}
		bzs_proc_path(p, root, sizeof(root), "root");
		src.root = root;
		src.path = p->pm_path;
		src.owner = p->pm_owner;
		if (p->pm_path && bzs_perfmap_refresh(&p->pm, &src) == 0)
			return p->pm;
	}
	if (!p->pm_path)
		return p->pm;	/* whose it would be is not known */
	/* the pid is another process's now: so is the file */
	if (p->image && bzs_proc_start_ticks(p->pid, &(uint64_t){ 0 }))
		return p->pm;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)p->pid);
	src.root = NULL;
	src.path = path;
	src.owner = p->pm_owner;
	bzs_perfmap_refresh(&p->pm, &src);
	return p->pm;
}

static struct bzs_proc *proc_new(blaze_symbolizer *s, pid_t pid, uint64_t image)
{
	size_t b = (size_t)pid % BZS_PROC_BUCKETS;
	struct bzs_proc *p;

	if (s->nprocs >= s->max_procs) {
		struct bzs_proc *victim = NULL;

		for (size_t i = 0; i < BZS_PROC_BUCKETS; i++)
			for (struct bzs_proc *q = s->procs[i]; q; q = q->next)
				if (!victim || q->last_use < victim->last_use)
					victim = q;
		if (victim)
			bzs_proc_drop(s, victim);
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->image = image;
	p->last_use = ++s->tick;
	p->next = s->procs[b];
	s->procs[b] = p;
	s->nprocs++;
	return p;
}

/* The entries of pid: the one of image (0: the latest), the one captured
 * before its image was known, and the latest */
struct proc_find {
	struct bzs_proc *exact, *unknown, *latest;
};

static void proc_find(blaze_symbolizer *s, pid_t pid, uint64_t image, struct proc_find *f)
{
	memset(f, 0, sizeof(*f));
	for (struct bzs_proc *p = s->procs[(size_t)pid % BZS_PROC_BUCKETS]; p; p = p->next) {
		if (p->pid != pid)
			continue;
		if (image && p->image == image)
			f->exact = p;
		if (!p->image)
			f->unknown = p;
		if (!f->latest || p->image > f->latest->image)
			f->latest = p;
	}
	if (!image)
		f->exact = f->latest;
}

struct bzs_proc *bzs_proc_get(blaze_symbolizer *s, pid_t pid, uint64_t image, bool create)
{
	struct proc_find f;
	struct bzs_proc *p;

	proc_find(s, pid, image, &f);
	p = f.exact;
	if (!p && f.unknown && unknown_is(f.unknown, image))
		p = f.unknown;
	if (p) {
		p->last_use = ++s->tick;
		return p;
	}
	if (!create)
		return NULL;
	p = proc_new(s, pid, image);
	/* an image older than one known: /proc shows a later one */
	if (p && f.latest && f.latest->image > image)
		p->gone = true;
	return p;
}

struct bzs_proc *bzs_proc_capture(blaze_symbolizer *s, pid_t pid, uint64_t image)
{
	struct proc_find f;
	struct bzs_proc *p;

	proc_find(s, pid, image, &f);
	if (image && f.latest && f.latest->image > image)
		return NULL;
	p = f.exact;
	/* else the capture before the image was known, if it is this
	 * process's (not one that had the pid before) */
	if (!p && f.unknown && unknown_is(f.unknown, image)) {
		p = f.unknown;
		p->image = image;
	}
	if (!p)
		p = proc_new(s, pid, image);
	if (!p)
		return NULL;
	p->last_use = ++s->tick;
	p->gone = false;
	/* the older images keep the mappings they had, once /proc shows
	 * this one (not when the process announced has been replaced) */
	if (!bzs_proc_is_current(p))
		return p;
	for (struct bzs_proc *q = s->procs[(size_t)pid % BZS_PROC_BUCKETS]; q; q = q->next)
		if (q != p && q->pid == pid && q->image < image)
			q->gone = true;
	return p;
}

void bzs_proc_drop(blaze_symbolizer *s, struct bzs_proc *p)
{
	struct bzs_proc **pp = &s->procs[(size_t)p->pid % BZS_PROC_BUCKETS];

	for (; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			s->nprocs--;
			break;
		}
	}
	vmas_free(s, p->vmas, p->nvmas);
	bzs_perfmap_free(p->pm);
	free(p->pm_path);
	free(p);
}

void bzs_caches_free(blaze_symbolizer *s)
{
	for (size_t b = 0; b < BZS_PROC_BUCKETS; b++)
		while (s->procs[b])
			bzs_proc_drop(s, s->procs[b]);
	bzs_caches_flush(s);
	bzs_files_free(s);
	for (size_t i = 0; i < s->nkc; i++) {
		free(s->kc[i].path);
		bzs_ksyms_free(s->kc[i].k);
	}
	free(s->kc);
	s->kc = NULL;
	s->nkc = 0;
}
