/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Errors, reason strings, the clock. */
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
