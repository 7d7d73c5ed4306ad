"""The context-manager catalogue (`xport_lint/analyzers/data/context_managers.json`): each entry
is a `with` that real model code enters inside `forward`, turned into a small model file here,
and exported with real torch in both modes.

`python -m tests.truth.context_catalogue --write` re-measures every entry on the installed torch
and records the outcome and torch's first error line in the catalogue: on 2.13 as each entry's
`strict`/`non_strict`, on a later version under `versions` only where it differs from what the
catalogue says for that version (run it on 2.13, then 2.14, then 2.15). A CUDA-only entry is
recorded from a CPU build only: what a CUDA build without a GPU says is the machine's, not the
version's. `test_context_managers.py` re-measures and compares, so a torch upgrade shows exactly
which entries changed.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import textwrap
import warnings
from pathlib import Path
from typing import Any

from tests.truth.harness import load
from xport_lint.analyzers.rules._context_managers import outcome
from xport_lint.analyzers.versions import MEASURED, TorchVersion, parse, show

CATALOGUE = Path(__file__).parents[2] / "analyzers" / "xport_lint" / "analyzers" / "data" / "context_managers.json"


def entries() -> list[dict[str, Any]]:
    data = json.loads(CATALOGUE.read_text())
    return data["entries"] if isinstance(data, dict) else data


def model_source(entry: dict[str, Any], strict: bool | None = None) -> str:
    """The model file for `entry`; with `strict`, it holds the export call in that mode."""
    if entry["body"] is not None:
        body = entry["body"]
    elif entry["with_expr"] is None:
        body = "y = x * 2"
    else:
        body = f"with {entry['with_expr']}:\n    y = x * 2"
    init = f"\n        {entry['init']}" if entry["init"] else ""
    decorator = f"{entry['decorator']}\n    " if entry["decorator"] else ""
    parts = ["import torch", entry["imports"], "", entry["module"] or "", "",
             "class Model(torch.nn.Module):",
             f"    def __init__(self):\n        super().__init__(){init}",
             "",
             f"    {decorator}def forward(self, x):",
             textwrap.indent(body, " " * 8),
             "        return y + 1",
             "",
             "",
             "def xport_example():",
             "    return Model(), (torch.randn(2, 3),)",
             ""]
    if strict is not None:
        parts += ["", "",
                  f"program = torch.export.export(Model(), (torch.randn(2, 3),), strict={strict})", ""]
    return "\n".join(p for p in parts if p is not None)


def measure(entry: dict[str, Any], strict: bool) -> dict[str, Any]:
    """{"exports": bool, "error": first line of torch's error or None}."""
    import torch

    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            module = load(model_source(entry), Path(folder))
            model, args = module.xport_example()
            torch.export.export(model, args, strict=strict)
        except Exception as error:  # noqa: BLE001 - the failure is the fact recorded
            first = next((line for line in str(error).splitlines() if line.strip()), "")
            # an object's address (`<function set_stance at 0x7f...>`) differs from run to run
            first = re.sub(r" at 0x[0-9a-f]+>", ">", first)
            return {"exports": False, "error": f"{type(error).__name__}: {first}"[:300]}
    return {"exports": True, "error": None}


def installed_version() -> TorchVersion:
    """The measured version the installed torch is (the catalogue records no other)."""
    import torch

    version = parse(torch.__version__)
    if version not in MEASURED:
        raise SystemExit(f"torch {torch.__version__} is not one of the measured versions {[show(v) for v in MEASURED]}")
    return version  # type: ignore[return-value]


def cpu_build() -> bool:
    import torch

    return torch.version.cuda is None


def record(entry: dict[str, Any], version: TorchVersion) -> None:
    """Measure `entry` on the installed torch and record it for `version` (see the module doc)."""
    if version == MEASURED[0]:
        entry["strict"], entry["non_strict"] = measure(entry, strict=True), measure(entry, strict=False)
        return
    if entry["category"] == "torch-cuda" and not cpu_build():
        return
    later = entry.setdefault("versions", {})
    later.pop(show(version), None)
    changed = {mode: found for mode, strict in (("strict", True), ("non_strict", False))
               if (found := measure(entry, strict)) != outcome(entry, mode, version)}
    if changed:
        later[show(version)] = changed
    if not later:
        del entry["versions"]


def main() -> None:
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python -m tests.truth.context_catalogue --write")
    import torch

    data = json.loads(CATALOGUE.read_text())
    version = installed_version()
    for entry in data["entries"]:
        record(entry, version)
        found = {mode: outcome(entry, mode, version) for mode in ("strict", "non_strict")}
        print(f"{entry['id']:<28} strict={found['strict']['exports']!s:<5} non-strict={found['non_strict']['exports']!s:<5}"
              f" {found['strict']['error'] or ''}"[:200])
    if version == MEASURED[0]:
        data["torch"] = torch.__version__
    else:
        data.setdefault("measured", {})[show(version)] = torch.__version__
    CATALOGUE.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
