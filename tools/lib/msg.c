// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "msg.h"
#include "escape.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>

const char *tool_name = "tool";
bool verbose;

/* Messages quote names and paths of traced processes (and of the
 * command line): the whole message is escaped, one line each */
static void vmsg(const char *fmt, va_list ap)
{
	char *m;

	fprintf(stderr, "%s: ", tool_name);
	if (vasprintf(&m, fmt, ap) < 0) {
		fputs(fmt, stderr);
	} else {
		esc_fputs(m, stderr);
		free(m);
	}
	fputc('\n', stderr);
}

void msg_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", tool_name);
	exit(EXIT_USAGE);
}

void die_unsupported(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(EXIT_UNSUPPORTED);
}

int fail_msg(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}
