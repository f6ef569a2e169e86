/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Strict option parsing shared by every tool (CLI.md).
 *
 * parse_*() return 0 or -1 with a message in err (unit-testable);
 * opt_*() wrap them and exit with EXIT_USAGE naming the option.
 * Each tool lists its options with the OPTS_* macros below and hands the
 * keys it does not handle itself to common_parse_opt(). */
#ifndef SUITE_OPTS_H
#define SUITE_OPTS_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpulist.h"
#include "idlist.h"
#include "parse.h"
#include "procfs.h"
#include "taskid.h"

struct common_opts {
	struct id_list pids;	/* -p */
	struct id_list tids;	/* -t */
	struct cpu_list cpus;	/* -C */
	double duration;	/* -d, seconds; 0: until Ctrl-C */
	bool folded;		/* -f */
	bool json;		/* -j */
	bool check;		/* --check */
};

/* Long-only option ids shared by the tools; tools number theirs from
 * OPT_TOOL_BASE up. */
enum {
	OPT_CHECK = 0x1000,
	/* the stack tools' options (struct stack_opts) */
	OPT_STACK_STORAGE = 0x1010,
	OPT_MAX_ENTRIES,
	OPT_LINES,
	OPT_DWARF,
	OPT_STACK_COPY,
	OPT_PPROF,
	OPT_INLINE,
	OPT_NO_PARAMS,
	OPT_SVG,
	OPT_DIFF,
	OPT_BTF = 0x1020,
	OPT_TOOL_BASE = 0x1100,
};

/* What offcputime, wakers and pfwatch share: map sizes, symbolization and
 * --dwarf.  Each tool lists the argp entries it takes (their texts name its
 * own defaults) and hands their keys to stack_parse_opt(). */
struct stack_opts {
	uint32_t stack_storage;	/* --stack-storage-size */
	uint32_t max_entries;	/* --max-entries */
	bool lines;		/* --lines */
	bool inlined;		/* --inline */
	bool no_params;		/* --no-params */
	bool dwarf;		/* --dwarf */
	uint32_t stack_copy;	/* --stack-copy-size */
	bool stack_copy_set;
	const char *pprof;	/* --pprof PATH ("-": stdout), or NULL */
	const char *svg;	/* --svg PATH, or NULL */
	const char *diff;	/* --diff BEFORE.folded, or NULL */
};

/* Handles the keys above, and the others with common_parse_opt(): a
 * stack tool's default case */
error_t stack_parse_opt(int key, char *arg, struct argp_state *state,
			struct stack_opts *s, struct common_opts *o);
/* Checks once all options are in: --stack-copy-size needs --dwarf */
void stack_opts_finish(const struct stack_opts *s);

#define OPTS_PID  { "pid", 'p', "PID", 0, "Trace every thread of process PID (comma list)", 0 }
#define OPTS_TID  { "tid", 't', "TID", 0, "Trace thread TID (comma list)", 0 }
#define OPTS_CPU(doc) { "cpu", 'C', "LIST", 0, doc, 0 }
#define OPTS_DURATION { "duration", 'd', "SECS", 0, "Stop after SECS seconds (default: until Ctrl-C)", 0 }
#define OPTS_FOLDED { "folded", 'f', NULL, 0, "Folded stacks, one line each (for flamegraph.pl)", 0 }
#define OPTS_JSON { "json", 'j', NULL, 0, "One JSON document on stdout", 0 }
#define OPTS_CHECK(doc) { "check", OPT_CHECK, NULL, 0, doc, 0 }
#define OPTS_VERBOSE { "verbose", 'v', NULL, 0, "libbpf and loader diagnostics on stderr", 0 }
/* --btf FILE: every tool that loads BPF */
#define OPTS_BTF { "btf", OPT_BTF, "FILE", 0, "The kernel's BTF from FILE, for a kernel " \
			  "built without /sys/kernel/btf/vmlinux", 0 }
#define OPTS_PPROF { "pprof", OPT_PPROF, "FILE", 0, "Also write the stacks as a gzipped pprof profile " \
			  "to FILE ('-': stdout, instead of the report)", 0 }
#define OPTS_SVG { "svg", OPT_SVG, "FILE", 0, "Also write the stacks as an interactive " \
			  "flame graph, one self-contained SVG file", 0 }
#define OPTS_DIFF { "diff", OPT_DIFF, "BEFORE.folded", 0, "Also set this run against an " \
			  "earlier one's folded output (-f): the stacks that grew and shrank most; " \
			  "with --svg, the flame graph coloured by the change", 0 }
/* --inline: every stack tool takes it the same way */
#define OPTS_INLINE { "inline", OPT_INLINE, NULL, 0, "Show the functions inlined at each user " \
			  "address as frames of their own (DWARF debug info; with --lines, each " \
			  "with its file:line)", 0 }
/* --no-params: the same in every stack tool */
#define OPTS_NO_PARAMS { "no-params", OPT_NO_PARAMS, NULL, 0, "C++ function names without " \
			  "their parameter lists (for very long template names)", 0 }
/* -h as a short form of --help (CLI.md), for the tools that list it */
/* the stack tools' options (struct stack_opts); whose: the stacks
 * unwound ("user stacks"), per: what one stack copy is taken for */
#define OPTS_STACK_STORAGE { "stack-storage-size", OPT_STACK_STORAGE, "N", 0, "Remember N " \
	"stacks in the kernel as sent to user space (default 16384; more are sent again, " \
	"never lost)", 0 }
#define OPTS_LINES { "lines", OPT_LINES, NULL, 0, "Show file:line of user frames where " \
	"debug info exists (slower)", 0 }
#define OPTS_DWARF(whose) { "dwarf", OPT_DWARF, NULL, 0, "Unwind " whose " with DWARF " \
	"(.eh_frame) in user space: whole stacks through code built without frame " \
	"pointers (costlier)", 0 }
#define OPTS_STACK_COPY(per) { "stack-copy-size", OPT_STACK_COPY, "BYTES", 0, "--dwarf: " \
	"bytes of user stack copied per " per " (default 8192, max 32768)", 0 }
#define OPTS_HELP_SHORT { NULL, 'h', NULL, OPTION_HIDDEN, "Give this help list", -1 }

/* Exit-on-error wrappers; "opt" names the option in the message */
uint64_t opt_u64(const char *opt, const char *arg, uint64_t min, uint64_t max);
double opt_seconds(const char *opt, const char *arg);
/* -p: every PID must exist now; -t: every TID.  Each id's identity is
 * read into l->who */
void opt_pids(const char *arg, struct id_list *l);
void opt_tids(const char *arg, struct id_list *l);
/* The same as -t for another option naming threads */
void opt_task_ids(const char *opt, const char *arg, struct id_list *l);
/* -C: every CPU must exist and be online */
void opt_cpus(const char *arg, struct cpu_list *l);

/* Handles -p -t -C -d -f -j --check -v --btf (and -h where OPTS_HELP_SHORT is
 * listed); ARGP_ERR_UNKNOWN otherwise. */
error_t common_parse_opt(int key, char *arg, struct argp_state *state,
			 struct common_opts *o);
/* Checks shared by every tool once all options are in (e.g. -f with -j) */
void common_opts_finish(struct common_opts *o);
/* Who is traced, for messages: "pid 1,2", "tid 3", "pid 1, tid 3" or
 * "all threads" */
void common_opts_target(const struct common_opts *o, char *buf, size_t size);
/* Calls fn once for every process among the -p and -t targets (the
 * processes whose symbols a tool captures before they can exit), however
 * many of its threads are named */
void common_opts_foreach_tgid(const struct common_opts *o,
			      void (*fn)(void *arg, uint32_t tgid), void *arg);

#endif
