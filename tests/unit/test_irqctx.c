// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Where the preempt count lies in a per-CPU variable's type
 * (irqctx_member_offset, tools/lib/irqctx.c), on BTF built here in the
 * shapes the kernels use: a plain struct, and 6.12's pcpu_hot, whose
 * members sit in an anonymous struct inside an anonymous union (the
 * loader once looked only at named members there, and every tool fell
 * back from the preempt count on Debian's 6.12 kernels) */
#include "unit.h"
#include <bpf/btf.h>
#include "irqctx.h"

int main(void)
{
	struct btf *btf = btf__new_empty();
	int i32, ptr, inner, uni, hot, plain, tdef, pad;

	CHECK(btf != NULL, "an empty BTF");
	if (!btf)
		return unit_exit();
	i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	ptr = btf__add_ptr(btf, i32);
	pad = btf__add_array(btf, i32, i32, 16);

	/* struct { struct task_struct *current_task; int preempt_count;
	 *          int cpu_number; ... } */
	inner = btf__add_struct(btf, NULL, 24);
	btf__add_field(btf, "current_task", ptr, 0, 0);
	btf__add_field(btf, "preempt_count", i32, 64, 0);
	btf__add_field(btf, "cpu_number", i32, 96, 0);
	btf__add_field(btf, "top_of_stack", ptr, 128, 0);
	/* union { struct {...}; u8 pad[64]; } */
	uni = btf__add_union(btf, NULL, 64);
	btf__add_field(btf, NULL, inner, 0, 0);
	btf__add_field(btf, "pad", pad, 0, 0);
	/* struct pcpu_hot { union {...}; } */
	hot = btf__add_struct(btf, "pcpu_hot", 64);
	btf__add_field(btf, NULL, uni, 0, 0);
	/* a plain struct with a member after another, through a typedef */
	plain = btf__add_struct(btf, "plain", 16);
	btf__add_field(btf, "a", ptr, 0, 0);
	btf__add_field(btf, "preempt_count", i32, 64, 0);
	tdef = btf__add_typedef(btf, "plain_t", plain);

	CHECK(hot > 0 && tdef > 0, "the types were built");
	CHECK(irqctx_member_offset(btf, hot, "preempt_count", 0) == 8,
	      "pcpu_hot (6.12): preempt_count at 8, in the anonymous union's struct");
	CHECK(irqctx_member_offset(btf, hot, "cpu_number", 0) == 12,
	      "pcpu_hot (6.12): cpu_number at 12");
	CHECK(irqctx_member_offset(btf, hot, "pad", 0) == 0,
	      "pcpu_hot: a named member of the anonymous union");
	CHECK(irqctx_member_offset(btf, hot, "nothing", 0) == -1,
	      "pcpu_hot: an absent member is -1");
	CHECK(irqctx_member_offset(btf, tdef, "preempt_count", 0) == 8,
	      "a plain struct through a typedef: preempt_count at 8");
	CHECK(irqctx_member_offset(btf, i32, "preempt_count", 0) == -1,
	      "not a struct or union: -1");
	btf__free(btf);
	return unit_exit();
}
