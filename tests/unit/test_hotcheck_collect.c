// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* hotcheck's collect half (tools/hotcheck/collect.c) on records made up
 * here, as the BPF side sends them: the counts of each check, its top
 * cause, the timeline in time order with both clocks, a malformed record
 * counted, and the JSON report's checks array. */
#include "unit.h"
#include "collect.h"
#include "report.h"
#include "irqctx.h"
#include "stackeng.h"

#include <sys/syscall.h>

static struct hc_rec rec(__u32 type, __u64 ts, __u64 dur, long nr)
{
	struct hc_rec r = {
		.type = type, .tid = 42, .pid = 40, .cpu = 1, .ts = ts, .dur = dur, .nr = nr,
		.ustack = STACK_NONE, .kstack = STACK_NONE,
		.wustack = STACK_NONE, .wkstack = STACK_NONE,
	};

	strcpy(r.comm, "hot");
	return r;
}

/* Task actor (tid actor_tid) on the hot CPU from ts for dur ns */
static struct hc_rec intruder(__u64 ts, __u64 dur, __u32 actor_tid, const char *actor)
{
	struct hc_rec x = rec(HCR_TASK, ts, dur, 0);

	x.tid = 0;
	x.actor_tid = actor_tid;
	snprintf(x.actor, sizeof(x.actor), "%s", actor);
	return x;
}

static void feed(struct hc_run *r, struct hc_rec x)
{
	hc_on_record(r, &x, sizeof(x));
}

/* r afresh: opts, the hot CPUs, the CPUs online, the window from start
 * to end (0 and 0: none) */
static void fresh(struct hc_run *r, const struct common_opts *o, const struct cpu_list *cpus,
		  const char *online, __u64 start, __u64 end)
{
	memset(r, 0, sizeof(*r));
	r->opts = o;
	r->cpus = cpus;
	snprintf(r->cfg.online, sizeof(r->cfg.online), "%s", online);
	r->window_start_ns = start;
	r->window_end_ns = end;
}

int main(void)
{
	struct cpu_list cpus = { 0 };
	struct common_opts o = { 0 };
	struct hc_run r = { 0 };
	struct hc_rec x;
	const struct hc_timeline *tl;
	char buf[16];
	FILE *f;

	cpu_list_add(&cpus, 1);
	r.opts = &o;
	r.cpus = &cpus;
	strcpy(r.cfg.online, "0-1");
	r.realtime_offset_ns = 1000000;
	/* fed out of time order: the timeline sorts them */
	feed(&r, rec(HCR_SYSCALL, 300, 10, SYS_getppid));
	feed(&r, rec(HCR_SYSCALL, 100, 10, SYS_getppid));
	feed(&r, rec(HCR_SYSCALL, 200, 50, SYS_write));
	x = rec(HCR_FAULT, 400, 0, 0);
	x.ustack = STACK_LOST;		/* a stack, if only its marker */
	feed(&r, x);
	x = rec(HCR_BLOCK, 500, 1000, SYS_futex);
	x.wustack = STACK_LOST;
	x.actor_ctx = IRQCTX_TASK;
	x.actor_tid = 77;
	strcpy(x.actor, "waker");
	feed(&r, x);
	feed(&r, intruder(50, 20, 99, "intruder\x01"));
	x = rec(HCR_PREEMPT, 600, 5, -1);
	x.actor_tid = 99;
	strcpy(x.actor, "intruder");
	feed(&r, x);
	hc_on_record(&r, buf, sizeof(buf));	/* too short: counted, not kept */
	x = rec(HCR_TYPES, 1, 1, 0);
	feed(&r, x);				/* a type not known */
	CHECK_U64(r.kept.n, 7, "seven records kept");
	CHECK_U64(r.events, 7, "seven events counted");
	CHECK_U64(r.bad_records, 2, "two malformed records counted");

	hc_collect_build(&r);
	CHECK_STR(r.checks[HCK_SYSCALLS].name, "syscalls", "the first row is syscalls");
	CHECK_U64(r.checks[HCK_SYSCALLS].count, 3, "three syscalls");
	CHECK_U64(r.checks[HCK_SYSCALLS].time_ns, 70, "their time");
	CHECK_STR(r.checks[HCK_SYSCALLS].top_cause, "getppid x2 (20ns)", "the top cause: getppid, twice, their time");
	CHECK_U64(r.checks[HCK_FAULTS].count, 1, "one fault");
	CHECK_STR(r.checks[HCK_FAULTS].top_cause, "minor x1",
		  "the top cause: no function named where the stack names none");
	CHECK_U64(r.checks[HCK_BLOCKS].count, 1, "one block");
	CHECK_STR(r.causes[HCK_BLOCKS].v[0].cause, "futex, woken by waker (tid 77)",
		  "the block names its wait and its waker");
	CHECK_U64(r.checks[HCK_PREEMPTIONS].count, 1, "one preemption");
	CHECK_STR(r.causes[HCK_PREEMPTIONS].v[0].cause, "intruder (tid 99)", "by the intruder");
	CHECK_U64(r.checks[HCK_INTRUDERS].count, 1, "one intruder on the CPU");
	CHECK_STR(r.causes[HCK_INTRUDERS].v[0].cause, "intruder\\x01 (tid 99)",
		  "its comm escaped");
	CHECK(r.checks[HCK_MIGRATIONS].silent && r.checks[HCK_SIGNALS].silent,
	      "migrations and signals silent");
	CHECK(!strcmp(r.checks[HCK_MIGRATIONS].top_cause, "") &&
	      !strcmp(r.checks[HCK_MIGRATIONS].fix, ""), "a silent row: no cause, no fix");
	CHECK(r.checks[HCK_SYSCALLS].fix[0], "a row found has a fix");
	CHECK(!hc_threads_silent(&r) && !hc_all_silent(&r), "not silent");
	CHECK(!hc_check_thread_level(HCK_PREEMPTIONS) && hc_check_thread_level(HCK_SIGNALS),
	      "preemptions are the CPU's, signals the thread's");

	tl = hc_timeline(&r);
	CHECK_U64(tl->n, 7, "the timeline holds every record");
	CHECK_U64(tl->ev[0].start_ns, 50, "sorted: the intruder first");
	CHECK(tl->ev[0].kind == HC_INTRUDER && tl->ev[0].tid == 0, "a CPU-level event, tid 0");
	CHECK_STR(tl->ev[1].what, "getppid", "then the first getppid");
	CHECK_U64(tl->ev[6].start_ns, 600, "the preemption last");
	/* folded stacks (docs/CLI.md) begin with the comm, as bundle.c's
	 * folded files, hc_stack_leaf() and flamegraph.pl take them */
	CHECK_STR(tl->ev[4].stack, "hot;[user stack lost]",
		  "the fault's stack begins with the hot thread's comm");
	CHECK_STR(tl->ev[5].waker_stack, "waker;[user stack lost]",
		  "the waker's stack begins with the waker's comm");
	CHECK_STR(tl->ev[5].stack, "", "no stack taken: none, not a comm alone");
	CHECK_STR(tl->ev[6].stack, "hot", "a preemption's stack: its thread's comm alone");
	CHECK_U64(tl->events_dropped, 2, "the malformed records are events dropped");
	CHECK(tl->realtime_offset_ns == 1000000, "the clock offset");
	CHECK_U64(tl->n_checks, HCK_N, "every row in the timeline");
	CHECK(tl->checks == r.checks, "the rows are the verdict's");

	f = tmpfile();
	CHECK(f && !hc_report_json(&r, f), "the JSON report is written");
	if (f) {
		char doc[65536];
		size_t n;

		rewind(f);
		n = fread(doc, 1, sizeof(doc) - 1, f);
		doc[n] = 0;
		CHECK(strstr(doc, "\"checks\":[{\"check\":\"syscalls\",\"silent\":false,\"count\":3,"
			      "\"time_ns\":70,\"top_cause\":\"getppid x2 (20ns)\",\"fix\":") != NULL,
		      "its checks array, in the baseline's schema");
		CHECK(strstr(doc, "\"start_ns\":50,\"realtime_ns\":1000050,") != NULL,
		      "an event with both clocks");
		fclose(f);
	}
	hc_run_free(&r);

	/* The window: what the attach and the detach make (function-call IPIs
	 * of the kernel's text patching) is outside it, not counted */
	fresh(&r, &o, &cpus, "0-1", 1000, 2000);
	feed(&r, rec(HCR_VECTOR, 999, 1, 1));		/* before: not counted */
	feed(&r, rec(HCR_VECTOR, 1000, 1, 1));
	feed(&r, rec(HCR_VECTOR, 2000, 1, 1));
	feed(&r, rec(HCR_VECTOR, 2001, 1, 1));		/* after: not counted */
	feed(&r, rec(HCR_IRQ, 990, 20, 24));		/* entered before: not counted */
	feed(&r, rec(HCR_BLOCK, 500, 600, SYS_futex));	/* overlaps the start: counted */
	feed(&r, rec(HCR_SYSCALL, 400, 599, SYS_write));	/* ends before: not counted */
	hc_collect_build(&r);
	CHECK_U64(r.checks[HCK_IPIS].count, 2, "the two IPIs inside the window counted");
	CHECK(r.checks[HCK_IRQS].silent, "an IRQ entered before the window not counted");
	CHECK_U64(r.checks[HCK_BLOCKS].count, 1, "a block overlapping the start counted");
	CHECK(r.checks[HCK_SYSCALLS].silent, "a syscall over before the start not counted");
	CHECK_U64(r.outside_window, 4, "the four records outside the window counted as such");
	CHECK_U64(hc_timeline(&r)->n, 3, "the timeline holds the window's three");
	hc_run_free(&r);

	/* The tick counted once: the hrtimer callbacks run inside a local
	 * timer vector name its cause; one outside any counts by itself */
	fresh(&r, &o, &cpus, "0-1", 0, 0);
	x = rec(HCR_TIMER, 110, 5, 0);		/* inside the first tick */
	x.aux = 0;
	feed(&r, x);
	feed(&r, rec(HCR_VECTOR, 100, 20, HCV_LOCAL_TIMER));
	feed(&r, rec(HCR_VECTOR, 200, 20, HCV_LOCAL_TIMER));	/* no callback */
	x = rec(HCR_TIMER, 300, 5, 0);		/* outside any tick */
	feed(&r, x);
	x = rec(HCR_TIMER, 205, 5, 0);		/* inside the second, on another CPU */
	x.cpu = 0;
	feed(&r, x);
	hc_collect_build(&r);
	CHECK_U64(r.checks[HCK_TIMERS].count, 4,
		  "two ticks and the two callbacks outside a tick of their CPU, each once");
	CHECK_U64(r.causes[HCK_TIMERS].n, 3, "three causes");
	{
		bool named = false, bare = false;

		for (size_t i = 0; i < r.causes[HCK_TIMERS].n; i++) {
			const struct hc_cause *k = &r.causes[HCK_TIMERS].v[i];

			named |= !strcmp(k->cause, "local_timer: 0x0") && k->count == 1 &&
				 k->time_ns == 20;
			bare |= !strcmp(k->cause, "local_timer") && k->count == 1;
		}
		CHECK(named, "the tick with a callback: named by it, its own time");
		CHECK(bare, "the tick without one: local_timer");
	}
	CHECK_U64(hc_timeline(&r)->n, 5, "the timeline keeps every record");
	hc_run_free(&r);

	/* A callback in the window whose tick began before it: the tick is
	 * not counted, so the callback counts by itself */
	fresh(&r, &o, &cpus, "0-1", 1000, 2000);
	feed(&r, rec(HCR_VECTOR, 990, 30, HCV_LOCAL_TIMER));
	feed(&r, rec(HCR_TIMER, 1005, 5, 0));
	hc_collect_build(&r);
	CHECK_U64(r.checks[HCK_TIMERS].count, 1,
		  "a callback whose tick began before the window: counted by itself, once");
	hc_run_free(&r);

	/* Fixes name the real thread, CPUs and the reason when there is none:
	 * a migration of thread 42 to CPU 1, an intruder (tid 99) on hot CPU
	 * 1 of online 0-1; then the same intruder where CPU 1 is all there is */
	fresh(&r, &o, &cpus, "0-1", 0, 0);
	x = rec(HCR_MIGRATE, 100, 0, 1);
	x.aux = 0;
	feed(&r, x);
	x = intruder(200, 10, 99, "intruder");
	feed(&r, x);
	feed(&r, x);
	hc_collect_build(&r);
	CHECK(strstr(r.checks[HCK_MIGRATIONS].fix, "taskset -pc 1 42") != NULL,
	      "the migration's fix pins thread 42 to the CPU it moved to");
	CHECK(strstr(r.checks[HCK_INTRUDERS].fix, "taskset -pc 0 99") != NULL,
	      "the intruder's fix moves tid 99 to CPU 0, the CPU outside the hot one");
	for (int c = 0; c < HCK_N; c++)
		CHECK(!strstr(r.checks[c].fix, "TID") && !strstr(r.checks[c].fix, "-pc another") &&
		      !strstr(r.checks[c].fix, "OTHER-CPUS"), "no placeholder in a fix");
	CHECK_U64(r.causes[HCK_INTRUDERS].n, 1, "one intruder, one entry");
	CHECK_U64(r.causes[HCK_INTRUDERS].v[0].count, 2, "its two stays summed");
	hc_run_free(&r);
	fresh(&r, &o, &cpus, "1", 0, 0);
	feed(&r, x);
	hc_collect_build(&r);
	CHECK(strstr(r.checks[HCK_INTRUDERS].fix, "no CPU outside CPU 1 is online") != NULL,
	      "no CPU to move it to: said");
	hc_run_free(&r);

	/* Not pinned: the CPU rows are not checked (and not counted), the
	 * thread's rows are */
	fresh(&r, &o, &(struct cpu_list){ 0 }, "0-1", 0, 0);
	r.unpinned = true;
	r.affinity = "0-1";
	feed(&r, x);
	feed(&r, rec(HCR_SYSCALL, 300, 10, SYS_getppid));
	hc_collect_build(&r);
	CHECK(r.checks[HCK_INTRUDERS].skipped && r.checks[HCK_ISOLATION].skipped &&
	      !r.checks[HCK_SYSCALLS].skipped, "unpinned: the CPU rows skipped, the thread's not");
	CHECK(strstr(r.checks[HCK_INTRUDERS].skipped, "-C") != NULL, "and what to do said");
	CHECK(hc_all_silent(&r) == false && r.checks[HCK_INTRUDERS].silent,
	      "a skipped row does not decide the verdict");
	hc_run_free(&r);

	/* The timeline's cap: every event counted, the first ones kept */
	fresh(&r, &o, &cpus, "0-1", 0, 0);
	r.timeline_max = 3;
	for (int i = 0; i < 10; i++)
		feed(&r, rec(HCR_SYSCALL, 1000 + (__u64)i * 10, 5, SYS_getppid));
	hc_collect_build(&r);
	CHECK_U64(r.checks[HCK_SYSCALLS].count, 10, "ten syscalls counted");
	CHECK_U64(r.causes[HCK_SYSCALLS].n, 1, "one identity");
	CHECK_U64(hc_timeline(&r)->n, 3, "three kept");
	CHECK_U64(hc_timeline(&r)->events_not_kept, 7, "seven counted, not kept");
	CHECK_U64(hc_timeline(&r)->complete_until_ns, 1030, "the timeline whole until the first not kept");
	hc_run_free(&r);

	/* Cadence: intruder 99 comes every 250 ms (at 1 s, 1.25 s, 1.5 s,
	 * 1.75 s); at 1.25 s it is preempted after 1 ms and resumes at
	 * 1.26 s, which is no arrival; at 1.75 s it comes under another name
	 * (a cause of its own); softirq 9 twice only (no period) */
	fresh(&r, &o, &cpus, "0-1", 0, 0);
	for (int i = 0; i < 4; i++) {
		x = intruder(1000000000ull + (__u64)i * 250000000, 1000000, 99,
			     i == 3 ? "renamed" : "intruder");
		if (i == 1)
			x.flags |= HCR_F_RUNNABLE;
		feed(&r, x);
		if (i == 1) {
			x = intruder(1260000000ull, 1000000, 99, "intruder");
			feed(&r, x);
		}
	}
	for (int i = 0; i < 2; i++) {
		x = rec(HCR_SOFTIRQ, 2000000000ull + (__u64)i * 1000, 10, 9);
		x.tid = 0;
		feed(&r, x);
	}
	hc_collect_build(&r);
	CHECK_U64(r.checks[HCK_INTRUDERS].count, 5, "five stays counted");
	{
		struct cadence_result p = { 0 };
		const struct hc_cause *k = NULL;

		for (size_t i = 0; i < r.causes[HCK_INTRUDERS].n; i++)
			if (strstr(r.causes[HCK_INTRUDERS].v[i].cause, "intruder (tid 99)"))
				k = &r.causes[HCK_INTRUDERS].v[i];
		CHECK(k && cadence_get(&k->arrivals, &p), "the intruder has a period");
		CHECK_U64(p.period_ns, 250000000, "every 250 ms: the resumption is no arrival");
		CHECK_U64(p.intervals, 2, "three arrivals under its first name");
		CHECK(r.causes[HCK_SOFTIRQS].n == 1 &&
		      !cadence_get(&r.causes[HCK_SOFTIRQS].v[0].arrivals, &p),
		      "two arrivals: no period");
	}
	{
		char *out = NULL;
		size_t len = 0;

		f = open_memstream(&out, &len);
		hc_report_table(&r, f);
		fclose(f);
		CHECK(strstr(out, "\ncadence (") != NULL, "the plain report has a cadence section");
		CHECK(strstr(out, "cpu intruders         3  every 250 ms (\u00b1<1%)    "
				  "intruder (tid 99)\n") != NULL, "the intruder's row: arrivals, "
		      "period, cause");
		CHECK(!strstr(out, "softirqs         2"), "no row without a period");
		free(out);
	}
	hc_run_free(&r);
	cpu_list_free(&cpus);
	return unit_exit();
}
