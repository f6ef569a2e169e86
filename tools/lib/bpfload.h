/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Loading a tool's BPF object: what the machine must have, libbpf's
 * messages, load and attach failures mapped to exit codes, map sizes, and
 * the choice between tp_btf and raw_tp programs. */
#ifndef SUITE_BPFLOAD_H
#define SUITE_BPFLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Route libbpf's messages to stderr: warnings always, debug with -v. */
void libbpf_setup_logging(void);

/* Check what every BPF tool needs before loading: privileges, kernel
 * BTF (its own, or --btf FILE: a file that cannot be read exits with
 * EXIT_USAGE) and ring buffers.  On failure prints what is missing and how
 * to fix it and exits with EXIT_UNSUPPORTED. SUITE_BTF_PATH overrides
 * /sys/kernel/btf/vmlinux (used by tests to simulate a kernel without
 * BTF). */
void bpf_env_check(void);
/* Kernel addresses hidden from us (/proc/kallsyms shows every one as 0):
 * true, with the cause and its fix in why (kernel.kptr_restrict, the
 * CAP_SYSLOG capability, kernel.perf_event_paranoid) */
bool kallsyms_hidden(char *why, size_t size);

/* After a failed skeleton load or attach: print what failed, and whether
 * the machine or the user is to blame; returns the exit code to use. */
int bpf_fail(const char *what, int err);

/* Set max_entries of a map before load; exits with EXIT_USAGE on error. */
struct bpf_map;
void map_resize(struct bpf_map *map, uint32_t entries);

/* Attach every autoloaded program of a skeleton-like object: prefers the
 * tp_btf program "X" and falls back to "X_raw" (raw_tp) if the former
 * fails to load; see bpf_prog_pick(). */
struct bpf_object;
struct bpf_program;
/* Select tp_btf or raw_tp flavours before load.  Each pair is named
 * "NAME_btf" / "NAME_raw"; when the kernel lacks BTF-enabled tracepoints
 * the _btf ones are disabled, else the _raw ones. Returns true if tp_btf
 * is used. */
bool bpf_pick_tp_flavour(struct bpf_object *obj);
/* Before bpf_pick_tp_flavour(): turn off both flavours of every program
 * whose tracepoint this kernel lacks (no btf_trace_NAME in vmlinux BTF),
 * for tools with optional tracepoints.  The names turned off are written
 * to missing (space separated, each once); returns how many. */
int bpf_disable_missing_tps(struct bpf_object *obj, char *missing, size_t size);
/* Is word one of the space-separated words of list? */
bool word_in(const char *list, const char *word);

/* The options every skeleton is opened with (X_bpf__open_opts): the
 * kernel's BTF from --btf FILE, if given */
struct bpf_object_open_opts;
const struct bpf_object_open_opts *bpf_open_opts(void);

/* Number of possible CPUs (libbpf_num_possible_cpus), at least 1 */
int ncpus_possible(void);

#endif
