// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "http.h"
#include "clock.h"
#include "msg.h"
#include "opts.h"
#include "xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

struct client {
	int fd;			/* -1: a free place */
	uint64_t deadline;	/* ns, monotonic */
	char req[HTTP_MAX_REQUEST];
	size_t nreq;
	char *resp;		/* NULL while reading the request */
	size_t nresp, sent;
};

struct http_server {
	int lfd, wakefd;
	pthread_t thread;
	const char *ctype;
	pthread_mutex_t lock;	/* guards body */
	char *body;
	size_t nbody;
	_Atomic uint64_t timeouts, refused;
	struct client c[HTTP_MAX_CLIENTS];
};

/* ---- the address ---- */

int http_parse_addr(const char *s, struct sockaddr_storage *sa, socklen_t *len,
		    char *err, size_t errlen)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)sa;
	char host[INET6_ADDRSTRLEN + 2] = "127.0.0.1";
	const char *port = s, *colon;
	uint64_t p;
	size_t hl;

	memset(sa, 0, sizeof(*sa));
	if (s[0] == '[') {
		colon = strstr(s, "]:");
		if (!colon)
			return fail_msg(err, errlen, "'%s': [ADDR6] needs ]:PORT", s);
		hl = (size_t)(colon - s - 1);
		port = colon + 2;
		if (hl >= sizeof(host))
			return fail_msg(err, errlen, "'%s': not an IPv6 address", s);
		memcpy(host, s + 1, hl);
		host[hl] = 0;
		v6->sin6_family = AF_INET6;
		if (inet_pton(AF_INET6, host, &v6->sin6_addr) != 1)
			return fail_msg(err, errlen, "'%s': not an IPv6 address", s);
		*len = sizeof(*v6);
	} else {
		colon = strrchr(s, ':');
		if (colon) {
			hl = (size_t)(colon - s);
			port = colon + 1;
			if (hl >= sizeof(host))
				return fail_msg(err, errlen, "'%s': not an IPv4 address", s);
			if (hl) {
				memcpy(host, s, hl);
				host[hl] = 0;
			}
		}
		v4->sin_family = AF_INET;
		if (inet_pton(AF_INET, host, &v4->sin_addr) != 1)
			return fail_msg(err, errlen, "'%s': not an IPv4 address (ADDR:PORT, "
					"[ADDR6]:PORT or PORT)", s);
		*len = sizeof(*v4);
	}
	if (parse_u64(port, 0, 65535, false, &p, err, errlen))
		return fail_msg(err, errlen, "'%s': the port is not a number 0..65535", s);
	if (sa->ss_family == AF_INET6)
		v6->sin6_port = htons((uint16_t)p);
	else
		v4->sin_port = htons((uint16_t)p);
	return 0;
}

int http_listen(const char *s, char *bound, size_t boundlen, char *err, size_t errlen)
{
	struct sockaddr_storage sa;
	socklen_t len;
	char host[INET6_ADDRSTRLEN];
	int fd, one = 1;

	if (http_parse_addr(s, &sa, &len, err, errlen))
		return -1;
	fd = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail_msg(err, errlen, "'%s': socket: %s", s, strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, len) || listen(fd, 64)) {
		fail_msg(err, errlen, "'%s': %s", s, strerror(errno));
		close(fd);
		return -1;
	}
	len = sizeof(sa);
	getsockname(fd, (struct sockaddr *)&sa, &len);
	if (sa.ss_family == AF_INET6) {
		struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&sa;

		inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host));
		snprintf(bound, boundlen, "[%s]:%u", host, ntohs(v6->sin6_port));
	} else {
		struct sockaddr_in *v4 = (struct sockaddr_in *)&sa;

		inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host));
		snprintf(bound, boundlen, "%s:%u", host, ntohs(v4->sin_port));
	}
	return fd;
}

/* ---- one client ---- */

static void client_close(struct client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->resp);
	c->fd = -1;
	c->resp = NULL;
	c->nreq = c->nresp = c->sent = 0;
}

static void respond(struct http_server *s, struct client *c, int status,
		    const char *reason, bool body)
{
	char head[256];
	int hl;
	size_t nbody;

	pthread_mutex_lock(&s->lock);
	nbody = body ? s->nbody : strlen(reason) + 1;
	hl = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
		      "Content-Length: %zu\r\nConnection: close\r\n\r\n", status, reason,
		      body ? s->ctype : "text/plain; charset=utf-8", nbody);
	c->resp = xmalloc((size_t)hl + nbody);
	memcpy(c->resp, head, (size_t)hl);
	if (body)
		memcpy(c->resp + hl, s->body, nbody);
	pthread_mutex_unlock(&s->lock);
	if (!body) {
		memcpy(c->resp + hl, reason, nbody - 1);
		c->resp[hl + nbody - 1] = '\n';
	}
	c->nresp = (size_t)hl + nbody;
	c->sent = 0;
}

/* The request line, once the headers are in: "GET /metrics HTTP/1.1" */
static void answer(struct http_server *s, struct client *c)
{
	char *end = memchr(c->req, '\n', c->nreq), *sp1, *sp2;
	size_t n;

	if (!end)
		return respond(s, c, 400, "Bad Request", false);
	n = (size_t)(end - c->req);
	if (n && c->req[n - 1] == '\r')
		n--;
	c->req[n] = 0;
	sp1 = strchr(c->req, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	if (!sp1 || !sp2 || strncmp(sp2 + 1, "HTTP/1.", 7))
		return respond(s, c, 400, "Bad Request", false);
	*sp1 = *sp2 = 0;
	if (!strcmp(c->req, "GET") && (!strcmp(sp1 + 1, "/metrics") ||
					!strncmp(sp1 + 1, "/metrics?", 9)))
		return respond(s, c, 200, "OK", true);
	respond(s, c, 404, "Not Found", false);
}

static bool headers_done(const struct client *c)
{
	for (size_t i = 0; i + 1 < c->nreq; i++) {
		if (c->req[i] != '\n')
			continue;
		if (c->req[i + 1] == '\n' ||
		    (c->req[i + 1] == '\r' && i + 2 < c->nreq && c->req[i + 2] == '\n'))
			return true;
	}
	return false;
}

/* Reads or writes what the socket takes now; false when done with it */
static bool client_io(struct http_server *s, struct client *c)
{
	ssize_t r;

	if (!c->resp) {
		r = recv(c->fd, c->req + c->nreq, sizeof(c->req) - c->nreq, 0);
		if (r < 0)
			return errno == EAGAIN || errno == EINTR;
		if (r == 0)
			return false;	/* gone before asking */
		c->nreq += (size_t)r;
		if (headers_done(c))
			answer(s, c);
		else if (c->nreq == sizeof(c->req))
			respond(s, c, 431, "Request Header Fields Too Large", false);
		else
			return true;
	}
	r = send(c->fd, c->resp + c->sent, c->nresp - c->sent, MSG_NOSIGNAL);
	if (r < 0)
		return errno == EAGAIN || errno == EINTR;
	c->sent += (size_t)r;
	return c->sent < c->nresp;
}

/* ---- the thread ---- */

static void accept_all(struct http_server *s, uint64_t now)
{
	for (;;) {
		int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct client *c = NULL;

		if (fd < 0)
			return;
		for (int i = 0; i < HTTP_MAX_CLIENTS && !c; i++)
			if (s->c[i].fd < 0)
				c = &s->c[i];
		if (!c) {
			s->refused++;
			close(fd);
			continue;
		}
		c->fd = fd;
		c->deadline = now + HTTP_DEADLINE_MS * 1000000ull;
	}
}

static void *serve(void *arg)
{
	struct http_server *s = arg;

	for (;;) {
		struct pollfd p[HTTP_MAX_CLIENTS + 2];
		int map[HTTP_MAX_CLIENTS], n = 2, timeout = 1000;
		uint64_t now = now_ns();

		p[0] = (struct pollfd){ .fd = s->wakefd, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
		for (int i = 0; i < HTTP_MAX_CLIENTS; i++) {
			struct client *c = &s->c[i];
			int left;

			if (c->fd < 0)
				continue;
			if (now >= c->deadline) {
				s->timeouts++;
				client_close(c);
				continue;
			}
			left = (int)((c->deadline - now) / 1000000) + 1;
			if (left < timeout)
				timeout = left;
			map[n - 2] = i;
			p[n++] = (struct pollfd){ .fd = c->fd,
						  .events = c->resp ? POLLOUT : POLLIN };
		}
		if (poll(p, (nfds_t)n, timeout) < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			break;
		for (int k = 2; k < n; k++) {
			struct client *c = &s->c[map[k - 2]];

			if (p[k].revents && !client_io(s, c))
				client_close(c);
		}
		if (p[1].revents & POLLIN)
			accept_all(s, now_ns());
	}
	return NULL;
}

struct http_server *http_start(int fd, const char *content_type)
{
	struct http_server *s = xcalloc(1, sizeof(*s));
	sigset_t all, old;
	int err;

	s->lfd = fd;
	s->ctype = content_type;
	s->body = xstrdup("");
	pthread_mutex_init(&s->lock, NULL);
	for (int i = 0; i < HTTP_MAX_CLIENTS; i++)
		s->c[i].fd = -1;
	s->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->wakefd < 0)
		goto fail;
	/* signals stay the main thread's (the run loop's) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&s->thread, NULL, serve, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!err)
		return s;
	errno = err;
	close(s->wakefd);
fail:
	err = errno;
	free(s->body);
	free(s);
	errno = err;
	return NULL;
}

void http_publish(struct http_server *s, const char *body, size_t len)
{
	char *copy = xmalloc(len + 1), *old;

	memcpy(copy, body, len);
	copy[len] = 0;
	pthread_mutex_lock(&s->lock);
	old = s->body;
	s->body = copy;
	s->nbody = len;
	pthread_mutex_unlock(&s->lock);
	free(old);
}

void http_counts(struct http_server *s, uint64_t *timeouts, uint64_t *refused)
{
	*timeouts = s ? s->timeouts : 0;
	*refused = s ? s->refused : 0;
}

void http_stop(struct http_server *s)
{
	uint64_t one = 1;

	if (!s)
		return;
	if (write(s->wakefd, &one, sizeof(one)) == sizeof(one))
		pthread_join(s->thread, NULL);
	for (int i = 0; i < HTTP_MAX_CLIENTS; i++)
		client_close(&s->c[i]);
	close(s->wakefd);
	close(s->lfd);
	pthread_mutex_destroy(&s->lock);
	free(s->body);
	free(s);
}
