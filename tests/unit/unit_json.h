/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* For CHECK_CAPTURE of JSON: UNIT_JSON_OF(name, writer) defines
 * name(f, arg), which writes one document to f: an object whose members
 * writer(j, arg) writes. */
#ifndef UNIT_JSON_H
#define UNIT_JSON_H

#include "json.h"

#define UNIT_JSON_OF(name, writer)                                             \
	static void name(FILE *f, void *arg)                                   \
	{                                                                      \
		struct json j;                                                 \
									       \
		json_init(&j, f);                                              \
		json_obj_begin(&j);                                            \
		writer(&j, arg);                                               \
		json_obj_end(&j);                                              \
		json_finish(&j);                                               \
	}

#endif
