#!/usr/bin/env bash
# One venv per torch release the rules' facts are measured on besides 2.13.0 (the default test
# command's, in .venv): bench/.venv-torch-<version>, each with that torch and xport-lint's server
# and test tools (not ".[test]": it pins torch 2.13.0). bench/versions.py then runs the truth
# harness, the fix proofs and the confirmation tests in each.
#
#   bash bench/versions.sh                # 2.14.1 and 2.15.0
#   bash bench/versions.sh 2.15.0         # one of them
#
# On a machine without a GPU, take the CPU wheels: TORCH_INDEX=https://download.pytorch.org/whl/cpu
# (the default index serves CUDA builds). A pip configuration that caps torch (a constraint file)
# must not apply here: PIP_CONFIG_FILE=/dev/null.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3.11}"
for version in "${@:-2.14.1 2.15.0}"; do
  for v in $version; do
    venv="bench/.venv-torch-$v"
    "$python" -m venv "$venv"
    index=()
    if [ -n "${TORCH_INDEX:-}" ]; then index=(--index-url "$TORCH_INDEX" --extra-index-url https://pypi.org/simple); fi
    PIP_CONFIG_FILE=/dev/null "$venv/bin/pip" install --quiet "torch==$v" "${index[@]}"
    PIP_CONFIG_FILE=/dev/null "$venv/bin/pip" install --quiet -e ".[server]" pytest-lsp numpy pytest pytest-xdist jsonschema
    "$venv/bin/python" -c "import importlib.metadata as m; print('$venv: torch', m.version('torch'))"
  done
done
