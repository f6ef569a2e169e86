/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A minimal HTTP/1.x responder for one document: GET /metrics answers
 * 200 with the body last published, anything else 404 (a request line
 * that is not HTTP 400).  It runs in a thread of its own, so that a
 * scrape never waits on the tool's loop nor the loop on a scrape: the
 * loop publishes a copy of the body, the thread serves the latest.
 *
 * Every client is non-blocking and has HTTP_DEADLINE_MS from its accept
 * to be answered and gone: it sends at most HTTP_MAX_REQUEST bytes of
 * request line and headers (the body, if any, is never read), gets one
 * answer, and the connection is closed (no keep-alive).  At most
 * HTTP_MAX_CLIENTS at once; one more is closed at its accept.  Clients
 * closed for being slow or too many are counted (http_counts). */
#ifndef SUITE_HTTP_H
#define SUITE_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define HTTP_MAX_REQUEST 8192
#define HTTP_MAX_CLIENTS 16
#define HTTP_DEADLINE_MS 5000

struct http_server;

/* "ADDR:PORT", "[ADDR6]:PORT", ":PORT" or "PORT" (address 127.0.0.1) into
 * sa; PORT 0..65535 (0: the kernel picks one).  0, or -1 with the reason
 * in err */
int http_parse_addr(const char *s, struct sockaddr_storage *sa, socklen_t *len,
		    char *err, size_t errlen);
/* A listening socket on s (http_parse_addr); the address it got, as
 * "ADDR:PORT", into bound.  The fd, or -1 with the reason in err */
int http_listen(const char *s, char *bound, size_t boundlen, char *err, size_t errlen);
/* Serves on the listening socket fd from a new thread (which takes fd);
 * NULL with errno set */
struct http_server *http_start(int fd, const char *content_type);
/* The body of the next answers to GET /metrics (copied) */
void http_publish(struct http_server *s, const char *body, size_t len);
/* Clients closed unanswered: too slow (deadline), too many at once */
void http_counts(struct http_server *s, uint64_t *timeouts, uint64_t *refused);
/* Stops the thread, closes every socket, frees (NULL: nothing) */
void http_stop(struct http_server *s);

#endif
