"""Every example is an executable fact about the installed torch (2.13 in the default suite; run
pytest with a 2.14 or 2.15 venv's python to check those): run it through real torch.export, in
every mode the engine would judge the file in (a file with a `strict=True` export call: strict
only), judged with the installed torch as the target. An example whose `torch_versions` leave out
the installed torch states nothing here.

For each example file and mode, as a user relies on it:
- the whole file: error findings (any rule) are present iff `torch.export.export` fails, and
  when it fails, torch's exception is one that an erroring rule's `FAILS_WITH` says (its class
  name and a phrase of its message, for this torch, rendered in the rule's doc as "What torch
  says");
- the example's own rule, on its marked lines: `error` => export fails with what that rule says;
  `warning` => export succeeds and the exported program observably differs from eager (its
  output on other inputs, what it prints or logs, a second call, a changed environment variable,
  a declared-dynamic size it rejects), or, where the warning names a condition (an optional
  argument given), export with `failing_args` fails; `info` or silent => export succeeds unless
  another rule's error explains the failure.
Files with a zero-argument `export()` function are judged by calling it (call-site rules).
Fixes are proven separately, in test_fixes.py.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import io
import logging
import os
import re
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import all_cases
from tests.truth.harness import example, load, recorded_exports
from xport_lint.analyzers import Config, check_source, registry
from xport_lint.analyzers.model import Mode, Severity
from xport_lint.analyzers.rule import Invalid, Rule, Valid
from xport_lint.analyzers.versions import parse, show

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

#: the torch under test: examples hold for it and are judged for it
INSTALLED = parse(torch.__version__)
#: rules whose examples state facts about the linter itself (a syntax error, a suppression, what
#: it has not measured), not about torch
LINTER_CLAIMS = ("XPT000", "XPT001", "XPT412")


@dataclass
class Export:
    """One export of an example: what was exported and how, and what came of it."""

    model: Any = None
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    dynamic_shapes: Any = None
    program: Any = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def export_file(module: ModuleType, mode: Mode) -> Export:
    """Export the file's `export()` (as written) or its `xport_example()` in `mode`."""
    torch.manual_seed(0)
    calls: list[tuple[Any, tuple[Any, ...], dict[str, Any], Any]] = []
    try:
        if hasattr(module, "export"):
            with recorded_exports(calls):
                program = module.export()
            done = Export(*calls[-1]) if calls else Export()
            done.program = program
            return done
        model, args, options = example(module)
        done = Export(model, args, dict(options.get("kwargs") or {}), options.get("dynamic_shapes"))
        done.program = torch.export.export(model, args, **options, strict=mode is Mode.STRICT)
        return done
    except Exception as error:  # noqa: BLE001 - any failure is the fact under test
        failed = Export(*calls[-1]) if calls else Export()
        failed.error = error
        return failed


def file_modes(source: str) -> tuple[Mode, ...]:
    """The engine judges a file with a `strict=True` export call in strict mode only."""
    return (Mode.STRICT,) if "strict=True" in source else (Mode.NON_STRICT, Mode.STRICT)


def findings(source: str, mode: Mode) -> list[Any]:
    target = show(INSTALLED) if INSTALLED is not None else None
    return check_source(source, "example.py", Config(select=("ALL",), strict=mode is Mode.STRICT, target_torch=target))


def rule_severity(rule: type[Rule], case: Invalid, mode: Mode) -> Severity | None:
    """What the engine says of the example in `mode` on its marked lines (a shape finding's
    severity depends on the example's dynamic_shapes): the most severe, None if it says nothing."""
    lines = set(case.expected_lines(rule.CODE))
    found = [f.severity for f in findings(case.source, mode) if f.code == rule.CODE and f.span.start.line in lines]
    order = (Severity.ERROR, Severity.WARNING, Severity.INFO)
    return min(found, key=order.index) if found else None


def said_by(codes: set[str], mode: Mode, error: BaseException) -> bool:
    """Torch's exception is one that one of these rules says export fails with."""
    return any(e.matches(error, INSTALLED) for code in codes for e in registry.RULES[code].FAILS_WITH.get(mode, ()))


def reason(error: BaseException | None) -> str:
    return f"{type(error).__name__}: {error}"[:400]


# -- "the exported program differs from eager" -------------------------------------------------


#: what an exported program raises when an input breaks a guard it was specialised under
_REJECTED = re.compile(r"Expected input at|Guard failed|to be equal to|to be >=|to be <=|shape mismatch", re.I)


def _value_variants(args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Inputs of the example's sizes with other values: each branch a value test can take."""
    def vary(change: Callable[[Any], Any]) -> tuple[Any, ...]:
        return tuple(change(a) if isinstance(a, torch.Tensor) else a for a in args)

    def numeric(a: Any, f: Callable[[Any], Any]) -> Any:
        if a.dtype == torch.bool:
            return ~a
        return f(a) if a.is_floating_point() else f(a.double()).round().to(a.dtype)

    return [
        vary(lambda a: numeric(a, lambda t: -t)),
        vary(lambda a: numeric(a, lambda t: t * 10 + 5)),
        vary(lambda a: numeric(a, lambda t: -t.abs() * 10 - 5)),
        vary(lambda a: torch.zeros_like(a)),
    ]


def _dynamic_dims(
    args: tuple[Any, ...], dynamic_shapes: Any, model: Any
) -> list[tuple[int, int, int | None, int | None]]:
    """(argument index, dimension, min, max) of every dimension the export call declares dynamic."""
    if dynamic_shapes is None:
        return []
    if isinstance(dynamic_shapes, dict):
        names = list(inspect.signature(model.forward).parameters)
        specs = [dynamic_shapes.get(name) for name in names[: len(args)]]
    else:
        specs = list(dynamic_shapes)
    dims = []
    for index, spec in enumerate(specs):
        if spec is None or not isinstance(args[index], torch.Tensor):
            continue
        entries = spec.items() if isinstance(spec, dict) else enumerate(spec)
        dims += [(index, int(dim), getattr(value, "min", None), getattr(value, "max", None))
                 for dim, value in entries if value is not None]
    return dims


def _size_variants(args: tuple[Any, ...], dims: list[tuple[int, int, int | None, int | None]]) -> list[tuple[Any, ...]]:
    """Inputs with one declared-dynamic dimension resized within its declared range."""
    out = []
    for index, dim, low, high in dims:
        tensor = args[index]
        size = tensor.shape[dim]
        candidates = [s for s in (size + 1, size - 1) if s >= max(low or 0, 2) and (high is None or s <= high)]
        if not candidates:
            continue
        shape = list(tensor.shape)
        shape[dim] = candidates[0]
        grown = list(args)
        grown[index] = torch.randn(shape).to(tensor.dtype) if tensor.is_floating_point() else torch.ones(shape, dtype=tensor.dtype)
        out.append(tuple(grown))
    return out


@contextlib.contextmanager
def _printed() -> Iterator[io.StringIO]:
    """What a call prints: Python's stdout and logging, and the process's own stdout and stderr
    (where torch's C++ profiler and kernels write)."""
    text = io.StringIO()
    root = logging.getLogger()
    level = root.level
    handler = logging.StreamHandler(text)
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            with contextlib.redirect_stdout(text), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield text
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            for fd, copy in zip((1, 2), saved, strict=True):
                os.dup2(copy, fd)
                os.close(copy)
            root.removeHandler(handler)
            root.setLevel(level)
            sink.seek(0)
            text.write(sink.read().decode(errors="replace"))


def _state(model: Any, module: ModuleType) -> str:
    """What a call can leave behind: the model's plain attributes and the file's globals."""
    def show(value: Any) -> str:
        if isinstance(value, torch.Tensor):
            try:
                return f"tensor{tuple(value.shape)}:{float(value.detach().double().sum()):.6g}"
            except (RuntimeError, TypeError):
                return f"{type(value).__name__}{tuple(value.shape)}"  # a fake tensor tracing left behind
        return repr(value)[:200]

    attributes = {k: show(v) for k, v in vars(model).items() if not k.startswith("_") and k != "training"}
    names = {k: show(v) for k, v in vars(module).items()
             if not k.startswith("__") and isinstance(v, (int, float, str, bool, list, dict, tuple, torch.Tensor))}
    return repr((sorted(attributes.items()), sorted(names.items())))


def _observe(fn: Callable[..., Any], inputs: list[tuple[Any, ...]], kwargs: dict[str, Any],
             model: Any, module: ModuleType) -> list[tuple[str, Any, str, str]]:
    """Each input, called twice: (outcome, value, printed, state left behind)."""
    seen = []
    for given in inputs:
        for _ in range(2):
            with _printed() as printed:
                try:
                    outcome: tuple[str, Any] = ("value", fn(*given, **kwargs))
                except Exception as error:  # noqa: BLE001 - raising is behaviour too
                    outcome = ("rejected" if _REJECTED.search(str(error)) else "raises", type(error).__name__)
            seen.append((*outcome, printed.getvalue(), _state(model, module)))
    return seen


def _graph_output_shapes(program: Any) -> list[tuple[int, ...] | None]:
    """The output sizes the exported graph declares (None where a size is symbolic)."""
    output = next(n for n in program.graph.nodes if n.op == "output")
    shapes = []
    for node in torch.utils._pytree.tree_leaves(output.args[0]):
        value = getattr(node, "meta", {}).get("val")
        if isinstance(value, torch.Tensor) and all(isinstance(d, int) for d in value.shape):
            shapes.append(tuple(value.shape))
        else:
            shapes.append(None)
    return shapes


def _eager_output_shapes(value: Any) -> list[tuple[int, ...] | None]:
    return [tuple(v.shape) if isinstance(v, torch.Tensor) else None for v in torch.utils._pytree.tree_leaves(value)]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.shape == b.shape and torch.allclose(a, b, atol=1e-6, equal_nan=True)
    if isinstance(a, (tuple, list)):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and all(map(_same, a, b))
    return bool(a == b)


def _agree(eager: list[tuple[str, Any, str, str]], exported: list[tuple[str, Any, str, str]]) -> bool:
    """The same observations (an input eager refuses may be refused either way)."""
    return all(
        (e[0] == x[0] and (e[0] != "value" or _same(e[1], x[1])) or e[0] == "raises" != x[0] != "value")
        and e[2:] == x[2:]
        for e, x in zip(eager, exported, strict=True)
    )


def _environment_names(source: str) -> list[str]:
    """Environment variables the example could read: its upper-case string literals."""
    return sorted(set(re.findall(r"[\"']([A-Z][A-Z0-9_]{2,})[\"']", source)))


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _copy(model: Any) -> Any:
    """A fresh copy of the model, or the model itself where it cannot be copied (non-strict
    tracing can leave a fake tensor in an attribute it assigned: the state XPT406 warns of)."""
    try:
        return copy.deepcopy(model)
    except RuntimeError:
        return model


def differs_from_eager(exported: Export, case: Invalid, module: ModuleType) -> str | None:
    """How the exported program observably differs from eager, or None if nothing shows."""
    program, kwargs = exported.program, exported.kwargs
    pristine = _copy(exported.model.eval())  # buffers may be shared with the program
    inputs = [exported.args]
    if case.other_args is not None:
        inputs.append(tuple(eval(case.other_args, vars(module))))  # noqa: S307 - the example's own inputs
    inputs += _value_variants(exported.args)
    inputs += _size_variants(exported.args, _dynamic_dims(exported.args, exported.dynamic_shapes, pristine))
    names = _environment_names(case.source)
    for environment in [{}, *({name: value} for name in names for value in ("1", "0", "true"))]:
        with _environment(environment):
            torch.manual_seed(0)
            untouched = _copy(pristine)
            graph = _observe(copy.deepcopy(program).module(), inputs, kwargs, untouched, module)
            torch.manual_seed(0)
            model = _copy(pristine)
            eager = _observe(model, inputs, kwargs, model, module)
        if not environment and eager[0][0] == "value":
            declared, actual = _graph_output_shapes(program), _eager_output_shapes(eager[0][1])
            if len(declared) == len(actual) and any(d not in (None, a) for d, a in zip(declared, actual, strict=True)):
                return f"the graph declares output sizes {declared}; eager returns {actual}"
        if not _agree(eager, graph):
            changed = next(i for i, (e, x) in enumerate(zip(eager, graph, strict=True)) if not _agree([e], [x]))
            return f"call {changed} under {environment or 'the default environment'}: eager {eager[changed][0]}, exported {graph[changed][0]}"
    return None


# -- the facts ---------------------------------------------------------------------------------


def cases() -> list[object]:
    out = []
    for rule, case, name in all_cases():
        if rule.CODE in LINTER_CLAIMS or INSTALLED not in case.torch_versions:
            continue
        for mode in file_modes(case.source):
            if isinstance(case, Valid) and mode not in case.modes:
                continue  # a valid example states nothing of the modes it does not list
            out.append(pytest.param(rule, case, mode, id=f"{name}-{mode.value}"))
    return out


@pytest.mark.parametrize(("rule", "case", "mode"), cases())
def test_example_claim_holds_in_real_torch(
    rule: type[Rule], case: Valid | Invalid, mode: Mode, tmp_path: Path
) -> None:
    module = load(case.source, tmp_path)
    exported = export_file(module, mode)
    found = findings(case.source, mode)
    errors = {f.code for f in found if f.severity is Severity.ERROR}
    blind = isinstance(case, Invalid) and rule.CONFIRMATION_ONLY  # found only by running draft_export

    # the whole file: an error finding iff export fails, and for a reason an erroring rule states
    if not blind:
        if errors:
            assert not exported.ok, f"{sorted(errors)} claim export fails ({mode.value}), but it succeeded"
            assert said_by(errors, mode, exported.error), (
                f"export fails ({mode.value}) with {reason(exported.error)}, which none of {sorted(errors)} says"
            )
        else:
            assert exported.ok, f"no error finding ({mode.value}), but export fails: {reason(exported.error)}"
    if isinstance(case, Valid):
        assert exported.ok, f"clean example does not export ({mode.value}): {reason(exported.error)}"
        return

    # the example's own rule on its marked lines
    severity = rule.severity(mode) if blind else rule_severity(rule, case, mode)
    if severity is Severity.ERROR:
        assert not exported.ok, f"{rule.CODE} claims export fails ({mode.value}), but it succeeded"
        assert said_by({rule.CODE}, mode, exported.error), (
            f"{rule.CODE} says export fails with {', '.join(map(str, rule.FAILS_WITH.get(mode, ())))} "
            f"({mode.value}); torch says {reason(exported.error)}"
        )
        return
    if errors - {rule.CODE}:
        return  # another rule's error explains the file failing: checked above
    assert exported.ok, f"{rule.CODE} claims export succeeds ({mode.value}): {reason(exported.error)}"
    if severity is not Severity.WARNING:
        return
    if case.failing_args is not None:
        failing = tuple(eval(case.failing_args, vars(module)))  # noqa: S307 - the example's own inputs
        with pytest.raises(Exception) as raised:  # noqa: B017, PT011 - the fact is "it fails"
            torch.export.export(exported.model, failing, strict=mode is Mode.STRICT)
        assert said_by({rule.CODE}, mode, raised.value), reason(raised.value)
        return
    assert differs_from_eager(exported, case, module) is not None, (
        f"{rule.CODE} warns that the exported program differs from eager ({mode.value}), but on the "
        "example's inputs, other values, declared-dynamic sizes, a second call and a changed environment "
        "it computes, prints and logs the same"
    )
