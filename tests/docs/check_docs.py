#!/usr/bin/env python3
"""Checks that the user documentation stays what it promises to be (ctest, two modes).

  check_docs.py catalogue DCW SOURCE_DIR
      docs/transformations.md is exactly what `DCW transforms --markdown` prints now: the reference is
      generated from the transformation registry, so a changed transformation must regenerate it.
  check_docs.py rules SOURCE_DIR
      README.md has at most 300 lines and names scripts/run.sh and scripts/test.sh in its first 60;
      the README's tour is docs/tour.md word for word (the app shows that file under Help > Tour);
      README.md and docs/*.md name no issue numbers, no sessions, nothing "in progress" and no path
      outside the repository (../shared).

Each failure is one line `error: FILE[:LINE]: what is wrong; what to do`, and the exit status is 1.
"""
import difflib
import glob
import os
import re
import subprocess
import sys

README_MAX_LINES = 300
COMMANDS_WITHIN = 60
FORBIDDEN = [
    (re.compile(r"\bissues? #?[0-9]", re.I), "names an issue number", "say what the feature does instead"),
    (re.compile(r"\bsessions?\b", re.I), "says 'session'", "describe the work or the measurement, not who did it when"),
    (re.compile(r"\bin[ -]progress\b", re.I), "says 'in progress'", "say what works and what does not yet"),
    (re.compile(r"\.\./shared"), "names a path outside the repository (../shared)", "describe the tool (e.g. ONNX Runtime from the npm registry)"),
]


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def check_catalogue(dcw, src):
    doc = os.path.join(src, "docs", "transformations.md")
    run = subprocess.run([dcw, "transforms", "--markdown"], capture_output=True, text=True)
    if run.returncode != 0:
        return [f"error: {dcw} transforms --markdown: exit {run.returncode}: {run.stderr.strip()}"]
    want = run.stdout
    have = read(doc) if os.path.exists(doc) else ""
    if have == want:
        print(f"{doc}: matches `dcw transforms --markdown`")
        return []
    diff = difflib.unified_diff(have.splitlines(), want.splitlines(), "docs/transformations.md (committed)",
                                "dcw transforms --markdown (now)", lineterm="", n=1)
    for line in list(diff)[:40]:
        print(line)
    return [f"error: {doc}: differs from what the transformation registry generates; regenerate it with "
            f"`build/app/dcw transforms --markdown > docs/transformations.md`"]


def check_rules(src):
    errors = []
    readme_path = os.path.join(src, "README.md")
    readme = read(readme_path)
    lines = readme.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) > README_MAX_LINES:
        errors.append(f"error: {readme_path}: {len(lines)} lines, more than {README_MAX_LINES}; move reference text into docs/")
    head = "\n".join(lines[:COMMANDS_WITHIN])
    for command in ("scripts/run.sh", "scripts/test.sh"):
        if command not in head:
            errors.append(f"error: {readme_path}: `{command}` is not in the first {COMMANDS_WITHIN} lines; "
                          f"the two commands come first")

    tour_path = os.path.join(src, "docs", "tour.md")
    tour = read(tour_path) if os.path.exists(tour_path) else ""
    if not tour.strip():
        errors.append(f"error: {tour_path}: missing or empty; it holds the tour the README and Help > Tour show")
    elif tour.strip("\n") not in readme:
        # Say where the two part: the first line of the tour the README does not have in that place.
        at = readme.find(tour.split("\n", 1)[0])
        where = "the README lacks its first line"
        if at >= 0:
            mine = readme[at:].split("\n")
            for i, line in enumerate(tour.strip("\n").split("\n")):
                if i >= len(mine) or mine[i] != line:
                    where = f"they differ at the tour's line {i + 1}: {line[:60]!r}"
                    break
        errors.append(f"error: {readme_path}: its tour is not docs/tour.md word for word ({where}); "
                      f"edit docs/tour.md and copy it into the README")

    for path in [readme_path] + sorted(glob.glob(os.path.join(src, "docs", "*.md"))):
        for number, line in enumerate(read(path).split("\n"), 1):
            for pattern, what, fix in FORBIDDEN:
                if pattern.search(line):
                    errors.append(f"error: {path}:{number}: {what}; {fix}")
    if not errors:
        print(f"{readme_path}: {len(lines)} lines, the two commands in the first {COMMANDS_WITHIN}, the tour is docs/tour.md; "
              f"README.md and docs/*.md follow the rules")
    return errors


def main(argv):
    if len(argv) == 4 and argv[1] == "catalogue":
        errors = check_catalogue(argv[2], argv[3])
    elif len(argv) == 3 and argv[1] == "rules":
        errors = check_rules(argv[2])
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
