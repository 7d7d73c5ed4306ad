"""An `xport_example()` is one export site whatever form it returns (README: `(model, args)`,
`(model, args, kwargs)` or `{"model": ..., "args": ..., "kwargs": ...}`, written in the `return`,
bound to a name first or built by a one-line helper): rules that read export sites (XPT416's
example inputs, the example dtypes XPT203 reads) give the same findings for each. Measured on
torch 2.13, both modes: an unregistered dataclass input fails (ValueError non-strict, UserError
strict) and a registered one exports; `.tolist()` of a sum of the float example input fails strict
export only, of the integer example input it exports. Each spelling's torch outcome is checked in
the same test."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("import dataclasses")

#: form -> how `xport_example()` (and what it needs beside it) gives `model`, `args` and `kwargs`
_FORMS: dict[str, str] = {
    "dict": 'def xport_example():\n    return {{"model": {model}, "args": {args}, "kwargs": {kwargs}}}\n',
    "pair": "def xport_example():\n    return {model}, {args}\n",
    "triple": "def xport_example():\n    return {model}, {args}, {kwargs}\n",
    "pair-bound-to-a-name": "def xport_example():\n    example = ({model}, {args})\n    return example\n",
    "model-and-args-bound-first": (
        "def xport_example():\n    model = {model}\n    inputs = {args}\n    return model, inputs\n"
    ),
    "pair-of-a-helper": (
        "def _example(model, inputs):\n    return model, inputs\n\n\n"
        "def xport_example():\n    return _example({model}, {args})\n"
    ),
}

_BATCH = """
@dataclasses.dataclass
class Batch:
    features: torch.Tensor
    scale: torch.Tensor
{registered}

class Head(nn.Module):
    def forward(self, batch, extra=None):
        return batch.features * batch.scale
"""

_EXTRA = """
@dataclasses.dataclass
class Extra:
    bias: torch.Tensor


class Head(nn.Module):
    def forward(self, x, extra=None):
        return x + extra.bias
"""

_SUM_TOLIST = """
class A(nn.Module):
    def forward(self, x):
        return x * x.sum(dim=0).tolist()[0]
"""

_INDEX_TOLIST = """
class A(nn.Module):
    def forward(self, x, idx=None):
        return x + idx.tolist()[0]
"""

_BATCH_ARGS = "(Batch(torch.randn(2, 3), torch.randn(2, 3)),)"

#: program -> (model body, model, args, kwargs, non-strict outcome, strict outcome, forms)
_PROGRAMS: dict[str, tuple[str, str, str, str, str | None, str | None, tuple[str, ...]]] = {
    "unregistered-dataclass-input": (
        _BATCH.format(registered=""), "Head()", _BATCH_ARGS, "{}", "ValueError", "UserError", tuple(_FORMS)),
    "registered-dataclass-input-exports": (
        _BATCH.format(registered="\n\ntorch.export.register_dataclass(Batch)\n"), "Head()", _BATCH_ARGS, "{}",
        None, None, tuple(_FORMS)),
    "unregistered-dataclass-keyword-input": (
        _EXTRA, "Head()", "(torch.randn(2, 3),)", '{"extra": Extra(torch.randn(2, 3))}', "ValueError", "UserError",
        ("dict", "triple")),
    "float-example-sum-tolist": (
        _SUM_TOLIST, "A()", "(torch.randn(2, 3),)", "{}", None, "Unsupported", tuple(_FORMS)),
    "integer-example-tolist-exports": (
        _INDEX_TOLIST, "A()", "(torch.randn(2, 3), torch.tensor([1, 2]))", "{}", None, None, tuple(_FORMS)),
}

for _program, (_body, _model, _args, _kwargs, _non_strict, _strict, _forms) in _PROGRAMS.items():
    for _form in _forms:
        _example = _FORMS[_form].format(model=_model, args=_args, kwargs=_kwargs)
        CASES.case(f"{_program}-{_form}", _non_strict, _strict, f"{_body.strip()}\n\n\n{_example}")

BATCH = CaseBatch(CASES, {})
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()


@pytest.mark.parametrize("program", [pytest.param(name, id=name) for name in _PROGRAMS])
@pytest.mark.parametrize("mode", list(Mode), ids=[m.value for m in Mode])
def test_every_form_gives_the_same_findings(program: str, mode: Mode) -> None:
    """Static: the errors (code and message; the line of an example input's differs) do not depend on
    the form `xport_example()` returns."""
    cases = [c for c in CASES if c.name.startswith(f"{program}-") and c.name[len(program) + 1:] in _FORMS]
    found = {c.name: sorted(error.partition(" ")[2] for error in c.errors(mode)) for c in cases}
    assert len(cases) > 1 and len(set(map(repr, found.values()))) == 1, found
