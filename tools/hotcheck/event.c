// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "event.h"
#include "clock.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *hc_kind_name(enum hc_kind kind)
{
	static const char *const names[HC_KIND_N] = {
		[HC_SYSCALL] = "syscall",   [HC_FAULT] = "fault",
		[HC_BLOCK] = "block",	    [HC_PREEMPT] = "preempt",
		[HC_MIGRATE] = "migrate",   [HC_SIGNAL] = "signal",
		[HC_INTRUDER] = "intruder", [HC_STEAL] = "steal",
	};

	return (unsigned)kind < HC_KIND_N ? names[kind] : "unknown";
}

static int is_kernel_frame(const char *f, size_t n)
{
	return n >= 4 && !memcmp(f + n - 4, "_[k]", 4);
}

const char *hc_stack_leaf(const char *stack, size_t *len)
{
	const char *user = NULL, *kern = NULL;
	size_t ulen = 0, klen = 0;
	const char *p = stack ? strchr(stack, ';') : NULL;

	/* the first frame is the thread's comm: never a leaf */
	while (p) {
		const char *f = p + 1, *end = strchr(f, ';');
		size_t n = end ? (size_t)(end - f) : strlen(f);

		if (n && f[0] != '[') {
			if (is_kernel_frame(f, n))
				kern = f, klen = n;
			else
				user = f, ulen = n;
		}
		p = end;
	}
	*len = user ? ulen : klen;
	return user ? user : kern;
}

static int is_irq(const struct hc_event *e)
{
	return e->what && (!strcmp(e->what, "irq") || !strcmp(e->what, "hardirq"));
}

/* An intruder that is a task: its actor_tid is a tid (a softirq's, an
 * IPI's is its vector) */
static int is_task(const struct hc_event *e)
{
	return e->what && !strcmp(e->what, "task");
}

/* " (tid N)" when there is one */
static const char *tid_part(char *buf, size_t size, uint32_t tid)
{
	if (tid)
		snprintf(buf, size, " (tid %" PRIu32 ")", tid);
	else
		buf[0] = 0;
	return buf;
}

static const char *str(const char *s)
{
	return s ? s : "";
}

char *hc_event_phrase(char *buf, size_t size, const struct hc_event *e)
{
	char d[32], t[32], where[300] = "";
	size_t ln;
	const char *leaf = hc_stack_leaf(e->stack, &ln);
	const char *what = str(e->what), *actor = str(e->actor);

	fmt_dur(d, sizeof(d), e->dur_ns, DUR_TEXT);
	tid_part(t, sizeof(t), e->actor_tid);
	switch (e->kind) {
	case HC_SYSCALL:
		if (leaf)
			snprintf(where, sizeof(where), " in %.*s", (int)ln, leaf);
		snprintf(buf, size, "syscall %s took %s%s", *what ? what : "?", d, where);
		break;
	case HC_FAULT:
		snprintf(buf, size, "page fault%s%s%s%s%.*s%s%s", *what ? " (" : "", what,
			 *what ? ")" : "", leaf ? " at " : "", (int)(leaf ? ln : 0),
			 leaf ? leaf : "", e->dur_ns ? " for " : "", e->dur_ns ? d : "");
		break;
	case HC_BLOCK: {
		size_t wl;
		const char *wleaf = hc_stack_leaf(e->waker_stack, &wl);

		if (*actor && wleaf)
			snprintf(where, sizeof(where), ", woken by %s%s from %.*s", actor, t,
				 (int)wl, wleaf);
		else if (*actor)
			snprintf(where, sizeof(where), ", woken by %s%s", actor, t);
		snprintf(buf, size, "blocked%s%s for %s%s", *what ? " in " : "", what, d, where);
		break;
	}
	case HC_PREEMPT:
		snprintf(buf, size, "preempted%s%s%s for %s", *actor ? " by " : "", actor,
			 *actor ? t : "", d);
		break;
	case HC_MIGRATE:
		snprintf(buf, size, "migrated%s%s%s", *what ? " (" : "", what, *what ? ")" : "");
		break;
	case HC_SIGNAL:
		snprintf(buf, size, "signal %s%s%s%s", *what ? what : "?", *actor ? " from " : "",
			 actor, *actor ? t : "");
		break;
	case HC_INTRUDER:
		if (is_irq(e))
			snprintf(buf, size, "IRQ %" PRIu32 "%s%s%s for %s", e->actor_tid,
				 *actor ? " (" : "", actor, *actor ? ")" : "", d);
		else
			snprintf(buf, size, "%s%s%s%s for %s", *what ? what : "intruder",
				 *actor ? " " : "", actor, *actor && is_task(e) ? t : "", d);
		break;
	case HC_STEAL: {
		char s[32];

		fmt_dur(s, sizeof(s), e->stolen_ns, DUR_TEXT);
		snprintf(buf, size, "the hypervisor held CPU %" PRId32 " for %s (its steal time "
			 "grew by that between two readings %s apart, at %" PRIu64 ".%09" PRIu64
			 " and %" PRIu64 ".%09" PRIu64 ")", e->cpu, s, d,
			 e->start_ns / 1000000000u, e->start_ns % 1000000000u,
			 (e->start_ns + e->dur_ns) / 1000000000u,
			 (e->start_ns + e->dur_ns) % 1000000000u);
		break;
	}
	default:
		snprintf(buf, size, "event of unknown kind %d", (int)e->kind);
	}
	return buf;
}

char *hc_event_cause(char *buf, size_t size, const struct hc_event *e)
{
	static const char *const noun[HC_KIND_N] = {
		[HC_SYSCALL] = "syscalls",     [HC_FAULT] = "page faults",
		[HC_BLOCK] = "blocks",	       [HC_PREEMPT] = "preemption",
		[HC_MIGRATE] = "migrations",   [HC_SIGNAL] = "signals",
		[HC_INTRUDER] = "intruders",
	};
	static const char *const by[HC_KIND_N] = {
		[HC_BLOCK] = "woken by", [HC_SIGNAL] = "from",
	};
	char t[32];
	size_t ln;
	const char *leaf, *what = str(e->what), *actor = str(e->actor);

	if ((unsigned)e->kind >= HC_KIND_N) {
		snprintf(buf, size, "events of unknown kind %d", (int)e->kind);
		return buf;
	}
	tid_part(t, sizeof(t), e->actor_tid);
	if (e->kind == HC_STEAL) {
		snprintf(buf, size, "the hypervisor holding CPU %" PRId32 " (steal time)", e->cpu);
		return buf;
	}
	if (e->kind == HC_INTRUDER) {
		if (is_irq(e))
			snprintf(buf, size, "IRQ %" PRIu32 "%s%s%s on the CPU", e->actor_tid,
				 *actor ? " (" : "", actor, *actor ? ")" : "");
		else
			snprintf(buf, size, "%s%s%s%s on the CPU", *what ? what : "intruder",
				 *actor ? " " : "", actor, *actor && is_task(e) ? t : "");
		return buf;
	}
	leaf = hc_stack_leaf(e->stack, &ln);
	if (*actor)
		snprintf(buf, size, "%s %s %s%s", noun[e->kind], by[e->kind] ? by[e->kind] : "by",
			 actor, t);
	else if (leaf)
		snprintf(buf, size, "%s in %.*s", noun[e->kind], (int)ln, leaf);
	else if (*what)
		snprintf(buf, size, "%s (%s)", noun[e->kind], what);
	else
		snprintf(buf, size, "%s", noun[e->kind]);
	return buf;
}
