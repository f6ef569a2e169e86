#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The rules of the house, checked on a source tree (docs/ARCHITECTURE.md):

  1. no file of tools/lib/ includes a tool's own header: a header of a tool
     folder (tools/X/*.h), a tool's BPF header (bpf/X.h) or its skeleton;
  2. every module of tools/lib/ (X.c and X.h) is used by two tools or more,
     directly or through other modules of tools/lib/;
  3. each tool's main() is at most MAIN_MAX lines, from its first line to
     its closing brace.

Usage: check_layout.py [ROOT]. Prints one line per violation, and exits 1
if there is any, else 0."""
import os
import re
import sys

MAIN_MAX = 60
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def includes(path):
    with open(path, errors="replace") as f:
        return [os.path.basename(h) for h in INCLUDE.findall(f.read())]


def main(root):
    tools_dir = os.path.join(root, "tools")
    lib = os.path.join(tools_dir, "lib")
    tools = sorted(d for d in os.listdir(tools_dir)
                   if d != "lib" and os.path.isfile(os.path.join(root, "bpf", d + ".bpf.c")))
    bad = []

    # 1. what tools/lib/ may not include
    tool_headers = {}
    for t in tools:
        for h in os.listdir(os.path.join(tools_dir, t)):
            if h.endswith(".h"):
                tool_headers.setdefault(h, t)
        tool_headers.setdefault(t + ".h", t)
        tool_headers.setdefault(t + ".skel.h", t)
    lib_files = sorted(f for f in os.listdir(lib) if f.endswith((".c", ".h")))
    for f in lib_files:
        for h in includes(os.path.join(lib, f)):
            if h in tool_headers and not os.path.isfile(os.path.join(lib, h)):
                bad.append(f"tools/lib/{f} includes {h}, a header of {tool_headers[h]}")

    # 2. who uses each module of tools/lib/: the tools whose files include
    # its header, directly or through the headers and sources of others
    modules = sorted({os.path.splitext(f)[0] for f in lib_files})
    deps = {}
    for m in modules:
        deps[m] = set()
        for ext in (".c", ".h"):
            p = os.path.join(lib, m + ext)
            if os.path.isfile(p):
                deps[m] |= {os.path.splitext(h)[0] for h in includes(p)
                            if os.path.splitext(h)[0] in modules and h.endswith(".h")}
        deps[m].discard(m)
    users = {m: set() for m in modules}
    for t in tools:
        seen, todo = set(), []
        for f in os.listdir(os.path.join(tools_dir, t)):
            if f.endswith((".c", ".h")):
                todo += [os.path.splitext(h)[0] for h in includes(os.path.join(tools_dir, t, f))
                         if h.endswith(".h") and os.path.splitext(h)[0] in modules
                         and not os.path.isfile(os.path.join(tools_dir, t, h))]
        while todo:
            m = todo.pop()
            if m not in seen:
                seen.add(m)
                todo += deps[m]
        for m in seen:
            users[m].add(t)
    for m in modules:
        if len(users[m]) < 2:
            who = ", ".join(sorted(users[m])) or "no tool"
            bad.append(f"tools/lib/{m} is used by {who} only: it belongs in that tool's folder")

    # 3. the length of each main()
    for t in tools:
        p = os.path.join(tools_dir, t, t + ".c")
        if not os.path.isfile(p):
            bad.append(f"tools/{t}/{t}.c: missing")
            continue
        with open(p, errors="replace") as f:
            lines = f.read().split("\n")
        start = next((i for i, l in enumerate(lines) if re.match(r"^int main\s*\(", l)), None)
        if start is None:
            bad.append(f"tools/{t}/{t}.c: no main()")
            continue
        end = next((i for i in range(start, len(lines)) if lines[i] == "}"), len(lines) - 1)
        n = end - start + 1
        if n > MAIN_MAX:
            bad.append(f"tools/{t}/{t}.c: main() is {n} lines, more than {MAIN_MAX}")

    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")))
