#!/bin/sh
# Grow the backgammon training data (issue 14): resume the labelling job in the background.
# Rerun after a kill, a reboot or on a new machine: a missing working file is seeded from the
# committed snapshot, so only positions not yet labelled are rolled out. At the end of a sitting:
#   kill "$(cat out/bg-data/labels-v1.pid)"
#   playout bg data export out/bg-data/labels-v1.jsonl data/bg/labels-v1.jsonl.gz  # and commit it
cd "$(dirname "$0")/.." || exit 1
mkdir -p out/bg-data
if [ ! -s out/bg-data/labels-v1.jsonl ] && [ -f data/bg/labels-v1.jsonl.gz ]; then
  gzip -dc data/bg/labels-v1.jsonl.gz > out/bg-data/labels-v1.jsonl
fi
PLAYOUT="${PLAYOUT:-.venv/bin/playout}"
setsid nohup nice -n 19 "$PLAYOUT" bg data label out/bg-data/labels-v1.jsonl \
  --selfplay-games 3000 --backgame-starts 300 --family-games 2 --bgsage-boards 1000 --workers 0 \
  --evaluator src/playout/backgammon/data/net_td80.npz \
  >> out/bg-data/labels-v1.log 2>&1 &
echo $! > out/bg-data/labels-v1.pid
echo "labelling in the background (pid $(cat out/bg-data/labels-v1.pid)); log: out/bg-data/labels-v1.log"
