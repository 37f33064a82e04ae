#!/usr/bin/env bash
# Session 11: test/gpu/factor.test.ts's spread-leaf cases, each in a process of its own under a
# time limit (a file's report is complete only when its process ends; a killed process reports
# nothing). On the GPU machine: bash scripts/probe/factor-spread-cases.sh  (prints a line a case).
source .device/boot.sh
for p in "n = 1000, spread leaves, lookahead" "two spread leaves a panel" "spread leaves in the grid form" "float32 n = 1025, spread leaves" \
         "wide 700 x 1300, spread leaves" "n = 600, spread leaves" "three matrices, zero columns.*spread" "signalling exchange"; do
  s=$(date +%s); log=${OUT:-/tmp}/case.txt
  timeout -s KILL 150 node --test-name-pattern="$p" dist/test/gpu/factor.test.js > "$log" 2>&1; rc=$?
  echo "[$p] rc $rc $(( $(date +%s) - s )) s: $(grep -E '^ok|^not ok' "$log" | grep -v SKIP | head -3)"
  grep -A12 "^not ok" "$log" | grep -v SKIP | head -20
done
