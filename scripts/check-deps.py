#!/usr/bin/env python3
"""Checks that a fresh Debian 12 machine gets every package the build used.

Why: `scripts/setup-deps.sh` installs its list with `--no-install-recommends`, as a fresh machine
would; a developer machine that happens to have more packages builds fine while a newcomer's fails
at configure (this happened with libqt6opengl6-dev, pulled in only by a Recommends of qt6-base-dev).

What: collects every file CMake and the compilers used for the build in BUILD_DIR (the CMake files
read at configure, the headers in ninja's dependency log, the libraries on link lines, the compilers),
finds the Debian package that owns each one, and checks that package is in the closure of the
packages `setup-deps.sh` installs, following Depends and Pre-Depends only (no Recommends), plus the
packages every minimal Debian root has (Priority: required, and apt). Files outside Debian's packages
(the project itself, /usr/local such as the optional CUDA toolkit) are not checked.

Exit 0 when all is covered; 1 naming each missing package and a file that needed it; 2 on bad use.
Usage: scripts/check-deps.py BUILD_DIR [--packages "p1 p2 ..."] [--without PKG]  (default list: setup-deps.sh --list)
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read_status():
    """Installed packages: name -> dict(depends, provides, priority)."""
    pkgs = {}
    with open("/var/lib/dpkg/status", encoding="utf-8", errors="replace") as f:
        for block in f.read().split("\n\n"):
            fields, key = {}, None
            for line in block.splitlines():
                if line.startswith((" ", "\t")) and key:
                    fields[key] += " " + line.strip()
                elif ":" in line:
                    key, _, value = line.partition(":")
                    fields[key] = value.strip()
            name = fields.get("Package")
            if not name or "install ok installed" not in fields.get("Status", ""):
                continue
            deps = ", ".join(x for x in (fields.get("Pre-Depends", ""), fields.get("Depends", "")) if x)
            pkgs[name] = {
                "depends": parse_relation(deps),
                "provides": [alt[0] for alt in parse_relation(fields.get("Provides", ""))],
                "priority": fields.get("Priority", ""),
            }
    return pkgs


def parse_relation(text):
    """'a (>= 1) | b, c:any' -> [['a', 'b'], ['c']]"""
    groups = []
    for group in text.split(","):
        alts = []
        for alt in group.split("|"):
            name = re.sub(r"\(.*?\)|\[.*?\]|<.*?>", "", alt).strip()
            name = name.split(":")[0]
            if name:
                alts.append(name)
        if alts:
            groups.append(alts)
    return groups


def closure(roots, pkgs):
    """Packages apt installs for roots with --no-install-recommends (first alternative of each group,
    unless another alternative is already chosen; a virtual package brings its installed providers)."""
    providers = {}
    for name, info in pkgs.items():
        for virtual in info["provides"]:
            providers.setdefault(virtual, []).append(name)
    chosen, todo = set(), list(roots)

    def expand(name):
        if name in pkgs or name not in providers:
            return [name]
        return providers[name]

    while todo:
        name = todo.pop()
        for real in expand(name):
            if real in chosen:
                continue
            chosen.add(real)
            for group in pkgs.get(real, {}).get("depends", []):
                already = [a for a in group if a in chosen or any(p in chosen for p in providers.get(a, []))]
                if not already:
                    todo.append(group[0])
    return chosen


def file_owners():
    """path -> package, from dpkg's file lists (much faster than one dpkg -S per file)."""
    owners = {}
    for lst in glob.glob("/var/lib/dpkg/info/*.list"):
        pkg = os.path.basename(lst)[:-5].split(":")[0]
        with open(lst, encoding="utf-8", errors="replace") as f:
            for line in f:
                owners.setdefault(line.rstrip("\n"), pkg)
    return owners


def owner_of(path, owners):
    candidates = [path, os.path.realpath(path)]
    for p in list(candidates):  # merged /usr: dpkg may record /lib/... for /usr/lib/... and back
        if p.startswith("/usr/lib/") or p.startswith("/usr/bin/") or p.startswith("/usr/sbin/"):
            candidates.append(p[4:])
        elif p.startswith(("/lib/", "/bin/", "/sbin/", "/lib64/")):
            candidates.append("/usr" + p)
    for p in candidates:
        if p in owners:
            return owners[p]
    return None


def used_files(build):
    """Absolute paths the build read: CMake files, headers, libraries, compilers."""
    files = set()
    ninja_file = os.path.join(build, "build.ninja")
    if not os.path.exists(ninja_file):
        sys.exit(f"error: {build}: no build.ninja; configure with scripts/build.sh first")
    with open(ninja_file, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("build build.ninja: RERUN_CMAKE"):
                files.update(t for t in line.split() if t.startswith("/"))
            elif line.strip().startswith("LINK_LIBRARIES ="):
                for tok in line.split("=", 1)[1].split():
                    if tok.startswith("/"):
                        files.add(tok)
                    elif tok.startswith("-l") and len(tok) > 2:
                        found = subprocess.run(["c++", f"-print-file-name=lib{tok[2:]}.so"],
                                               capture_output=True, text=True).stdout.strip()
                        if found.startswith("/"):
                            files.add(found)
    deps = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True, text=True)
    for line in deps.stdout.splitlines():
        if line.startswith("    /"):
            files.add(line.strip())
    cache = os.path.join(build, "CMakeCache.txt")
    with open(cache, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"CMAKE_(?:CXX|C)_COMPILER:\w+=(/\S+)", line)
            if m:
                files.add(m.group(1))
    for tool in ("cmake", "ninja"):
        path = shutil.which(tool)
        if path:
            files.add(path)
    root = os.path.dirname(HERE)
    return sorted(p for p in files
                  if not p.startswith((root + "/", os.path.abspath(build) + "/", "/usr/local/", "/tmp/")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--packages", help="space-separated package list (default: setup-deps.sh --list)")
    ap.add_argument("--without", action="append", default=[],
                    help="drop this package from the list (to test that the check names it)")
    args = ap.parse_args()
    if args.packages is not None:
        roots = args.packages.split()
    else:
        out = subprocess.run(["bash", os.path.join(HERE, "setup-deps.sh"), "--list"],
                             capture_output=True, text=True, check=True).stdout
        roots = out.split()
    roots = [r for r in roots if r not in args.without]
    pkgs = read_status()
    base = {n for n, i in pkgs.items() if i["priority"] == "required"} | {"apt"}
    have = closure(set(roots) | base, pkgs)
    owners = file_owners()
    missing, unowned, checked = {}, [], 0
    for path in used_files(args.build):
        pkg = owner_of(path, owners)
        if pkg is None:
            unowned.append(path)
            continue
        checked += 1
        if pkg not in have:
            missing.setdefault(pkg, []).append(path)
    for path in unowned:
        print(f"note: {path}: not from a Debian package; not checked")
    if missing:
        for pkg, paths in sorted(missing.items()):
            more = f" (and {len(paths) - 1} more files)" if len(paths) > 1 else ""
            print(f"error: package {pkg} is used by the build ({paths[0]}{more}) but a fresh machine "
                  f"does not get it from scripts/setup-deps.sh; add it to the list there")
        return 1
    print(f"dependency closure: {checked} files used by the build, all from packages that "
          f"scripts/setup-deps.sh installs ({len(roots)} listed, {len(have)} with their Depends)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
