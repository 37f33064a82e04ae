#!/usr/bin/env bash
# Runs on the GPU machine (see ../shared/device/README.md): the GPU test suites, then benchmarks
# against the vendor libraries. Usage there: source .device/boot.sh && scripts/gpu-check.sh [what]
#   what: tests | bench | all (default all). Logs and JSON go to $OUT (or ./out).
set -uo pipefail
out=${OUT:-out}; mkdir -p "$out"
what=${1:-all}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/card.txt"
status=0
if [ "$what" = tests ] || [ "$what" = all ]; then
  node --test --test-reporter=spec dist/test/gpu/ 2>&1 | tee "$out/gpu-tests.log" | grep -E '^(not ok|# (pass|fail|skipped))|✖' ; status=${PIPESTATUS[0]}
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  for op in gemm potrf getrf posv gesv; do
    sizes=2,4,8,16,32,64,128,256; [ "$op" != gemm ] && sizes=2,4,8,16,32,64,128,256,512
    node dist/src/cli.js bench $op --backend cuda --dtype both --sizes $sizes --json "$out/bench-$op.json" 2>>"$out/bench.err"
  done
fi
exit $status
