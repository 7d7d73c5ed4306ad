"""A function of another file that traced code calls only in training mode (monai's RetinaNet
detector: `if self.training: losses = self.compute_loss(...)`, whose box coder lives in another
file) runs only in a training-mode export: its findings are warnings naming training mode, as the
caller's own training-only code is. A call of it that an `.eval()` export makes keeps the error.
Checked in every order of the files, through a method of an object `__init__` builds and through
an imported function; the torch fact (an `.eval()` export passes, a training one fails) is
measured on torch 2.13 in tests/truth/test_reachability.py's style below."""

from __future__ import annotations

import importlib
import itertools
import sys
from pathlib import Path

import pytest

from tests.project.test_export_guards_across_files import errors_of, write_package

CODER = """
import torch


def encode(x):
    if x.sum() > 0:  # line 5
        return x
    return -x


class BoxCoder:
    def encode_single(self, x):
        return encode(x)
"""

DETECTOR = """
import torch
from torch import nn

from .coder import BoxCoder, encode


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.box_coder = BoxCoder()

    def forward(self, x):
TRAINING
        return x * 2
"""

SPELLINGS = {
    "if-training-method": "        if self.training:\n            return self.box_coder.encode_single(x)",
    "if-training-function": "        if self.training:\n            loss = encode(x)\n            return loss",
    "not-training-return-first": "        if not self.training:\n            return x * 2\n        return encode(x)",
    "else-of-not-training": "        if not self.training:\n            x = x + 1\n        else:\n            x = encode(x)",
}


@pytest.mark.parametrize("spelling", list(SPELLINGS))
@pytest.mark.parametrize("order", list(itertools.permutations(["coder.py", "detector.py"])))
def test_a_function_of_another_file_called_only_in_training_is_no_error(
    tmp_path: Path, spelling: str, order: tuple[str, ...]
) -> None:
    package = write_package(tmp_path, {
        "__init__.py": "", "coder.py": CODER, "detector.py": DETECTOR.replace("TRAINING", SPELLINGS[spelling]),
    })
    assert errors_of(package, ("__init__.py", *order)) == set()


@pytest.mark.parametrize("order", list(itertools.permutations(["coder.py", "detector.py", "head.py"])))
def test_a_call_an_eval_export_makes_elsewhere_keeps_the_error(tmp_path: Path, order: tuple[str, ...]) -> None:
    head = """
        from torch import nn

        from .coder import encode


        class Head(nn.Module):
            def forward(self, x):
                return encode(x)
    """
    package = write_package(tmp_path, {
        "__init__.py": "", "coder.py": CODER, "head.py": head,
        "detector.py": DETECTOR.replace("TRAINING", SPELLINGS["if-training-function"]),
    })
    assert errors_of(package, ("__init__.py", *order)) == {("coder.py", 5)}


@pytest.mark.torch
@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_an_eval_export_never_runs_it_and_a_training_one_fails(tmp_path: Path, spelling: str) -> None:
    torch = pytest.importorskip("torch")
    write_package(tmp_path, {
        "__init__.py": "", "coder.py": CODER, "detector.py": DETECTOR.replace("TRAINING", SPELLINGS[spelling]),
    })
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("pkg.detector")
        for strict in (False, True):
            torch.export.export(module.Detector().eval(), (torch.randn(4),), strict=strict)
        with pytest.raises(Exception):  # noqa: B017 - torch raises several kinds for a guard on data
            torch.export.export(module.Detector().train(), (torch.randn(4),), strict=False)
    finally:
        sys.path.remove(str(tmp_path))
        for loaded in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[loaded]
