// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <linux/types.h>
#include "stacks.h"
#include "stackstore.h"
#include "stackeng.h"
#include "msg.h"
#include "bpfload.h"
#include "clock.h"
#include "escape.h"
#include "blazesym.h"
#include "announce.h"
#include "json.h"
#include "opts.h"
#include "run.h"
#include "xalloc.h"
#include "hashmap.h"
#include "vec.h"
#include "dwarf.h"

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
	/* frame-pointer user stacks resolved per process: all, and those
	 * of one or two frames (struct short_count) */
	struct hashmap *shorts;
	struct hashmap *short_seen;	/* struct short_key: counted already */
	bool dwarf_hint;	/* suggest --dwarf for short stacks */
};

struct short_count {
	uint64_t stacks, short_ones;
};

struct short_key {
	uint64_t pid, ustack;
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
	s->shorts = hashmap_new(sizeof(uint32_t), sizeof(struct short_count));
	s->short_seen = hashmap_new(sizeof(struct short_key), 1);
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
	hashmap_free(s->shorts);
	hashmap_free(s->short_seen);
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
 * unresolved: "module+0xADDR", "[module]" or "[unknown]" (stacks.h) */
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
static int resolve(struct stacksym *s, uint32_t pid, uint64_t image, const __u64 *ips,
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
	return resolve(s, pid, image, ips, n, out, NULL, NULL, STACK_FRAMES_MAX);
}

int stacksym_user(struct stacksym *s, uint32_t pid, const __u64 *ips, int n,
		  const char **out)
{
	return resolve(s, pid, 0, ips, n, out, NULL, NULL, STACK_FRAMES_MAX);
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

static int kernel_at(struct stacksym *s, const __u64 *ips, int n, const char **out,
		     struct frame_loc *locs)
{
	int len = resolve(s, KPID, 0, ips, n, out, locs, NULL, STACK_FRAMES_MAX), drop = 0;

	/* out is root first: the machinery sits at the end (leaf side) */
	while (drop < len && is_tracing_frame(out[len - 1 - drop]))
		drop++;
	return len - drop;
}

int stacksym_kernel(struct stacksym *s, const __u64 *ips, int n,
		    const char **out)
{
	return kernel_at(s, ips, n, out, NULL);
}

void stacksym_stats(const struct stacksym *s, struct stacksym_stats *st)
{
	*st = s->st;
}

void stacksym_json_stats(struct json *j, const struct stacksym *s)
{
	json_obj_begin(j);
	json_kv_u64(j, "user", s->st.user_frames);
	json_kv_u64(j, "user_unknown", s->st.user_unknown);
	json_kv_u64(j, "user_module_only", s->st.user_module_only);
	json_kv_u64(j, "kernel", s->st.kernel_frames);
	json_kv_u64(j, "kernel_unknown", s->st.kernel_unknown);
	json_key(j, "failed_lookups");
	json_obj_begin(j);
	for (int r = 1; r < STACKSYM_REASONS; r++)
		if (s->st.reasons[r])
			json_kv_u64(j, blaze_symbolize_reason_str(r), s->st.reasons[r]);
	if (s->st.kernel_hidden)
		json_kv_u64(j, STACKSYM_KERNEL_HIDDEN, s->st.kernel_hidden);
	json_obj_end(j);
	if (s->inlined) {
		json_kv_u64(j, "user_inlined", s->st.user_inlined);
		json_kv_u64(j, "user_no_inline_info", s->st.user_no_inline_info);
		json_kv_u64(j, "user_inlined_dropped", s->st.user_inlined_dropped);
	}
	json_obj_end(j);
}

struct short_say {
	char pids[160];
	size_t len;
	int n;
	uint64_t stacks, short_ones;
};

static void short_one(const void *key, void *val, void *arg)
{
	const struct short_count *c = val;
	struct short_say *w = arg;

	/* most of its stacks: more than half */
	if (2 * c->short_ones <= c->stacks)
		return;
	w->stacks += c->stacks;
	w->short_ones += c->short_ones;
	if (w->n++ < 5 && w->len < sizeof(w->pids))
		w->len += snprintf(w->pids + w->len, sizeof(w->pids) - w->len, "%s%u",
				   w->len ? ", " : "", *(const uint32_t *)key);
	else if (w->n == 6 && w->len < sizeof(w->pids))
		w->len += snprintf(w->pids + w->len, sizeof(w->pids) - w->len, ", ...");
}

/* Most user stacks of a process stop after one or two frames: its code
 * was likely built without frame pointers, said once */
static void report_short(const struct stacksym *s)
{
	struct short_say w = { .len = 0 };

	hashmap_each(s->shorts, short_one, &w);
	if (!w.n)
		return;
	msg_warn("%llu of %llu user stacks of process%s %s stop after one or two frames: "
		 "%s code seems to lack frame pointers%s",
		 (unsigned long long)w.short_ones, (unsigned long long)w.stacks,
		 w.n > 1 ? "es" : "", w.pids, w.n > 1 ? "their" : "its",
		 s->dwarf_hint ? "; --dwarf unwinds whole stacks" : "");
}

void stacksym_report(const struct stacksym *s)
{
	const struct stacksym_stats *st = &s->st;

	report_short(s);

	if (s->inlined && st->user_no_inline_info)
		msg_warn("--inline: %llu of %llu user frames had no inline information (no DWARF "
			 "debug info for them: build with -g, or debug = \"line-tables-only\")",
			 (unsigned long long)st->user_no_inline_info,
			 (unsigned long long)st->user_frames);
	if (st->user_inlined_dropped)
		msg_warn("--inline: %llu inlined frames left out of stacks longer than %d frames",
			 (unsigned long long)st->user_inlined_dropped, STACK_UFRAMES_MAX);

	if (st->user_unknown || st->user_module_only)
		msg_warn("%llu of %llu user frames had no symbol (%llu named by "
			 "module only, %llu [unknown])",
			 (unsigned long long)(st->user_unknown + st->user_module_only),
			 (unsigned long long)st->user_frames,
			 (unsigned long long)st->user_module_only,
			 (unsigned long long)st->user_unknown);
	if (st->kernel_unknown)
		msg_warn("%llu of %llu kernel frames had no symbol%s",
			 (unsigned long long)st->kernel_unknown,
			 (unsigned long long)st->kernel_frames,
			 st->kernel_hidden ? " (kernel addresses hidden, see above)" : "");
	if (st->user_unknown || st->user_module_only || st->kernel_unknown) {
		char buf[512];
		size_t off = 0;

		for (int i = 1; i < STACKSYM_REASONS; i++) {
			if (!st->reasons[i])
				continue;
			off += snprintf(buf + off, sizeof(buf) - off, "%s%llu %s",
					off ? ", " : "", (unsigned long long)st->reasons[i],
					blaze_symbolize_reason_str(i));
			if (off >= sizeof(buf))
				break;
		}
		if (st->kernel_hidden && off < sizeof(buf))
			off += snprintf(buf + off, sizeof(buf) - off, "%s%llu %s", off ? ", " : "",
					(unsigned long long)st->kernel_hidden,
					STACKSYM_KERNEL_HIDDEN);
		if (off)
			msg_warn("failed look-ups by reason: %s", buf);
	}
}

/* ---- text built in memory, then written at once ---- */

struct sbuf {
	char *p;
	size_t n, cap;
};

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	array_reserve(b->p, b->cap, b->n + n + 1);
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

/* s escaped (escape.h); with semi, a ';' is written ':' */
static void sb_esc(struct sbuf *b, const char *s, bool semi)
{
	size_t n = strlen(s);

	/* room for the worst case at once: an escape takes at most four
	 * bytes per byte it stands for ("\xNN") */
	array_reserve(b->p, b->cap, b->n + 4 * n + 1);
	for (size_t i = 0; i < n;) {
		size_t run = esc_plain_len(s + i, n - i), used, l;
		const char *c = semi ? memchr(s + i, ';', run) : NULL;

		if (c)
			run = (size_t)(c - (s + i));
		if (run) {
			memcpy(b->p + b->n, s + i, run);
			b->n += run;
			i += run;
		} else if (semi && s[i] == ';') {
			b->p[b->n++] = ':';
			i++;
		} else {
			l = esc_step(s + i, n - i, b->p + b->n, &used);
			b->n += l;
			i += used;
		}
	}
	b->p[b->n] = 0;
}

void stack_print_frames(FILE *f, const char *indent, const char *const *fr, int n)
{
	/* one write per stack, not three per frame (the report prints
	 * thousands); kept for the next stack */
	static struct sbuf b;
	size_t il = strlen(indent);

	b.n = 0;
	for (int i = n - 1; i >= 0; i--) {
		sb_put(&b, indent, il);
		sb_esc(&b, fr[i], false);
		sb_put(&b, "\n", 1);
	}
	if (b.n)
		fwrite(b.p, 1, b.n, f);
}

/* ---- one record's stacks ---- */

/* The scheduler's own functions: what the kernel's in_sched_functions()
 * calls so (its .sched.text and .spinlock.text), from /proc/kallsyms,
 * read once, up to the four symbols */
static bool in_sched_text(__u64 a)
{
	static const char *const names[4] = { "__sched_text_start", "__sched_text_end",
					      "__lock_text_start", "__lock_text_end" };
	static __u64 at[4];
	static bool read;

	if (!read) {
		char line[512];
		FILE *f = fopen("/proc/kallsyms", "re");
		int found = 0;

		read = true;
		while (f && found < 4 && fgets(line, sizeof(line), f)) {
			unsigned long long addr;
			char type, name[128];

			if (sscanf(line, "%llx %c %127s", &addr, &type, name) != 3)
				continue;
			for (int k = 0; k < 4; k++)
				if (!at[k] && !strcmp(name, names[k])) {
					at[k] = addr;
					found++;
				}
		}
		if (f)
			fclose(f);
	}
	return (a >= at[0] && a < at[1]) || (a >= at[2] && a < at[3]);
}

static int kernel_frames(struct stacksym *s, struct stackstore *st, const struct stack_ref *r,
			 struct stack_frames *f, struct stack_locs *l)
{
	__u64 ips[STACK_FRAMES_MAX];
	const __u64 *p;
	int n, m = 0;

	p = stackstore_get(st, r->kstack, &n);
	if (!p)
		return -1;
	if (n > STACK_FRAMES_MAX)
		n = STACK_FRAMES_MAX;
	for (int i = 0; i < n; i++)
		if (!r->kernel_nosched || !in_sched_text(p[i]))
			ips[m++] = p[i];
	return kernel_at(s, ips, m, f->k, l ? l->k : NULL);
}

void stack_frames_resolve(struct stacksym *s, struct stackstore *st, const struct stack_ref *r,
			  struct stack_frames *f)
{
	stack_frames_resolve_at(s, st, r, f, NULL);
}

static void frames_resolve(struct stacksym *s, struct stackstore *st, const struct stack_ref *r,
			   struct stack_frames *f, struct stack_locs *l);

void stack_frames_resolve_at(struct stacksym *s, struct stackstore *st, const struct stack_ref *r,
			     struct stack_frames *f, struct stack_locs *l)
{
	static struct stack_locs tmp;	/* the report is single-threaded */

	if (!l)
		l = &tmp;
	frames_resolve(s, st, r, f, l);
	f->uloc = NULL;
	if (s && f->un)
		f->uloc = hashmap_key(s->locs, hashmap_get_blob(s->locs, l->u,
								f->un * sizeof(l->u[0]), NULL));
}

/* A frame-pointer user stack of pid taken, of n addresses: its
 * frames, not its names (with --inline a short stack may name more) */
static void count_short(struct stacksym *s, uint32_t pid, __u64 ustack, const __u64 *ips, int n)
{
	struct short_count *c;
	bool created;
	int len = 0;

	if (!s)
		return;
	while (len < n && len < STACK_FRAMES_MAX && ips[len])
		len++;
	if (!len)
		return;
	/* each stack once, however often a report resolves it */
	hashmap_get(s->short_seen, &(struct short_key){ .pid = pid, .ustack = ustack }, &created);
	if (!created)
		return;
	c = hashmap_get(s->shorts, &pid, NULL);
	c->stacks++;
	c->short_ones += len <= 2;
}

static void frames_resolve(struct stacksym *s, struct stackstore *st, const struct stack_ref *r,
			   struct stack_frames *f, struct stack_locs *l)
{
	static const struct frame_loc none;

	f->un = f->kn = 0;
	f->ulost = f->klost = false;
	f->inline_marks = s && s->inlined;	/* s NULL: no symbolizer (nothing to resolve) */
	if (r->kstack >= STACK_ID_MIN) {
		int n = kernel_frames(s, st, r, f, l);

		if (n < 0)
			f->klost = true;
		else
			f->kn = n;
	} else if (r->kstack != STACK_NONE) {
		f->klost = true;
	}
	if (r->dw) {
		enum dwunw_end end;
		int n;
		const __u64 *dips = dwunw_stack(r->dw, (int)r->ustack, &n, &end);
		const char *mark = dwunw_end_frame(end);

		/* a stack cut short says so at its root end */
		if (mark) {
			if (l)
				l->u[f->un] = none;
			f->uinl[f->un] = false;
			f->u[f->un++] = mark;
		}
		if (n > STACK_FRAMES_MAX)
			n = STACK_FRAMES_MAX;
		f->un += resolve(s, r->pid, r->image, dips, n, f->u + f->un,
				 l ? l->u + f->un : NULL, f->uinl + f->un, STACK_UFRAMES_MAX - f->un);
	} else if (r->ustack >= STACK_ID_MIN) {
		int n;
		const __u64 *ips = stackstore_get(st, r->ustack, &n);

		if (ips) {
			f->un = resolve(s, r->pid, r->image, ips,
					n > STACK_FRAMES_MAX ? STACK_FRAMES_MAX : n, f->u,
					l ? l->u : NULL, f->uinl, STACK_UFRAMES_MAX);
			count_short(s, r->pid, r->ustack, ips, n);
		} else {
			f->ulost = true;
		}
	} else {
		f->ulost = r->ustack != STACK_NONE;
	}
	if (l) {
		if (f->ulost)
			l->u[f->un] = none;
		if (f->klost)
			l->k[f->kn] = none;
	}
	if (f->ulost) {
		f->uinl[f->un] = false;
		f->u[f->un++] = FRAME_USER_LOST;
	}
	if (f->klost)
		f->k[f->kn++] = FRAME_KERNEL_LOST;
}

int stack_frames_cmp(const struct stack_frames *a, const struct stack_frames *b)
{
	int r;

	if (a->kn != b->kn)
		return a->kn < b->kn ? -1 : 1;
	if (a->un != b->un)
		return a->un < b->un ? -1 : 1;
	r = memcmp(a->k, b->k, a->kn * sizeof(a->k[0]));
	if (!r)
		r = memcmp(a->u, b->u, a->un * sizeof(a->u[0]));
	return r;
}

void stack_frames_print(FILE *f, const struct stack_frames *fr, bool sep_between)
{
	stack_print_frames(f, "    ", fr->k, fr->kn);
	if (fr->un && (fr->kn || !sep_between))
		fputs("    --\n", f);
	stack_print_frames(f, "    ", fr->u, fr->un);
}

/* "user_addrs": where the first n user frames are (stacks.h) */
static void json_user_addrs(struct json *j, const struct stack_frames *f, int n)
{
	char hex[2 * STACK_BUILD_ID_MAX + 1];

	if (!f->uloc)
		return;
	json_key(j, "user_addrs");
	json_arr_begin(j);
	for (int i = 0; i < n; i++) {
		const struct frame_loc *l = &f->uloc[i];

		if (!l->addr) {
			json_null(j);
			continue;
		}
		json_obj_begin(j);
		json_kv_hex(j, "addr", l->addr);
		if (l->mod) {
			json_kv_str(j, "module", l->mod->path);
			if (l->file_addr)
				json_kv_hex(j, "file_addr", l->file_addr);
			if (l->mod->build_id_len) {
				for (int k = 0; k < l->mod->build_id_len; k++)
					snprintf(hex + 2 * k, 3, "%02x", l->mod->build_id[k]);
				json_kv_str(j, "build_id", hex);
			}
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

void stack_frames_json_user(struct json *j, const struct stack_frames *f, int n)
{
	json_kv_strs(j, "user_stack", f->u, n);
	json_user_addrs(j, f, n);
	if (!f->inline_marks)
		return;
	json_key(j, "user_frames");
	json_arr_begin(j);
	for (int i = 0; i < n; i++) {
		json_obj_begin(j);
		json_kv_str(j, "name", f->u[i]);
		json_kv_bool(j, "inlined", f->uinl[i]);
		json_obj_end(j);
	}
	json_arr_end(j);
}

void stack_frames_json(struct json *j, const struct stack_frames *f)
{
	stack_frames_json_user(j, f, f->un);
	json_kv_strs(j, "kernel_stack", f->k, f->kn);
}

/* ---- one entry per printed identity ---- */

struct stack_merge {
	struct hashmap *ids;	/* identity -> the index of its first entry */
	struct sbuf b;
};

struct stack_merge *stack_merge_new(void)
{
	struct stack_merge *m = xcalloc(1, sizeof(*m));

	m->ids = hashmap_new(0, sizeof(size_t));
	return m;
}

void stack_merge_free(struct stack_merge *m)
{
	if (!m)
		return;
	hashmap_free(m->ids);
	free(m->b.p);
	free(m);
}

size_t stack_merge_find(struct stack_merge *m, const void *head, size_t head_len,
			const struct stack_frames *f, size_t idx)
{
	struct sbuf *b = &m->b;
	int counts[2] = { f->kn, f->un };
	bool created;
	size_t *v;

	/* names are interned: equal names are equal pointers */
	b->n = 0;
	sb_put(b, head, head_len);
	sb_put(b, (const char *)counts, sizeof(counts));
	sb_put(b, (const char *)f->k, f->kn * sizeof(f->k[0]));
	sb_put(b, (const char *)f->u, f->un * sizeof(f->u[0]));
	if (f->inline_marks)
		sb_put(b, (const char *)f->uinl, f->un * sizeof(f->uinl[0]));
	v = hashmap_get_blob(m->ids, b->p, b->n, &created);
	if (created)
		*v = idx;
	return *v;
}

/* ---- folded output ---- */

struct fline {
	char *text;
	uint64_t value;
};

struct folded {
	VEC(struct fline) lines;
};

struct folded *folded_new(void)
{
	return xcalloc(1, sizeof(struct folded));
}

void folded_free(struct folded *fo)
{
	if (!fo)
		return;
	for (size_t i = 0; i < fo->lines.n; i++)
		free(fo->lines.v[i].text);
	vec_free(&fo->lines);
	free(fo);
}

/* A frame may not hold ';' (the separator, written ':'); the rest of a
 * name is escaped as everywhere else (escape.h): one line per stack */
static void sb_frame(struct sbuf *b, const char *s, const char *suffix)
{
	if (b->n)
		sb_put(b, ";", 1);
	sb_esc(b, s, true);
	if (suffix)
		sb_put(b, suffix, strlen(suffix));
}

void folded_add(struct folded *fo, const char *comm, const char **ufr, int un,
		const char **kfr, int kn, uint64_t value)
{
	struct sbuf b = { 0 };

	sb_frame(&b, comm && *comm ? comm : "[unknown]", NULL);
	for (int i = 0; i < un; i++)
		sb_frame(&b, ufr[i], NULL);
	for (int i = 0; i < kn; i++)
		sb_frame(&b, kfr[i], "_[k]");
	vec_push(&fo->lines, ((struct fline){ .text = b.p, .value = value }));
}

static int fline_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fline *)a)->text, ((const struct fline *)b)->text);
}

void folded_print(struct folded *fo, FILE *f)
{
	struct fline *l = fo->lines.v;
	size_t n = fo->lines.n;

	qsort(l, n, sizeof(*l), fline_cmp);
	for (size_t i = 0; i < n;) {
		uint64_t v = l[i].value;
		size_t j = i + 1;

		while (j < n && !strcmp(l[j].text, l[i].text))
			v += l[j++].value;
		fprintf(f, "%s %llu\n", l[i].text, (unsigned long long)v);
		i = j;
	}
}
