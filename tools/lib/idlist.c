// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "idlist.h"
#include "msg.h"
#include "parse.h"
#include "procfs.h"
#include "taskid.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void id_list_add(struct id_list *l, uint32_t id)
{
	if (id_list_has(l, id))
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		uint32_t *p = realloc(l->ids, cap * sizeof(*p));

		if (!p) {
			perror("realloc");
			exit(EXIT_USAGE);
		}
		l->ids = p;
		l->cap = cap;
		if (l->who) {
			struct task_id *w = realloc(l->who, cap * sizeof(*w));

			if (!w) {
				perror("realloc");
				exit(EXIT_USAGE);
			}
			l->who = w;
		}
	}
	if (l->who)
		memset(&l->who[l->n], 0, sizeof(*l->who));
	l->ids[l->n++] = id;
}

bool id_list_has(const struct id_list *l, uint32_t id)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->ids[i] == id)
			return true;
	return false;
}

void id_list_free(struct id_list *l)
{
	free(l->ids);
	free(l->who);
	memset(l, 0, sizeof(*l));
}

void id_list_str(const struct id_list *l, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; i < l->n; i++) {
		int n = snprintf(buf + off, size - off, "%s%u", i ? "," : "",
				 l->ids[i]);
		if (n < 0 || (size_t)n >= size - off) {
			if (size > 4)
				strcpy(buf + size - 4, "...");
			return;
		}
		off += n;
	}
}

static int id_piece(const char *p, void *arg, char *err, size_t errlen)
{
	uint64_t v;

	if (parse_u64(p, 1, UINT32_MAX - 1, false, &v, err, errlen))
		return -1;
	id_list_add(arg, (uint32_t)v);
	return 0;
}

int parse_id_list(const char *s, struct id_list *l, char *err, size_t errlen)
{
	return split_list(s, "id", err, errlen, id_piece, l);
}

bool id_list_alive(const struct id_list *l, size_t i)
{
	return l->who ? task_id_alive(l->ids[i], &l->who[i]) : pid_alive(l->ids[i]);
}

/* The numeric entries of a /proc directory */
static int list_ids(const char *path, const struct id_list *skip, struct id_list *out)
{
	DIR *dir = opendir(path);
	struct dirent *d;

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		char *end;
		unsigned long id = strtoul(d->d_name, &end, 10);

		if (!isdigit((unsigned char)d->d_name[0]) || *end || !id ||
		    id > UINT32_MAX || (skip && id_list_has(skip, (uint32_t)id)))
			continue;
		id_list_add(out, (uint32_t)id);
	}
	closedir(dir);
	return 0;
}

void id_list_add_pids(struct id_list *out)
{
	list_ids("/proc", NULL, out);
}

int id_list_add_threads(uint32_t pid, const struct id_list *skip, struct id_list *out)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	return list_ids(path, skip, out);
}
