#!/usr/bin/env python3
"""Counts in the Rust sources outside tests: functions longer than a limit, and
`.unwrap(`/`.expect(` calls.

Usage: .ci/code_stats.py [--over N]... [--list N] [--calls] [DIR]
       .ci/code_stats.py --check
  --over N   count the functions longer than N lines (repeatable; default 60 and 100)
  --list N   list the functions longer than N lines, longest first
  --calls    list every `.unwrap(` and `.expect(` call outside tests
  DIR        the tree to read (default: src)
  --check    enforce the rules (CI runs this): no function over 100 lines in the
             Rust code outside `patches/` (src, tests, benches, examples) and no
             Rust, Python or shell file over 600 lines; exit 1 naming each breach

A function's length runs from the line of its `fn` keyword to the line of its
closing brace. Tests are what `#[cfg(test)]` or `#[test]` marks (the item after
the attribute: a `mod tests { … }`, a helper) and any file named `tests.rs`.
Comments, strings and char literals are skipped, so a `.expect(` in a doc
comment does not count.
"""

import os
import re
import sys


TEST_FILES = set()  # files declared by `#[cfg(test)] mod name;`


def tokens(text):
    """(kind, value, line) for each token that matters: words, punctuation."""
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += text[i] == "\n"
                    i += 1
        else:
            m = re.compile(r'b?r(#*)"').match(text, i)
            if m:
                end = '"' + m.group(1)
                j = text.find(end, m.end())
                j = n if j < 0 else j + len(end)
                line += text.count("\n", i, j)
                i = j
                continue
            if c == '"' or text.startswith('b"', i):
                j = i + (2 if c == "b" else 1)
                while j < n and text[j] != '"':
                    j += 2 if text[j] == "\\" else 1
                line += text.count("\n", i, j + 1)
                i = j + 1
                continue
            if c == "'" or text.startswith("b'", i):
                m = re.compile(r"b?'(\\.[^']*|[^\\'])'").match(text, i)
                if m:  # a char literal; otherwise a lifetime
                    i = m.end()
                    continue
                i += 1
                continue
            m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*").match(text, i)
            if m:
                yield ("word", m.group(0), line)
                i = m.end()
                continue
            yield ("punct", c, line)
            i += 1


def scan(path):
    """(functions [(name, start, end, length)], calls [(line, what)]) outside tests."""
    text = open(path, encoding="utf-8").read()
    toks = list(tokens(text))
    functions, calls = [], []
    test_ranges = []  # [start index, end index] of test items
    k = 0
    # Test items: the item after #[cfg(test)] / #[test].
    while k < len(toks):
        if toks[k][1] == "#" and k + 1 < len(toks) and toks[k + 1][1] == "[":
            j = k + 2
            words = []
            depth = 1
            while j < len(toks) and depth:
                if toks[j][1] == "[":
                    depth += 1
                elif toks[j][1] == "]":
                    depth -= 1
                elif toks[j][0] == "word":
                    words.append(toks[j][1])
                j += 1
            if words in (["cfg", "test"], ["test"]) or words[:2] == ["tokio", "test"]:
                end = item_end(toks, j)
                test_ranges.append((k, end))
                k = end + 1
                continue
            k = j
            continue
        k += 1
    in_test = [False] * len(toks)
    for a, b in test_ranges:
        for x in range(a, min(b + 1, len(toks))):
            in_test[x] = True
    if os.path.basename(path) == "tests.rs" or path in TEST_FILES:
        in_test = [True] * len(toks)
    for a, b in test_ranges:  # `#[cfg(test)] mod name;`: that file is a test
        words = [t[1] for t in toks[a:b + 1] if t[0] == "word"]
        if "mod" in words and toks[b][1] == ";":
            name = words[words.index("mod") + 1]
            here = os.path.dirname(path)
            if os.path.basename(path) not in ("mod.rs", "lib.rs", "main.rs"):
                here = os.path.join(here, os.path.basename(path)[:-3])
            TEST_FILES.add(os.path.join(here, name + ".rs"))
            TEST_FILES.add(os.path.join(here, name, "mod.rs"))
    for k, (kind, value, line) in enumerate(toks):
        if in_test[k]:
            continue
        if kind == "word" and value in ("unwrap", "expect") and k > 0 and toks[k - 1][1] == "." \
                and k + 1 < len(toks) and toks[k + 1][1] == "(":
            calls.append((line, value))
        if kind == "word" and value == "fn" and k + 1 < len(toks) and toks[k + 1][0] == "word":
            body = body_start(toks, k + 2)
            if body is None:
                continue
            end = match_brace(toks, body)
            start_line, end_line = line, toks[end][2]
            functions.append((toks[k + 1][1], start_line, end_line, end_line - start_line + 1))
    return functions, calls


def head_end(toks, k):
    """The index of the first `{` or `;` at depth 0 from k (an item's body or end), None if none."""
    depth = 0
    while k < len(toks):
        v = toks[k][1]
        if v in "([":
            depth += 1
        elif v in ")]":
            depth -= 1
        elif depth == 0 and v in ";{":
            return k
        k += 1
    return None


def body_start(toks, k):
    """The index of the `{` opening a function body, None for a declaration."""
    end = head_end(toks, k)
    return end if end is not None and toks[end][1] == "{" else None


def match_brace(toks, k):
    depth = 0
    while k < len(toks):
        v = toks[k][1]
        if v == "{":
            depth += 1
        elif v == "}":
            depth -= 1
            if depth == 0:
                return k
        k += 1
    return len(toks) - 1


def item_end(toks, k):
    """The last index of the item starting at k (further attributes included)."""
    end = head_end(toks, k)
    if end is None:
        return len(toks) - 1
    return match_brace(toks, end) if toks[end][1] == "{" else end


# The rules --check enforces.
MAX_FUNCTION_LINES = 100
MAX_FILE_LINES = 600
CHECKED_TREES = ["src", "tests", "benches", "examples", ".ci"]
CODE_SUFFIXES = (".rs", ".py", ".sh")
# Functions over the limit when the rule came in, with their length then. A
# length here may only shrink: --check fails when one grows, and asks for the
# entry to go once its function is within the limit. Each builds test data
# line by line, which reads better as one piece than cut into helpers.
FUNCTION_ALLOWLIST = {
    ("tests/suite/results_schema/document.rs", "full_document"): 249,  # every field of eval_results.json, once
    ("benches/support/synthetic_trace.rs", "write_trace_with"): 108,  # a synthetic trace, event by event
}
# Files over the limit when the rule came in (none): same rule as above.
FILE_ALLOWLIST = {}


def check():
    """The rules, over the checked trees; the breaches, one line each."""
    breaches, seen = [], set()
    paths = sorted(
        os.path.join(d, f)
        for root in CHECKED_TREES if os.path.isdir(root)
        for d, _, fs in os.walk(root) for f in fs if f.endswith(CODE_SUFFIXES)
    )
    rust = [p for p in paths if p.endswith(".rs")]
    for p in rust:  # the first pass finds the files `#[cfg(test)] mod name;` declares
        scan(p)
    for p in rust:
        for name, start, _, length in scan(p)[0]:
            allowed = FUNCTION_ALLOWLIST.get((p, name))
            if allowed is not None:
                seen.add((p, name))
            limit = max(MAX_FUNCTION_LINES, allowed or 0)
            if length > limit:
                breaches.append(f"{p}:{start} fn {name} is {length} lines (limit {limit})")
            elif allowed is not None and length <= MAX_FUNCTION_LINES:
                breaches.append(f"{p}:{start} fn {name} is {length} lines now: drop it from FUNCTION_ALLOWLIST")
            elif allowed is not None and length < allowed:
                breaches.append(f"{p}:{start} fn {name} shrank to {length} lines: lower its FUNCTION_ALLOWLIST entry")
    for key in FUNCTION_ALLOWLIST.keys() - seen:
        breaches.append(f"{key[0]} fn {key[1]} is gone: drop it from FUNCTION_ALLOWLIST")
    for p in paths:
        with open(p, encoding="utf-8") as f:
            lines = sum(1 for _ in f)
        limit = max(MAX_FILE_LINES, FILE_ALLOWLIST.get(p, 0))
        if lines > limit:
            breaches.append(f"{p} is {lines} lines (limit {limit})")
    return breaches


def main(argv):
    if argv == ["--check"]:
        breaches = check()
        for line in breaches:
            print(line)
        print(f"code_stats --check: {len(breaches)} breach(es) of {MAX_FUNCTION_LINES} lines a function, "
              f"{MAX_FILE_LINES} a file")
        sys.exit(1 if breaches else 0)
    overs, listing, show_calls, root = [], None, False, "src"
    args = iter(argv)
    for a in args:
        if a == "--over":
            overs.append(int(next(args)))
        elif a == "--list":
            listing = int(next(args))
        elif a == "--calls":
            show_calls = True
        else:
            root = a
    overs = overs or [60, 100]
    paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".rs"))
    for p in paths:  # the first pass finds the files `#[cfg(test)] mod name;` declares
        scan(p)
    functions, calls = [], []
    for p in paths:
        fs, cs = scan(p)
        functions += [(p,) + x for x in fs]
        calls += [(p,) + x for x in cs]
    for limit in overs:
        print(f"functions over {limit} lines: {sum(1 for f in functions if f[4] > limit)}")
    print(f"`.expect(` outside tests: {sum(1 for c in calls if c[2] == 'expect')}")
    print(f"`.unwrap(` outside tests: {sum(1 for c in calls if c[2] == 'unwrap')}")
    if listing is not None:
        for p, name, a, b, length in sorted(functions, key=lambda f: -f[4]):
            if length > listing:
                print(f"{length:5} {p}:{a} {name}")
    if show_calls:
        for p, line, what in calls:
            print(f"{p}:{line} {what}")


if __name__ == "__main__":
    main(sys.argv[1:])
