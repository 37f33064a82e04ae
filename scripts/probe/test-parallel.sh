#!/usr/bin/env bash
# Session 13: GPU test cases in parallel, each "file.js::pattern" in a process of its own under a
# time limit (a killed process reports nothing, so a case a process keeps the loss to that case).
# Prints a line a case (rc, seconds, ok / not ok lines) and the failures; logs in $OUT/cases/.
# On the GPU machine: LIMIT=480 bash scripts/probe/test-parallel.sh "dist/test/gpu/jacobi.test.js::syev on" ...
source .device/boot.sh
dir=${OUT:-/tmp}/cases; mkdir -p "$dir"
i=0
for spec in "$@"; do
  i=$((i + 1)); file=${spec%%::*}; pat=${spec#*::}
  ( s=$(date +%s)
    if [ "$pat" = "$spec" ]; then timeout -s KILL "${LIMIT:-300}" node "$file" > "$dir/$i.txt" 2>&1
    else timeout -s KILL "${LIMIT:-300}" node --test-name-pattern="$pat" "$file" > "$dir/$i.txt" 2>&1; fi
    echo "rc $? $(( $(date +%s) - s )) s" >> "$dir/$i.txt" ) &
done
wait
i=0
for spec in "$@"; do
  i=$((i + 1)); log=$dir/$i.txt
  echo "[$spec] $(tail -1 "$log"): $(grep -E '^ok|^not ok' "$log" | grep -v SKIP | cut -c1-110 | tr '\n' ';')"
  grep -A14 "^not ok" "$log" | grep -v SKIP | head -24
done
