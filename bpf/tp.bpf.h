/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One handler, two flavours: every tracepoint a tool uses gets a tp_btf
 * program "NAME_btf" and a raw_tp program "NAME_raw" calling the same
 * static handler; bpf_pick_tp_flavour() (tools/lib/common.c) keeps one. */
#ifndef SUITE_TP_BPF_H
#define SUITE_TP_BPF_H

#define RAW_ARG(ctx, n) (((struct bpf_raw_tracepoint_args *)(ctx))->args[n])

/* A field of a kernel object: a direct load where the pointer is BTF-typed
 * (tp_btf: a guarded load, no helper call), a CO-RE probe read otherwise
 * (raw_tp).  btf must be a constant of the always-inline handler, so each
 * flavour keeps only its own branch. */
#define KREAD(btf, ptr, field) ((btf) ? (ptr)->field : BPF_CORE_READ(ptr, field))

#endif
