// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <linux/types.h>
#include "stacksym.h"
#include "stackshort.h"
#include "msg.h"
#include "bpfload.h"
#include "clock.h"
#include "blazesym.h"
#include "announce.h"
#include "opts.h"
#include "run.h"
#include "xalloc.h"
#include "hashmap.h"
#include "vec.h"

#include <bpf/bpf.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* The image numbers of the kernel half are the symbolizer's */
_Static_assert(IMAGE_EXEC_BITS == BLAZE_IMAGE_EXEC_BITS &&
	       IMAGE_START_SHIFT == BLAZE_IMAGE_START_SHIFT,
	       "bpf/announce.h and blazesym.h lay images out alike");

/* The cache of names: (pid, image, addr) -> interned name.  Kernel
 * addresses use pid KPID. */
#define KPID UINT32_MAX

struct name_key {
	uint64_t addr, image, pid;
};

#define NAME_KEY(pid_, image_, addr_) \
	(&(struct name_key){ .addr = (addr_), .image = (image_), .pid = (pid_) })

/* What the cache holds of one address: its name and its mapping */
struct name_val {
	const char *name;
	const struct stack_module *mod;
	uint64_t file_addr;	/* 0: not known */
	const char **inl;	/* --inline: the functions inlined at it, outermost first */
	uint32_t ninl;
	bool noinl;		/* --inline: no DWARF to tell */
};

_Static_assert(STACK_BUILD_ID_MAX == BLAZE_BUILD_ID_MAX, "one build id size");

struct stacksym {
	blaze_symbolizer *sym;
	struct hashmap *names;	/* struct name_key -> struct name_val */
	struct hashmap *strs;	/* the interned names: their keys */
	struct hashmap *mods;	/* the interned mappings: their keys */
	struct hashmap *locs;	/* the interned frame_loc arrays: their keys */
	struct hashmap *modonly;	/* the interned names that name a module only */
	const char *unknown;	/* "[unknown]", interned */
	struct stacksym_stats st;
	uint64_t capture_until;	/* while capturing during tracing: its deadline */
	bool capturing;
	pthread_t kload;	/* loading the kernel's symbols, when kloading */
	bool kloading;
	bool slow_said;		/* "still naming frames" said */
	bool inlined;		/* --inline */
	VEC(const char **) inl_arrays;	/* the name_val.inl arrays, to free */
	int khidden;		/* kernel addresses hidden: -1 not known yet */
	/* frame-pointer user stacks resolved per process (stackshort.c) */
	struct stackshort *shorts;
	bool dwarf_hint;	/* suggest --dwarf for short stacks */
};

/* A capture made while tracing (a process announced in the poll
 * callback) takes at most this long; what it leaves is loaded when the
 * report needs it */
#define CAPTURE_MAX_NS 1000000000ull
/* After the stop, naming frames longer than this is said */
#define REPORT_SLOW_NS 1000000000ull

/* Equal names are one string, that lives as long as s */
static const char *intern(struct stacksym *s, const char *str)
{
	return hashmap_key(s->strs, hashmap_get_blob(s->strs, str, strlen(str) + 1, NULL));
}

/* The report's frames take long to name: say so once, and how to quit */
static void say_if_slow(struct stacksym *s)
{
	uint64_t now;

	if (s->slow_said || !run_end_ns)
		return;
	now = now_ns();
	if (now - run_end_ns < REPORT_SLOW_NS)
		return;
	s->slow_said = true;
	msg_warn("still naming the frames of the report %.1f s after the stop "
		 "(Ctrl-C quits without the report)", (now - run_end_ns) / 1e9);
	/* as said: the next SIGINT or SIGTERM ends the tool at once */
	run_exiting = 1;
}

/* A stop asked for while tracing (not a signal during the report) */
static bool stop_asked(void)
{
	return run_exiting && !run_end_ns;
}

/* The symbolizer's question during long work: give up now? */
static bool sym_interrupt(void *ctx)
{
	struct stacksym *s = ctx;

	if (s->capturing)
		return stop_asked() || (s->capture_until && now_ns() > s->capture_until);
	say_if_slow(s);
	return false;
}

/* What the symbolizer left out; the paths in it come from the target,
 * and msg_warn() escapes the whole message (tools/lib/escape.c) */
static void sym_notice(void *ctx, const char *msg)
{
	msg_warn("%s", msg);
}

static void *kernel_loader(void *ctx)
{
	blaze_symbolize_src_kernel src = { .type_size = sizeof(src) };
	struct stacksym *s = ctx;

	blaze_symbolize_kernel_preload(s->sym, &src);
	return NULL;
}

void stacksym_want_kernel(struct stacksym *s)
{
	sigset_t all, old;

	if (s->kloading)
		return;
	/* the signals stay the main thread's (the run loop's) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	s->kloading = !pthread_create(&s->kload, NULL, kernel_loader, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The loading done (the first kernel look-up waits for it, rather than
 * read the file again) */
static void kernel_loaded(struct stacksym *s)
{
	if (s->kloading)
		pthread_join(s->kload, NULL);
	s->kloading = false;
}

static struct stacksym *stacksym_make(bool code_info, bool inlined, bool no_params)
{
	struct stacksym *s = xcalloc(1, sizeof(*s));
	blaze_symbolizer_opts o = {
		.type_size = sizeof(o),
		.code_info = code_info,
		.inlined_fns = inlined,
		.demangle = true,
		.demangle_no_params = no_params,
	};

	s->sym = blaze_symbolizer_new_opts(&o);
	if (!s->sym) {
		msg_warn("cannot create the symbolizer: %s",
			 blaze_err_str(blaze_err_last()));
		exit(EXIT_UNSUPPORTED);
	}
	s->khidden = -1;
	s->inlined = inlined;
	s->names = hashmap_new(sizeof(struct name_key), sizeof(struct name_val));
	s->strs = hashmap_new(0, 0);
	s->mods = hashmap_new(sizeof(struct stack_module), 1);
	s->locs = hashmap_new(0, 0);
	s->shorts = stackshort_new();
	s->modonly = hashmap_new(sizeof(const char *), 1);
	s->unknown = intern(s, "[unknown]");
	blaze_symbolizer_set_interrupt(s->sym, sym_interrupt, s);
	blaze_symbolizer_set_notify(s->sym, sym_notice, s);
	return s;
}

struct stacksym *stacksym_new(bool code_info, bool inlined)
{
	return stacksym_make(code_info, inlined, false);
}

struct stacksym *stacksym_for(const struct stack_opts *o)
{
	struct stacksym *s = stacksym_make(o->lines, o->inlined, o->no_params);

	return s;
}

void stacksym_set_dwarf_hint(struct stacksym *s, bool on)
{
	s->dwarf_hint = on;
}

void stacksym_free(struct stacksym *s)
{
	if (!s)
		return;
	kernel_loaded(s);
	blaze_symbolizer_free(s->sym);
	for (size_t i = 0; i < s->inl_arrays.n; i++)
		free(s->inl_arrays.v[i]);
	vec_free(&s->inl_arrays);
	hashmap_free(s->strs);
	hashmap_free(s->mods);
	hashmap_free(s->locs);
	stackshort_free(s->shorts);
	hashmap_free(s->modonly);
	hashmap_free(s->names);
	free(s);
}

void stacksym_cache_image(struct stacksym *s, uint32_t pid, uint64_t image)
{
	blaze_cache_src_process src = {
		.type_size = sizeof(src),
		.pid = pid,
		.cache_vmas = true,
		.image = image,
	};

	/* bounded while tracing, given up once a stop is asked for */
	if (stop_asked())
		return;
	s->capturing = true;
	s->capture_until = run_start_ns ? now_ns() + CAPTURE_MAX_NS : 0;
	blaze_symbolize_cache_process(s->sym, &src);
	s->capturing = false;
}

void stacksym_cache_pid(struct stacksym *s, uint32_t pid)
{
	stacksym_cache_image(s, pid, 0);
}

static void cache_one(void *s, uint32_t tgid)
{
	stacksym_cache_pid(s, tgid);
}

void stacksym_cache_targets(struct stacksym *s, const struct common_opts *o)
{
	common_opts_foreach_tgid(o, cache_one, s);
}

int stacksym_on_announce(void *ctx, void *data, size_t size)
{
	const struct announce_event *e = data;

	if (size >= sizeof(*e) && e->type == ANNOUNCE_EV_NEW_PROCESS)
		stacksym_cache_image(ctx, e->tgid, e->exec_id);
	return 0;
}

static const char *basename_of(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* A function's name, with its file:line where known (--lines) */
static const char *name_at(struct stacksym *s, const char *name, const blaze_symbolize_code_info *ci)
{
	char buf[512];

	if (ci->file && ci->line) {
		snprintf(buf, sizeof(buf), "%s (%s:%u)", name, basename_of(ci->file), ci->line);
		return intern(s, buf);
	}
	return intern(s, name);
}

/* Where the user address addr is in its file, as an address of the ELF
 * file when its headers were read, else as an offset into the file; 0:
 * not known */
static uint64_t file_addr_of(const blaze_sym *b, uint64_t addr)
{
	if (b->elf_vaddr_ok)
		return b->elf_vaddr;
	if (b->map_end && addr >= b->map_start && addr < b->map_end)
		return addr - b->map_start + b->map_off;
	return 0;
}

/* Name of one resolved symbol (addr: the address looked up);
 * unresolved: "module+0xADDR", "[module]" or "[unknown]" (stacksym.h) */
static const char *sym_name(struct stacksym *s, const blaze_sym *b, bool kernel, uint64_t addr)
{
	const char *name;
	char buf[512];
	uint64_t fa;

	if (b->name && b->name[0])
		return name_at(s, b->name, &b->code_info);
	if (!kernel && b->module && b->module[0]) {
		fa = b->map_end ? file_addr_of(b, addr) : 0;
		if (fa)
			snprintf(buf, sizeof(buf), "%s+%#llx", basename_of(b->module),
				 (unsigned long long)fa);
		else
			snprintf(buf, sizeof(buf), "[%s]", basename_of(b->module));
		name = intern(s, buf);
		hashmap_get(s->modonly, &name, NULL);
		return name;
	}
	return s->unknown;
}

/* The file mapping of one user address, interned; NULL when none */
static const struct stack_module *sym_module(struct stacksym *s, const blaze_sym *b)
{
	struct stack_module m;

	if (!b->module || !b->map_end)
		return NULL;
	memset(&m, 0, sizeof(m));
	m.path = intern(s, b->module);
	m.start = b->map_start;
	m.end = b->map_end;
	m.off = b->map_off;
	m.build_id_len = b->build_id_len;
	memcpy(m.build_id, b->build_id, b->build_id_len);
	return hashmap_key(s->mods, hashmap_get(s->mods, &m, NULL));
}

/* A broken frame-pointer chain can loop on one bad address: a run of
 * [unknown] frames says no more than one.  Then count what is named.
 * locs, when given, follows out. */
static int finish(struct stacksym *s, bool kernel, const char **out, struct frame_loc *locs,
		  bool *inl, int len)
{
	const char *unknown = s->unknown;
	int n = 0;

	for (int i = 0; i < len; i++) {
		if (n && out[i] == unknown && out[n - 1] == unknown)
			continue;
		if (locs)
			locs[n] = locs[i];
		if (inl)
			inl[n] = inl[i];
		out[n++] = out[i];
	}
	for (int i = 0; i < n; i++) {
		bool unk = out[i] == unknown;

		if (kernel) {
			s->st.kernel_frames++;
			s->st.kernel_unknown += unk;
		} else {
			s->st.user_frames++;
			s->st.user_unknown += unk;
			s->st.user_module_only += !unk &&
						  hashmap_lookup(s->modonly, &out[i]) != NULL;
		}
	}
	return n;
}

/* Are kernel addresses hidden from us?  Checked once, and said once */
static bool kernel_hidden(struct stacksym *s)
{
	char why[256];

	if (s->khidden < 0) {
		s->khidden = kallsyms_hidden(why, sizeof(why));
		if (s->khidden)
			msg_warn("kernel frames cannot be named: /proc/kallsyms shows every "
				 "address as 0, because %s", why);
	}
	return s->khidden;
}

/* The functions inlined at one resolved user address (--inline), as the
 * cache keeps them: interned names, outermost first, with their file:line
 * under --lines */
static void inl_names(struct stacksym *s, const blaze_sym *b, struct name_val *v)
{
	const char **a;

	v->noinl = b->name && b->inlined_unknown;
	if (!b->name || !b->inlined_cnt)
		return;
	a = xcalloc(b->inlined_cnt, sizeof(*a));
	for (size_t i = 0; i < b->inlined_cnt; i++)
		a[i] = name_at(s, b->inlined[i].name && b->inlined[i].name[0] ?
				  b->inlined[i].name : "[inlined]", &b->inlined[i].code_info);
	vec_push(&s->inl_arrays, a);
	v->inl = a;
	v->ninl = (uint32_t)b->inlined_cnt;
}

/* Resolve n addresses (leaf first) into out (root first, at most cap
 * frames), and into locs (when not NULL) where each is.  Return
 * addresses (all but the leaf) are looked up at addr - 1, inside the
 * call.  With --inline, an address stands for its function and those
 * inlined in it, outermost first; inlined frames that do not fit in cap
 * are left out (counted); inl (when not NULL) follows out: true for
 * the frames of inlined functions. */
int stacksym_user_at(struct stacksym *s, uint32_t pid, uint64_t image, const __u64 *ips,
		     int n, const char **out, struct frame_loc *locs, bool *inl, int cap)
{
	uint64_t addrs[STACK_FRAMES_MAX], miss[STACK_FRAMES_MAX];
	struct name_val vals[STACK_FRAMES_MAX];
	int idx[STACK_FRAMES_MAX], nmiss = 0, len = 0, m = 0, room;
	bool kernel = pid == KPID;
	const blaze_syms *r = NULL;

	for (len = 0; len < n && len < STACK_FRAMES_MAX && len < cap && ips[len]; len++)
		addrs[len] = len ? ips[len] - 1 : ips[len];
	for (int i = 0; i < len; i++) {
		const struct name_val *nv = hashmap_lookup(s->names, NAME_KEY(pid, image, addrs[i]));

		if (nv) {
			vals[i] = *nv;
			continue;
		}
		idx[nmiss] = i;
		miss[nmiss++] = addrs[i];
	}
	if (nmiss) {
		say_if_slow(s);
		if (kernel) {
			blaze_symbolize_src_kernel src = { .type_size = sizeof(src) };

			kernel_loaded(s);
			r = blaze_symbolize_kernel_abs_addrs(s->sym, &src, miss, nmiss);
		} else {
			blaze_symbolize_src_process src = {
				.type_size = sizeof(src),
				.pid = pid,
				.debug_syms = true,
				.perf_map = true,
				.image = image,
			};

			r = blaze_symbolize_process_abs_addrs(s->sym, &src, miss, nmiss);
		}
	}
	for (int k = 0; k < nmiss; k++) {
		struct name_val v = { .name = s->unknown };

		if (r && (size_t)k < r->cnt) {
			const blaze_sym *b = &r->syms[k];

			v.name = sym_name(s, b, kernel, miss[k]);
			if (!kernel) {
				v.mod = sym_module(s, b);
				if (v.mod)
					v.file_addr = file_addr_of(b, miss[k]);
				if (s->inlined)
					inl_names(s, b, &v);
			}
			if (kernel && !b->name && kernel_hidden(s))
				s->st.kernel_hidden++;
			else if (!b->name && b->reason < STACKSYM_REASONS)
				s->st.reasons[b->reason]++;
		}
		vals[idx[k]] = v;
		/* user names are cached only when found: a miss may be a
		 * library loaded later, or JIT code not yet in the perf map */
		if (kernel || (r && r->syms[k].name))
			*(struct name_val *)hashmap_get(s->names, NAME_KEY(pid, image, miss[k]),
							NULL) = v;
	}
	blaze_syms_free(r);
	/* root first: the last address first, each followed by what is
	 * inlined in it */
	room = cap - len;
	for (int i = len - 1; i >= 0; i--) {
		const struct name_val *v = &vals[i];
		uint32_t take = v->ninl <= (uint32_t)room ? v->ninl : (uint32_t)room;

		if (locs)
			locs[m] = (struct frame_loc){ .addr = addrs[i], .mod = v->mod,
						      .file_addr = v->file_addr };
		if (inl)
			inl[m] = false;
		out[m++] = v->name;
		s->st.user_no_inline_info += v->noinl;
		s->st.user_inlined += take;
		s->st.user_inlined_dropped += v->ninl - take;
		room -= (int)take;
		for (uint32_t k = 0; k < take; k++) {
			if (locs)
				locs[m] = locs[m - 1];
			if (inl)
				inl[m] = true;
			out[m++] = v->inl[k];
		}
	}
	return finish(s, kernel, out, locs, inl, m);
}

int stacksym_user_image(struct stacksym *s, uint32_t pid, uint64_t image,
			const __u64 *ips, int n, const char **out)
{
	return stacksym_user_at(s, pid, image, ips, n, out, NULL, NULL, STACK_FRAMES_MAX);
}

int stacksym_user(struct stacksym *s, uint32_t pid, const __u64 *ips, int n,
		  const char **out)
{
	return stacksym_user_at(s, pid, 0, ips, n, out, NULL, NULL, STACK_FRAMES_MAX);
}

static bool is_tracing_frame(const char *n)
{
	static const char *const prefixes[] = {
		"bpf_prog_", "bpf_trace_run", "__bpf_trace_", "__traceiter_",
		"perf_trace_", "trace_call_bpf", "bpf_get_stack",
		"__bpf_get_stack", "bpf_get_stackid", "__bpf_get_stackid",
		"bpf_get_stackid_raw_tp", "bpf_get_stack_raw_tp",
		"__perf_event_overflow", "perf_swevent_", "___perf_sw_event",
		"__perf_sw_event", "perf_tp_event", "bpf_overflow_handler",
		"__bpf_prog_run", "bpf_dispatcher_",
	};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(n, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

int stacksym_kernel_at(struct stacksym *s, const __u64 *ips, int n, const char **out,
		       struct frame_loc *locs)
{
	int len = stacksym_user_at(s, KPID, 0, ips, n, out, locs, NULL, STACK_FRAMES_MAX), drop = 0;

	/* out is root first: the machinery sits at the end (leaf side) */
	while (drop < len && is_tracing_frame(out[len - 1 - drop]))
		drop++;
	return len - drop;
}

int stacksym_kernel(struct stacksym *s, const __u64 *ips, int n,
		    const char **out)
{
	return stacksym_kernel_at(s, ips, n, out, NULL);
}

void stacksym_stats(const struct stacksym *s, struct stacksym_stats *st)
{
	*st = s->st;
}

void stacksym_count_short(struct stacksym *s, uint32_t pid, __u64 ustack, const __u64 *ips, int n)
{
	if (s)
		stackshort_count(s->shorts, pid, ustack, ips, n);
}

bool stacksym_inlined(const struct stacksym *s)
{
	return s && s->inlined;
}

bool stacksym_unresolved(const struct stacksym *s, const char *name)
{
	return s && (name == s->unknown || hashmap_lookup(s->modonly, &name));
}

bool stacksym_dwarf_hint(const struct stacksym *s)
{
	return s->dwarf_hint;
}

const struct stackshort *stacksym_shorts_of(const struct stacksym *s)
{
	return s->shorts;
}

const struct frame_loc *stacksym_intern_locs(struct stacksym *s, const struct frame_loc *l, int n)
{
	if (!s || !n)
		return NULL;
	return hashmap_key(s->locs, hashmap_get_blob(s->locs, l, n * sizeof(l[0]), NULL));
}

