#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""make bench: what each tracer costs the workload it watches.

Every workload runs untraced and traced alternately, A/B/A/B..., over
several rounds, in a fresh random order of tracers each round.  A traced
run's ratio is its throughput over the mean of the two untraced runs
around it; a row reports the median ratio and its min-max over the rounds,
the same for throughput per CPU second of the workload (robust to other
jobs of a shared machine), the tracer's own peak RSS (VmHWM) and CPU time
(wait4 rusage), its start-up
time until attached, and a separate test of the time to print the final
report of a trace with ~10,000 unique stacks.

The kernel's own accounting (BPF run-time statistics, switched on for
the whole run) gives a second, steadier measure: the run time and run
count of every BPF program the tracer holds, read just before and just
after each window, hence nanoseconds of BPF per event of the workload's
hook, next to the same figure for the peer tool and for the floor (an
almost empty program on the same hook, bench/floor/).  And a test of
stacks lost: offcputime and its peer on 10,000 and 100,000 distinct
call paths with default options, paths reported against paths run.

The workload is started stopped (SIGSTOP before exec), the tracer is
started and waited for until attached, then the workload is continued:
the measured window never includes the tracer's start-up or its report.
Every tracer is stopped with SIGINT and waited for.

Run through bench/run.sh (make bench), which builds the workloads.
"""
import argparse
import ctypes
import datetime
import json
import os
import platform
import random
import re
import select
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WLBIN = os.path.join(ROOT, "build", "bench")
RESULTS = os.path.join(ROOT, "bench", "results")
DOC = os.path.join(ROOT, "docs", "PERFORMANCE.md")

# ---------------------------------------------------------------------------
# The bpftrace one-liners (anchors), exactly as run.
BT_OFFCPU = ("tracepoint:sched:sched_switch { @t[tid] = nsecs; @k[tid] = kstack; "
             "@u[tid] = ustack; $s = @t[args->next_pid]; if ($s) { "
             "@us[@k[args->next_pid], @u[args->next_pid], args->next_comm] = "
             "sum((nsecs - $s) / 1000); delete(@t[args->next_pid]); } } "
             "END { clear(@t); clear(@k); clear(@u); }")
BT_SYSLAT = ("tracepoint:raw_syscalls:sys_enter /pid == {pid}/ {@t[tid]=nsecs} "
             "tracepoint:raw_syscalls:sys_exit /@t[tid]/ "
             "{@lat=hist(nsecs-@t[tid]); delete(@t[tid])}")
BT_PGFAULT = "software:page-faults:1 /pid == {pid}/ { @[ustack] = count(); }"

# ---------------------------------------------------------------------------
# Workloads: argv ({secs}: window length, {loops}: perf bench loops, set by
# a calibration run), the regex of the throughput it prints, its unit, the
# hooks whose runs are its events (a regex over the hook names of
# bpf_programs(): ns per event divides the run time of all of a tracer's
# programs by the runs on these hooks, or by the workload's own events,
# see bpf_per_event()), what one event is, and how many of them one
# operation makes (a round trip is two context switches).
PERF_OPS = r"(\d+) ops/sec"
OWN_OPS = r"ops_per_sec: ([0-9.]+) ops: (\d+)"
# The two ping-pong workloads are pinned to CPU 0: left free, the scheduler
# puts both threads on one CPU or splits them run by run, and a split run is
# several times slower (a wake-up IPI per hand-off in this VM), which makes
# the untraced runs bimodal.  Pinned, every hand-off is a context switch on
# CPU 0, the worst case for a scheduler tracer, and CPU 1 is left to
# schedsilence's watch.
WORKLOADS = {
    "pipe": dict(argv="taskset -c 0 perf bench sched pipe -T -l {loops}", ops=PERF_OPS,
                 unit="round trips/s", hooks=r"^sched_switch$", event="context switch",
                 per_op=2, desc="perf bench sched pipe -T, two threads "
                 "of one process (-p covers both) pinned to CPU 0"),
    "syscall": dict(argv=WLBIN + "/syscall_loop {secs}", ops=OWN_OPS,
                    unit="calls/s", hooks=r"^sys_enter$", event="system call", per_op=1,
                    desc="getppid() loop (bench/workloads/syscall_loop.c)"),
    "fault": dict(argv=WLBIN + "/fault_loop {secs} 64", ops=OWN_OPS,
                  unit="faults/s", hooks=r"page.fault|^perf event$", event="page fault",
                  per_op=1,
                  desc="map 64 pages, touch each, unmap "
                  "(bench/workloads/fault_loop.c)"),
    "futex": dict(argv="taskset -c 0 " + WLBIN + "/futex_pingpong {secs}", ops=OWN_OPS,
                  unit="round trips/s", hooks=r"^sched_switch$", event="context switch",
                  per_op=2, desc="two threads pinned to CPU 0 hand a token "
                  "through one futex word (bench/workloads/futex_pingpong.c)"),
}

# ---------------------------------------------------------------------------
# The rows.  Adding a tool is one line here:
#   (workload, label, command, goal[, peer])
# command: a string (split like a shell would) or an argv list; {pid} is
# the workload's PID, {other} the PID of an idle process (a filtered tool
# watching someone else).  goal: the minimum ratio the tool's issue asks
# for, or None.  peer: the label of the row (same workload) that the
# tool's ns per event is compared with.  A row whose program does not
# exist is skipped ("skipped: not built").  A tracer counts as attached
# when it prints a line matching READY on stderr, or else when its BPF
# link and perf event file descriptors have stopped changing for
# ATTACH_SETTLE seconds.
LBT = "/usr/sbin/"
FLOOR = "build/bench/floor"
LOC = "libbpf-tools offcputime"
LWT = "libbpf-tools wakeuptime -p PID"
FIVE = "the five tools at once, -p PID (schedsilence -C 0)"
WALKS = "floor: the stack walks alone (block, waker), PID"
WALKS_K = "floor: the same, user stacks by bpf_get_stack(), PID"
ROWS = [
    ("pipe", "offcputime", "./offcputime", 0.90, LOC),
    ("pipe", "offcputime -m 1000", "./offcputime -m 1000", None, LOC + " -m 1000"),
    ("pipe", "offcputime -p PID", "./offcputime -p {pid}", None, LOC + " -p PID"),
    ("pipe", "offcputime -p OTHER", "./offcputime -p {other}", 0.98, LOC + " -p OTHER"),
    ("pipe", LOC, LBT + "offcputime", None),
    ("pipe", LOC + " -m 1000", LBT + "offcputime -m 1000", None),
    ("pipe", LOC + " -p PID", LBT + "offcputime -p {pid}", None),
    ("pipe", LOC + " -p OTHER", LBT + "offcputime -p {other}", None),
    ("pipe", "bpftrace off-CPU one-liner", ["bpftrace", "-e", BT_OFFCPU], None),
    ("pipe", LWT, LBT + "wakeuptime -p {pid}", None),
    ("pipe", "wakers -p PID", "./wakers -p {pid}", 0.85, LWT),
    ("pipe", "wakers -p OTHER", "./wakers -p {other}", 0.98),
    ("pipe", "schedsilence -C 1", "./schedsilence -C 1", 0.98),
    ("pipe", "floor: sched_switch", FLOOR + " sched_switch", None),
    ("syscall", "libbpf-tools syscount -L -p PID", LBT + "syscount -L -p {pid}", None),
    ("syscall", "libbpf-tools syscount -L -p OTHER", LBT + "syscount -L -p {other}", None),
    ("syscall", "bpftrace syscall-latency one-liner, PID", ["bpftrace", "-e", BT_SYSLAT], None),
    ("syscall", "bpftrace syscall-latency one-liner, OTHER",
     ["bpftrace", "-e", BT_SYSLAT.replace("{pid}", "{other}")], None),
    ("syscall", "syswatch -p PID", "./syswatch -p {pid}", 0.90,
     "libbpf-tools syscount -L -p PID"),
    ("syscall", "syswatch -p OTHER", "./syswatch -p {other}", 0.98,
     "libbpf-tools syscount -L -p OTHER"),
    ("syscall", "floor: sys_enter + sys_exit", FLOOR + " syscalls", None),
    ("fault", "bpftrace page-fault one-liner, PID", ["bpftrace", "-e", BT_PGFAULT], None),
    ("fault", "bpftrace page-fault one-liner, OTHER",
     ["bpftrace", "-e", BT_PGFAULT.replace("{pid}", "{other}")], None),
    ("fault", "pfwatch -p PID", "./pfwatch -p {pid}", None, "bpftrace page-fault one-liner, PID"),
    ("fault", "pfwatch --dwarf -p PID", "./pfwatch --dwarf -p {pid}", None,
     "bpftrace page-fault one-liner, PID"),
    ("fault", "pfwatch -p OTHER", "./pfwatch -p {other}", 0.97,
     "bpftrace page-fault one-liner, OTHER"),
    ("fault", "floor: page-faults perf event, PID", FLOOR + " page-faults {pid}", None),
    ("fault", "floor: page_fault_user tracepoint", FLOOR + " page_fault_user", None),
    ("futex", "offcputime -p PID", "./offcputime -p {pid}", None, LOC + " -p PID"),
    ("futex", "offcputime --dwarf -p PID", "./offcputime --dwarf -p {pid}", None,
     LOC + " -p PID"),
    ("futex", LOC + " -p PID", LBT + "offcputime -p {pid}", None),
    ("futex", LWT, LBT + "wakeuptime -p {pid}", None),
    ("futex", "wakers -p PID", "./wakers -p {pid}", None, LWT),
    ("futex", "wakers --dwarf -p PID", "./wakers --dwarf -p {pid}", None, LWT),
    ("futex", "floor: sched_switch", FLOOR + " sched_switch", None),
    # hotcheck's one object against the five tools it stands for, at once
    ("futex", FIVE, "./offcputime -p {pid} & ./wakers -p {pid} & ./syswatch -p {pid} & "
     "./pfwatch -p {pid} & ./schedsilence -C 0", None),
    ("futex", "hotcheck -p PID", "./hotcheck -p {pid}", None, FIVE),
    # the stack walks that hotcheck and the five both take, alone: against
    # the five, the least hotcheck's ratio can be while it names the same
    # stacks (docs/PERFORMANCE.md)
    ("futex", WALKS, FLOOR + " walks {pid}", None, FIVE),
    ("futex", WALKS_K, FLOOR + " walks-kernel {pid}", None, WALKS),
    # the same tools with every user stack taken by bpf_get_stack() (the
    # kernel's walk), against themselves (bpf/uwalk.bpf.h)
    ("futex", "offcputime -p PID, kernel's user walk",
     "env SUITE_KFEAT_OFF=ustack_walk ./offcputime -p {pid}", None, "offcputime -p PID"),
    ("futex", "hotcheck -p PID, kernel's user walk",
     "env SUITE_KFEAT_OFF=ustack_walk ./hotcheck -p {pid}", None, "hotcheck -p PID"),
    ("fault", "pfwatch -p PID, kernel's user walk",
     "env SUITE_KFEAT_OFF=ustack_walk ./pfwatch -p {pid}", None, "pfwatch -p PID"),
]
# The floor of each workload's ns per event: the row whose program does
# the least a program on that hook can do (bench/floor/floor.bpf.c).  On
# the fault workload the tracers' programs are perf_event programs on the
# page-faults software event, so that is the floor; the page_fault_user
# tracepoint row shows what the same program costs on the tracepoint.
FLOORS = {"pipe": "floor: sched_switch", "futex": "floor: sched_switch",
          "syscall": "floor: sys_enter + sys_exit",
          "fault": "floor: page-faults perf event, PID"}

# The report-time test: offcputime on stacks10k (10,000 distinct paths),
# both with room for them (a stack map of 131072 buckets keeps the stacks
# lost to hash collisions near 4%).
STACKS_ROWS = [
    ("offcputime", "./offcputime -p {pid} --stack-storage-size 131072"),
    ("libbpf-tools offcputime", LBT + "offcputime -p {pid} --stack-storage-size 131072"),
]
STACKS_LEAF = "stk_leaf"
STACKS_STEP = re.compile(r"\bstk_step(\d)\b")
# The stacks-lost test: the same tools with their default options on
# 10^LEVELS distinct paths, one run each (a count, not a time).
LOST_ROWS = [
    ("offcputime", "./offcputime -p {pid}"),
    (LOC, LBT + "offcputime -p {pid}"),
]
LOST_LEVELS = (4, 5)

READY = re.compile(r"\btracing\b", re.I)
# Programs that print a line (stdout or stderr) just before they attach:
# their fds are only watched from then on, so that a pause between making
# their maps (perf buffers are perf event fds too) and attaching cannot
# pass for "attached".
GATE = {"bpftrace": re.compile(r"Attaching \d+ probe")}
ATTACH_SETTLE = 0.2
ATTACH_TIMEOUT = 30.0
EXIT_TIMEOUT = 20.0
RESEND_AFTER = 5.0
MAX_FAILURES = 2	# a row that fails this often is dropped from the run
POLL = 0.002

# ---------------------------------------------------------------------------
# Processes


class Proc:
    """A child started with posix_spawn; waited for with wait4 (rusage)."""

    def __init__(self, argv, out, err, stopped=False):
        if stopped:
            argv = ["sh", "-c", 'kill -STOP $$; exec "$@"', "sh"] + argv
        self.argv = argv
        fa = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
              (os.POSIX_SPAWN_OPEN, 1, out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
              (os.POSIX_SPAWN_OPEN, 2, err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)]
        self.t0 = time.monotonic()
        self.pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=fa,
                                   setsigdef=(signal.SIGINT, signal.SIGTERM,
                                              signal.SIGPIPE, signal.SIGXFSZ))
        self.pidfd = os.pidfd_open(self.pid)
        self.out, self.err = out, err
        self.rc = None
        self.rusage = None
        self.hwm_kb = None
        if stopped:
            _, st = os.waitpid(self.pid, os.WUNTRACED)
            if not os.WIFSTOPPED(st):
                self._reap_status(st, None)

    def _reap_status(self, st, ru):
        self.rc = os.waitstatus_to_exitcode(st)
        self.rusage = ru
        os.close(self.pidfd)

    def alive(self):
        if self.rc is not None:
            return False
        pid, st, ru = os.wait4(self.pid, os.WNOHANG)
        if pid == 0:
            return True
        self._reap_status(st, ru)
        return False

    def sample(self):
        """Reads the high-water mark of its RSS (VmHWM).  wait4's ru_maxrss
        cannot be used: posix_spawn's vfork child starts on this Python's
        memory, whose high-water mark the kernel carries across exec."""
        try:
            with open(f"/proc/{self.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        self.hwm_kb = max(self.hwm_kb or 0, int(line.split()[1]))
                        break
        except (OSError, ValueError):
            pass

    def wait(self, timeout, sample=False):
        """Waits up to timeout s; returns True when it has exited.  With
        sample, reads VmHWM every POLL s until the end."""
        if self.rc is not None:
            return True
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if sample:
                self.sample()
            r, _, _ = select.select([self.pidfd], [], [],
                                    max(0, min(left, POLL) if sample else left))
            if r:
                break
            if time.monotonic() >= end:
                return False
        _, st, ru = os.wait4(self.pid, 0)
        self._reap_status(st, ru)
        return True

    def signal(self, sig):
        if self.rc is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def stop(self, timeout=EXIT_TIMEOUT):
        """SIGINT, then waits; a second SIGINT after RESEND_AFTER s (bpftrace
        0.17 can miss one that lands between two polls: self.resent is
        then set); SIGKILL if it has not exited after timeout s.  Returns
        the seconds it took to exit after the first SIGINT, or None (then
        self.hung tells where it was)."""
        t = time.monotonic()
        self.signal(signal.SIGINT)
        self.resent = False
        if not self.wait(RESEND_AFTER, sample=True):
            self.resent = True
            self.signal(signal.SIGINT)
        if self.wait(timeout, sample=True):
            return time.monotonic() - t
        self.hung = where(self.pid)
        self.signal(signal.SIGKILL)
        self.wait(10)
        return None

    def kill(self):
        self.signal(signal.SIGKILL)
        self.wait(10)


def where(pid):
    """State and kernel wait channel of a process that does not exit."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        with open(f"/proc/{pid}/wchan") as f:
            wchan = f.read().strip()
        return f"state {state}, in {wchan or '?'}"
    except OSError:
        return "state unknown"


def attach_fds(pid):
    """Number of BPF link and perf event fds the process holds."""
    n = 0
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link in ("anon_inode:bpf_link", "anon_inode:[perf_event]"):
                n += 1
    except OSError:
        pass
    return n


# ---------------------------------------------------------------------------
# The kernel's accounting of BPF programs


class BpfStats:
    """Keeps the kernel's run-time statistics of BPF programs (run_time_ns,
    run_cnt) on while the bench runs.  BPF_ENABLE_STATS turns on the same
    switch as kernel.bpf_stats_enabled=1, counted by reference and turned
    off again when its fd is closed (also when the bench is killed), so it
    neither needs restoring nor turns off the statistics of anyone else
    who set the sysctl meanwhile.  Where the call is refused the sysctl is
    set instead, and its old value written back at the end."""
    SYSCTL = "/proc/sys/kernel/bpf_stats_enabled"
    SYS_BPF = {"x86_64": 321, "aarch64": 280}
    BPF_ENABLE_STATS, BPF_STATS_RUN_TIME = 32, 0

    def __init__(self):
        self.fd, self.old, self.how = None, None, None

    def enable(self):
        nr = self.SYS_BPF.get(platform.machine())
        if nr is not None:
            libc = ctypes.CDLL(None, use_errno=True)
            attr = ctypes.c_uint32(self.BPF_STATS_RUN_TIME)
            fd = libc.syscall(ctypes.c_long(nr), ctypes.c_int(self.BPF_ENABLE_STATS),
                              ctypes.byref(attr), ctypes.c_uint(4))
            if fd >= 0:
                os.set_inheritable(fd, False)	# the tracers must not hold it
                self.fd, self.how = fd, "BPF_ENABLE_STATS"
                return self.how
        try:
            with open(self.SYSCTL) as f:
                self.old = f.read().strip()
            if self.old != "1":
                with open(self.SYSCTL, "w") as f:
                    f.write("1\n")
            self.how = "kernel.bpf_stats_enabled=1"
        except OSError as e:
            self.old = None
            self.how = None
            raise RuntimeError(f"cannot turn on BPF run-time statistics: {e}")
        return self.how

    def disable(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        elif self.old is not None and self.old != "1":
            try:
                with open(self.SYSCTL, "w") as f:
                    f.write(self.old + "\n")
            except OSError:
                pass
            self.old = None


def fdinfo(pid, fd):
    """The key: value lines of /proc/PID/fdinfo/FD as a dict of strings."""
    out = {}
    try:
        with open(f"/proc/{pid}/fdinfo/{fd}") as f:
            for line in f:
                k, _, v = line.partition(":")
                out[k.strip()] = v.strip()
    except OSError:
        pass
    return out


PERF_SW = {2: "software:page-faults", 5: "software:page-faults-min",
           6: "software:page-faults-maj"}


def bpf_programs(pid):
    """The BPF programs process pid holds: {prog_id: {"fd": FD or None,
    "type": prog_type, "hook": name}}, only its own (found through its
    file descriptors).  The hook comes from the fdinfo of its link (the
    tracepoint name of raw_tracepoint, tp_btf and perf tracepoint links;
    type and config of perf event links), or else from bpftool perf show
    (tracepoints attached with PERF_EVENT_IOC_SET_BPF, as bpftrace does);
    a perf_event program attached to a non-tracepoint event without a
    link is "perf event", and a program attached to nothing is "none"."""
    progs, hooks, perf_fds = {}, {}, False
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return {}
    for fd in fds:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link == "anon_inode:bpf-prog":
            i = fdinfo(pid, fd)
            if "prog_id" in i:
                progs[int(i["prog_id"])] = {"fd": fd, "type": int(i.get("prog_type", -1))}
        elif link == "anon_inode:bpf_link":
            i = fdinfo(pid, fd)
            if "prog_id" not in i:
                continue
            if "tp_name" in i:
                hook = i["tp_name"]
            elif i.get("type") == "1" and i.get("config", "").isdigit():
                hook = PERF_SW.get(int(i["config"]), "software:" + i["config"])
            elif "type" in i:
                hook = f"perf {i['type']}:{i.get('config', '?')}"
            else:
                hook = i.get("link_type", "link")
            hooks.setdefault(int(i["prog_id"]), hook)
        elif link == "anon_inode:[perf_event]":
            perf_fds = True
    for i in [i for i in hooks if i not in progs]:
        progs[i] = {"fd": None, "type": -1}
    if perf_fds and any(p not in hooks for p in progs):
        try:
            r = subprocess.run(["bpftool", "-j", "perf", "show"], capture_output=True,
                               text=True, timeout=20)
            for e in json.loads(r.stdout or "[]"):
                if e.get("pid") == pid and e.get("prog_id") in progs:
                    hooks.setdefault(e["prog_id"], e.get("tracepoint") or
                                     e.get("func") or e.get("fd_type", "perf"))
        except (OSError, subprocess.SubprocessError, ValueError):
            pass
    for i, p in progs.items():
        p["hook"] = hooks.get(i) or ("perf event" if p["type"] == 7 else "none")
    return progs


def bpf_sample(pid, progs):
    """{prog_id: (run_time_ns, run_cnt)} now, from the fdinfo of the
    process's program fds (bpftool prog show for a program it holds only
    through a link)."""
    out = {}
    for i, p in progs.items():
        if p["fd"] is not None:
            f = fdinfo(pid, p["fd"])
            if "run_cnt" in f:
                out[i] = (int(f["run_time_ns"]), int(f["run_cnt"]))
                continue
        try:
            r = subprocess.run(["bpftool", "-j", "prog", "show", "id", str(i)],
                               capture_output=True, text=True, timeout=10)
            j = json.loads(r.stdout or "{}")
            out[i] = (int(j.get("run_time_ns", 0)), int(j.get("run_cnt", 0)))
        except (OSError, subprocess.SubprocessError, ValueError):
            pass
    return out


def bpf_cost(progs, before, after, hooks_re):
    """The BPF cost of one window: per hook, its programs' runs and run
    time; events, the runs on the workload's hooks (a hook several programs
    share counts its busiest program's runs once); ns, the run time of all
    the programs; ns_per_event = ns / events (bpf_per_event() may divide
    by the workload's own events instead); and the hot program (the one
    with the most run time) and its ns per run."""
    per_hook, hot = {}, None
    for i, p in progs.items():
        if i not in before or i not in after:
            continue
        ns = after[i][0] - before[i][0]
        runs = after[i][1] - before[i][1]
        h = per_hook.setdefault(p["hook"], {"hook": p["hook"], "programs": 0, "runs": 0,
                                            "max_runs": 0, "ns": 0})
        h["programs"] += 1
        h["runs"] += runs
        h["max_runs"] = max(h["max_runs"], runs)
        h["ns"] += ns
        if runs and (hot is None or ns > hot[0]):
            hot = (ns, runs, p["hook"])
    rx = re.compile(hooks_re)
    events = sum(h["max_runs"] for h in per_hook.values() if rx.search(h["hook"]))
    ns = sum(h["ns"] for h in per_hook.values())
    out = {"hooks": sorted(per_hook.values(), key=lambda h: -h["ns"]), "events": events,
           "ns": ns, "ns_per_event": ns / events if events else None}
    if hot:
        out.update(hot_hook=hot[2], hot_ns_per_run=hot[0] / hot[1])
    return out


def bpf_per_event(b, workload_events, filtered):
    """Sets ns_per_event of a window's cost b.  A tracer that follows the
    workload's PID runs its programs on other processes' events too, but
    only to reject them, and on a shared machine those can outnumber the
    workload's: its ns per event divides by the workload's own events
    (its operations times the events one makes), charging it the filter's
    cost of the others.  A system-wide tracer, or one watching another
    process, divides by the events its programs saw."""
    b["workload_events"] = workload_events
    b["ns_per_event_seen"] = b["ns_per_event"]
    if filtered:
        b["per"] = "the workload's events"
        b["ns_per_event"] = b["ns"] / workload_events if workload_events else None
    else:
        b["per"] = "events seen"


def first_line(path):
    try:
        with open(path, errors="replace") as f:
            for line in f:
                line = line.strip()
                if line and "RLIMIT_MEMLOCK" not in line:
                    return line[:160]
    except OSError:
        pass
    return ""


class Tail:
    """What a child has written so far to a file."""

    def __init__(self, path):
        self.path, self.off, self.text = path, 0, ""

    def read(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.off)
                data = f.read()
        except OSError:
            return self.text
        self.off += len(data)
        self.text += data.decode(errors="replace")
        return self.text


def wait_attached(tr):
    """Waits until the tracer is attached.  Returns the start-up time in
    seconds, or raises RuntimeError with the tracer's first error line."""
    err, out = Tail(tr.err), Tail(tr.out)
    gate = GATE.get(os.path.basename(tr.argv[0]))
    count, changed = 0, None
    while True:
        now = time.monotonic()
        if not tr.alive():
            raise RuntimeError(f"exited {tr.rc} before attaching: {first_line(tr.err)}")
        tr.sample()
        if READY.search(err.read()):
            tr.t_attached = now
            return now - tr.t0
        if now - tr.t0 > ATTACH_TIMEOUT:
            raise RuntimeError(f"not attached after {ATTACH_TIMEOUT:.0f} s")
        if gate:
            if not gate.search(out.read() + err.text):
                time.sleep(POLL)
                continue
            gate = None
        c = attach_fds(tr.pid)
        if c != count:
            count, changed = c, now
        elif count and now - changed >= ATTACH_SETTLE:
            tr.t_attached = changed
            return changed - tr.t0
        time.sleep(POLL)


# ---------------------------------------------------------------------------
# Runs


class Bench:
    def __init__(self, args, tmp):
        self.args = args
        self.tmp = tmp
        self.seq = 0
        self.loops = {}
        self.other = None

    def path(self, what):
        self.seq += 1
        return os.path.join(self.tmp, f"{self.seq:05d}.{what}")

    def wl_argv(self, name):
        w = WORKLOADS[name]
        return shlex.split(w["argv"].format(secs=self.args.secs,
                                            loops=self.loops.get(name, 1000)))

    def calibrate(self, names):
        """perf bench takes a loop count, not a duration: one untraced run
        sets the count that lasts about --secs."""
        for name in names:
            if "{loops}" not in WORKLOADS[name]["argv"]:
                continue
            self.loops[name] = 5000
            rate = self.workload(name)["ops"]
            self.loops[name] = max(1000, int(rate * self.args.secs))

    def recalibrate(self, name, untraced):
        """Follows the machine's load: the loop count that the median of
        the last untraced runs would need for --secs."""
        if name in self.loops:
            rate = med([u["ops"] for u in untraced[-3:]])
            self.loops[name] = max(1000, int(rate * self.args.secs))

    def workload(self, name, tracer=None):
        """Runs one workload, traced by argv `tracer` if given (or by a
        group of tracers, a list of argvs, all attached before the window
        and their costs summed).  Returns a dict: ops (throughput),
        ops_per_cpu_s (operations per second of CPU time of the workload),
        and the tracer's start-up, stop time, peak RSS and CPU time when
        traced."""
        loops = self.loops.get(name)
        wl = Proc(self.wl_argv(name), self.path("wl.out"), self.path("wl.err"),
                  stopped=True)
        if self.args.nice:
            os.setpriority(os.PRIO_PROCESS, wl.pid, self.args.nice)
        group = row_group(tracer) if tracer else []
        trs, info = [], None
        try:
            progs, before = {}, {}
            for argv in group:
                tr = Proc(subst(argv, pid=wl.pid, other=self.other), self.path("tr.out"),
                          self.path("tr.err"))
                trs.append(tr)
                wait_attached(tr)
            if trs:
                info = {"startup_s": max(tr.t_attached - tr.t0 for tr in trs)}
                for tr in trs:
                    p = bpf_programs(tr.pid)
                    progs[tr.pid] = p
                    before.update(bpf_sample(tr.pid, p))
            wl.signal(signal.SIGCONT)
            if not wl.wait(self.args.secs * 20 + 30):
                raise RuntimeError("workload did not finish")
            if trs:
                after, merged = {}, {}
                for tr in trs:
                    after.update(bpf_sample(tr.pid, progs[tr.pid]))
                    merged.update(progs[tr.pid])
                info["bpf"] = bpf_cost(merged, before, after, WORKLOADS[name]["hooks"])
            if wl.rc != 0:
                raise RuntimeError(f"workload exited {wl.rc}: {first_line(wl.err)}")
            with open(wl.out, errors="replace") as f:
                m = re.search(WORKLOADS[name]["ops"], f.read())
            if not m:
                raise RuntimeError(f"no throughput in the output of {wl.argv[4:]}")
            total = int(m.group(2)) if m.re.groups > 1 else loops
            cpu = wl.rusage.ru_utime + wl.rusage.ru_stime
            res = {"ops": float(m.group(1)),
                   "ops_per_cpu_s": total / cpu if cpu > 0 else None}
            if trs:
                bpf_per_event(info["bpf"], total * WORKLOADS[name]["per_op"],
                              any("{pid}" in a for argv in group for a in argv))
                res.update(info)
                stops = [self.stop_tracer(tr) for tr in trs]
                res.update(report_s=max(x["report_s"] for x in stops),
                           rc=max(x["rc"] for x in stops),
                           second_sigint=any(x["second_sigint"] for x in stops),
                           maxrss_kb=sum(x["maxrss_kb"] or 0 for x in stops),
                           cpu_s=sum(x["cpu_s"] or 0 for x in stops))
            return res
        finally:
            wl.kill()
            for tr in trs:
                tr.kill()

    @staticmethod
    def stop_tracer(tr):
        tr.sample()
        exited_early = not tr.alive()
        t = 0.0 if exited_early else tr.stop()
        if t is None:
            raise RuntimeError(f"did not exit within {EXIT_TIMEOUT:.0f} s of SIGINT "
                               f"({tr.hung}); killed")
        ru = tr.rusage
        info = {"report_s": t, "rc": tr.rc, "second_sigint": getattr(tr, "resent", False),
                "maxrss_kb": tr.hwm_kb,
                "cpu_s": ru.ru_utime + ru.ru_stime if ru else None}
        # 1 is a verdict (schedsilence, --check), not a failure
        if tr.rc not in (0, 1):
            raise RuntimeError(f"exited {tr.rc}: {first_line(tr.err)}")
        return info


def subst(argv, **values):
    """Replaces {pid} and {other} in each argument (plain text replacement:
    bpftrace programs are full of other braces)."""
    out = []
    for a in argv:
        for k, v in values.items():
            a = a.replace("{%s}" % k, str(v))
        out.append(a)
    return out


def row_argv(cmd):
    """A row's command as an argv, or a group of tracers run at once
    ("CMD & CMD ...") as a list of argvs."""
    if isinstance(cmd, str) and " & " in cmd:
        return [shlex.split(c) for c in cmd.split(" & ")]
    return shlex.split(cmd) if isinstance(cmd, str) else list(cmd)


def row_group(argv):
    """The argvs of a row: one, or its group's"""
    return argv if argv and isinstance(argv[0], list) else [argv]


def row_command(argv):
    return " & ".join(" ".join(shlex.quote(a) for a in x) for x in row_group(argv))


def row_missing(argv):
    for x in row_group(argv):
        prog = x[0]
        if "/" in prog:
            p = prog if os.path.isabs(prog) else os.path.join(ROOT, prog)
            if not (os.path.isfile(p) and os.access(p, os.X_OK)):
                return True
        elif shutil.which(prog) is None:
            return True
    return False


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def run_overhead(b, rows, log):
    """The A/B/A/B rounds.  Returns per-workload results."""
    results = {}
    names = [n for n in WORKLOADS if any(r["workload"] == n for r in rows)]
    for n in names:
        results[n] = {"untraced": [], "rows": [r for r in rows if r["workload"] == n]}
    for rnd in range(1, b.args.rounds + 1):
        for n in names:
            res = results[n]
            active = [r for r in res["rows"] if not r.get("gave_up")]
            random.shuffle(active)
            before = b.workload(n)
            res["untraced"].append(before)
            b.recalibrate(n, res["untraced"])
            for r in active:
                try:
                    info = b.workload(n, r["argv"])
                except RuntimeError as e:
                    r["errors"].append(str(e))
                    log(f"  {n:10s} {r['label']}: FAILED: {e}")
                    # a tracer that cannot start at all is not tried again
                    if len(r["errors"]) >= MAX_FAILURES or not r["runs"] and \
                            "before attaching" in str(e):
                        r["gave_up"] = True
                    continue
                after = b.workload(n)
                res["untraced"].append(after)
                b.recalibrate(n, res["untraced"])
                info["ratio"] = info["ops"] / ((before["ops"] + after["ops"]) / 2)
                e0, e1 = before["ops_per_cpu_s"], after["ops_per_cpu_s"]
                if e0 and e1 and info["ops_per_cpu_s"]:
                    info["cpu_ratio"] = info["ops_per_cpu_s"] / ((e0 + e1) / 2)
                info["round"] = rnd
                r["runs"].append(info)
                before = after
            log(f"  round {rnd}/{b.args.rounds} {n}: untraced median "
                f"{med([u['ops'] for u in res['untraced']]):.0f} {WORKLOADS[n]['unit']}")
    return results


def summarize_row(r):
    runs = r["runs"]
    out = {"workload": r["workload"], "tracer": r["label"],
           "command": row_command(r["argv"]),
           "goal": r["goal"], "runs": len(runs)}
    if r.get("skipped"):
        out["status"] = "skipped: not built"
        return out
    if not runs:
        out["status"] = "failed: " + r["errors"][0]
        return out
    out["status"] = "ok"
    if r["errors"]:
        out["failed_runs"] = r["errors"]
    out["second_sigint_runs"] = sum(1 for x in runs if x["second_sigint"])
    ratios = [x["ratio"] for x in runs]
    cpu_ratios = [x["cpu_ratio"] for x in runs if x.get("cpu_ratio")]
    out.update(median_ops=med([x["ops"] for x in runs]),
               ratio=med(ratios), ratio_min=min(ratios), ratio_max=max(ratios),
               cpu_ratio=med(cpu_ratios),
               cpu_ratio_min=min(cpu_ratios, default=None),
               cpu_ratio_max=max(cpu_ratios, default=None),
               peak_rss_mb=med([x["maxrss_kb"] for x in runs]) / 1024,
               cpu_s=med([x["cpu_s"] for x in runs]),
               startup_s=med([x["startup_s"] for x in runs]),
               startup_min_s=min(x["startup_s"] for x in runs),
               startup_max_s=max(x["startup_s"] for x in runs),
               stop_s=med([x["report_s"] for x in runs]))
    if r["goal"] is not None:
        out["goal_met"] = out["ratio"] >= r["goal"]
        if out["cpu_ratio"] is not None:
            out["goal_met_per_cpu_s"] = out["cpu_ratio"] >= r["goal"]
    return out


def ns_per_event(run):
    b = run.get("bpf")
    return b["ns_per_event"] if b else None


def paired_ratios(runs, other):
    """ns per event of runs over other's, round by round (both rows ran
    in the same round, a few seconds apart): median, min, max, count."""
    theirs = {x["round"]: ns_per_event(x) for x in other}
    rs = [ns_per_event(x) / theirs[x["round"]] for x in runs
          if ns_per_event(x) and theirs.get(x["round"])]
    if not rs:
        return None
    return {"median": med(rs), "min": min(rs), "max": max(rs), "rounds": len(rs)}


def summarize_bpf(r, by_label, floor):
    """The kernel-accounting summary of row r: ns per event over the
    rounds, the hot program, and the ratios to the peer's and the floor's
    ns per event."""
    xs = [x["bpf"] for x in r["runs"] if x.get("bpf")]
    if not xs:
        return None
    npe = [b["ns_per_event"] for b in xs if b["ns_per_event"] is not None]
    hot = [b["hot_ns_per_run"] for b in xs if "hot_ns_per_run" in b]
    hot_hooks = [b["hot_hook"] for b in xs if "hot_hook" in b]
    hooks = {}
    for b in xs:
        for h in b["hooks"]:
            o = hooks.setdefault(h["hook"], {"hook": h["hook"], "programs": 0, "ns": 0})
            o["programs"] = max(o["programs"], h["programs"])
            o["ns"] += h["ns"]
    total = sum(h["ns"] for h in hooks.values())
    for h in hooks.values():
        h["share"] = h.pop("ns") / total if total else 0.0
    out = {"event": WORKLOADS[r["workload"]]["event"], "per": xs[0].get("per"),
           "hooks": sorted(hooks.values(), key=lambda h: -h["share"]),
           "events": med([b["events"] for b in xs]),
           "workload_events": med([b.get("workload_events") for b in xs]),
           "ns_per_event": med(npe), "ns_per_event_min": min(npe, default=None),
           "ns_per_event_max": max(npe, default=None), "ns_per_event_runs": npe,
           "hot_hook": max(set(hot_hooks), key=hot_hooks.count) if hot_hooks else None,
           "hot_ns_per_run": med(hot), "hot_ns_per_run_min": min(hot, default=None),
           "hot_ns_per_run_max": max(hot, default=None)}
    for key, lab in (("peer", r.get("peer")), ("floor", floor)):
        if lab and lab != r["label"] and lab in by_label:
            out[key] = lab
            out["vs_" + key] = paired_ratios(r["runs"], by_label[lab]["runs"])
    return out


def summarize_workload(n, rows, untraced):
    ops = [u["ops"] for u in untraced]
    eff = [u["ops_per_cpu_s"] for u in untraced if u["ops_per_cpu_s"]]
    m, me = med(ops), med(eff)
    by_label = {r["label"]: r for r in rows}
    summaries = [summarize_row(r) for r in rows]
    for r, o in zip(rows, summaries):
        b = summarize_bpf(r, by_label, FLOORS.get(n))
        if b:
            o["bpf"] = b
        if r.get("peer"):
            o["peer"] = r["peer"]
    return {"desc": WORKLOADS[n]["desc"], "unit": WORKLOADS[n]["unit"],
            "argv": WORKLOADS[n]["argv"].replace(WLBIN + "/", "build/bench/"),
            "untraced_ops": ops, "untraced_ops_per_cpu_s": eff,
            "median_ops": m, "median_ops_per_cpu_s": me,
            "spread_min": min(ops) / m if ops else None,
            "spread_max": max(ops) / m if ops else None,
            "cpu_spread_min": min(eff) / me if eff else None,
            "cpu_spread_max": max(eff) / me if eff else None,
            "rows": summaries}


def run_stacks(b, log):
    """Time from SIGINT to exit (the final report) with ~10,000 stacks."""
    out = []
    rows = [(lab, row_argv(cmd)) for lab, cmd in STACKS_ROWS]
    res = {lab: [] for lab, _ in rows}
    errors = {}
    for rnd in range(b.args.stack_rounds):
        random.shuffle(rows)
        for lab, argv in rows:
            if lab in errors:
                continue
            if row_missing(argv):
                errors[lab] = "skipped: not built"
                continue
            try:
                res[lab].append(stacks_once(b, argv, 4))
            except RuntimeError as e:
                errors[lab] = "failed: " + str(e)
                log(f"  stacks {lab}: FAILED: {e}")
    for lab, argv in sorted(rows):
        runs = res[lab]
        o = {"tracer": lab, "command": " ".join(argv), "runs": len(runs)}
        if not runs:
            o["status"] = errors.get(lab, "no run")
        else:
            t = [x["report_s"] for x in runs]
            o.update(status="ok", report_s=med(t), report_min_s=min(t),
                     report_max_s=max(t),
                     stacks=med([x["stacks"] for x in runs]),
                     paths=med([x["paths"] for x in runs]),
                     output_bytes=med([x["bytes"] for x in runs]),
                     peak_rss_mb=med([x["maxrss_kb"] for x in runs]) / 1024,
                     cpu_s=med([x["cpu_s"] for x in runs]),
                     startup_s=med([x["startup_s"] for x in runs]),
                     lost_line=runs[-1]["lost"])
        out.append(o)
    return out


def run_lost(b, log):
    """Paths reported of 10^LEVELS distinct paths, default options."""
    out = []
    for levels in LOST_LEVELS:
        for lab, cmd in LOST_ROWS:
            argv = row_argv(cmd)
            o = {"tracer": lab, "command": " ".join(argv), "paths_run": 10 ** levels,
                 "workload": f"build/bench/stacks10k {levels}"}
            if row_missing(argv):
                o["status"] = "skipped: not built"
            else:
                log(f"  stacks lost: {lab} on {10 ** levels} paths")
                try:
                    x = stacks_once(b, argv, levels)
                    o.update(status="ok", paths=x["paths"], entries=x["stacks"],
                             lost_line=x["lost"], report_s=x["report_s"],
                             peak_rss_mb=x["maxrss_kb"] / 1024)
                except RuntimeError as e:
                    o["status"] = "failed: " + str(e)
                    log(f"  stacks lost {lab}: FAILED: {e}")
            out.append(o)
    return out


def count_paths(text, levels):
    """The distinct stacks10k call paths a report shows whole: entries
    (blocks separated by blank lines) holding stk_leaf and exactly levels
    stk_stepN frames, in either order (leaf first or root first).  A
    path's number is its step digits, the outermost one the units."""
    paths = set()
    for entry in re.split(r"\n[ \t]*\n", text):
        if STACKS_LEAF not in entry:
            continue
        steps = STACKS_STEP.findall(entry)
        if len(steps) != levels:
            continue
        if entry.index(STACKS_LEAF) < entry.index("stk_step"):
            steps.reverse()
        paths.add(sum(int(d) * 10 ** i for i, d in enumerate(steps)))
    return len(paths)


def stacks_once(b, argv, levels):
    wl = Proc([os.path.join(WLBIN, "stacks10k"), str(levels)], b.path("st.out"),
              b.path("st.err"), stopped=True)
    tr = None
    try:
        tr = Proc(subst(argv, pid=wl.pid), b.path("tr.out"),
                  b.path("tr.err"))
        info = {"startup_s": wait_attached(tr)}
        wl.signal(signal.SIGCONT)
        deadline = time.monotonic() + 120 * 10 ** (levels - 4)
        while True:
            with open(wl.out) as f:
                if "done" in f.read():
                    break
            if not wl.alive() or time.monotonic() > deadline:
                raise RuntimeError("stacks10k did not finish")
            time.sleep(0.01)
        time.sleep(0.2)		# let the last blocks be accounted
        info.update(Bench.stop_tracer(tr))
        with open(tr.out, errors="replace") as f:
            text = f.read()
        info["stacks"] = text.count(STACKS_LEAF)
        info["paths"] = count_paths(text, levels)
        info["bytes"] = len(text.encode())
        with open(tr.err, errors="replace") as f:
            lost = [line.strip() for line in f if re.search(r"lost|missed", line, re.I)
                    and not line.strip().startswith("[Missed")]
            f.seek(0)
            text += f.read()
        info["lost"] = "; ".join(lost)
        # libbpf-tools counts nothing: every stack it could not store is
        # merged into one entry per thread marked [Missed User Stack]
        for kind in ("User", "Kernel"):
            n = text.count(f"[Missed {kind} Stack]")
            if n:
                info["lost"] += (f"{'; ' if info['lost'] else ''}{n} entr"
                                 f"{'y' if n == 1 else 'ies'} [Missed {kind} Stack] "
                                 "(not counted: lost stacks merged)")
        return info
    finally:
        wl.kill()
        if tr:
            tr.kill()


# ---------------------------------------------------------------------------
# Machine, tables, files


def machine():
    def sh(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True,
                                  timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    cpu = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) // 1024
    vers = {}
    for p in ("libbpf-tools", "bpftrace", "linux-perf", "libbpf1"):
        v = sh(["dpkg-query", "-W", "-f=${Version}", p])
        if v:
            vers[p] = v
    return {"nproc": os.cpu_count(), "kernel": platform.release(),
            "cpu_model": cpu or platform.processor(), "mem_mb": mem,
            "arch": platform.machine(), "loadavg_start": os.getloadavg()[0],
            "packages": vers,
            "commit": sh(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])}


def fmt(x, spec, dash="-"):
    return dash if x is None else format(x, spec)


def span(lo, hi):
    return "" if lo is None else f"{lo:.2f}-{hi:.2f}"


def table_rows(summary):
    """(header, rows) of the main table, as strings."""
    head = ["workload", "tracer", "median ops/s", "ratio", "min-max", "goal",
            "ratio per CPU-s", "min-max", "peak RSS MB", "CPU s", "start s"]
    rows = []
    for w, res in summary["workloads"].items():
        if res["median_ops"] is None:
            rows.append([w, "untraced", "not run (no row to compare)"] + [""] * 8)
        else:
            rows.append([w, "untraced", fmt(res["median_ops"], ".0f"), "1.00",
                         span(res["spread_min"], res["spread_max"]), "", "1.00",
                         span(res["cpu_spread_min"], res["cpu_spread_max"]), "", "", ""])
        for r in res["rows"]:
            if "ratio" not in r:
                st = r["status"] if len(r["status"]) <= 72 else r["status"][:69] + "..."
                rows.append([w, r["tracer"], st] + [""] * 8)
                continue
            goal = ""
            if r["goal"] is not None:
                both = (r["goal_met"], r.get("goal_met_per_cpu_s", r["goal_met"]))
                goal = (">=%.2f " % r["goal"]) + {
                    (True, True): "met", (False, False): "MISSED",
                    (True, False): "met on wall clock only",
                    (False, True): "met per CPU-s only"}[both]
            fails = f" ({len(r['failed_runs'])} failed)" if r.get("failed_runs") else ""
            if r["second_sigint_runs"]:
                fails += f" ({r['second_sigint_runs']} needed a 2nd SIGINT)"
            rows.append([w, r["tracer"] + fails, fmt(r["median_ops"], ".0f"),
                         f"{r['ratio']:.2f}", span(r["ratio_min"], r["ratio_max"]), goal,
                         fmt(r["cpu_ratio"], ".2f"),
                         span(r["cpu_ratio_min"], r["cpu_ratio_max"]),
                         f"{r['peak_rss_mb']:.1f}", f"{r['cpu_s']:.2f}",
                         f"{r['startup_s']:.3f}"])
    return head, rows


def stacks_rows(summary):
    head = ["tracer", "report s (median)", "min-max", "stacks printed",
            "output KB", "peak RSS MB", "CPU s", "start s", "lost (its own count)"]
    rows = []
    for s in summary["stacks"]:
        if s["status"] != "ok":
            rows.append([s["tracer"], s["status"]] + [""] * 7)
            continue
        rows.append([s["tracer"], f"{s['report_s']:.3f}",
                     f"{s['report_min_s']:.3f}-{s['report_max_s']:.3f}",
                     f"{s['stacks']:.0f}", f"{s['output_bytes'] / 1024:.0f}",
                     f"{s['peak_rss_mb']:.1f}", f"{s['cpu_s']:.2f}",
                     f"{s['startup_s']:.3f}", s["lost_line"] or "none reported"])
    return head, rows


def bpf_rows(summary):
    """(header, rows) of the ns-per-event table."""
    head = ["workload", "tracer", "hooks (programs)", "events seen", "the workload's",
            "per", "ns per event", "min-max", "hot program: hook, ns per run",
            "vs peer", "min-max", "peer", "vs floor", "min-max"]
    rows = []

    def ratio(b, key):
        r = b.get("vs_" + key)
        if not r:
            return ["-", ""]
        return [f"{r['median']:.2f}", span(r["min"], r["max"])]

    for w, res in summary["workloads"].items():
        for r in res["rows"]:
            b = r.get("bpf")
            if not b:
                if r["status"] != "ok":
                    st = r["status"] if len(r["status"]) <= 72 else r["status"][:69] + "..."
                    rows.append([w, r["tracer"], st] + [""] * 11)
                continue
            hooks = ", ".join(h["hook"] + (f" ({h['programs']})" if h["programs"] > 1 else "")
                              for h in b["hooks"][:3] if h is b["hooks"][0] or
                              h["share"] >= 0.01) or "no program"
            more = len(b["hooks"]) - hooks.count(",") - 1
            if b["hooks"] and more > 0:
                hooks += f" +{more} more"
            if b["ns_per_event"] is None:
                rows.append([w, r["tracer"], hooks, fmt(b["events"], ".0f"),
                             fmt(b["workload_events"], ".0f"), "",
                             f"no {b['event']} seen by its programs"] + [""] * 7)
                continue
            hot = ""
            if b["hot_hook"]:
                hot = (f"{b['hot_hook']}, {b['hot_ns_per_run']:.0f} "
                       f"({b['hot_ns_per_run_min']:.0f}-{b['hot_ns_per_run_max']:.0f})")
            rows.append([w, r["tracer"], hooks, fmt(b["events"], ".0f"),
                         fmt(b["workload_events"], ".0f"),
                         "workload" if b["per"] == "the workload's events" else "seen",
                         f"{b['ns_per_event']:.0f}",
                         f"{b['ns_per_event_min']:.0f}-{b['ns_per_event_max']:.0f}", hot]
                        + ratio(b, "peer") + [b.get("peer", "")] + ratio(b, "floor"))
    return head, rows


def lost_rows(summary):
    head = ["paths run", "tracer", "paths reported", "entries with the leaf",
            "lost (its own count)", "report s", "peak RSS MB"]
    rows = []
    for s in summary["lost"]:
        if s["status"] != "ok":
            rows.append([f"{s['paths_run']}", s["tracer"], s["status"]] + [""] * 4)
            continue
        rows.append([f"{s['paths_run']}", s["tracer"],
                     f"{s['paths']} ({100 * s['paths'] / s['paths_run']:.1f}%)",
                     f"{s['entries']}", s["lost_line"] or "none reported",
                     f"{s['report_s']:.3f}", f"{s['peak_rss_mb']:.1f}"])
    return head, rows


def text_table(head, rows):
    w = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    lines = ["  ".join(str(x).ljust(n) for x, n in zip(head, w)).rstrip()]
    lines.append("  ".join("-" * n for n in w))
    for r in rows:
        lines.append("  ".join(str(x).ljust(n) for x, n in zip(r, w)).rstrip())
    return "\n".join(lines)


def md_table(head, rows):
    esc = [[str(x).replace("|", "\\|") for x in r] for r in [head] + rows]
    out = ["| " + " | ".join(esc[0]) + " |",
           "|" + "|".join(" --- " for _ in head) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in esc[1:]]
    return "\n".join(out)


def markdown(summary):
    m = summary["machine"]
    p = summary["params"]
    lines = [
        f"Results of {summary['date']} ({'quick' if p['quick'] else 'full'} run, "
        f"{p['rounds']} rounds of {p['secs']} s windows, {summary['elapsed_s']:.0f} s in all), "
        f"commit {m['commit'] or '?'}.",
        "",
        f"Machine: {m['nproc']} CPUs, {m['cpu_model']}, {m['mem_mb'] // 1024} GiB, "
        f"kernel {m['kernel']} ({m['arch']}); load average {m['loadavg_start']:.2f} at "
        f"the start, {m['loadavg_end']:.2f} at the end; "
        + ", ".join(f"{k} {v}" for k, v in m["packages"].items()) + ".",
        "",
        "Throughput traced / untraced, on the wall clock (ratio) and per CPU second "
        "of the workload (median over rounds, min-max of the ratio; the untraced row "
        "shows the spread of untraced runs around their median, the noise floor). "
        "Peak RSS (VmHWM) and CPU time are the tracer's own, start-up to exit; "
        "start s is the time from exec until attached.",
        "",
        md_table(*table_rows(summary)),
        "",
        "Workloads: " + "; ".join(f"{n}: {w['desc']}" for n, w in WORKLOADS.items()
                                  if n in summary["workloads"]) + ".",
        "",
    ]
    if any(r.get("bpf") for res in summary["workloads"].values() for r in res["rows"]):
        lines += [
            "",
            "ns per event (kernel accounting): run time of all the tracer's BPF programs "
            f"over the window ({summary['bpf_stats'] or 'statistics off'}: run_time_ns "
            "and run_cnt of each program it holds, before and after) divided by the runs on "
            "the workload's hook (one context switch, system call or page fault); median "
            "and min-max over the rounds, the hot program (most run time) and its ns per "
            "run, and the ratio of ns per event to the peer's and to the floor's (an "
            "almost empty program on the same hook, bench/floor/), round by round. "
            "per: a tracer that follows the workload's PID is divided by the workload's "
            "own events (its programs also run, to reject them, on the events of other "
            "processes, which it is charged for), any other by the events its programs "
            "saw.",
            "",
            md_table(*bpf_rows(summary)),
        ]
    if summary["stacks"]:
        lines += [
            "",
            "Final report with ~10,000 unique stacks (bench/workloads/stacks10k.c: "
            "10,000 distinct call paths, each blocking once; report s = SIGINT until exit):",
            "",
            md_table(*stacks_rows(summary)),
        ]
    if summary.get("lost"):
        lines += [
            "",
            "Stacks lost, default options (`-p PID` only): `stacks10k 4` and "
            "`stacks10k 5` block once from each of 10,000 and 100,000 distinct call "
            "paths; paths reported = distinct paths printed whole (leaf and every "
            "step frame):",
            "",
            md_table(*lost_rows(summary)),
        ]
    if summary.get("inline"):
        lines += [
            "",
            "`--inline` in the symbolizer (bench/symbolizer/inline.c): one address in the "
            "middle of each function of the binary (rust_big: bench/symbolizer/rust_big.rs, "
            "Rust's std and 64 types through its collections; rust_blocker_v0: the test "
            "workload), looked up for its file:line (`--lines`), then for the functions "
            "inlined there with their names demangled, twice: first with the index of "
            "each compile unit built at its first look-up, then again. A tool looks up "
            "each distinct address once (cached):",
            "",
            md_table(*inline_rows(summary)),
        ]
    return "\n".join(lines) + "\n"


DOC_BEGIN = "<!-- bench results: begin (written by bench/bench.py) -->"
DOC_END = "<!-- bench results: end -->"


def update_doc(md, mdpath):
    try:
        with open(DOC) as f:
            doc = f.read()
    except OSError:
        return False
    if DOC_BEGIN not in doc or DOC_END not in doc:
        return False
    rel = os.path.relpath(mdpath, os.path.dirname(DOC))
    body = f"{DOC_BEGIN}\n(from [{os.path.basename(mdpath)}]({rel}))\n\n{md}{DOC_END}"
    a, rest = doc.split(DOC_BEGIN, 1)
    _, b = rest.split(DOC_END, 1)
    with open(DOC + ".tmp", "w") as f:
        f.write(a + body + b)
    os.replace(DOC + ".tmp", DOC)
    return True


# ---------------------------------------------------------------------------


INLINE_BIN = os.path.join(ROOT, "build", "bench", "inline")
INLINE_ELFS = [("rust_big", os.path.join(ROOT, "build", "bench", "rust_big")),
               ("rust_blocker_v0", os.path.join(ROOT, "build", "workloads", "rust_blocker_v0"))]


def run_inline(log):
    """--inline's cost in the symbolizer (bench/symbolizer/inline.c): one
    address in the middle of each function of a large Rust binary, looked
    up for its line, then for its inlined functions twice (the first time
    with each compile unit's index built)"""
    out = []
    if not os.access(INLINE_BIN, os.X_OK):
        return out
    for name, elf in INLINE_ELFS:
        if not os.path.exists(elf):
            log(f"  --inline on {name}: skipped: not built")
            continue
        log(f"  --inline look-ups on {name}")
        r = subprocess.run([INLINE_BIN, elf, "1000000"], capture_output=True, text=True)
        vals = dict(l.split(": ", 1) for l in r.stdout.splitlines() if ": " in l)
        if r.returncode or "inline_again_ns_per_addr" not in vals:
            out.append({"elf": name, "status": f"failed ({r.returncode}): {r.stderr.strip()[:200]}"})
            continue
        out.append({"elf": name, "status": "ok", "mb": os.path.getsize(elf) / 1e6,
                    "addresses": int(vals["inline_addresses"]),
                    "line_ns": float(vals["line_ns_per_addr"]),
                    "first_ns": float(vals["inline_first_ns_per_addr"]),
                    "again_ns": float(vals["inline_again_ns_per_addr"]),
                    "frames": float(vals["inlined_frames_per_addr"])})
    return out


def inline_rows(summary):
    head = ["binary", "MB", "addresses", "file:line us/addr", "--inline first us/addr",
            "--inline again us/addr", "inlined frames/addr"]
    rows = []
    for s in summary.get("inline", []):
        if s["status"] != "ok":
            rows.append([s["elf"], s["status"]] + [""] * 5)
            continue
        rows.append([s["elf"], f"{s['mb']:.1f}", s["addresses"], f"{s['line_ns'] / 1e3:.1f}",
                     f"{s['first_ns'] / 1e3:.1f}", f"{s['again_ns'] / 1e3:.1f}",
                     f"{s['frames']:.2f}"])
    return head, rows


def main():
    ap = argparse.ArgumentParser(description="Overhead of each tracer on known workloads.")
    ap.add_argument("--quick", action="store_true",
                    help="2 rounds of 0.3 s windows, one report-time run (about 2 minutes)")
    ap.add_argument("--rounds", type=int, help="A/B rounds (default 7, quick 2)")
    ap.add_argument("--secs", type=float, help="window of one run in s (default 1, quick 0.3)")
    ap.add_argument("--nice", type=int, default=-10,
                    help="nice value of the workloads (default -10: other jobs on a "
                    "shared machine disturb the windows less; 0 leaves it alone)")
    ap.add_argument("--only", metavar="REGEX",
                    help="only the rows whose 'workload tracer' matches REGEX")
    ap.add_argument("--no-stacks", action="store_true",
                    help="skip the report-time and stacks-lost tests")
    ap.add_argument("--stacks-only", action="store_true",
                    help="only the report-time and stacks-lost tests")
    ap.add_argument("--docs", choices=("auto", "yes", "no"), default="auto",
                    help="quote the results in docs/PERFORMANCE.md (auto: full runs only)")
    ap.add_argument("--seed", type=int, help="seed of the random row order")
    a = ap.parse_args()
    a.rounds = a.rounds or (2 if a.quick else 7)
    a.secs = a.secs or (0.3 if a.quick else 1.0)
    a.stack_rounds = 1 if a.quick else 3
    if a.rounds < 1 or a.rounds > 100 or not 0.05 <= a.secs <= 60 or \
            not -20 <= a.nice <= 19:
        ap.error("--rounds must be 1-100, --secs 0.05-60 and --nice -20-19")
    if os.geteuid() != 0:
        print("bench: must run as root (the tracers load BPF)", file=sys.stderr)
        return 3
    random.seed(a.seed)
    os.chdir(ROOT)

    def log(s):
        print(s, file=sys.stderr, flush=True)

    if a.stacks_only and (a.no_stacks or a.only):
        ap.error("--stacks-only goes with neither --no-stacks nor --only")
    rows, skipped = [], []
    only = re.compile(a.only) if a.only else None
    for wl, label, cmd, goal, *peer in ([] if a.stacks_only else ROWS):
        if only and not only.search(f"{wl} {label}"):
            continue
        r = {"workload": wl, "label": label, "argv": row_argv(cmd), "goal": goal,
             "peer": peer[0] if peer else None, "runs": [], "errors": []}
        if row_missing(r["argv"]):
            r["skipped"] = True
            skipped.append(r)
            log(f"  {wl:10s} {label}: skipped: not built")
        rows.append(r)
    if not rows and not a.stacks_only:
        print(f"bench: no row matches --only '{a.only}'", file=sys.stderr)
        return 2
    active = [r for r in rows if not r.get("skipped")]

    started = time.monotonic()
    date = datetime.datetime.now(datetime.timezone.utc)
    mach = machine()
    log(f"bench: {len(active)} rows ({len(skipped)} skipped), {a.rounds} rounds "
        f"of {a.secs} s, on {mach['nproc']} CPUs, kernel {mach['kernel']}")
    stats = BpfStats()
    try:
        log(f"bench: BPF run-time statistics on ({stats.enable()})")
    except RuntimeError as e:
        log(f"bench: {e}; no ns-per-event table")
    tmp = tempfile.mkdtemp(prefix="bench.")
    b = Bench(a, tmp)
    other = Proc(["sleep", "100000"], "/dev/null", "/dev/null")
    b.other = other.pid
    try:	# each run kills what it started; this is for the rest
        b.calibrate(sorted({r["workload"] for r in active}))
        results = run_overhead(b, active, log)
        stacks, lost, inline = [], [], []
        if not a.no_stacks and not only:
            log("  report time with ~10,000 unique stacks")
            stacks = run_stacks(b, log)
            lost = run_lost(b, log)
        inline = [] if only else run_inline(log)
    finally:
        other.kill()
        stats.disable()
        shutil.rmtree(tmp, ignore_errors=True)
    summary = {"date": date.strftime("%Y-%m-%d %H:%M UTC"), "machine": mach,
               "params": {"quick": a.quick, "rounds": a.rounds, "secs": a.secs,
                          "nice": a.nice,
                          "loops": b.loops, "stack_rounds": a.stack_rounds,
                          "only": a.only, "stacks_only": a.stacks_only, "seed": a.seed},
               "bpf_stats": stats.how, "workloads": {}, "stacks": stacks, "lost": lost,
               "inline": inline}
    for n in WORKLOADS:
        wr = [r for r in rows if r["workload"] == n]
        if wr:
            summary["workloads"][n] = summarize_workload(
                n, wr, results.get(n, {}).get("untraced", []))
    mach["loadavg_end"] = os.getloadavg()[0]
    summary["elapsed_s"] = time.monotonic() - started

    print()
    print(text_table(*table_rows(summary)))
    if stats.how and summary["workloads"]:
        print()
        print("ns per event (kernel accounting: run time of the tracer's BPF programs "
              "per run of the workload's hook):")
        print(text_table(*bpf_rows(summary)))
    if stacks:
        print()
        print("Final report with ~10,000 unique stacks (SIGINT until exit):")
        print(text_table(*stacks_rows(summary)))
    if lost:
        print()
        print("Stacks lost with default options, 10,000 and 100,000 distinct paths:")
        print(text_table(*lost_rows(summary)))
    if inline:
        print()
        print("--inline look-ups in the symbolizer (one address per function):")
        print(text_table(*inline_rows(summary)))
    os.makedirs(RESULTS, exist_ok=True)
    stem = date.strftime("%Y-%m-%d_%H%M%S") + ("-quick" if a.quick else "")
    if only or a.stacks_only:
        stem += "-partial"
    jpath = os.path.join(RESULTS, stem + ".json")
    mpath = os.path.join(RESULTS, stem + ".md")
    with open(jpath, "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    md = markdown(summary)
    with open(mpath, "w") as f:
        f.write(f"# Benchmark results {summary['date']}\n\n" + md)
    print(f"\nwrote {os.path.relpath(jpath, ROOT)} and {os.path.relpath(mpath, ROOT)}")
    docs = a.docs == "yes" or (a.docs == "auto" and not a.quick and not only and
                               not a.stacks_only)
    if docs:
        if update_doc(md, mpath):
            print(f"updated {os.path.relpath(DOC, ROOT)}")
        else:
            print(f"bench: {os.path.relpath(DOC, ROOT)} has no results markers; not updated",
                  file=sys.stderr)
    print(f"bench: {summary['elapsed_s']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
