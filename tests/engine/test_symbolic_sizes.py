"""Symbolic sizes: how the export site declares each dimension, what the model's ops make of an
input's size, and what a hover on a size says. Static and fast: no torch (the facts these
implement are measured by the rule examples in tests/truth)."""

from __future__ import annotations

import textwrap

import libcst as cst

from xport_lint.analyzers.index import ClassSummary, ModuleSummary
from xport_lint.analyzers.runner import size_facts
from xport_lint.analyzers.shapes import (
    DimKind,
    DimSpec,
    ExampleInputs,
    ShapesReader,
    Sizes,
    block_dims,
    declared_examples,
    init_buffers,
    init_constants,
    init_layers,
    returned_at,
)
from xport_lint.analyzers.walk import iter_nodes


def reader_of(source: str) -> tuple[cst.Module, ShapesReader]:
    module = cst.parse_module(textwrap.dedent(source))
    names = {"Dim": "torch.export.Dim", "dims": "torch.export.dims", "torch": "torch"}

    def resolve(node: cst.BaseExpression) -> str | None:
        if isinstance(node, cst.Name):
            return names.get(node.value)
        if isinstance(node, cst.Attribute):
            inner = resolve(node.value)
            return f"{inner}.{node.attr.value}" if inner else None
        return None

    return module, ShapesReader(module, resolve)


def test_dims_bound_by_unpacking_and_by_dims_are_read_with_their_ranges() -> None:
    _, reader = reader_of("""
        batch, seq = dims("batch", "seq", max=64)
        a, b = Dim("a", min=4), Dim("b")
        shapes = {"x": {0: batch, 1: seq}, "y": {0: a, 1: b}}
    """)
    config = reader.config(cst.Name("shapes"), "test")
    assert config is not None
    assert config.dim("x", None, 0) == DimSpec(DimKind.NAMED, "batch", None, 64)
    assert config.dim("x", None, 1) == DimSpec(DimKind.NAMED, "seq", None, 64)
    assert config.dim("y", None, 0) == DimSpec(DimKind.NAMED, "a", 4, None)


def test_a_derived_dim_keeps_its_root_range_and_formula() -> None:
    _, reader = reader_of("""
        dx = Dim("dx", min=2, max=32)
        shapes = {"x": {0: dx}, "y": {0: 2 * dx + 1}}
    """)
    config = reader.config(cst.Name("shapes"), "test")
    assert config is not None
    derived = config.dim("y", None, 0)
    assert (derived.name, derived.scale, derived.offset) == ("dx", 2, 1)
    assert derived.text() == "2*dx + 1"
    assert derived.range_text() == "2*dx + 1 ∈ [5, 65]"
    assert config.dim("x", None, 0).range_text() == "dx ∈ [2, 32]"


def test_a_name_bound_twice_is_not_followed() -> None:
    _, reader = reader_of("""
        batch = Dim("batch")
        batch = Dim("batch", max=8)
        shapes = {"x": {0: batch}}
    """)
    assert reader.config(cst.Name("shapes"), "test") is None


def test_example_sizes_come_from_factory_calls_at_the_declaration() -> None:
    module, reader = reader_of("""
        def xport_example():
            return {"model": Net(), "args": (torch.randn(2, 8), mask), "dynamic_shapes": None}
    """)
    func = module.body[0]
    assert isinstance(func, cst.FunctionDef)
    returned = next(n for n in iter_nodes(func) if isinstance(n, cst.Dict))
    args = next(e.value for e in returned.elements if isinstance(e.key, cst.SimpleString) and e.key.value == '"args"')
    assert declared_examples(ExampleInputs(at=func, args=args, kwargs=None), reader) == ((2, 8), None)


FORWARD = """
class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 16)
        self.conv = nn.Conv1d(8, 8, 3)
        self.norm = nn.LayerNorm(16)
    def forward(self, x):
        h = self.norm(self.proj(x)).float()
        c = self.conv(x)
        t = h.transpose(0, 1)
        u = self.unknown(x)
        return h, c, t, u
"""


def sizes_of(source: str) -> Sizes:
    cls = cst.parse_module(source).body[0]
    assert isinstance(cls, cst.ClassDef)
    forward = next(s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "forward")
    return Sizes(forward, layers=init_layers(cls))


def test_a_size_follows_the_ops_that_keep_it() -> None:
    sizes = sizes_of(FORWARD)
    # Linear changes only the last dimension, LayerNorm and .float() keep every one
    assert sizes.through("h", 0) == ("x", 0, 0)
    # a convolution keeps the batch only
    assert sizes.through("c", 0) == ("x", 0, 0)
    assert sizes.through("c", 2) is None
    # transpose moves dimensions
    assert sizes.through("t", 1) == ("x", 0, 0)


LAST_CHANGED = """
class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 16)
        self.embed = nn.Embedding(100, 16)
    def forward(self, x, ids):
        h = self.proj(x)
        e = self.embed(ids)
        return h, e
"""


def test_a_linear_layer_changes_the_last_dimension_and_an_embedding_adds_one() -> None:
    sizes = sizes_of(LAST_CHANGED)
    sizes.ranks = {0: 3, 1: 2}  # x: (batch, seq, 8); ids: (batch, seq)
    assert sizes.through("h", 1) == ("x", 0, 1) and sizes.through("h", -2) == ("x", 0, -2)
    assert sizes.through("h", -1) is None and sizes.through("h", 2) is None  # the layer's width
    assert sizes.through("e", 1) == ("ids", 1, 1) and sizes.through("e", -2) == ("ids", 1, -1)
    assert sizes.through("e", -1) is None and sizes.through("e", 2) is None  # the embedding's width
    unranked = sizes_of(LAST_CHANGED)
    unranked.ranks = {}  # ranks unknown: only what holds whatever the rank
    assert unranked.through("h", 0) == ("x", 0, 0) and unranked.through("h", 1) is None


def test_an_op_not_modelled_leaves_the_size_unknown() -> None:
    assert sizes_of(FORWARD).through("u", 0) is None


def test_a_hover_on_a_size_of_an_intermediate_tensor_names_the_input_dim_and_its_range() -> None:
    source = textwrap.dedent("""
        import torch
        from torch.export import Dim
        class Head(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = torch.nn.Linear(3, 5)
            def forward(self, x):
                h = self.proj(x)
                if h.shape[0] > 4:
                    return h * 2
                return h
        def xport_example():
            batch = Dim("batch", max=64)
            return {"model": Head(), "args": (torch.randn(6, 3),), "dynamic_shapes": {"x": {0: batch}}}
    """)
    facts = [text for _, text in size_facts(source, "head.py")]
    assert any(text.startswith('`x.shape[0]` is dynamic, `Dim("batch", max=64)`: `batch ∈ [2, 64]`') for text in facts)


def test_a_block_summary_says_which_argument_dimensions_its_forward_hands_back() -> None:
    """`block_dims`: what a caller in another file reads through `self.block(x)`: a residual
    block keeps every dimension of its argument; a pooling head keeps the batch only."""
    module = cst.parse_module(textwrap.dedent("""
        import torch
        class Residual(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.norm = torch.nn.LayerNorm(6)
            def forward(self, h):
                return self.norm(h) + h
        class Head(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.pool = torch.nn.AdaptiveAvgPool1d(1)
            def forward(self, h):
                return self.pool(h)
    """))
    classes = {c.name.value: c for c in module.body if isinstance(c, cst.ClassDef)}
    assert block_dims(classes["Residual"], classes) == ((0, 0, 0), (1, 0, 1), (2, 0, 2), (3, 0, 3))
    assert block_dims(classes["Head"], classes) == ((0, 0, 0),)


def test_block_dims_survive_the_summary_round_trip() -> None:
    summary = ModuleSummary("pkg.blocks", "pkg/blocks.py", classes={
        "Residual": ClassSummary(["torch.nn.Module"], module=True, dims=((0, 0, 0), (1, 0, 1))),
    })
    assert ModuleSummary.from_plain(summary.to_plain(), "pkg/blocks.py").classes["Residual"].dims == (
        (0, 0, 0), (1, 0, 1)
    )


def test_a_name_bound_again_reads_its_first_value_before_the_second_binding() -> None:
    """`h = self.norm(t)` then `if h.shape[1] > 8: h = h[:, :8]`: the test reads the first `h`;
    after the second binding `h` is no longer known."""
    cls = cst.parse_module(textwrap.dedent("""
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.norm = nn.LayerNorm(4)
            def forward(self, t):
                h = self.norm(t)
                if h.shape[1] > 8:
                    h = h[:, :8]
                if h.shape[1] > 2:
                    h = h * 2
                return h
    """)).body[0]
    assert isinstance(cls, cst.ClassDef)
    forward = next(s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "forward")
    sizes = Sizes(forward, layers=init_layers(cls))
    first, second = (s.test for s in forward.body.body if isinstance(s, cst.If))
    assert sizes.refs(first) == [("t", 0, 1)]
    assert sizes.refs(second) is None


def test_a_tuple_of_integers_set_in_init_gives_each_element() -> None:
    cls = cst.parse_module("class P(nn.Module):\n    def __init__(self):\n        self.img_size = (16, 24)\n").body[0]
    assert isinstance(cls, cst.ClassDef)
    assert init_constants(cls) == {"img_size[0]": 16, "img_size[1]": 24}


def test_a_position_ids_buffer_has_the_length_arange_gives_it() -> None:
    _, reader = reader_of("")
    buffers = init_buffers(cst.parse_module(textwrap.dedent("""
        class Embed(nn.Module):
            def __init__(self):
                self.register_buffer("position_ids", torch.arange(64).expand((1, -1)), persistent=False)
                self.register_buffer("steps", torch.arange(10).unsqueeze(0).view(2, -1))
                self.register_buffer("unknown", torch.arange(n).expand((1, -1)))
    """)).body[0], reader.resolve)  # type: ignore[arg-type]
    assert buffers == {"position_ids": (1, 64), "steps": (2, 5)}


def test_a_buffer_assigned_as_nn_buffer_or_parameter_has_its_sizes_too() -> None:
    _, reader = reader_of("")
    buffers = init_buffers(cst.parse_module(textwrap.dedent("""
        class Embed(nn.Module):
            def __init__(self):
                self.position_ids = nn.Buffer(torch.arange(64).expand((1, -1)), persistent=False)
                self.scale = torch.nn.Parameter(torch.ones(1, 8))
                self.config_sized = nn.Buffer(torch.arange(config.max_position_embeddings).expand((1, -1)))
    """)).body[0], reader.resolve)  # type: ignore[arg-type]
    assert buffers == {"position_ids": (1, 64), "scale": (1, 8)}


SLICES = """
class Embed(nn.Module):
    def forward(self, x, past: int = 0, scale: float = 1.0, start=-1):
        shape = x.size()
        b, s = shape
        a = self.pos[:, past : s + past]
        c = self.pos[:, : x.shape[1] + 1]
        d = self.pos[:, scale : s + scale]
        e = self.pos[:, start : s]
        f = self.pos[:, : s - past]
        g = self.pos[:, s :]
        return a, c, d, e, f, g
"""


def test_a_slice_ends_at_an_input_size_plus_counts_that_cannot_be_negative() -> None:
    sizes = sizes_of(SLICES)
    # the slice of dimension 1 each name is bound to (`a = self.pos[:, past : s + past]` -> `past : s + past`)
    slices = {
        node.targets[0].target.value: node.value.slice[1].slice  # type: ignore[attr-defined]
        for node in iter_nodes(cst.parse_module(SLICES))
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Subscript)
    }
    # `past: int = 0` and a literal are counts; `s` was unpacked from a name bound to `x.size()`
    assert sizes.slice_end(slices["a"]) == ("x", 0, 1)
    assert sizes.slice_end(slices["c"]) == ("x", 0, 1)
    # a float, a parameter defaulting to a negative number, a difference, no end: not a bound
    assert [sizes.slice_end(slices[name]) for name in "defg"] == [None, None, None, None]


def test_dynamic_shapes_through_dict_call_and_a_function_of_the_file_are_read() -> None:
    _, reader = reader_of("""
        def _shapes():
            return {"x": {1: Dim("w")}}
        by_call = dict(x={0: Dim("b", max=8)})
    """)
    from_function = reader.config(cst.parse_expression("_shapes()"), "test")
    assert from_function is not None and from_function.dim("x", None, 1) == DimSpec(DimKind.NAMED, "w", None, None)
    by_call = reader.config(cst.Name("by_call"), "test")
    assert by_call is not None and by_call.dim("x", None, 0) == DimSpec(DimKind.NAMED, "b", None, 8)


def test_an_init_name_bound_from_itself_is_read_once() -> None:
    """`scale = scale * 2` in `__init__`, then `self.scale = scale`: reading the buffer sizes
    followed the name into its own value forever, and the whole file (timm's gcvit) was reported
    as nesting too deep to analyse, with none of its findings."""
    from xport_lint.analyzers import check_source

    source = textwrap.dedent("""
        import torch
        import torch.nn as nn


        class Scaled(nn.Module):
            def __init__(self, scale=2, size=4):
                super().__init__()
                scale = scale * 2
                size = size + 1
                self.scale = scale
                self.register_buffer("steps", torch.arange(size))

            def forward(self, x):
                if x.sum() > 0:
                    return x * self.scale
                return x
    """)
    assert [f.code for f in check_source(source, "m.py")] == ["XPT101"]


def test_a_helper_written_at_a_call_reads_no_keyword_name_of_the_caller() -> None:
    """`t.size(dim=0)` names a keyword, not the caller's local `dim`: the helper is still written at
    a call whose function binds `dim`; a global it reads that the caller binds still refuses it."""
    module = cst.parse_module(textwrap.dedent("""
        def rows(t):
            first = t.size(dim=0)
            return first

        def scaled(t):
            first = t.size(0)
            return first * SCALE
    """))
    rows, scaled = (s for s in module.body if isinstance(s, cst.FunctionDef))
    call = cst.parse_expression("rows(x)")
    assert isinstance(call, cst.Call)
    written = returned_at(rows, call, method=False, taken={"dim", "x"})
    assert written is not None and cst.Module([]).code_for_node(written) == "x.size(dim=0)"
    assert returned_at(scaled, call, method=False, taken={"SCALE", "x"}) is None
