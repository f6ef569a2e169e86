/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* hitmtop's names: data addresses to variables (or mappings) and code
 * addresses to functions (with file:line), through the symbolizer, cached
 * per (pid, address).  Names are read from the live process; a process
 * gone before its addresses were named gets "[exited]" for data. */
#ifndef SUITE_HITM_SYM_H
#define SUITE_HITM_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model.h"

/* The names of (pid, addr, data or code), in a hash map */
struct hitm_symname {
	char *name;	/* "var+0x8", "fn"; NULL: none */
	char *where;	/* data: mapping ("[heap]", file); code: "file.c:40" */
};

struct addrname;

struct hitm_symcache {
	struct addrname *sym;
	struct hashmap *names;	/* -> struct hitm_symname */
};

/* 0, or -1 when the symbolizer cannot be created (addrname_error()) */
int hitm_sym_init(struct hitm_symcache *s);
void hitm_sym_free(struct hitm_symcache *s);
/* Name every address of pid not named yet (data: variables; else code) */
void hitm_sym_resolve(struct hitm_symcache *s, uint32_t pid, const uint64_t *addrs,
		      size_t n, bool data);
/* Every address the shown lines need: line, offsets, code */
void hitm_sym_views(struct hitm_symcache *s, const struct hitm_view *v, size_t n);
/* NULL if never resolved */
struct hitm_symname *hitm_sym_find(struct hitm_symcache *s, uint32_t pid, uint64_t addr,
				   bool data);
/* What a line is: the variable at its start, else at its first offset
 * (*sym, NULL if none); the mapping or module (*mapping, NULL if none) */
void hitm_sym_line(struct hitm_symcache *s, const struct hitm_view *v, const char **sym,
		   const char **mapping);

#endif
