/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Names that come from traced processes (comms, thread names, symbol
 * names, file and module paths, anything read from their /proc files or
 * their ELF files) are hostile: they are escaped before they reach a
 * terminal, a table or a line-oriented file.
 *
 * The rule (docs/CLI.md, "Names from traced processes"): C0 control bytes,
 * DEL, bytes that are not valid UTF-8, and the UTF-8 encodings of C1
 * controls (U+0080..U+009F), line and paragraph separators (U+2028,
 * U+2029) and bidirectional overrides and isolates (U+202A..U+202E,
 * U+2066..U+2069) are written as \xNN, one per byte; a backslash as \\.
 * Everything else, printable ASCII and valid UTF-8 (Rust and C++ names,
 * non-ASCII comms), stays as it is.  The escaped form is one line, holds
 * no byte below 0x20 nor 0x7f, and the original can be read back from it. */
#ifndef SUITE_ESCAPE_H
#define SUITE_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Room for the escaped form of n bytes, NUL included */
#define ESC_SIZE(n) (4 * (n) + 1)

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid
 * (overlong forms, surrogates and code points above U+10FFFF included) */
size_t utf8_seq_len(const unsigned char *s, size_t n);

/* The escaped form of the next character of s (n bytes left, n > 0) into
 * out (at least 16 bytes, not NUL-terminated); *used is set to the bytes
 * of s it stands for.  Returns the length written.  The one place the
 * rule above is written down; everything below is built on it. */
size_t esc_step(const char *s, size_t n, char out[16], size_t *used);

/* s escaped into buf (size bytes, NUL-terminated).  When it does not fit,
 * it is cut between two characters and ends in "..."; an escape or a
 * character is never cut.  Returns buf. */
char *esc_str(char *buf, size_t size, const char *s);
/* The bytes at the start of s (n long) that escaping leaves as they are,
 * one by one: printable ASCII but the backslash (a fast path; what
 * follows goes through esc_step) */
size_t esc_plain_len(const char *s, size_t n);
/* Writes the escaped form of s to f (no length limit) */
void esc_fputs(const char *s, FILE *f);
/* Would s be changed by escaping? */
int esc_needed(const char *s);
/* Terminal columns taken by an already escaped string: one per
 * character (UTF-8 sequence), not per byte */
size_t esc_width(const char *s);

/* A short name (comm, thread name: 16 bytes; anything up to ESC_SHORT
 * bytes whole) escaped into a buffer that lives until the end of the
 * enclosing block, for printf arguments: printf("%s", ESC(comm)). */
#define ESC_SHORT 256
#define ESC(s) esc_str((char[ESC_SIZE(ESC_SHORT)]){ 0 }, ESC_SIZE(ESC_SHORT), (s))

/* For hand-formatted columns: s escaped and padded with spaces to width
 * columns (as "%-*s" would, but counting characters, not bytes); a longer
 * name is kept whole and pushes the line on.  Returns buf. */
char *esc_col(char *buf, size_t size, const char *s, int width);
#define ESC_COL(s, w) esc_col((char[ESC_SIZE(ESC_SHORT) + 64]){ 0 }, \
			      ESC_SIZE(ESC_SHORT) + 64, (s), (w))

#endif
