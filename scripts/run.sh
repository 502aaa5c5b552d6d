#!/usr/bin/env bash
# The main job: installs what is missing, builds, and opens the bundled example model —
# `dcw inspect` in the terminal, then the desktop app when a display is available.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-deps.sh
scripts/build.sh
model=resources/examples/tiny_resnet.onnx
./build/app/dcw inspect "$model"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x build/app/dcw-gui ]; then
  exec ./build/app/dcw-gui "$model"
else
  echo "(no display: skipped dcw-gui; run 'build/app/dcw-gui $model' on a desktop)"
fi
