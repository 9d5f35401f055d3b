#!/usr/bin/env python3
"""Checks the include structure of the ecs headers (python3, standard library only).

Usage (from anywhere):
  check_includes.py [--root DIR] [--max-world-lines N]
  check_includes.py --self-test

Scans every *.hpp under DIR (default: include/ecs next to this script's folder) and fails, exit
status 1, on:
  (a) a cycle in the include graph. Edges are the `#include "..."` lines that resolve, relative to
      the including file, to a header of the tree; each cycle is printed as a chain of file:line.
  (b) a late include: any `#include` (quoted or angled) after the first line of code of its file.
      Before it only a header comment, blank lines, comments and preprocessor lines (`#pragma once`,
      other includes, `#if`/`#define`/... with their continuation lines) may stand.
  (c) with --max-world-lines N: `class World` longer than N lines, counted from the line holding
      `class World` to the line closing its body (`};`), both included. A tree without `class World`
      fails too, since the limit could not be checked.
Exit status 0 when none of these holds, 2 on a usage error. --self-test runs the checker on small
synthetic trees in a temporary folder and exits 0 only if every verdict is the expected one.
"""
import argparse
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
CLASS_WORLD = re.compile(r'^\s*class\s+World\b(?!\s*;)')


def strip_comments_and_literals(text):
    """Returns `text` with comments and the contents of string/char literals replaced by spaces.

    Newlines are kept, so line numbers stay valid. A `'` inside a number (`1'000`) is a digit
    separator, not a character literal. Raw string literals are not used in the headers and are
    treated as ordinary strings.
    """
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ''
        if c == '/' and nxt == '/':
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif c == '/' and nxt == '*':
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c == '"' or (c == "'" and not _is_digit_separator(text, i)):
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(c + ' ' * max(0, j - i - 2) + (c if j - i >= 2 else ''))
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def _is_digit_separator(text, i):
    j = i
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_'"):
        j -= 1
    return j < i and text[j].isdigit()


class Header:
    def __init__(self, path, text):
        self.path = path
        self.raw_lines = text.split('\n')
        self.code_lines = strip_comments_and_literals(text).split('\n')
        self.includes = []  # (line number, include text, quoted?)
        self.first_code = None  # line number of the first line of code
        self.late = []  # (line number, include text)
        continued = False  # the previous line was a preprocessor line ending in a backslash
        for no, code in enumerate(self.code_lines, 1):
            raw = self.raw_lines[no - 1]
            stripped = code.strip()
            is_directive = continued or stripped.startswith('#')
            continued = is_directive and raw.rstrip().endswith('\\')
            m = INCLUDE.match(raw) if stripped.startswith('#') else None
            if m:
                self.includes.append((no, m.group(2), m.group(1) == '"'))
                if self.first_code is not None:
                    self.late.append((no, m.group(1) + m.group(2) + ('"' if m.group(1) == '"' else '>')))
            elif stripped and not is_directive and self.first_code is None:
                self.first_code = no


def read_tree(root):
    headers = {}
    for dirpath, dirnames, files in os.walk(root):
        dirnames.sort()
        for f in sorted(files):
            if f.endswith('.hpp'):
                path = os.path.normpath(os.path.join(dirpath, f))
                with open(path, encoding='utf-8', errors='replace') as fh:
                    headers[path] = Header(path, fh.read())
    return headers


def include_graph(headers):
    """path -> list of (target path, line number) for quoted includes resolving inside the tree."""
    graph = {}
    for path, h in headers.items():
        edges = []
        for no, inc, quoted in h.includes:
            if not quoted:
                continue
            target = os.path.normpath(os.path.join(os.path.dirname(path), inc))
            if target in headers:
                edges.append((target, no))
        graph[path] = edges
    return graph


def strongly_connected(graph):
    """Tarjan's algorithm, iterative. Components that hold a cycle, each sorted, in a stable order."""
    index, low, on_stack, stack, result = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            v, k = work.pop()
            if k == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
            edges = graph[v]
            if k < len(edges):
                work.append((v, k + 1))
                w = edges[k][0]
                if w not in index:
                    work.append((w, 0))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or any(t == v for t, _ in edges):
                    result.append(sorted(comp))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return sorted(result)


def one_cycle(graph, comp):
    """A shortest include chain from comp[0] back to itself inside the component: [(file, line, target)]."""
    members, start = set(comp), comp[0]
    previous = {start: None}
    queue = [start]
    for v in queue:
        for w, no in graph[v]:
            if w == start:
                chain = [(v, no, w)]
                while previous[v] is not None:
                    u, line = previous[v]
                    chain.append((u, line, v))
                    v = u
                return list(reversed(chain))
            if w in members and w not in previous:
                previous[w] = (v, no)
                queue.append(w)
    return []


def world_class_lines(headers):
    """(path, first line, last line) of `class World { ... };`, or None."""
    for path, h in headers.items():
        for i, code in enumerate(h.code_lines):
            if not CLASS_WORLD.match(code):
                continue
            depth, opened = 0, False
            for j in range(i, len(h.code_lines)):
                for ch in h.code_lines[j]:
                    if ch == '{':
                        depth += 1
                        opened = True
                    elif ch == '}':
                        depth -= 1
                    elif ch == ';' and not opened:
                        break  # a forward declaration after all
                else:
                    if opened and depth <= 0:
                        return path, i + 1, j + 1
                    continue
                break
    return None


def check(root, max_world_lines=None, out=sys.stdout):
    """Runs the checks on the tree under `root`, printing findings to `out`. Returns the exit status."""
    if not os.path.isdir(root):
        print('check_includes: %s is not a folder' % root, file=out)
        return 2
    base = os.path.dirname(os.path.abspath(root).rstrip(os.sep))
    base = os.path.dirname(base) if os.path.basename(base) == 'include' else base

    def rel(p):
        return os.path.relpath(os.path.abspath(p), base)

    headers = read_tree(root)
    graph = include_graph(headers)
    problems = 0

    for comp in strongly_connected(graph):
        problems += 1
        print('include cycle among %d headers: %s' % (len(comp), ', '.join(rel(p) for p in comp)), file=out)
        for path, no, target in one_cycle(graph, comp):
            print('    %s:%d includes %s' % (rel(path), no, rel(target)), file=out)

    for path in sorted(headers):
        h = headers[path]
        for no, inc in h.late:
            problems += 1
            print('late include: %s:%d includes %s after code (first code at line %d)'
                  % (rel(path), no, inc, h.first_code), file=out)

    if max_world_lines is not None:
        found = world_class_lines(headers)
        if found is None:
            problems += 1
            print('class World: not found under %s (--max-world-lines %d cannot be checked)'
                  % (rel(root), max_world_lines), file=out)
        else:
            path, first, last = found
            length = last - first + 1
            verdict = 'too long' if length > max_world_lines else 'ok'
            print('class World: %d lines (%s:%d-%d), limit %d: %s'
                  % (length, rel(path), first, last, max_world_lines, verdict), file=out)
            if length > max_world_lines:
                problems += 1

    if problems:
        print('check_includes: %d problem(s) in %d headers under %s' % (problems, len(headers), rel(root)), file=out)
        return 1
    print('check_includes: no include cycle, no late include (%d headers under %s)' % (len(headers), rel(root)),
          file=out)
    return 0


# ---- Self-test: synthetic trees with known verdicts ----

HEADER = '/**\n * @file %s\n * @brief A test header.\n */\n#pragma once\n\n'


def _world(lines):
    body = ''.join('    int m%d = 0;\n' % k for k in range(lines - 3))
    return 'namespace ecs {\nclass World {\npublic:\n%s};\n} // namespace ecs\n' % body


SELF_TESTS = [
    # (name, {relative path: text}, extra arguments, expected status, text every finding must show)
    ('clean tree', {
        'ecs/ecs.hpp': HEADER % 'ecs/ecs.hpp' + '#include "world.hpp"\n#include "detail/a.hpp"\n',
        'ecs/world.hpp': HEADER % 'ecs/world.hpp' + '#include "detail/a.hpp"\n\n#include <vector>\n'
                         '#if defined(X) && \\\n    defined(Y)\n#  include <atomic>\n#endif\n'
                         '// a comment between includes\n/* and a block\n   comment */\n#include "config.hpp"\n'
                         + _world(10),
        'ecs/config.hpp': HEADER % 'ecs/config.hpp' + '#define ECS_LONG_MACRO(x) \\\n    do { (x); } while (0)\n'
                          'inline const char* s = "#include \\"world.hpp\\""; // not an include\n',
        'ecs/detail/a.hpp': HEADER % 'ecs/detail/a.hpp' + '#include "../config.hpp"\n'
                            'namespace ecs::detail {\n/* #include "../world.hpp" */\n}\n',
    }, ['--max-world-lines', '10'], 0, []),
    ('two-file cycle', {
        'ecs/a.hpp': HEADER % 'ecs/a.hpp' + '#include "b.hpp"\n',
        'ecs/b.hpp': HEADER % 'ecs/b.hpp' + '#include "a.hpp"\n',
    }, [], 1, ['include cycle among 2 headers', 'include/ecs/a.hpp:7 includes include/ecs/b.hpp', 'include/ecs/b.hpp:7 includes include/ecs/a.hpp']),
    ('cycle through a subfolder', {
        'ecs/world.hpp': HEADER % 'ecs/world.hpp' + '#include "detail/ops.hpp"\n',
        'ecs/detail/ops.hpp': HEADER % 'ecs/detail/ops.hpp' + '#include "more.hpp"\n',
        'ecs/detail/more.hpp': HEADER % 'ecs/detail/more.hpp' + '#include "../world.hpp"\n',
    }, [], 1, ['include cycle among 3 headers', 'include/ecs/detail/more.hpp:7 includes include/ecs/world.hpp']),
    ('self include', {
        'ecs/a.hpp': HEADER % 'ecs/a.hpp' + '#include "a.hpp"\n',
    }, [], 1, ['include cycle among 1 headers', 'include/ecs/a.hpp:7 includes include/ecs/a.hpp']),
    ('late include after a namespace', {
        'ecs/a.hpp': HEADER % 'ecs/a.hpp' + '#include <cstddef>\nnamespace ecs {\nstruct A {};\n}\n'
                     '#include "b.hpp"\n',
        'ecs/b.hpp': HEADER % 'ecs/b.hpp',
    }, [], 1, ['late include: include/ecs/a.hpp:11 includes "b.hpp" after code (first code at line 8)']),
    ('late angled include after a forward declaration', {
        'ecs/a.hpp': HEADER % 'ecs/a.hpp' + 'namespace ecs { class World; }\n#include <vector>\n',
    }, [], 1, ['late include: include/ecs/a.hpp:8 includes <vector> after code (first code at line 7)']),
    ('World over the limit', {
        'ecs/world.hpp': HEADER % 'ecs/world.hpp' + _world(12),
    }, ['--max-world-lines', '11'], 1, ['class World: 12 lines (include/ecs/world.hpp:8-19), limit 11: too long']),
    ('World at the limit', {
        'ecs/world.hpp': HEADER % 'ecs/world.hpp' + 'namespace ecs {\nclass World;\n}\n' + _world(12),
    }, ['--max-world-lines', '12'], 0, ['class World: 12 lines (include/ecs/world.hpp:11-22), limit 12: ok']),
    ('no World to measure', {
        'ecs/a.hpp': HEADER % 'ecs/a.hpp',
    }, ['--max-world-lines', '600'], 1, ['class World: not found']),
]


def self_test():
    import io
    failures = 0
    with tempfile.TemporaryDirectory(prefix='check_includes_') as tmp:
        for k, (name, files, extra, expected, needles) in enumerate(SELF_TESTS):
            project = os.path.join(tmp, 'case%d' % k)
            for rel_path, text in files.items():
                path = os.path.join(project, 'include', rel_path)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, 'w', encoding='utf-8') as fh:
                    fh.write(text)
            args = parse_args(['--root', os.path.join(project, 'include', 'ecs')] + extra)
            out = io.StringIO()
            status = check(args.root, args.max_world_lines, out)
            text = out.getvalue()
            missing = [s for s in needles if s not in text]
            ok = status == expected and not missing
            failures += 0 if ok else 1
            print('%s: %s (exit %d, expected %d)' % ('ok  ' if ok else 'FAIL', name, status, expected))
            if not ok:
                for s in missing:
                    print('      missing from the output: %r' % s)
                print('      output:\n' + ''.join('        ' + line + '\n' for line in text.splitlines()))
    print('check_includes self-test: %d of %d cases as expected' % (len(SELF_TESTS) - failures, len(SELF_TESTS)))
    return 1 if failures else 0


def parse_args(argv):
    default_root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'include', 'ecs')
    p = argparse.ArgumentParser(description='Checks the ecs headers for include cycles, late includes and '
                                            'the length of class World.')
    p.add_argument('--root', default=default_root, help='folder of headers to scan (default: %(default)s)')
    p.add_argument('--max-world-lines', type=int, metavar='N', help='fail when class World is longer than N lines')
    p.add_argument('--self-test', action='store_true', help='check the checker on synthetic trees')
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    if args.self_test:
        return self_test()
    return check(args.root, args.max_world_lines)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
