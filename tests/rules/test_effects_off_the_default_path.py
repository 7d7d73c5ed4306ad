"""A print (XPT404) or an environment read (XPT403) that a default export never runs (training
mode only, a configuration switch left at its default, an optional argument not passed) is
info, as a log or randomness there is (the severity policy's side effects); one on the default
path stays a warning. Measured on torch 2.13 in both modes: exporting the `.eval()` module with
the example's arguments prints nothing from the conditioned lines (the unconditioned print runs
once while a non-strict export traces it)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from tests.truth.harness import load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

MODEL = """
import os
import torch


def scaled_loss(x):
    n = x.shape[0]
    print("helper", n)
    return x * n


class Model(torch.nn.Module):
    def __init__(self, debug: bool = False, verbose=False):
        super().__init__()
        self.debug = debug
        self.verbose = verbose

    def forward(self, x, extra=None):
        if self.training:
            return self.loss(x)
        if self.debug:
            print("debug", x.shape)
        if extra is not None:
            print("extra", extra.shape)
            if os.environ.get("XPORT_LINT_FLAG"):
                x = x + 1
        if not self.verbose:
            pass
        else:
            print("verbose", x.shape)
        y = self.tail(x)
        print("always", y.shape)
        return y

    def tail(self, x):
        if not self.training:
            return x.relu()
        print("training tail", x.shape)
        if os.environ.get("XPORT_LINT_TAIL"):
            return x
        return x.sigmoid()

    def loss(self, x):
        print("loss", x.shape)
        return scaled_loss(x)
"""

#: the first word each print shows -> whether a default (`.eval()`) export runs it
PRINTS = {"debug": False, "extra": False, "verbose": False, "always": True, "training": False,
          "loss": False, "helper": False}


def test_prints_and_environment_reads_off_the_default_path_are_info(tmp_path: Path) -> None:
    found = {}
    for finding in check_source(MODEL, "model.py", Config()):
        if finding.code == "XPT404":
            found[finding.message.split('"')[1].split()[0]] = finding.severity
        elif finding.code == "XPT403":
            found[f"environ:{finding.span.start.line}"] = finding.severity
    assert {word: found.get(word) for word in PRINTS} == {
        word: Severity.WARNING if runs else Severity.INFO for word, runs in PRINTS.items()
    }
    assert [severity for key, severity in found.items() if key.startswith("environ:")] == [Severity.INFO] * 2

    for strict in (False, True):
        model = load(MODEL, tmp_path).Model().eval()
        shown = io.StringIO()
        with contextlib.redirect_stdout(shown):
            torch.export.export(model, (torch.randn(3, 2),), strict=strict)
        words = {line.split()[0] for line in shown.getvalue().splitlines() if line.strip()}
        default_path = {word for word, runs in PRINTS.items() if runs}
        # strict export traces the print without running it; non-strict runs it once
        assert {word for word in PRINTS if word in words} == (set() if strict else default_path), strict
