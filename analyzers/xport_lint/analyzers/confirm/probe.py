"""The repair worker: exports a model the way `xport-lint repair` needs it, in the *user's*
interpreter (the one with their torch), and says where it failed and whether it equals eager.

Standalone on purpose like worker.py (stdlib and torch only, launched by path through the same
launcher, so it is killable and memory-capped). One JSON request per line on stdin:
`{"root", "path" | "model", "example", "strict", "paths"}`; one JSON answer per line on the
original stdout. What it answers that the confirmation worker does not:
- the failure at the line torch names, in whichever file (a library file included), with the
  chain of frames back to the user's code: the innermost frame outside torch is where it failed;
- after a successful export, whether the exported program equals eager on the example and on a
  second input whose dynamic dimensions have another size;
- for a constraint violation, torch's suggested `dynamic_shapes` and the dimensions it would pin.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import json
import os
import re
import sys
import sysconfig
import traceback
import warnings
from pathlib import Path
from typing import Any

# run by path in the user's interpreter: its shared helpers sit beside it (also under PYTHONSAFEPATH)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from worker_common import normalise, refine_shapes, suggested_fixes  # noqa: E402

_protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)  # C-level writes to stdout (and print) now land on stderr
sys.stdout = sys.stderr
_counter = 0
_USER_CODE_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def _inside(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(path), folder]) == folder
    except ValueError:
        return False


#: what torch runs on its own behalf: a failure inside them is reported at its caller
_TORCH_HELPERS = ("sympy", "functorch", "optree", "typing_extensions.py", "mpmath")


def _torch_file(path: str, torch_dir: str) -> bool:
    """torch's own code, its helpers, the standard library and this worker: never the line a
    failure is reported at."""
    if path.startswith("<") or os.path.abspath(path) == os.path.abspath(__file__) or _inside(path, torch_dir):
        return True
    parts = Path(path).parts
    for marker in ("site-packages", "dist-packages"):
        if marker in parts and parts.index(marker) + 1 < len(parts):
            return parts[parts.index(marker) + 1] in _TORCH_HELPERS
    return _inside(path, sysconfig.get_paths()["stdlib"])


def _load(request: dict[str, Any]) -> Any:
    """The example provider: `xport_example` of a file, or a factory named by import path."""
    global _counter
    root = os.path.abspath(request["root"])
    for name, module in list(sys.modules.items()):
        if _inside(getattr(module, "__file__", None) or "/", root):
            del sys.modules[name]  # the scratch copy changed since the last request
    for entry in reversed([root, *request.get("paths", [])]):
        if entry in sys.path:
            sys.path.remove(entry)
        sys.path.insert(0, entry)
    importlib.invalidate_caches()
    if request.get("example"):
        module_name, _, function = request["example"].partition(":")
        return getattr(importlib.import_module(module_name), function or "xport_example")
    if request.get("model"):
        module_name, _, attribute = request["model"].partition(":")
        module = importlib.import_module(module_name)
        factory = getattr(module, "xport_example", None)
        if factory is None:
            raise LookupError(f"{module_name} has no xport_example(): name one with --example pkg.mod:function")
        return factory
    path = os.path.abspath(request["path"])
    dotted = os.path.relpath(path, root).removesuffix(".py").replace(os.sep, ".")
    if _inside(path, root) and all(part.isidentifier() for part in dotted.split(".")):
        # by its import path, so its relative imports work (`from .ops import ...`)
        try:
            module = importlib.import_module(dotted)
        except ModuleNotFoundError as error:
            if error.name is None or not dotted.startswith(error.name):
                raise
        else:
            factory = getattr(module, "xport_example", None)
            if factory is None:
                raise LookupError(f"{path} has no xport_example()")
            return factory
    _counter += 1
    spec = importlib.util.spec_from_file_location(f"xport_repair_{_counter}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    factory = getattr(module, "xport_example", None)
    if factory is None:
        raise LookupError(f"{path} has no xport_example()")
    return factory


def _frames(error: BaseException, torch_dir: str) -> list[dict[str, Any]]:
    """The frames outside torch, outermost first: from the traceback, then (strict export fails
    inside Dynamo) from the message's "from user code:" section."""
    frames = [
        {"file": os.path.abspath(f.filename), "line": f.lineno, "function": f.name, "code": (f.line or "").strip()}
        for f in traceback.extract_tb(error.__traceback__)
        if not _torch_file(f.filename, torch_dir)
    ]
    message = str(error)
    if "from user code:" in message:
        for match in _USER_CODE_FRAME.finditer(message.split("from user code:", 1)[1]):
            if not _torch_file(match.group(1), torch_dir):
                frames.append({"file": os.path.abspath(match.group(1)), "line": int(match.group(2)),
                               "function": match.group(3), "code": ""})
    # the example's own call into export is not where the model failed
    return [f for f in frames if f["function"] not in ("_export", "_answer", "main")]


def _render(value: Any) -> str:
    """`dynamic_shapes` as Python source (Dims by their names, ranges kept)."""
    import torch

    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_render(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_render(v) for v in value)
        return f"({inner},)" if isinstance(value, tuple) and len(value) == 1 else (
            f"({inner})" if isinstance(value, tuple) else f"[{inner}]")
    if isinstance(value, torch.export.Dim.DYNAMIC.__class__):
        return f"Dim.{value.name}"
    name = getattr(value, "__name__", None)
    root = getattr(value, "root", None)
    if name is not None and root is not None:
        # a derived dim (`2*_h`): its expression over the root Dim (Dims match by name)
        return re.sub(rf"\b{re.escape(root.__name__)}\b", lambda _: _render(root), name)
    if name is not None and hasattr(value, "min"):
        bounds = []
        if getattr(value, "min", 0) not in (0, 2):
            bounds.append(f"min={value.min}")
        if getattr(value, "max", None) is not None and value.max < 2**62:
            bounds.append(f"max={value.max}")
        return f"Dim({name!r}{''.join(', ' + b for b in bounds)})"
    return repr(value)


def _static_dims(before: Any, after: Any, where: str = "") -> list[str]:
    """The dimensions `after` makes static that `before` kept dynamic."""
    if isinstance(before, dict) and isinstance(after, dict):
        return [d for k in before for d in _static_dims(before[k], after.get(k), f"{where}[{k!r}]")]
    if isinstance(before, (list, tuple)) and isinstance(after, (list, tuple)):
        pairs = enumerate(zip(before, after, strict=False))
        return [d for i, (b, a) in pairs for d in _static_dims(b, a, f"{where}[{i}]")]
    if before is not None and not isinstance(before, int) and isinstance(after, int):
        return [f"dynamic_shapes{where} = {after}"]
    return []


def _leaves(value: Any) -> list[Any]:
    from torch.utils._pytree import tree_leaves

    try:
        return list(tree_leaves(value))
    except Exception:  # noqa: BLE001 - an output pytree does not know: compare it whole
        return [value]


def _equal(left: Any, right: Any) -> str | None:
    """Why the outputs differ, or None when they are equal (floats within rtol 1e-4)."""
    import torch

    a, b = _leaves(left), _leaves(right)
    if len(a) != len(b):
        return f"{len(a)} outputs against eager's {len(b)}"
    for index, (x, y) in enumerate(zip(a, b, strict=True)):
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            if x.shape != y.shape:
                return f"output {index} has shape {tuple(x.shape)}, eager {tuple(y.shape)}"
            same = (torch.allclose(x.float(), y.float(), rtol=1e-4, atol=1e-5, equal_nan=True)
                    if x.is_floating_point() or y.is_floating_point() else torch.equal(x, y))
            if not same:
                return f"output {index} differs from eager"
        elif x != y:
            return f"output {index} is {x!r}, eager {y!r}"
    return None


#: the other sizes tried, in order: a program may accept only some (a multiple of a block size)
_OTHER_SIZES = (lambda n: n + 1, lambda n: 2 * n, lambda n: n - 1, lambda n: n // 2)


def _other_size(ranges: Any, size: int, attempt: int) -> int | None:
    """The `attempt`-th other size for a dim of `size` within its range, or None."""
    try:
        upper = int(ranges.upper) if ranges is not None else 2**31
    except (TypeError, ValueError, AttributeError, OverflowError):
        upper = 2**31  # unbounded: torch's infinity is no int
    lower = max(int(ranges.lower) if ranges is not None else 2, 2)
    other = _OTHER_SIZES[attempt](size)
    return other if lower <= other <= upper and other != size else None


def _second_input(
    program: Any, example: dict[str, Any], attempt: int = 0
) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
    """The example with every dynamic dimension of another size (the `attempt`-th of
    `_OTHER_SIZES` within its range; the example's size where that is out of range), or None when
    the program has no dynamic dimension or no dimension can change."""
    import torch
    from torch.utils._pytree import tree_flatten, tree_unflatten

    flat, spec = tree_flatten((example["args"], example["kwargs"]))
    user_inputs = [s for s in program.graph_signature.input_specs if s.kind.name == "USER_INPUT"]
    placeholders = {n.name: n for n in program.graph.nodes if n.op == "placeholder"}
    tensors = [x for x in flat if isinstance(x, torch.Tensor)]
    if len(tensors) != len(user_inputs):
        return None
    # another value per root symbol, each dim its expression over them: a derived dim (`4*_seq`)
    # stays a multiple of 4, and dims sharing a symbol stay equal
    sizes: dict[Any, int] = {}
    shapes = []
    for tensor, input_spec in zip(tensors, user_inputs, strict=True):
        fake = placeholders[input_spec.arg.name].meta.get("val")
        shape = []
        for dim, size in enumerate(tensor.shape):
            symbol = fake.shape[dim] if fake is not None else size
            if not isinstance(symbol, torch.SymInt):
                shape.append(size)
                continue
            expr = symbol.node.expr
            hints = symbol.node.shape_env.var_to_val
            for root in sorted(expr.free_symbols, key=str):
                if root not in sizes:
                    hint = int(hints.get(root, size))
                    other = _other_size(program.range_constraints.get(root), hint, attempt)
                    sizes[root] = hint if other is None else other
            shape.append(int(expr.subs(sizes)))
        shapes.append(tuple(shape))
    if not sizes or all(shape == tuple(t.shape) for shape, t in zip(shapes, tensors, strict=True)):
        return None
    made = iter(shapes)
    out = []
    for value in flat:
        if not isinstance(value, torch.Tensor):
            out.append(value)
            continue
        shape = next(made)
        if value.dtype == torch.bool:
            out.append(torch.rand(shape) > 0.5)
        elif value.is_floating_point():
            out.append(torch.randn(shape, dtype=value.dtype))
        else:
            low, high = (int(value.min()), int(value.max()) + 1) if value.numel() else (0, 2)
            out.append(torch.randint(low, high, shape, dtype=value.dtype))
    args, kwargs = tree_unflatten(out, spec)
    return tuple(args), dict(kwargs)


_GUARD_ADDED = re.compile(
    r"^eval (?P<guard>.+?) \[guard added\].*?\((?P<file>[^()]*?):(?P<line>\d+) in (?P<fn>[\w<>]+)\)"
)


def _pinning_guards(torch: Any, example: dict[str, Any], strict: bool) -> list[dict[str, Any]]:
    """The guards on sizes export added, with the line that added each (torch's `dynamic` log):
    the lines that pin a dim it would make static. The handler runs where the guard is added, so
    the line is the innermost frame outside torch on the stack then (torch's log names its own
    frame in non-strict export); else the log's file, a suffix of the path (torch cuts long paths
    at the front)."""
    import logging

    found: list[dict[str, Any]] = []
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__))

    class Guards(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            match = _GUARD_ADDED.match(record.getMessage())
            if not match or match["guard"].startswith("[guard suppressed]"):
                return
            outside = [f for f in traceback.extract_stack() if not _torch_file(f.filename, torch_dir)]
            where = (os.path.abspath(outside[-1].filename), outside[-1].lineno, outside[-1].name) if outside else (
                match["file"], int(match["line"]), match["fn"])
            found.append({"guard": match["guard"], "file": where[0], "line": where[1], "function": where[2]})

    logger = logging.getLogger("torch.fx.experimental.symbolic_shapes")
    handler = Guards()
    torch._logging.set_logs(dynamic=logging.INFO)
    logger.addHandler(handler)
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            torch.export.export(example["model"], example["args"], example["kwargs"],
                                dynamic_shapes=example["dynamic_shapes"], strict=strict)
    except Exception:  # noqa: BLE001, S110 - it fails again: only its log is wanted
        pass
    finally:
        logger.removeHandler(handler)
        torch._logging.set_logs()
    return found


_NOT_ALL_VALUES = re.compile(
    r"Not all values of (?P<name>\w+) = (?P<source>\S+) in the specified range .*? satisfy the generated guard "
    r"(?P<guard>.+?)\.?$", re.MULTILINE,
)
#: the widest declared range a guard is evaluated over, value by value
_NARROW_SPAN = 1 << 14


def _narrowed(message: str, shapes: Any) -> tuple[Any, list[str]] | None:
    """`shapes` with each Dim a violated guard names narrowed to the values that satisfy all its
    guards, where torch suggests nothing (`1 + (h - 1) // 32 != 1`: h >= 33): a range, or a
    multiple of a step as a derived Dim; None when no guard narrows a Dim to such a set."""
    import math

    import torch

    guards: dict[str, list[str]] = {}
    for match in _NOT_ALL_VALUES.finditer(message):
        source, guard = match["source"], match["guard"]
        rest = guard.replace(source, "v")
        if "L[" in rest or "size()" in rest:
            continue  # a guard over two inputs: not one Dim's range
        guards.setdefault(match["name"], []).append(rest)
    found: dict[str, Any] = {}
    notes: list[str] = []

    def visit(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                visit(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                visit(v)
        elif getattr(value, "__name__", None) in guards and hasattr(value, "min"):
            found[value.__name__] = value

    visit(shapes)
    replace: dict[str, Any] = {}
    for name, dim in found.items():
        low = max(int(dim.min), 0)
        high = int(dim.max) if dim.max is not None and dim.max < 2**62 else low + _NARROW_SPAN
        if high - low > _NARROW_SPAN:
            continue
        try:
            # torch renders a ceil of a true division as `math.ceil(v / 4)` (a patch grid's size)
            kept = [v for v in range(low, high + 1)
                    if all(eval(g, {"math": math}, {"v": v}) for g in guards[name])]  # noqa: S307
        except Exception:  # noqa: BLE001 - a guard in a form Python does not evaluate
            continue
        if not kept:
            continue
        if len(kept) == high - low + 1:
            # every declared value satisfies the guards, but torch cannot prove it (`1 % (16 *
            # (w // 2)) != 0` for w >= 8): over `v // k` alone, v as k * Dim makes `v // k` a
            # plain symbol its solver reasons about (the range narrowed to multiples of k)
            steps = {int(k) for g in guards[name] for k in re.findall(r"\bv // (\d+)\b", g)}
            step = steps.pop() if len(steps) == 1 else 0
            if step > 1 and high // step > -(-low // step):
                kept_low, kept_high = -(-low // step), high // step
                replace[name] = step * torch.export.Dim(f"_{name}", min=kept_low, max=kept_high)
                notes.append(f"{name} a multiple of {step} in [{kept_low * step}, {kept_high * step}]: every "
                             f"declared value satisfies its guards over {name} // {step}, which torch cannot prove")
            continue
        step = math.gcd(*(v - kept[0] for v in kept[1:])) if len(kept) > 1 else 1
        if kept != list(range(kept[0], kept[-1] + 1, step or 1)):
            continue  # not one range or progression
        if step > 1 and kept[0] % step == 0:
            replace[name] = step * torch.export.Dim(f"_{name}", min=kept[0] // step, max=kept[-1] // step)
            notes.append(f"{name} a multiple of {step} in [{kept[0]}, {kept[-1]}]")
        elif step <= 1 or len(kept) == 1:
            if len(kept) == 1:
                continue  # one value: that is making it static, torch's suggestion says so
            replace[name] = torch.export.Dim(name, min=kept[0], max=kept[-1])
            notes.append(f"{name} in [{kept[0]}, {kept[-1]}]")
    if not replace:
        return None

    def rebuilt(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: rebuilt(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(rebuilt(v) for v in value)
        return replace.get(getattr(value, "__name__", None), value) if hasattr(value, "min") else value

    return rebuilt(shapes), notes


#: the steps tried, smallest first, where torch's own solver fails on the guards of a named Dim
_STEPS = (2, 4, 8, 16, 32)


def _solver_failed(error: BaseException) -> bool:
    """Whether export failed inside torch's solver for `dynamic_shapes` suggestions (its sympy
    cannot solve a floor-division inequality: a pooling with `ceil_mode=True` gives one), not on
    the model: it names no line and suggests nothing."""
    frames = traceback.extract_tb(error.__traceback__)
    return isinstance(error, AssertionError) and any(
        f.name in ("prettify_results", "solve", "forced_specializations") for f in frames[-3:]
    )


def _named_dims(value: Any, found: dict[str, Any]) -> dict[str, Any]:
    """The named Dims (not derived ones) in a `dynamic_shapes` value, by name."""
    if isinstance(value, dict):
        for v in value.values():
            _named_dims(v, found)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _named_dims(v, found)
    elif getattr(value, "root", None) is None and hasattr(value, "min") and hasattr(value, "__name__"):
        found.setdefault(value.__name__, value)
    return found


def _replaced(value: Any, replace: dict[str, Any]) -> Any:
    """`value` (a `dynamic_shapes`) with the Dims named in `replace` replaced."""
    if isinstance(value, dict):
        return {k: _replaced(v, replace) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_replaced(v, replace) for v in value)
    return replace.get(getattr(value, "__name__", None), value) if hasattr(value, "min") else value


def _example_sizes(shapes: Any, inputs: Any, sizes: dict[str, int]) -> dict[str, int]:
    """Each named Dim's size in the example (the tensor at its place in `inputs`)."""
    if isinstance(shapes, dict) and hasattr(inputs, "shape"):
        for axis, dim in shapes.items():
            if isinstance(axis, int) and hasattr(dim, "__name__") and axis < len(inputs.shape):
                sizes.setdefault(dim.__name__, int(inputs.shape[axis]))
    elif isinstance(shapes, (list, tuple)) and isinstance(inputs, (list, tuple)):
        for value, tensor in zip(shapes, inputs, strict=False):
            _example_sizes(value, tensor, sizes)
    elif isinstance(shapes, dict) and isinstance(inputs, dict):
        for key, value in shapes.items():
            _example_sizes(value, inputs.get(key), sizes)
    return sizes


def _stepped(torch: Any, example: dict[str, Any], strict: bool) -> tuple[Any, list[str]] | None:
    """The example's named Dims as multiples of the smallest step that exports (`2*Dim("_h")`),
    where torch's solver fails on the guards they get or pins them: floor divisions by strides
    and patch grids are exact on multiples. Each Dim keeps its declared range (narrowed to the
    multiples), and the repair loop still compares the program with eager on a second size."""
    shapes = example["dynamic_shapes"]
    dims = _named_dims(shapes, {})
    inputs: Any = example["args"]
    if isinstance(shapes, dict):
        inputs = {**dict(zip(shapes, example["args"], strict=False)), **example["kwargs"]}
    sizes = _example_sizes(shapes, inputs, {})
    for step in _STEPS:
        replace: dict[str, Any] = {}
        notes: list[str] = []
        for name, dim in dims.items():
            low = -(-max(int(dim.min), 0) // step)
            high = (int(dim.max) if dim.max is not None and dim.max < 2**62 else 2**20) // step
            if name in sizes and sizes[name] % step == 0 and high > low:
                replace[name] = step * torch.export.Dim(f"_{name}", min=low, max=high)
                notes.append(f"{name} a multiple of {step} in [{low * step}, {high * step}]")
        if not dims or len(replace) < len(dims):
            return None  # a Dim whose example size or range leaves no multiple of the step
        candidate = _replaced(shapes, replace)
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                torch.export.export(example["model"], example["args"], example["kwargs"],
                                    dynamic_shapes=candidate, strict=strict)
        except Exception:  # noqa: BLE001, S112 - not this step: the next, larger one
            continue
        return candidate, notes
    return None


def _answer(request: dict[str, Any]) -> dict[str, Any]:
    import torch

    torch_dir = os.path.dirname(os.path.abspath(torch.__file__))
    torch.manual_seed(0)
    factory = _load(request)
    torch.manual_seed(0)
    example = normalise(factory())
    strict = example["strict"] if example["strict"] is not None else bool(request.get("strict"))
    model = example["model"]
    shapes = example["dynamic_shapes"]
    answer: dict[str, Any] = {"status": "ran", "model": type(model).__name__, "strict": strict,
                              "dynamic": shapes is not None}
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            program = torch.export.export(model, example["args"], example["kwargs"], dynamic_shapes=shapes,
                                          strict=strict)
    except Exception as error:  # noqa: BLE001 - the user's model may raise anything
        message = f"{type(error).__name__}: {error}"
        frames = _frames(error, torch_dir)
        answer.update(exported=False, error=message[:6000], kind=type(error).__name__, frames=frames)
        fixes = suggested_fixes(str(error))
        if not fixes and shapes is not None and "Constraints violated" in message:
            # the values its guards accept; else (guards Python cannot evaluate) the multiples that export
            narrowed = _narrowed(str(error), shapes) or _stepped(torch, example, strict)
            if narrowed is not None:
                answer.update(narrowed=_render(narrowed[0]), narrowed_by=narrowed[1],
                              pins=_pinning_guards(torch, example, strict))
        if not fixes and shapes is not None and _solver_failed(error):
            stepped = _stepped(torch, example, strict)
            if stepped is not None:
                answer.update(narrowed=_render(stepped[0]), narrowed_by=stepped[1])
        if fixes and shapes is not None:
            try:
                refined = refine_shapes(fixes, shapes)
                answer.update(suggested=fixes, refined=_render(refined), static=_static_dims(shapes, refined))
                # torch pins a dim whose guards hold on every multiple of a step (a patch grid
                # the size must fill: `2*ceil(h/2) == h`): the multiples keep it dynamic
                stepped = _stepped(torch, example, strict) if answer["static"] else None
                if stepped is not None:
                    answer.update(narrowed=_render(stepped[0]), narrowed_by=stepped[1])
                # where the guards come from, whether torch would pin a dim or narrow its range:
                # a code fix there keeps the whole declared range
                answer["pins"] = _pinning_guards(torch, example, strict)
            except Exception as refine_error:  # noqa: BLE001
                answer.update(suggested=fixes, refine_error=str(refine_error)[:500])
        return answer
    answer["exported"] = True
    with torch.no_grad():
        # the same random state for both: a model that draws random numbers (LSH hashing) draws
        # the same ones in eager and in the program
        torch.manual_seed(0)
        eager = model(*example["args"], **example["kwargs"])
        try:
            torch.manual_seed(0)
            mine = program.module()(*example["args"], **example["kwargs"])
        except Exception as error:  # noqa: BLE001 - a program exported for other data may reject these
            raised = f"{type(error).__name__}: {str(error)[:300]}"
            answer["differs"] = f"the exported program raises on the example: {raised}"
            return answer
    answer["differs"] = _equal(mine, eager)
    compared = answer
    for attempt in range(len(_OTHER_SIZES)):
        second = _second_input(program, example, attempt)
        if second is None:
            continue
        compared = _compare_second(model, program, second, answer)
        if not str(compared.get("second_differs") or "").startswith("the exported program rejects it"):
            break  # compared, or eager itself rejects it: else the program's guards want another size
    return compared


def _compare_second(
    model: Any, program: Any, second: tuple[tuple[Any, ...], dict[str, Any]], answer: dict[str, Any]
) -> dict[str, Any]:
    """`answer` with the comparison of the program and eager on the `second` input."""
    import torch

    answer = dict(answer)
    answer["second_shapes"] = [list(t.shape) for t in _leaves(second) if isinstance(t, torch.Tensor)]
    with torch.no_grad():
        try:
            torch.manual_seed(0)
            eager = model(*second[0], **second[1])
        except Exception as error:  # noqa: BLE001 - the model may need particular sizes
            answer["second"] = f"eager rejects it: {type(error).__name__}: {str(error)[:200]}"
            return answer
        try:
            torch.manual_seed(0)
            mine = program.module()(*second[0], **second[1])
        except Exception as error:  # noqa: BLE001
            rejected = f"{type(error).__name__}: {str(error)[:300]}"
            answer["second_differs"] = f"the exported program rejects it: {rejected}"
            return answer
    answer["second_differs"] = _equal(mine, eager)
    return answer


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                response = _answer(json.loads(line))
        except BaseException as error:  # noqa: BLE001 - SystemExit/MemoryError from user code included
            response = {"status": "error", "error": f"{type(error).__name__}: {str(error)[:3000]}",
                        "frames": _frames(error, os.path.dirname(__file__))}
        _protocol.write(json.dumps(response, default=str) + "\n")
        _protocol.flush()


if __name__ == "__main__":
    main()
