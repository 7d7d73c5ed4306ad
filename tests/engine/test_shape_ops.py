"""How sizes flow through the ops that relate them, read statically: what XPT305 says about
each op, and the `dynamic_shapes` edit it offers. The torch facts behind each verdict are
measured in tests/truth/test_shape_cases.py; these pin the engine's reading and messages."""

from __future__ import annotations

import textwrap

from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.fixes import apply_fixes

ALL = Config(select=("XPT305",))


def program(body: str, shapes: str, args: str = "(torch.randn(4, 3), torch.randn(4, 3))", prelude: str = "") -> str:
    body = textwrap.indent(textwrap.dedent(body).strip(), " " * 8)
    prelude = textwrap.indent(textwrap.dedent(prelude).strip(), " " * 4) or "    pass"
    return (
        "import torch\nimport torch.nn.functional as F\nfrom torch.export import Dim\n"
        f"class M(torch.nn.Module):\n    def forward(self, x, y):\n{body}\n"
        f"def xport_example():\n{prelude}\n"
        f'    return {{"model": M(), "args": {args}, "dynamic_shapes": {shapes}}}\n'
    )


def messages(source: str) -> list[str]:
    return [f.message for f in check_source(source, "m.py", ALL)]


def test_an_op_not_modelled_leaves_its_sizes_unknown() -> None:
    source = program("z = torch.roll(x, 1, 0)\nreturn z + y", '{"x": {0: Dim("a")}, "y": {0: Dim("b")}}')
    assert messages(source) == []


def test_a_slice_by_literals_moves_the_size_and_names_the_derived_fix() -> None:
    source = program(
        "return x[2:] * y", '{"x": {0: a}, "y": {0: b}}',
        "(torch.randn(6, 3), torch.randn(4, 3))", 'a, b = Dim("a"), Dim("b")',
    )
    (finding,) = check_source(source, "m.py", ALL)
    assert "(as the ops before change it)" in finding.message
    assert finding.fix is not None and "derived Dim `b + 2`" in finding.fix.title
    assert '"x": {0: b + 2}, "y": {0: b}' in apply_fixes(source, [finding], unsafe=True)


def test_two_slices_of_one_input_are_one_size() -> None:
    source = program("return x[1:] * x[:-1] + y.sum()", '{"x": {0: Dim("a")}, "y": None}')
    assert messages(source) == []


def test_cat_sums_the_joined_dimension_and_ties_the_others() -> None:
    joined = program("return torch.cat([x, y], dim=0)", '{"x": {0: Dim("a")}, "y": {0: Dim("b")}}')
    assert messages(joined) == []
    across = program("return torch.cat([x, y], dim=1)", '{"x": {0: Dim("a")}, "y": {0: Dim("b")}}')
    assert ["joining ties `x.shape[0]`" in m for m in messages(across)] == [True]


def test_a_doubled_size_against_its_derived_declaration_is_no_tie() -> None:
    source = program(
        "return torch.cat([x, x]) + y", '{"x": {0: a}, "y": {0: 2 * a}}',
        "(torch.randn(3, 3), torch.randn(6, 3))", 'a = Dim("a")',
    )
    assert messages(source) == []


def test_einsum_letters_tie_and_free_letters_do_not() -> None:
    tied = program('return torch.einsum("ij,kj->ik", x, y)', '{"x": {1: Dim("a")}, "y": {1: Dim("b")}}')
    free = program('return torch.einsum("ij,kj->ik", x, y)', '{"x": {0: Dim("a")}, "y": {0: Dim("b")}}')
    assert len(messages(tied)) == 1 and messages(free) == []


def test_resize_to_a_fixed_size_ties_the_other_operand_to_that_constant() -> None:
    source = program(
        "return F.interpolate(x, size=8) + y", '{"x": {2: Dim("a")}, "y": {2: Dim("b")}}',
        "(torch.randn(1, 2, 4), torch.randn(1, 2, 8))",
    )
    assert ["to the constant size 8" in m for m in messages(source)] == [True]


def test_a_reshape_that_needs_a_multiple_says_which() -> None:
    source = program("return x.view(x.shape[0], -1, 2) + y.sum()", '{"x": {1: Dim("d")}, "y": None}',
                     "(torch.randn(4, 6), torch.randn(2))")
    assert ["a multiple of 2" in m for m in messages(source)] == [True]


def test_a_chunk_of_a_plain_named_dim_is_flagged_and_of_a_multiple_is_not() -> None:
    plain = program("a, b = x.chunk(3, dim=1)\nreturn a + y.sum()", '{"x": {1: Dim("d")}, "y": None}')
    multiple = program("a, b = x.chunk(3, dim=1)\nreturn a + y.sum()", '{"x": {1: 3 * d}, "y": None}',
                       prelude='d = Dim("d")')
    assert ["a multiple of 3" in m for m in messages(plain)] == [True]
    assert messages(multiple) == []


def test_a_shapes_collection_is_read_by_the_positions_of_its_tensors() -> None:
    source = textwrap.dedent("""
        import torch
        from torch.export import Dim, ShapesCollection
        class M(torch.nn.Module):
            def forward(self, x, y):
                return x @ y
        def xport_example():
            x, y = torch.randn(4, 3), torch.randn(3, 5)
            sc = ShapesCollection()
            sc[y] = {0: Dim("k2")}
            sc[x] = {1: Dim("k1")}
            return {"model": M(), "args": (x, y), "dynamic_shapes": sc}
    """)
    (message,) = messages(source)
    assert "`x.shape[1]` (Dim(\"k1\")) to `y.shape[0]` (Dim(\"k2\"))" in message


# -- the sizes an op computes, read by a size test after it (XPT301) and the layers' fixed sizes (XPT305)


def model(body: str, shapes: str, args: str, init: str = "", prelude: str = "") -> str:
    """A one-input model with `__init__` statements `init` (layers, parameters)."""
    body = textwrap.indent(textwrap.dedent(body).strip(), " " * 8)
    init = textwrap.indent(textwrap.dedent(init).strip(), " " * 8)
    constructor = f"    def __init__(self):\n        super().__init__()\n{init}\n" if init else ""
    prelude = textwrap.indent(textwrap.dedent(prelude).strip(), " " * 4) or "    pass"
    return (
        "import torch\nimport torch.nn.functional as F\nfrom torch.export import Dim\n"
        f"class M(torch.nn.Module):\n{constructor}    def forward(self, x):\n{body}\n"
        f"def xport_example():\n{prelude}\n"
        f'    return {{"model": M(), "args": {args}, "dynamic_shapes": {shapes}}}\n'
    )


def verdicts(source: str) -> list[tuple[str, str]]:
    """(code, severity) of each finding of the shape rules."""
    found = check_source(source, "m.py", Config(select=("XPT301", "XPT305")))
    return [(f.code, f.severity.value) for f in found]


def _gate(op: str) -> str:
    return f"h = {op}\nif h.shape[-1] > 6:\n    return h * 2\nreturn h"


def test_a_size_test_after_an_op_reads_the_size_the_op_computes() -> None:
    """`F.pad(x, (1, 1))` is two longer than `x`, `cat([x, x])` twice as long, `repeat(1, 3)`
    three times: whether the range decides the test follows from that size, not from `x`'s."""
    for op, decided in (("F.pad(x, (1, 1))", 6), ("torch.cat([x, x], dim=1)", 4), ("x.repeat(1, 3)", 3)):
        splits = model(_gate(op), '{"x": {1: Dim("w")}}', "(torch.randn(2, 8),)")
        holds = model(_gate(op), f'{{"x": {{1: Dim("w", min={decided})}}}}', "(torch.randn(2, 8),)")
        assert verdicts(splits) == [("XPT301", "error")], op
        assert verdicts(holds) == [], op


def test_a_view_with_minus_one_is_the_element_count_over_the_given_sizes() -> None:
    body = "h = x.view(-1, 4)\nif h.shape[0] > 100:\n    return h * 2\nreturn h"
    assert verdicts(model(body, '{"x": {0: Dim("n")}}', "(torch.randn(3, 8),)")) == [("XPT301", "error")]
    # 2 * n is at most 100 under max=50: the test never holds
    assert verdicts(model(body, '{"x": {0: Dim("n", max=50)}}', "(torch.randn(3, 8),)")) == []


def test_pooling_and_convolution_sizes_come_from_their_init_arguments() -> None:
    """`MaxPool2d(2)` halves a spatial size (its stride defaults to its kernel); a `Sequential`
    chains its layers; the channels are the last convolution's `out_channels`, a constant."""
    pooled = "h = self.pool(x)\nif h.shape[-1] >= 4:\n    return h * 2\nreturn h"
    init = "self.pool = torch.nn.MaxPool2d(2)"
    assert verdicts(model(pooled, '{"x": {3: Dim("w", min=4)}}', "(torch.randn(1, 3, 8, 8),)", init)) == [
        ("XPT301", "error")]
    assert verdicts(model(pooled, '{"x": {3: Dim("w", min=8)}}', "(torch.randn(1, 3, 8, 8),)", init)) == []
    body = "self.body = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, stride=2, padding=1), torch.nn.ReLU())"
    height = "h = self.body(x)\nif h.shape[-2] > 4:\n    return h * 2\nreturn h"
    channels = "h = self.body(x)\nif h.shape[1] > 2:\n    return h * 2\nreturn h"
    shapes, args = '{"x": {2: Dim("h", min=8)}}', "(torch.randn(1, 3, 16, 16),)"
    assert verdicts(model(height, shapes, args, body)) == [("XPT301", "error")]
    assert verdicts(model(channels, shapes, args, body)) == []


def test_an_op_not_modelled_leaves_the_size_unknown_never_guessed() -> None:
    """`torch.roll` keeps every size, but it is not in the table: the test is a warning (export
    may narrow the range), not an error."""
    body = "h = torch.roll(x, 1, 0)\nif h.shape[0] > 4:\n    return h * 2\nreturn h"
    assert verdicts(model(body, '{"x": {0: Dim("n")}}', "(torch.randn(6, 3),)")) == [("XPT301", "warning")]


def test_a_layer_whose_weights_read_a_dimension_fixes_its_size() -> None:
    """`LayerNorm(8)` needs the last size 8, `GroupNorm(2, 4)` and `Conv2d(3, ...)` the
    channels: a named `Dim` (or `Dim.DYNAMIC`) there is specialised; `Dim.AUTO` takes it."""
    cases = [
        ("self.layer = torch.nn.LayerNorm(8)", "(torch.randn(2, 8),)", 1),
        ("self.layer = torch.nn.GroupNorm(2, 4)", "(torch.randn(2, 4, 5),)", 1),
        ("self.layer = torch.nn.Conv2d(3, 4, 3)", "(torch.randn(1, 3, 8, 8),)", 1),
    ]
    for init, args, dim in cases:
        for spec, expected in (('Dim("c")', [("XPT305", "error")]), ("Dim.DYNAMIC", [("XPT305", "error")]),
                               ("Dim.AUTO", [])):
            source = model("return self.layer(x)", f'{{"x": {{{dim}: {spec}}}}}', args, init)
            assert verdicts(source) == expected, (init, spec)


def test_expand_to_another_inputs_size_ties_the_two() -> None:
    source = program("return x.expand(y.shape[0], -1) + y", '{"x": {0: Dim("a")}, "y": {0: Dim("b")}}')
    assert ["expanding ties `x.shape[0]`" in m for m in messages(source)] == [True]
    column = program("return x[:1].expand(y.shape[0], -1) + y", '{"x": None, "y": {0: Dim("b")}}')
    assert messages(column) == []


def test_an_input_rebound_by_a_module_list_loop_keeps_what_every_layer_keeps() -> None:
    """`for layer in self.layers: x = layer(x)` over `Linear(4, 4)`s: the batch is still the
    input's (a test on it splits a named `Dim`); the last size changes in the loop, so it is not
    followed: unknown, a warning at most, never an error."""
    init = "self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(2)])"
    loop = "for layer in self.layers:\n    x = layer(x)\n"
    batch = model(loop + "if x.shape[0] > 2:\n    return x * 2\nreturn x", '{"x": {0: Dim("b")}}', "(torch.randn(4, 4),)",
                  init)
    width = model(loop + "if x.shape[-1] > 2:\n    return x * 2\nreturn x", '{"x": {0: Dim("b")}}', "(torch.randn(4, 4),)",
                  init)
    assert verdicts(batch) == [("XPT301", "error")]
    assert verdicts(width) == [("XPT301", "warning")]
