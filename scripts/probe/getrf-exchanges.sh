#!/usr/bin/env bash
# One call on the GPU machine that measures and checks the spread
# leaf's cluster exchanges (pull, push, signal) and the fused search, in both dtypes, then runs the
# GPU tests that force each of them. Every step under `timeout -s KILL` (a process inside NVRTC
# ignores SIGTERM), its output kept under $OUT. On the GPU machine:
#   bash scripts/probe/getrf-exchanges.sh
source .device/boot.sh
out=${OUT:-/tmp}
# The compiled-module cache is written under $OUT: bring it back as .kcache in the working tree
# (beside .device and dist) so that the next run loads instead of compiling (its keys hold the
# NVRTC and driver versions: a different machine recompiles, never misloads).
if [ -d .kcache ]; then mkdir -p "$out/kcache" && cp -r .kcache/. "$out/kcache/"; fi
export MYRIAD_CACHE_DIR="$out/kcache"
step() { local name=$1 limit=$2; shift 2; local s=$(date +%s); timeout -s KILL "$limit" "$@" > "$out/$name.txt" 2>&1; echo "[$name] rc $? in $(( $(date +%s) - s )) s"; }
VARIANTS=c16t512,c16t512push,c16t512signal,c16t512fs,c16t512pushfs,c16t512signalfs,32,32fs
M=1024,2048,4096 DTYPE=float64 BLOCKS=$VARIANTS step leaf-f64 150 node scripts/probe/getrf-spread.mjs; cat "$out/leaf-f64.txt"
M=1024,4096,8192 DTYPE=float32 BLOCKS=$VARIANTS step leaf-f32 150 node scripts/probe/getrf-spread.mjs; cat "$out/leaf-f32.txt"
step spread-test 240 node dist/test/gpu/getrf-spread.test.js; grep -E "^(not )?ok|^# (pass|fail)" "$out/spread-test.txt"
N=2048,4096,8192 DTYPE=float64 PATHS="default" step lu-f64 200 node scripts/probe/getrf-blocked.mjs; cat "$out/lu-f64.txt"
