// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Stolen time's decision (tools/lib/steal.h) on made-up readings: not
 * available, not reported by the hypervisor, and reported (0 ns is a
 * claim of its own), and the words a report says for each; the JSON
 * members hotcheck and schedsilence write of it (steal_json) */
#include "unit.h"
#include "json.h"
#include "steal.h"

static struct steal_sample rd(uint64_t steal, uint32_t version)
{
	return (struct steal_sample){ .steal = steal, .version = version, .ok = 1 };
}

struct json_case {
	const struct steal_result *r;
	bool with_mono;
};

/* One object of steal_json's members, as a tool writes it */
static void write_json(FILE *f, void *arg)
{
	const struct json_case *c = arg;
	struct json j;

	json_init(&j, f);
	json_obj_begin(&j);
	steal_json(&j, c->r, c->with_mono);
	json_obj_end(&j);
	json_finish(&j);
}

/* Every member each tool writes, in its order: the numbers only when
 * reported, max_mono_ns only with_mono (schedsilence) */
static void json_members(void)
{
	struct steal_result rep = { .status = STEAL_REPORTED, .stolen_ns = 12300000,
				    .max_ns = 4000000, .max_ts = 123, .steps = 7,
				    .samples = 500 };
	struct steal_result notrep = { .status = STEAL_NOT_REPORTED };
	struct json_case c;

	c = (struct json_case){ &rep, false };
	CHECK_CAPTURE(write_json, &c,
		      "{\"status\":\"reported\",\"stolen_ns\":12300000,"
		      "\"max_between_events_ns\":4000000,\"events_with_steal\":7,"
		      "\"events_read\":500,\"text\":\"stolen by the hypervisor: 12.3 ms "
		      "(at most 4.0 ms between two events on the CPU, 7 of 500 events "
		      "found more)\"}\n",
		      "JSON, reported, hotcheck's members (no max_mono_ns)");
	c = (struct json_case){ &rep, true };
	CHECK_CAPTURE(write_json, &c,
		      "{\"status\":\"reported\",\"stolen_ns\":12300000,"
		      "\"max_between_events_ns\":4000000,\"max_mono_ns\":123,"
		      "\"events_with_steal\":7,\"events_read\":500,"
		      "\"text\":\"stolen by the hypervisor: 12.3 ms (at most 4.0 ms between "
		      "two events on the CPU, 7 of 500 events found more)\"}\n",
		      "JSON, reported, schedsilence's members (max_mono_ns: max_ts)");
	c = (struct json_case){ &notrep, true };
	CHECK_CAPTURE(write_json, &c,
		      "{\"status\":\"not_reported\",\"text\":\"the hypervisor does not "
		      "report steal time on this machine (kvm_steal_time never written): "
		      "time it took is not known\"}\n",
		      "JSON, not reported: status and text, no numbers");
}

int main(void)
{
	struct steal_sample none = { 0 }, a, b;
	struct steal_cpu t = { 0 };
	struct steal_result r;
	char buf[512];

	/* the kernel has none to read */
	a = rd(100, 2);
	b = rd(200, 4);
	steal_decide(false, &a, &b, NULL, &r);
	CHECK(r.status == STEAL_UNAVAILABLE, "not available: said so, whatever was read");
	CHECK_U64(r.stolen_ns, 0, "not available: no time claimed");
	steal_describe(&r, buf, sizeof(buf));
	CHECK(!strncmp(buf, "steal time: not available on this kernel (", 42),
	      "not available: the words (%s)", buf);
	steal_decide(true, &none, &none, NULL, &r);
	CHECK(r.status == STEAL_UNAVAILABLE, "available, but neither end could be read");
	CHECK_STR(steal_status_name(r.status), "unavailable", "its JSON name");

	/* the hypervisor never wrote it: version 0 at both ends */
	a = rd(0, 0);
	b = rd(0, 0);
	steal_decide(true, &a, &b, &t, &r);
	CHECK(r.status == STEAL_NOT_REPORTED, "version 0 at both ends: not reported");
	steal_describe(&r, buf, sizeof(buf));
	CHECK(strstr(buf, "the hypervisor does not report steal time on this machine") == buf,
	      "not reported: the words (%s)", buf);
	CHECK(!strstr(buf, "0 ns"), "not reported is not '0 ns stolen'");
	CHECK_STR(steal_status_name(r.status), "not_reported", "its JSON name");

	/* reported, nothing stolen: 0 ns, a different claim */
	a = rd(5000000, 10);
	b = rd(5000000, 10);
	steal_decide(true, &a, &b, &t, &r);
	CHECK(r.status == STEAL_REPORTED, "version set, steal unchanged: reported");
	CHECK_U64(r.stolen_ns, 0, "reported: 0 ns stolen");
	steal_describe(&r, buf, sizeof(buf));
	CHECK_STR(buf, "stolen by the hypervisor: 0 ns", "reported 0: the words");
	CHECK_STR(steal_status_name(r.status), "reported", "its JSON name");

	/* reported, stolen: the difference of the ends; the most between
	 * two events, never more than the whole */
	a = rd(1000000, 6);
	b = rd(13300000, 40);
	t = (struct steal_cpu){ .samples = 500, .steps = 7, .max_delta = 4000000,
				.max_ts = 123, .version = 40 };
	steal_decide(true, &a, &b, &t, &r);
	CHECK(r.status == STEAL_REPORTED, "stolen: reported");
	CHECK_U64(r.stolen_ns, 12300000, "stolen: end - start");
	CHECK_U64(r.max_ns, 4000000, "stolen: the most between two events");
	CHECK_U64(r.max_ts, 123, "stolen: and when");
	CHECK_U64(r.steps, 7, "stolen: events that found more");
	steal_describe(&r, buf, sizeof(buf));
	CHECK_STR(buf, "stolen by the hypervisor: 12.3 ms (at most 4.0 ms between two events "
		  "on the CPU, 7 of 500 events found more)", "stolen: the words");
	t.max_delta = 50000000;
	steal_decide(true, &a, &b, &t, &r);
	CHECK_U64(r.max_ns, 12300000, "a reading after the window's end: max held to the whole");

	/* the host began to report during the window */
	a = rd(0, 0);
	b = rd(700000, 2);
	steal_decide(true, &a, &b, NULL, &r);
	CHECK(r.status == STEAL_REPORTED, "begun in the window: reported");
	CHECK_U64(r.stolen_ns, 700000, "begun in the window: all it counted");

	/* version 0 at the ends but events read a version: reported */
	a = rd(0, 0);
	b = rd(0, 0);
	t = (struct steal_cpu){ .samples = 3, .version = 2 };
	steal_decide(true, &a, &b, &t, &r);
	CHECK(r.status == STEAL_REPORTED, "events saw a version: reported");

	/* the ends unread (no event had located the CPU at the start): the
	 * first and last readings of the window stand in */
	t = (struct steal_cpu){ .samples = 9, .first = 2000, .first_ts = 50,
				.last = 9000, .version = 8 };
	b = rd(9500, 8);
	steal_decide(true, &none, &b, &t, &r);
	CHECK(r.status == STEAL_REPORTED, "start unread: reported from the first event");
	CHECK_U64(r.stolen_ns, 7500, "start unread: end - first event's reading");
	steal_decide(true, &none, &none, &t, &r);
	CHECK_U64(r.stolen_ns, 7000, "both unread: last - first event's reading");
	t = (struct steal_cpu){ 0 };
	steal_decide(true, &none, &none, &t, &r);
	CHECK(r.status == STEAL_UNAVAILABLE, "never read, no event: not available");

	/* the guest registered anew: the counter began again */
	a = rd(9000000, 20);
	b = rd(300, 2);
	steal_decide(true, &a, &b, NULL, &r);
	CHECK_U64(r.stolen_ns, 300, "counter restarted: what it counted since");

	json_members();
	return unit_exit();
}
