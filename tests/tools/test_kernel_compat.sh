# The tools as they run on an older kernel, here: every kernel feature
# that 5.10 lacks turned off (SUITE_KFEAT_OFF, tools/lib/kfeat.c), so each
# takes its fallback (no sched_switch prev_state, no BTF task pointers, an
# LRU hash for task storage, no attach cookies, preallocated maps, no BPF
# atomics, no inherit_thread, the ring-buffer guard of PREEMPT_RT before
# 6.0: bpf/rbguard.bpf.h), and must count exactly what it counts with
# them: the matrix's checks (tests/kernels/checks.sh), on this kernel.
# The kernels themselves run them in `make test-kernels`.
source "$ROOT/tests/kernels/checks.sh"
export SUITE_KFEAT_OFF=switch_prev_state,task_btf,task_storage,task_pt_regs,attach_cookie,lazy_maps,atomics,inherit_thread,ringbuf_nest
# the features really are off: -v says so
"$BIN/offcputime" -v -d 0.1 >/dev/null 2>"$T/feat.err"
check_grep "-v names each feature turned off" \
	'kernel features: .*!switch_prev_state .*!task_btf !task_storage !task_pt_regs !attach_cookie !lazy_maps !atomics !inherit_thread .*!ringbuf_nest' "$T/feat.err"
kcheck_offcputime
kcheck_syswatch
kcheck_wakers
kcheck_pfwatch
kcheck_hotcheck
kcheck_hitmtop
# --dwarf needs bpf_task_pt_regs: exit 3, naming it and its kernel
check_rc "--dwarf without bpf_task_pt_regs exits 3" 3 "$BIN/offcputime" --dwarf -d 1
check_grep "... naming the helper and the first kernel that has it" \
	'--dwarf needs bpf_task_pt_regs\(\) \(Linux 5\.15 or newer' "$T/rc.err"
unset SUITE_KFEAT_OFF
# no kernel BTF, and --btf FILE in its place: the matrix's checks
kcheck_nobtf

# 5.10's verifier refuses any atomic but a plain add ("BPF_STX uses
# reserved fields"), even where it cannot be reached: only hitmtop has
# others, in its second program (hitm_sample; hitm_sample_noatomics is
# chosen there).  Every other object: plain adds only (hotcheck's steal
# steps once took a fetch-and-add, and hotcheck stopped loading on 5.10)
for o in "$BUILD"/bpf/*.bpf.o; do
	[ -e "$o" ] || { fail "BPF objects in $BUILD/bpf (none found)"; break; }
	t=$(basename "$o" .bpf.o)
	[ "$t" = hitmtop ] && continue
	n=$(llvm-objdump -d "$o" | grep -E 'atomic|xchg|\block\b' |
		grep -vcE 'lock \*\(u(32|64) \*\)\(r[0-9]+ [+-] [0-9]+\) \+= (r|w)[0-9]+$')
	check_eq "$t: no atomic but a plain add (5.10 loads it)" "$n" 0
done
