/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What a stacksym could not name, said: the "frames" object of a stack
 * tool's JSON, and the notes on stderr after its report. */
#ifndef SUITE_STACKSYM_STATS_H
#define SUITE_STACKSYM_STATS_H

#include "stacksym.h"

/* Those counts as the JSON object every stack tool reports under
 * "frames": {"user","user_unknown","user_module_only","kernel",
 * "kernel_unknown","failed_lookups":{reason: count}} (the key is written
 * by the caller) */
struct json;
void stacksym_json_stats(struct json *j, const struct stacksym *s);
/* One line on stderr when some frames could not be named; and once,
 * when most user stacks of a process (taken with frame pointers) stop
 * after one or two frames, that its code seems to lack frame pointers,
 * and (with the dwarf hint) that --dwarf gives whole stacks */
void stacksym_report(const struct stacksym *s);

#endif
