// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "kfeat.h"
#include "msg.h"
#include "procfs.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

const char *kernel_btf_path;

#define KERNEL_BTF_SYSFS "/sys/kernel/btf/vmlinux"

static const struct {
	const char *name;	/* for SUITE_KFEAT_OFF and messages */
	const char *what;	/* what a message says is missing */
	const char *since;	/* the first kernel that has it */
	const char *rodata;	/* its switch in bpf/compat.bpf.h, or NULL */
} feats[KF_COUNT] = {
	[KF_KERNEL_BTF] = { "kernel_btf", "the kernel's own BTF (/sys/kernel/btf/vmlinux, "
			    "CONFIG_DEBUG_INFO_BTF=y)", "5.5", NULL },
	[KF_RINGBUF] = { "ringbuf", "BPF ring buffers", "5.8", NULL },
	[KF_TASK_STACK] = { "task_stack", "bpf_get_task_stack()", "5.9", NULL },
	[KF_SWITCH_PREV_STATE] = { "switch_prev_state", "sched_switch's prev_state argument",
				   "5.18", "kf_switch_prev_state" },
	[KF_TASK_BTF] = { "task_btf", "bpf_get_current_task_btf()", "5.11", "kf_task_btf" },
	[KF_TASK_STORAGE] = { "task_storage", "task storage in tracing programs", "5.12",
			      "kf_task_storage" },
	[KF_TASK_PT_REGS] = { "task_pt_regs", "bpf_task_pt_regs()", "5.15", "kf_task_pt_regs" },
	[KF_COPY_FROM_USER_TASK] = { "copy_from_user_task", "bpf_copy_from_user_task() "
				     "(sleepable task iterators)", "5.18", NULL },
	[KF_ATTACH_COOKIE] = { "attach_cookie", "BPF attach cookies of perf events", "5.15",
			       "kf_attach_cookie" },
	[KF_LAZY_MAPS] = { "lazy_maps", "hash maps allocated on use in tracing programs",
			   "6.1 (5.10 without PREEMPT_RT)", NULL },
	[KF_ATOMICS] = { "atomics", "BPF atomic or and compare-and-swap", "5.12", NULL },
	[KF_INHERIT_THREAD] = { "inherit_thread", "perf events inherited by threads only",
				"5.13", NULL },
	[KF_PREEMPT_RT] = { "preempt_rt", "PREEMPT_RT", "-", NULL },
	[KF_STEAL_TIME] = { "steal_time", "the per-CPU variables steal_time and runqueues in "
			    "the kernel's BTF (x86 KVM guest kernels), cfs_rq.rq", "5.10",
			    "kf_steal_time" },
	[KF_RINGBUF_NEST] = { "ringbuf_nest", "a BPF ring buffer lock that an interrupt may "
			      "take (raw on PREEMPT_RT)", "6.0 (any without PREEMPT_RT)",
			      "kf_ringbuf_nest" },
	[KF_USTACK_WALK] = { "ustack_walk", "user stacks walked by the BPF program (x86-64, "
			     "bpf_task_pt_regs(), vm.mmap_min_addr of a page or more)", "5.15",
			     "kf_ustack_walk" },
};

static signed char known[KF_COUNT];	/* 0: not probed; 1 has; -1 lacks */

const char *kfeat_name(enum kfeat f)
{
	return feats[f].name;
}

const char *kfeat_since(enum kfeat f)
{
	return feats[f].since;
}

/* ---- the kernel's BTF ---- */

static struct btf *kbtf;
static bool kbtf_tried;

const struct btf *kernel_btf(void)
{
	if (kbtf_tried)
		return kbtf;
	kbtf_tried = true;
	kbtf = btf__parse(kernel_btf_path ? kernel_btf_path : KERNEL_BTF_SYSFS, NULL);
	if (!kbtf || libbpf_get_error(kbtf))
		kbtf = NULL;
	return kbtf;
}

int kernel_tp_args(const char *tp)
{
	const struct btf *b = kernel_btf();
	const struct btf_type *t;
	char name[160];
	int id;

	if (!b)
		return -1;
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(b, name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return -1;
	/* typedef -> pointer -> prototype (void *data, the arguments...) */
	t = btf__type_by_id(b, id);
	t = t ? btf__type_by_id(b, t->type) : NULL;
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(b, t->type);
	if (!t || !btf_is_func_proto(t) || !btf_vlen(t))
		return -1;
	return btf_vlen(t) - 1;
}

/* ---- probes ---- */

static bool helper_ok(enum bpf_prog_type type, enum bpf_func_id id)
{
	return libbpf_probe_bpf_helper(type, id, NULL) == 1;
}

/* Hash maps allocated on use in tracing programs: safe since the BPF
 * memory allocator (6.1).  Before it a PREEMPT_RT kernel refuses them and
 * any other kernel warns on its console as it loads the program, so this
 * is a probe of the kernel's types, not a load */
static bool lazy_maps_ok(void)
{
	const struct btf *b = kernel_btf();

	return b && btf__find_by_name_kind(b, "bpf_mem_alloc", BTF_KIND_STRUCT) > 0;
}

/* The kernel's own BTF can be read (not just opened: an empty file or
 * /dev/null in its place is none) */
static bool own_btf_ok(void)
{
	struct btf *b;

	if (!kernel_btf_path)
		return kernel_btf();
	b = btf__parse(KERNEL_BTF_SYSFS, NULL);
	if (!b || libbpf_get_error(b))
		return false;
	btf__free(b);
	return true;
}

/* A program that loads: insns, n of them (raw_tp, GPL) */
static bool prog_loads(const struct bpf_insn *insns, size_t n)
{
	int fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL, "GPL", insns, n, NULL);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* An atomic or (5.12: before, only add) on the stack */
static bool atomics_ok(void)
{
	const struct bpf_insn insns[] = {
		/* *(u64 *)(r10 - 8) = 0 */
		{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -8 },
		/* r1 = 1 */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1 },
		/* lock *(u64 *)(r10 - 8) |= r1 */
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1, .off = -8, .imm = BPF_OR },
		/* return 0 */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return prog_loads(insns, ARRAY_SIZE(insns));
}

/* A software event on this thread, inherited by threads only */
static bool inherit_thread_ok(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY, .disabled = 1,
		.inherit = 1, .inherit_thread = 1,
	};
	int fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* &steal_time - &runqueues in a CPU's per-CPU area, from the offsets of
 * the two variables in the kernel BTF's section of per-CPU variables;
 * 0 if either is missing, or a task's cfs_rq does not lead to its run
 * queue (cfs_rq.rq: CONFIG_FAIR_GROUP_SCHED) */
static int64_t rq_delta_of(const struct btf *b);

int64_t kfeat_steal_rq_delta(void)
{
	static int64_t delta;
	static bool known;

	if (!known) {
		delta = rq_delta_of(kernel_btf());
		known = true;
	}
	return delta;
}

static int64_t rq_delta_of(const struct btf *b)
{
#if !defined(__x86_64__)
	return 0;
#endif
	int st = -1, rq = -1, n;
	int64_t off_st = -1, off_rq = -1;
	bool cfs_rq_rq = false;

	if (!b)
		return 0;
	st = btf__find_by_name_kind(b, "steal_time", BTF_KIND_VAR);
	rq = btf__find_by_name_kind(b, "runqueues", BTF_KIND_VAR);
	n = btf__type_cnt(b);
	if (st <= 0 || rq <= 0)
		return 0;
	for (int id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		const char *name = t ? btf__name_by_offset(b, t->name_off) : NULL;

		if (t && btf_is_struct(t) && name && !strcmp(name, "cfs_rq")) {
			const struct btf_member *m = btf_members(t);

			for (int i = 0; i < btf_vlen(t); i++, m++)
				if (!strcmp(btf__name_by_offset(b, m->name_off), "rq"))
					cfs_rq_rq = true;
		}
		if (!t || !btf_is_datasec(t) || !name || strcmp(name, ".data..percpu"))
			continue;
		const struct btf_var_secinfo *v = btf_var_secinfos(t);

		for (int i = 0; i < btf_vlen(t); i++, v++) {
			if ((int)v->type == st)
				off_st = v->offset;
			if ((int)v->type == rq)
				off_rq = v->offset;
		}
	}
	if (!cfs_rq_rq || off_st < 0 || off_rq < 0 || off_st == off_rq)
		return 0;
	return off_st - off_rq;
}

/* The per-CPU variable steal_time, a struct kvm_steal_time, in the
 * kernel's BTF (x86 kernels built with CONFIG_KVM_GUEST, BTF with
 * per-CPU variables), and the way to it from a task: the per-CPU
 * runqueues and cfs_rq.rq (CONFIG_FAIR_GROUP_SCHED) (tools/lib/steal.c) */
static bool steal_time_ok(void)
{
#if defined(__x86_64__)
	const struct btf *b = kernel_btf();
	const struct btf_type *t;
	int id;

	if (!b)
		return false;
	id = btf__find_by_name_kind(b, "steal_time", BTF_KIND_VAR);
	t = id > 0 ? btf__type_by_id(b, id) : NULL;
	t = t ? btf__type_by_id(b, t->type) : NULL;
	return t && btf_is_struct(t) &&
	       !strcmp(btf__name_by_offset(b, t->name_off), "kvm_steal_time") &&
	       kfeat_steal_rq_delta() != 0;
#else
	return false;
#endif
}

static bool preempt_rt(void)
{
	FILE *f = fopen("/sys/kernel/realtime", "r");
	struct utsname u;
	int c = f ? fgetc(f) : EOF;

	if (f)
		fclose(f);
	if (c == '1')
		return true;
	return !uname(&u) && strstr(u.version, "PREEMPT_RT");
}

/* Is the lock of a BPF ring buffer (struct bpf_ringbuf's spinlock) one
 * that does not sleep on PREEMPT_RT?  Before 6.0 it is a spinlock_t,
 * which sleeps there; since, a raw_spinlock_t or an rqspinlock_t.  Not
 * found: taken to sleep. */
static bool ringbuf_lock_raw(void)
{
	const struct btf *b = kernel_btf();
	const struct btf_type *t;
	const struct btf_member *m;
	int id = b ? btf__find_by_name_kind(b, "bpf_ringbuf", BTF_KIND_STRUCT) : -1;

	t = id > 0 ? btf__type_by_id(b, id) : NULL;
	if (!t)
		return false;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(b, m->name_off), "spinlock"))
			continue;
		t = btf__type_by_id(b, m->type);
		return t && strcmp(btf__name_by_offset(b, t->name_off), "spinlock_t") != 0;
	}
	return false;
}

static bool probe(enum kfeat f)
{
	switch (f) {
	case KF_KERNEL_BTF:
		/* tp_btf and BTF pointers need the running kernel's own:
		 * a --btf file serves CO-RE only */
		return own_btf_ok();
	case KF_RINGBUF:
		return libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1;
	case KF_TASK_STACK:
		return helper_ok(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_get_task_stack);
	case KF_SWITCH_PREV_STATE:
		return kernel_tp_args("sched_switch") >= 4;
	case KF_TASK_BTF:
		return kfeat_has(KF_KERNEL_BTF) &&
		       helper_ok(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_get_current_task_btf);
	case KF_TASK_STORAGE:
		return kfeat_has(KF_TASK_BTF) &&
		       helper_ok(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_task_storage_get);
	case KF_TASK_PT_REGS:
		return kfeat_has(KF_TASK_BTF) &&
		       helper_ok(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_task_pt_regs);
	case KF_COPY_FROM_USER_TASK:
		/* a helper of sleepable programs only, which the helper probe
		 * (a raw tracepoint) cannot load: its function in the BTF */
		return kfeat_has(KF_TASK_PT_REGS) &&
		       btf__find_by_name_kind(kernel_btf(), "bpf_copy_from_user_task",
					      BTF_KIND_FUNC) > 0;
	case KF_ATTACH_COOKIE:
		return helper_ok(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_get_attach_cookie);
	case KF_LAZY_MAPS:
		return lazy_maps_ok();
	case KF_ATOMICS:
		return atomics_ok();
	case KF_INHERIT_THREAD:
		return inherit_thread_ok();
	case KF_PREEMPT_RT:
		return preempt_rt();
	case KF_STEAL_TIME:
		return steal_time_ok();
	case KF_RINGBUF_NEST:
		return !preempt_rt() || ringbuf_lock_raw();
	case KF_USTACK_WALK:
#if defined(__x86_64__)
		return kfeat_has(KF_TASK_PT_REGS) && sysctl_long("/proc/sys/vm/mmap_min_addr", 0) >= 4096;
#else
		return false;
#endif
	case KF_COUNT:
		break;
	}
	return false;
}

/* Is f named in SUITE_KFEAT_OFF? */
static bool turned_off(enum kfeat f)
{
	const char *off = getenv("SUITE_KFEAT_OFF");
	size_t l = strlen(feats[f].name);

	for (const char *p = off; p && *p; p += strcspn(p, ","), p += *p == ',') {
		if (!strncmp(p, feats[f].name, l) && (p[l] == ',' || !p[l]))
			return true;
	}
	return false;
}

bool kfeat_has(enum kfeat f)
{
	if (f >= KF_COUNT)
		return false;
	if (!known[f])
		known[f] = !turned_off(f) && probe(f) ? 1 : -1;
	return known[f] > 0;
}

void kfeat_require(enum kfeat f, const char *what)
{
	struct utsname u;

	if (kfeat_has(f))
		return;
	if (uname(&u))
		strcpy(u.release, "unknown");
	die_unsupported("%s needs %s (Linux %s or newer; this kernel: %s)", what,
			feats[f].what, feats[f].since, u.release);
}

/* ---- the object adapted ---- */

/* The rodata variable name of obj (a bool or an unsigned number) set to
 * val, if obj has it */
static void rodata_set(struct bpf_object *obj, const char *name, uint64_t val)
{
	const struct btf *b = bpf_object__btf(obj);
	struct bpf_map *map;

	if (!b)
		return;
	bpf_object__for_each_map(map, obj) {
		const char *mn = bpf_map__name(map);
		const struct btf_type *sec;
		const struct btf_var_secinfo *v;
		size_t size;
		char *data;

		if (!bpf_map__is_internal(map) || !strstr(mn, ".rodata"))
			continue;
		sec = btf__type_by_id(b, bpf_map__btf_value_type_id(map));
		data = (char *)bpf_map__initial_value(map, &size);
		if (!sec || !btf_is_datasec(sec) || !data)
			continue;
		v = btf_var_secinfos(sec);
		for (int i = 0; i < btf_vlen(sec); i++, v++) {
			const struct btf_type *var = btf__type_by_id(b, v->type);

			if (!var || strcmp(btf__name_by_offset(b, var->name_off), name) ||
			    v->offset > size || size - v->offset < v->size)
				continue;
			if (v->size == 1)
				data[v->offset] = val != 0;
			else if (v->size == 4)
				*(uint32_t *)(data + v->offset) = val > UINT32_MAX ? UINT32_MAX : val;
			else if (v->size == 8)
				*(uint64_t *)(data + v->offset) = val;
		}
	}
}

/* Entries of the inflight maps made hash maps (bpf/sysregs.bpf.h): the
 * threads with a call in progress, and those gone since (LRU) */
#define INFLIGHT_HASH_ENTRIES 32768

/* A map made preallocated takes all its memory at once: its entries are
 * held to PREALLOC_CAP_BYTES (at least PREALLOC_CAP_MIN), which its
 * drains and its loss counters (full map) then answer for */
#define PREALLOC_CAP_BYTES (8u << 20)
#define PREALLOC_CAP_MIN 1024u

static void prealloc_cap(struct bpf_map *map)
{
	__u32 size = bpf_map__value_size(map) + bpf_map__key_size(map);
	__u32 cap = PREALLOC_CAP_BYTES / (size ? size : 1);

	if (cap < PREALLOC_CAP_MIN)
		cap = PREALLOC_CAP_MIN;
	if (bpf_map__max_entries(map) > cap) {
		if (verbose)
			msg_warn("map %s preallocated: %u entries, not %u", bpf_map__name(map),
				 cap, bpf_map__max_entries(map));
		bpf_map__set_max_entries(map, cap);
	}
}

void kfeat_apply(struct bpf_object *obj)
{
	bool prealloc = !kfeat_has(KF_LAZY_MAPS) || kfeat_has(KF_PREEMPT_RT);
	struct bpf_map *map;

	for (int f = 0; f < KF_COUNT; f++) {
		if (feats[f].rodata)
			rodata_set(obj, feats[f].rodata, kfeat_has(f));
	}
	/* the user-stack walk stops where the kernel's read would fail, and
	 * takes as many frames as bpf_get_stack() would */
	rodata_set(obj, "ustack_min_addr", (uint64_t)sysctl_long("/proc/sys/vm/mmap_min_addr", 0));
	rodata_set(obj, "ustack_max", (uint64_t)sysctl_long("/proc/sys/kernel/perf_event_max_stack", 127));
	bpf_object__for_each_map(map, obj) {
		enum bpf_map_type type = bpf_map__type(map);
		__u32 flags = bpf_map__map_flags(map);

		if (type == BPF_MAP_TYPE_TASK_STORAGE && !kfeat_has(KF_TASK_STORAGE)) {
			bpf_map__set_type(map, BPF_MAP_TYPE_LRU_HASH);
			bpf_map__set_map_flags(map, 0);
			bpf_map__set_max_entries(map, INFLIGHT_HASH_ENTRIES);
		} else if (type == BPF_MAP_TYPE_HASH && (flags & BPF_F_NO_PREALLOC) && prealloc) {
			/* on PREEMPT_RT a map allocated on use takes a
			 * sleeping lock, and a program that finds it held
			 * by a preempted task fails its update (-EBUSY):
			 * preallocated maps take a raw spinlock */
			bpf_map__set_map_flags(map, flags & ~BPF_F_NO_PREALLOC);
			prealloc_cap(map);
		}
	}
	if (verbose) {
		char line[512];
		size_t off = 0;

		for (int f = 0; f < KF_COUNT && off < sizeof(line); f++)
			off += snprintf(line + off, sizeof(line) - off, " %s%s",
					kfeat_has(f) ? "" : "!", feats[f].name);
		msg_warn("kernel features:%s", line);
	}
}
