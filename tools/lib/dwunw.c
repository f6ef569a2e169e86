// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* DWARF unwinding of user-stack samples (bpf/ustack.h) with libdw's
 * frame API: the registers and the stack copy taken in BPF stand in for
 * the live thread.  One Dwfl per process (modules from /proc/PID/maps);
 * libdw keeps each module's CFI once loaded. */
#include <linux/types.h>
#include "dwunw.h"
#include "msg.h"
#include "opts.h"
#include "vec.h"
#include "xalloc.h"
#include "hashmap.h"
#include "blazesym.h"

#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

struct proc {
	__u32 pid;
	Dwfl *dwfl;
	bool attached;
	/* the sample being unwound, and what went wrong reading it */
	const struct ustack_sample *cur;
	bool out_of_copy, page_absent;	/* the walk read past the copy, or a page not in it */
};

#define DW_MAX_FRAMES 127

/* unwound stacks, interned: identical ones share an id.  Their frames
 * are the key in index (after the end), which keeps them. */
struct dstack {
	int n;
	enum dwunw_end end;
	const __u64 *ips;
};

struct dwunw {
	struct hashmap *procs;	/* pid -> struct proc */
	struct dwunw_stats st;
	struct dstack *stacks;
	int nstacks;
	size_t capstacks;
	struct hashmap *index;	/* (end, frames) -> id */
	struct hashmap *pend;	/* seq -> id: samples whose record has not come */
};

/* The files of a process are opened as the symbolizer opens them
 * (blazesym.h: non-blocking, a regular file checked on the descriptor), so
 * that a FIFO named by a debuglink or put in place of a mapped file cannot
 * hold the tool.  Deleted files and the vDSO are libdwfl's (from memory). */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	size_t len = strlen(name);
	int fd;

	if (name[0] != '/' || (len > 10 && !strcmp(name + len - 10, " (deleted)")))
		return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
	fd = blaze_open_elf_file(name);
	if (fd < 0)
		return -1;
	*file_name = strdup(name);
	*elfp = NULL;
	return fd;
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink,
			  GElf_Word crc, char **debuginfo_file_name)
{
	const unsigned char *id = NULL;
	GElf_Addr id_vaddr;
	int n = dwfl_module_build_id(mod, &id, &id_vaddr);

	return blaze_open_debug_file(file_name ? file_name : modname, id, n > 0 ? (size_t)n : 0,
				     debuglink, crc);
}

static char *debuginfo_path;

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct proc *p = arg;

	if (*thread_argp)
		return 0;
	*thread_argp = p;
	return p->cur ? (pid_t)p->cur->tid : 0;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct proc *p = arg;

	*thread_argp = p;
	return p->cur && (pid_t)p->cur->tid == tid;
}

/* The page of the copy that holds addr (0: the one at sp) */
static unsigned copy_page(__u64 sp, __u64 addr)
{
	__u64 first_end = (sp | (USTACK_PAGE - 1)) + 1;

	return addr < first_end ? 0 : 1 + (unsigned)((addr - first_end) / USTACK_PAGE);
}

/* Only the stack copy is memory, without its absent pages: anything else
 * ends the walk */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct proc *p = arg;
	const struct ustack_sample *s = p->cur;
	__u64 sp = s->regs[USTACK_SP];
	unsigned first, last;

	if (addr < sp || addr + sizeof(*result) < addr) {
		p->out_of_copy = true;
		return false;
	}
	/* a page BPF could not read (also past the last one sent) */
	first = copy_page(sp, addr);
	last = copy_page(sp, addr + sizeof(*result) - 1);
	if (first < USTACK_CHUNKS && (s->absent & ((2u << (last < USTACK_CHUNKS ? last :
							     USTACK_CHUNKS - 1)) - (1u << first)))) {
		p->page_absent = true;
		return false;
	}
	if (addr + sizeof(*result) > sp + s->len) {
		p->out_of_copy = true;
		return false;
	}
	memcpy(result, s->stack + (addr - sp), sizeof(*result));
	return true;
}

static bool set_regs(Dwfl_Thread *thread, void *arg)
{
	struct proc *p = arg;
	const __u64 *r = p->cur->regs;
#if defined(__x86_64__)
	/* DWARF numbers: 3 rbx, 6 rbp, 7 rsp, 12-15 r12-r15, 16 rip */
	static const int num[USTACK_REGS] = { 16, 7, 6, 3, 12, 13, 14, 15 };
#elif defined(__aarch64__)
	/* x29 fp, x30 lr, x19-x22; 31 sp; pc apart */
	static const int num[USTACK_REGS] = { -1, 31, 29, 30, 19, 20, 21, 22 };
#else
	static const int num[USTACK_REGS] = { -1, -1, -1, -1, -1, -1, -1, -1 };
#endif

	for (int i = 0; i < USTACK_REGS; i++) {
		Dwarf_Word w = r[i];

		if (num[i] >= 0 && !dwfl_thread_state_registers(thread, num[i], 1, &w))
			return false;
	}
	dwfl_thread_state_register_pc(thread, r[USTACK_IP]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_regs,
};

static void proc_drop_dwfl(struct proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->attached = false;
}

static bool proc_load(struct proc *p)
{
	proc_drop_dwfl(p);
	p->dwfl = dwfl_begin(&proc_callbacks);
	if (!p->dwfl)
		return false;
	dwfl_report_begin(p->dwfl);
	if (dwfl_linux_proc_report(p->dwfl, p->pid) ||
	    dwfl_report_end(p->dwfl, NULL, NULL)) {
		proc_drop_dwfl(p);
		return false;
	}
	p->attached = dwfl_attach_state(p->dwfl, NULL, p->pid, &thread_callbacks, p);
	if (!p->attached) {
		proc_drop_dwfl(p);
		return false;
	}
	return true;
}

static struct proc *proc_get(struct dwunw *u, __u32 pid)
{
	struct proc *p = hashmap_get(u->procs, &pid, NULL);

	p->pid = pid;
	return p;
}

struct dwunw *dwunw_new(void)
{
	struct dwunw *u = xcalloc(1, sizeof(struct dwunw));

	u->index = hashmap_new(0, sizeof(int));
	u->procs = hashmap_new(sizeof(__u32), sizeof(struct proc));
	u->pend = hashmap_new(sizeof(__u64), sizeof(int));
	return u;
}

static int stack_intern(struct dwunw *u, const __u64 *ips, int n, enum dwunw_end end)
{
	__u64 key[1 + DW_MAX_FRAMES] = { end };
	bool created;
	int *id;

	memcpy(key + 1, ips, n * sizeof(*ips));
	id = hashmap_get_blob(u->index, key, (1 + n) * sizeof(*key), &created);
	if (!created)
		return *id;
	array_reserve(u->stacks, u->capstacks, (size_t)u->nstacks + 1);
	u->stacks[u->nstacks] = (struct dstack){
		.n = n, .end = end,
		.ips = (const __u64 *)hashmap_key(u->index, id) + 1,
	};
	*id = u->nstacks;
	return u->nstacks++;
}

int dwunw_add_sample(struct dwunw *u, const struct ustack_sample *s)
{
	__u64 ips[DW_MAX_FRAMES];
	enum dwunw_end end;
	int n = dwunw_unwind(u, s, ips, DW_MAX_FRAMES, &end);
	int id = stack_intern(u, ips, n, end);

	*(int *)hashmap_get(u->pend, &s->seq, NULL) = id;
	return id;
}

__u32 dwunw_on_record(struct dwunw *u, const void *data, size_t size)
{
	__u32 type = size >= sizeof(__u32) ? *(const __u32 *)data : 0;

	if (type == USTACK_EV_SAMPLE && size >= offsetof(struct ustack_sample, stack) &&
	    ((const struct ustack_sample *)data)->len <= size - offsetof(struct ustack_sample, stack))
		dwunw_add_sample(u, data);
	return type;
}

static int pending_find(struct dwunw *u, __u64 seq, bool take)
{
	int *p = hashmap_lookup(u->pend, &seq), id;

	if (!p)
		return -1;
	id = *p;
	if (take)
		hashmap_del(u->pend, &seq);
	return id;
}

int dwunw_take(struct dwunw *u, __u64 seq)
{
	return pending_find(u, seq, true);
}

int dwunw_peek(struct dwunw *u, __u64 seq)
{
	return pending_find(u, seq, false);
}

const __u64 *dwunw_stack(const struct dwunw *u, int id, int *n, enum dwunw_end *end)
{
	if (id < 0 || id >= u->nstacks) {
		*n = 0;
		*end = DWUNW_NO_PROCESS;
		return NULL;
	}
	*n = u->stacks[id].n;
	*end = u->stacks[id].end;
	return u->stacks[id].ips;
}

static void proc_free(const void *key, void *val, void *arg)
{
	proc_drop_dwfl(val);
}

void dwunw_free(struct dwunw *u)
{
	if (!u)
		return;
	hashmap_each(u->procs, proc_free, NULL);
	hashmap_free(u->procs);
	hashmap_free(u->pend);
	free(u->stacks);
	hashmap_free(u->index);
	free(u);
}

bool dwunw_cache_pid(struct dwunw *u, __u32 pid)
{
	struct proc *p = proc_get(u, pid);

	return p && (p->dwfl || proc_load(p));
}

void dwunw_forget(struct dwunw *u, __u32 pid)
{
	struct proc *p = proc_get(u, pid);

	if (p)
		proc_drop_dwfl(p);
}

struct walk {
	__u64 *ips;
	int n, max;
};

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	if (w->n >= w->max)
		return DWARF_CB_ABORT;
	/* like frame-pointer stacks: the leaf is exact, the others are
	 * return addresses (the symbolizer looks them up at pc - 1) */
	w->ips[w->n++] = pc;
	return DWARF_CB_OK;
}

int dwunw_unwind(struct dwunw *u, const struct ustack_sample *s, __u64 *ips,
		 int max, enum dwunw_end *end)
{
	struct walk w = { ips, 0, max };
	struct proc *p = proc_get(u, s->tgid);
	int rc;

	*end = DWUNW_NO_PROCESS;
	u->st.samples++;
	if (!p || (!p->dwfl && !proc_load(p))) {
		/* gone before we could read its maps: the leaf is still known */
		ips[0] = s->regs[USTACK_IP];
		u->st.no_process++;
		return max > 0 && ips[0] ? 1 : 0;
	}
	/* a library loaded since the maps were read: read them again */
	if (!dwfl_addrmodule(p->dwfl, s->regs[USTACK_IP]))
		proc_load(p);
	if (!p->dwfl) {
		ips[0] = s->regs[USTACK_IP];
		u->st.no_process++;
		return max > 0 && ips[0] ? 1 : 0;
	}
	p->cur = s;
	p->out_of_copy = p->page_absent = false;
	rc = dwfl_getthread_frames(p->dwfl, s->tid, on_frame, &w);
	p->cur = NULL;
	/* a read beyond the copy ends libdw's walk quietly (rc 0 or -1):
	 * check it first */
	if (p->page_absent) {
		*end = DWUNW_PAGE_ABSENT;
		u->st.absent++;
	} else if (p->out_of_copy) {
		*end = DWUNW_COPY_SHORT;
		u->st.truncated++;
	} else if (w.n >= max) {
		*end = DWUNW_TOO_DEEP;
		u->st.truncated++;
	} else if (rc == 0) {
		*end = DWUNW_COMPLETE;
		u->st.complete++;
	} else {
		/* the CFI ran out: the outermost frame (_start, clone3) marks
		 * its return address undefined, which libdw reports as an
		 * end without error on most builds, as an error on some */
		Dwarf_Addr bias;
		Dwfl_Module *m = w.n ? dwfl_addrmodule(p->dwfl, ips[w.n - 1] - (w.n > 1)) : NULL;

		if (m && (dwfl_module_eh_cfi(m, &bias) || dwfl_module_dwarf_cfi(m, &bias)) &&
		    w.n > 1) {
			*end = DWUNW_COMPLETE;
			u->st.complete++;
		} else {
			*end = DWUNW_NO_CFI;
			u->st.no_cfi++;
		}
	}
	if (!w.n && max > 0) {
		ips[0] = s->regs[USTACK_IP];
		w.n = ips[0] ? 1 : 0;
	}
	return w.n;
}

void dwunw_stats(const struct dwunw *u, struct dwunw_stats *st)
{
	*st = u->st;
}

const char *dwunw_end_frame(enum dwunw_end end)
{
	switch (end) {
	case DWUNW_COPY_SHORT:
		return "[truncated: stack copy too short]";
	case DWUNW_PAGE_ABSENT:
		return "[truncated: stack page not in memory]";
	case DWUNW_NO_CFI:
		return "[truncated: no unwind info]";
	case DWUNW_TOO_DEEP:
		return "[truncated: too deep]";
	case DWUNW_NO_PROCESS:
		return "[truncated: process gone]";
	default:
		return NULL;
	}
}

void dwunw_report(const struct dwunw *u)
{
	const struct dwunw_stats *st = &u->st;
	__u64 bad = st->samples - st->complete;

	if (!bad)
		return;
	msg_warn("--dwarf: %llu of %llu user stacks could not be unwound to the "
		 "end (%llu stack copy too short: raise --stack-copy-size; "
		 "%llu with a frame on a page not in memory; "
		 "%llu without unwind info; %llu process gone); they end in a "
		 "[truncated: ...] frame",
		 (unsigned long long)bad, (unsigned long long)st->samples,
		 (unsigned long long)st->truncated, (unsigned long long)st->absent,
		 (unsigned long long)st->no_cfi,
		 (unsigned long long)st->no_process);
}

static void cache_one(void *u, uint32_t tgid)
{
	dwunw_cache_pid(u, tgid);
}

void dwunw_cache_targets(struct dwunw *u, const struct common_opts *o)
{
	common_opts_foreach_tgid(o, cache_one, u);
}
