// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "escape.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Valid UTF-8 that still moves the cursor or reorders a line: C1
 * controls (0x9b is CSI to many terminals), line and paragraph
 * separators, bidirectional overrides and isolates */
static int unsafe_cp(const unsigned char *s, size_t len)
{
	uint32_t cp;

	if (len == 2) {
		cp = (s[0] & 0x1f) << 6 | (s[1] & 0x3f);
		return cp <= 0x9f;
	}
	if (len != 3)
		return 0;
	cp = (s[0] & 0x0f) << 12 | (s[1] & 0x3f) << 6 | (s[2] & 0x3f);
	return cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

static size_t hex_byte(char *out, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";

	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 15];
	return 4;
}

size_t esc_step(const char *str, size_t n, char out[16], size_t *used)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len, o = 0;

	if (s[0] == '\\') {
		*used = 1;
		out[0] = out[1] = '\\';
		return 2;
	}
	if (s[0] < 0x20 || s[0] == 0x7f) {
		*used = 1;
		return hex_byte(out, s[0]);
	}
	len = utf8_seq_len(s, n);
	if (!len) {
		*used = 1;
		return hex_byte(out, s[0]);
	}
	*used = len;
	if (unsafe_cp(s, len)) {
		for (size_t i = 0; i < len; i++)
			o += hex_byte(out + o, s[i]);
		return o;
	}
	memcpy(out, s, len);
	return len;
}

char *esc_str(char *buf, size_t size, const char *s)
{
	size_t n = strlen(s), o = 0, starts[4] = { 0 }, k = 0;

	if (!size)
		return buf;
	for (size_t i = 0; i < n;) {
		char piece[16];
		size_t used, l = esc_step(s + i, n - i, piece, &used);

		if (o + l + 1 > size) {
			/* back over whole pieces (each at least one byte) until
			 * "..." fits: three at most */
			for (int back = 1; back <= 4 && o + 4 > size && o; back++)
				o = starts[(k - back) & 3];
			if (o + 4 <= size) {
				memcpy(buf + o, "...", 3);
				o += 3;
			}
			break;
		}
		starts[k++ & 3] = o;
		memcpy(buf + o, piece, l);
		o += l;
		i += used;
	}
	buf[o] = 0;
	return buf;
}

size_t esc_plain_len(const char *s, size_t n)
{
	size_t run = 0;

	while (run < n && (unsigned char)s[run] >= 0x20 && (unsigned char)s[run] < 0x7f &&
	       s[run] != '\\')
		run++;
	return run;
}

void esc_fputs(const char *s, FILE *f)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		size_t run = esc_plain_len(s + i, n - i), used, l;
		char piece[16];

		/* plain printable ASCII goes out in runs */
		if (run) {
			fwrite(s + i, 1, run, f);
			i += run;
			continue;
		}
		l = esc_step(s + i, n - i, piece, &used);
		fwrite(piece, 1, l, f);
		i += used;
	}
}

int esc_needed(const char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		char piece[16];
		size_t used, l = esc_step(s + i, n - i, piece, &used);

		if (l != used || memcmp(piece, s + i, l))
			return 1;
		i += used;
	}
	return 0;
}

char *esc_col(char *buf, size_t size, const char *s, int width)
{
	size_t len, w;

	esc_str(buf, size, s);
	len = strlen(buf);
	for (w = esc_width(buf); (int)w < width && len + 1 < size; w++)
		buf[len++] = ' ';
	buf[len] = 0;
	return buf;
}

size_t esc_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}
