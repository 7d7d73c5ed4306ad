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
