#!/usr/bin/env bash
# Fetch the pinned benchmark corpus (see ../../shared/conventions.md): real third-party model
# code, downloaded as wheels and unzipped; nothing from it is imported, run or committed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/corpus"
mkdir -p "$corpus/wheels" "$corpus/src"
cd "$corpus/wheels"
python3 -m pip download --quiet --no-deps --only-binary=:all: \
  transformers==5.23.0 timm==1.0.31 diffusers==0.42.1
python3 -m pip download --quiet --no-deps --only-binary=:all: \
  --python-version 3.11 --platform manylinux_2_28_x86_64 torchvision==0.29.1
for wheel in *.whl; do
  python3 -m zipfile -e "$wheel" "$corpus/src/" >/dev/null
done
cd "$corpus/src"
{
  ls transformers/models/*/modeling_*.py
  find timm/models timm/layers diffusers/models torchvision/models torchvision/ops -name '*.py'
} | grep -v '/__init__\.py$' | sort -u > "$corpus/files.txt"
echo "$(wc -l < "$corpus/files.txt") files, $(cat $(cat "$corpus/files.txt") | wc -l) lines"
# torchfix, the comparison tool, in its own venv (it pins an older libcst than ours); its run
# takes about ten minutes, so only `bash bench/fetch_corpus.sh --torchfix` installs it
if [ "${1:-}" = "--torchfix" ] && [ ! -x "$here/.venv-torchfix/bin/torchfix" ]; then
  python3 -m venv "$here/.venv-torchfix"
  "$here/.venv-torchfix/bin/pip" install --quiet torchfix==0.7.0
fi
