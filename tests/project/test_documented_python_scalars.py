"""A parameter its docstring types as a Python scalar (`current_epoch: int` in numpy/speechbrain
style, `num_nodes (int, optional): ...` Google style, `:type limit: int` Sphinx style) holds what
the caller passes there, a number: a test on it is no data-dependent branch (speechbrain
FastSpeech2's loss, `if current_epoch > self.spn_loss_max_epochs`). Measured on torch 2.13, both
modes: the loss called with an int exports; a parameter documented `(Tensor)` given a 0-d tensor
fails (GuardOnDataDependentSymNode non-strict, Unsupported strict) and stays an error. Spellings:
the three docstring styles on `forward`, a helper of another file whose docstring types it, in
every order of the files."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.project.test_export_guards_across_files import errors_of, write_package

LOSSES = '''
import torch
from .helpers import scheduled


class NumpyStyle(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.max_epochs = 8

    def forward(self, predictions, targets, current_epoch):
        """Loss.

        Arguments
        ---------
        predictions: torch.Tensor
            The predictions.
        current_epoch: int
            The count of the current epoch.
        """
        loss = (predictions - targets).abs().mean()
        if current_epoch > self.max_epochs:
            return loss * 0
        return loss


class GoogleStyle(torch.nn.Module):
    def forward(self, x, steps):
        """Args:
            x (Tensor): features.
            steps (int): how many steps were taken.
        """
        if steps > 3:
            return x * 2
        return scheduled(x, steps)


class SphinxStyle(torch.nn.Module):
    def forward(self, x, limit):
        """:param limit: the limit.
        :type limit: int
        """
        while limit > 0:
            x = x * 2
            limit -= 1
        return x


class DocumentedTensor(torch.nn.Module):
    def forward(self, x, limit):
        """Args:
            x (Tensor): features.
            limit (Tensor): a 0-d tensor.
        """
        if limit > 3:
            return x
        return -x
'''
HELPERS = '''
import torch


def scheduled(x, step):
    """Scale by the step.

    Parameters
    ----------
    step : int, optional
        The step.
    """
    if step % 2 == 0:
        return x
    return x.neg()
'''
FILES = {"__init__.py": "", "losses.py": LOSSES, "helpers.py": HELPERS}
#: `if limit > 3:` of DocumentedTensor
DATA_BRANCH = LOSSES.splitlines().index("        if limit > 3:")


@pytest.mark.parametrize("order", list(itertools.permutations(["__init__.py", "losses.py", "helpers.py"])))
def test_a_parameter_a_docstring_types_as_a_number_is_no_tensor_data(tmp_path: Path, order: tuple[str, ...]) -> None:
    package = write_package(tmp_path, FILES)
    assert errors_of(package, order) == {("losses.py", DATA_BRANCH)}
