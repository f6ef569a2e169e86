/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Demangling, through libiberty (the demangler of binutils and GCC, as
 * c++filt uses it; Debian's libiberty-dev, linked statically):
 *  - Rust v0 names (_R...): `std::rt::lang_start_internal`, generics as
 *    `f::<u32>`, closures as `main::{closure#0}`, as rustfilt prints them;
 *  - Rust legacy names (_ZN...17h<16 hex>E): the hash dropped;
 *  - C++ (Itanium ABI, _Z...): as c++filt prints them, with parameters,
 *    or without them (BZS_DEMANGLE_NO_PARAMS) for very long names.
 * An LLVM suffix (".llvm.1234") is dropped with the hash.  Names longer
 * than MAX_MANGLED are left as they are: the demangler recurses (within
 * libiberty's own limit of DEMANGLE_RECURSION_LIMIT levels), and a name
 * that long tells the reader nothing a shorter prefix does not. */
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_MANGLED 4096

char *bzs_demangle_opts(const char *name, unsigned flags)
{
	int opts = DMGL_ANSI | ((flags & BZS_DEMANGLE_NO_PARAMS) ? 0 : DMGL_PARAMS);
	char *r;

	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	if (strnlen(name, MAX_MANGLED + 1) > MAX_MANGLED)
		return NULL;
	/* Rust first: a legacy Rust name is also a valid C++ one (with the
	 * hash as a last component) */
	r = cplus_demangle(name, opts | DMGL_RUST);
	if (r || name[1] == 'R')
		return r;
	return cplus_demangle(name, opts | DMGL_GNU_V3);
}

char *bzs_demangle(const char *name)
{
	return bzs_demangle_opts(name, 0);
}
