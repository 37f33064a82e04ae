#!/usr/bin/env bash
# How several GPUs scale for short and long calls, device-resident and from host memory, on the GPU
# machine (2 GPUs or more):
#   source .device/boot.sh && scripts/multi-gpu-scaling.sh
# 1. the host cost per GPU of a device-resident call (stub devices: no GPU work, same code path);
# 2. the multi-GPU tests (CPU fakes, simulated streams, then test/gpu/multi.test.js on the GPUs);
# 3. myriad bench <op> --devices all --call-ms 0.25,1: gemm n = 8, 32; potrf and getrf n = 16, 128;
#    float64; batches sized so that the device-resident call takes about 0.25 ms and 1 ms on GPU 0;
#    rows on GPU 0, then on every GPU (resident, captured: the resident call recorded by ctx.capture
#    and replayed, host-start on every GPU, host-auto as the crossover spreads it), with the machine's
#    aggregate pinned bandwidth and each host call's % of it;
#    host-start once more with --host-outputs after-all (the all-or-nothing outputs) for comparison;
# 4. a summary: speed-up over GPU 0 per op, n, call length and mode (scripts/multi-scaling-summary.mjs).
# Everything goes to $OUT (or ./out): cards.txt, host-latency.txt, multi-tests.log, scaling.txt,
# scaling.err, scaling-<op>-<outputs>.json, summary.txt. Exit status: that of the tests.
set -uo pipefail
out=${OUT:-out}; mkdir -p "$out"
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm,pcie.link.gen.current,pcie.link.width.current --format=csv
  nvidia-smi topo -m; } > "$out/cards.txt" 2>&1
cat "$out/cards.txt"
node dist/scripts/multi-host-latency.js 5000 2>&1 | tee "$out/host-latency.txt"
node --test --test-reporter=spec dist/test/cuda/multi-split.test.js dist/test/cuda/multi-engine.test.js dist/test/cuda/multi-crossover.test.js \
  dist/test/cuda/multi-capture.test.js dist/test/cuda/duplex.test.js dist/test/gpu/multi.test.js \
  2>&1 | tee "$out/multi-tests.log" | grep -E '^(not ok|# (pass|fail|skipped))|^ℹ (tests|pass|fail|skipped)|✖|﹣|SKIP'
status=${PIPESTATUS[0]}
: > "$out/scaling.txt"
for outputs in duplex after-all; do
  for spec in "gemm 8,32" "potrf 16,128" "getrf 16,128"; do
    set -- $spec
    echo "== bench $1 --devices all --sizes $2 --call-ms 0.25,1 --host-outputs $outputs" | tee -a "$out/scaling.txt"
    timeout 420 node dist/src/cli.js bench "$1" --devices all --dtype float64 --sizes "$2" --call-ms 0.25,1 --repeats 7 \
      --host-outputs "$outputs" --json "$out/scaling-$1-$outputs.json" 2>>"$out/scaling.err" | tee -a "$out/scaling.txt"
  done
done
node scripts/multi-scaling-summary.mjs "$out"/scaling-*.json | tee "$out/summary.txt"
exit "$status"
