"""Export one model of bench/zoo_models.py under coverage; print what ran and what failed (JSON).
A `DYNAMIC` case exports with its `dynamic_shapes`; when torch reports a constraint violation
(a guard narrows a declared `Dim`, raised after the trace, so no library frame names the line),
`draft_export` of the same call says which library lines added the guards.

Usage (in the zoo interpreter): python bench/zoo_export.py MODEL_ID
"""

from __future__ import annotations

import importlib.metadata
import inspect
import json
import os
import sys
import traceback

import coverage

PACKAGES = ("transformers", "diffusers", "timm", "torchvision")


def main(model_id: str) -> None:
    sys.path.insert(0, os.path.dirname(__file__))
    import torch
    from zoo_models import DYNAMIC, MODELS, _torchvision, dims

    _torchvision()  # transformers and timm import it when it is installed
    torch.manual_seed(0)
    case = DYNAMIC.get(model_id)
    model, args = case.build() if case is not None else MODELS[model_id]()
    declared = None
    if case is not None:
        # keyed by forward's parameters, every example given (None: static)
        bound = inspect.signature(model.forward).bind(*args).arguments
        declared = {name: dims(case.shapes).get(name) for name in bound}
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
        torch.export.export(model, args, dynamic_shapes=declared, strict=False)
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
    if failure is not None and declared is not None and "Constraints violated" in failure["message"]:
        failure["constraint_violation"] = True
        failure["guards"] = _guard_lines(model, args, declared, roots)
        if failure["file"] is None and failure["guards"]:
            failure["file"], failure["line"] = failure["guards"][0]["file"], failure["guards"][0]["line"]
    data = cov.get_data()
    executed = {path: sorted(data.lines(path) or []) for path in data.measured_files()}
    versions = {name: importlib.metadata.version(name) for name in ("torch", *PACKAGES)}
    run = {"model": model_id, "failure": failure, "executed": executed, "roots": roots, "versions": versions}
    if case is not None:
        cls = type(model)
        run["dynamic_shapes"] = case.shapes
        run["model_class"] = f"{cls.__module__}.{cls.__qualname__}"
        run["model_file"] = inspect.getsourcefile(cls)
    print(json.dumps(run))


def _guard_lines(model: object, args: tuple, declared: dict, roots: list[str]) -> list[dict]:
    """The library lines whose guards `draft_export` reports for this call (its user stacks name
    files through torch's intern table), in the order it met them."""
    import torch
    from torch._logging.structured import INTERN_TABLE

    try:
        report = torch.export.draft_export(model, args, dynamic_shapes=declared, strict=False)._report
    except Exception as error:  # noqa: BLE001 - draft_export that fails names no guard
        print(f"draft_export failed: {type(error).__name__}: {error}"[:600], file=sys.stderr)
        return []
    files = {number: name for name, number in INTERN_TABLE.items()}  # filled while it traces
    found = []
    for item in report.failures:
        if not isinstance(item.data, dict):
            continue
        stack = [
            (files.get(frame["filename"], frame["filename"]), frame["line"])
            for frame in item.data.get("user_stack") or []
        ]
        inside = [(f, n) for f, n in stack if isinstance(f, str) and any(f.startswith(r) for r in roots)]
        if inside:
            where = {"file": inside[-1][0], "line": inside[-1][1], "kind": str(item.failure_type).split(".")[-1]}
            where["expr"] = str(item.data.get("expr", ""))[:200]
            if where not in found:
                found.append(where)
    return found


if __name__ == "__main__":
    main(sys.argv[1])
