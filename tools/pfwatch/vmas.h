/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Names of the memory mappings of processes ("[heap]", "[stack]",
 * "[anon]", a file path...), captured from /proc/PID/maps while the
 * process lives, so that addresses can be named after it exits.
 *
 * Each capture replaces what was known of the process where they overlap
 * and keeps the older mappings that no longer exist (an address is named
 * after the last mapping seen there).  An exec starts a new image of the
 * process (the kernel's task->self_exec_id): each image has mappings of
 * its own; image 0 is a capture made before the image was known, taken
 * over by the first capture that knows it. */
#ifndef SUITE_VMAS_H
#define SUITE_VMAS_H

#include <stdbool.h>
#include <stdint.h>

struct vma_ent {
	uint64_t start, end;	/* [start, end) */
	const char *name;
};

struct vmas;

struct vmas *vmas_new(void);
void vmas_free(struct vmas *v);
/* Read /proc/PID/maps now, as the mappings of that image of pid.  0, or
 * -1 when it cannot be read. */
int vmas_capture(struct vmas *v, uint32_t pid, uint64_t image);
/* The mapping of that image of pid holding addr (from the image-0 capture
 * when the image has none), or NULL */
const struct vma_ent *vmas_find(const struct vmas *v, uint32_t pid, uint64_t image,
				uint64_t addr);


#endif
