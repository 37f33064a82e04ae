#!/usr/bin/env bash
# The GPU machine's one-call check: the GPU tests, benchmarks and sanitizer runs in one go. Usage
# on the GPU machine (after scripts/pack-device.sh and npm run build here):
#   source .device/boot.sh && scripts/gpu-check.sh [steps...]
# steps (default: all, in this order): api bench tsm2 tests sanitize; also: host (the host path:
# its tests and the host-start benchmarks of BENCHMARKS.md on every GPU listed in HOST_DEVICES),
# zbench (the complex rows against the vendor's batched z/c routines: ZBENCH_OPS, ZBENCH_SIZES)
# Every step writes its log or JSON to $OUT (or ./out) as it goes, so a run cut short still
# returns what it finished.
set -uo pipefail
# A node_modules left behind by an earlier call (an empty folder) hides the packed one.
[ -e node_modules/koffi ] || { rm -rf node_modules; ln -s "$PWD/.device/node_modules" node_modules; }
out=${OUT:-out}; mkdir -p "$out"
steps=${*:-api bench tsm2 tests sanitize}
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/card.txt"
date -u +%FT%TZ >> "$out/card.txt"
status=0
run_tests() { # $1: log name, rest: test files
  local log=$1; shift
  node --test --test-concurrency=1 --test-reporter=spec "$@" > "$out/$log" 2>&1 || status=1
  grep -E '^ℹ (tests|pass|fail|skipped)|^✖' "$out/$log" | head -20 | sed "s/^/[$log] /"
}
for step in $steps; do
  echo "== $step $(date -u +%T)"
  case $step in
    api) run_tests api.log dist/test/gpu/api.test.js ;;
    bench)
      for op in ${BENCH_OPS:-gemm potrf getrf posv gesv potrs getrs}; do
        sizes=2,4,8,16,32,64,128,256; [ "$op" != gemm ] && sizes=$sizes,512
        node dist/src/cli.js bench $op --backend cuda --dtype both --sizes $sizes --repeats 7 --format markdown --json "$out/bench-$op.json" >> "$out/bench.txt" 2>>"$out/bench.err" || status=1
      done
      cat "$out/bench.txt" ;;
    zbench)
      for op in ${ZBENCH_OPS:-gemm potrf getrf posv gesv trsm heev gesvd}; do
        for dtype in complex128 complex64; do
          node dist/src/cli.js bench $op --backend cuda --dtype $dtype --sizes ${ZBENCH_SIZES:-2,4,8,16,32} --repeats 7 --format markdown --json "$out/zbench-$op-$dtype.json" >> "$out/zbench.txt" 2>>"$out/zbench.err" || status=1
        done
      done
      cat "$out/zbench.txt" ;;
    tsm2) node dist/src/cli.js bench tsm2 --backend cuda --dtype both --format markdown --json "$out/bench-tsm2.json" > "$out/tsm2.txt" 2>>"$out/bench.err" || status=1; cat "$out/tsm2.txt" ;;
    tests)
      # Every GPU test file, in parallel as the card takes them; one table, JSON beside it.
      node dist/scripts/gpu-tests.js --require-gpu --json "$out/gpu-tests.json" --logs "$out/gpu-tests-logs" > "$out/gpu-tests.log" 2>&1 || status=1
      sed -n '/^file /,$p' "$out/gpu-tests.log" | head -60 ;;
    host)
      run_tests host-path.log dist/test/gpu/host-path.test.js
      for spec in "gemm 8" "potrf 16" "getrf 16,128" "gesv 32"; do
        set -- $spec
        node dist/src/cli.js bench $1 --devices ${HOST_DEVICES:-all} --dtype float64 --sizes $2 --repeats 7 --format markdown --json "$out/host-$1.json" >> "$out/host.txt" 2>>"$out/host.err" || status=1
      done
      cat "$out/host.txt" ;;
    sanitize)
      # memcheck over the GEMM and factorisation suites; kernels come from the
      # disk cache filled by the tests step, so run that first in the same call. API errors are not
      # reported: the launcher reads a kernel's parameter layout with cuFuncGetParamInfo until the
      # driver answers CUDA_ERROR_INVALID_VALUE (past the last parameter), which is by design.
      for t in ${SANITIZE_SUITES:-gemm factor-potrf}; do
        timeout ${SANITIZE_TIMEOUT:-280} compute-sanitizer --tool memcheck --leak-check no --report-api-errors no --print-limit 20 \
          node --test dist/test/gpu/$t.test.js > "$out/memcheck-$t.log" 2>&1
        echo "memcheck $t exit $?"; grep -E 'ERROR SUMMARY|^ℹ (pass|fail)' "$out/memcheck-$t.log"
      done ;;
    *) echo "unknown step $step"; status=1 ;;
  esac
done
exit $status
