/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One handler, two flavours: every tracepoint a tool uses gets a tp_btf
 * program "NAME_btf" and a raw_tp program "NAME_raw" calling the same
 * static handler (TP_PROGRAMS below); bpf_pick_tp_flavour()
 * (tools/lib/bpfload.c) keeps one, decided by probes of the kernel's
 * BTF (tools/lib/kfeat.c). */
#ifndef SUITE_TP_BPF_H
#define SUITE_TP_BPF_H

/* TP_PROGRAMS(tp, expr): the two programs of tracepoint tp, "tp_btf"
 * (tp_btf) and "tp_raw" (raw_tp), each returning expr.  Both flavours see
 * the arguments as an array of u64 in ctx, so in expr TP_ARG(n, type) is
 * argument n (in tp_btf a pointer argument keeps its BTF type: the
 * verifier types it by its place in ctx), ctx is the context and btf is
 * a constant, true in the tp_btf program, for KREAD() and the like. */
#define TP_ARG(n, type) ((type)((__u64 *)ctx)[n])

#define TP_PROGRAMS(tp, expr)						\
	SEC("tp_btf/" #tp)						\
	int tp##_btf(void *ctx)						\
	{								\
		const bool btf __attribute__((unused)) = true;		\
									\
		return (expr);						\
	}								\
	SEC("raw_tp/" #tp)						\
	int tp##_raw(void *ctx)						\
	{								\
		const bool btf __attribute__((unused)) = false;	\
									\
		return (expr);						\
	}

/* PROG_PAIR(sec_a, a, sec_b, b, ctx_type, fn): programs a (in section
 * sec_a) and b (sec_b) of one handler, returning fn(ctx, true) and
 * fn(ctx, false): two attachments (a major and a minor fault event) or
 * two flavours of which one is loaded (a sleepable task iterator and one
 * that is not). */
#define PROG_PAIR(sec_a, a, sec_b, b, ctx_type, fn)			\
	SEC(sec_a)							\
	int a(ctx_type *ctx)						\
	{								\
		return fn(ctx, true);					\
	}								\
	SEC(sec_b)							\
	int b(ctx_type *ctx)						\
	{								\
		return fn(ctx, false);					\
	}

/* A field of a kernel object: a direct load where the pointer is BTF-typed
 * (tp_btf: a guarded load, no helper call), a CO-RE probe read otherwise
 * (raw_tp).  btf must be a constant of the always-inline handler, so each
 * flavour keeps only its own branch. */
#define KREAD(btf, ptr, field) ((btf) ? (ptr)->field : BPF_CORE_READ(ptr, field))

#endif
