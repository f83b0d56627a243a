#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The user's documents name only what exists.

Checks README.md and Documentation/*.md against the sources: every
make target, SLABX_* name, module parameter, debugfs file, statistics
key, tracepoint, tracepoint field and path value they name must exist;
the statistics keys, the module parameters of an insmod usage line, the
tracepoints and their fields, and (in README's Layout) the source files
must all be named. Prints one line per
problem and "docs: N problems"; exits 1 when there is one.

Usage: scripts/docs-check.py [TOP]
"""

import functools
import glob
import os
import re
import sys

TOP = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), ".."))
DOCS = ["README.md"] + sorted(os.path.relpath(p, TOP) for p in
                              glob.glob(os.path.join(TOP, "Documentation/*.md")))
problems = []


def read(path):
    with open(os.path.join(TOP, path), encoding="utf-8") as f:
        return f.read()


def problem(doc, what):
    problems.append(f"{doc}: {what}")


def sources(patterns):
    text = ""
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(TOP, pattern))):
            with open(path, encoding="utf-8", errors="replace") as f:
                text += f.read()
    return text


CODE = sources(["*.c", "*.h", "Makefile", "Kbuild", "scripts/*.sh",
                "scripts/*.py", "tests/*.c", "tests/*.h", "tests/Kbuild",
                "tests/selftests/*", "tests/*/*.sh", "tools/*/*.c",
                "tools/*/Makefile", ".ci/run"])


@functools.cache
def make_targets(makefile):
    """Targets of a Makefile: the names before ':' of its rules."""
    targets = set()
    for line in read(makefile).splitlines():
        m = re.match(r"^([A-Za-z0-9_. -]+):(?!=)", line)
        if m:
            targets.update(m.group(1).split())
    return targets


def code(text):
    """What a document shows as code: `spans` and indented lines."""
    spans = re.findall(r"`([^`\n]+)`", text)
    spans += re.findall(r"^(?:    |\t)(.*)$", text, re.M)
    return "\n".join(spans)


def check_make(doc, text):
    """`make TARGET` and `make -C DIR TARGET` in the repository."""
    for m in re.finditer(r"\bmake((?: -[sC] \S+| -s)*)((?: [A-Za-z_0-9-]+=\S*)*)"
                         r"( [a-z][a-z0-9.-]*)?", text):
        opts, target = m.group(1), (m.group(3) or "").strip()
        d = re.search(r"-C (\S+)", opts)
        makefile = "Makefile"
        if d:
            makefile = d.group(1).strip("`").rstrip("/") + "/Makefile"
            if not os.path.isfile(os.path.join(TOP, makefile)):
                continue        # a kernel's tree: not ours
        if target and target not in make_targets(makefile):
            problem(doc, f"make target '{target}' not in {makefile}")


def check_names(doc, text):
    """Every SLABX_* name is defined or read somewhere in the code."""
    for name in sorted(set(re.findall(r"\bSLABX_[A-Z0-9_]*[A-Z0-9]\b", text))):
        if name not in CODE:
            problem(doc, f"{name} is named but used nowhere in the code")


def module_params(files):
    params = set()
    for path in files:
        params.update(re.findall(r"module_param(?:_named|_string)?\((\w+)",
                                 read(path)))
    return params


SLABX_PARAMS = module_params([os.path.relpath(p, TOP) for p in
                              glob.glob(os.path.join(TOP, "*.c"))])


def check_params(doc, text):
    """Parameters named as slabx.ko's, and insmod usage lines."""
    for m in re.finditer(r"`(\w+)=[^`]*`\**\s*\(?module parameter|"
                         r"module parameter\s+`(\w+)=", text):
        name = m.group(1) or m.group(2)
        if name not in SLABX_PARAMS:
            problem(doc, f"'{name}' is no module parameter of slabx.ko")
    for m in re.finditer(r"insmod (\w+)\.ko((?:\\\n|[^\n])*)", text):
        src = f"tests/{m.group(1)}.c"
        if not os.path.isfile(os.path.join(TOP, src)):
            continue
        named = set(re.findall(r"\[(\w+)=", m.group(2)))
        have = module_params([src])
        for name in sorted(named - have):
            problem(doc, f"{m.group(1)}.ko has no parameter '{name}'")
        for name in sorted(have - named):
            problem(doc, f"the usage line of {m.group(1)}.ko lacks '{name}='")


def table_rows(text, header):
    """First cells of the rows of the table whose header row starts so."""
    rows = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(header):
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([c.strip() for c in row.strip("|").split("|")])
            return rows
    return None


DEBUGFS = read("debugfs.c") + read("trylock_pages.c") + read("objpool.c")


def check_debugfs(doc, text):
    rows = table_rows(text, "| file | what |")
    if rows is None:
        return
    for row in rows:
        for name in re.findall(r"`([^`]+)`", row[0]):
            base = name.split("/")[-1]
            if f'"{base}"' not in DEBUGFS:
                problem(doc, f"debugfs file '{name}' is created nowhere")


def stats_keys():
    """Keys slabx writes to CACHE/stats, the event counters included."""
    src = read("debugfs.c")
    start = src.rindex("\n{", 0, src.index('seq_printf(m, "name %s\\n"'))
    keys = set(re.findall(r'seq_printf\(m, "(\w+) %',
                          src[start:src.index("\n}\n", start)]))
    names = read("cache.c")
    start = names.index("slabx_stat_names[SLABX_NR_STATS]")
    keys.update(re.findall(r'\]\s*= "(\w+)"', names[start:names.index("};", start)]))
    return keys


def check_stats(doc, text):
    rows = table_rows(text, "| key | meaning |")
    if rows is None:
        return
    named = set()
    for row in rows:
        for key in re.findall(r"`([^`]+)`", row[0]):
            word = key.split()[0]
            if word.endswith("N"):          # nodeN ..., barnN ...
                if word[:-1] + "%d" not in DEBUGFS:
                    problem(doc, f"stats line '{key}' is printed nowhere")
                continue
            named.add(word)
    have = stats_keys()
    for key in sorted(named - have - {"pool"}):
        problem(doc, f"stats key '{key}' is printed nowhere")
    for key in sorted(have - named):
        problem(doc, f"stats key '{key}' is not in the table")


def trace_events():
    """Each event of slabx_trace.h with its fields."""
    src = read("slabx_trace.h")
    classes, events = {}, {}
    for m in re.finditer(r"(TRACE_EVENT|DECLARE_EVENT_CLASS)\((\w+),(.*?)\n\);",
                         src, re.S):
        # __field(type, name), __array(type, name, n), __string(name, src)
        fields = re.findall(r"__(?:field|array)\([^,]+,\s*(\w+)", m.group(3))
        fields += re.findall(r"__string\((\w+),", m.group(3))
        target = events if m.group(1) == "TRACE_EVENT" else classes
        target[m.group(2)] = set(fields)
    for m in re.finditer(r"DEFINE_EVENT\((\w+), (\w+),", src):
        events[m.group(2)] = classes[m.group(1)]
    paths = set(re.findall(r'\{ SLABX_TRACE_\w+, "(\w+)" \}', src))
    return events, paths


def check_trace(doc, text):
    rows = table_rows(text, "| event | fields | fires |")
    if rows is None:
        return
    events, paths = trace_events()
    named, listed = set(), set()
    for row in rows:
        names = re.findall(r"`(\w+)`", row[0])
        named.update(names)
        for path_values in re.findall(r"\bpath \(([^)]*)\)", row[1]):
            values = set(re.findall(r"\w+", path_values))
            listed |= values
            for value in sorted(values - paths):
                problem(doc, f"trace path '{value}' does not exist")
        fields = set(re.findall(r"\w+", re.sub(r"\([^)]*\)", "", row[1])))
        for name in names:
            if name not in events:
                problem(doc, f"tracepoint '{name}' does not exist")
                continue
            for field in sorted(fields - events[name]):
                problem(doc, f"{name} has no field '{field}'")
            for field in sorted(events[name] - fields):
                problem(doc, f"{name}'s field '{field}' is not listed")
    for name in sorted(set(events) - named):
        problem(doc, f"tracepoint '{name}' is not in the table")
    for value in sorted(paths - listed):
        problem(doc, f"trace path '{value}' is not listed")


def check_layout():
    """README's Layout names every source file of the module and tests."""
    text = read("README.md")
    for pattern in ["*.c", "*.h", "tests/*.c", "tests/*.h", "tests/*.sed"]:
        for path in sorted(glob.glob(os.path.join(TOP, pattern))):
            name = os.path.relpath(path, TOP)
            if f"`{name}`" not in text:
                problem("README.md", f"Layout does not name {name}")


check_layout()
for doc in DOCS:
    text = read(doc)
    check_make(doc, code(text))
    check_names(doc, text)
    check_params(doc, text)
    check_debugfs(doc, text)
    check_stats(doc, text)
    check_trace(doc, text)

for p in problems:
    print(p)
print(f"docs: {len(problems)} problem{'' if len(problems) == 1 else 's'}")
sys.exit(1 if problems else 0)
