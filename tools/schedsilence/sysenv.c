// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* schedsilence's view of the machine: configuration, /proc/interrupts,
 * context switches, and the fix named for each intruder. */
#include "sysenv.h"
#include "msg.h"
#include "procfs.h"
#include "vec.h"
#include "xalloc.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void read_trimmed(const char *path, char *buf, size_t size)
{
	if (read_small_file(path, buf, size) < 0) {
		buf[0] = 0;
		return;
	}
	buf[strcspn(buf, "\n")] = 0;
}

bool cmdline_param(const char *cmdline, const char *key, char *out, size_t size)
{
	size_t kl = strlen(key);
	const char *p = cmdline;
	bool found = false;

	out[0] = 0;
	while (*p) {
		size_t n;

		while (*p == ' ' || *p == '\n' || *p == '\t')
			p++;
		if (!strncmp(p, "--", 2) && (p[2] == ' ' || !p[2]))
			break;	/* the rest belongs to init */
		n = strcspn(p, " \n\t");
		if (n > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(out, size, "%.*s", (int)(n - kl - 1), p + kl + 1);
			found = true;	/* the last one wins, as in the kernel */
		} else if (n == kl && !strncmp(p, key, kl)) {
			out[0] = 0;
			found = true;
		}
		p += n;
	}
	return found;
}

/* CONFIG_NAME=y in /proc/config.gz: 1, 0 (absent or "is not set"), -1 */
static int kconfig(const char *name)
{
	gzFile f = gzopen("/proc/config.gz", "rb");
	char line[512];
	size_t nl = strlen(name);
	int v = 0;

	if (!f)
		return -1;
	while (gzgets(f, line, sizeof(line))) {
		if (!strncmp(line, name, nl) && line[nl] == '=') {
			v = line[nl + 1] == 'y';
			break;
		}
	}
	gzclose(f);
	return v;
}

const char *const cmd_param_names[CMD_PARAMS] = {
	[CMD_ISOLCPUS] = "isolcpus",
	[CMD_NOHZ_FULL] = "nohz_full",
	[CMD_RCU_NOCBS] = "rcu_nocbs",
	[CMD_IRQAFFINITY] = "irqaffinity",
};

void sys_config_read(struct sys_config *c)
{
	char buf[64];
	struct cpu_list l = { 0 };

	memset(c, 0, sizeof(*c));
	read_trimmed("/sys/devices/system/cpu/online", c->online, sizeof(c->online));
	read_trimmed("/sys/devices/system/cpu/isolated", c->isolated, sizeof(c->isolated));
	c->has_nohz_full_file = read_small_file("/sys/devices/system/cpu/nohz_full",
						c->nohz_full, sizeof(c->nohz_full)) >= 0;
	c->nohz_full[strcspn(c->nohz_full, "\n")] = 0;
	if (!strcmp(c->nohz_full, "(null)"))
		c->nohz_full[0] = 0;
	read_trimmed("/proc/cmdline", c->cmdline, sizeof(c->cmdline));
	for (int i = 0; i < CMD_PARAMS; i++)
		c->cmd[i].has = cmdline_param(c->cmdline, cmd_param_names[i], c->cmd[i].val,
					      sizeof(c->cmd[i].val));
	read_trimmed("/sys/devices/virtual/workqueue/cpumask", c->wq_cpumask,
		     sizeof(c->wq_cpumask));
	if (c->wq_cpumask[0] && !cpumask_hex_parse(c->wq_cpumask, &l))
		cpu_list_str(&l, c->wq_cpulist, sizeof(c->wq_cpulist));
	cpu_list_free(&l);
	read_trimmed("/proc/irq/default_smp_affinity", c->default_affinity,
		     sizeof(c->default_affinity));
	c->kconfig_no_hz_full = kconfig("CONFIG_NO_HZ_FULL");
	c->kconfig_rcu_nocb = kconfig("CONFIG_RCU_NOCB_CPU");
	read_trimmed("/proc/sys/kernel/timer_migration", buf, sizeof(buf));
	c->timer_migration = buf[0] ? atoi(buf) : -1;
}

/* ---- /proc/interrupts ---- */

int irq_snap_parse(const char *text, const struct cpu_list *watch, struct irq_snap *s)
{
	int col_of[SS_MAX_WATCH];	/* watched position -> column */
	size_t ncols = 0, cap = 0;
	const char *p = text, *eol;

	memset(s, 0, sizeof(*s));
	for (size_t w = 0; w < SS_MAX_WATCH; w++)
		col_of[w] = -1;
	/* header: "CPU0 CPU1 ..." */
	eol = strchr(p, '\n');
	if (!eol)
		return -1;
	for (const char *q = p; q < eol;) {
		unsigned cpu;
		int used;

		while (q < eol && *q == ' ')
			q++;
		if (q >= eol)
			break;
		if (sscanf(q, "CPU%u%n", &cpu, &used) != 1)
			return -1;
		for (size_t w = 0; w < watch->n && w < SS_MAX_WATCH; w++)
			if (watch->cpus[w] == cpu)
				col_of[w] = (int)ncols;
		ncols++;
		q += used;
	}
	for (p = eol + 1; *p; p = eol + 1) {
		struct irq_line *ln;
		uint64_t vals[MAX_CPUS_SUPPORTED];
		const char *q, *colon;
		size_t nv = 0, idl, dl = 0;

		eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		colon = memchr(p, ':', eol - p);
		if (!colon) {
			if (!*eol)
				break;
			continue;
		}
		array_reserve(s->lines, cap, s->n + 1);
		ln = &s->lines[s->n++];
		memset(ln, 0, sizeof(*ln));
		for (q = p; q < colon && *q == ' '; q++)
			;
		idl = colon - q;
		snprintf(ln->id, sizeof(ln->id), "%.*s", (int)idl, q);
		for (q = colon + 1; q < eol && nv < ncols && nv < MAX_CPUS_SUPPORTED;) {
			char *end;
			unsigned long long v;

			while (q < eol && *q == ' ')
				q++;
			if (q >= eol || !isdigit((unsigned char)*q))
				break;
			v = strtoull(q, &end, 10);
			vals[nv++] = v;
			q = end;
		}
		for (size_t w = 0; w < watch->n && w < SS_MAX_WATCH; w++)
			if (col_of[w] >= 0 && (size_t)col_of[w] < nv)
				ln->cnt[w] = vals[col_of[w]];
		/* the description, blanks squeezed */
		for (; q < eol && dl + 1 < sizeof(ln->desc); q++) {
			if (*q == ' ' || *q == '\t') {
				if (dl && ln->desc[dl - 1] != ' ')
					ln->desc[dl++] = ' ';
				continue;
			}
			ln->desc[dl++] = *q;
		}
		while (dl && ln->desc[dl - 1] == ' ')
			dl--;
		ln->desc[dl] = 0;
		if (!*eol)
			break;
	}
	return 0;
}

int irq_snap_read(const struct cpu_list *watch, struct irq_snap *s)
{
	size_t size = 1 << 20;
	char *buf = xmalloc(size);
	int err;

	memset(s, 0, sizeof(*s));
	if (read_small_file("/proc/interrupts", buf, size) < 0) {
		free(buf);
		return -1;
	}
	err = irq_snap_parse(buf, watch, s);
	free(buf);
	return err;
}

void irq_snap_free(struct irq_snap *s)
{
	free(s->lines);
	memset(s, 0, sizeof(*s));
}

size_t irq_snap_delta(const struct irq_snap *before, const struct irq_snap *after,
		      size_t widx, struct irq_moved **out)
{
	size_t n = 0, cap = 0;

	*out = NULL;
	if (widx >= SS_MAX_WATCH)
		return 0;
	for (size_t i = 0; i < after->n; i++) {
		const struct irq_line *a = &after->lines[i];
		uint64_t old = 0;
		struct irq_moved *m;

		for (size_t j = 0; j < before->n; j++)
			if (!strcmp(before->lines[j].id, a->id)) {
				old = before->lines[j].cnt[widx];
				break;
			}
		if (a->cnt[widx] <= old)
			continue;
		array_reserve(*out, cap, n + 1);
		m = *out;
		snprintf(m[n].id, sizeof(m[n].id), "%s", a->id);
		snprintf(m[n].desc, sizeof(m[n].desc), "%s", a->desc);
		m[n].delta = a->cnt[widx] - old;
		n++;
	}
	return n;
}

/* ---- threads ---- */

int thread_ctxt_switches(uint32_t tid, uint64_t *vol, uint64_t *nonvol)
{
	char buf[4096];

	if (proc_read(buf, sizeof(buf), "/proc/%u/status", tid) <= 0)
		return -1;
	*vol = status_u64(buf, "voluntary_ctxt_switches");
	*nonvol = status_u64(buf, "nonvoluntary_ctxt_switches");
	return 0;
}

void threads_by_comm(const char (*comms)[SILENCE_COMM_LEN], size_t n, struct id_list *out)
{
	struct id_list pids = { 0 }, tids = { 0 };
	char comm[64];

	if (!n)
		return;
	proc_pids(&pids);
	for (size_t p = 0; p < pids.n; p++) {
		tids.n = 0;
		proc_threads(pids.ids[p], NULL, &tids);
		for (size_t k = 0; k < tids.n; k++) {
			task_comm(tids.ids[k], comm, sizeof(comm));
			for (size_t i = 0; i < n; i++)
				if (!strncmp(comm, comms[i], SILENCE_COMM_LEN) &&
				    !id_list_has(out, tids.ids[k]))
					id_list_add(out, tids.ids[k]);
		}
	}
	id_list_free(&pids);
	id_list_free(&tids);
}

/* ---- corroboration: context switches of the allowed threads ---- */

void allowed_begin(struct allowed *a, const struct silence_cfg *cfg)
{
	struct id_list tids = { 0 };

	for (size_t i = 0; i < cfg->allow_tids->n; i++)
		id_list_add(&tids, cfg->allow_tids->ids[i]);
	threads_by_comm(cfg->allow_comms, cfg->n_allow_comms, &tids);
	a->t = xcalloc(tids.n, sizeof(*a->t));
	for (size_t i = 0; i < tids.n; i++) {
		struct allowed_thread *t = &a->t[a->n];

		t->tid = tids.ids[i];
		task_comm(t->tid, t->comm, sizeof(t->comm));
		if (!thread_ctxt_switches(t->tid, &t->vol0, &t->nonvol0))
			a->n++;
	}
	id_list_free(&tids);
}

void allowed_end(struct allowed *a)
{
	for (size_t i = 0; i < a->n; i++)
		a->t[i].gone = thread_ctxt_switches(a->t[i].tid, &a->t[i].vol1,
						    &a->t[i].nonvol1) != 0;
}

void allowed_free(struct allowed *a)
{
	free(a->t);
	memset(a, 0, sizeof(*a));
}

/* ---- fixes ---- */

static const char *or_none(const char *s)
{
	return s && *s ? s : "empty";
}

/* rcu_nocbs= of the command line: "empty" without a value, "unset" without it */
static const char *rcu_nocbs(const struct sys_config *c)
{
	return c->cmd[CMD_RCU_NOCBS].has ? or_none(c->cmd[CMD_RCU_NOCBS].val) : "unset";
}

void silence_fix_irq(uint32_t irq, const char *affinity, const char *effective,
		     uint32_t cpu, const struct cpu_list *watched,
		     const char *online, char *buf, size_t size)
{
	struct cpu_list aff = { 0 }, on = { 0 }, rest = { 0 };
	char err[128], to[SYSCONF_STR];

	if (!affinity || parse_cpu_list(affinity, MAX_CPUS_SUPPORTED, &aff, err, sizeof(err))) {
		snprintf(buf, size, "/proc/irq/%u/smp_affinity_list is unreadable: the "
			 "IRQ is gone or its affinity cannot be set", irq);
		goto out;
	}
	if (!cpu_list_has(&aff, cpu)) {
		snprintf(buf, size, "/proc/irq/%u/smp_affinity_list = %s already excludes "
			 "CPU %u (effective: %s): a managed IRQ, or the affinity changed "
			 "while tracing; isolcpus=managed_irq,%u keeps managed IRQs away",
			 irq, affinity, cpu, or_none(effective), cpu);
		goto out;
	}
	cpu_list_minus(&aff, watched, &rest);
	if (!rest.n && online && !parse_cpu_list(online, MAX_CPUS_SUPPORTED, &on, err,
						 sizeof(err)))
		cpu_list_minus(&on, watched, &rest);
	if (!rest.n) {
		snprintf(buf, size, "allowed here by /proc/irq/%u/smp_affinity_list = %s, "
			 "and no CPU outside the watched ones is online to take it", irq,
			 affinity);
		goto out;
	}
	cpu_list_str(&rest, to, sizeof(to));
	snprintf(buf, size, "allowed here by /proc/irq/%u/smp_affinity_list = %s; "
		 "move it with: echo %s > /proc/irq/%u/smp_affinity_list", irq,
		 affinity, to, irq);
out:
	cpu_list_free(&aff);
	cpu_list_free(&on);
	cpu_list_free(&rest);
}

static bool in_list(const char *list, uint32_t cpu)
{
	struct cpu_list l = { 0 };
	char err[128];
	bool in;

	if (!list || !*list)
		return false;
	/* isolcpus may carry flags first: "domain,managed_irq,2-3" */
	while (isalpha((unsigned char)*list)) {
		list = strchr(list, ',');
		if (!list)
			return false;
		list++;
	}
	if (parse_cpu_list(list, MAX_CPUS_SUPPORTED, &l, err, sizeof(err)))
		return false;
	in = cpu_list_has(&l, cpu);
	cpu_list_free(&l);
	return in;
}

static void fix_tick(const struct sys_config *c, uint32_t cpu, char *buf, size_t size)
{
	if (c->kconfig_no_hz_full == 0) {
		snprintf(buf, size, "the tick runs while CPU %u has a task; nohz_full=%u "
			 "stops it with one task running, but this kernel lacks "
			 "CONFIG_NO_HZ_FULL=y (nohz_full is %s): build one with it", cpu,
			 cpu, c->has_nohz_full_file ? or_none(c->nohz_full) : "not available");
	} else if (!in_list(c->nohz_full, cpu)) {
		snprintf(buf, size, "the tick runs while CPU %u has a task; boot with "
			 "nohz_full=%u (now /sys/devices/system/cpu/nohz_full = %s) and "
			 "keep one task on it", cpu, cpu, or_none(c->nohz_full));
	} else {
		snprintf(buf, size, "CPU %u is nohz_full, yet the tick ran: more than one "
			 "runnable task, a POSIX CPU timer, perf events or RCU keep it "
			 "(see tick_stop dependencies)", cpu);
	}
}

static void fix_task(const struct intruder *r, const struct sys_config *c,
		     const struct cpu_list *watched, char *buf, size_t size)
{
	char status[4096], aff[SYSCONF_STR];
	const char *p;
	const char *n = r->name;
	uint32_t cpu = r->cpu;
	char pre[32];

	snprintf(pre, sizeof(pre), "kworker/%u:", cpu);
	if (r->kthread && !strncmp(n, pre, strlen(pre))) {
		snprintf(buf, size, "per-CPU kworker: runs work queued on CPU %u (see the "
			 "workqueue rows for what); isolcpus=domain,%u and nohz_full=%u "
			 "keep most per-CPU work away", cpu, cpu, cpu);
		return;
	}
	if (r->kthread && !strncmp(n, "kworker/u", 9)) {
		snprintf(buf, size, "unbound kworker: /sys/devices/virtual/workqueue/cpumask "
			 "= %s (CPUs %s)%s", or_none(c->wq_cpumask), or_none(c->wq_cpulist),
			 in_list(c->wq_cpulist, cpu) ? "; write a mask without this CPU "
			 "to it" : "; this CPU is already outside it");
		return;
	}
	if (r->kthread && !strncmp(n, "ksoftirqd/", 10)) {
		snprintf(buf, size, "softirqs deferred to a thread (see the softirq rows "
			 "for which ones)");
		return;
	}
	if (r->kthread && (!strncmp(n, "rcu", 3))) {
		snprintf(buf, size, "RCU callback processing: boot with rcu_nocbs=%u "
			 "(now rcu_nocbs=%s, CONFIG_RCU_NOCB_CPU %s) and nohz_full=%u", cpu,
			 rcu_nocbs(c),
			 c->kconfig_rcu_nocb == 1 ? "y" : c->kconfig_rcu_nocb == 0 ? "n" : "?",
			 cpu);
		return;
	}
	if (r->kthread && !strncmp(n, "migration/", 10)) {
		snprintf(buf, size, "the stopper thread: active load balancing or "
			 "stop_machine; isolcpus=domain,%u removes the CPU from load "
			 "balancing (now isolated = %s)", cpu, or_none(c->isolated));
		return;
	}
	if (proc_read(status, sizeof(status), "/proc/%u/status", r->id) > 0 &&
	    (p = status_field(status, "Cpus_allowed_list"))) {
		snprintf(aff, sizeof(aff), "%.*s", (int)strcspn(p, "\n"), p);
	} else {
		snprintf(buf, size, "%s %u has exited; while it lived its affinity "
			 "included CPU %u: isolcpus=%u or a cpuset (now isolated = %s) "
			 "keeps such tasks off", r->kthread ? "kernel thread" : "task",
			 r->id, cpu, cpu, or_none(c->isolated));
		return;
	}
	if (r->kthread) {
		snprintf(buf, size, "kernel thread allowed on CPU %u (Cpus_allowed_list = "
			 "%s); isolcpus=domain,%u (now isolated = %s) keeps unbound kernel "
			 "threads away", cpu, aff, cpu, or_none(c->isolated));
		return;
	}
	{
		struct cpu_list al = { 0 }, on = { 0 }, rest = { 0 };
		char err[128], to[SYSCONF_STR] = "";

		if (!parse_cpu_list(aff, MAX_CPUS_SUPPORTED, &al, err, sizeof(err)))
			cpu_list_minus(&al, watched, &rest);
		if (!rest.n && !parse_cpu_list(c->online, MAX_CPUS_SUPPORTED, &on, err,
					       sizeof(err)))
			cpu_list_minus(&on, watched, &rest);
		cpu_list_str(&rest, to, sizeof(to));
		if (rest.n)
			snprintf(buf, size, "its affinity (Cpus_allowed_list = %s) includes "
				 "CPU %u: move the thread with taskset -pc %s %u (-apc: its whole "
				 "process, unless that is the pinned application), and keep "
				 "every other task off with isolcpus=%u or a cpuset (now "
				 "isolated = %s)", aff, cpu, to, r->id, cpu, or_none(c->isolated));
		else
			snprintf(buf, size, "its affinity (Cpus_allowed_list = %s) includes "
				 "CPU %u, and no CPU outside the watched ones is online to move "
				 "it to", aff, cpu);
		cpu_list_free(&al);
		cpu_list_free(&on);
		cpu_list_free(&rest);
	}
}

static void fix_softirq(const struct intruder *r, const struct sys_config *c,
			char *buf, size_t size)
{
	const char *n = r->name;
	uint32_t cpu = r->cpu;

	if (!strcmp(n, "TIMER"))
		snprintf(buf, size, "timer_list timers armed on CPU %u; nohz_full=%u "
			 "(now %s) with kernel.timer_migration=1 (now %d) moves unpinned "
			 "ones away", cpu, cpu, or_none(c->nohz_full), c->timer_migration);
	else if (!strcmp(n, "RCU"))
		snprintf(buf, size, "RCU core processing: rcu_nocbs=%u (now %s) and "
			 "nohz_full=%u", cpu, rcu_nocbs(c),
			 cpu);
	else if (!strcmp(n, "NET_RX") || !strcmp(n, "NET_TX"))
		snprintf(buf, size, "network processing: move the NIC's IRQs (irq rows) "
			 "and clear CPU %u from /sys/class/net/*/queues/rx-*/rps_cpus", cpu);
	else if (!strcmp(n, "SCHED"))
		snprintf(buf, size, "load balancing: isolcpus=domain,%u (now isolated = "
			 "%s)", cpu, or_none(c->isolated));
	else if (!strcmp(n, "BLOCK"))
		snprintf(buf, size, "block I/O completions: move the disk's IRQ, set "
			 "/sys/block/*/queue/rq_affinity to 1");
	else
		snprintf(buf, size, "raised by the interrupts on this CPU (see the irq "
			 "rows)");
}

static void fix_ipi(const struct intruder *r, char *buf, size_t size)
{
	if (!strcmp(r->name, "reschedule"))
		snprintf(buf, size, "another CPU woke a task onto CPU %u (see the task "
			 "rows, their wakers, and the IPI senders)", r->cpu);
	else if (!strncmp(r->name, "call_function", 13))
		snprintf(buf, size, "cross-CPU function calls (TLB flushes, "
			 "smp_call_function*): see the IPI senders; a process with "
			 "threads on CPU %u and elsewhere causes TLB flushes", r->cpu);
	else if (!strcmp(r->name, "irq_work"))
		snprintf(buf, size, "irq_work raised on this CPU (perf, printk, RCU, "
			 "tracing)");
	else
		snprintf(buf, size, "platform interrupt (hypervisor callback)");
}

void silence_fix(const struct intruder *r, const struct sys_config *c,
		 const struct cpu_list *watched, char *buf, size_t size)
{
	char path[64], aff[SYSCONF_STR], eff[SYSCONF_STR];

	switch (r->kind) {
	case SK_TASK:
		fix_task(r, c, watched, buf, size);
		break;
	case SK_IRQ:
		if (r->id == SILENCE_NO_ID) {
			snprintf(buf, size, "an APIC-internal interrupt: it cannot be moved");
			break;
		}
		snprintf(path, sizeof(path), "/proc/irq/%u/smp_affinity_list", r->id);
		read_trimmed(path, aff, sizeof(aff));
		snprintf(path, sizeof(path), "/proc/irq/%u/effective_affinity_list", r->id);
		read_trimmed(path, eff, sizeof(eff));
		silence_fix_irq(r->id, aff[0] ? aff : NULL, eff, r->cpu, watched,
				c->online, buf, size);
		break;
	case SK_SOFTIRQ:
		fix_softirq(r, c, buf, size);
		break;
	case SK_TIMER_TICK:
		fix_tick(c, r->cpu, buf, size);
		break;
	case SK_IPI:
		fix_ipi(r, buf, size);
		break;
	case SK_WORKQUEUE:
		snprintf(buf, size, "work queued on CPU %u; unbound work honours "
			 "/sys/devices/virtual/workqueue/cpumask = %s (CPUs %s%s), per-CPU "
			 "work follows the CPU that queued it", r->cpu, or_none(c->wq_cpumask),
			 or_none(c->wq_cpulist),
			 in_list(c->wq_cpulist, r->cpu) ? ", this one included" : "");
		break;
	case SK_HRTIMER:
		if (strstr(r->name, "tick_"))
			snprintf(buf, size, "the tick's own timer (see timer_tick)");
		else if (!strcmp(r->name, "hrtimer_wakeup"))
			snprintf(buf, size, "a sleep timeout (nanosleep, poll, futex) armed "
				 "on CPU %u: the sleeper runs here (see the task rows)", r->cpu);
		else
			snprintf(buf, size, "an hrtimer armed on CPU %u", r->cpu);
		break;
	case SK_MIGRATION:
		snprintf(buf, size, "moved here from CPU %u: its affinity includes CPU %u; "
			 "isolcpus=domain,%u keeps the load balancer from moving tasks in "
			 "(now isolated = %s)", r->from_cpu, r->cpu, r->cpu, or_none(c->isolated));
		break;
	default:
		snprintf(buf, size, "-");
	}
}
