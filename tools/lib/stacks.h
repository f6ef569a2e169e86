/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Stack symbolization through the shim, and folded-stack output (CLI.md).
 *
 * Stacks come from BPF leaf first; the functions here return frame names
 * root first, as folded output and flame graphs want them.  Names are
 * interned: they live as long as the stacksym. */
#ifndef SUITE_STACKS_H
#define SUITE_STACKS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "stackeng.h"

/* the frames of a stack, at most: the stack engine's */
#define STACK_FRAMES_MAX STACK_FRAMES
/* the user frames of a resolved stack, at most: with --inline, an
 * address may stand for several (a dwarf mark and the lost marker aside) */
#define STACK_UFRAMES_MAX (4 * STACK_FRAMES_MAX)

struct stacksym;

/* code_info: file:line of user frames (--lines); inlined: each user
 * address also stands for the functions inlined at it (--inline) */
struct stacksym *stacksym_new(bool code_info, bool inlined);
/* The stacksym of a stack tool's options (opts.h): --lines, --inline,
 * and --no-params (C++ names without their parameter lists) */
struct stack_opts;
struct stacksym *stacksym_for(const struct stack_opts *o);
void stacksym_free(struct stacksym *s);
/* Capture what is needed to name PID's frames after it exits.  While
 * tracing, a capture is bounded (what it leaves is loaded when the report
 * needs it) and gives up when a stop is asked for (run_exiting). */
void stacksym_cache_pid(struct stacksym *s, uint32_t pid);
/* The same for one image of PID: image is the process instance and exec
 * (bpf/announce.h IMAGE_ID; 0: not known).  A new image gets its own
 * mappings; the frames of an older one keep theirs.  When PID is no
 * longer the process of image (it exited and its pid went to another),
 * nothing is captured: those frames stay unnamed, counted. */
void stacksym_cache_image(struct stacksym *s, uint32_t pid, uint64_t image);
/* Kernel frames will be named (every record of the tool has a kernel
 * stack): a thread loads the kernel's symbols now, so that neither the
 * start, the run loop nor the report waits for /proc/kallsyms (read and
 * sorted: tens of milliseconds); the first kernel look-up waits for it
 * to be done. */
void stacksym_want_kernel(struct stacksym *s);
/* The same for every -p/-t target of the tool */
struct common_opts;
void stacksym_cache_targets(struct stacksym *s, const struct common_opts *o);
/* ring_buffer__new() callback for bpf/announce.bpf.h's announce_rb; ctx
 * is the struct stacksym: captures each announced process */
int stacksym_on_announce(void *ctx, void *data, size_t size);
/* ips: leaf first, zero-terminated or n long.  out: root first.
 * Unresolved frames are "MODULE+0xADDR" (the file's basename, and the
 * address looked up as an address of that ELF file: `addr2line -e FILE
 * 0xADDR` names it with the file's debug info; the offset into the file
 * when its headers could not be read), "[MODULE]" (no place in the file
 * known: the vDSO, a file that cannot be opened) or "[unknown]". */
int stacksym_user(struct stacksym *s, uint32_t pid, const __u64 *ips, int n,
		  const char **out);
/* The same for addresses taken in one image of PID (0: the latest) */
int stacksym_user_image(struct stacksym *s, uint32_t pid, uint64_t image,
			const __u64 *ips, int n, const char **out);
/* Kernel frames, without the tracing machinery (BPF programs,
 * bpf_trace_run*, __traceiter_*, perf_trace_*) on the leaf side. */
int stacksym_kernel(struct stacksym *s, const __u64 *ips, int n,
		    const char **out);
/* Frames named and not named so far, by kind */
#define STACKSYM_REASONS 8
struct stacksym_stats {
	uint64_t user_frames, user_unknown, user_module_only;
	uint64_t kernel_frames, kernel_unknown;
	/* failed look-ups by the symbolizer's reason code
	 * (blaze_symbolize_reason: unmapped, missing symbols, ...) */
	uint64_t reasons[STACKSYM_REASONS];
	/* failed kernel look-ups because kernel addresses are hidden
	 * (kernel.kptr_restrict, no CAP_SYSLOG): counted apart, under
	 * the reason STACKSYM_KERNEL_HIDDEN */
	uint64_t kernel_hidden;
	/* --inline: frames of inlined functions added; named user frames
	 * whose file had no DWARF to tell what is inlined there; inlined
	 * frames left out of a stack that had no more room */
	uint64_t user_inlined, user_no_inline_info, user_inlined_dropped;
};
#define STACKSYM_KERNEL_HIDDEN "kernel addresses hidden"
void stacksym_stats(const struct stacksym *s, struct stacksym_stats *st);
/* Those counts as the JSON object every stack tool reports under
 * "frames": {"user","user_unknown","user_module_only","kernel",
 * "kernel_unknown","failed_lookups":{reason: count}} (the key is written
 * by the caller) */
struct json;
void stacksym_json_stats(struct json *j, const struct stacksym *s);
/* One line on stderr when some frames could not be named; and once,
 * when most user stacks of a process (taken with frame pointers) stop
 * after one or two frames, that its code seems to lack frame pointers,
 * and (with the dwarf hint) that --dwarf gives whole stacks */
void stacksym_report(const struct stacksym *s);
/* A tool that has --dwarf, not given: the note suggests it (off by
 * default: not every stack tool has --dwarf) */
void stacksym_set_dwarf_hint(struct stacksym *s, bool on);

/* Folded stacks: lines gathered, merged by identical text, printed sorted */
struct folded;
struct folded *folded_new(void);
void folded_free(struct folded *fo);
/* comm; user frames (root first); kernel frames (root first, "_[k]" added) */
void folded_add(struct folded *fo, const char *comm, const char **ufr, int un,
		const char **kfr, int kn, uint64_t value);
void folded_print(struct folded *fo, FILE *f);

/* Plain output: frames (root first, as returned above) printed leaf
 * first, one per line after indent, escaped (escape.h) */
void stack_print_frames(FILE *f, const char *indent, const char *const *fr, int n);

/* Names for stacks that could not be taken: shown as a frame so nothing
 * is dropped silently */
#define FRAME_USER_LOST "[user stack lost]"
#define FRAME_KERNEL_LOST "[kernel stack lost]"

/* ---- one record's stacks, resolved ---- */

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

/* Where frames are, for formats that keep addresses (pprof.h): the
 * mapping of a user address (interned by the stacksym: equal mappings
 * are equal pointers), as the process mapped it */
#define STACK_BUILD_ID_MAX 32
struct stack_module {
	const char *path;
	uint64_t start, end, off;
	uint8_t build_id[STACK_BUILD_ID_MAX];
	uint8_t build_id_len;
	uint8_t pad[7];		/* a hash key: no holes */
};
/* addr: the address looked up (a return address less one), 0 for a
 * marker; mod: NULL for kernel frames, markers and user addresses in
 * no known file mapping */
struct frame_loc {
	uint64_t addr;
	const struct stack_module *mod;
	/* where addr is in mod's file, as an address of that ELF file (its
	 * p_vaddr convention: `addr2line -e FILE` takes it); 0: not known */
	uint64_t file_addr;
};
/* Parallel to a stack_frames: u[i] is where f->u[i] is, k[i] f->k[i] */
struct stack_locs {
	struct frame_loc u[STACK_UFRAMES_MAX + 2];
	struct frame_loc k[STACK_FRAMES_MAX + 1];
};
/* stack_frames_resolve(), and l filled when not NULL */
void stack_frames_resolve_at(struct stacksym *s, struct stackstore *st, const struct stack_ref *r,
			     struct stack_frames *f, struct stack_locs *l);
/* The stack_ref of a tool's BPF key: its kstack and ustack, and the
 * fields that hold the process and its image */
#define STACK_REF(key, pid_field, image_field, dwarf_dw)			\
	((struct stack_ref){ .kstack = (key)->kstack, .ustack = (key)->ustack,	\
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
