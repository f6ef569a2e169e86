/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The public API: symbolizer lifetime, process and kernel symbolization,
 * freeing results (built in util.c).  One mutex per symbolizer serializes
 * the calls. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define DEFAULT_MAX_PROCS 4096
#define DEFAULT_FILE_BUDGET ((size_t)512 << 20)
#define KALLSYMS_RELOAD_NS (5ull * 1000000000ull)
#define PERF_MAP_MODULE "[perf-map]"
#define DEFAULT_PERF_MAP_LINES ((size_t)1000000)
#define DEFAULT_PERF_MAP_BYTES ((size_t)128 << 20)

static const char VDSO_MODULE[] = "[vdso]";

/* Copy a versioned input struct: type_size 0 means "this version"; bytes
 * beyond what we know must be zero. */
static bool copy_in(void *dst, size_t dsz, const void *src, size_t tsz)
{
	memset(dst, 0, dsz);
	if (!src)
		return false;
	if (tsz == 0)
		tsz = dsz;
	if (tsz < sizeof(size_t))
		return false;
	memcpy(dst, src, tsz < dsz ? tsz : dsz);
	for (size_t i = dsz; i < tsz; i++)
		if (((const unsigned char *)src)[i])
			return false;
	return true;
}

/* A positive size from the environment, else def */
static size_t env_size(const char *name, size_t def)
{
	const char *v = getenv(name);
	unsigned long long x;
	char *end;

	if (!v || !*v || *v == '-')
		return def;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || *end || x == 0 || x > SIZE_MAX)
		return def;
	return (size_t)x;
}

/* An API call holds the symbolizer's lock and is its call in progress
 * (for interruption and notices) from call_enter() to call_leave(). */
static void call_enter(blaze_symbolizer *s)
{
	pthread_mutex_lock(&s->lock);
	bzs_call_begin(s);
}

static void call_leave(blaze_symbolizer *s)
{
	bzs_call_end();
	pthread_mutex_unlock(&s->lock);
}

blaze_symbolizer *blaze_symbolizer_new_opts(const blaze_symbolizer_opts *opts)
{
	blaze_symbolizer *s;

	s = calloc(1, sizeof(*s));
	if (!s) {
		bzs_set_err(BLAZE_ERR_OUT_OF_MEMORY);
		return NULL;
	}
	if (!opts || !copy_in(&s->opts, sizeof(s->opts), opts, opts->type_size)) {
		free(s);
		bzs_set_err(BLAZE_ERR_INVALID_INPUT);
		return NULL;
	}
	s->opts.type_size = sizeof(s->opts);
	pthread_mutex_init(&s->lock, NULL);
	s->max_procs = DEFAULT_MAX_PROCS;
	s->file_mem_budget = DEFAULT_FILE_BUDGET;
	s->pm_max_lines = env_size("BLAZESYM_SHIM_PERF_MAP_MAX_LINES", DEFAULT_PERF_MAP_LINES);
	s->pm_max_bytes = env_size("BLAZESYM_SHIM_PERF_MAP_MAX_BYTES", DEFAULT_PERF_MAP_BYTES);
	bzs_elf_init();
	bzs_set_err(BLAZE_ERR_OK);
	return s;
}

blaze_symbolizer *blaze_symbolizer_new(void)
{
	blaze_symbolizer_opts o = { .type_size = sizeof(o), .demangle = true };

	return blaze_symbolizer_new_opts(&o);
}

void blaze_symbolizer_free(blaze_symbolizer *s)
{
	if (!s)
		return;
	bzs_caches_free(s);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* ---- results ---- */
void blaze_syms_free(const blaze_syms *syms)
{
	free((void *)(uintptr_t)syms);
}

/* ---- process ---- */
static bool perf_lookup(blaze_symbolizer *s, struct bzs_proc *p, const struct bzs_proc_opts *o,
			struct bzs_perfmap **pm, bool *pm_read, uint64_t addr, struct bzs_res *t)
{
	const char *name;
	uint64_t start;

	if (!o->perf_map)
		return false;
	if (!*pm_read) {
		*pm_read = true;
		*pm = bzs_proc_perfmap(s, p);
	}
	if (!*pm || !bzs_perfmap_lookup(*pm, addr, &name, &start))
		return false;
	t->name = name;
	t->module = PERF_MAP_MODULE;
	t->addr = start;
	t->offset = addr - start;
	t->reason = BLAZE_SYMBOLIZE_REASON_SUCCESS;
	return true;
}

static void sym_file(blaze_symbolizer *s, struct bzs_vma *v, uint64_t addr, struct bzs_res *t)
{
	struct bzs_file *f = v->file;
	struct bzs_symtab *tab;
	uint64_t vaddr;
	ssize_t i;

	if (!f) {
		t->reason = v->reason ? v->reason : BLAZE_SYMBOLIZE_REASON_MISSING_COMPONENT;
		return;
	}
	f->last_use = s->tick;
	if (f->reason) {
		t->reason = f->reason;
		return;
	}
	tab = &f->elf.syms;
	/* where the address is in the file, symbols or not: a stripped
	 * file's frames are named by it */
	if (!bzs_elf_off_to_vaddr(&f->elf, addr - v->start + v->off, &vaddr)) {
		t->reason = tab->cnt ? BLAZE_SYMBOLIZE_REASON_INVALID_FILE_OFFSET
				     : BLAZE_SYMBOLIZE_REASON_MISSING_SYMS;
		return;
	}
	t->vaddr_ok = true;
	t->vaddr = vaddr;
	if (!tab->cnt) {
		t->reason = BLAZE_SYMBOLIZE_REASON_MISSING_SYMS;
		return;
	}
	i = bzs_symtab_lookup(tab, vaddr);
	if (i < 0) {
		t->reason = BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR;
		return;
	}
	t->name = bzs_symtab_name_opts(tab, (size_t)i, s->opts.demangle, bzs_dmgl_flags(s));
	t->offset = (size_t)(vaddr - tab->syms[i].addr);
	t->addr = addr - t->offset;
	t->reason = BLAZE_SYMBOLIZE_REASON_SUCCESS;
	if (s->opts.inlined_fns) {
		struct bzs_dwarf *d = bzs_file_dwarf(f);
		struct bzs_inl outer;

		t->no_inl = !bzs_dwarf_inlined(d, vaddr, s->opts.demangle, bzs_dmgl_flags(s),
					       &t->inl, &t->ninl, &outer);
		if (!s->opts.code_info) {
			/* names alone */
			for (size_t k = 0; k < t->ninl; k++)
				t->inl[k].src = NULL;
		} else if (t->ninl) {
			/* where this function calls the outermost inlined one */
			t->src = outer.src;
			t->line = outer.line;
			t->col = outer.col;
			return;
		}
	}
	if (s->opts.code_info) {
		struct bzs_dwarf *d = bzs_file_dwarf(f);

		if (d && !bzs_dwarf_lookup(d, vaddr, &t->src, &t->line, &t->col))
			t->src = NULL;
	}
}

static void sym_cached(blaze_symbolizer *s, struct bzs_proc *p, const struct bzs_proc_opts *o,
		       uint64_t addr, struct bzs_res *t, struct bzs_perfmap **pm, bool *pm_read)
{
	struct bzs_vma *v = bzs_proc_find(p, addr);

	if (!v) {
		if (!perf_lookup(s, p, o, pm, pm_read, addr, t))
			t->reason = p->nvmas ? BLAZE_SYMBOLIZE_REASON_UNMAPPED
					     : BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR;
		return;
	}
	switch (v->kind) {
	case BZS_VMA_VDSO:
		t->module = VDSO_MODULE;
		if (o->no_vdso) {
			t->reason = BLAZE_SYMBOLIZE_REASON_UNSUPPORTED;
			return;
		}
		break;
	case BZS_VMA_FILE:
		t->module = v->path;
		t->vma = v;
		break;
	case BZS_VMA_ANON:
		if (!perf_lookup(s, p, o, pm, pm_read, addr, t))
			t->reason = o->perf_map ? BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR
						: BLAZE_SYMBOLIZE_REASON_UNSUPPORTED;
		return;
	default:
		t->module = v->path;
		t->reason = BLAZE_SYMBOLIZE_REASON_UNSUPPORTED;
		return;
	}
	bzs_vma_resolve(s, p, v, o);
	sym_file(s, v, addr, t);
}

/* Look up addr in the cached mappings; when that fails in a way a newer
 * snapshot could fix (not mapped: dlopen since; anonymous or unopenable:
 * the range was unmapped and reused since), read the maps of a live
 * process again, once per call, and retry. */
static void sym_one(blaze_symbolizer *s, struct bzs_proc *p, const struct bzs_proc_opts *o,
		    uint64_t addr, struct bzs_res *t, bool *refreshed, struct bzs_perfmap **pm,
		    bool *pm_read)
{
	sym_cached(s, p, o, addr, t, pm, pm_read);
	if (*refreshed || p->gone || t->module == VDSO_MODULE)
		return;
	if (t->reason != BLAZE_SYMBOLIZE_REASON_UNMAPPED &&
	    t->reason != BLAZE_SYMBOLIZE_REASON_UNSUPPORTED &&
	    t->reason != BLAZE_SYMBOLIZE_REASON_MISSING_COMPONENT)
		return;
	*refreshed = true;
	if (bzs_proc_refresh(s, p, false, o))
		return;
	memset(t, 0, sizeof(*t));
	sym_cached(s, p, o, addr, t, pm, pm_read);
}

const blaze_syms *blaze_symbolize_process_abs_addrs(blaze_symbolizer *s,
						     const blaze_symbolize_src_process *src,
						     const uint64_t *addrs, size_t n)
{
	blaze_symbolize_src_process in;
	struct bzs_proc_opts o;
	struct bzs_perfmap *pm = NULL;
	bool refreshed = false, pm_read = false;
	struct bzs_proc *p;
	struct bzs_res *t;
	blaze_syms *r = NULL;
	pid_t pid;

	t = bzs_call_results(s && src && (!n || addrs) &&
			     copy_in(&in, sizeof(in), src, src->type_size), n, sizeof(*t));
	if (!t)
		return NULL;
	o = (struct bzs_proc_opts){ in.debug_syms, in.perf_map, in.no_map_files, in.no_vdso };
	pid = in.pid ? (pid_t)in.pid : getpid();
	call_enter(s);
	p = bzs_proc_get(s, pid, in.image, true);
	if (!p) {
		call_leave(s);
		return bzs_call_done(NULL, t);
	}
	if (!p->nvmas && !p->gone) {
		refreshed = true;
		bzs_proc_refresh(s, p, false, &o);
	}
	for (size_t i = 0; i < n; i++)
		sym_one(s, p, &o, addrs[i], &t[i], &refreshed, &pm, &pm_read);
	/* nothing known about the pid: do not keep an empty entry (but an
	 * image whose process is gone stays known as such) */
	if (!p->nvmas && !p->pm && !(p->gone && p->image))
		bzs_proc_drop(s, p);
	r = bzs_build_syms(t, n);
	bzs_caches_flush(s);
	call_leave(s);
	return bzs_call_done_res(r, t, n);
}

blaze_err blaze_symbolize_cache_process(blaze_symbolizer *s, const blaze_cache_src_process *cache)
{
	blaze_cache_src_process in;
	struct bzs_proc_opts o = { 0 };
	struct bzs_proc *p;
	blaze_err err = BLAZE_ERR_OK;
	int r;

	if (!s || !cache || !copy_in(&in, sizeof(in), cache, cache->type_size)) {
		bzs_set_err(BLAZE_ERR_INVALID_INPUT);
		return BLAZE_ERR_INVALID_INPUT;
	}
	call_enter(s);
	p = bzs_proc_capture(s, in.pid ? (pid_t)in.pid : getpid(), in.image);
	if (!p) {
		/* a later image is known: this one is no longer there to read */
		err = in.image ? BLAZE_ERR_NOT_FOUND : BLAZE_ERR_OUT_OF_MEMORY;
	} else {
		r = bzs_proc_refresh(s, p, true, &o);
		if (r == -ENOENT || r == -ESRCH)
			err = BLAZE_ERR_NOT_FOUND;
		else if (r == -EACCES || r == -EPERM)
			err = BLAZE_ERR_PERMISSION_DENIED;
		else if (r == -ENOMEM)
			err = BLAZE_ERR_OUT_OF_MEMORY;
		else if (r)
			err = BLAZE_ERR_OTHER;
		if (!p->nvmas && !(p->gone && p->image))
			bzs_proc_drop(s, p);
	}
	bzs_caches_flush(s);
	call_leave(s);
	bzs_set_err(err);
	return err;
}

/* ---- kernel ---- */
/* The cache entry of path, made empty when there is none (NULL: out of
 * memory) */
static struct bzs_kcache *kcache_entry(blaze_symbolizer *s, const char *path)
{
	struct bzs_kcache *kc, *nk;

	for (size_t i = 0; i < s->nkc; i++)
		if (!strcmp(s->kc[i].path, path))
			return &s->kc[i];
	nk = realloc(s->kc, (s->nkc + 1) * sizeof(*nk));
	if (!nk)
		return NULL;
	s->kc = nk;
	kc = &s->kc[s->nkc];
	memset(kc, 0, sizeof(*kc));
	kc->path = strdup(path);
	if (!kc->path)
		return NULL;
	s->nkc++;
	return kc;
}

/* The table of path, loaded once; reload: read it again, handing the
 * replaced table to *old (results may still point into it). */
static struct bzs_kcache *kcache_get(blaze_symbolizer *s, const char *path, bool reload,
				     struct bzs_ksyms **old)
{
	struct bzs_kcache *kc = kcache_entry(s, path);

	if (!kc || (kc->k && !reload))
		return kc;
	{
		struct bzs_ksyms *k = bzs_ksyms_load(path);

		if (k) {
			*old = kc->k;
			kc->k = k;
		}
	}
	kc->loaded_ns = bzs_now_ns();
	return kc;
}

const blaze_syms *blaze_symbolize_kernel_abs_addrs(blaze_symbolizer *s,
						    const blaze_symbolize_src_kernel *src,
						    const uint64_t *addrs, size_t n)
{
	blaze_symbolize_src_kernel in;
	struct bzs_kcache *kc = NULL;
	struct bzs_ksyms *old = NULL;
	const char *path;
	bool reloaded = false;
	struct bzs_res *t;
	blaze_syms *r;

	t = bzs_call_results(s && src && (!n || addrs) &&
			     copy_in(&in, sizeof(in), src, src->type_size), n, sizeof(*t));
	if (!t)
		return NULL;
	path = in.kallsyms ? in.kallsyms : "/proc/kallsyms";
	call_enter(s);
	if (*path)
		kc = kcache_get(s, path, false, &old);
	for (size_t i = 0; i < n; i++) {
		if (!*path) {
			t[i].reason = BLAZE_SYMBOLIZE_REASON_MISSING_SYMS;
			continue;
		}
		if (!kc || !kc->k) {
			t[i].reason = BLAZE_SYMBOLIZE_REASON_MISSING_COMPONENT;
			continue;
		}
		if (bzs_ksyms_lookup(kc->k, addrs[i], &t[i]) == BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR &&
		    !reloaded && bzs_now_ns() - kc->loaded_ns > KALLSYMS_RELOAD_NS) {
			/* maybe a module loaded since */
			reloaded = true;
			kc = kcache_get(s, path, true, &old);
			if (!kc || !kc->k) {
				t[i].reason = BLAZE_SYMBOLIZE_REASON_MISSING_COMPONENT;
				continue;
			}
			bzs_ksyms_lookup(kc->k, addrs[i], &t[i]);
		}
	}
	r = bzs_build_syms(t, n);
	bzs_ksyms_free(old);
	call_leave(s);
	return bzs_call_done(r, t);
}

blaze_err blaze_symbolize_kernel_preload(blaze_symbolizer *s, const blaze_symbolize_src_kernel *src)
{
	blaze_symbolize_src_kernel in;
	struct bzs_ksyms *k;
	struct bzs_kcache *kc;
	const char *path;

	if (!s || !copy_in(&in, sizeof(in), src, src ? src->type_size : 0)) {
		bzs_set_err(BLAZE_ERR_INVALID_INPUT);
		return BLAZE_ERR_INVALID_INPUT;
	}
	path = in.kallsyms ? in.kallsyms : "/proc/kallsyms";
	if (!*path)
		return BLAZE_ERR_OK;
	/* read without the lock: the other calls go on meanwhile */
	k = bzs_ksyms_load(path);
	if (!k) {
		bzs_set_err(BLAZE_ERR_NOT_FOUND);
		return BLAZE_ERR_NOT_FOUND;
	}
	call_enter(s);
	kc = kcache_entry(s, path);
	if (kc && !kc->k) {
		kc->k = k;
		kc->loaded_ns = bzs_now_ns();
		k = NULL;
	}
	call_leave(s);
	bzs_ksyms_free(k);	/* a look-up loaded it first */
	bzs_set_err(kc ? BLAZE_ERR_OK : BLAZE_ERR_OUT_OF_MEMORY);
	return kc ? BLAZE_ERR_OK : BLAZE_ERR_OUT_OF_MEMORY;
}

/* ---- suite extensions: interruption and notices ---- */
/* Set the caller's hook s->hook to fn, and s->hook_ctx to ctx, under the lock */
#define SET_HOOK(s, hook, fn, ctx)			\
	do {						\
		if (!(s))				\
			break;				\
		pthread_mutex_lock(&(s)->lock);		\
		(s)->hook = (fn);			\
		(s)->hook##_ctx = (ctx);		\
		pthread_mutex_unlock(&(s)->lock);	\
	} while (0)

void blaze_symbolizer_set_interrupt(blaze_symbolizer *s, bool (*fn)(void *ctx), void *ctx)
{
	SET_HOOK(s, interrupt, fn, ctx);
}

void blaze_symbolizer_set_notify(blaze_symbolizer *s, void (*fn)(void *ctx, const char *msg),
				 void *ctx)
{
	SET_HOOK(s, notify, fn, ctx);
}
