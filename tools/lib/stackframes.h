/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One record's stacks: from its stack ids (the stack engine's store) or
 * its --dwarf stack to named frames (stacksym.h), root first, with
 * markers for what could not be taken; their plain and JSON output; and
 * one entry per printed identity (stack_merge). */
#ifndef SUITE_STACKFRAMES_H
#define SUITE_STACKFRAMES_H

#include <stdio.h>

#include "stacksym.h"

struct json;

/* Plain output: frames (root first, as returned above) printed leaf
 * first, one per line after indent, escaped (escape.h) */
void stack_print_frames(FILE *f, const char *indent, const char *const *fr, int n);

/* Names for stacks that could not be taken: shown as a frame so nothing
 * is dropped silently */
#define FRAME_USER_LOST "[user stack lost]"
#define FRAME_KERNEL_LOST "[kernel stack lost]"

/* The frames of one record, root first, with the markers of what could
 * not be taken: FRAME_KERNEL_LOST / FRAME_USER_LOST as the only frame of
 * a lost stack, and a --dwarf stack cut short begins (root end) with
 * dwunw_end_frame()'s mark.  Names are the stacksym's. */
struct stack_frames {
	const char *u[STACK_UFRAMES_MAX + 2];	/* a dwarf mark, then the frames */
	const char *k[STACK_FRAMES_MAX + 1];
	int un, kn;
	bool ulost, klost;	/* the marker is the stack */
	/* --inline: uinl[i] is true when u[i] is the frame of an inlined
	 * function (inline_marks: the stacksym was made with --inline) */
	bool inline_marks;
	bool uinl[STACK_UFRAMES_MAX + 2];
	/* where the user frames are (u[i] at uloc[i]), interned by the
	 * stacksym (lives as long as it); NULL when un is 0 */
	const struct frame_loc *uloc;
};

/* Where one record's stacks are: ids of the stack engine (bpf/stackeng.h)
 * in the store, STACK_NONE for a stack not taken (kernel thread,
 * interrupt, user-mode fault, -u/-k), another mark for a lost one.  With
 * dw, ustack is instead the id of a stack unwound from a --dwarf sample
 * (dwunw_stack()).  kernel_nosched: drop the scheduler's own functions
 * from the kernel stack, as the kernel does when it walks the stack of a
 * task that is not running (offcputime: the same frames whether its
 * kernel stacks were taken at switch-out or at switch-in). */
struct dwunw;
struct stackstore;
struct stack_ref {
	__u64 kstack, ustack;
	__u32 pid;		/* the process of the user stack */
	__u64 image;		/* its image (bpf/announce.h exec id), 0: the latest */
	const struct dwunw *dw;	/* non-NULL: ustack is a dwunw stack id */
	bool kernel_nosched;
};

void stack_frames_resolve(struct stacksym *s, struct stackstore *st, const struct stack_ref *r,
			  struct stack_frames *f);

/* Parallel to a stack_frames: u[i] is where f->u[i] is, k[i] f->k[i] */
struct stack_locs {
	struct frame_loc u[STACK_UFRAMES_MAX + 2];
	struct frame_loc k[STACK_FRAMES_MAX + 1];
};
/* stack_frames_resolve(), and l filled when not NULL */
void stack_frames_resolve_at(struct stacksym *s, struct stackstore *st, const struct stack_ref *r,
			     struct stack_frames *f, struct stack_locs *l);
/* --dwarf: the id of an unwound stack (dwunw_stack(); < 0: lost) as a
 * key's ustack, above the stack engine's marks */
static inline __u64 stack_dwarf_key(int id)
{
	return id >= 0 ? STACK_ID_MIN + (__u64)id : STACK_LOST;
}
/* The stack_ref of a tool's BPF key: its kstack and ustack, and the
 * fields that hold the process and its image; with dwarf_dw (non-NULL),
 * ustack holds stack_dwarf_key() */
#define STACK_REF(key, pid_field, image_field, dwarf_dw)			\
	((struct stack_ref){ .kstack = (key)->kstack,				\
			     .ustack = (key)->ustack - ((dwarf_dw) ? STACK_ID_MIN : 0), \
			     .pid = (key)->pid_field, .image = (key)->image_field, \
			     .dw = (dwarf_dw) })
/* The same frames, kernel then user, name by name (names are interned:
 * equal names are equal pointers); 0 when identical */
int stack_frames_cmp(const struct stack_frames *a, const struct stack_frames *b);

/* One entry per printed identity: entries whose stacks differ only in
 * addresses that name the same (two return addresses in one function,
 * without --lines) print the same and are one entry to the reader.  A
 * stack_merge finds, for an entry's identity (head: the bytes of what
 * else it prints as its key, comm and ids; then its frames as printed),
 * the first entry that had it. */
struct stack_merge;
struct stack_merge *stack_merge_new(void);
void stack_merge_free(struct stack_merge *m);
/* The index of the first entry given with this identity; idx (this
 * entry's) when it is the first */
size_t stack_merge_find(struct stack_merge *m, const void *head, size_t head_len,
			const struct stack_frames *f, size_t idx);

/* Plain: the kernel frames, "--", the user frames, each leaf first and
 * indented by four spaces.  The "--" line stands before any user frames,
 * or with sep_between only between kernel and user frames. */
void stack_frames_print(FILE *f, const struct stack_frames *fr, bool sep_between);
/* JSON: "user_stack": [...], "kernel_stack": [...] (root first),
 * "user_addrs": [...], where each user frame is (null for a marker):
 * {"addr": "0x..", "module": path, "file_addr": "0x..", "build_id":
 * "hex"} (addr: the address looked up, a return address less one;
 * file_addr as in the names above; the last two when known), and
 * with --inline "user_frames": [{"name": ..., "inlined": bool}, ...],
 * the user frames again, each marked.
 * Folded: folded_add() with f->u, f->un, f->k, f->kn. */
void stack_frames_json(struct json *j, const struct stack_frames *f);
/* The user half of that, of the first n user frames */
void stack_frames_json_user(struct json *j, const struct stack_frames *f, int n);
/* One of the two, as o was opened (emit.h) */
struct emit;
void stack_frames_emit(struct emit *o, const struct stack_frames *f, bool sep_between);

/* losses_report() hints of the tools that take stacks with the stack
 * engine (bpf/losses.h kinds); a tool lists its own kinds after these */
#define STACK_LOSS_HINTS \
	STACK_WALK_LOSS_HINTS, \
	[LOSS_AGG_FULL] = "raise --max-entries"
/* the stack engine's own, for a tool whose aggregation map says its own */
#define STACK_WALK_LOSS_HINTS \
	[LOSS_STACK_RING] = "raise --stack-storage-size", \
	[LOSS_USTACK] = STACK_HINT_USTACK, \
	[LOSS_KSTACK] = "shown as " FRAME_KERNEL_LOST
#define STACK_HINT_USTACK "shown as " FRAME_USER_LOST
/* LOSS_RINGBUF where the ring buffer carries only --dwarf samples */
#define STACK_HINT_DWARF_RINGBUF "--dwarf: lower --stack-copy-size"

#endif
