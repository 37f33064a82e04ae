#!/usr/bin/env bash
# The CPU tables of BENCHMARKS.md: every benchmarked op on the fast CPU backend, one thread and
# all cores, with numpy on the same thread count in the same run, then the reference backend.
# One-thread rows are timed by process CPU time (MYRIAD_BENCH_CLOCK=cpu, numpy likewise), which
# other jobs on a shared machine do not inflate; all-core rows by the wall clock.
# Usage: scripts/bench-cpu.sh [out-dir]; then node scripts/bench-cpu-summary.mjs [out-dir]
set -euo pipefail
out=${1:-/tmp/myriad-bench-cpu}
mkdir -p "$out"
sizes=${SIZES:-2,4,8,16,32,64,128,256,512}
ops=${OPS:-gemm potrf posv getrf gesv potrs getrs trsm}
for op in $ops; do
  MYRIAD_BENCH_CLOCK=cpu MYRIAD_THREADS=1 node dist/src/cli.js bench "$op" --backend cpu --dtype both --sizes "$sizes" --format markdown --json "$out/$op-1t.json" > "$out/$op-1t.md"
  node dist/src/cli.js bench "$op" --backend cpu --dtype both --sizes "$sizes" --format markdown --json "$out/$op-all.json" > "$out/$op-all.md"
  MYRIAD_BENCH_CLOCK=cpu MYRIAD_THREADS=1 node dist/src/cli.js bench "$op" --backend reference --sizes "$sizes" --format markdown --json "$out/$op-ref.json" > "$out/$op-ref.md"
done
