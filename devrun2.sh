source .device/boot.sh
node dist/scripts/gpu-tests.js --require-gpu --shard 2/2 --json $OUT/b.json --logs /tmp/gl 2>&1 | tail -25
MYRIAD_QUICK_FIRST=0 timeout 60 node devprof.mjs 2>&1 | tail -5
