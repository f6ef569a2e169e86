// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --baseline: an earlier run's verdict, read with json-c (Debian's
 * libjson-c).  (json-c's json_bool type and the suite's json_bool()
 * writer cannot meet in one file: the comparison is in compare.c.) */
#include "baseline.h"
#include "escape.h"
#include "msg.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json_object.h>
#include <json-c/json_tokener.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEPTH 64

/* The line of byte off of text */
static size_t line_of(const char *text, size_t off)
{
	size_t line = 1;

	for (size_t i = 0; i < off; i++)
		line += text[i] == '\n';
	return line;
}

/* A string member of o, NULL if absent or not a string */
static const char *get_str(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* A non-negative integer member: 0, or -1.  json-c gives a number beyond
 * 64 bits as 2^64-1: that value is refused with them (no count reaches it) */
static int get_u64(struct json_object *o, const char *key, uint64_t *out)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return -1;
	if (json_object_get_int64(v) < 0)
		return -1;
	*out = json_object_get_uint64(v);
	return *out == UINT64_MAX ? -1 : 0;
}

static int checks_of(struct hc_baseline *b, struct json_object *arr, const char *path,
		     char *err, size_t errlen)
{
	size_t n = json_object_array_length(arr);

	b->checks = xcalloc(n + 1, sizeof(*b->checks));
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i), *s;
		struct hc_base_check *c = &b->checks[i];
		const char *name;

		if (!json_object_is_type(o, json_type_object))
			return fail_msg(err, errlen, "%s: checks[%zu] is not an object", path, i);
		name = get_str(o, "check");
		if (!name || !*name)
			return fail_msg(err, errlen, "%s: checks[%zu] has no \"check\" name", path, i);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(b->checks[k].name, name))
				return fail_msg(err, errlen, "%s: check \"%s\" appears twice", path,
						ESC(name));
		if (!json_object_object_get_ex(o, "silent", &s) ||
		    !json_object_is_type(s, json_type_boolean))
			return fail_msg(err, errlen, "%s: check \"%s\": \"silent\" is not true or false",
					path, ESC(name));
		if (get_u64(o, "count", &c->count))
			return fail_msg(err, errlen,
					"%s: check \"%s\": \"count\" is not a non-negative integer",
					path, ESC(name));
		if (get_u64(o, "time_ns", &c->time_ns))
			return fail_msg(err, errlen,
					"%s: check \"%s\": \"time_ns\" is not a non-negative integer",
					path, ESC(name));
		c->name = xstrdup(name);
		c->silent = json_object_get_boolean(s);
		b->n = i + 1;
	}
	return 0;
}

int hc_baseline_parse(struct hc_baseline *b, const char *text, size_t len, const char *path,
		      const char *version, char *err, size_t errlen)
{
	struct json_tokener *tok = json_tokener_new_ex(MAX_DEPTH);
	struct json_object *root = NULL, *arr;
	const char *tool, *ver;
	size_t end;
	int r = -1;

	*b = (struct hc_baseline){ .path = xstrdup(path) };
	if (!tok)
		return fail_msg(err, errlen, "%s: out of memory", path);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	if (memchr(text, 0, len)) {
		fail_msg(err, errlen, "%s:%zu: a NUL byte: not a JSON document", path,
			 line_of(text, (size_t)((const char *)memchr(text, 0, len) - text)));
		goto out;
	}
	root = json_tokener_parse_ex(tok, text, (int)len);
	end = json_tokener_get_parse_end(tok);
	if (!root || json_tokener_get_error(tok) != json_tokener_success) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		fail_msg(err, errlen, "%s:%zu: not valid JSON: %s", path, line_of(text, end),
			 e == json_tokener_continue ? "it ends too early"
						    : json_tokener_error_desc(e));
		goto out;
	}
	while (end < len && strchr(" \t\r\n", text[end]))
		end++;
	if (end < len) {
		fail_msg(err, errlen, "%s:%zu: text after the JSON document", path, line_of(text, end));
		goto out;
	}
	if (!json_object_is_type(root, json_type_object)) {
		fail_msg(err, errlen, "%s: not a hotcheck report (not a JSON object)", path);
		goto out;
	}
	tool = get_str(root, "tool");
	if (!tool) {
		fail_msg(err, errlen, "%s: not a report of the suite (no \"tool\")", path);
		goto out;
	}
	if (strcmp(tool, "hotcheck")) {
		fail_msg(err, errlen, "%s is a report of %s, not of hotcheck", path, ESC(tool));
		goto out;
	}
	ver = get_str(root, "version");
	if (!ver) {
		fail_msg(err, errlen, "%s: no \"version\"", path);
		goto out;
	}
	if (strcmp(ver, version)) {
		fail_msg(err, errlen,
			 "%s is from hotcheck %s, this is %s: compare runs of one version", path,
			 ESC(ver), version);
		goto out;
	}
	if (!json_object_object_get_ex(root, "checks", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		fail_msg(err, errlen, "%s: no \"checks\" array", path);
		goto out;
	}
	b->version = xstrdup(ver);
	r = checks_of(b, arr, path, err, errlen);
out:
	json_object_put(root);
	json_tokener_free(tok);
	return r;
}

int hc_baseline_load(struct hc_baseline *b, const char *path, const char *version,
		     char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *text;
	size_t len = 0;
	int r;

	*b = (struct hc_baseline){ 0 };
	if (fd < 0)
		return fail_msg(err, errlen, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return fail_msg(err, errlen, "%s is not a regular file", path);
	}
	if ((uint64_t)st.st_size > HC_BASELINE_MAX_BYTES) {
		close(fd);
		return fail_msg(err, errlen, "%s is larger than %u MiB: not a hotcheck verdict", path,
				HC_BASELINE_MAX_BYTES >> 20);
	}
	/* one byte more than the limit: a file that grew is still caught */
	text = xmalloc((size_t)st.st_size + 2);
	while (len <= (size_t)st.st_size) {
		ssize_t n = read(fd, text + len, (size_t)st.st_size + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = fail_msg(err, errlen, "cannot read %s: %s", path, strerror(errno));
			goto out;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	if (len > (size_t)st.st_size) {
		r = fail_msg(err, errlen, "%s changed while it was read", path);
		goto out;
	}
	r = hc_baseline_parse(b, text, len, path, version, err, errlen);
out:
	free(text);
	close(fd);
	return r;
}

void hc_baseline_free(struct hc_baseline *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->checks[i].name);
	free(b->checks);
	free(b->version);
	free(b->path);
	*b = (struct hc_baseline){ 0 };
}

