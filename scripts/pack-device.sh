#!/usr/bin/env bash
# Packs .device/ (Node and the production dependencies) for the GPU machine with the workspace's
# packer, then drops koffi's builds
# for other platforms so that the working tree plus .device stays well under the 64 MiB limit.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
"$root/../shared/device/pack"
find "$root/.device/node_modules/koffi/build/koffi" -mindepth 1 -maxdepth 1 ! -name linux_x64 -exec rm -rf {} +
rm -rf "$root/.device/node_modules/koffi/src" "$root/.device/node_modules/koffi/doc" 2>/dev/null || true
# The GPU tests' one dependency beyond production (the contract property tests): fast-check and its own.
for dep in fast-check pure-rand; do cp -r "$root/node_modules/$dep" "$root/.device/node_modules/$dep"; done
du -sh "$root/.device" >&2
