"""What a helper returns only when an optional argument is passed (the rest of `if ignore is
None: return scores, labels`, a masked selection) reaches only the calls that may pass it: a
call that leaves it None on a default export, or passes what a default construction leaves None
(`ignore=self.ignore_index`, `ignore_index=None`), or its own caller's None-defaulting parameter
no call passes, gets the reshaped inputs back, static sizes (segmentation_models_pytorch's
Lovasz losses). Measured on torch 2.13: every model here exports in both modes except `Passed`
and `PassedOtherFile`, which fail at the marked size test (non-strict: `Could not extract
specialized integer from data-dependent expression u0`; strict: `Could not guard on
data-dependent expression Eq(u0, 0)`). Checked as a project in every order of the files and of
the classes."""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import pytest

from xport_lint.analyzers.config import Config
from xport_lint.analyzers.project import check_project

UTIL = """
def flatten_kept(scores, labels, ignore=None):
    scores = scores.reshape(-1)
    labels = labels.reshape(-1)
    if ignore is not None:
        valid = labels != ignore
        return scores[valid], labels[valid]
    return scores, labels
"""
HELPERS = """
import torch.nn as nn

from .util import flatten_kept


def _flatten(scores, labels, ignore=None):
    scores = scores.reshape(-1)
    labels = labels.reshape(-1)
    if ignore is None:
        return scores, labels
    valid = labels != ignore
    return scores[valid], labels[valid]


def _hinge_flat(logits, labels):
    if len(labels) == 0:
        return logits.sum() * 0.0
    return (logits * labels).sum()


def _hinge(logits, labels, ignore=None):
    return _hinge_flat(*_flatten(logits, labels, ignore))
"""
MODELS = [
    """
class Starred(nn.Module):
    def __init__(self, ignore_index=None):
        super().__init__()
        self.ignore_index = ignore_index

    def forward(self, y_pred, y_true):
        return _hinge_flat(*_flatten(y_pred, y_true, self.ignore_index))
""",
    """
class ThroughHelper(nn.Module):
    def __init__(self, ignore_index=None):
        super().__init__()
        self.ignore_index = ignore_index

    def forward(self, y_pred, y_true):
        return _hinge(y_pred, y_true, ignore=self.ignore_index)
""",
    """
class Unpacked(nn.Module):
    def forward(self, y_pred, y_true):
        scores, labels = _flatten(y_pred, y_true)
        if labels.numel() == 0:
            return scores.sum() * 0.0
        return (scores * labels).sum()
""",
    """
class BoundFirst(nn.Module):
    def forward(self, y_pred, y_true):
        flat = _flatten(y_pred, y_true, None)
        labels = flat[1]
        if len(labels) == 0:
            return y_pred.sum() * 0.0
        return labels.sum()
""",
    """
class OtherFile(nn.Module):
    def __init__(self, ignore_index=None):
        super().__init__()
        self.ignore_index = ignore_index

    def forward(self, y_pred, y_true):
        scores, labels = flatten_kept(y_pred, y_true, ignore=self.ignore_index)
        if labels.size(0) == 0:
            return scores.sum() * 0.0
        return (scores * labels).sum()
""",
    """
class Method(nn.Module):
    def _flatten(self, scores, labels, ignore=None):
        if ignore is None:
            return scores.reshape(-1), labels.reshape(-1)
        valid = labels != ignore
        return scores[valid], labels[valid]

    def forward(self, y_pred, y_true):
        scores, labels = self._flatten(y_pred, y_true)
        if len(labels) == 0:
            return scores.sum() * 0.0
        return (scores * labels).sum()
""",
    """
class Passed(nn.Module):
    def forward(self, y_pred, y_true):
        flat = _flatten(y_pred, y_true, 1.0)
        scores, labels = flat[0], flat[1]
        if len(labels) == 0:  # a masked selection: an error
            return scores.sum() * 0.0
        return (scores * labels).sum()
""",
    """
class PassedOtherFile(nn.Module):
    def forward(self, y_pred, y_true):
        scores, labels = flatten_kept(y_pred, y_true, 1.0)
        if len(labels) == 0:  # a masked selection: an error
            return scores.sum() * 0.0
        return (scores * labels).sum()
""",
]
#: the models' orders checked: as written, reversed, and one interleaving
MODEL_ORDERS = [list(range(len(MODELS))), list(reversed(range(len(MODELS)))), [3, 6, 0, 7, 5, 1, 4, 2]]


@pytest.mark.parametrize("file_order", list(itertools.permutations(["util.py", "losses.py"])))
@pytest.mark.parametrize("model_order", MODEL_ORDERS)
def test_a_return_behind_an_optional_argument_reaches_only_calls_passing_it(
    tmp_path: Path, file_order: tuple[str, ...], model_order: list[int]
) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    losses = textwrap.dedent(HELPERS).lstrip("\n") + "".join("\n" + MODELS[i] for i in model_order)
    texts = {"__init__.py": "", "util.py": textwrap.dedent(UTIL).lstrip("\n"), "losses.py": losses}
    for name, text in texts.items():
        (package / name).write_text(text)
    files = [str(package / name) for name in ("__init__.py", *file_order)]
    checked = check_project(files, Config(), None, jobs=1)
    errors = {(Path(r.path).name, f.span.start.line) for r in checked.results for f in r.findings
              if f.severity.value == "error"}
    marked = {("losses.py", n) for n, line in enumerate(losses.splitlines(), 1) if "an error" in line}
    assert len(marked) == 2
    assert errors == marked
