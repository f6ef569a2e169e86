/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The public API: symbolizer lifetime, process and kernel symbolization,
 * result allocation.  One mutex per symbolizer serializes the calls. */
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
struct tres {
	const char *name, *module, *src;
	uint64_t addr;
	size_t offset;
	uint32_t line;
	uint16_t col;
	int reason;
};

/* Remember recently copied strings so a result holds each only once. */
struct strcache {
	const char *key[64];
	char *copy[64];
};

static size_t str_slot(const char *p)
{
	return ((uintptr_t)p >> 3 ^ (uintptr_t)p >> 11) & 63;
}

static bool str_seen(struct strcache *c, const char *p)
{
	size_t i = str_slot(p);

	if (c->key[i] == p)
		return true;
	c->key[i] = p;
	return false;
}

static const char *str_put(struct strcache *c, char **pos, const char *p)
{
	size_t i = str_slot(p), n;

	if (!p)
		return NULL;
	if (c->key[i] == p)
		return c->copy[i];
	n = strlen(p) + 1;
	memcpy(*pos, p, n);
	c->key[i] = p;
	c->copy[i] = *pos;
	*pos += n;
	return c->copy[i];
}

static blaze_syms *build_result(const struct tres *t, size_t n)
{
	struct strcache c = { 0 };
	size_t bytes = sizeof(blaze_syms) + n * sizeof(blaze_sym);
	blaze_syms *r;
	char *pos;

	for (size_t i = 0; i < n; i++) {
		if (t[i].name && !str_seen(&c, t[i].name))
			bytes += strlen(t[i].name) + 1;
		if (t[i].module && !str_seen(&c, t[i].module))
			bytes += strlen(t[i].module) + 1;
		if (t[i].src)
			bytes += 2 * (strlen(t[i].src) + 1);
	}
	r = malloc(bytes);
	if (!r)
		return NULL;
	memset(r, 0, sizeof(blaze_syms) + n * sizeof(blaze_sym));
	r->cnt = n;
	pos = (char *)&r->syms[n];
	memset(&c, 0, sizeof(c));
	for (size_t i = 0; i < n; i++) {
		blaze_sym *s = &r->syms[i];

		s->name = t[i].name ? str_put(&c, &pos, t[i].name) : NULL;
		s->module = t[i].module ? str_put(&c, &pos, t[i].module) : NULL;
		s->addr = t[i].addr;
		s->offset = t[i].offset;
		s->reason = (blaze_symbolize_reason)t[i].reason;
		if (t[i].src) {
			const char *slash = strrchr(t[i].src, '/');
			size_t len = strlen(t[i].src);

			memcpy(pos, t[i].src, len + 1);
			if (slash) {
				size_t dl = (size_t)(slash - t[i].src);

				s->code_info.file = pos + dl + 1;
				pos += len + 1;
				memcpy(pos, t[i].src, dl);
				pos[dl] = '\0';
				s->code_info.dir = pos;
				pos += dl + 1;
			} else {
				s->code_info.file = pos;
				pos += len + 1;
			}
			s->code_info.line = t[i].line;
			s->code_info.column = t[i].col;
		}
	}
	return r;
}

void blaze_syms_free(const blaze_syms *syms)
{
	free((void *)(uintptr_t)syms);
}

/* ---- process ---- */
static bool perf_lookup(blaze_symbolizer *s, struct bzs_proc *p, const struct bzs_proc_opts *o,
			struct bzs_perfmap **pm, bool *pm_read, uint64_t addr, struct tres *t)
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

static void sym_file(blaze_symbolizer *s, struct bzs_vma *v, uint64_t addr, struct tres *t)
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
	if (!tab->cnt) {
		t->reason = BLAZE_SYMBOLIZE_REASON_MISSING_SYMS;
		return;
	}
	if (!bzs_elf_off_to_vaddr(&f->elf, addr - v->start + v->off, &vaddr)) {
		t->reason = BLAZE_SYMBOLIZE_REASON_INVALID_FILE_OFFSET;
		return;
	}
	i = bzs_symtab_lookup(tab, vaddr);
	if (i < 0) {
		t->reason = BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR;
		return;
	}
	t->name = bzs_symtab_name(tab, (size_t)i, s->opts.demangle);
	t->offset = (size_t)(vaddr - tab->syms[i].addr);
	t->addr = addr - t->offset;
	t->reason = BLAZE_SYMBOLIZE_REASON_SUCCESS;
	if (s->opts.code_info) {
		struct bzs_dwarf *d = bzs_file_dwarf(f);

		if (d && !bzs_dwarf_lookup(d, vaddr, &t->src, &t->line, &t->col))
			t->src = NULL;
	}
}

static void sym_cached(blaze_symbolizer *s, struct bzs_proc *p, const struct bzs_proc_opts *o,
		       uint64_t addr, struct tres *t, struct bzs_perfmap **pm, bool *pm_read)
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
		    uint64_t addr, struct tres *t, bool *refreshed, struct bzs_perfmap **pm,
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
	struct tres *t;
	blaze_syms *r = NULL;
	pid_t pid;

	if (!s || !src || (n && !addrs) || !copy_in(&in, sizeof(in), src, src->type_size)) {
		bzs_set_err(BLAZE_ERR_INVALID_INPUT);
		return NULL;
	}
	t = calloc(n ? n : 1, sizeof(*t));
	if (!t) {
		bzs_set_err(BLAZE_ERR_OUT_OF_MEMORY);
		return NULL;
	}
	o = (struct bzs_proc_opts){ in.debug_syms, in.perf_map, in.no_map_files, in.no_vdso };
	pid = in.pid ? (pid_t)in.pid : getpid();
	pthread_mutex_lock(&s->lock);
	bzs_call_begin(s);
	p = bzs_proc_get(s, pid, in.image, true);
	if (!p) {
		bzs_call_end();
	pthread_mutex_unlock(&s->lock);
		free(t);
		bzs_set_err(BLAZE_ERR_OUT_OF_MEMORY);
		return NULL;
	}
	if (!p->nvmas && !p->gone) {
		refreshed = true;
		bzs_proc_refresh(s, p, false, &o);
	}
	for (size_t i = 0; i < n; i++)
		sym_one(s, p, &o, addrs[i], &t[i], &refreshed, &pm, &pm_read);
	/* nothing known about the pid: do not keep an empty entry */
	if (!p->nvmas && !p->pm)
		bzs_proc_drop(s, p);
	r = build_result(t, n);
	bzs_caches_flush(s);
	bzs_call_end();
	pthread_mutex_unlock(&s->lock);
	free(t);
	bzs_set_err(r ? BLAZE_ERR_OK : BLAZE_ERR_OUT_OF_MEMORY);
	return r;
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
	pthread_mutex_lock(&s->lock);
	bzs_call_begin(s);
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
		if (!p->nvmas)
			bzs_proc_drop(s, p);
	}
	bzs_caches_flush(s);
	bzs_call_end();
	pthread_mutex_unlock(&s->lock);
	bzs_set_err(err);
	return err;
}

/* ---- kernel ---- */
/* The table of path, loaded once; reload: read it again, handing the
 * replaced table to *old (results may still point into it). */
static struct bzs_kcache *kcache_get(blaze_symbolizer *s, const char *path, bool reload,
				     struct bzs_ksyms **old)
{
	struct bzs_kcache *kc = NULL;

	for (size_t i = 0; i < s->nkc; i++)
		if (!strcmp(s->kc[i].path, path))
			kc = &s->kc[i];
	if (kc && kc->k && !reload)
		return kc;
	if (!kc) {
		struct bzs_kcache *nk = realloc(s->kc, (s->nkc + 1) * sizeof(*nk));

		if (!nk)
			return NULL;
		s->kc = nk;
		kc = &s->kc[s->nkc];
		memset(kc, 0, sizeof(*kc));
		kc->path = strdup(path);
		if (!kc->path)
			return NULL;
		s->nkc++;
	}
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
	struct tres *t;
	blaze_syms *r;

	if (!s || !src || (n && !addrs) || !copy_in(&in, sizeof(in), src, src->type_size)) {
		bzs_set_err(BLAZE_ERR_INVALID_INPUT);
		return NULL;
	}
	t = calloc(n ? n : 1, sizeof(*t));
	if (!t) {
		bzs_set_err(BLAZE_ERR_OUT_OF_MEMORY);
		return NULL;
	}
	path = in.kallsyms ? in.kallsyms : "/proc/kallsyms";
	pthread_mutex_lock(&s->lock);
	bzs_call_begin(s);
	if (*path)
		kc = kcache_get(s, path, false, &old);
	for (size_t i = 0; i < n; i++) {
		const char *name = NULL, *module = NULL;
		uint64_t start = 0;
		int reason;

		if (!*path) {
			t[i].reason = BLAZE_SYMBOLIZE_REASON_MISSING_SYMS;
			continue;
		}
		if (!kc || !kc->k) {
			t[i].reason = BLAZE_SYMBOLIZE_REASON_MISSING_COMPONENT;
			continue;
		}
		reason = bzs_ksyms_lookup(kc->k, addrs[i], &name, &module, &start);
		if (reason == BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR && !reloaded &&
		    bzs_now_ns() - kc->loaded_ns > KALLSYMS_RELOAD_NS) {
			/* maybe a module loaded since */
			reloaded = true;
			kc = kcache_get(s, path, true, &old);
			if (!kc || !kc->k) {
				t[i].reason = BLAZE_SYMBOLIZE_REASON_MISSING_COMPONENT;
				continue;
			}
			reason = bzs_ksyms_lookup(kc->k, addrs[i], &name, &module, &start);
		}
		t[i].reason = reason;
		if (reason == BLAZE_SYMBOLIZE_REASON_SUCCESS) {
			t[i].name = name;
			t[i].module = module;
			t[i].addr = start;
			t[i].offset = (size_t)(addrs[i] - start);
		}
	}
	r = build_result(t, n);
	bzs_ksyms_free(old);
	bzs_call_end();
	pthread_mutex_unlock(&s->lock);
	free(t);
	bzs_set_err(r ? BLAZE_ERR_OK : BLAZE_ERR_OUT_OF_MEMORY);
	return r;
}

/* ---- suite extensions: interruption and notices ---- */
void blaze_symbolizer_set_interrupt(blaze_symbolizer *s, bool (*fn)(void *ctx), void *ctx)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->interrupt = fn;
	s->interrupt_ctx = ctx;
	pthread_mutex_unlock(&s->lock);
}

void blaze_symbolizer_set_notify(blaze_symbolizer *s, void (*fn)(void *ctx, const char *msg),
				 void *ctx)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->notify = fn;
	s->notify_ctx = ctx;
	pthread_mutex_unlock(&s->lock);
}
