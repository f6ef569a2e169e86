/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Stacks, all of it: naming frames (stacksym.h) and what could not be
 * named (stacksym_stats.h), one record's stacks and
 * their plain and JSON output (stackframes.h), folded output (folded.h).
 * A tool that takes stacks includes this. */
#ifndef SUITE_STACKS_H
#define SUITE_STACKS_H

#include "stacksym.h"
#include "stacksym_stats.h"
#include "stackframes.h"
#include "folded.h"

#endif
