source .device/boot.sh
node --test dist/test/gpu/syrk-small.test.js 2>&1 | grep -E "^# (pass|fail)|not ok|✖" | head
node --test dist/test/gpu/lauum.test.js dist/test/gpu/syrk.test.js 2>&1 | grep -E "^# (pass|fail)|not ok|✖" | head
export MYRIAD_QUICK_FIRST=0
node dist/src/cli.js bench syrk --backend cuda --dtype float32 --sizes 32,40,48,56,64,72,80,96,112,128 --repeats 5 --format markdown 2>&1 | tail -12
node dist/src/cli.js bench lauum --backend cuda --dtype float32 --sizes 48,64,96,128 --repeats 5 --format markdown 2>&1 | tail -6
