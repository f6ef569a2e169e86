/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Output that cannot be written is never silent (CLI.md, exit status).
 *
 * Every write to stdout, and to the files opened with out_open(), goes
 * through one checked writer that remembers the first failure of each
 * output with its errno.  A reader that is gone (EPIPE) is quiet: the
 * output just ends.  Any other failure (a full disk, a closed descriptor,
 * an I/O error) is said once on stderr, naming the output ("stdout" or
 * the path) and the error, and the exit status becomes EXIT_USAGE,
 * whatever --check found: checked when the process exits, on every way
 * out (the end of main, exit(), --help and --version).
 *
 * fds 0, 1 and 2 that are closed when the tool starts are occupied with
 * /dev/null, opened the other way round (fd 0 write-only, 1 and 2
 * read-only): no file the tool opens takes their place, and a write to a
 * closed stdout fails with EBADF and is said. */
#ifndef SUITE_OUTPUT_H
#define SUITE_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

/* Called first by suite_init(): fds 0-2, the checked stdout, the check
 * at exit. */
void out_init(void);

/* Opens path for writing ("w": created or truncated), checked like stdout;
 * label names it in messages ("--record: cannot write PATH: ...").
 * NULL with errno set when it cannot be opened. */
FILE *out_open(const char *path, const char *label);
/* The same for fd, already open for writing (openat, O_EXCL): path names
 * it in messages; fd is closed on failure */
FILE *out_fdopen(int fd, const char *path, const char *label);
/* Flushes and closes f (from out_open); -1 when it could not be written
 * (said), 0 otherwise (a reader gone included). */
int out_close(FILE *f);

/* stdout takes no more: its reader is gone, or writing failed (said).
 * Stop printing; the exit status is that of the run (see above). */
bool out_closed(void);
/* Some output takes no more (stdout or a file of out_open()): a run
 * that streams ends (run_loop() does it). */
bool out_ended(void);
/* For modes that print while tracing: when stdout is a pipe or socket
 * whose reader has gone, stdout ends now (quietly), before anything more
 * is written to it.  Costs one poll(); run_loop() calls it. */
void out_watch_reader(void);

#endif
