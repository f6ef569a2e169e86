// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <linux/types.h>
#include "stackframes.h"
#include "stackstore.h"
#include "dwunw.h"
#include "json.h"
#include "emit.h"
#include "sbuf.h"
#include "hashmap.h"
#include "xalloc.h"
#include "procfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void stack_print_frames(FILE *f, const char *indent, const char *const *fr, int n)
{
	/* one write per stack, not three per frame (the report prints
	 * thousands); kept for the next stack */
	static struct sbuf b;
	size_t il = strlen(indent);

	b.n = 0;
	for (int i = n - 1; i >= 0; i--) {
		sbuf_put(&b, indent, il);
		sbuf_esc(&b, fr[i], false);
		sbuf_put(&b, "\n", 1);
	}
	if (b.n)
		fwrite(b.p, 1, b.n, f);
}

/* The scheduler's own functions: what the kernel's in_sched_functions()
 * calls so (its .sched.text and .spinlock.text), from /proc/kallsyms,
 * read once, up to the four symbols */
static bool in_sched_text(__u64 a)
{
	static const char *const names[4] = { "__sched_text_start", "__sched_text_end",
					      "__lock_text_start", "__lock_text_end" };
	static uint64_t at[4];
	static bool read;

	if (!read) {
		read = true;
		kallsyms_addrs(names, at, 4);
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
	return stacksym_kernel_at(s, ips, m, f->k, l ? l->k : NULL);
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
	f->uloc = stacksym_intern_locs(s, l->u, f->un);
}

static void frames_resolve(struct stacksym *s, struct stackstore *st, const struct stack_ref *r,
			   struct stack_frames *f, struct stack_locs *l)
{
	static const struct frame_loc none;

	f->un = f->kn = 0;
	f->ulost = f->klost = false;
	f->inline_marks = stacksym_inlined(s);	/* s NULL: no symbolizer (nothing to resolve) */
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
		f->un += stacksym_user_at(s, r->pid, r->image, dips, n, f->u + f->un,
				 l ? l->u + f->un : NULL, f->uinl + f->un, STACK_UFRAMES_MAX - f->un);
	} else if (r->ustack >= STACK_ID_MIN) {
		int n;
		const __u64 *ips = stackstore_get(st, r->ustack, &n);

		if (ips) {
			f->un = stacksym_user_at(s, r->pid, r->image, ips,
					n > STACK_FRAMES_MAX ? STACK_FRAMES_MAX : n, f->u,
					l ? l->u : NULL, f->uinl, STACK_UFRAMES_MAX);
			stacksym_count_short(s, r->pid, r->ustack, ips, n);
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

/* "user_addrs": where the first n user frames are (stackframes.h) */
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

void stack_frames_emit(struct emit *o, const struct stack_frames *f, bool sep_between)
{
	if (emit_json(o))
		stack_frames_json(o->j, f);
	else
		stack_frames_print(o->f, f, sep_between);
}

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
	sbuf_put(b, head, head_len);
	sbuf_put(b, (const char *)counts, sizeof(counts));
	sbuf_put(b, (const char *)f->k, f->kn * sizeof(f->k[0]));
	sbuf_put(b, (const char *)f->u, f->un * sizeof(f->u[0]));
	if (f->inline_marks)
		sbuf_put(b, (const char *)f->uinl, f->un * sizeof(f->uinl[0]));
	v = hashmap_get_blob(m->ids, b->p, b->n, &created);
	if (created)
		*v = idx;
	return *v;
}
