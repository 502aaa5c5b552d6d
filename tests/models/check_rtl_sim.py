#!/usr/bin/python3
"""Runs `dcw rtl-sim` (C/RTL co-simulation with Verilator) on every model of a folder and checks, per
model: the run succeeds; every kernel is simulated as RTL (a csim_only_* model: none, with the reason
named); the RTL outputs equal the C-simulation's on every element; and each kernel's cycle estimate
is within --tolerance (default 10%) of the cycles Verilator measured. On the first model, also
`dcw profile --target fpga-sim --rtl`: its report must carry the same measured cycles. Prints each
report, then one line per kernel: model, kernel, measured, estimate, difference.

usage: check_rtl_sim.py DCW MODEL_DIR [--tolerance PERCENT]
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dcw")
    ap.add_argument("models")
    ap.add_argument("--tolerance", type=float, default=10.0)
    a = ap.parse_args()
    models = sorted(glob.glob(os.path.join(a.models, "*.onnx")))
    if not models:
        print(f"error: no .onnx models in {a.models}", file=sys.stderr)
        return 1
    failures, rows = [], []
    for m in models:
        name = os.path.basename(m)[:-5]
        r = subprocess.run([a.dcw, "rtl-sim", m], capture_output=True, text=True, timeout=900)
        print(f"== {name} (exit {r.returncode})\n{r.stdout}{r.stderr}", end="")
        if r.returncode != 0:
            failures.append(f"{name}: dcw rtl-sim exited {r.returncode}")
            continue
        head = re.search(r"(\d+) of (\d+) kernels as RTL", r.stdout)
        if not head:
            failures.append(f"{name}: no report")
            continue
        rtl, total = int(head.group(1)), int(head.group(2))
        if name.startswith("csim_only_"):
            if rtl != 0 or "C-simulation only — " not in r.stdout:
                failures.append(f"{name}: expected every kernel in C-simulation with a reason")
            continue
        if rtl != total or total == 0:
            failures.append(f"{name}: {rtl} of {total} kernels as RTL, expected all")
        if not re.search(r"outputs: RTL equals C-simulation on all \d+ elements", r.stdout):
            failures.append(f"{name}: the RTL outputs differ from C-simulation")
        for k, measured, estimate in re.findall(r"^  (kernel_\S+)\s+(\d+)\s+(\d+)\s+[-+]", r.stdout, re.M):
            measured, estimate = int(measured), int(estimate)
            diff = 100.0 * (estimate - measured) / measured
            rows.append((name, k, measured, estimate, diff))
            if abs(diff) > a.tolerance:
                failures.append(f"{name}/{k}: estimate {estimate} vs measured {measured} ({diff:+.1f}%)")
    # The profile's FPGA section measures the same kernels the same way.
    if rows:
        name, k, measured, _, _ = rows[0]
        out = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"dcw-rtl-profile-{os.getpid()}.json")
        r = subprocess.run([a.dcw, "profile", os.path.join(a.models, name + ".onnx"), "--target", "fpga-sim", "--rtl", "--repeat", "2",
                            "--no-peaks", "--report", out], capture_output=True, text=True, timeout=900)
        print(f"== profile --rtl {name} (exit {r.returncode})\n{r.stdout}{r.stderr}", end="")
        if r.returncode != 0:
            failures.append(f"{name}: dcw profile --rtl exited {r.returncode}")
        else:
            with open(out) as f:
                fpga = json.load(f)["fpga"]
            os.remove(out)
            got = [x.get("measured_cycles") for x in fpga["kernels"]]
            if got != [measured] or "1 of 1 kernels measured" not in fpga.get("measurement", ""):
                failures.append(f"{name}: the profile's measured cycles {got} are not rtl-sim's [{measured}]")
    print("\nestimate vs Verilator-measured cycles per kernel:")
    for name, k, measured, estimate, diff in rows:
        print(f"  {name:28s} {k:16s} measured {measured:7d}  estimate {estimate:7d}  {diff:+.1f}%")
    if len(rows) < 5:
        failures.append(f"only {len(rows)} kernels measured; the check needs at least 5")
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
