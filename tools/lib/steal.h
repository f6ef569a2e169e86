/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Stolen time, the user half (the BPF half: bpf/steal.bpf.h): whether
 * this kernel has it to read and why not, each watched CPU read at the
 * window's ends, and the decision a report states, which are three
 * different claims:
 *   - not available: this kernel has no steal_time to read (why);
 *   - not reported: the kernel has it, but the hypervisor never wrote it
 *     (its version is 0): nothing is known of what it took;
 *   - reported: the hypervisor writes it; N ns were stolen (0 is 0).
 * A guest on a host that does not offer steal time (KVM_FEATURE_STEAL_TIME)
 * never registers it, and its /proc/stat steal column stays 0 too. */
#ifndef SUITE_STEAL_USER_H
#define SUITE_STEAL_USER_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "stealtime.h"

struct bpf_object;
struct json;

enum steal_status {
	STEAL_UNAVAILABLE,	/* this kernel has none to read */
	STEAL_NOT_REPORTED,	/* the hypervisor does not write it */
	STEAL_REPORTED,		/* stolen_ns is what it took */
};

/* What a report says of one CPU over the window */
struct steal_result {
	enum steal_status status;
	uint64_t stolen_ns;	/* reported: stolen between the window's ends */
	uint64_t max_ns;	/* reported: most stolen between two events on
				 * the CPU (ticks, interrupts) in the window */
	uint64_t max_ts;	/* CLOCK_MONOTONIC ns of the event that saw it */
	uint64_t steps;		/* events that found more stolen than the last */
	uint64_t samples;	/* events that read it (host reporting) */
};

/* The BPF half of an object that includes bpf/steal.bpf.h, after load */
struct steal_reader {
	int prog_fd;		/* steal_snapshot, or -1 */
	int snap_fd;		/* steal_snap, or -1 */
	int cpus_fd;		/* steal_cpus, or -1 */
	bool available;
};

/* Can this kernel's stolen time be read (kfeat's KF_STEAL_TIME, and an
 * x86 build)?  If not, why, in words that end "not available on this
 * kernel (WHY)" */
bool steal_available(void);
const char *steal_unavailable_why(void);

/* Find the BPF half in obj (loaded); r->available false if it is not
 * there or the kernel has no steal time */
void steal_open(struct steal_reader *r, struct bpf_object *obj);
/* CPU cpu read now into *out (out->ok 0 if it could not be);
 * window_start, if not 0, starts the window of the per-event readings */
int steal_snap(const struct steal_reader *r, uint32_t cpu, uint64_t window_start,
	       struct steal_sample *out);
/* The per-event readings of CPU cpu (zeroed if none) */
int steal_ticks(const struct steal_reader *r, uint32_t cpu, struct steal_cpu *out);

/* The decision, pure (unit-tested with made-up readings): available as
 * steal_available(), the readings at the window's ends, and the per-event
 * readings (may be NULL) */
void steal_decide(bool available, const struct steal_sample *start,
		  const struct steal_sample *end, const struct steal_cpu *ticks,
		  struct steal_result *res);

/* One line of a report on it, no newline: "stolen by the hypervisor:
 * 12.3 ms (max 4.0 ms between two events)", "the hypervisor does not
 * report steal time on this machine", "steal time: not available on this
 * kernel (...)" */
void steal_describe(const struct steal_result *res, char *buf, size_t size);
/* "reported", "not_reported", "unavailable" (JSON) */
const char *steal_status_name(enum steal_status s);

/* The members of one CPU's JSON object (the caller opens and closes it,
 * and adds its own members around them): "status"; if reported,
 * "stolen_ns", "max_between_events_ns", "max_mono_ns" (only if with_mono:
 * max_ts), "events_with_steal", "events_read"; "text" (steal_describe) */
void steal_json(struct json *j, const struct steal_result *res, bool with_mono);

/* /proc/stat's steal column of CPU cpu, in ns (USER_HZ ticks converted);
 * -1 if unreadable */
int steal_proc_stat(uint32_t cpu, uint64_t *ns);

#endif
