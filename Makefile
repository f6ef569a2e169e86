# One chain per tool, each tool a folder:
#   bpf/X.bpf.c -> build/bpf/X.bpf.o -> build/X.skel.h
#   tools/X/X.c (main) + build/libX.a (tools/X/*.c, the modules only X uses)
#     + build/libsuite.a (tools/lib/*.c, blazesym-shim/*.c) -> ./X
# Every tools/X/ that has a bpf/X.bpf.c is a tool; nothing to list by hand.
# A unit test tests/unit/test_X_*.c of a tool X links build/libX.a.
# `make V=1` shows the commands; `make SANITIZE=1` builds user space with
# ASan+UBSan; `make STATIC=1` links libbpf, libelf and zlib statically.

OUT      ?= build
# where the executables go: the top of the tree by default
BINDIR   ?= .
ARCH     ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
CC       ?= cc
CLANG    ?= clang
BPFTOOL  ?= $(shell command -v bpftool || echo /usr/sbin/bpftool)
PREFIX   ?= /usr/local
VERSION  := $(shell cat VERSION 2>/dev/null || echo 0.1.0)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

TOOLS     := $(sort $(patsubst tools/%/,%,$(wildcard tools/*/)))
TOOLS     := $(filter $(patsubst bpf/%.bpf.c,%,$(wildcard bpf/*.bpf.c)),$(TOOLS))
# a tool folder whose kernel half is not written yet: only its modules'
# archive (build/libX.a), for their unit tests; no binary
PARTIAL   := $(filter-out lib $(TOOLS),$(sort $(patsubst tools/%/,%,$(wildcard tools/*/))))
LIB_SRCS  := $(wildcard tools/lib/*.c) $(wildcard blazesym-shim/*.c)
LIB_OBJS  := $(patsubst %.c,$(OUT)/obj/%.o,$(LIB_SRCS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNITS     := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))
WL_SRCS   := $(wildcard tests/workloads/*.c)
WORKLOADS := $(patsubst tests/workloads/%.c,$(OUT)/workloads/%,$(WL_SRCS))
# Rust workloads, each built twice (legacy and v0 symbol mangling), and
# C++ ones: only where rustc / a C++ compiler is found (the tests that need
# them say they are skipped, and why)
CXX      ?= g++
RUSTC    ?= $(shell command -v rustc 2>/dev/null)
HAVE_CXX := $(shell command -v $(CXX) 2>/dev/null)
RS_SRCS   := $(wildcard tests/workloads/*.rs)
CXX_SRCS  := $(wildcard tests/workloads/*.cc)
ifneq ($(RUSTC),)
WORKLOADS += $(patsubst tests/workloads/%.rs,$(OUT)/workloads/%,$(RS_SRCS)) \
	     $(patsubst tests/workloads/%.rs,$(OUT)/workloads/%_v0,$(RS_SRCS))
endif
ifneq ($(HAVE_CXX),)
WORKLOADS += $(patsubst tests/workloads/%.cc,$(OUT)/workloads/%,$(CXX_SRCS))
endif

CFLAGS   ?= -O2 -g
# tools/lib is searched for "x.h" only (-iquote): a module's header never
# hides a system one
CFLAGS   += -Wall -Wextra -Wmissing-prototypes -Wno-unused-parameter -Wno-missing-field-initializers \
	    -std=gnu11 -D_GNU_SOURCE -DSUITE_VERSION='"$(VERSION)"' \
	    -iquote tools/lib -Iblazesym-shim -Ibpf -I$(OUT)
DEPFLAGS  = -MMD -MP
BPF_CFLAGS = -O2 -g -Wall -Wno-unused-function -target bpf -mcpu=v3 \
	     -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) -Ibpf
LDLIBS_DYN = -lbpf -lelf -ldw -lz -ljson-c -lpthread -liberty
ifeq ($(STATIC),1)
LDLIBS    = -Wl,-Bstatic -lbpf -ldw -lelf -lz -lzstd -llzma -lbz2 -ljson-c -liberty -Wl,-Bdynamic -lpthread
else
LDLIBS    = $(LDLIBS_DYN)
endif
ifeq ($(SANITIZE),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all clean test unit demo bench deps install uninstall workloads asan test-asan man static fuzz test-kernels pictures

BINS := $(patsubst %,$(BINDIR)/%,$(TOOLS))

all: $(BINS) workloads

$(TOOLS:%=$(OUT)/bpf/%.bpf.o): $(OUT)/bpf/%.bpf.o: bpf/%.bpf.c | $(OUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -MT $@ -MF $(OUT)/bpf/$*.d -c $< -o $@.tmp
	$(Q)$(BPFTOOL) gen object $@ $@.tmp && rm -f $@.tmp

$(TOOLS:%=$(OUT)/%.skel.h): $(OUT)/%.skel.h: $(OUT)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(OUT)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# Syscall names (tools/lib/syscalls.c), generated from the system's kernel
# headers for x86_64 and arm64 by scripts/gen_syscalls.sh: never typed by hand.
SYSCALL_HDRS := $(wildcard /usr/include/x86_64-linux-gnu/asm/unistd_64.h \
	/usr/include/asm-generic/unistd.h /usr/include/aarch64-linux-gnu/asm/unistd.h \
	/usr/aarch64-linux-gnu/include/asm/unistd.h)
$(OUT)/syscall_names.h: scripts/gen_syscalls.sh $(SYSCALL_HDRS)
	@mkdir -p $(@D)
	$(call msg,GEN,$@)
	$(Q)CPP="$(CC) -E" scripts/gen_syscalls.sh $@
$(OUT)/obj/tools/lib/syscalls.o: $(OUT)/syscall_names.h

$(OUT)/libsuite.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# A tool: its main object, its own archive, then the shared one
define LIB_RULES
$(OUT)/lib$(1).a: $$(patsubst %.c,$(OUT)/obj/%.o,$$(filter-out tools/$(1)/$(1).c,$$(wildcard tools/$(1)/*.c)))
	$$(call msg,AR,$$@)
	$$(Q)rm -f $$@ && ar rcs $$@ $$^
endef
define TOOL_RULES
$(call LIB_RULES,$(1))
$(OUT)/obj/tools/$(1)/$(1).o: $(OUT)/$(1).skel.h
$(BINDIR)/$(1): $(OUT)/obj/tools/$(1)/$(1).o $(OUT)/lib$(1).a $(OUT)/libsuite.a
endef
$(foreach t,$(TOOLS),$(eval $(call TOOL_RULES,$(t))))
$(foreach t,$(PARTIAL),$(eval $(call LIB_RULES,$(t))))

$(BINS):
	$(call msg,LINK,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# tools that carry libbpf, libelf, libdw and zlib inside, to copy elsewhere
static:
	$(Q)$(MAKE) --no-print-directory STATIC=1 OUT=build-static BINDIR=build-static/bin $(TOOLS:%=build-static/bin/%)

# the sanitizer build: its own build folder and binaries, the same tests
# but those that check the tree (install, layout), the documentation's
# statements (test_docs: the tools' own tests run the same paths) and the
# flame graphs in a browser (test_flamesvg: mostly the browser's time; the
# SVG writer's unit test runs under the sanitizers), the comparisons of a
# kernel feature on and off (test_ustack_walk, test_kernel_compat: BPF's
# side; user space runs the same paths in the tool tests) and the traces
# in a browser (tests/lib.sh trace_browser)
asan:
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 OUT=build-asan BINDIR=build-asan/bin all unit

test-asan: asan
	$(Q)rm -rf build-asan/logs && mkdir -p build-asan/logs
	$(Q)ASAN_OPTIONS=detect_leaks=1:log_path=$(CURDIR)/build-asan/logs/asan \
		UBSAN_OPTIONS=print_stacktrace=1:log_path=$(CURDIR)/build-asan/logs/ubsan \
		SANITIZER_LOGS=$(CURDIR)/build-asan/logs \
		SUITE_SKIP="test_install test_layout test_docs test_flamesvg test_ustack_walk test_kernel_compat" \
		BUILD=$(CURDIR)/build-asan BIN=$(CURDIR)/build-asan/bin tests/run.sh

# the tool a unit test belongs to: test_hitmtop_model -> hitmtop; none for
# the tests of shared modules (test_json)
unit_tool = $(firstword $(filter $(TOOLS) $(PARTIAL),$(subst _, ,$(patsubst test_%,%,$(1)))))
.SECONDEXPANSION:
$(OUT)/tests/%: tests/unit/%.c $$(if $$(call unit_tool,$$*),$(OUT)/lib$$(call unit_tool,$$*).a) $(OUT)/libsuite.a | $(OUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) -Itests/unit $(if $(call unit_tool,$*),-Itools/$(call unit_tool,$*)) \
		$< $(filter %.a,$^) $(LDFLAGS) $(LDLIBS) -o $@

# Workloads keep frame pointers so that every tool sees whole user stacks;
# nofp_* ones are built without, for the --dwarf tests.
WL_CFLAGS = -O1 -g -pthread -Wall -D_GNU_SOURCE
$(OUT)/workloads/nofp_%: tests/workloads/nofp_%.c | $(OUT)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) $(WL_CFLAGS) -O2 -fomit-frame-pointer $< -o $@
$(OUT)/workloads/%: tests/workloads/%.c | $(OUT)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) $(WL_CFLAGS) -fno-omit-frame-pointer $< -o $@

# The Rust ones as the chapter's release builds: optimized, with debug
# info and frame pointers (legacy mangling is rustc's default for a
# crate); the crate name is the file's in both builds
RS_FLAGS = -O -g -C force-frame-pointers=yes --edition 2021
$(OUT)/workloads/%_v0: tests/workloads/%.rs | $(OUT)/workloads
	$(call msg,RUSTC,$@)
	$(Q)MAKEFLAGS= $(RUSTC) $(RS_FLAGS) -C symbol-mangling-version=v0 --crate-name $* $< -o $@
$(OUT)/workloads/%: tests/workloads/%.rs | $(OUT)/workloads
	$(call msg,RUSTC,$@)
	$(Q)MAKEFLAGS= $(RUSTC) $(RS_FLAGS) --crate-name $* $< -o $@
$(OUT)/workloads/%: tests/workloads/%.cc | $(OUT)/workloads
	$(call msg,CXX,$@)
	$(Q)$(CXX) -O2 -g -fno-omit-frame-pointer -pthread -Wall $< -o $@

workloads: $(WORKLOADS)
ifeq ($(RUSTC),)
	@echo "  SKIP     Rust workloads (tests/workloads/*.rs): rustc not found (Debian's rustc package)"
endif
unit: $(UNITS)

$(OUT)/bpf $(OUT)/tests $(OUT)/workloads:
	$(Q)mkdir -p $@

deps:
	$(Q)scripts/deps.sh

# the tests' own packages first (go, prometheus, strace; redis, node, perf
# and syscount for tests/real: scripts/deps.sh)
test:
	$(Q)scripts/deps.sh --test
	$(Q)$(MAKE) --no-print-directory all unit
	$(Q)tests/run.sh

# the tools under Debian's 5.10, 6.1 and 6.12 kernels (and -rt) in QEMU:
# tests/kernels/run.sh; REPEAT=N boots each N times, KERNELS="6.1 6.12"
# picks some (the kernels are cached in /var/cache/latency-tools/kernels)
REPEAT ?= 1
KERNELS ?= 5.10 5.10-rt 6.1 6.1-rt 6.12 6.12-rt
# every tool on Debian's 5.10, 6.1 and 6.12 kernels and their PREEMPT_RT
# builds, booted under QEMU (docs/KERNELS.md): QEMU and the kernels first
test-kernels:
	$(Q)scripts/deps.sh --kernels
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tests/kernels/run.sh REPEAT="$(REPEAT)" KERNELS="$(KERNELS)"

# fuzz targets of the symbolizer and the hitmtop replay parser, bounded
FUZZ_SECONDS ?= 20
fuzz:
	$(Q)tests/fuzz/run.sh $(FUZZ_SECONDS)
	$(Q)tests/fuzz/run_hitm.sh $(FUZZ_SECONDS)

demo:
	$(Q)scripts/demo.sh

# docs/img/: the flame graphs of a real run of test_flamesvg, as chromium
# drew them (scripts/pictures.sh)
pictures:
	$(Q)scripts/pictures.sh

bench: all
	$(Q)bench/run.sh $(if $(QUICK),--quick)

# Man pages: generated from the same pages as docs/ (scripts/md2man.py)
MANS := $(patsubst %,$(OUT)/man/%.8,$(filter $(patsubst docs/%.md,%,$(wildcard docs/*.md)),$(TOOLS)))
$(OUT)/man/%.8: docs/%.md scripts/md2man.py
	@mkdir -p $(@D)
	$(call msg,MAN,$@)
	$(Q)python3 scripts/md2man.py $< $(VERSION) > $@
man: $(MANS)

install: $(BINS) man
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 0755 $(BINS) $(DESTDIR)$(PREFIX)/sbin/
	$(if $(MANS),install -m 0644 $(MANS) $(DESTDIR)$(PREFIX)/share/man/man8/)

uninstall:
	for t in $(TOOLS); do rm -f $(DESTDIR)$(PREFIX)/sbin/$$t $(DESTDIR)$(PREFIX)/share/man/man8/$$t.8; done

clean:
	rm -rf $(OUT) build-asan build-static $(TOOLS)

-include $(wildcard $(OUT)/bpf/*.d $(OUT)/obj/*/*.d $(OUT)/obj/*/*/*.d $(OUT)/tests/*.d)
