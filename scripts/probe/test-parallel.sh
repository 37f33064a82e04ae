#!/usr/bin/env bash
# GPU test cases, each "file.js::pattern" (or a whole "file.js") in a process of its own under a
# time limit: a test file's report is written when its process ends, even run directly, so a
# killed process reports nothing and keeps the loss to its own case. All at once,
# or one after another with SERIAL=1 (cases that each want the whole GPU: test-cases.sh).
# Prints a line a case (rc, seconds, ok / not ok lines) and the failures; logs in $OUT/cases/.
# On the GPU machine: LIMIT=480 bash scripts/probe/test-parallel.sh "dist/test/gpu/jacobi-syev.test.js::syev on" ...
source .device/boot.sh
dir=${OUT:-/tmp}/cases; mkdir -p "$dir"
one() {   # one() spec log
  local file=${1%%::*} pat=${1#*::} s; s=$(date +%s)
  if [ "$pat" = "$1" ]; then timeout -s KILL "${LIMIT:-300}" node "$file" > "$2" 2>&1
  else timeout -s KILL "${LIMIT:-300}" node --test-name-pattern="$pat" "$file" > "$2" 2>&1; fi
  echo "rc $? $(( $(date +%s) - s )) s" >> "$2"
}
report() {   # report() spec log
  echo "[$1] $(tail -1 "$2"): $(grep -E '^ok|^not ok' "$2" | grep -v SKIP | cut -c1-110 | tr '\n' ';')"
  grep -A14 "^not ok" "$2" | grep -v SKIP | head -24
}
i=0
for spec in "$@"; do
  i=$((i + 1))
  if [ "${SERIAL:-0}" = 1 ]; then one "$spec" "$dir/$i.txt"; report "$spec" "$dir/$i.txt"; else one "$spec" "$dir/$i.txt" & fi
done
wait
[ "${SERIAL:-0}" = 1 ] && exit 0
i=0
for spec in "$@"; do i=$((i + 1)); report "$spec" "$dir/$i.txt"; done
