#!/usr/bin/env bash
# Session 12: the tests of one GPU test file whose names match each pattern, each pattern in a
# process of its own under a time limit (a test file's report is written when its process ends,
# even run directly: a killed process reports nothing). Prints a line a pattern, and the failures.
# On the GPU machine: LIMIT=150 bash scripts/probe/test-cases.sh dist/test/gpu/factor.test.js "pattern" ...
source .device/boot.sh
file=$1; shift
for p in "$@"; do
  s=$(date +%s); log=${OUT:-/tmp}/case.txt
  timeout -s KILL "${LIMIT:-150}" node --test-name-pattern="$p" "$file" > "$log" 2>&1; rc=$?
  echo "[$p] rc $rc $(( $(date +%s) - s )) s: $(grep -E '^ok|^not ok' "$log" | grep -v SKIP | cut -c1-140 | tr '\n' ';')"
  grep -A12 "^not ok" "$log" | grep -v SKIP | head -20
done
