#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The rules of the house, checked on a source tree (docs/ARCHITECTURE.md):

  1. no file of tools/lib/ includes a tool's own header: a header of a tool
     folder (tools/X/*.h), a tool's BPF header (bpf/X.h) or its skeleton;
  2. every module of tools/lib/ (X.c and X.h) is used by two tools or more,
     directly or through other modules of tools/lib/;
  3. each tool's main() is at most MAIN_MAX lines, from its first line to
     its closing brace;
  4. only tools/lib/ includes the symbolizer's API (blazesym.h): a tool
     names addresses through the library's modules;
  5. no circle among the modules of tools/lib/ (X.c and X.h), nor among
     the files of blazesym-shim/ (a header without a source is no module
     of its own): module A depends on B when A's files
     include B's header or A's files (or the macros of the headers they
     include) call a function B's source defines (comments and strings
     left out).

Usage: check_layout.py [ROOT]. Prints one line per violation, and exits 1
if there is any, else 0."""
import os
import re
import sys

MAIN_MAX = 60
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
# comments, string and character literals (left out before looking for calls)
NOISE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
# a function defined at the start of a line, not static: its name
DEFINED = re.compile(r'^(?!static\b)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*\{', re.M)
CALL = re.compile(r'\b([A-Za-z_]\w*)\s*\(')


def includes(path):
    with open(path, errors="replace") as f:
        return [os.path.basename(h) for h in INCLUDE.findall(f.read())]


def source(path):
    with open(path, errors="replace") as f:
        return NOISE.sub(" ", f.read())


def macros(path):
    """The text of the #define directives of a header (declarations in a
    header are no calls; a macro's body is)"""
    out, more = [], False
    for line in source(path).split("\n"):
        if more or re.match(r"\s*#\s*define\b", line):
            out.append(line)
            more = line.rstrip().endswith("\\")
    return "\n".join(out)


def circles(d):
    """The circles among the modules of folder d (each as a list of
    names, the first repeated at the end), by includes and calls"""
    files = sorted(f for f in os.listdir(d) if f.endswith((".c", ".h")))
    # a header without a source (internal.h, vec.h) is no module: who
    # includes it makes the calls of its macros
    modules = sorted({os.path.splitext(f)[0] for f in files if f.endswith(".c")})
    defined = {}
    for m in modules:
        p = os.path.join(d, m + ".c")
        if os.path.isfile(p):
            for name in DEFINED.findall(source(p)):
                defined.setdefault(name, m)
    # the calls a file makes: its own, and those of the macros of the
    # headers of this folder it includes
    calls = {f: set(CALL.findall(source(os.path.join(d, f)) if f.endswith(".c")
                                 else macros(os.path.join(d, f)))) for f in files}
    deps = {m: set() for m in modules}
    for f in files:
        m = os.path.splitext(f)[0]
        if m not in deps:
            continue
        heads = [h for h in includes(os.path.join(d, f)) if h in calls]
        deps[m] |= {os.path.splitext(h)[0] for h in heads if os.path.splitext(h)[0] in deps}
        made = calls[f].union(*(calls[h] for h in heads))
        deps[m] |= {defined[c] for c in made if c in defined}
    for m in modules:
        deps[m].discard(m)
    # strongly connected components (Tarjan), each reported by one circle
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(deps[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(cycle_in(comp, deps))

    for m in modules:
        if m not in index:
            visit(m)
    return found


def cycle_in(comp, deps):
    """One circle through the first module of comp (sorted), within comp"""
    start = min(comp)
    prev, todo = {start: None}, [start]
    while todo:
        v = todo.pop(0)
        for w in sorted(deps[v] & comp):
            if w == start:
                path = [v]
                while prev[path[-1]]:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                todo.append(w)
    return sorted(comp)


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

    # 4. who includes the symbolizer's API
    for t in sorted(os.listdir(tools_dir)):
        folder = os.path.join(tools_dir, t)
        if t == "lib" or not os.path.isdir(folder):
            continue
        for f in sorted(os.listdir(folder)):
            if f.endswith((".c", ".h")) and "blazesym.h" in includes(os.path.join(folder, f)):
                bad.append(f"tools/{t}/{f} includes blazesym.h: name addresses through tools/lib/")

    # 5. circles
    for d in ("tools/lib", "blazesym-shim"):
        if os.path.isdir(os.path.join(root, d)):
            for c in circles(os.path.join(root, d)):
                bad.append(f"{d}: a circle: {' -> '.join(c)}")

    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")))
