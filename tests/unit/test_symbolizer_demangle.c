// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The demangler (blazesym-shim/demangle.c, libiberty): Rust v0 (paths,
 * generics, closures, shims, back-references, punycode identifiers,
 * const generics), Rust legacy (hash and LLVM suffix dropped), C++ with
 * and without parameters, and bad input: truncated, over-long,
 * back-references that point forward or at themselves, deep nesting.
 * The mangled names are real ones, from rustc 1.95 and g++ builds. */
#include "unit.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CHECK_STR on bzs_demangle_opts(mangled, flags), freed */
static void dm(const char *mangled, unsigned flags, const char *want, const char *what)
{
	char *d = bzs_demangle_opts(mangled, flags);

	CHECK_STR(d, want, "%s", what);
	free(d);
}

/* Not demangled, and no crash */
static void dm_none(const char *mangled, const char *what)
{
	char *d = bzs_demangle(mangled);

	CHECK(d == NULL, "%s: left as it is (got %s)", what, d ? d : "NULL");
	free(d);
}

static void test_rust_v0(void)
{
	dm("_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal", 0,
	   "std::rt::lang_start_internal", "v0: a path of std");
	dm("_RNvNtCsfuivas6LeQJ_12rust_blocker4book5apply", 0, "rust_blocker::book::apply",
	   "v0: a crate's own function");
	dm("_RNvCs5qGmzaPOe1L_2pc4main", 0, "pc::main", "v0: main");
	dm("_RINvNtCs5qGmzaPOe1L_2pcu8gdel_5qau7lzzs90amEB4_", 0, "pc::gödel::計算::<u32>",
	   "v0: punycode identifiers (a module and a function), a generic, a back-reference");
	dm("_RINvNtCs5qGmzaPOe1L_2pcu8gdel_5qau7lzzs90aThReEEB4_", 0,
	   "pc::gödel::計算::<(u8, &str)>", "v0: a tuple and a reference as generic arguments");
	dm("_RNCINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuE0Cs5qGmzaPOe1L_2pc", 0,
	   "std::rt::lang_start::<()>::{closure#0}", "v0: a closure of a generic function");
	dm("_RNCNCNCNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal00s_0B9_", 0,
	   "std::rt::lang_start_internal::{closure#0}::{closure#0}::{closure#1}",
	   "v0: nested closures, a disambiguator, a back-reference to the crate");
	dm("_RNSNvYNCINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuE0INtNtNtCsgEmfK2I1SDS_4core3ops"
	   "8function6FnOnceuE9call_once6vtableCs5qGmzaPOe1L_2pc", 0,
	   "<std::rt::lang_start<()>::{closure#0} as core::ops::function::FnOnce<()>>"
	   "::call_once::{shim:vtable#0}", "v0: a trait impl's vtable shim");
	dm("_RINvNtNtCsjrHSEGnQ3l9_3std3sys9backtrace28___rust_begin_short_backtraceFEuuE"
	   "Cs5qGmzaPOe1L_2pc", 0, "std::sys::backtrace::__rust_begin_short_backtrace::<fn(), ()>",
	   "v0: a fn pointer type as a generic argument");
	dm("_RNvMCs5qGmzaPOe1L_2pcINtB2_4WrapKj7_E3lenB2_", 0, "<pc::Wrap<7>>::len",
	   "v0: an inherent impl with a const generic");
	dm("_RNvNvMs0_NtNtNtCsjrHSEGnQ3l9_3std3sys6thread4unixNtB7_6Thread3new12thread_start", 0,
	   "<std::sys::thread::unix::Thread>::new::thread_start", "v0: a function inside a method");
	dm("_RNvCs1234_7mycrate3foo.llvm.123", 0, "mycrate::foo", "v0: an LLVM suffix dropped");
	dm("_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal", BZS_DEMANGLE_NO_PARAMS,
	   "std::rt::lang_start_internal", "v0: the same without C++ parameters");
}

static void test_rust_legacy(void)
{
	dm("_ZN3std2rt10lang_start17h0123456789abcdefE", 0, "std::rt::lang_start",
	   "legacy: the hash dropped");
	dm("_ZN12rust_blocker4book5apply17h7ada1148f2662ce8E", 0, "rust_blocker::book::apply",
	   "legacy: a crate's own function");
	dm("_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$"
	   "..$u7b$$u7b$closure$u7d$$u7d$$GT$17h6f3e5c3ab2ab7ce1E", 0,
	   "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>", "legacy: escapes");
	dm("_ZN3std2rt10lang_start17h0123456789abcdefE.llvm.1234", 0, "std::rt::lang_start",
	   "legacy: an LLVM suffix dropped");
}

static void test_cxx(void)
{
	dm("_ZN3foo3barEv", 0, "foo::bar()", "C++: a function");
	dm("_ZNSt6vectorIiSaIiEE9push_backERKi", 0,
	   "std::vector<int, std::allocator<int> >::push_back(int const&)",
	   "C++: a member of a class template, as c++filt prints it");
	dm("_ZNSt6vectorIiSaIiEE9push_backERKi", BZS_DEMANGLE_NO_PARAMS,
	   "std::vector<int, std::allocator<int> >::push_back", "C++: without parameters");
	dm("_ZN6ledger4BookIiE5applyEll", 0, "ledger::Book<int>::apply(long, long)",
	   "C++: the workload's template member");
	dm("_ZZ4mainENKUliE_clEi", 0, "main::{lambda(int)#1}::operator()(int) const",
	   "C++: a lambda");
	dm("_ZN3foo3barEv.cold", 0, "foo::bar() [clone .cold]", "C++: a clone suffix");
}

static void test_bad(void)
{
	char *big, *nest;
	size_t n = 5000;

	dm_none("main", "a plain C name");
	dm_none("", "an empty name");
	dm_none("_", "one underscore");
	dm_none("_Zgarbage", "invalid C++ mangling");
	dm_none("_R", "v0: only the prefix");
	dm_none("_RNvCs1234_", "v0: truncated after the crate root");
	dm_none("_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_inter", "v0: truncated in an identifier");
	dm_none("_RNvNtCsjrHSEGnQ3l9_3std2rt99lang", "v0: an identifier longer than the name");
	dm_none("_RNvB0_3foo", "v0: a back-reference to itself");
	dm_none("_RNvB9_3foo", "v0: a back-reference forward");
	dm_none("_RINvCs1234_1a1fB_E", "v0: a back-reference to the wrong kind");
	dm_none("_RNvNtCs1234_7mycrate7gu_8ca0b_3foo", "v0: bad punycode");
	dm_none("_ZN3std2rt10lang_start17h0123456789abcdef", "legacy: truncated before E");
	dm_none("_ZNSt6vectorIiSaIiEE9push_backERK", "C++: truncated");

	/* over-long: left alone before the demangler sees it */
	big = malloc(n + 1);
	memcpy(big, "_RNv", 4);
	memset(big + 4, 'a', n - 4);
	big[n] = 0;
	dm_none(big, "a name of 5000 bytes");
	/* deep nesting, within the length limit: 1000 nested v0 paths are
	 * demangled whole; C++ pointers 2000 deep are beyond libiberty's
	 * recursion limit (DEMANGLE_RECURSION_LIMIT): an error, not a crash,
	 * where 100 deep are demangled */
	nest = malloc(8192);
	for (int k = 0; k < 3; k++) {
		static const int depth[3] = { 1000, 100, 2000 };
		char *p = nest, *d;

		if (k == 0) {
			p += sprintf(p, "_R");
			for (int i = 0; i < depth[k]; i++)
				p += sprintf(p, "Nt");
			p += sprintf(p, "Cs1_1a");
			for (int i = 0; i < depth[k]; i++)
				p += sprintf(p, "1b");
		} else {
			p += sprintf(p, "_Z1f");
			memset(p, 'P', depth[k]);
			strcpy(p + depth[k], "i");
		}
		d = bzs_demangle(nest);
		if (k == 0)
			CHECK(d && strlen(d) == 1 + 3 * 1000 && !strncmp(d, "a::b::b", 7) &&
			      !strcmp(d + strlen(d) - 3, "::b"), "v0: 1000 nested paths: demangled");
		else if (k == 1)
			CHECK(d && strlen(d) == 106 && !strncmp(d, "f(int**", 7),
			      "C++: pointers 100 deep: demangled");
		else
			CHECK(d == NULL, "C++: pointers 2000 deep: past the recursion limit, left alone");
		free(d);
	}
	/* a back-reference chain that loops through generics */
	dm_none("_RINvCs1234_1a1fINvB4_1gB9_EE", "v0: back-references that loop");
	free(nest);
	free(big);
}

int main(void)
{
	test_rust_v0();
	test_rust_legacy();
	test_cxx();
	test_bad();
	return unit_exit();
}
