#!/usr/bin/env bash
# Session 11: test/gpu/factor.test.ts's spread-leaf cases, each in a process of its own under a
# time limit (test-cases.sh). On the GPU machine: bash scripts/probe/factor-spread-cases.sh
LIMIT=${LIMIT:-150} exec bash "$(dirname "$0")/test-cases.sh" dist/test/gpu/factor.test.js \
  "n = 1000, spread leaves, lookahead" "two spread leaves a panel" "spread leaves in the grid form" "float32 n = 1025, spread leaves" \
  "wide 700 x 1300, spread leaves" "n = 600, spread leaves" "three matrices, zero columns.*spread" "signalling exchange"
