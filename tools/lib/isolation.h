/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The isolation configuration of the machine and what follows from it:
 * isolcpus, nohz_full, rcu_nocbs, IRQ affinity, the workqueue cpumask,
 * /proc/interrupts snapshots, and the fixes named for an IRQ.  Parsers
 * take text, so the unit tests feed them without touching /proc. */
#ifndef SUITE_ISOLATION_H
#define SUITE_ISOLATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cpulist.h"

/* CPUs one snapshot of /proc/interrupts keeps columns for */
#define ISOL_MAX_CPUS 64

#define SYSCONF_STR 256

/* The isolation's parameters on the kernel command line */
enum cmd_param {
	CMD_ISOLCPUS,
	CMD_NOHZ_FULL,
	CMD_RCU_NOCBS,
	CMD_IRQAFFINITY,
	CMD_PARAMS,
};
/* Their names: "isolcpus", ... */
extern const char *const cmd_param_names[CMD_PARAMS];

struct sys_config {
	char online[SYSCONF_STR];		/* /sys/devices/system/cpu/online */
	char isolated[SYSCONF_STR];		/* /sys/devices/system/cpu/isolated */
	bool has_nohz_full_file;
	char nohz_full[SYSCONF_STR];		/* /sys/devices/system/cpu/nohz_full */
	char cmdline[4096];			/* /proc/cmdline */
	struct {
		bool has;			/* given on the command line */
		char val[SYSCONF_STR];
	} cmd[CMD_PARAMS];			/* by enum cmd_param */
	char wq_cpumask[SYSCONF_STR];		/* /sys/devices/virtual/workqueue/cpumask (hex) */
	char wq_cpulist[SYSCONF_STR];		/* the same as a list, "" if unreadable */
	char default_affinity[SYSCONF_STR];	/* /proc/irq/default_smp_affinity */
	int kconfig_no_hz_full;			/* CONFIG_NO_HZ_FULL: 1, 0, -1 unknown */
	int kconfig_rcu_nocb;			/* CONFIG_RCU_NOCB_CPU */
	int timer_migration;			/* kernel.timer_migration, -1 unknown */
};

void sys_config_read(struct sys_config *c);
/* The value of KEY= in a kernel command line; false if absent */
bool cmdline_param(const char *cmdline, const char *key, char *out, size_t size);

/* /proc/interrupts, the columns of the watched CPUs only */
struct irq_line {
	char id[16];		/* "36", "LOC" */
	char desc[96];		/* the rest of the line, blanks squeezed */
	uint64_t cnt[ISOL_MAX_CPUS];	/* by position in the watched list */
};

struct irq_snap {
	struct irq_line *lines;
	size_t n;
};

int irq_snap_parse(const char *text, const struct cpu_list *watch, struct irq_snap *s);
int irq_snap_read(const struct cpu_list *watch, struct irq_snap *s);
void irq_snap_free(struct irq_snap *s);

struct irq_moved {
	char id[16];
	char desc[96];
	uint64_t delta;
};
/* Lines whose column for watched CPU number widx moved; *out is malloced */
size_t irq_snap_delta(const struct irq_snap *before, const struct irq_snap *after,
		      size_t widx, struct irq_moved **out);
/* The objects of irq_snap_delta()'s n rows: {"cpu": cpu (when cpu >= 0),
 * "irq", "desc", "delta"} */
struct json;
void irq_moved_json(struct json *j, const struct irq_moved *m, size_t n, int64_t cpu);

/* The IRQ part, given /proc/irq/N/smp_affinity_list's content (or NULL) */
void isol_fix_irq(uint32_t irq, const char *affinity, const char *effective,
		     uint32_t cpu, const struct cpu_list *watched,
		     const char *online, char *buf, size_t size);

/* s, or "empty" when it is NULL or "" */
const char *isol_or_none(const char *s);
/* rcu_nocbs= of the command line: "empty" without a value, "unset" without it */
const char *isol_rcu_nocbs(const struct sys_config *c);
/* Is cpu in the CPU list (isolcpus may carry flags first:
 * "domain,managed_irq,2-3")? */
bool isol_in_list(const char *list, uint32_t cpu);
/* The first line of a small file, "" if unreadable */
void isol_read_trimmed(const char *path, char *buf, size_t size);

/* The fixes for what runs on CPU cpu: the tick, a softirq (by its name,
 * "TIMER"), an IPI ("reschedule"), an hrtimer callback (its function) */
void isol_fix_tick(const struct sys_config *c, uint32_t cpu, char *buf, size_t size);
void isol_fix_softirq(const char *name, uint32_t cpu, const struct sys_config *c,
		      char *buf, size_t size);
void isol_fix_ipi(const char *name, uint32_t cpu, char *buf, size_t size);
void isol_fix_hrtimer(const char *name, uint32_t cpu, char *buf, size_t size);

#endif
