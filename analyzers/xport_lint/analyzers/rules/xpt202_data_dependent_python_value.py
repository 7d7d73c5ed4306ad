from __future__ import annotations

import libcst as cst

from ..dataflow import Kind, is_tensor_like
from ..dtypes import DType
from ..model import Applicability, Mode, Severity
from ..positions import code_of
from ..report import FixProposal
from ..rewrites.common import receiver
from ..rewrites.predicates import read_list_source
from ..rule import Invalid, Rule, TorchError, Valid
from ..syntax import counted
from ..walk import iter_nodes
from ._conditions import short

_OPS = frozenset({"equal", "allclose", "is_nonzero"})
#: Python's builtins that compare or test the elements of what they iterate, in Python
_ELEMENT_TESTS = frozenset({"max", "min", "sorted"})


class DataDependentPythonValue(Rule):
    """A Python value computed from tensor data: `torch.equal`, `allclose`, `max(t)`, `sorted(t.tolist())`.

    ## What it does
    Flags `torch.equal`, `torch.allclose`, `torch.is_nonzero` and their method forms in traced
    code, and Python's `max()`, `min()` and `sorted()` of one tensor, `sorted()` of a list read
    from one (`t.tolist()`), and any of the three ordering tensors by a `key=` that reduces their
    data (`sorted(outs, key=lambda t: t.sum())`, or a local `def`). (`any(t)` and `all(t)` are XPT104's: a bool read from data, tested.)

    ## Why it fails torch.export
    Their output is a Python value, not a tensor, and it depends on the data: fake tensors cannot
    produce it. Non-strict export raises `DataDependentOutputException: aten.equal.default`;
    strict export raises `Unsupported: Data dependent operator`. The builtins compare the elements
    in Python, a guard on data (measured on torch 2.13: `sorted()` fails both modes; `max(t)` and `min(t)` fail non-strict with `TypeError: maximum() missing 1
    required positional arguments` and export strict; `max(t.tolist())`, `max(x.shape)` and
    `max(v for v in t)` export in both). Ordering a list of tensors by a key read from their data
    compares those values in Python too: `sorted(outs, key=lambda t: t.sum())` and `max(outs,
    key=...)` fail in both modes (measured; a key of sizes only, `t.shape[0]`, exports non-strict).

    ## Example
    ```python
    if torch.allclose(x, y):
        ...
    ```

    ## Use instead
    `torch.isclose(x, y).all()` or `(x == y).all()` keep the answer a tensor; select with
    `torch.where` or `torch.cond`. `t.max()` and `t.sort().values` keep the others tensors.

    ## Fix safety
    No automatic fix.

    ## Modes
    Error in both modes (torch 2.13), but `max()`/`min()` of a tensor: non-strict only.
    """

    CODE = "XPT202"
    NAME = "data-dependent-python-value"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    PYTORCH_NAME = "DataDependentOutputException"
    FAILS_WITH = {
        Mode.NON_STRICT: (
            TorchError("DataDependentOutputException", "aten."),
            TorchError("TypeError", "missing 1 required positional arguments"),
            TorchError("GuardOnDataDependentSymNode", "Could not guard on data-dependent expression"),
        ),
        Mode.STRICT: (
            TorchError("Unsupported", "Data dependent operator"),
            TorchError("Unsupported", "sort with non-constant keys"),
            TorchError("Unsupported", "Failed to trace builtin operator"),
            TorchError("Unsupported", "Data-dependent branching"),
        ),
    }

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name) and func.value in _ELEMENT_TESTS:
            self._element_test(node, func.value)
            return
        if not isinstance(func, cst.Attribute) or func.attr.value not in _OPS:
            return
        qualified = self.ctx.resolve(func)
        is_torch_fn = qualified is not None and qualified.startswith("torch.")
        is_method = qualified is None and is_tensor_like(self.ctx.value(func.value))
        if is_torch_fn or is_method:
            self.report(node, f"`{short(node)}` returns a Python bool computed from tensor data")

    def _element_test(self, node: cst.Call, builtin: str) -> None:
        """`max(t)`, `sorted(t.tolist())`, `any(t > 0)`: the builtin compares or tests the elements."""
        if self._keyed_by_data(node, builtin):
            return
        positional = [a for a in node.args if a.keyword is None]
        if self.ctx.resolve(node.func) is not None or len(positional) != 1 or any(a.star for a in node.args):
            return  # shadowed, two values compared, or a starred list
        iterated = positional[0].value
        if isinstance(iterated, (cst.List, cst.Tuple, cst.Set, cst.GeneratorExp, cst.ListComp)):
            return
        value = self.ctx.value(iterated)
        tensor = is_tensor_like(value) and not value.has(Kind.STRUCTURE)
        read_list = builtin == "sorted" and value.has(Kind.DATA_LIST)
        if not (tensor or read_list) or (builtin in ("max", "min") and self.ctx.mode is Mode.STRICT):
            return
        what = "the list read from" if read_list and not tensor else "the elements of"
        message = f"`{short(node)}`: Python's `{builtin}()` compares {what} tensor data " \
                  f"`{short(iterated)}` one by one, a guard on data"
        replacement, reason = self._tensor_form(node, builtin, iterated, tensor)
        if replacement is None:
            self.report(node, f"{message} (no automatic fix: {reason})")
            return
        fix = FixProposal(f"Compute it with torch: `{code_of(replacement)}`", Applicability.UNSAFE, ((node, replacement),))
        self.report(node, message, fix=fix)

    def _keyed_by_data(self, node: cst.Call, builtin: str) -> bool:
        """`sorted(outs, key=lambda t: t.sum())` over tensors (or `max`/`min`, or a key a local
        `def` computes): Python compares what the key reads from each tensor's data, a guard on
        data (measured on torch 2.13: fails non-strict, and strict with "sort with non-constant
        keys"); a key of sizes only (`t.shape[0]`) exports non-strict. Whether it was reported."""
        key = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "key"), None)
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        if key is None or len(positional) != 1 or self.ctx.resolve(node.func) is not None:
            return False
        if not is_tensor_like(self.ctx.value(positional[0])):
            return False  # the elements are not known to be tensors
        if isinstance(key, cst.Name) and self.ctx.flow is not None:
            key = self.ctx.flow.bound_once(key.value) or key  # `part = lambda t: t.sum()`, then `key=part`
        computed = _key_body(key, self.ctx.traced.func if self.ctx.traced is not None else None)
        if computed is None:
            return False
        parameter, body = computed
        reads = [n for n in iter_nodes(body) if isinstance(n, cst.Name) and n.value == parameter]
        if not reads or not _reduced(body, parameter) or _sizes_read(body) & {id(read) for read in reads}:
            return False
        self.report(node, f"`{short(node)}`: Python's `{builtin}()` compares `{short(body)}` of each tensor, read from"
                          " its data, one by one: a guard on data (no automatic fix: `torch.stack` the keys and"
                          " order with `argsort`/`argmax`)")
        return True

    def _tensor_form(
        self, node: cst.Call, builtin: str, iterated: cst.BaseExpression, tensor: bool
    ) -> tuple[cst.BaseExpression | None, str]:
        """torch's op for the builtin over a 1-d tensor (eager raises on the rows of a wider one):
        `max(t)` -> `t.max()`, `sorted(t)` -> `t.sort().values`, `sorted(t.tolist())` ->
        `t.sort().values.tolist()` where `t` is known to hold integers (dtypes.py; measured on torch
        2.13: each exports in both modes and equals eager; `.tolist()` of a float tensor fails strict
        export). None, with
        why, where the tensor is a helper's parameter (another caller may pass a list)."""
        func = self.ctx.traced.func if self.ctx.traced is not None else None
        if func is not None and func.name.value != "forward" and isinstance(iterated, cst.Name) and any(
            p.name.value == iterated.value for p in func.params.params
        ):
            return None, f"`{iterated.value}` is a parameter of `{func.name.value}`, whose other callers may pass a list"
        if builtin in ("max", "min"):
            return cst.parse_expression(f"{receiver(iterated)}.{builtin}()"), ""
        source, listed = iterated, False
        if not tensor:
            read = read_list_source(self.ctx.flow, iterated) if self.ctx.flow is not None else None
            if read is None:
                return None, f"`{short(iterated)}` is not the list of one tensor read here; sort that tensor"
            if self.ctx.dtypes().of(read) is not DType.INTEGRAL:
                # measured on torch 2.13: strict export traces `.tolist()` of integer tensors only
                return None, (f"`{short(read)}` is not known to hold integers, and strict export reads no"
                              " other tensor into a list; sort the tensor and keep it a tensor")
            source, listed = read, True
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if set(keywords) - {"reverse"}:
            return None, "a `key=` orders by what it computes"
        descending = f"descending={code_of(keywords['reverse'])}" if "reverse" in keywords else ""
        sorted_code = f"{receiver(source)}.sort({descending}).values"
        return cst.parse_expression(f"{sorted_code}.tolist()" if listed else sorted_code), ""

    VALID = [
        Valid(
            """
            import torch
            class Converged(torch.nn.Module):
                def forward(self, x, y):
                    return torch.where(torch.isclose(x, y).all(), x, (x + y) / 2)
            def xport_example():
                return Converged(), (torch.randn(4), torch.randn(4))
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Experts(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.experts = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)])
                def forward(self, x):
                    outs = [expert(x) for expert in self.experts]
                    ranked = sorted(outs, key=lambda t: t.sum())  # expect: XPT202
                    return ranked[-1] + ranked[-2]
            def xport_example():
                return Experts(), (torch.randn(2, 4),)
            """
        ),
        Invalid(
            """
            import torch
            class Converged(torch.nn.Module):
                def forward(self, x, y):
                    if torch.allclose(x, y):  # expect: XPT202
                        return x
                    return (x + y) / 2
            def xport_example():
                return Converged(), (torch.randn(4), torch.randn(4))
            """
        ),
        Invalid(
            """
            import torch
            class Cache(torch.nn.Module):
                def forward(self, key, cached):
                    same = key.equal(cached)  # expect: XPT202
                    return cached * 2 if same else key
            def xport_example():
                return Cache(), (torch.ones(3), torch.ones(3))
            """
        ),
        Invalid(
            """
            import torch
            class Longest(torch.nn.Module):
                def forward(self, x, lengths):
                    ordered = sorted(lengths.tolist(), reverse=True)  # expect: XPT202
                    return x * ordered[0]
            def xport_example():
                return Longest(), (torch.randn(4), torch.tensor([5, 3, 7, 1]))
            """,
            expected_replacement="""
            import torch
            class Longest(torch.nn.Module):
                def forward(self, x, lengths):
                    ordered = lengths.sort(descending=True).values.tolist()  # expect: XPT202
                    return x * ordered[0]
            def xport_example():
                return Longest(), (torch.randn(4), torch.tensor([5, 3, 7, 1]))
            """,
            other_args="(torch.randn(4), torch.tensor([2, 9, 4, 1]))",
        ),
    ]


def _key_body(key: cst.BaseExpression, func: cst.FunctionDef | None) -> tuple[str, cst.BaseExpression] | None:
    """The parameter and the returned expression of a `key=`: a one-parameter lambda, or a
    one-parameter function defined in `func` whose body is one `return`."""
    if isinstance(key, cst.Lambda) and len(key.params.params) == 1 and not key.params.kwonly_params:
        return key.params.params[0].name.value, key.body
    if not isinstance(key, cst.Name) or func is None:
        return None
    local = next((n for n in iter_nodes(func.body) if isinstance(n, cst.FunctionDef) and n.name.value == key.value), None)
    if local is None or len(local.params.params) != 1:
        return None
    lines = local.body.body if isinstance(local.body, cst.IndentedBlock) else ()
    returned = lines[0].body[0] if len(lines) == 1 and isinstance(lines[0], cst.SimpleStatementLine) else None
    if not isinstance(returned, cst.Return) or returned.value is None:
        return None
    return local.params.params[0].name.value, returned.value


#: tensor methods reducing a tensor's data to one value: a key calling one on its parameter reads data
_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "amax", "amin", "norm", "std", "var", "item", "count_nonzero",
                         "any", "all", "prod", "median"})


def _reduced(body: cst.BaseExpression, parameter: str) -> bool:
    """Whether `body` reduces the key's parameter by a tensor method (`t.sum()`, `t.abs().mean()`)."""
    for node in iter_nodes(body):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _REDUCTIONS:
            root = node.func.value
            while isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute):
                root = root.func.value
            if isinstance(root, cst.Name) and root.value == parameter:
                return True
    return False


def _sizes_read(body: cst.BaseExpression) -> set[int]:
    """The ids of the values `body` reads a size, the shape or the dtype of (`t.shape[0]`,
    `len(t)`, `t.size()`, `t.dtype`): a key reading those is not one of data."""
    read = set()
    for node in iter_nodes(body):
        if isinstance(node, cst.Attribute) and node.attr.value in ("shape", "size", "dtype"):
            read.add(id(node.value))
        elif (sized := counted(node)) is not None:
            read.add(id(sized))
    return read
