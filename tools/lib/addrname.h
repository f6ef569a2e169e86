/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Names of single addresses, outside stacks (stacksym.h names those): a
 * live process's data addresses (the variable, the mapping) and code
 * addresses (the function, its file:line), and kernel addresses (from
 * kallsyms), through the symbolizer.  What a name holds is raw text from
 * the traced process's files: escape it to print it (escape.h). */
#ifndef SUITE_ADDRNAME_H
#define SUITE_ADDRNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct addrname;

/* What one address is; every field may be NULL or 0 (not known) */
struct addrname_result {
	const char *name;	/* the variable or function holding it */
	uint64_t offset;	/* its offset in that */
	const char *module;	/* the file (a path) or mapping ("[heap]") */
	const char *file;	/* code: the source file, with line */
	uint32_t line;
};

/* A symbolizer with code locations and demangled names; NULL when it
 * cannot be made (addrname_error() says why) */
struct addrname *addrname_new(void);
const char *addrname_error(void);
void addrname_free(struct addrname *a);
/* Keeps what names pid's addresses after it exits (its mappings) */
void addrname_cache_process(struct addrname *a, uint32_t pid);
/* The n addresses of process pid, data (variables) or code, in one
 * read of it: fn(arg, i, result) for each, in order */
void addrname_process(struct addrname *a, uint32_t pid, const uint64_t *addrs, size_t n,
		      bool data,
		      void (*fn)(void *arg, size_t i, const struct addrname_result *r),
		      void *arg);
/* A kernel address's function into out: "-" for 0, "0x..." when unknown
 * (or a is NULL) */
void addrname_kernel(struct addrname *a, uint64_t addr, char *out, size_t size);

#endif
