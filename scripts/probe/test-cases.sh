#!/usr/bin/env bash
# The tests of one GPU test file whose names match each pattern, one after another,
# each in a process of its own under a time limit (test-parallel.sh with SERIAL=1).
# On the GPU machine: LIMIT=150 bash scripts/probe/test-cases.sh dist/test/gpu/factor-potrf.test.js "pattern" ...
file=$1; shift
specs=()
for p in "$@"; do specs+=("$file::$p"); done
SERIAL=1 LIMIT=${LIMIT:-150} exec bash "$(dirname "$0")/test-parallel.sh" "${specs[@]}"
