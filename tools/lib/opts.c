// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "opts.h"
#include "kfeat.h"
#include "msg.h"
#include "output.h"
#include <linux/types.h>
#include "ustack.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t opt_u64(const char *opt, const char *arg, uint64_t min, uint64_t max)
{
	char err[160];
	uint64_t v;

	if (parse_u64(arg, min, max, true, &v, err, sizeof(err)))
		die_usage("invalid %s: %s", opt, err);
	return v;
}

double opt_seconds(const char *opt, const char *arg)
{
	char err[160];
	double v;

	if (parse_seconds(arg, &v, err, sizeof(err)))
		die_usage("invalid %s: %s", opt, err);
	return v;
}

static void opt_ids(const char *opt, const char *arg, struct id_list *l,
		    bool thread)
{
	char err[160];
	size_t before = l->n;
	struct task_id *who;

	if (parse_id_list(arg, l, err, sizeof(err)))
		die_usage("invalid %s: %s", opt, err);
	who = realloc(l->who, (l->cap ? l->cap : 1) * sizeof(*who));
	if (!who) {
		perror("realloc");
		exit(EXIT_USAGE);
	}
	l->who = who;
	for (size_t i = before; i < l->n; i++) {
		uint32_t id = l->ids[i];

		if (thread ? task_id_read(id, &who[i]) : task_id_read_process(id, &who[i]))
			die_usage("invalid %s: no %s %u", opt,
				  thread ? "thread" : "process", id);
		if (!thread && who[i].tgid != id)
			die_usage("invalid %s: %u is a thread of process %u, "
				  "not a process (use -t for threads)", opt, id,
				  who[i].tgid);
	}
}

void opt_pids(const char *arg, struct id_list *l)
{
	opt_ids("-p/--pid", arg, l, false);
}

void opt_tids(const char *arg, struct id_list *l)
{
	opt_ids("-t/--tid", arg, l, true);
}

void opt_task_ids(const char *opt, const char *arg, struct id_list *l)
{
	opt_ids(opt, arg, l, true);
}

void opt_cpus(const char *arg, struct cpu_list *l)
{
	struct cpu_list online = { 0 };
	char err[160];

	if (parse_cpu_list(arg, MAX_CPUS_SUPPORTED, l, err, sizeof(err)))
		die_usage("invalid -C/--cpu: %s", err);
	if (cpus_online(&online))
		die_unsupported("cannot read the list of online CPUs");
	for (size_t i = 0; i < l->n; i++)
		if (!cpu_list_has(&online, l->cpus[i]))
			die_usage("invalid -C/--cpu: CPU %u does not exist or is "
				  "offline", l->cpus[i]);
	cpu_list_free(&online);
}

error_t common_parse_opt(int key, char *arg, struct argp_state *state,
			 struct common_opts *o)
{
	switch (key) {
	case 'p':
		opt_pids(arg, &o->pids);
		break;
	case 't':
		opt_tids(arg, &o->tids);
		break;
	case 'C':
		opt_cpus(arg, &o->cpus);
		break;
	case 'd':
		o->duration = opt_seconds("-d/--duration", arg);
		break;
	case 'f':
		o->folded = true;
		break;
	case 'j':
		o->json = true;
		break;
	case OPT_CHECK:
		o->check = true;
		break;
	case 'v':
		verbose = true;
		break;
	case OPT_BTF:
		kernel_btf_path = arg;	/* read by bpf_env_check() */
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		die_usage("unexpected argument '%s'", arg);
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

error_t stack_parse_opt(int key, char *arg, struct argp_state *state,
			struct stack_opts *s, struct common_opts *o)
{
	switch (key) {
	case OPT_STACK_STORAGE:
		s->stack_storage = opt_u64("--stack-storage-size", arg, 1, UINT32_MAX);
		break;
	case OPT_MAX_ENTRIES:
		s->max_entries = opt_u64("--max-entries", arg, 1, UINT32_MAX);
		break;
	case OPT_LINES:
		s->lines = true;
		break;
	case OPT_DWARF:
		s->dwarf = true;
		break;
	case OPT_INLINE:
		s->inlined = true;
		break;
	case OPT_NO_PARAMS:
		s->no_params = true;
		break;
	case OPT_STACK_COPY:
		s->stack_copy = opt_u64("--stack-copy-size", arg, 64, USTACK_COPY_MAX);
		s->stack_copy_set = true;
		break;
	case OPT_PPROF:
		s->pprof = arg;
		break;
	case OPT_SVG:
		s->svg = arg;
		break;
	case OPT_DIFF:
		s->diff = arg;
		break;
	default:
		return common_parse_opt(key, arg, state, o);
	}
	return 0;
}

void stack_opts_finish(const struct stack_opts *s)
{
	if (s->stack_copy_set && !s->dwarf)
		die_usage("--stack-copy-size applies to --dwarf only");
}

void common_opts_finish(struct common_opts *o)
{
	if (o->folded && o->json)
		die_usage("-f/--folded and -j/--json exclude each other");
}

void common_opts_target(const struct common_opts *o, char *buf, size_t size)
{
	char p[200] = "", t[200] = "";

	if (!o->pids.n && !o->tids.n) {
		snprintf(buf, size, "all threads");
		return;
	}
	id_list_str(&o->pids, p, sizeof(p));
	id_list_str(&o->tids, t, sizeof(t));
	snprintf(buf, size, "%s%s%s%s%s", *p ? "pid " : "", p, *p && *t ? ", " : "",
		 *t ? "tid " : "", t);
}

void common_opts_foreach_tgid(const struct common_opts *o,
			      void (*fn)(void *arg, uint32_t tgid), void *arg)
{
	struct id_list seen = { 0 };

	for (size_t i = 0; i < o->pids.n + o->tids.n; i++) {
		bool pid = i < o->pids.n;
		size_t k = pid ? i : i - o->pids.n;
		const struct id_list *l = pid ? &o->pids : &o->tids;
		uint32_t tgid = l->who ? l->who[k].tgid : pid ? l->ids[k] : tid_tgid(l->ids[k]);

		if (!tgid || id_list_has(&seen, tgid))
			continue;
		id_list_add(&seen, tgid);
		fn(arg, tgid);
	}
	id_list_free(&seen);
}
