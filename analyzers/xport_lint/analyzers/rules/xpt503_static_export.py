from __future__ import annotations

from collections.abc import Callable, Iterator

import libcst as cst

from ..dataflow import is_tensor_like, param_value, walk_statements
from ..model import Applicability, Severity
from ..report import FixProposal
from ..rewrites import module_names, raised_by, sized_dim
from ..rule import Invalid, Rule, Scope, Valid

_FACTORIES = frozenset(
    {"torch.randn", "torch.rand", "torch.ones", "torch.zeros", "torch.empty", "torch.full", "torch.randint"}
)


def example_sizes(
    example: cst.BaseExpression | None, resolve: Callable[[cst.BaseExpression], str | None]
) -> list[cst.BaseExpression] | None:
    """The size of each dimension of an example input written as a factory call
    (`torch.randn(2, 5, 8)`, `torch.zeros((2, 5))`, `torch.full((2, 5), 0.0)`), or None."""
    if not isinstance(example, cst.Call):
        return None
    name = resolve(example.func)
    if name not in _FACTORIES:
        return None
    positional = [a.value for a in example.args if a.keyword is None and not a.star]
    if name == "torch.full":
        positional = positional[:1]
    elif name == "torch.randint":
        positional = positional[-1:]  # randint(low, high, size) / randint(high, size)
    if len(positional) == 1 and isinstance(positional[0], (cst.Tuple, cst.List)):
        return [e.value for e in positional[0].elements]
    if name in ("torch.full", "torch.randint") or not positional:
        return None
    # one bare argument may be a whole shape held in a variable: only a number is one dimension
    return positional if len(positional) > 1 or isinstance(positional[0], cst.Integer) else None


_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "=="}
_NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!="}
_OPERATORS = {cst.LessThan: "<", cst.LessThanEqual: "<=", cst.GreaterThan: ">",
              cst.GreaterThanEqual: ">=", cst.Equal: "=="}
Bounds = dict[tuple[str, int], list[int | None]]  # (parameter, dimension) -> [min, max]


def _invariants(
    forward: cst.FunctionDef, resolve: Callable[[cst.BaseExpression], str | None]
) -> Iterator[tuple[cst.BaseExpression, bool]]:
    """Conditions `forward` asserts: (test, holds) from `assert`, `torch._check` and `if ...: raise`."""
    for stmt in walk_statements(forward.body):
        if isinstance(stmt, cst.Assert):
            yield stmt.test, True
        elif (isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call) and stmt.value.args
              and resolve(stmt.value.func) == "torch._check"):
            yield stmt.value.args[0].value, True
        elif isinstance(stmt, cst.If) and raised_by(stmt) is not None:
            yield stmt.test, False


def _asserted_bounds(forward: cst.FunctionDef, resolve: Callable[[cst.BaseExpression], str | None]) -> Bounds:
    """Size ranges `forward` itself insists on, e.g. `assert x.shape[1] <= 512` -> x dim 1 max 512."""
    bounds: Bounds = {}

    def record(size: cst.BaseExpression, operator: str, limit: int) -> None:
        sized = sized_dim(size)
        if sized is None:
            return
        low, high = bounds.setdefault(sized, [None, None])
        if operator in ("<", "<="):
            limit = limit - 1 if operator == "<" else limit
            bounds[sized] = [low, limit if high is None else min(high, limit)]
        elif operator in (">", ">="):
            limit = limit + 1 if operator == ">" else limit
            bounds[sized] = [limit if low is None else max(low, limit), high]

    def visit(test: cst.BaseExpression, holds: bool) -> None:
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And) and holds:
            visit(test.left, holds)
            visit(test.right, holds)
            return
        if not isinstance(test, cst.Comparison):
            return
        left = test.left
        for target in test.comparisons:
            operator = _OPERATORS.get(type(target.operator))
            right = target.comparator
            if operator is not None and (holds or len(test.comparisons) == 1):
                operator = operator if holds else _NEGATE[operator]
                if isinstance(right, cst.Integer):
                    record(left, operator, right.evaluated_value)
                elif isinstance(left, cst.Integer):
                    record(right, _FLIP.get(operator, operator), left.evaluated_value)
            left = right

    for test, holds in _invariants(forward, resolve):
        visit(test, holds)
    return bounds


def _spec(param: str, rank: int, bounds: Bounds, torch: str) -> str:
    """Per-dimension spec: a named Dim where forward asserts a range, else Dim.AUTO. `torch`: the
    name the file's new code calls torch by."""
    dims = []
    for dim in range(rank):
        low, high = bounds.get((param, dim), (None, None))
        if high is not None and high < 2 or low is not None and high is not None and low > high:
            low = high = None  # a size of 0 or 1 is specialised anyway
        if low is None and high is None:
            dims.append(f"{torch}.export.Dim.AUTO")
            continue
        ranges = "".join(f", {key}={value}" for key, value in (("min", low), ("max", high)) if value is not None)
        dims.append(f'{torch}.export.Dim("{param}_{dim}"{ranges})')
    if all(d == f"{torch}.export.Dim.AUTO" for d in dims):
        return f"({torch}.export.Dim.AUTO,) * {rank}"
    return f"({', '.join(dims)})"


class StaticExport(Rule):
    """`torch.export.export` of a model without `dynamic_shapes`: every input size is baked in.

    ## What it does
    Flags `torch.export.export(Model(...), args)` calls with no `dynamic_shapes`, where `Model`
    is defined in the file, and offers `dynamic_shapes` with `Dim.AUTO` on every dimension of
    each tensor argument of `forward` (keyed by its parameter names), when the call's example
    inputs are factory calls (`torch.randn(2, 5, 8)`), written in it or read through names and
    one-line helpers of the project, which give their ranks. torch 2.13
    rejects `Dim.AUTO` for a whole tensor (`{"x": Dim.AUTO}`): the spec is per dimension.

    ## Why it fails torch.export
    It does not fail: export succeeds, with every dimension of every input specialised to the
    example's size. The exported program then rejects any other batch size or sequence length
    (`Guard failed: x.size()[0] == 2`), which deployment usually finds out late.

    ## Example
    ```python
    ep = torch.export.export(Encoder(), (torch.randn(2, 16),))
    ```

    ## Use instead
    ```python
    ep = torch.export.export(Encoder(), (torch.randn(2, 16),), dynamic_shapes={"tokens": (Dim.AUTO,) * 2})
    ```
    or named ranges where you know them: `{"tokens": {0: Dim("batch", max=64)}}`.

    ## Fix safety
    Unsafe. Where `forward` itself asserts a size range (`assert x.shape[1] <= 512`,
    `torch._check(x.size(0) >= 2)`, `if x.size(1) > 512: raise ...`), that dimension gets a
    named `Dim("x_1", max=512)`: export then fails loudly if the code needs a narrower range,
    and a named `Dim` without the assertion's bound would fail ("Not all values of x_1 ...
    satisfy the generated guard"). Elsewhere `Dim.AUTO` lets export decide which dimensions
    stay dynamic. An example dimension of
    size 0 or 1 is still specialised (torch logs "0/1 specialized"), and a branch on a size
    narrows the range (see XPT301): give the example sizes of at least 2 and check the program's
    `range_constraints`.

    ## Modes
    Info in both modes (advice: the static program is what you asked for). Opt-in:
    `extend-select = ["XPT503"]`.
    """

    CODE = "XPT503"
    NAME = "static-export"
    SEVERITY = Severity.INFO
    STRICT_SEVERITY = Severity.INFO
    SCOPE = Scope.MODULE
    TRIGGERS = ("export(",)
    #: static shapes are often what a deployment wants (fixed-size on-device models): opt in
    DEFAULT_ENABLED = False
    PYTORCH_NAME = "static shapes (the default of torch.export.export)"

    def visit_Call(self, node: cst.Call) -> None:
        site = self.ctx.program.export_site(node)
        if (
            site is None or site.api != "torch.export.export" or len(node.args) < 2 or site.written_shapes is not None
            or not site.is_method or site.forward is None
        ):
            return
        forward, positional = site.forward, site.positional
        examples = list(site.examples or ())
        bounds = _asserted_bounds(forward, self.ctx.resolve)
        spelling = module_names(self.ctx.program.module)
        specs, unknown = [], []
        for param, example in zip(positional, examples, strict=False):
            if param.default is not None or not is_tensor_like(param_value(param)):
                continue
            sizes = example_sizes(example, self.ctx.resolve)
            if sizes is None:
                unknown.append(param.name.value)
            else:
                specs.append(f'"{param.name.value}": {_spec(param.name.value, len(sizes), bounds, spelling.torch)}')
        message = f"exports `{site.model_class}` with static shapes: every input size is fixed"
        fix = None
        if unknown or not specs:
            names = ", ".join(f"`{n}`" for n in unknown) or "the inputs"
            message += f" (no automatic fix: the rank of {names} is not shown by the call)"
        else:
            keyword = cst.Arg(
                keyword=cst.Name("dynamic_shapes"),
                value=cst.parse_expression("{" + ", ".join(specs) + "}"),
                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
            )
            args = list(node.args)
            last = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            named = "Dim(" in "".join(specs)
            fix = FixProposal(
                "Add dynamic_shapes with Dim.AUTO (export decides which sizes stay dynamic)"
                if not named else
                "Add dynamic_shapes: named Dims with the ranges forward asserts, Dim.AUTO elsewhere",
                Applicability.UNSAFE,
                ((node, node.with_changes(args=[*args[:-1], last, keyword])),),
                imports=spelling.imports,
            )
        self.report(node, message, fix=fix)

    VALID = [
        Valid(
            """
            import torch
            class Encoder(torch.nn.Module):
                def forward(self, tokens):
                    return tokens.cumsum(-1)
            def xport_example():
                return Encoder(), (torch.randn(2, 8),)
            def export():
                return torch.export.export(Encoder(), (torch.randn(2, 8),), dynamic_shapes={"tokens": {0: torch.export.Dim("batch")}})
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Encoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = torch.nn.Linear(8, 8)
                def forward(self, tokens, mask):
                    return self.proj(tokens) * mask.unsqueeze(-1)
            def xport_example():
                return Encoder(), (torch.randn(2, 5, 8), torch.ones(2, 5))
            def export():
                return torch.export.export(Encoder(), (torch.randn(2, 5, 8), torch.ones(2, 5)))  # expect: XPT503
            """,
            expected_replacement="""
            import torch
            class Encoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = torch.nn.Linear(8, 8)
                def forward(self, tokens, mask):
                    return self.proj(tokens) * mask.unsqueeze(-1)
            def xport_example():
                return Encoder(), (torch.randn(2, 5, 8), torch.ones(2, 5))
            def export():
                return torch.export.export(Encoder(), (torch.randn(2, 5, 8), torch.ones(2, 5)), dynamic_shapes={"tokens": (torch.export.Dim.AUTO,) * 3, "mask": (torch.export.Dim.AUTO,) * 2})  # expect: XPT503
            """,
        ),
        Invalid(
            """
            import torch
            class Classifier(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.head = torch.nn.Linear(8, 3)
                def forward(self, features):
                    return self.head(features).softmax(-1)
            def xport_example():
                return Classifier(), (torch.randn(4, 8),)
            def export():
                features = torch.randn(4, 8)
                return torch.export.export(Classifier(), (features,))  # expect: XPT503
            """,
            # the example bound to a name is read through it: its rank is known
            expected_replacement="""
            import torch
            class Classifier(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.head = torch.nn.Linear(8, 3)
                def forward(self, features):
                    return self.head(features).softmax(-1)
            def xport_example():
                return Classifier(), (torch.randn(4, 8),)
            def export():
                features = torch.randn(4, 8)
                return torch.export.export(Classifier(), (features,), dynamic_shapes={"features": (torch.export.Dim.AUTO,) * 2})  # expect: XPT503
            """,
        ),
        Invalid(
            """
            import torch
            class PositionalEncoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.positions = torch.nn.Parameter(torch.randn(512, 8))
                def forward(self, tokens):
                    # the learned table covers 512 positions
                    assert tokens.shape[1] <= 512, "sequence longer than the position table"
                    return tokens + self.positions[: tokens.shape[1]]
            def xport_example():
                return PositionalEncoder(), (torch.randn(2, 5, 8),)
            def export():
                return torch.export.export(PositionalEncoder(), (torch.randn(2, 5, 8),))  # expect: XPT503
            """,
            expected_replacement="""
            import torch
            class PositionalEncoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.positions = torch.nn.Parameter(torch.randn(512, 8))
                def forward(self, tokens):
                    # the learned table covers 512 positions
                    assert tokens.shape[1] <= 512, "sequence longer than the position table"
                    return tokens + self.positions[: tokens.shape[1]]
            def xport_example():
                return PositionalEncoder(), (torch.randn(2, 5, 8),)
            def export():
                return torch.export.export(PositionalEncoder(), (torch.randn(2, 5, 8),), dynamic_shapes={"tokens": (torch.export.Dim.AUTO, torch.export.Dim("tokens_1", max=512), torch.export.Dim.AUTO)})  # expect: XPT503
            """,
        ),
    ]
