/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * blazesym-shim internals: shared between the shim's files, the unit tests
 * and the fuzz targets.  Not part of the public API; tools must not include it.
 *
 * Files:
 *   util.c       errors, reason strings, the clock, growable arrays,
 *                the per-address results of a call
 *   safefile.c   opening and reading the files a traced process controls
 *                (bounded in size and time), interruption and notices
 *   symtab.c     sorted symbol tables: build, deduplicate, binary search
 *   elf.c        ELF files through libelf: symbols, PT_LOAD, build-id, debuglink
 *   debuginfo.c  separate debug files (build-id, .gnu_debuglink), file:line (libdw)
 *   maps.c       /proc/PID/maps parsing
 *   kallsyms.c   /proc/kallsyms parsing and lookup
 *   perfmap.c    /tmp/perf-PID.map (JIT) parsing and lookup
 *   demangle.c   C++, Rust v0 and Rust legacy names (libiberty)
 *   files.c      the shared (dev, inode) file cache: a mapping to its file
 *   process.c    the per-process cache
 *   symbolize.c  the public API
 *   fuzz.c       entry points of the fuzz targets (tests/fuzz/)
 */
#ifndef BLAZESYM_SHIM_INTERNAL_H
#define BLAZESYM_SHIM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "blazesym.h"

struct stat;
typedef struct Elf Elf;

/* ---- util.c ---- */
void bzs_set_err(blaze_err err);
uint64_t bzs_now_ns(void);
/* Room for one more element in the growable array arr of cap elements,
 * cnt of them used: when it is full, twice as many (first_cap for an
 * empty one).  0, or -ENOMEM with arr and cap as they were. */
#define BZS_ARRAY_RESERVE(arr, cap, cnt, first_cap) \
	bzs_array_reserve(&(arr), &(cap), (cnt), sizeof(*(arr)), (first_cap))
/* The same, arrp the address of the array's pointer */
int bzs_array_reserve(void *arrp, size_t *cap, size_t cnt, size_t elem_size, size_t first_cap);

/* The value of the hexadecimal digit c, or -1 when c is not one */
static inline int bzs_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* In an array of cnt elements sorted by their uint64_t member field, the
 * index of the last element whose field is at most key (binary search).
 * The caller makes sure cnt > 0 and the first element's field <= key. */
static inline size_t bzs_sorted_last_at_most(const void *base, size_t cnt, size_t elem_size,
					     size_t field_off, uint64_t key)
{
	size_t lo = 0, hi = cnt;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (*(const uint64_t *)((const char *)base + mid * elem_size + field_off) <= key)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}
#define BZS_SORTED_LAST_AT_MOST(arr, cnt, field, key) \
	bzs_sorted_last_at_most((arr), (cnt), sizeof(*(arr)), \
				offsetof(__typeof__(*(arr)), field), (key))

/* The start of a call on n addresses: when its arguments are right
 * (args_ok), its n per-address results of elem_size bytes, zeroed (at
 * least one); else, or out of memory, NULL with the error set. */
void *bzs_call_results(bool args_ok, size_t n, size_t elem_size);
/* The result of one address, until it is copied into the call's blaze_syms */
struct bzs_res {
	const char *name, *module, *src;	/* src: file:line's path, or NULL */
	uint64_t addr;
	size_t offset;
	uint32_t line;
	uint16_t col;
	int reason;
	const struct bzs_vma *vma;	/* the file mapping of the address, or NULL */
	struct bzs_inl *inl;	/* inlined_fns: the functions inlined at it */
	size_t ninl;
	bool no_inl;		/* inlined_fns: no DWARF to tell */
	bool vaddr_ok;		/* vaddr is the address's place in its ELF file */
	uint64_t vaddr;
};
/* The blaze_syms of the n results t, in one allocation with copies of
 * their strings (a string pointed to by several results is copied once);
 * NULL when out of memory. */
blaze_syms *bzs_build_syms(const struct bzs_res *t, size_t n);
/* The end of such a call: frees the per-address results and sets the
 * error from r (NULL: out of memory).  Returns r. */
const blaze_syms *bzs_call_done(blaze_syms *r, void *results);
/* The same for n struct bzs_res, with what they hold (inlined functions) */
const blaze_syms *bzs_call_done_res(blaze_syms *r, struct bzs_res *t, size_t n);

/* ---- safefile.c: files a traced process controls ---- */
/* Limits (see safefile.c and docs/RELIABILITY.md) */
#define BZS_ELF_MAX	((uint64_t)16 << 30)	/* an ELF or debug file */
#define BZS_SECTION_MAX	((uint64_t)1 << 30)	/* a symbol or string table */
#define BZS_NOTE_MAX	((uint64_t)1 << 16)	/* a note or .gnu_debuglink section */
#define BZS_PROC_MAX	((size_t)256 << 20)	/* /proc/PID/maps, /proc/kallsyms */
#define BZS_READ_NS	(2ull * 1000000000ull)	/* to read one file */
#define BZS_CRC_NS	(5ull * 1000000000ull)	/* to checksum the debug file
							 * candidates of one file */
#define BZS_NOTICES_MAX	16			/* notices per symbolizer */

struct bzs_open_opts {
	const char *root;	/* resolve path inside this directory
				 * ("/proc/PID/root"); NULL: as it is */
	uint64_t max_size;	/* refuse larger files (0: no limit) */
	uint64_t min_size;	/* refuse smaller files */
	bool check_owner;	/* refuse a file owned by another than owner or root */
	uid_t owner;
	bool proc_file;		/* a file of /proc the kernel makes: size 0, procfs */
};
/* Open path read-only, non-blocking, as a regular file that passes o's
 * checks (made on the open descriptor).  The fd, or -1 with errno set and,
 * when a file was there but refused, *why saying why (why may be NULL).
 * st: its fstat (also when refused, once fstat could be made). */
int bzs_safe_open(const char *path, const struct bzs_open_opts *o, struct stat *st,
		  const char **why);
/* Read fd from its current offset: at most max bytes, for at most max_ns
 * (0: no time bound), stopping early when interrupted.  A NUL-terminated
 * buffer; *truncated: there was more. */
char *bzs_read_bounded(int fd, size_t max, uint64_t max_ns, size_t *len, bool *truncated);
/* A whole /proc file (at most max bytes, else NULL with errno EFBIG). */
char *bzs_read_proc(const char *path, size_t max, size_t *len);
/* CRC32 (the .gnu_debuglink one) of the first size bytes of fd; false
 * when it could not be read whole before deadline (bzs_now_ns()). */
bool bzs_crc32_fd(int fd, uint64_t size, uint64_t deadline, uint32_t *crc);
/* The API call in progress, for the two below (set with the lock held) */
void bzs_call_begin(blaze_symbolizer *s);
void bzs_call_end(void);
/* The caller asks the call in progress to give up what is left */
bool bzs_interrupted(void);
/* Tell the caller something was left out (at most BZS_NOTICES_MAX) */
void bzs_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- symtab.c ---- */
struct bzs_sym {
	uint64_t addr;
	uint64_t end;	/* exclusive */
	const char *name;
};

struct bzs_symtab {
	struct bzs_sym *syms;
	size_t cnt;
	char **pools;	/* string blocks owned by the table */
	size_t npools;
	char **demangled; /* lazily filled, parallel to syms */
	size_t mem;	/* approximate bytes held */
};

/* Builder: collect candidates, then bzs_symtab_finish() sorts and dedupes. */
struct bzs_cand {
	uint64_t addr;
	uint64_t size;
	uint64_t limit;	/* end of the containing section, 0: unknown */
	const char *name;
	uint32_t score;	/* preference among aliases, higher wins */
	uint32_t idx;	/* insertion order, for stable ties */
};

struct bzs_symtab_builder {
	struct bzs_cand *c;
	size_t cnt, cap;
	char **pools;
	size_t npools, pcap;
	size_t mem;
};

int bzs_builder_add(struct bzs_symtab_builder *b, uint64_t addr, uint64_t size,
		    uint64_t limit, const char *name, uint32_t score);
/* Take ownership of a malloc'ed string block referenced by added names. */
int bzs_builder_own(struct bzs_symtab_builder *b, char *pool, size_t len);
/* Sort, dedupe, compute ends; zero-size symbols extend to the next one
 * (bounded by limit).  Consumes the builder. */
int bzs_symtab_finish(struct bzs_symtab_builder *b, struct bzs_symtab *t);
void bzs_builder_free(struct bzs_symtab_builder *b);
/* Index of the symbol covering addr, or -1. */
ssize_t bzs_symtab_lookup(const struct bzs_symtab *t, uint64_t addr);
void bzs_symtab_free(struct bzs_symtab *t);
/* Name of symbol i, demangled (and cached) when demangle is set. */
const char *bzs_symtab_name(struct bzs_symtab *t, size_t i, bool demangle);
/* The same, demangled with flags (BZS_DEMANGLE_*) */
const char *bzs_symtab_name_opts(struct bzs_symtab *t, size_t i, bool demangle, unsigned flags);

/* ---- elf.c ---- */
struct bzs_load {
	uint64_t off, filesz, vaddr;
	uint64_t memsz;		/* with .bss: for data addresses */
};

struct bzs_elf {
	struct bzs_load *loads;
	size_t nloads;
	struct bzs_symtab syms;
	uint8_t build_id[64];
	size_t build_id_len;
	char *debuglink;	/* .gnu_debuglink file name, or NULL */
	uint32_t debuglink_crc;
	bool has_symtab;	/* a full .symtab was found */
	bool has_dwarf;		/* .debug_info present */
	bool is_debug_only;	/* text is NOBITS (objcopy --only-keep-debug) */
};

void bzs_elf_init(void);
/* Parse an ELF file.  Returns 0, or a blaze_symbolize_reason on failure. */
int bzs_elf_load_fd(int fd, struct bzs_elf *out);
int bzs_elf_load_mem(const void *buf, size_t len, struct bzs_elf *out);
/* Read only the build-id of an ELF file; its length, 0 if none. */
size_t bzs_elf_read_build_id(int fd, uint8_t *id, size_t cap);
/* Merge the symbols of a separate debug file into e (which keeps its loads). */
int bzs_elf_merge_syms(struct bzs_elf *e, struct bzs_elf *debug);
/* The PT_LOAD headers of elf (an Elf * of libelf), in file order: a
 * malloc'ed array (NULL when there are none).  0, or -ENOMEM. */
int bzs_elf_read_loads(Elf *elf, struct bzs_load **loads, size_t *n);
/* Translate a file offset into an ELF virtual address via PT_LOAD. */
bool bzs_elf_off_to_vaddr(const struct bzs_elf *e, uint64_t off, uint64_t *vaddr);
void bzs_elf_free(struct bzs_elf *e);

/* ---- debuginfo.c ---- */
/* Find and open the separate debug file of e (mapped as path in process
 * root `root`, e.g. "/proc/123/root", or NULL).  Returns an fd or -1. */
int bzs_debug_find(const struct bzs_elf *e, const char *path, const char *root);
struct bzs_dwarf;
/* Open DWARF on fd (takes ownership of fd). */
struct bzs_dwarf *bzs_dwarf_open(int fd);
/* source path, line, column of vaddr; the path is valid as long as the handle. */
bool bzs_dwarf_lookup(struct bzs_dwarf *d, uint64_t vaddr, const char **path,
		      uint32_t *line, uint16_t *col);
void bzs_dwarf_close(struct bzs_dwarf *d);
/* One function inlined at an address: its name (malloc'ed, demangled when
 * asked) and a location in it (src valid as long as the handle) */
struct bzs_inl {
	char *name;
	const char *src;
	uint32_t line;
	uint16_t col;
};
/* inlined functions kept of one address, at most (the outermost ones) */
#define BZS_INLINE_MAX 64
/* The functions inlined at vaddr (DW_TAG_inlined_subroutine scopes of
 * its compile unit), outermost first, into a malloc'ed *out of *n (NULL,
 * 0 when none).  (*out)[i]'s location is where it calls (*out)[i + 1]
 * (DW_AT_call_file/line of that one); the innermost's is vaddr's line.
 * outer: where the function that holds them calls (*out)[0] (src NULL
 * when none).  False when no compile unit covers vaddr (no inline
 * information) or out of memory. */
bool bzs_dwarf_inlined(struct bzs_dwarf *d, uint64_t vaddr, bool demangle, unsigned dmgl_flags,
		       struct bzs_inl **out,
		       size_t *n, struct bzs_inl *outer);
/* (in util.c, with the results that hold them) */
void bzs_inl_free(struct bzs_inl *inl, size_t n);

/* ---- maps.c ---- */
enum bzs_vma_kind {
	BZS_VMA_FILE = 0,
	BZS_VMA_VDSO,
	BZS_VMA_ANON,	/* anonymous or [heap]/[stack]: JIT code, perf maps */
	BZS_VMA_OTHER,	/* [vsyscall] and other specials */
};

struct bzs_maps_entry {
	uint64_t start, end, off;
	uint64_t dev, ino;
	char *path;		/* malloc'ed, " (deleted)" stripped; NULL if anon */
	int kind;
	bool exec;
	bool deleted;
};

/* Parse a maps buffer; keeps executable mappings only (all mappings when
 * exec_only is false).  Lines that do not parse are skipped and counted in
 * *bad.  Returns the entries sorted by start (malloc'ed), or NULL with *n=0. */
struct bzs_maps_entry *bzs_maps_parse(const char *buf, size_t len, bool exec_only,
				      size_t *n, size_t *bad);
void bzs_maps_free(struct bzs_maps_entry *e, size_t n);

/* ---- kallsyms.c ---- */
struct bzs_ksyms;
struct bzs_ksyms *bzs_ksyms_parse(const char *buf, size_t len);
struct bzs_ksyms *bzs_ksyms_load(const char *path);
/* The symbol of addr into r: r->reason, and on success r->name, r->module
 * (NULL for the core kernel), r->addr (its start) and r->offset.  Returns
 * r->reason. */
int bzs_ksyms_lookup(const struct bzs_ksyms *k, uint64_t addr, struct bzs_res *r);
void bzs_ksyms_free(struct bzs_ksyms *k);

/* ---- perfmap.c ---- */
struct bzs_perfmap;
struct bzs_perfmap *bzs_perfmap_parse(const char *buf, size_t len);
struct bzs_perfmap_src {
	const char *root;	/* resolve path in it (see bzs_safe_open), or NULL */
	const char *path;
	uid_t owner;		/* the file must be owned by this user or root */
	pid_t pid;		/* for messages */
	size_t max_lines, max_bytes;
	bool *refused_said;	/* a refusal said already (once per process) */
};
/* 0 on success; reads again when the file changed since the last call. */
int bzs_perfmap_refresh(struct bzs_perfmap **pm, const struct bzs_perfmap_src *src);
bool bzs_perfmap_lookup(const struct bzs_perfmap *pm, uint64_t addr,
			const char **name, uint64_t *start);
size_t bzs_perfmap_count(const struct bzs_perfmap *pm);
void bzs_perfmap_free(struct bzs_perfmap *pm);

/* ---- demangle.c ---- */
/* A malloc'ed demangled name (Rust v0, Rust legacy, C++), or NULL when
 * name is not mangled (or on error, or out of memory). */
char *bzs_demangle(const char *name);
/* The same, with flags: */
#define BZS_DEMANGLE_NO_PARAMS 1u	/* C++: no parameter list (f, not f(int)) */
char *bzs_demangle_opts(const char *name, unsigned flags);


/* ---- process.c: the caches ---- */
struct bzs_file {
	uint64_t dev, ino;	/* key (as /proc/PID/maps shows them) */
	uint32_t vdso_crc;	/* vDSO images: keyed by CRC and size instead */
	size_t vdso_len;
	bool is_vdso;
	int reason;		/* 0: loaded; else why the file is unusable */
	struct bzs_elf elf;
	off_t size;		/* identity at load time, against inode reuse */
	struct timespec mtime;
	bool debug_tried;
	int dwarf_fd;		/* kept open (code_info only), -1 otherwise */
	bool dwarf_tried;
	struct bzs_dwarf *dwarf;
	unsigned refs;		/* mappings that use it */
	bool in_hash;
	uint64_t last_use;
	size_t accounted;	/* bytes counted in file_mem */
	struct bzs_file *next;
};

struct bzs_vma {
	uint64_t start, end, off, dev, ino;
	char *path;
	int kind;
	int reason;		/* why file is NULL once tried; 0 = not tried yet */
	struct bzs_file *file;
};

struct bzs_proc {
	pid_t pid;
	pid_t via;		/* 0, or a live thread whose /proc/PID/task/TID
				 * is read: the first thread ended alone (a
				 * zombie has empty maps, no mem, root or
				 * map_files) while the process lives on */
	uint64_t image;		/* which image of the process (BLAZE_IMAGE_*); 0: not known */
	uint64_t start_ticks;	/* image 0: the start time /proc showed first */
	bool start_known;
	uint64_t current_ns;	/* when /proc/PID was last seen to be this process */
	struct bzs_vma *vmas;
	size_t nvmas;
	bool gone;		/* /proc/PID vanished, or a later image replaced
				 * this one: keep what we have */
	struct bzs_perfmap *pm;
	char *pm_path;		/* in the process's root; set once its owner is known */
	uid_t pm_owner;		/* the process's user */
	bool pm_refused_said;
	uint64_t last_use;
	struct bzs_proc *next;
};

#define BZS_FILE_BUCKETS 1024
#define BZS_PROC_BUCKETS 1024

struct bzs_kcache {
	char *path;
	struct bzs_ksyms *k;
	uint64_t loaded_ns;
};

/* Mappings replaced during a call: their paths and files may be pointed to
 * by the results under construction, so they are freed after the call. */
struct bzs_grave {
	struct bzs_vma *vmas;
	size_t n;
	struct bzs_grave *next;
};

struct blaze_symbolizer {
	pthread_mutex_t lock;
	struct bzs_grave *graves;
	blaze_symbolizer_opts opts;
	struct bzs_file *files[BZS_FILE_BUCKETS];
	size_t nfiles, file_mem;
	struct bzs_file *vdsos;
	struct bzs_proc *procs[BZS_PROC_BUCKETS];
	size_t nprocs;
	struct bzs_kcache *kc;
	size_t nkc;
	uint64_t tick;
	size_t max_procs;	/* cache bounds, see process.c */
	size_t file_mem_budget;
	bool (*interrupt)(void *ctx);	/* blaze_symbolizer_set_interrupt() */
	void *interrupt_ctx;
	void (*notify)(void *ctx, const char *msg); /* blaze_symbolizer_set_notify() */
	void *notify_ctx;
	unsigned notices;
	size_t pm_max_lines, pm_max_bytes; /* perf map limits */
};

/* The flags of its demangling (BZS_DEMANGLE_*) */
static inline unsigned bzs_dmgl_flags(const blaze_symbolizer *s)
{
	return s->opts.demangle_no_params ? BZS_DEMANGLE_NO_PARAMS : 0;
}

/* Does the symbolizer read DWARF (file:line, inlined functions)? */
static inline bool bzs_wants_dwarf(const blaze_symbolizer *s)
{
	return s->opts.code_info || s->opts.inlined_fns;
}

struct bzs_proc_opts {
	bool debug_syms, perf_map, no_map_files, no_vdso;
};

/* The entry of one image of pid (image 0: the latest known).  An image
 * older than one already known and never captured gets an empty entry
 * marked gone: /proc now shows a later image.  The entry captured before
 * the image was known (image 0) stands in for an image only when its
 * process had the image's start time. */
struct bzs_proc *bzs_proc_get(blaze_symbolizer *s, pid_t pid, uint64_t image, bool create);
/* Capture image of pid now (blaze_symbolize_cache_process): the entry
 * captured before its image was known (image 0) is adopted when it holds
 * that process, and once /proc shows image, every older image of pid is
 * kept as it is from now on (gone).  NULL when a
 * later image is known already (nothing to read: /proc shows that one). */
struct bzs_proc *bzs_proc_capture(blaze_symbolizer *s, pid_t pid, uint64_t image);
/* Re-read the maps of p; eager: load every file now.  0 or -errno;
 * -ESRCH (and p gone) when /proc/PID is not, or no longer, the process
 * of p (bzs_proc_is_current). */
int bzs_proc_refresh(blaze_symbolizer *s, struct bzs_proc *p, bool eager,
		     const struct bzs_proc_opts *o);
struct bzs_vma *bzs_proc_find(struct bzs_proc *p, uint64_t addr);
/* Is /proc/PID now the process of p: the one with the start time of its
 * image, or for image 0 the one it found first?  False when gone. */
bool bzs_proc_is_current(struct bzs_proc *p);
/* Did the process of image start at ticks (/proc/PID/stat, field 22)? */
bool bzs_image_started_at(uint64_t image, uint64_t ticks);
/* The start time of pid in clock ticks (/proc/PID/stat, field 22) */
bool bzs_proc_start_ticks(pid_t pid, uint64_t *ticks);
/* ---- files.c: the file cache ---- */
/* /proc/PID/WHAT, or /proc/PID/task/TID/WHAT through p->via */
void bzs_proc_path(const struct bzs_proc *p, char *buf, size_t n, const char *what);
/* A mapping no longer uses f (NULL: none) */
void bzs_file_unref(blaze_symbolizer *s, struct bzs_file *f);
/* The cache trimmed to file_mem_budget, least recently used first */
void bzs_files_trim(blaze_symbolizer *s);
/* Every cached file freed, the vDSO images too */
void bzs_files_free(blaze_symbolizer *s);
/* Make sure v->file is loaded (or v->reason set). */
void bzs_vma_resolve(blaze_symbolizer *s, struct bzs_proc *p, struct bzs_vma *v,
		     const struct bzs_proc_opts *o);
/* The perf map of p, re-read when it changed; NULL if none. */
struct bzs_perfmap *bzs_proc_perfmap(blaze_symbolizer *s, struct bzs_proc *p);
struct bzs_dwarf *bzs_file_dwarf(struct bzs_file *f);
void bzs_proc_drop(blaze_symbolizer *s, struct bzs_proc *p);
void bzs_caches_free(blaze_symbolizer *s);
/* End of an API call: free replaced mappings, trim the file cache. */
void bzs_caches_flush(blaze_symbolizer *s);

/* ---- fuzz entry points (parse a buffer, exercise lookups, free) ---- */
int bzs_fuzz_elf(const uint8_t *data, size_t size);
int bzs_fuzz_maps(const uint8_t *data, size_t size);
int bzs_fuzz_text(const uint8_t *data, size_t size); /* kallsyms, perf maps, demangler */

#endif
