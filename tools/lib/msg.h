/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The exit codes of every tool (docs/CLI.md) and its messages: "tool:
 * message" on stderr, escaped, and the two ways to end on one. */
#ifndef SUITE_MSG_H
#define SUITE_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit status, see CLI.md */
enum {
	EXIT_REPORTED = 0,	/* ran and reported; --check: nothing found */
	EXIT_FOUND = 1,		/* --check: something found */
	EXIT_USAGE = 2,		/* bad usage or input */
	EXIT_UNSUPPORTED = 3,	/* the machine cannot run it */
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The tool's name, used as the prefix of every message. */
extern const char *tool_name;
extern bool verbose;

/* "tool: message" on stderr, the message escaped (escape.h) */
void msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "tool: message" and exit with EXIT_USAGE. */
void die_usage(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* Print "tool: message" and exit with EXIT_UNSUPPORTED. */
void die_unsupported(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* The message into err (errlen bytes, truncated), for parsers that
 * report why they refused their input; returns -1 */
int fail_msg(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
