/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* hitmtop's flame graph (--svg FILE): every line with a HITM, as frames
 * process -> cache line -> byte offset -> code address, each code
 * address's sampled loads and stores on that offset its width.  False
 * sharing reads at a glance: one line, two offsets, each under its own
 * writer; true sharing: one offset, every writer above it. */
#ifndef SUITE_HITM_FLAME_H
#define SUITE_HITM_FLAME_H

#include "flamesvg.h"
#include "model.h"
#include "sym.h"

/* The frames of a's lines with a HITM (named through s) into g; the
 * total (the samples drawn) returned */
uint64_t hitm_flame(struct flamesvg *g, struct hitm_symcache *s, const struct hitm_agg *a);

#endif
