/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Naming stack frames through the symbolizer (blazesym-shim/): a
 * process's user frames (by image: an exited process's frames keep the
 * mappings it had), the kernel's; names interned, living as long as the
 * stacksym; what could not be named counted, and said
 * (stacksym_stats.c).  Stacks come from BPF leaf first; the functions
 * here return frame names root first, as folded output and flame graphs
 * want them. */
#ifndef SUITE_STACKSYM_H
#define SUITE_STACKSYM_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
/* A tool that has --dwarf, not given: the note suggests it (off by
 * default: not every stack tool has --dwarf) */
void stacksym_set_dwarf_hint(struct stacksym *s, bool on);

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

/* ---- for stackframes.c and stacksym_stats.c ---- */

/* stacksym_user_image() with more: locs (n or more, may be NULL) gets
 * where each frame is, inl (may be NULL) whether it is an inlined
 * function's; at most cap frames */
int stacksym_user_at(struct stacksym *s, uint32_t pid, uint64_t image, const __u64 *ips,
		     int n, const char **out, struct frame_loc *locs, bool *inl, int cap);
/* stacksym_kernel() with where each frame is (locs may be NULL) */
int stacksym_kernel_at(struct stacksym *s, const __u64 *ips, int n, const char **out,
		       struct frame_loc *locs);
/* The n locations of one stack, interned: equal arrays are one pointer,
 * living as long as s (NULL when n is 0 or s NULL) */
const struct frame_loc *stacksym_intern_locs(struct stacksym *s, const struct frame_loc *l, int n);
/* Made with --inline (false for NULL) */
bool stacksym_inlined(const struct stacksym *s);
bool stacksym_dwarf_hint(const struct stacksym *s);
/* name (as returned by s) names no function: "[unknown]", "[MODULE]"
 * or "MODULE+0xADDR" */
bool stacksym_unresolved(const struct stacksym *s, const char *name);
/* A frame-pointer user stack (id ustack) of pid, n addresses, resolved:
 * counted once, for the note on stacks of one or two frames (s may be
 * NULL) */
void stacksym_count_short(struct stacksym *s, uint32_t pid, __u64 ustack, const __u64 *ips, int n);
/* Those counts (stackshort.h) */
struct stackshort;
const struct stackshort *stacksym_shorts_of(const struct stacksym *s);

#endif
