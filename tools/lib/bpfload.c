// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "bpfload.h"
#include "msg.h"
#include "procfs.h"
#include "kfeat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/utsname.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	if (level == LIBBPF_INFO && !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void libbpf_setup_logging(void)
{
	libbpf_set_print(libbpf_print);
}

/* capget without libcap: effective set, 64 bits over two words */
static bool has_cap(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

void bpf_env_check(void)
{
	const char *btf = getenv("SUITE_BTF_PATH");
	struct btf *custom;

	if (!btf)
		btf = "/sys/kernel/btf/vmlinux";
	if (!has_cap(CAP_SYS_ADMIN) &&
	    !(has_cap(CAP_BPF) && has_cap(CAP_PERFMON)))
		die_unsupported("no permission to load BPF programs: need root, "
				"or CAP_BPF and CAP_PERFMON (run with sudo)");
	if (kernel_btf_path) {
		/* the kernel's types from a file: CO-RE works, tp_btf and
		 * BTF pointers (they need the kernel's own) do not */
		custom = btf__parse(kernel_btf_path, NULL);
		if (!custom || libbpf_get_error(custom))
			die_usage("--btf %s: not a BTF file this tool can read (%s)",
				  kernel_btf_path, strerror(errno));
		btf__free(custom);
	} else if (getenv("SUITE_BTF_PATH") ? access(btf, R_OK) : !kfeat_has(KF_KERNEL_BTF)) {
		die_unsupported("no kernel BTF at %s: needs a kernel built with "
				"CONFIG_DEBUG_INFO_BTF=y (Linux 5.4 or newer), or this "
				"kernel's BTF as a file: --btf FILE (made from its debug "
				"vmlinux with 'pahole --btf_encode_detached FILE')", btf);
	}
	kfeat_require(KF_RINGBUF, "every tool of the suite");
}

bool kallsyms_hidden(char *why, size_t size)
{
	char buf[4096], *p;
	long kr, paranoid;
	int lines = 0;

	/* "ADDR TYPE NAME" lines: hidden when every address of the first
	 * ones is 0 (per-CPU symbols come first on some kernels, the first
	 * of them at 0 even when shown) */
	if (read_small_file("/proc/kallsyms", buf, sizeof(buf)) <= 0)
		return false;
	for (p = buf; *p; lines++) {
		size_t zeros = strspn(p, "0");

		if (!p[zeros])
			break;		/* the line cut by the buffer */
		if (!zeros || p[zeros] != ' ')
			return false;	/* an address that is not 0 */
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	if (lines < 2)
		return false;
	kr = sysctl_long("/proc/sys/kernel/kptr_restrict", -1);
	paranoid = sysctl_long("/proc/sys/kernel/perf_event_paranoid", 2);
	if (kr >= 2)
		snprintf(why, size, "kernel.kptr_restrict=%ld hides them from every "
			 "process: set it to 1 (and run with CAP_SYSLOG) or 0", kr);
	else if (kr == 1)
		snprintf(why, size, "kernel.kptr_restrict=1 and the tool lacks "
			 "CAP_SYSLOG: run it with CAP_SYSLOG (as root does), or set "
			 "kernel.kptr_restrict=0 and kernel.perf_event_paranoid<=1");
	else if (!has_cap(CAP_SYSLOG) && paranoid > 1)
		snprintf(why, size, "the tool lacks CAP_SYSLOG (kernel.perf_event_paranoid=%ld): "
			 "run it with CAP_SYSLOG (as root does), or set "
			 "kernel.perf_event_paranoid<=1", paranoid);
	else
		snprintf(why, size, "/proc/kallsyms shows every address as 0 "
			 "(kernel.kptr_restrict=%ld): run the tool with CAP_SYSLOG", kr);
	return true;
}

static const char *kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		strcpy(u.release, "unknown");
	return u.release;
}

int bpf_fail(const char *what, int err)
{
	const char *why = "";

	if (err > 0)
		err = -err;
	switch (err) {
	case -EPERM:
	case -EACCES:
		if (has_cap(CAP_SYS_ADMIN) || (has_cap(CAP_BPF) && has_cap(CAP_PERFMON))) {
			/* privileged: it is the verifier that said no */
			msg_warn("%s: the kernel's verifier refused a program (%s): "
				 "this kernel (%s) lacks something the suite did not probe "
				 "for; run with -v for the verifier's log", what,
				 strerror(-err), kernel_release());
			return EXIT_UNSUPPORTED;
		}
		why = ": need root or CAP_BPF and CAP_PERFMON, and "
		      "kernel.unprivileged_bpf_disabled does not apply to root";
		msg_warn("%s: permission denied (%s)%s", what, strerror(-err), why);
		return EXIT_UNSUPPORTED;
	case -ENOENT:
	case -EOPNOTSUPP:
	case -EINVAL:
	case -ESRCH:
		why = ": this kernel lacks a tracepoint, program type or helper "
		      "the tool needs (run with -v for libbpf's log)";
		break;
	}
	msg_warn("%s: %s%s", what, strerror(-err), why);
	return EXIT_UNSUPPORTED;
}

void map_resize(struct bpf_map *map, uint32_t entries)
{
	int err = bpf_map__set_max_entries(map, entries);

	if (err)
		die_usage("cannot size map %s to %u entries: %s",
			  bpf_map__name(map), entries, strerror(-err));
}

/* Is tracepoint sec ("tp_btf/NAME") in the kernel's BTF? */
static bool tp_has_btf(const char *sec)
{
	const char *tp = strchr(sec, '/');

	return tp && kernel_tp_args(tp + 1) >= 0;
}

bool bpf_pick_tp_flavour(struct bpf_object *obj)
{
	struct bpf_program *prog;
	/* tp_btf programs attach through the running kernel's own BTF */
	bool use_btf = !getenv("SUITE_FORCE_RAW_TP") && kfeat_has(KF_KERNEL_BTF);

	/* Every _btf program's tracepoint must be known, or none is used:
	 * the two flavours share maps and handlers, never mix them. */
	bpf_object__for_each_program(prog, obj) {
		const char *n = bpf_program__name(prog);
		size_t l = strlen(n);

		if (use_btf && l > 4 && !strcmp(n + l - 4, "_btf") &&
		    bpf_program__autoload(prog) &&
		    !tp_has_btf(bpf_program__section_name(prog)))
			use_btf = false;
	}
	bpf_object__for_each_program(prog, obj) {
		const char *n = bpf_program__name(prog);
		size_t l = strlen(n);

		if (l > 4 && !strcmp(n + l - 4, "_btf") && !use_btf)
			bpf_program__set_autoload(prog, false);
		if (l > 4 && !strcmp(n + l - 4, "_raw") && use_btf)
			bpf_program__set_autoload(prog, false);
	}
	if (verbose)
		msg_warn("using %s tracepoints", use_btf ? "tp_btf" : "raw_tp");
	return use_btf;
}

static const char *prog_tp(struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);
	const char *tp = sec ? strchr(sec, '/') : NULL;

	if (!tp || (strncmp(sec, "tp_btf/", 7) && strncmp(sec, "raw_tp/", 7)))
		return NULL;
	return tp + 1;
}

bool word_in(const char *list, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = list; *p; p += strcspn(p, " "), p += *p == ' ') {
		if (!strncmp(p, word, wl) && (p[wl] == ' ' || !p[wl]))
			return true;
	}
	return false;
}

int bpf_disable_missing_tps(struct bpf_object *obj, char *missing, size_t size)
{
	struct bpf_program *prog;
	size_t off = 0;
	int n = 0;

	if (size)
		missing[0] = 0;
	if (!kernel_btf())
		return 0;	/* nothing known: let the load or attach say it */
	bpf_object__for_each_program(prog, obj) {
		const char *tp = prog_tp(prog);

		if (!tp || !bpf_program__autoload(prog) || kernel_tp_args(tp) >= 0)
			continue;
		bpf_program__set_autoload(prog, false);
		if (size && !word_in(missing, tp) && off + strlen(tp) + 2 < size) {
			off += snprintf(missing + off, size - off, "%s%s", off ? " " : "", tp);
			n++;
		}
	}
	return n;
}

const struct bpf_object_open_opts *bpf_open_opts(void)
{
	static struct bpf_object_open_opts o = { .sz = sizeof(o) };

	o.btf_custom_path = kernel_btf_path;
	return &o;
}

int ncpus_possible(void)
{
	int n = libbpf_num_possible_cpus();

	return n > 0 ? n : 1;
}
