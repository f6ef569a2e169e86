# One pattern chain per tool:
#   bpf/X.bpf.c -> build/bpf/X.bpf.o -> build/X.skel.h -> tools/X.c -> ./X
# Every tools/X.c that has a bpf/X.bpf.c is a tool; nothing to list by hand.
# `make V=1` shows the commands; `make SANITIZE=1` builds user space with
# ASan+UBSan; `make STATIC=1` links libbpf, libelf and zlib statically.

OUT      ?= build
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

TOOLS     := $(sort $(patsubst tools/%.c,%,$(wildcard tools/*.c)))
TOOLS     := $(filter $(patsubst bpf/%.bpf.c,%,$(wildcard bpf/*.bpf.c)),$(TOOLS))
LIB_SRCS  := $(wildcard tools/lib/*.c) $(wildcard blazesym-shim/*.c)
LIB_OBJS  := $(patsubst %.c,$(OUT)/obj/%.o,$(LIB_SRCS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNITS     := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))
WL_SRCS   := $(wildcard tests/workloads/*.c)
WORKLOADS := $(patsubst tests/workloads/%.c,$(OUT)/workloads/%,$(WL_SRCS))

CFLAGS   ?= -O2 -g
CFLAGS   += -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	    -std=gnu11 -D_GNU_SOURCE -DSUITE_VERSION='"$(VERSION)"' \
	    -Itools/lib -Iblazesym-shim -Ibpf -I$(OUT)
DEPFLAGS  = -MMD -MP
BPF_CFLAGS = -O2 -g -Wall -Wno-unused-function -target bpf -mcpu=v3 \
	     -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) -Ibpf
LDLIBS_DYN = -lbpf -lelf -ldw -lz -lpthread -lstdc++
ifeq ($(STATIC),1)
LDLIBS    = -Wl,-Bstatic -lbpf -ldw -lelf -lz -lzstd -llzma -lbz2 -Wl,-Bdynamic -lpthread -lstdc++
else
LDLIBS    = $(LDLIBS_DYN)
endif
ifeq ($(SANITIZE),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all clean test unit demo bench deps install uninstall workloads

all: $(TOOLS) workloads

$(OUT)/bpf/%.bpf.o: bpf/%.bpf.c | $(OUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -MT $@ -MF $(OUT)/bpf/$*.d -c $< -o $@.tmp
	$(Q)$(BPFTOOL) gen object $@ $@.tmp && rm -f $@.tmp

$(OUT)/%.skel.h: $(OUT)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(OUT)/obj/tools/%.o: tools/%.c $(OUT)/%.skel.h | $(OUT)/obj/tools
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(OUT)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(OUT)/libsuite.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(TOOLS): %: $(OUT)/obj/tools/%.o $(OUT)/libsuite.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(OUT)/tests/%: tests/unit/%.c $(OUT)/libsuite.a | $(OUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) -Itests/unit $< $(OUT)/libsuite.a $(LDFLAGS) $(LDLIBS) -o $@

# Workloads keep frame pointers so that every tool sees whole user stacks;
# nofp_* ones are built without, for the --dwarf tests.
WL_CFLAGS = -O1 -g -pthread -Wall -D_GNU_SOURCE
$(OUT)/workloads/nofp_%: tests/workloads/nofp_%.c | $(OUT)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) $(WL_CFLAGS) -O2 -fomit-frame-pointer $< -o $@
$(OUT)/workloads/%: tests/workloads/%.c | $(OUT)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) $(WL_CFLAGS) -fno-omit-frame-pointer $< -o $@

workloads: $(WORKLOADS)
unit: $(UNITS)

$(OUT)/bpf $(OUT)/obj/tools $(OUT)/tests $(OUT)/workloads:
	$(Q)mkdir -p $@

deps:
	$(Q)scripts/deps.sh

test: all unit
	$(Q)tests/run.sh

demo:
	$(Q)scripts/demo.sh

bench: all
	$(Q)bench/run.sh $(if $(QUICK),--quick)

install: all
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 0755 $(TOOLS) $(DESTDIR)$(PREFIX)/sbin/
	for t in $(TOOLS); do [ ! -f man/$$t.8 ] || install -m 0644 man/$$t.8 $(DESTDIR)$(PREFIX)/share/man/man8/; done

uninstall:
	for t in $(TOOLS); do rm -f $(DESTDIR)$(PREFIX)/sbin/$$t $(DESTDIR)$(PREFIX)/share/man/man8/$$t.8; done

clean:
	rm -rf $(OUT) $(TOOLS)

-include $(wildcard $(OUT)/bpf/*.d $(OUT)/obj/*/*.d $(OUT)/obj/*/*/*.d $(OUT)/tests/*.d)
