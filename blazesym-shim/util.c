/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Errors, reason strings, the clock, growable arrays, the results of a call
 * (checked arguments, per-address results, the blaze_syms built from them). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static __thread blaze_err last_err = BLAZE_ERR_OK;

void bzs_set_err(blaze_err err)
{
	last_err = err;
}

blaze_err blaze_err_last(void)
{
	return last_err;
}

const char *blaze_err_str(blaze_err err)
{
	switch (err) {
	case BLAZE_ERR_OK: return "success";
	case BLAZE_ERR_NOT_FOUND: return "not found";
	case BLAZE_ERR_PERMISSION_DENIED: return "permission denied";
	case BLAZE_ERR_INVALID_DATA: return "invalid data";
	case BLAZE_ERR_OUT_OF_MEMORY: return "out of memory";
	case BLAZE_ERR_INVALID_INPUT: return "invalid input";
	case BLAZE_ERR_UNSUPPORTED: return "unsupported";
	case BLAZE_ERR_OTHER: return "other error";
	}
	return "unknown error";
}

const char *blaze_symbolize_reason_str(blaze_symbolize_reason reason)
{
	switch (reason) {
	case BLAZE_SYMBOLIZE_REASON_SUCCESS: return "success";
	case BLAZE_SYMBOLIZE_REASON_UNMAPPED: return "address not mapped";
	case BLAZE_SYMBOLIZE_REASON_INVALID_FILE_OFFSET: return "invalid file offset";
	case BLAZE_SYMBOLIZE_REASON_MISSING_COMPONENT: return "missing component";
	case BLAZE_SYMBOLIZE_REASON_MISSING_SYMS: return "missing symbols";
	case BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR: return "unknown address";
	case BLAZE_SYMBOLIZE_REASON_UNSUPPORTED: return "unsupported";
	case BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR: return "ignored error";
	}
	return "unknown reason";
}

uint64_t bzs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int bzs_array_reserve(void *arrp, size_t *cap, size_t cnt, size_t elem_size, size_t first_cap)
{
	size_t ncap = *cap ? *cap * 2 : first_cap;
	void *arr, *na;

	if (cnt < *cap)
		return 0;
	memcpy(&arr, arrp, sizeof(arr));
	na = realloc(arr, ncap * elem_size);
	if (!na)
		return -ENOMEM;
	memcpy(arrp, &na, sizeof(na));
	*cap = ncap;
	return 0;
}

void *bzs_call_results(bool args_ok, size_t n, size_t elem_size)
{
	void *t;

	if (!args_ok) {
		bzs_set_err(BLAZE_ERR_INVALID_INPUT);
		return NULL;
	}
	t = calloc(n ? n : 1, elem_size);

	if (!t)
		bzs_set_err(BLAZE_ERR_OUT_OF_MEMORY);
	return t;
}

const blaze_syms *bzs_call_done(blaze_syms *r, void *results)
{
	free(results);
	bzs_set_err(r ? BLAZE_ERR_OK : BLAZE_ERR_OUT_OF_MEMORY);
	return r;
}

/* Remember recently copied strings so a result holds each only once. */
struct strcache {
	const char *key[64];
	char *copy[64];
};

static size_t str_slot(const char *p)
{
	return ((uintptr_t)p >> 3 ^ (uintptr_t)p >> 11) & 63;
}

static bool str_seen(struct strcache *c, const char *p)
{
	size_t i = str_slot(p);

	if (c->key[i] == p)
		return true;
	c->key[i] = p;
	return false;
}

static const char *str_put(struct strcache *c, char **pos, const char *p)
{
	size_t i = str_slot(p), n;

	if (!p)
		return NULL;
	if (c->key[i] == p)
		return c->copy[i];
	n = strlen(p) + 1;
	memcpy(*pos, p, n);
	c->key[i] = p;
	c->copy[i] = *pos;
	*pos += n;
	return c->copy[i];
}

/* A source path as a code_info (dir and file), its copies at *pos */
static void code_info_put(blaze_symbolize_code_info *ci, char **pos, const char *src,
			  uint32_t line, uint16_t col)
{
	const char *slash = strrchr(src, '/');
	size_t len = strlen(src);

	memcpy(*pos, src, len + 1);
	if (slash) {
		size_t dl = (size_t)(slash - src);

		ci->file = *pos + dl + 1;
		*pos += len + 1;
		memcpy(*pos, src, dl);
		(*pos)[dl] = '\0';
		ci->dir = *pos;
		*pos += dl + 1;
	} else {
		ci->file = *pos;
		*pos += len + 1;
	}
	ci->line = line;
	ci->column = col;
}

blaze_syms *bzs_build_syms(const struct bzs_res *t, size_t n)
{
	struct strcache c = { 0 };
	size_t head = sizeof(blaze_syms) + n * sizeof(blaze_sym), bytes;
	blaze_symbolize_inlined_fn *fns;
	blaze_syms *r;
	char *pos;

	for (size_t i = 0; i < n; i++)
		head += t[i].ninl * sizeof(blaze_symbolize_inlined_fn);
	bytes = head;
	for (size_t i = 0; i < n; i++) {
		if (t[i].name && !str_seen(&c, t[i].name))
			bytes += strlen(t[i].name) + 1;
		if (t[i].module && !str_seen(&c, t[i].module))
			bytes += strlen(t[i].module) + 1;
		if (t[i].src)
			bytes += 2 * (strlen(t[i].src) + 1);
		for (size_t k = 0; k < t[i].ninl; k++)
			bytes += strlen(t[i].inl[k].name) + 1 +
				 (t[i].inl[k].src ? 2 * (strlen(t[i].inl[k].src) + 1) : 0);
	}
	r = malloc(bytes);
	if (!r)
		return NULL;
	memset(r, 0, head);
	r->cnt = n;
	fns = (blaze_symbolize_inlined_fn *)&r->syms[n];
	pos = (char *)r + head;
	memset(&c, 0, sizeof(c));
	for (size_t i = 0; i < n; i++) {
		blaze_sym *s = &r->syms[i];

		s->name = t[i].name ? str_put(&c, &pos, t[i].name) : NULL;
		s->module = t[i].module ? str_put(&c, &pos, t[i].module) : NULL;
		s->addr = t[i].addr;
		s->offset = t[i].offset;
		s->reason = (blaze_symbolize_reason)t[i].reason;
		if (t[i].vma) {
			const struct bzs_vma *v = t[i].vma;

			s->map_start = v->start;
			s->map_end = v->end;
			s->map_off = v->off;
			if (v->file && !v->file->reason &&
			    v->file->elf.build_id_len <= BLAZE_BUILD_ID_MAX) {
				s->build_id_len = (uint8_t)v->file->elf.build_id_len;
				memcpy(s->build_id, v->file->elf.build_id, s->build_id_len);
			}
		}
		if (t[i].src)
			code_info_put(&s->code_info, &pos, t[i].src, t[i].line, t[i].col);
		s->inlined_unknown = t[i].no_inl;
		s->elf_vaddr_ok = t[i].vaddr_ok;
		s->elf_vaddr = t[i].vaddr;
		if (t[i].ninl) {
			s->inlined = fns;
			s->inlined_cnt = t[i].ninl;
			for (size_t k = 0; k < t[i].ninl; k++, fns++) {
				const struct bzs_inl *in = &t[i].inl[k];
				size_t len = strlen(in->name) + 1;

				memcpy(pos, in->name, len);
				fns->name = pos;
				pos += len;
				if (in->src)
					code_info_put(&fns->code_info, &pos, in->src, in->line,
						      in->col);
			}
		}
	}
	return r;
}

/* (debuginfo.c makes them: the results free them) */
void bzs_inl_free(struct bzs_inl *inl, size_t n)
{
	for (size_t i = 0; inl && i < n; i++)
		free(inl[i].name);
	free(inl);
}

const blaze_syms *bzs_call_done_res(blaze_syms *r, struct bzs_res *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bzs_inl_free(t[i].inl, t[i].ninl);
	return bzs_call_done(r, t);
}
