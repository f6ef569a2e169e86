// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <linux/types.h>
#include "stacks.h"
#include "common.h"
#include "escape.h"
#include "blazesym.h"
#include "announce.h"
#include "json.h"
#include "opts.h"
#include "run.h"

#include <stdlib.h>
#include <string.h>

/* An open-addressing table: (pid, addr) -> interned name.  Kernel
 * addresses use pid KPID. */
#define KPID UINT32_MAX

struct name_ent {
	uint64_t addr;
	uint64_t image;
	uint32_t pid;
	bool used;
	const char *name;
};

struct intern_ent {
	uint64_t hash;
	char *s;
};

struct stacksym {
	blaze_symbolizer *sym;
	struct name_ent *names;
	size_t names_cap, names_n;
	struct intern_ent *strs;
	size_t strs_cap, strs_n;
	struct stacksym_stats st;
	uint64_t capture_until;	/* while capturing during tracing: its deadline */
	bool capturing;
	bool slow_said;		/* "still naming frames" said */
	int khidden;		/* kernel addresses hidden: -1 not known yet */
};

/* A capture made while tracing (a process announced in the poll
 * callback) takes at most this long; what it leaves is loaded when the
 * report needs it */
#define CAPTURE_MAX_NS 1000000000ull
/* After the stop, naming frames longer than this is said */
#define REPORT_SLOW_NS 1000000000ull

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n, sz);

	if (!p) {
		msg_warn("out of memory");
		exit(EXIT_UNSUPPORTED);
	}
	return p;
}

static const char *intern(struct stacksym *s, const char *str)
{
	uint64_t h = hash_str(str);
	size_t i;

	if (2 * (s->strs_n + 1) > s->strs_cap) {
		size_t cap = s->strs_cap ? s->strs_cap * 2 : 1024;
		struct intern_ent *t = xcalloc(cap, sizeof(*t));

		for (size_t k = 0; k < s->strs_cap; k++) {
			if (!s->strs[k].s)
				continue;
			for (i = s->strs[k].hash & (cap - 1); t[i].s; i = (i + 1) & (cap - 1))
				;
			t[i] = s->strs[k];
		}
		free(s->strs);
		s->strs = t;
		s->strs_cap = cap;
	}
	for (i = h & (s->strs_cap - 1); s->strs[i].s; i = (i + 1) & (s->strs_cap - 1))
		if (s->strs[i].hash == h && !strcmp(s->strs[i].s, str))
			return s->strs[i].s;
	s->strs[i].hash = h;
	s->strs[i].s = strdup(str);
	if (!s->strs[i].s) {
		msg_warn("out of memory");
		exit(EXIT_UNSUPPORTED);
	}
	s->strs_n++;
	return s->strs[i].s;
}

static uint64_t name_hash(uint32_t pid, uint64_t image, uint64_t addr)
{
	return hash64(addr ^ ((uint64_t)pid << 40) ^ (image * 0x9e3779b97f4a7c15ULL));
}

static struct name_ent *name_slot(struct stacksym *s, uint32_t pid, uint64_t image,
				  uint64_t addr)
{
	size_t i;

	if (2 * (s->names_n + 1) > s->names_cap) {
		size_t cap = s->names_cap ? s->names_cap * 2 : 4096;
		struct name_ent *t = xcalloc(cap, sizeof(*t));

		for (size_t k = 0; k < s->names_cap; k++) {
			struct name_ent *e = &s->names[k];

			if (!e->used)
				continue;
			for (i = name_hash(e->pid, e->image, e->addr) & (cap - 1);
			     t[i].used; i = (i + 1) & (cap - 1))
				;
			t[i] = *e;
		}
		free(s->names);
		s->names = t;
		s->names_cap = cap;
	}
	for (i = name_hash(pid, image, addr) & (s->names_cap - 1);
	     s->names[i].used; i = (i + 1) & (s->names_cap - 1))
		if (s->names[i].addr == addr && s->names[i].pid == pid &&
		    s->names[i].image == image)
			return &s->names[i];
	return &s->names[i];
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

struct stacksym *stacksym_new(bool code_info)
{
	struct stacksym *s = xcalloc(1, sizeof(*s));
	blaze_symbolizer_opts o = {
		.type_size = sizeof(o),
		.code_info = code_info,
		.demangle = true,
	};

	s->sym = blaze_symbolizer_new_opts(&o);
	if (!s->sym) {
		msg_warn("cannot create the symbolizer: %s",
			 blaze_err_str(blaze_err_last()));
		exit(EXIT_UNSUPPORTED);
	}
	s->khidden = -1;
	blaze_symbolizer_set_interrupt(s->sym, sym_interrupt, s);
	blaze_symbolizer_set_notify(s->sym, sym_notice, s);
	return s;
}

void stacksym_free(struct stacksym *s)
{
	if (!s)
		return;
	blaze_symbolizer_free(s->sym);
	for (size_t i = 0; i < s->strs_cap; i++)
		free(s->strs[i].s);
	free(s->strs);
	free(s->names);
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

/* Name of one resolved symbol; unresolved: "[module]" or "[unknown]" */
static const char *sym_name(struct stacksym *s, const blaze_sym *b, bool kernel)
{
	char buf[512];

	if (b->name && b->name[0]) {
		if (b->code_info.file && b->code_info.line) {
			snprintf(buf, sizeof(buf), "%s (%s:%u)", b->name,
				 basename_of(b->code_info.file), b->code_info.line);
			return intern(s, buf);
		}
		return intern(s, b->name);
	}
	if (!kernel && b->module && b->module[0]) {
		snprintf(buf, sizeof(buf), "[%s]", basename_of(b->module));
		return intern(s, buf);
	}
	return intern(s, "[unknown]");
}

/* A broken frame-pointer chain can loop on one bad address: a run of
 * [unknown] frames says no more than one.  Then count what is named. */
static int finish(struct stacksym *s, bool kernel, const char **out, int len)
{
	const char *unknown = intern(s, "[unknown]");
	int n = 0;

	for (int i = 0; i < len; i++) {
		if (n && out[i] == unknown && out[n - 1] == unknown)
			continue;
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
			s->st.user_module_only += !unk && out[i][0] == '[';
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

/* Resolve n addresses (leaf first) into out (root first).  Return
 * addresses (all but the leaf) are looked up at addr - 1, inside the call. */
static int resolve(struct stacksym *s, uint32_t pid, uint64_t image, const __u64 *ips,
		   int n, const char **out)
{
	uint64_t addrs[STACK_FRAMES_MAX], miss[STACK_FRAMES_MAX];
	int idx[STACK_FRAMES_MAX], nmiss = 0, len = 0;
	bool kernel = pid == KPID;
	const blaze_syms *r;

	for (len = 0; len < n && len < STACK_FRAMES_MAX && ips[len]; len++)
		addrs[len] = len ? ips[len] - 1 : ips[len];
	for (int i = 0; i < len; i++) {
		struct name_ent *e = name_slot(s, pid, image, addrs[i]);

		if (e->used) {
			out[len - 1 - i] = e->name;
			continue;
		}
		idx[nmiss] = i;
		miss[nmiss++] = addrs[i];
	}
	if (!nmiss)
		return finish(s, kernel, out, len);
	say_if_slow(s);
	if (kernel) {
		blaze_symbolize_src_kernel src = { .type_size = sizeof(src) };

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
	for (int k = 0; k < nmiss; k++) {
		const char *name;
		struct name_ent *e;

		if (r && (size_t)k < r->cnt) {
			name = sym_name(s, &r->syms[k], kernel);
			if (kernel && !r->syms[k].name && kernel_hidden(s))
				s->st.kernel_hidden++;
			else if (!r->syms[k].name && r->syms[k].reason < STACKSYM_REASONS)
				s->st.reasons[r->syms[k].reason]++;
		} else {
			name = intern(s, "[unknown]");
		}
		out[len - 1 - idx[k]] = name;
		/* user names are cached only when found: a miss may be a
		 * library loaded later, or JIT code not yet in the perf map */
		if (kernel || (r && r->syms[k].name)) {
			e = name_slot(s, pid, image, miss[k]);
			e->used = true;
			e->pid = pid;
			e->image = image;
			e->addr = miss[k];
			e->name = name;
			s->names_n++;
		}
	}
	blaze_syms_free(r);
	return finish(s, kernel, out, len);
}

int stacksym_user_image(struct stacksym *s, uint32_t pid, uint64_t image,
			const __u64 *ips, int n, const char **out)
{
	return resolve(s, pid, image, ips, n, out);
}

int stacksym_user(struct stacksym *s, uint32_t pid, const __u64 *ips, int n,
		  const char **out)
{
	return resolve(s, pid, 0, ips, n, out);
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

int stacksym_kernel(struct stacksym *s, const __u64 *ips, int n,
		    const char **out)
{
	int len = resolve(s, KPID, 0, ips, n, out), drop = 0;

	/* out is root first: the machinery sits at the end (leaf side) */
	while (drop < len && is_tracing_frame(out[len - 1 - drop]))
		drop++;
	return len - drop;
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
	json_obj_end(j);
}

void stacksym_report(const struct stacksym *s)
{
	const struct stacksym_stats *st = &s->st;

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

void stack_print_frames(FILE *f, const char *indent, const char *const *fr, int n)
{
	for (int i = n - 1; i >= 0; i--) {
		fputs(indent, f);
		esc_fputs(fr[i], f);
		fputc('\n', f);
	}
}

/* ---- folded output ---- */

struct fline {
	char *text;
	uint64_t value;
};

struct folded {
	struct fline *lines;
	size_t n, cap;
};

struct folded *folded_new(void)
{
	return xcalloc(1, sizeof(struct folded));
}

void folded_free(struct folded *fo)
{
	if (!fo)
		return;
	for (size_t i = 0; i < fo->n; i++)
		free(fo->lines[i].text);
	free(fo->lines);
	free(fo);
}

struct sbuf {
	char *p;
	size_t n, cap;
};

static void sb_putc(struct sbuf *b, char c)
{
	if (b->n + 2 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		char *p = realloc(b->p, cap);

		if (!p) {
			msg_warn("out of memory");
			exit(EXIT_UNSUPPORTED);
		}
		b->p = p;
		b->cap = cap;
	}
	b->p[b->n++] = c;
	b->p[b->n] = 0;
}

/* A frame may not hold ';' (the separator, written ':'); the rest of a
 * name is escaped as everywhere else (escape.h): one line per stack */
static void sb_frame(struct sbuf *b, const char *s, const char *suffix)
{
	size_t n = strlen(s);

	if (b->n)
		sb_putc(b, ';');
	for (size_t i = 0; i < n;) {
		char piece[16];
		size_t used, l;

		if (s[i] == ';') {
			sb_putc(b, ':');
			i++;
			continue;
		}
		l = esc_step(s + i, n - i, piece, &used);
		for (size_t k = 0; k < l; k++)
			sb_putc(b, piece[k]);
		i += used;
	}
	for (; suffix && *suffix; suffix++)
		sb_putc(b, *suffix);
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
	if (fo->n == fo->cap) {
		size_t cap = fo->cap ? fo->cap * 2 : 256;
		struct fline *p = realloc(fo->lines, cap * sizeof(*p));

		if (!p) {
			msg_warn("out of memory");
			exit(EXIT_UNSUPPORTED);
		}
		fo->lines = p;
		fo->cap = cap;
	}
	fo->lines[fo->n].text = b.p;
	fo->lines[fo->n].value = value;
	fo->n++;
}

static int fline_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fline *)a)->text, ((const struct fline *)b)->text);
}

void folded_print(struct folded *fo, FILE *f)
{
	qsort(fo->lines, fo->n, sizeof(*fo->lines), fline_cmp);
	for (size_t i = 0; i < fo->n;) {
		uint64_t v = fo->lines[i].value;
		size_t j = i + 1;

		while (j < fo->n && !strcmp(fo->lines[j].text, fo->lines[i].text))
			v += fo->lines[j++].value;
		fprintf(f, "%s %llu\n", fo->lines[i].text, (unsigned long long)v);
		i = j;
	}
}
