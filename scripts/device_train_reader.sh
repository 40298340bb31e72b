#!/usr/bin/env bash
# Train one reader on a lent GPU machine (the device tool), which has torch and transformers but neither this
# project's packages, the base model's package nor ../shared. Prepared here, run there from the repo root.
#
# Here (the examples and the base model's rows they use, small enough to travel; .gpu/ in .git/info/exclude):
#   python -m tutor train-reader ... --examples-only --compress --work-dir out/EX
#   cp -r out/EX .gpu/ex && python scripts/reader_sweep.py pack .gpu/base ex=out/EX --base-only
# There (device run, carry [".gpu"]; the tracked tree plus .gpu must stay under the 64 MiB a call carries: with the
# three shipped readers tracked it is over, so move the two the run does not start from out of the checkout for the
# call and back after it):
#   EPOCHS=1 LR=5e-5 MIN=6 INIT=data/models/span-reader bash scripts/device_train_reader.sh .gpu/ex .gpu/base
# Back here: cat reader.safetensors.part* > DIR/reader.safetensors; cp reader.json DIR/ (the files come back in
# parts: the device tool returns files of at most 16 MiB).
#
# The base folder is rebuilt from the packed rows, the base's own word embeddings included: an exported reader does
# not ship its word embeddings, so a base made from a reader's weights alone trains on noise (2026-11-28: a call so
# made came back with span exact match 2%, and was thrown away).
set -euo pipefail
EX=$1; PACKED=$2
OUTDIR=${OUTDIR:-${OUT:?set OUT or OUTDIR}}; MIN=${MIN:-6.0}; EPOCHS=${EPOCHS:-1}; LR=${LR:-5e-5}
BATCH=${BATCH:-64}; DEV=${DEV:-cuda}; INIT=${INIT:-}
export PYTHONUNBUFFERED=1 TUTOR_READER_BASE_DIR=${TUTOR_READER_BASE_DIR:-/tmp/reader-base}
PY=${PYTHON:-python3}
$PY scripts/reader_sweep.py base "$PACKED" "$TUTOR_READER_BASE_DIR"
nvidia-smi -L 2>/dev/null || true
date
$PY -m tutor train-reader --from-examples "$EX" ${INIT:+--init-from "$INIT"} --device "$DEV" --threads 8 \
    --epochs "$EPOCHS" --batch-size "$BATCH" --lr "$LR" --checkpoint-every 1500 --stop-after-minutes "$MIN" \
    --work-dir /tmp/reader-work --out /tmp/reader-out 2>&1 | grep -v "it/s\]" | tail -40
date
split -b 15M /tmp/reader-out/reader.safetensors "$OUTDIR/reader.safetensors.part"
cp /tmp/reader-out/reader.json "$OUTDIR/"
