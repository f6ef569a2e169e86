/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Lists of process or thread ids (-p, -t, the threads of a process),
 * without duplicates; for -p and -t, with the identity each id had when
 * it was read (taskid.h), since a number alone is no identity. */
#ifndef SUITE_IDLIST_H
#define SUITE_IDLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct task_id;

struct id_list {
	uint32_t *ids;
	size_t n, cap;
	/* -p, -t: who each id was when the options were read (ids[i] is
	 * who[i]), NULL in lists of bare numbers */
	struct task_id *who;
};

void id_list_add(struct id_list *l, uint32_t id);
bool id_list_has(const struct id_list *l, uint32_t id);
void id_list_free(struct id_list *l);
/* "1,2,3" into buf (truncated with "..." if it does not fit) */
void id_list_str(const struct id_list *l, char *buf, size_t size);
/* "1,2,3": each in [1, UINT32_MAX - 1]; duplicates removed */
int parse_id_list(const char *s, struct id_list *l, char *err, size_t errlen);
/* Is ids[i] still the task it was when the list was read (l->who), or
 * alive at all in a list of bare numbers? */
bool id_list_alive(const struct id_list *l, size_t i);
/* Every process id in /proc now, added to out */
void id_list_add_pids(struct id_list *out);
/* The threads of process pid now, those not in skip (may be NULL) added to
 * out; -1 if the process is gone */
int id_list_add_threads(uint32_t pid, const struct id_list *skip, struct id_list *out);

#endif
