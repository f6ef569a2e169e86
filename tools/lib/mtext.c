// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "mtext.h"
#include "escape.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const __u64 ns_pow4[] = {
	1ull << 10, 1ull << 12, 1ull << 14, 1ull << 16, 1ull << 18, 1ull << 20,
	1ull << 22, 1ull << 24, 1ull << 26, 1ull << 28, 1ull << 30, 1ull << 32,
	1ull << 34,
};
const struct mbounds mbounds_ns_pow4 = { ns_pow4, sizeof(ns_pow4) / sizeof(ns_pow4[0]), 9 };

static void put(struct mtext *t, const char *s, size_t len)
{
	array_reserve(t->v, t->cap, t->n + len + 1);
	memcpy(t->v + t->n, s, len);
	t->n += len;
	t->v[t->n] = 0;
}

static void puts_(struct mtext *t, const char *s)
{
	put(t, s, strlen(s));
}

static void putf(struct mtext *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct mtext *t, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put(t, buf, len < 0 ? 0 : (size_t)len >= sizeof(buf) ? sizeof(buf) - 1 : (size_t)len);
}

/* v / 10^scale, exactly: "17.179869184", "0.000001024", "3" */
static void put_fixed(struct mtext *t, __u64 v, unsigned scale)
{
	__u64 div = 1;
	char frac[24];
	int len;

	for (unsigned i = 0; i < scale; i++)
		div *= 10;
	putf(t, "%llu", (unsigned long long)(v / div));
	if (!scale || !(v % div))
		return;
	len = snprintf(frac, sizeof(frac), "%0*llu", (int)scale, (unsigned long long)(v % div));
	while (len > 0 && frac[len - 1] == '0')
		len--;
	put(t, ".", 1);
	put(t, frac, (size_t)len);
}

/* the format's escapes of a label value or HELP text */
static void put_escaped(struct mtext *t, const char *s, size_t len, bool quote)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\')
			put(t, "\\\\", 2);
		else if (s[i] == '"' && quote)
			put(t, "\\\"", 2);
		else if (s[i] == '\n')
			put(t, "\\n", 2);
		else
			put(t, &s[i], 1);
	}
}

static void put_label_value(struct mtext *t, const char *v)
{
	size_t n = strlen(v);

	while (n) {
		char out[16];
		size_t used, len = esc_step(v, n, out, &used);

		put_escaped(t, out, len, true);
		v += used;
		n -= used;
	}
}

void mtext_family(struct mtext *t, const char *name, const char *type,
		  const char *help)
{
	puts_(t, "# HELP ");
	puts_(t, name);
	put(t, " ", 1);
	put_escaped(t, help, strlen(help), false);
	puts_(t, "\n# TYPE ");
	puts_(t, name);
	put(t, " ", 1);
	puts_(t, type);
	put(t, "\n", 1);
}

/* name{a="x",b="y"[,le="LE"]} then a space */
static void put_series(struct mtext *t, const char *name, const char *suffix,
		       const struct mlabel *l, size_t nl, const char *le)
{
	puts_(t, name);
	puts_(t, suffix);
	if (nl || le) {
		put(t, "{", 1);
		for (size_t i = 0; i < nl; i++) {
			if (i)
				put(t, ",", 1);
			puts_(t, l[i].name);
			put(t, "=\"", 2);
			put_label_value(t, l[i].value ? l[i].value : "");
			put(t, "\"", 1);
		}
		if (le) {
			puts_(t, nl ? ",le=\"" : "le=\"");
			puts_(t, le);
			put(t, "\"", 1);
		}
		put(t, "}", 1);
	}
	put(t, " ", 1);
}

void mtext_u64(struct mtext *t, const char *name, const struct mlabel *l,
	       size_t nl, __u64 v)
{
	put_series(t, name, "", l, nl, NULL);
	putf(t, "%llu\n", (unsigned long long)v);
}

void mtext_fixed(struct mtext *t, const char *name, const struct mlabel *l,
		 size_t nl, __u64 v, unsigned scale)
{
	put_series(t, name, "", l, nl, NULL);
	put_fixed(t, v, scale);
	put(t, "\n", 1);
}

void mtext_hist(struct mtext *t, const char *name, const struct mlabel *l,
		size_t nl, const struct hist *h, const struct mbounds *b)
{
	__u64 cum = 0;
	__u32 slot = 0;

	for (size_t i = 0; i < b->n; i++) {
		struct mtext le = { 0 };

		/* the slots wholly below the bound */
		for (; slot < HIST_SLOTS && hist_slot_high(slot) < b->b[i]; slot++)
			cum += h->slots[slot];
		put_fixed(&le, b->b[i], b->scale);
		put_series(t, name, "_bucket", l, nl, le.v);
		putf(t, "%llu\n", (unsigned long long)cum);
		mtext_free(&le);
	}
	for (; slot < HIST_SLOTS; slot++)
		cum += h->slots[slot];
	put_series(t, name, "_bucket", l, nl, "+Inf");
	putf(t, "%llu\n", (unsigned long long)cum);
	put_series(t, name, "_sum", l, nl, NULL);
	put_fixed(t, h->sum, b->scale);
	put(t, "\n", 1);
	put_series(t, name, "_count", l, nl, NULL);
	putf(t, "%llu\n", (unsigned long long)cum);
}

void mtext_free(struct mtext *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}
