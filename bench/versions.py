"""Truth on every measured torch: the truth harness (every rule example, in every mode, judged for
that torch), the fix proofs, the context-manager catalogue and the confirmation tests, run with
each version's own interpreter: `.venv` (torch 2.13.0, the default test command's) and
`bench/.venv-torch-<version>` (made by `bench/versions.sh`). An example whose `torch_versions`
leave a version out is not run there (it is the other version's fact).

Usage: .venv/bin/python bench/versions.py [--quick]   (writes bench/results/versions.json)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from figures import REPO, begin, write_results

#: test module -> what its passing tests count
SUITES = {
    "tests/truth/test_torch_truth.py": "examples",
    "tests/truth/test_fixes.py": "fixes",
    "tests/truth/test_context_managers.py": "catalogue",
    "tests/confirm/test_confirm_versions.py": "confirmation",
}


def interpreters() -> list[Path]:
    found = [REPO / ".venv" / "bin" / "python", *sorted(REPO.glob("bench/.venv-torch-*/bin/python"))]
    return [python for python in found if python.exists()]


def torch_version(python: Path) -> str:
    return subprocess.run([str(python), "-c", "import importlib.metadata as m; print(m.version('torch'))"],
                          capture_output=True, text=True, check=True).stdout.strip()


def run(python: Path, quick: bool) -> dict[str, dict[str, int]]:
    """Per suite: tests passed, failed (errors included) and skipped, from pytest's JUnit report."""
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.xml"
        command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", f"--junitxml={report}",
                   *SUITES]
        if quick:
            command += ["-k", "XPT101 or XPT410 or test_an_error_that_names_no_line"]
        subprocess.run(command, cwd=REPO, capture_output=True, text=True)
        counts = {name: {"passed": 0, "failed": 0, "skipped": 0} for name in SUITES.values()}
        failed: list[str] = []
        for case in ET.parse(report).getroot().iter("testcase"):
            module = case.get("classname", "").replace(".", "/") + ".py"
            name = SUITES.get(module)
            if name is None:
                continue
            if case.find("skipped") is not None:
                counts[name]["skipped"] += 1
            elif case.find("failure") is not None or case.find("error") is not None:
                counts[name]["failed"] += 1
                failed.append(f"{module}::{case.get('name')}")
            else:
                counts[name]["passed"] += 1
    return {**counts, "failures": failed}  # type: ignore[dict-item]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few rules only: proves the script, not a figure")
    quick = parser.parse_args().quick
    stamp = begin("versions")
    figures = {}
    for python in interpreters():
        version = torch_version(python)
        print(f"torch {version} ({python.relative_to(REPO)}) ...", file=sys.stderr, flush=True)
        figures[version] = {"interpreter": str(python.relative_to(REPO)), **run(python, quick)}
        print(f"  {figures[version]}", file=sys.stderr, flush=True)
    write_results("versions", stamp, {"versions": figures}, reduced="--quick" if quick else None)


if __name__ == "__main__":
    main()
