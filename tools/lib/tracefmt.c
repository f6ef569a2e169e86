// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "tracefmt.h"
#include "msg.h"
#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

int tracefmt_open(struct tracefmt *t, const char *path)
{
	*t = (struct tracefmt){ 0 };
	if (!*path) {
		errno = ENOENT;
		return -1;
	}
	t->f = out_open(path, "--trace");
	if (!t->f)
		return -1;
	json_init(&t->j, t->f);
	return 0;
}

void tracefmt_begin(struct tracefmt *t)
{
	json_obj_begin(&t->j);
	json_kv_str(&t->j, "displayTimeUnit", "ms");
	json_key(&t->j, "traceEvents");
	json_arr_begin(&t->j);
}

/* A metadata event: {"ph":"M","name":what,"pid":..,"tid":..,"args":{key:..}} */
static struct json *meta_begin(struct tracefmt *t, const char *what, uint32_t pid, uint32_t tid)
{
	json_obj_begin(&t->j);
	json_kv_str(&t->j, "ph", "M");
	json_kv_str(&t->j, "name", what);
	json_kv_u64(&t->j, "pid", pid);
	json_kv_u64(&t->j, "tid", tid);
	t->events++;
	return tracefmt_args_begin(t);
}

static void meta_end(struct tracefmt *t)
{
	tracefmt_args_end(t);
	json_obj_end(&t->j);
}

void tracefmt_process(struct tracefmt *t, uint32_t pid, const char *name)
{
	json_kv_str(meta_begin(t, "process_name", pid, pid), "name", name);
	meta_end(t);
}

void tracefmt_thread(struct tracefmt *t, uint32_t pid, uint32_t tid, const char *name,
		     int64_t sort)
{
	json_kv_str(meta_begin(t, "thread_name", pid, tid), "name", name);
	meta_end(t);
	json_kv_i64(meta_begin(t, "thread_sort_index", pid, tid), "sort_index", sort);
	meta_end(t);
}

void tracefmt_cpu_track(struct tracefmt *t, uint32_t cpu)
{
	char name[32];

	snprintf(name, sizeof(name), "CPU %u", cpu);
	tracefmt_thread(t, TRACEFMT_CPU_PID, TRACEFMT_CPU_TID(cpu), name, cpu);
}

void tracefmt_ev_begin(struct tracefmt *t, char ph, const char *name, const char *cat,
		       uint32_t pid, uint32_t tid, uint64_t ts_ns)
{
	char p[2] = { ph, 0 };

	json_obj_begin(&t->j);
	json_kv_str(&t->j, "ph", p);
	json_kv_str(&t->j, "name", name);
	if (cat)
		json_kv_str(&t->j, "cat", cat);
	json_kv_u64(&t->j, "pid", pid);
	json_kv_u64(&t->j, "tid", tid);
	json_key(&t->j, "ts");
	json_thousandths(&t->j, ts_ns);
	t->ts_ns = ts_ns;
	if (ph == 'i')
		json_kv_str(&t->j, "s", "t");	/* on its thread's track */
	t->events++;
}

/* ns as the double a reader gets from its thousandths */
static double us_read(uint64_t ns)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
	return strtod(buf, NULL);
}

/* The duration as the difference of the doubles a reader gets for the
 * end and the start (exact: two doubles this close subtract without
 * rounding), written so that it reads back as that double: ts + dur is
 * then the end exactly, and a slice that ends where the next begins does
 * not overlap it.  With thousandths, which a double holds only nearly,
 * speedscope summed them and saw slices end after the next had begun.
 * It differs from dur_ns / 1000 by less than a ulp of ts (7.6e-6 us
 * while the clock is below 2^35 us, 9.5 hours: a thousandth of a ns). */
void tracefmt_ev_dur(struct tracefmt *t, uint64_t dur_ns)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%.17g", us_read(t->ts_ns + dur_ns) - us_read(t->ts_ns));
	json_key(&t->j, "dur");
	json_number_text(&t->j, buf);
}

struct json *tracefmt_args_begin(struct tracefmt *t)
{
	json_key(&t->j, "args");
	json_obj_begin(&t->j);
	return &t->j;
}

void tracefmt_args_end(struct tracefmt *t)
{
	json_obj_end(&t->j);
}

void tracefmt_ev_end(struct tracefmt *t)
{
	json_obj_end(&t->j);
}

struct json *tracefmt_meta_begin(struct tracefmt *t, const struct tracefmt_window *w)
{
	json_arr_end(&t->j);
	json_key(&t->j, "otherData");
	json_obj_begin(&t->j);
	json_kv_str(&t->j, "tool", tool_name);
	json_kv_str(&t->j, "version", SUITE_VERSION);
	json_kv_str(&t->j, "clock", "CLOCK_MONOTONIC");
	json_key(&t->j, "realtime_offset_us");
	json_thousandths(&t->j, w->realtime_offset_ns);
	json_key(&t->j, "window_start_us");
	json_thousandths(&t->j, w->start_ns);
	json_key(&t->j, "window_end_us");
	json_thousandths(&t->j, w->end_ns);
	return &t->j;
}

int tracefmt_close(struct tracefmt *t)
{
	int r;

	json_obj_end(&t->j);	/* otherData */
	json_obj_end(&t->j);
	json_finish(&t->j);
	r = out_close(t->f);
	t->f = NULL;
	return r;
}
