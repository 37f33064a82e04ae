source .device/boot.sh
node dist/scripts/gpu-tests.js --require-gpu --shard 1/2 --json $OUT/a.json --logs /tmp/gl 2>&1 | tail -25
