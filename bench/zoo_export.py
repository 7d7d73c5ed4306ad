"""Export one model of bench/zoo_models.py under coverage; print what ran and what failed (JSON).

Usage (in the zoo interpreter): python bench/zoo_export.py MODEL_ID
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import sys
import traceback

import coverage

PACKAGES = ("transformers", "diffusers", "timm", "torchvision")


def main(model_id: str) -> None:
    sys.path.insert(0, os.path.dirname(__file__))
    import torch
    from zoo_models import MODELS, _torchvision

    _torchvision()  # transformers and timm import it when it is installed
    torch.manual_seed(0)
    model, args = MODELS[model_id]()
    roots = []
    for name in PACKAGES:
        try:
            module = __import__(name)
        except Exception:  # noqa: BLE001 - a zoo that does not import is not measured
            continue
        roots.append(os.path.dirname(module.__file__))
    cov = coverage.Coverage(include=[os.path.join(r, "*") for r in roots], data_file=None)
    failure = None
    cov.start()
    try:
        torch.export.export(model, args, strict=False)
    except Exception as error:  # noqa: BLE001 - the failure is the measurement
        frames = [f for f in traceback.extract_tb(error.__traceback__) if any(f.filename.startswith(r) for r in roots)]
        user = frames[-1] if frames else None
        failure = {
            "type": type(error).__name__,
            "message": str(error).splitlines()[0][:300],
            "file": user.filename if user else None,
            "line": user.lineno if user else None,
        }
    finally:
        cov.stop()
    data = cov.get_data()
    executed = {path: sorted(data.lines(path) or []) for path in data.measured_files()}
    versions = {name: importlib.metadata.version(name) for name in ("torch", *PACKAGES)}
    print(
        json.dumps(
            {"model": model_id, "failure": failure, "executed": executed, "roots": roots, "versions": versions}
        )
    )


if __name__ == "__main__":
    main(sys.argv[1])
