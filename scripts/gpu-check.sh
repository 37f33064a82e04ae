#!/usr/bin/env bash
# The GPU machine's one-call check (see ../shared/device/README.md). Usage there:
#   source .device/boot.sh && scripts/gpu-check.sh [steps...]
# steps (default: all, in this order): api bench tsm2 tests sanitize
# Every step writes its log or JSON to $OUT (or ./out) as it goes, so a run cut short still
# returns what it finished.
set -uo pipefail
out=${OUT:-out}; mkdir -p "$out"
steps=${*:-api bench tsm2 tests sanitize}
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/card.txt"
date -u +%FT%TZ >> "$out/card.txt"
status=0
run_tests() { # $1: log name, rest: test files
  local log=$1; shift
  node --test --test-reporter=spec "$@" > "$out/$log" 2>&1 || status=1
  grep -E '^ℹ (tests|pass|fail|skipped)|^✖' "$out/$log" | head -20 | sed "s/^/[$log] /"
}
for step in $steps; do
  echo "== $step $(date -u +%T)"
  case $step in
    api) run_tests api.log dist/test/gpu/api.test.js ;;
    bench)
      for op in gemm potrf getrf posv gesv; do
        sizes=2,4,8,16,32,64,128,256; [ "$op" != gemm ] && sizes=$sizes,512
        node dist/src/cli.js bench $op --backend cuda --dtype both --sizes $sizes --repeats 7 --json "$out/bench-$op.json" >> "$out/bench.txt" 2>>"$out/bench.err" || status=1
      done
      cat "$out/bench.txt" ;;
    tsm2) node dist/src/cli.js bench tsm2 --backend cuda --dtype both --json "$out/bench-tsm2.json" > "$out/tsm2.txt" 2>>"$out/bench.err" || status=1; cat "$out/tsm2.txt" ;;
    tests) run_tests gpu-tests.log dist/test/gpu/ ;;
    sanitize)
      timeout 240 compute-sanitizer --tool memcheck --leak-check no --print-limit 20 node --test dist/test/gpu/api.test.js > "$out/memcheck.log" 2>&1
      echo "memcheck exit $?"; grep -E 'ERROR SUMMARY|^ℹ (pass|fail)' "$out/memcheck.log" ;;
    *) echo "unknown step $step"; status=1 ;;
  esac
done
exit $status
