// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* schedsilence's verdict on recorded event streams (no CPU of a test
 * machine is ever truly silent, so silence itself is proven here), and
 * the parsers behind its corroboration and fixes. */
#include "unit.h"
#include "msg.h"
#include "model.h"
#include "sysenv.h"
#include "irqctx.h"
#include "irqctx.h"
#include <stdlib.h>

#define CPU 3
#define MS 1000000ull

static struct cpu_list cpus;
static struct id_list allow_tids;
static const char comms[][SILENCE_COMM_LEN] = { "app_spin" };

static struct silence *mk(size_t timeline)
{
	struct silence_cfg cfg = {
		.cpus = &cpus,
		.allow_tids = &allow_tids,
		.allow_comms = comms,
		.n_allow_comms = 1,
		.timeline_max = timeline,
		.start_ts = 1000 * MS,
	};

	return silence_new(&cfg);
}

static struct ss_event sw(uint64_t ts, uint32_t prev, const char *pcomm, uint32_t next,
			  const char *ncomm)
{
	struct ss_event e = { .type = SS_EV_SWITCH, .cpu = CPU, .ts = ts };

	e.pid = next;
	e.pid2 = prev;
	e.id = 1;	/* prev goes to sleep (TASK_INTERRUPTIBLE) */
	snprintf(e.name, sizeof(e.name), "%s", ncomm);
	snprintf(e.name2, sizeof(e.name2), "%s", pcomm);
	if (!strncmp(ncomm, "kworker", 7))
		e.flags = SS_TASK_KTHREAD;
	return e;
}

static struct ss_event span(uint64_t ts, uint64_t dur, uint32_t kind, uint32_t id,
			    const char *name, uint64_t addr)
{
	struct ss_event e = { .type = SS_EV_SPAN, .cpu = CPU, .ts = ts, .dur = dur };

	e.kind = kind;
	e.id = id;
	e.addr = addr;
	snprintf(e.name, sizeof(e.name), "%s", name ? name : "");
	return e;
}

/* the switch-out of prev was a preemption */
static struct ss_event preempted(struct ss_event e)
{
	e.kind = 1;
	return e;
}

/* prev stays runnable (TASK_RUNNING) */
static struct ss_event runnable(struct ss_event e)
{
	e.id = 0;
	return e;
}

static void feed(struct silence *s, const struct ss_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		silence_feed(s, &ev[i], sizeof(ev[i]));
}

/* A model with room for timeline events, fed the stream ev in order,
 * its window closed at 2000 ms */
static struct silence *run(size_t timeline, const struct ss_event *ev, size_t n)
{
	struct silence *s = mk(timeline);

	feed(s, ev, n);
	silence_finish(s, 2000 * MS);
	return s;
}

static const struct intruder *find(const struct silence *s, enum silence_kind k,
				   const char *name)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].kind == k && !strcmp(s->rows[i].name, name) && s->rows[i].count)
			return &s->rows[i];
	return NULL;
}

static void test_silence(void)
{
	struct silence *s;
	size_t k = 99;

	/* nothing at all */
	s = run(10, NULL, 0);
	CHECK(silence_cpu_silent(s, CPU, 0), "an empty stream is silence");
	CHECK_U64(silence_cpu_events(s, CPU, &k), 0, "no events");
	CHECK_U64(k, 0, "no intruders");
	CHECK(!silence_cpu_silent(s, CPU, 1), "a lost event forbids the silent verdict");
	silence_free(s);

	/* a single switch-in of the allowed thread (by comm), from idle */
	{
		struct ss_event ev[] = { sw(1100 * MS, 0, "swapper/3", 4242, "app_spin") };

		s = run(10, ev, ARRAY_SIZE(ev));
	}
	CHECK(silence_cpu_silent(s, CPU, 0), "one switch-in of the allowed thread is silence");
	CHECK_U64(s->cpus[0].allowed_switch_ins, 1, "the allowed switch-in is counted as such");
	silence_free(s);

	/* allowed by tid, comm not allowed; and idle in between */
	id_list_add(&allow_tids, 77);
	{
		struct ss_event ev[] = {
			sw(1100 * MS, 0, "swapper/3", 77, "other_name"),
			sw(1200 * MS, 77, "other_name", 0, "swapper/3"),
			sw(1300 * MS, 0, "swapper/3", 77, "other_name"),
		};
		s = run(10, ev, ARRAY_SIZE(ev));
	}
	CHECK(silence_cpu_silent(s, CPU, 0), "an allowed tid going idle and back is silence");
	CHECK_U64(s->cpus[0].idle_switch_ins, 1, "one idle switch-in");
	id_list_free(&allow_tids);
	silence_free(s);

	/* the allowed thread was running when tracing began */
	{
		struct ss_event ev[] = { sw(1500 * MS, 4242, "app_spin", 4242, "app_spin") };

		s = run(10, ev, ARRAY_SIZE(ev));
	}
	CHECK(silence_cpu_silent(s, CPU, 0), "the allowed thread running from the start is silence");
	silence_free(s);

	/* events of another CPU and before the window are not counted */
	{
		struct ss_event ev[] = {
			span(900 * MS, 5000, SS_SPAN_VECTOR, SS_VEC_LOCAL_TIMER, NULL, 0),
			span(1100 * MS, 5000, SS_SPAN_VECTOR, SS_VEC_LOCAL_TIMER, NULL, 0),
		};
		ev[1].cpu = CPU + 1;
		s = run(10, ev, ARRAY_SIZE(ev));
	}
	CHECK(silence_cpu_silent(s, CPU, 0), "events outside the window or CPU are ignored");
	CHECK_U64(s->events_ignored, 2, "both were ignored");
	silence_free(s);
}

static void test_intruders(void)
{
	struct ss_event wake = { .type = SS_EV_WAKEUP, .cpu = CPU, .ts = 1050 * MS, .pid = 41,
				 .pid2 = 1, .name = "kworker/3:1", .name2 = "systemd" };
	struct ss_event mig = { .type = SS_EV_MIGRATE, .cpu = CPU, .ts = 1060 * MS, .pid = 900,
				.flags2 = 0, .name = "intruder" };
	struct ss_event mig_ok = { .type = SS_EV_MIGRATE, .cpu = CPU, .ts = 1061 * MS,
				   .pid = 4242, .name = "app_spin" };
	struct ss_event ipi = { .type = SS_EV_IPI_SEND, .cpu = CPU, .ts = 1070 * MS, .pid = 12,
				.addr = 0x10, .addr2 = 0x20, .name2 = "sender" };
	struct ss_event ev[] = {
		/* fed first: a wakeup, two migrations, two IPIs sent */
		wake, mig, mig_ok, ipi, ipi,
		/* a user task was running at the start, then the app */
		sw(1010 * MS, 555, "cron", 4242, "app_spin"),
		/* a kworker preempts the app twice: 2 ms and 3 ms; its first
		 * switch-out is a preemption, the second leaves it runnable */
		sw(1100 * MS, 4242, "app_spin", 41, "kworker/3:1"),
		preempted(sw(1102 * MS, 41, "kworker/3:1", 4242, "app_spin")),
		sw(1200 * MS, 4242, "app_spin", 41, "kworker/3:1"),
		runnable(sw(1203 * MS, 41, "kworker/3:1", 4242, "app_spin")),
		/* ticks and a softirq, an irq and a work item */
		span(1300 * MS, 7000, SS_SPAN_VECTOR, SS_VEC_LOCAL_TIMER, NULL, 0),
		span(1304 * MS, 9000, SS_SPAN_VECTOR, SS_VEC_LOCAL_TIMER, NULL, 0),
		span(1304 * MS + 10000, 2000, SS_SPAN_SOFTIRQ, 1, NULL, 0),
		span(1400 * MS, 3000, SS_SPAN_IRQ, 24, "virtio0", 0),
		span(1500 * MS, 4000, SS_SPAN_WORK, 0, NULL, 0xffffffff81000000ull),
		span(1501 * MS, 1000, SS_SPAN_VECTOR, SS_VEC_RESCHEDULE, NULL, 0),
		span(1502 * MS, 1000, SS_SPAN_VECTOR, SS_VEC_THERMAL_APIC, NULL, 0),
		/* and a task that is still running at the end */
		sw(1900 * MS, 4242, "app_spin", 900, "intruder"),
	};
	struct silence *s = run(4, ev, ARRAY_SIZE(ev));
	const struct intruder *r;
	size_t k;

	silence_sort(s);

	CHECK(!silence_cpu_silent(s, CPU, 0), "intruders: not silent");
	CHECK_U64(silence_cpu_events(s, CPU, &k), 12, "12 intruding events");
	CHECK_U64(k, 10, "from 10 intruders");

	r = find(s, SK_TASK, "kworker/3:1");
	CHECK(r != NULL, "the kworker is a task intruder");
	if (r) {
		CHECK_U64(r->count, 2, "kworker: 2 switch-ins");
		CHECK_U64(r->total_ns, 5 * MS, "kworker: 5 ms in all");
		CHECK_U64(r->max_ns, 3 * MS, "kworker: longest 3 ms");
		CHECK_U64(r->first_ts, 1100 * MS, "kworker: first");
		CHECK_U64(r->last_ts, 1200 * MS, "kworker: last");
		CHECK(r->kthread, "kworker: a kernel thread");
		CHECK_U64(r->wakeups, 1, "kworker: woken once onto the CPU");
		CHECK_U64(r->preempted, 2, "kworker: preempted once, left runnable once");
		CHECK_STR(r->waker, "systemd", "kworker: by systemd");
	}
	r = find(s, SK_TASK, "cron");
	CHECK(r && r->running_at_start && r->count == 1 && r->total_ns == 10 * MS,
	      "a task on the CPU at the start counts once, from the start");
	CHECK(r && r->preempted == 0, "a task that went to sleep was not preempted");
	r = find(s, SK_TASK, "intruder");
	CHECK(r && r->running_at_end && r->total_ns == 100 * MS,
	      "a task still running counts up to the end");
	CHECK(find(s, SK_TASK, "app_spin") == NULL, "the allowed thread is not listed");
	CHECK(find(s, SK_MIGRATION, "app_spin") == NULL, "its migration is not an intrusion");
	r = find(s, SK_MIGRATION, "intruder");
	CHECK(r && r->count == 1, "a migration onto the CPU is an intrusion");
	r = find(s, SK_TIMER_TICK, "local_timer");
	CHECK(r && r->count == 2 && r->total_ns == 16000 && r->max_ns == 9000,
	      "two ticks, 16 us, longest 9 us");
	r = find(s, SK_SOFTIRQ, "TIMER");
	CHECK(r && r->id == 1, "softirq 1 is TIMER");
	r = find(s, SK_IRQ, "virtio0");
	CHECK(r && r->id == 24, "irq 24 is named by its action");
	r = find(s, SK_IPI, "reschedule");
	CHECK(r && r->count == 1, "the reschedule vector is an IPI");
	r = find(s, SK_IRQ, "thermal_apic");
	CHECK(r && r->id == SILENCE_NO_ID, "APIC vectors are irqs without a number");
	CHECK(s->nrows && s->rows[0].count >= s->rows[s->nrows - 1].count,
	      "rows sorted by count");
	{
		size_t w = 0;

		for (size_t i = 0; i < s->nrows; i++)
			if (s->rows[i].kind == SK_WORKQUEUE && s->rows[i].addr == 0xffffffff81000000ull)
				w++;
		CHECK_U64(w, 1, "the work item is keyed by its function");
	}
	CHECK_U64(s->nsenders, 1, "IPI sends grouped by sender and call site");
	CHECK_U64(s->nsenders ? s->senders[0].count : 0, 2, "two IPIs sent");

	/* timeline: the first 4 intruding events, sorted, rows followed */
	CHECK_U64(s->ntimeline, 4, "timeline bounded at 4");
	CHECK_U64(s->timeline_dropped, 8, "8 events not kept");
	CHECK(s->ntimeline == 4 && s->timeline[0].ts <= s->timeline[1].ts &&
	      s->timeline[1].ts <= s->timeline[2].ts, "timeline in time order");
	CHECK(s->ntimeline == 4 && !strcmp(s->rows[s->timeline[0].row].name, "cron"),
	      "the first timeline entry is the task running at the start");
	CHECK(s->ntimeline == 4 && s->timeline[1].dur == 0 &&
	      !strcmp(s->rows[s->timeline[1].row].name, "intruder"),
	      "a migration is an instant");
	CHECK(s->ntimeline == 4 && s->timeline[2].dur == 2 * MS &&
	      !strcmp(s->rows[s->timeline[2].row].name, "kworker/3:1"),
	      "a task's timeline entry gets its duration at the switch-out");
	silence_free(s);
}

/* A wakeup made in interrupt context is the interrupt's: a timer that
 * fires while the allowed app runs, and wakes a kworker onto the CPU,
 * must not make the app its waker (nor an IPI sender) */
static void test_irq_waker(void)
{
	/* woken from a hard interrupt, then from a softirq, each time
	 * while app_spin ran (it is current in the event) */
	struct ss_event hard = { .type = SS_EV_WAKEUP, .cpu = CPU, .ts = 1050 * MS, .pid = 41,
				 .pid2 = 4242, .name = "kworker/3:1", .name2 = "app_spin",
				 .kind = IRQCTX_HARDIRQ };
	struct ss_event soft = { .type = SS_EV_WAKEUP, .cpu = CPU, .ts = 1150 * MS, .pid = 42,
				 .pid2 = 4242, .name = "kworker/3:2", .name2 = "app_spin",
				 .kind = IRQCTX_SOFTIRQ };
	/* and one from the app itself, in task context */
	struct ss_event task = { .type = SS_EV_WAKEUP, .cpu = CPU, .ts = 1160 * MS, .pid = 41,
				 .pid2 = 4242, .name = "kworker/3:1", .name2 = "app_spin" };
	struct ss_event ipi = { .type = SS_EV_IPI_SEND, .cpu = CPU, .ts = 1070 * MS, .pid = 4242,
				.addr = 0x10, .addr2 = 0x20, .name2 = "app_spin",
				.kind = IRQCTX_HARDIRQ };
	struct ss_event ev[] = {
		hard, soft, ipi,
		sw(1100 * MS, 4242, "app_spin", 41, "kworker/3:1"),
		sw(1102 * MS, 41, "kworker/3:1", 4242, "app_spin"),
		sw(1200 * MS, 4242, "app_spin", 42, "kworker/3:2"),
		sw(1203 * MS, 42, "kworker/3:2", 4242, "app_spin"),
	};
	struct silence *s = run(4, ev, ARRAY_SIZE(ev));
	const struct intruder *r;

	silence_sort(s);
	r = find(s, SK_TASK, "kworker/3:1");
	CHECK(r && r->wakeups == 1, "kworker/3:1: woken once");
	CHECK_STR(r ? r->waker : NULL, "[hardirq]", "woken by a hard interrupt, not by app_spin");
	CHECK(r && r->waker_pid == 0, "no pid for an interrupt");
	r = find(s, SK_TASK, "kworker/3:2");
	CHECK_STR(r ? r->waker : NULL, "[softirq]", "woken by a softirq, not by app_spin");
	CHECK(s->nsenders == 1 && !strcmp(s->senders[0].comm, "[hardirq]") &&
	      s->senders[0].pid == 0, "an IPI sent from a hard interrupt is the interrupt's");
	/* a wakeup in task context is the task's */
	silence_feed(s, &task, sizeof(task));
	r = find(s, SK_TASK, "kworker/3:1");
	CHECK_STR(r ? r->waker : NULL, "app_spin", "in task context, the task is the waker");
	CHECK(r && r->waker_pid == 4242, "with its pid");
	silence_free(s);
}

static void test_tick_stop(void)
{
	/* kind: the tick stopped; id: the dependency bits that kept it */
	struct ss_event ev[] = {
		{ .type = SS_EV_TICK_STOP, .cpu = CPU, .ts = 1100 * MS, .kind = 0, .id = 0x4 },
		{ .type = SS_EV_TICK_STOP, .cpu = CPU, .ts = 1100 * MS, .kind = 0, .id = 0x10 },
		{ .type = SS_EV_TICK_STOP, .cpu = CPU, .ts = 1100 * MS, .kind = 1, .id = 0 },
	};
	struct silence *s = run(0, ev, ARRAY_SIZE(ev));
	char deps[64];

	CHECK_U64(s->cpus[0].tick_stop_fail, 2, "tick_stop: two failures");
	CHECK_U64(s->cpus[0].tick_stop_ok, 1, "tick_stop: one success");
	silence_tick_deps_str(s->cpus[0].tick_deps, deps, sizeof(deps));
	CHECK_STR(deps, "SCHED,RCU", "tick_stop: the dependencies that kept the tick");
	CHECK(silence_cpu_silent(s, CPU, 0), "tick_stop records are not intrusions themselves");
	silence_free(s);
}

static void test_lost_switch(void)
{
	struct ss_event ev[] = {
		sw(1100 * MS, 0, "swapper/3", 50, "a"),
		/* the switch a -> b was lost: b switches out */
		sw(1200 * MS, 51, "b", 0, "swapper/3"),
	};
	struct silence *s = run(0, ev, ARRAY_SIZE(ev));
	const struct intruder *r = find(s, SK_TASK, "a");

	CHECK(r && r->total_ns == 100 * MS, "a lost switch closes the open task at the next one");
	CHECK(find(s, SK_TASK, "b") == NULL, "a task only seen leaving is not invented");
	silence_free(s);
}

/* Cadence: a task that arrives every 100 ms, once preempted and resumed
 * (the resumption is not an arrival), and a tick every 4 ms */
static void test_cadence(void)
{
	struct ss_event ev[16];
	size_t n = 0;
	struct silence *s;
	const struct intruder *r;
	struct cadence_result c;

	for (int i = 0; i < 4; i++) {
		uint64_t t = 1100 * MS + (uint64_t)i * 100 * MS;

		ev[n++] = sw(t, 0, "swapper/3", 60, "periodic");
		if (i == 1) {	/* preempted by a kworker, then resumed */
			ev[n++] = preempted(sw(t + 1 * MS, 60, "periodic", 70, "kworker/3:1"));
			ev[n++] = sw(t + 2 * MS, 70, "kworker/3:1", 60, "periodic");
		}
		ev[n++] = sw(t + 3 * MS, 60, "periodic", 0, "swapper/3");
	}
	for (int i = 0; i < 3; i++)
		ev[n++] = span(1100 * MS + (uint64_t)i * 4 * MS, 1000, SS_SPAN_VECTOR,
			       SS_VEC_LOCAL_TIMER, NULL, 0);
	s = run(0, ev, n);
	r = find(s, SK_TASK, "periodic");
	CHECK(r && r->count == 5, "the task: 5 switch-ins");
	CHECK(r && cadence_get(&r->arrivals, &c) && c.intervals == 3 && c.period_ns == 100 * MS &&
	      c.spread_pct == 0, "its cadence: 4 arrivals (not the resumption), every 100 ms");
	r = find(s, SK_TIMER_TICK, "local_timer");
	CHECK(r && cadence_get(&r->arrivals, &c) && c.period_ns == 4 * MS,
	      "the tick's cadence: every 4 ms");
	CHECK(!cadence_get(&find(s, SK_TASK, "kworker/3:1")->arrivals, &c),
	      "one arrival: no cadence");
	silence_free(s);
}

/* --trace keeps more than --timeline prints (timeline_keep): the
 * cadence's stream, every event kept; a resumption is marked; the kept
 * are bounded by the larger of the two */
static void test_timeline_keep(void)
{
	struct silence_cfg cfg = {
		.cpus = &cpus, .allow_tids = &allow_tids, .allow_comms = comms,
		.n_allow_comms = 1, .timeline_max = 2, .timeline_keep = 100,
		.start_ts = 1000 * MS,
	};
	struct ss_event ev[16];
	size_t n = 0, resumed = 0, periodic = 0;
	struct silence *s;

	for (int i = 0; i < 2; i++) {
		uint64_t t = 1100 * MS + (uint64_t)i * 100 * MS;

		ev[n++] = sw(t, 0, "swapper/3", 60, "periodic");
		if (i == 1) {
			ev[n++] = preempted(sw(t + 1 * MS, 60, "periodic", 70, "kworker/3:1"));
			ev[n++] = sw(t + 2 * MS, 70, "kworker/3:1", 60, "periodic");
		}
		ev[n++] = sw(t + 3 * MS, 60, "periodic", 0, "swapper/3");
	}
	s = silence_new(&cfg);
	feed(s, ev, n);
	silence_finish(s, 2000 * MS);
	silence_sort(s);
	CHECK_U64(silence_timeline_cap(&s->cfg), 100, "kept: the larger of keep and max");
	CHECK_U64(s->ntimeline, 4, "every intruding event kept: 3 switch-ins, the kworker's");
	CHECK_U64(s->timeline_dropped, 0, "none dropped");
	for (size_t i = 0; i < s->ntimeline; i++) {
		if (strcmp(s->rows[s->timeline[i].row].name, "periodic"))
			continue;
		periodic++;
		resumed += s->timeline[i].resumed;
		if (s->timeline[i].resumed)
			CHECK_U64(s->timeline[i].ts, 1202 * MS, "the resumption is the one at 1202 ms");
	}
	CHECK(periodic == 3 && resumed == 1, "periodic: 3 entries, 1 a resumption (%zu, %zu)",
	      periodic, resumed);
	silence_free(s);
	cfg.timeline_keep = 0;
	s = silence_new(&cfg);
	feed(s, ev, n);
	CHECK(s->ntimeline == 2 && s->timeline_dropped == 2,
	      "without keep: timeline_max kept, the rest counted");
	silence_free(s);
}

static const char interrupts[] =
"            CPU0       CPU1       CPU2       CPU3       \n"
"  24:          1          0          0        812  IO-APIC   5-edge      virtio0\n"
"  36:          0      72008          5          0  PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
"NMI:          0          0          0          0   Non-maskable interrupts\n"
"LOC:      23137      27150       100       5000   Local timer interrupts\n"
"ERR:          0\n";

static const char interrupts2[] =
"            CPU0       CPU1       CPU2       CPU3       \n"
"  24:          1          0          0        900  IO-APIC   5-edge      virtio0\n"
"  36:          0      72010          5          0  PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
"NMI:          0          0          0          0   Non-maskable interrupts\n"
"LOC:      23137      27150       100       5250   Local timer interrupts\n"
"ERR:          0\n";

static void test_env(void)
{
	struct cpu_list l = { 0 }, w = { 0 };
	struct irq_snap a, b;
	struct irq_moved *m;
	char buf[512], err[64];
	size_t n;

	CHECK(cmdline_param("quiet isolcpus=domain,2-3 nohz_full=3", "isolcpus", buf, sizeof(buf)) &&
	      !strcmp(buf, "domain,2-3"), "isolcpus= is read from the command line");
	CHECK(!cmdline_param("quiet xnohz_full=3", "nohz_full", buf, sizeof(buf)),
	      "a longer key is not the one asked for");
	CHECK(!cmdline_param("quiet -- rcu_nocbs=1", "rcu_nocbs", buf, sizeof(buf)),
	      "what follows -- belongs to init");
	CHECK(cmdline_param("rcu_nocbs=1 rcu_nocbs=2", "rcu_nocbs", buf, sizeof(buf)) &&
	      !strcmp(buf, "2"), "the last occurrence wins");

	CHECK(!cpumask_hex_parse("3", &l) && l.n == 2, "cpumask 3 is CPUs 0-1");
	cpu_list_str(&l, buf, sizeof(buf));
	CHECK_STR(buf, "0-1", "and prints as 0-1");
	CHECK(!cpumask_hex_parse("1,00000005", &l), "cpumask with words parses");
	cpu_list_str(&l, buf, sizeof(buf));
	CHECK_STR(buf, "0,2,32", "1,00000005 is CPUs 0,2,32");
	CHECK(cpumask_hex_parse("xyz", &l) == -1, "a bad cpumask is refused");
	cpu_list_free(&l);

	parse_cpu_list("3", 64, &w, err, sizeof(err));
	CHECK(!irq_snap_parse(interrupts, &w, &a), "/proc/interrupts parses");
	CHECK(!irq_snap_parse(interrupts2, &w, &b), "a second snapshot parses");
	CHECK_U64(a.n, 5, "5 lines");
	CHECK(a.n == 5 && !strcmp(a.lines[0].id, "24") && a.lines[0].cnt[0] == 812,
	      "the CPU3 column of irq 24");
	CHECK(a.n == 5 && !strcmp(a.lines[3].desc, "Local timer interrupts"),
	      "descriptions have their blanks squeezed");
	n = irq_snap_delta(&a, &b, 0, &m);
	CHECK_U64(n, 2, "two lines moved on CPU 3");
	CHECK(n == 2 && !strcmp(m[0].id, "24") && m[0].delta == 88 &&
	      !strcmp(m[1].id, "LOC") && m[1].delta == 250, "irq 24 +88, LOC +250");
	CHECK(n == 2 && !strcmp(m[0].desc, "IO-APIC 5-edge virtio0"), "with the line's text");
	free(m);
	irq_snap_free(&a);
	irq_snap_free(&b);

	isol_fix_irq(24, "0-3", "3", 3, &w, "0-3", buf, sizeof(buf));
	CHECK_STR(buf, "allowed here by /proc/irq/24/smp_affinity_list = 0-3; move it with: "
		  "echo 0-2 > /proc/irq/24/smp_affinity_list", "the IRQ fix names the command");
	isol_fix_irq(24, "3", "3", 3, &w, "0-3", buf, sizeof(buf));
	CHECK(strstr(buf, "echo 0-2 >") != NULL, "an IRQ bound to the CPU goes to the others online");
	isol_fix_irq(24, "0-2", "0", 3, &w, "0-3", buf, sizeof(buf));
	CHECK(strstr(buf, "already excludes CPU 3") != NULL, "an IRQ already moved is said so");
	isol_fix_irq(24, NULL, NULL, 3, &w, "0-3", buf, sizeof(buf));
	CHECK(strstr(buf, "unreadable") != NULL, "an IRQ that is gone is said so");
	cpu_list_free(&w);

	silence_tick_deps_str(0x4 | 0x10, buf, sizeof(buf));
	CHECK_STR(buf, "SCHED,RCU", "tick dependency bits are named");
	CHECK_STR(irqctx_softirq_name(9), "RCU", "softirq 9 is RCU");
	CHECK_STR(silence_vector_name(SS_VEC_CALL_FUNCTION_SINGLE), "call_function_single",
		  "vector names");
}

int main(void)
{
	char err[64];

	parse_cpu_list("3", 64, &cpus, err, sizeof(err));
	test_silence();
	test_intruders();
	test_irq_waker();
	test_lost_switch();
	test_cadence();
	test_timeline_keep();
	test_tick_stop();
	test_env();
	cpu_list_free(&cpus);
	return unit_exit();
}
