/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* hotcheck's verdict, from a collected run (collect.h): the table of
 * checks, and the JSON document (the envelope of tools/lib/lifecycle.h:
 * tool, version, duration, checks, events, the details, losses). */
#ifndef HOTCHECK_REPORT_H
#define HOTCHECK_REPORT_H

#include <stdbool.h>
#include <stdio.h>

struct hc_run;
struct json;

/* 0, or -1 if f could not be written */
int hc_report_table(const struct hc_run *r, FILE *f);
int hc_report_json(const struct hc_run *r, FILE *f);
/* The same, with more(j, arg) writing more keys of the document (the
 * correlation, the baseline) before its losses */
int hc_report_json_with(const struct hc_run *r, FILE *f,
			void (*more)(struct json *j, void *arg), void *arg);
/* Every check silent */
bool hc_all_silent(const struct hc_run *r);
/* Every thread-level check silent */
bool hc_threads_silent(const struct hc_run *r);

#endif
