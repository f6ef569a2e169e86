/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Demangling.
 *  - Rust legacy names (_ZN...17h<16 hex>E): decoded here, the hash dropped.
 *  - C++ (Itanium ABI, _Z...): through libstdc++'s __cxa_demangle, either
 *    linked in (-lstdc++) or, when not linked, found with dlopen at run time
 *    (libstdc++.so.6); without either, C++ names stay mangled.
 * Rust v0 names (_R...) are left as they are. */
#include <ctype.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_MANGLED 4096

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);
extern char *__cxa_demangle(const char *, char *, size_t *, int *) __attribute__((weak));

static cxa_demangle_fn cxa;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

static void cxa_init(void)
{
	void *h;

	if (__cxa_demangle) {
		cxa = __cxa_demangle;
		return;
	}
	h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (h)
		cxa = (cxa_demangle_fn)dlsym(h, "__cxa_demangle");
	/* the library stays loaded for the life of the process */
}

struct sbuf {
	char *p;
	size_t len, cap;
	bool err;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t ncap = (b->len + n + 1) * 2;
		char *np = realloc(b->p, ncap);

		if (!np) {
			b->err = true;
			return;
		}
		b->p = np;
		b->cap = ncap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static bool is_rust_hash(const char *s, size_t n)
{
	if (n != 17 || s[0] != 'h')
		return false;
	for (size_t i = 1; i < 17; i++)
		if (bzs_hex_digit(s[i]) < 0)
			return false;
	return true;
}

/* Decode one Rust legacy path component ($LT$ etc. escapes, ".." -> "::"). */
static bool rust_component(struct sbuf *b, const char *s, size_t n)
{
	static const struct { const char *esc, *rep; } tab[] = {
		{ "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" }, { "$LT$", "<" },
		{ "$GT$", ">" }, { "$LP$", "(" }, { "$RP$", ")" }, { "$C$", "," },
	};
	size_t i = 0;

	if (n >= 2 && s[0] == '_' && s[1] == '$')
		i = 1;
	while (i < n) {
		if (s[i] == '$') {
			bool done = false;

			for (size_t k = 0; k < sizeof(tab) / sizeof(tab[0]); k++) {
				size_t el = strlen(tab[k].esc);

				if (n - i >= el && !memcmp(s + i, tab[k].esc, el)) {
					sb_add(b, tab[k].rep, strlen(tab[k].rep));
					i += el;
					done = true;
					break;
				}
			}
			if (done)
				continue;
			if (n - i >= 5 && s[i + 1] == 'u') {
				/* $uXX$: a character by its hex code */
				size_t j = i + 2;
				unsigned v = 0;
				int d;

				while (j < n && j < i + 8 && (d = bzs_hex_digit(s[j])) >= 0) {
					v = v * 16 + (unsigned)d;
					j++;
				}
				if (j < n && s[j] == '$' && j > i + 2 && v >= 0x20 && v < 0x7f) {
					char c = (char)v;

					sb_add(b, &c, 1);
					i = j + 1;
					continue;
				}
			}
			return false;
		}
		if (s[i] == '.' && i + 1 < n && s[i + 1] == '.') {
			sb_add(b, "::", 2);
			i += 2;
			continue;
		}
		sb_add(b, s + i, 1);
		i++;
	}
	return true;
}

/* _ZN <len><ident>... 17h<hash> E [.suffix] */
static char *rust_legacy(const char *name)
{
	const char *p = name + 3, *end = NULL;
	struct sbuf b = { 0 };
	bool first = true;

	/* the path ends with "17h<16 hex>E", maybe followed by ".suffix" */
	for (const char *s = p; (s = strstr(s, "17h")); s++) {
		if (strnlen(s, 20) == 20 && is_rust_hash(s + 2, 17) && s[19] == 'E' &&
		    (s[20] == '\0' || s[20] == '.')) {
			end = s + 19;
			break;
		}
	}
	if (!end)
		return NULL;
	while (p < end) {
		size_t n = 0;

		if (!isdigit((unsigned char)*p))
			goto fail;
		while (p < end && isdigit((unsigned char)*p)) {
			n = n * 10 + (size_t)(*p - '0');
			if (n > 4096)
				goto fail;
			p++;
		}
		if (n == 0 || n > (size_t)(end - p))
			goto fail;
		if (p + n == end && is_rust_hash(p, n))
			break; /* drop the hash */
		if (!first)
			sb_add(&b, "::", 2);
		if (!rust_component(&b, p, n))
			goto fail;
		first = false;
		p += n;
	}
	if (b.err || !b.p)
		goto fail;
	return b.p;
fail:
	free(b.p);
	return NULL;
}

char *bzs_demangle(const char *name)
{
	char *r;
	int status = 0;

	if (name[0] != '_' || name[1] != 'Z')
		return NULL;
	/* the demangler recurses: keep absurd names away from it */
	if (strnlen(name, MAX_MANGLED + 1) > MAX_MANGLED)
		return NULL;
	if (name[2] == 'N' && (r = rust_legacy(name)))
		return r;
	pthread_once(&cxa_once, cxa_init);
	if (!cxa)
		return NULL;
	r = cxa(name, NULL, NULL, &status);
	if (status != 0) {
		free(r);
		return NULL;
	}
	return r;
}
