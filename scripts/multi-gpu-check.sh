#!/usr/bin/env bash
# Several GPUs behind one context, in one call on the GPU machine:
#   source .device/boot.sh && scripts/multi-gpu-check.sh
# 1. the multi-GPU tests: CPU split/engine tests, then test/gpu/multi.test.js (all visible GPUs,
#    GPU 0 alone, and the two-GPU part, which skips with one line on a one-GPU machine);
# 2. myriad bench --devices: gemm n=8,32; potrf and getrf n=16,128; float64; GPU 0, then 0,1
#    (one run per op: the one-device rows come first, so every row has its scaling efficiency).
# Logs and JSON go to $OUT (or ./out): cards.txt, multi-tests.log, multi-bench.txt, multi-bench.err,
# multi-bench-<op>-<devices>.json (one per op and device set). Exit status: that of the tests.
# Where the GPU machine returns only a few files, run it with OUT=$OUT/r and tar $OUT/r afterwards.
set -uo pipefail
out=${OUT:-out}; mkdir -p "$out"
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm,pcie.link.gen.current,pcie.link.width.current --format=csv
  nvidia-smi topo -m; } > "$out/cards.txt" 2>&1
cat "$out/cards.txt"
node --test --test-reporter=spec dist/test/cuda/multi-split.test.js dist/test/cuda/multi-engine.test.js dist/test/gpu/multi.test.js \
  2>&1 | tee "$out/multi-tests.log" | grep -E '^(not ok|# (pass|fail|skipped))|^ℹ (tests|pass|fail|skipped)|✖|﹣|SKIP'
status=${PIPESTATUS[0]}
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
# Device sets: 0,1 then, where the machine has them, 0-3 and 0-7 (each run also times GPU 0
# alone, so every row has its scaling efficiency against one device).
sets=()
for k in 2 4 8; do [ "$ngpu" -ge $k ] && sets+=("$(seq -s, 0 $((k - 1)))"); done
[ ${#sets[@]} -eq 0 ] && sets=(0)
for devices in "${sets[@]}"; do
  for spec in "gemm 8,32" "potrf 16,128" "getrf 16,128"; do
    set -- $spec
    echo "== bench $1 --devices $devices --sizes $2" | tee -a "$out/multi-bench.txt"
    timeout 240 node dist/src/cli.js bench "$1" --devices "$devices" --dtype float64 --sizes "$2" --json "$out/multi-bench-$1-${devices//,/}.json" \
      2>>"$out/multi-bench.err" | tee -a "$out/multi-bench.txt"
  done
done
exit "$status"
