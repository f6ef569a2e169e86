// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The escaping of names from traced processes (escape.h), and the
 * outputs built on it: folded stacks, plain stack frames (tables: in
 * test_syswatch_table.c). */
#include "unit.h"
#include "msg.h"
#include "escape.h"
#include "stacks.h"
#include <stdlib.h>

static const char *esc(const char *s)
{
	static char buf[4][1024];
	static int k;

	return esc_str(buf[k++ & 3], sizeof(buf[0]), s);
}

/* Reads the escaped form back: \\ and \xNN */
static size_t unescape(const char *s, char *out)
{
	size_t n = 0;

	while (*s) {
		if (s[0] == '\\' && s[1] == '\\') {
			out[n++] = '\\';
			s += 2;
		} else if (s[0] == '\\' && s[1] == 'x') {
			char h[3] = { s[2], s[3], 0 };

			out[n++] = (char)strtoul(h, NULL, 16);
			s += 4;
		} else {
			out[n++] = *s++;
		}
	}
	out[n] = 0;
	return n;
}

/* No C0 byte, no DEL, only valid UTF-8 */
static int is_safe(const char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		size_t l = utf8_seq_len((const unsigned char *)s + i, n - i);

		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f || !l)
			return 0;
		i += l;
	}
	return 1;
}

/* escaped: safe, read back whole, esc_needed() agrees */
static int round_trips(const char *raw)
{
	char back[1024];
	size_t size = ESC_SIZE(strlen(raw));
	char *s = esc_str(malloc(size), size, raw);
	int ok = is_safe(s) && unescape(s, back) == strlen(raw) && !strcmp(back, raw) &&
		 esc_needed(raw) == !!strcmp(s, raw);

	free(s);
	return ok;
}

static void print_folded(FILE *f, void *arg)
{
	struct folded *fo = folded_new();
	const char *u[] = { "main", "evil\x1b[31m\nname;x" };
	const char *k[] = { "do_nanosleep" };

	folded_add(fo, "c\x1b\n\xe6\x97\xa5", u, 2, k, 1, 7);
	folded_print(fo, f);
	folded_free(fo);
}

static void print_frames(FILE *f, void *arg)
{
	const char *fr[] = { "main", "evil\x1b[31m\nname" };

	stack_print_frames(f, "  ", fr, 2);
}

/* a name as traced, and its escaped form (NULL: it stays as it is) */
struct escape_case {
	const char *raw, *want, *what;
};

static const struct escape_case kept[] = {
	{ "plain_name-1.2 (x)", NULL, "printable ASCII stays" },
	{ "h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\xa6\x80", NULL,
	  "valid UTF-8 (2, 3 and 4 bytes) stays" },
	{ "<alloc::vec::Vec<T> as core::ops::Drop>::drop", NULL, "a Rust name stays" },
	{ "std::vector<int, std::allocator<int> >::~vector()", NULL, "a C++ name stays" },
	{ "", NULL, "empty" },
};

/* control characters (C0, DEL, C1 alone or in UTF-8) and the backslash */
static const struct escape_case controls[] = {
	{ "a\x1b[31mb\nc", "a\\x1b[31mb\\x0ac", "ESC and newline as \\xNN" },
	{ "\t\r\x01\x7f", "\\x09\\x0d\\x01\\x7f", "C0 bytes and DEL" },
	{ "a\\x1b", "a\\\\x1b", "a backslash doubled: no ambiguity" },
	{ "\x9b" "2J", "\\x9b2J", "a lone 0x9b (8-bit CSI) escaped" },
	{ "\xc2\x9b" "2J", "\\xc2\\x9b2J", "U+009B (C1 CSI in UTF-8) escaped" },
	{ "\xc2\x85", "\\xc2\\x85", "U+0085 (NEL) escaped" },
};

/* bytes that are not valid UTF-8 */
static const struct escape_case not_utf8[] = {
	{ "\xc0\xaf", "\\xc0\\xaf", "overlong form escaped" },
	{ "\xed\xa0\x80", "\\xed\\xa0\\x80", "surrogate escaped" },
	{ "\xf5\x80\x80\x80", "\\xf5\\x80\\x80\\x80", "above U+10FFFF escaped" },
	{ "ab\xe6\x97", "ab\\xe6\\x97", "a sequence cut short escaped" },
	{ "\xff\xfe", "\\xff\\xfe", "bytes that are never UTF-8" },
};

/* valid UTF-8 that moves lines or text direction */
static const struct escape_case layout_chars[] = {
	{ "a\xe2\x80\xa8" "b", "a\\xe2\\x80\\xa8b", "U+2028 line separator escaped" },
	{ "\xe2\x80\xae" "txt", "\\xe2\\x80\\xaetxt", "U+202E bidi override escaped" },
	{ "\xe2\x81\xa6", "\\xe2\\x81\\xa6", "U+2066 bidi isolate escaped" },
};

static void check_escapes(const struct escape_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		CHECK_STR(esc(c[i].raw), c[i].want ? c[i].want : c[i].raw, "%s", c[i].what);
}

int main(void)
{
	char buf[64], raw[256];

	check_escapes(kept, ARRAY_SIZE(kept));
	check_escapes(controls, ARRAY_SIZE(controls));
	check_escapes(not_utf8, ARRAY_SIZE(not_utf8));
	check_escapes(layout_chars, ARRAY_SIZE(layout_chars));

	/* every byte value, in every position, and random names: safe, read
	 * back whole, and esc_needed() agrees */
	for (int c = 1; c < 256; c++) {
		snprintf(raw, sizeof(raw), "x%cy%c%c", c, c, c);
		if (!round_trips(raw)) {
			CHECK(0, "byte 0x%02x: escaped form is safe and reversible", c);
			break;
		}
		if (c == 255)
			CHECK(1, "bytes 0x01..0xff: escaped form is safe and reversible");
	}
	srand(15);
	for (int round = 0; round < 20000; round++) {
		int n = rand() % 40;

		for (int i = 0; i < n; i++)
			raw[i] = (char)(1 + rand() % 255);
		raw[n] = 0;
		if (!round_trips(raw)) {
			CHECK(0, "random names: safe and reversible (round %d)", round);
			break;
		}
		if (round == 19999)
			CHECK(1, "20000 random names: safe, reversible, esc_needed agrees");
	}

	/* a buffer too small: cut between whole escapes, "..." at the end */
	CHECK_STR(esc_str(buf, 10, "abcdefghijklmnop"), "abcdef...", "cut plain text");
	CHECK_STR(esc_str(buf, 10, "\x1b\x1b\x1b"), "\\x1b...", "an escape is never cut");
	CHECK_STR(esc_str(buf, 10, "ab\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5"), "ab\xe6\x97\xa5...",
		  "a UTF-8 character is never cut");
	CHECK_STR(esc_str(buf, 10, "abcdefghi"), "abcdefghi", "exactly fits");
	CHECK_STR(ESC("comm\x1b"), "comm\\x1b", "ESC() for printf arguments");

	/* columns: one per character */
	CHECK_U64(esc_width("h\xc3\xa9llo"), 5, "width counts characters, not bytes");
	CHECK_STR(ESC_COL("h\xc3\xa9", 4), "h\xc3\xa9  ", "ESC_COL pads by characters");
	CHECK_STR(ESC_COL("a\n", 3), "a\\x0a", "ESC_COL: escaped form counted, longer kept whole");

	CHECK_CAPTURE(print_folded, NULL,
		      "c\\x1b\\x0a\xe6\x97\xa5;main;evil\\x1b[31m\\x0aname:x;do_nanosleep_[k] 7\n",
		      "folded: one line, ';' as ':', control bytes escaped, UTF-8 kept");
	CHECK_CAPTURE(print_frames, NULL, "  evil\\x1b[31m\\x0aname\n  main\n",
		      "plain frames: leaf first, escaped");
	return unit_exit();
}
