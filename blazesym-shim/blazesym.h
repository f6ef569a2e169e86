/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * blazesym-shim: the suite's symbolizer, behind a subset of the C API shape
 * of blazesym (struct names, function names, reason codes), so that a real
 * blazesym build can replace it by relinking.  Tools call only this API.
 *
 * Results: one blaze_sym per input address, in input order.  A symbol that
 * could not be found has name == NULL and a reason other than SUCCESS;
 * module is still set where the address falls in a known mapping.
 *
 * Ownership: every string of a result (name, module, code_info.dir/file)
 * lives in the result's own allocation: valid until blaze_syms_free(), even
 * after blaze_symbolizer_free() or a cache eviction.
 *
 * Threads: a symbolizer may be shared; its calls are serialized by a mutex.
 * blaze_err_last() is per thread.
 *
 * Module strings: user frames give the path of the mapped file as the
 * process sees it (" (deleted)" removed), "[vdso]" for the vDSO and
 * "[perf-map]" for JIT code from /tmp/perf-PID.map; kernel frames give the
 * module name without brackets ("ext4"), NULL for the core kernel.
 *
 * Environment: BLAZESYM_SHIM_DEBUG_DIRS, a colon-separated list of debug
 * roots used instead of /usr/lib/debug to find separate debug files
 * (ROOT/.build-id/xx/yyyy.debug, ROOT/DIR/DEBUGLINK); they are searched
 * under /proc/PID/root first, then as they are.
 * BLAZESYM_SHIM_PERF_MAP_MAX_LINES (default 1000000) and
 * BLAZESYM_SHIM_PERF_MAP_MAX_BYTES (default 134217728, 128 MiB): how much
 * of a perf map is read; the rest is left out, and said (see
 * blaze_symbolizer_set_notify()).
 *
 * Hostile processes: every file read on behalf of a process (its ELF
 * files, their debug files, its perf map, its /proc files) is opened
 * non-blocking inside the process's root, checked on the open descriptor
 * to be a regular file of sane size on a real filesystem (a perf map: also
 * owned by the process's user or root), and read within bounds of bytes
 * and time.  A FIFO, a device or a tracefs file is refused, never waited on.
 */
#ifndef BLAZESYM_SHIM_H
#define BLAZESYM_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct blaze_symbolizer blaze_symbolizer;

typedef enum blaze_err {
	BLAZE_ERR_OK = 0,
	BLAZE_ERR_NOT_FOUND = -2,
	BLAZE_ERR_PERMISSION_DENIED = -1,
	BLAZE_ERR_INVALID_DATA = -22,
	BLAZE_ERR_OUT_OF_MEMORY = -12,
	BLAZE_ERR_INVALID_INPUT = -256,
	BLAZE_ERR_UNSUPPORTED = -95,
	BLAZE_ERR_OTHER = -1000,
} blaze_err;

/* The last error of the calling thread, and its text. */
blaze_err blaze_err_last(void);
const char *blaze_err_str(blaze_err err);

typedef enum blaze_symbolize_reason {
	BLAZE_SYMBOLIZE_REASON_SUCCESS = 0,
	/* the address is not in any mapping of the process */
	BLAZE_SYMBOLIZE_REASON_UNMAPPED,
	/* the file offset does not map to a virtual address in the ELF */
	BLAZE_SYMBOLIZE_REASON_INVALID_FILE_OFFSET,
	/* the file backing the mapping could not be opened */
	BLAZE_SYMBOLIZE_REASON_MISSING_COMPONENT,
	/* the file has no symbol table (stripped, no debug file found) */
	BLAZE_SYMBOLIZE_REASON_MISSING_SYMS,
	/* the file has symbols, but none covers the address */
	BLAZE_SYMBOLIZE_REASON_UNKNOWN_ADDR,
	/* the kind of mapping is not supported */
	BLAZE_SYMBOLIZE_REASON_UNSUPPORTED,
	/* an error (corrupt file, vanished process) was skipped */
	BLAZE_SYMBOLIZE_REASON_IGNORED_ERROR,
} blaze_symbolize_reason;

const char *blaze_symbolize_reason_str(blaze_symbolize_reason reason);

typedef struct blaze_symbolizer_opts {
	/* sizeof(blaze_symbolizer_opts), for forward compatibility */
	size_t type_size;
	/* re-check files for changes (unused by the shim: files are keyed by dev/inode) */
	bool auto_reload;
	/* look up file:line (libdw); off by default: slower */
	bool code_info;
	/* report the functions inlined at each address (DWARF, libdw):
	 * blaze_sym.inlined, outermost first */
	bool inlined_fns;
	/* demangle C++ and Rust names */
	bool demangle;
	/* shim extension: with demangle, C++ names without their parameter
	 * lists (`ns::f`, not `ns::f(std::string const&)`) */
	bool demangle_no_params;
	/* the first N bytes are reserved */
	uint8_t reserved[19];
} blaze_symbolizer_opts;

blaze_symbolizer *blaze_symbolizer_new(void);
blaze_symbolizer *blaze_symbolizer_new_opts(const blaze_symbolizer_opts *opts);
void blaze_symbolizer_free(blaze_symbolizer *symbolizer);

typedef struct blaze_symbolize_src_process {
	size_t type_size;
	uint32_t pid;
	/* use debug info (.debug_* sections, separate debug files) */
	bool debug_syms;
	/* read /tmp/perf-PID.map for JIT code */
	bool perf_map;
	/* do not go through /proc/PID/map_files */
	bool no_map_files;
	/* do not symbolize the vDSO (reason UNSUPPORTED, module "[vdso]").
	 * (A process cached with blaze_symbolize_cache_process() and since
	 * exited is always symbolized from the cache.) */
	bool no_vdso;
	/* shim extension: which image of the process the addresses belong
	 * to (see BLAZE_IMAGE_EXEC_BITS below); 0: the latest captured */
	uint64_t image;
	uint8_t reserved[16];
} blaze_symbolize_src_process;

typedef struct blaze_symbolize_src_kernel {
	size_t type_size;
	/* NULL: /proc/kallsyms; "" disables kallsyms */
	const char *kallsyms;
	/* unused by the shim */
	const char *vmlinux;
	bool debug_syms;
	uint8_t reserved[16];
} blaze_symbolize_src_kernel;

typedef struct blaze_cache_src_process {
	size_t type_size;
	uint32_t pid;
	/* capture the process's memory mappings now (the shim always does) */
	bool cache_vmas;
	/* shim extension: the image the process has now (see
	 * blaze_symbolize_src_process); a new image gets its own entry and
	 * the older ones keep their mappings.  0: not known */
	uint64_t image;
	uint8_t reserved[16];
} blaze_cache_src_process;

/* Images (shim extension): one number per process instance and exec,
 * ordered (a later process with the same pid, or a later exec of the same
 * one, has a greater number).  Bits 63..BLAZE_IMAGE_EXEC_BITS: the start
 * time of the process (CLOCK_BOOTTIME) in units of
 * 2^BLAZE_IMAGE_START_SHIFT ns; the bits below: its exec count (the
 * kernel's task->self_exec_id) modulo 2^BLAZE_IMAGE_EXEC_BITS.
 * /proc/PID is read for an image only while its start time
 * (/proc/PID/stat, field 22) is the image's: a new process that got the
 * pid of an old one is never read for the old one's image (its addresses
 * are then not named: reason IGNORED_ERROR).  A process captured with
 * image 0 is checked the same way against the start time it had then. */
#define BLAZE_IMAGE_EXEC_BITS 16
#define BLAZE_IMAGE_START_SHIFT 10

/* Capture what is needed to symbolize PID later, even after it exits:
 * its mappings, and an open handle (or the loaded symbol table) of every
 * mapped file.  Cheap when the files are already cached.  Calling it again
 * refreshes the mappings (dlopen).  pid 0: the calling process.
 * BLAZE_ERR_NOT_FOUND when the process does not exist, or when a later
 * image of it was captured already (cache.image). */
blaze_err blaze_symbolize_cache_process(blaze_symbolizer *symbolizer,
					const blaze_cache_src_process *cache);

typedef struct blaze_symbolize_code_info {
	const char *dir;
	const char *file;
	uint32_t line;
	uint16_t column;
	uint8_t reserved[10];
} blaze_symbolize_code_info;

typedef struct blaze_symbolize_inlined_fn {
	const char *name;
	blaze_symbolize_code_info code_info;
	uint8_t reserved[8];
} blaze_symbolize_inlined_fn;

/* the longest build id a blaze_sym carries */
#define BLAZE_BUILD_ID_MAX 32

typedef struct blaze_sym {
	/* symbol name, or NULL when not found (see reason) */
	const char *name;
	/* path of the module (ELF file, "[vdso]", kernel module name); may be NULL */
	const char *module;
	/* start address of the symbol, in the input's address space
	 * (absolute: addr + offset == the input address) */
	uint64_t addr;
	/* input address minus addr */
	size_t offset;
	/* file:line where code_info was asked and found (file NULL otherwise):
	 * the address's line, or, when functions are inlined at it, where
	 * this function calls inlined[0] */
	blaze_symbolize_code_info code_info;
	/* inlined_fns: the functions inlined at the address, outermost
	 * first (inlined[0] is called by this function, inlined[i + 1] by
	 * inlined[i]); each one's code_info (code_info asked) is where in it
	 * the address is: its call of the next one, the address's line for
	 * the last */
	size_t inlined_cnt;
	const blaze_symbolize_inlined_fn *inlined;
	blaze_symbolize_reason reason;
	/* the mapping the address is in (process look-ups of a file-backed
	 * mapping; all 0 otherwise): its range and file offset as
	 * /proc/PID/maps shows them, and its file's build id once the
	 * file was read (build_id_len 0: not known) */
	uint64_t map_start, map_end, map_off;
	uint8_t build_id[BLAZE_BUILD_ID_MAX];
	uint8_t build_id_len;
	/* shim extension: inlined_fns was asked, and no DWARF covers the
	 * address (no debug info, none found, or not for this code): whether
	 * functions are inlined at it is not known */
	bool inlined_unknown;
	/* shim extension: elf_vaddr_ok when the address's place in its
	 * file is known (the file's program headers were read, found or
	 * not): elf_vaddr is that place as an address of the ELF file
	 * (its p_vaddr convention: what addr2line -e, objdump and nm
	 * take; equal to the file offset in most shared objects and PIE
	 * executables, 0x400000 more in classic executables) */
	bool elf_vaddr_ok;
	uint8_t reserved[5];
	uint64_t elf_vaddr;
} blaze_sym;

typedef struct blaze_syms {
	size_t cnt;
	blaze_sym syms[];
} blaze_syms;

/* One entry per address, in input order; NULL with blaze_err_last() set on
 * a whole-call failure (out of memory, bad arguments).  A process that no
 * longer exists and was never cached gives entries with a reason
 * (IGNORED_ERROR), not NULL.  pid 0: the calling process.  The process's
 * mappings are cached; they are read again (once per call) when an address
 * is in none of them. */
const blaze_syms *blaze_symbolize_process_abs_addrs(blaze_symbolizer *symbolizer,
						     const blaze_symbolize_src_process *src,
						     const uint64_t *abs_addrs,
						     size_t abs_addr_cnt);

const blaze_syms *blaze_symbolize_kernel_abs_addrs(blaze_symbolizer *symbolizer,
						    const blaze_symbolize_src_kernel *src,
						    const uint64_t *abs_addrs,
						    size_t abs_addr_cnt);

void blaze_syms_free(const blaze_syms *syms);

/* Shim extension: read the kernel's symbols (src as above) into the
 * symbolizer's cache now, for the look-ups to come.  The file is read and
 * parsed without the symbolizer's lock, so a thread can do it while
 * other calls go on.  BLAZE_ERR_NOT_FOUND when it cannot be read. */
blaze_err blaze_symbolize_kernel_preload(blaze_symbolizer *symbolizer,
					 const blaze_symbolize_src_kernel *src);

#ifdef __cplusplus
}
#endif

#endif /* BLAZESYM_SHIM_H */

/* ---- data addresses (added for hitmtop; implemented in datasyms.c) ---- */
#ifndef BLAZESYM_SHIM_DATA_H
#define BLAZESYM_SHIM_DATA_H
#ifdef __cplusplus
extern "C" {
#endif
/* Like blaze_symbolize_process_abs_addrs(), for data addresses of a live
 * process: name is the global or static variable (ELF STT_OBJECT, from
 * .symtab, else .dynsym) covering the address, offset the distance from
 * its start.  Without a variable, name is NULL and module names the
 * mapping: the file, "[heap]", "[stack]", ... (NULL: anonymous memory).
 * .bss past the end of the file is found.  A process that no longer
 * exists gives entries with reason IGNORED_ERROR.  Only pid and
 * no_map_files of src are used; free with blaze_syms_free(). */
const blaze_syms *blaze_symbolize_process_data_addrs(blaze_symbolizer *symbolizer,
						     const blaze_symbolize_src_process *src,
						     const uint64_t *abs_addrs,
						     size_t abs_addr_cnt);
#ifdef __cplusplus
}
#endif
#endif

/* ---- interruption and notices (added for the suite's tools) ---- */
#ifndef BLAZESYM_SHIM_NOTIFY_H
#define BLAZESYM_SHIM_NOTIFY_H
#ifdef __cplusplus
extern "C" {
#endif
/* fn is called now and then during long work (loading files, reading a
 * perf map, checksumming a debug file).  When it returns true, the call
 * in progress gives up what is left: results already found are returned,
 * and files not loaded yet are loaded by a later call.  NULL: never. */
void blaze_symbolizer_set_interrupt(blaze_symbolizer *symbolizer, bool (*fn)(void *ctx),
				    void *ctx);
/* fn gets one line (no newline) each time the symbolizer leaves something
 * out that the user should know of: a perf map cut at its limits, a file
 * refused (a FIFO named by a debuglink, a perf map owned by another user).
 * At most 16 per symbolizer.  Called with the symbolizer's lock held. */
void blaze_symbolizer_set_notify(blaze_symbolizer *symbolizer,
				 void (*fn)(void *ctx, const char *msg), void *ctx);
/* For other readers of a process's files (the suite's DWARF unwinder):
 * open the ELF file at path (in our mount namespace) as the symbolizer
 * opens a mapped file: read-only, non-blocking, checked on the descriptor
 * to be a regular file on a real filesystem.  An fd, or -1. */
int blaze_open_elf_file(const char *path);
/* The separate debug file of the ELF file at path, found and opened as
 * the symbolizer does (build id, then .gnu_debuglink with its CRC; see
 * BLAZESYM_SHIM_DEBUG_DIRS), safely.  An fd, or -1. */
int blaze_open_debug_file(const char *path, const unsigned char *build_id, size_t build_id_len,
			  const char *debuglink, uint32_t debuglink_crc);
#ifdef __cplusplus
}
#endif
#endif
