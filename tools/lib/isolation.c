// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The isolation configuration of the machine (isolcpus, nohz_full,
 * rcu_nocbs, IRQ affinity, the workqueue cpumask), /proc/interrupts
 * snapshots, and the fixes that follow from them.  Used by schedsilence
 * and hotcheck. */
#include "isolation.h"
#include "json.h"
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

void isol_read_trimmed(const char *path, char *buf, size_t size)
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
	isol_read_trimmed("/sys/devices/system/cpu/online", c->online, sizeof(c->online));
	isol_read_trimmed("/sys/devices/system/cpu/isolated", c->isolated, sizeof(c->isolated));
	c->has_nohz_full_file = read_small_file("/sys/devices/system/cpu/nohz_full",
						c->nohz_full, sizeof(c->nohz_full)) >= 0;
	c->nohz_full[strcspn(c->nohz_full, "\n")] = 0;
	if (!strcmp(c->nohz_full, "(null)"))
		c->nohz_full[0] = 0;
	isol_read_trimmed("/proc/cmdline", c->cmdline, sizeof(c->cmdline));
	for (int i = 0; i < CMD_PARAMS; i++)
		c->cmd[i].has = cmdline_param(c->cmdline, cmd_param_names[i], c->cmd[i].val,
					      sizeof(c->cmd[i].val));
	isol_read_trimmed("/sys/devices/virtual/workqueue/cpumask", c->wq_cpumask,
		     sizeof(c->wq_cpumask));
	if (c->wq_cpumask[0] && !cpumask_hex_parse(c->wq_cpumask, &l))
		cpu_list_str(&l, c->wq_cpulist, sizeof(c->wq_cpulist));
	cpu_list_free(&l);
	isol_read_trimmed("/proc/irq/default_smp_affinity", c->default_affinity,
		     sizeof(c->default_affinity));
	c->kconfig_no_hz_full = kconfig("CONFIG_NO_HZ_FULL");
	c->kconfig_rcu_nocb = kconfig("CONFIG_RCU_NOCB_CPU");
	isol_read_trimmed("/proc/sys/kernel/timer_migration", buf, sizeof(buf));
	c->timer_migration = buf[0] ? atoi(buf) : -1;
}

/* ---- /proc/interrupts ---- */

int irq_snap_parse(const char *text, const struct cpu_list *watch, struct irq_snap *s)
{
	int col_of[ISOL_MAX_CPUS];	/* watched position -> column */
	size_t ncols = 0, cap = 0;
	const char *p = text, *eol;

	memset(s, 0, sizeof(*s));
	for (size_t w = 0; w < ISOL_MAX_CPUS; w++)
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
		for (size_t w = 0; w < watch->n && w < ISOL_MAX_CPUS; w++)
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
		for (size_t w = 0; w < watch->n && w < ISOL_MAX_CPUS; w++)
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
	if (widx >= ISOL_MAX_CPUS)
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

/* ---- fixes ---- */

const char *isol_or_none(const char *s)
{
	return s && *s ? s : "empty";
}

/* rcu_nocbs= of the command line: "empty" without a value, "unset" without it */
const char *isol_rcu_nocbs(const struct sys_config *c)
{
	return c->cmd[CMD_RCU_NOCBS].has ? isol_or_none(c->cmd[CMD_RCU_NOCBS].val) : "unset";
}

void isol_fix_irq(uint32_t irq, const char *affinity, const char *effective,
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
			 irq, affinity, cpu, isol_or_none(effective), cpu);
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

bool isol_in_list(const char *list, uint32_t cpu)
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

void isol_fix_tick(const struct sys_config *c, uint32_t cpu, char *buf, size_t size)
{
	if (c->kconfig_no_hz_full == 0) {
		snprintf(buf, size, "the tick runs while CPU %u has a task; nohz_full=%u "
			 "stops it with one task running, but this kernel lacks "
			 "CONFIG_NO_HZ_FULL=y (nohz_full is %s): build one with it", cpu,
			 cpu, c->has_nohz_full_file ? isol_or_none(c->nohz_full) : "not available");
	} else if (!isol_in_list(c->nohz_full, cpu)) {
		snprintf(buf, size, "the tick runs while CPU %u has a task; boot with "
			 "nohz_full=%u (now /sys/devices/system/cpu/nohz_full = %s) and "
			 "keep one task on it", cpu, cpu, isol_or_none(c->nohz_full));
	} else {
		snprintf(buf, size, "CPU %u is nohz_full, yet the tick ran: more than one "
			 "runnable task, a POSIX CPU timer, perf events or RCU keep it "
			 "(see tick_stop dependencies)", cpu);
	}
}

void isol_fix_softirq(const char *n, uint32_t cpu, const struct sys_config *c,
		      char *buf, size_t size)
{

	if (!strcmp(n, "TIMER"))
		snprintf(buf, size, "timer_list timers armed on CPU %u; nohz_full=%u "
			 "(now %s) with kernel.timer_migration=1 (now %d) moves unpinned "
			 "ones away", cpu, cpu, isol_or_none(c->nohz_full), c->timer_migration);
	else if (!strcmp(n, "RCU"))
		snprintf(buf, size, "RCU core processing: rcu_nocbs=%u (now %s) and "
			 "nohz_full=%u", cpu, isol_rcu_nocbs(c),
			 cpu);
	else if (!strcmp(n, "NET_RX") || !strcmp(n, "NET_TX"))
		snprintf(buf, size, "network processing: move the NIC's IRQs (irq rows) "
			 "and clear CPU %u from /sys/class/net/*/queues/rx-*/rps_cpus", cpu);
	else if (!strcmp(n, "SCHED"))
		snprintf(buf, size, "load balancing: isolcpus=domain,%u (now isolated = "
			 "%s)", cpu, isol_or_none(c->isolated));
	else if (!strcmp(n, "BLOCK"))
		snprintf(buf, size, "block I/O completions: move the disk's IRQ, set "
			 "/sys/block/*/queue/rq_affinity to 1");
	else
		snprintf(buf, size, "raised by the interrupts on this CPU (see the irq "
			 "rows)");
}

void isol_fix_ipi(const char *name, uint32_t cpu, char *buf, size_t size)
{
	if (!strcmp(name, "reschedule"))
		snprintf(buf, size, "another CPU woke a task onto CPU %u (see the task "
			 "rows, their wakers, and the IPI senders)", cpu);
	else if (!strncmp(name, "call_function", 13))
		snprintf(buf, size, "cross-CPU function calls (TLB flushes, "
			 "smp_call_function*): see the IPI senders; a process with "
			 "threads on CPU %u and elsewhere causes TLB flushes", cpu);
	else if (!strcmp(name, "irq_work"))
		snprintf(buf, size, "irq_work raised on this CPU (perf, printk, RCU, "
			 "tracing)");
	else
		snprintf(buf, size, "platform interrupt (hypervisor callback)");
}

void isol_fix_hrtimer(const char *name, uint32_t cpu, char *buf, size_t size)
{
	if (strstr(name, "tick_"))
		snprintf(buf, size, "the tick's own timer (see timer_tick)");
	else if (!strcmp(name, "hrtimer_wakeup"))
		snprintf(buf, size, "a sleep timeout (nanosleep, poll, futex) armed "
			 "on CPU %u: the sleeper runs here (see the task rows)", cpu);
	else
		snprintf(buf, size, "an hrtimer armed on CPU %u", cpu);
}

void irq_moved_json(struct json *j, const struct irq_moved *m, size_t n, int64_t cpu)
{
	for (size_t i = 0; i < n; i++) {
		json_obj_begin(j);
		if (cpu >= 0)
			json_kv_u64(j, "cpu", (uint64_t)cpu);
		json_kv_str(j, "irq", m[i].id);
		json_kv_str(j, "desc", m[i].desc);
		json_kv_u64(j, "delta", m[i].delta);
		json_obj_end(j);
	}
}
