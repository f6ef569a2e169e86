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

#define STACK_FRAMES_MAX 127

struct stacksym;

struct stacksym *stacksym_new(bool code_info);
void stacksym_free(struct stacksym *s);
/* Capture what is needed to name PID's frames after it exits.  While
 * tracing, a capture is bounded (what it leaves is loaded when the report
 * needs it) and gives up when a stop is asked for (run_exiting). */
void stacksym_cache_pid(struct stacksym *s, uint32_t pid);
/* The same for one image of PID: image is the kernel's task->self_exec_id
 * (changed by every exec; 0: not known).  A new image gets its own
 * mappings; the frames of an older one keep theirs. */
void stacksym_cache_image(struct stacksym *s, uint32_t pid, uint64_t image);
/* The same for every -p/-t target of the tool */
struct common_opts;
void stacksym_cache_targets(struct stacksym *s, const struct common_opts *o);
/* ring_buffer__new() callback for bpf/announce.bpf.h's announce_rb; ctx
 * is the struct stacksym: captures each announced process */
int stacksym_on_announce(void *ctx, void *data, size_t size);
/* ips: leaf first, zero-terminated or n long.  out: root first.
 * Unresolved frames are "[MODULE]" (basename) or "[unknown]". */
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
};
#define STACKSYM_KERNEL_HIDDEN "kernel addresses hidden"
void stacksym_stats(const struct stacksym *s, struct stacksym_stats *st);
/* Those counts as the JSON object every stack tool reports under
 * "frames": {"user","user_unknown","user_module_only","kernel",
 * "kernel_unknown","failed_lookups":{reason: count}} (the key is written
 * by the caller) */
struct json;
void stacksym_json_stats(struct json *j, const struct stacksym *s);
/* One line on stderr when some frames could not be named */
void stacksym_report(const struct stacksym *s);

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

#endif
