"""What the rewrites produce, and when they refuse (static: no torch). Each refusal is a case
where the obvious rewrite was measured to fail export or to change what eager computes; the
proofs with real torch are tests/truth/test_fixes.py and test_fix_corpus.py."""

from __future__ import annotations

import textwrap

from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.runner import fix_source

EVERYTHING = Config(select=("ALL",))


def model(body: str, params: str = "x") -> str:
    return "import torch\nclass M(torch.nn.Module):\n    def forward(self, " + params + "):\n" + textwrap.indent(
        textwrap.dedent(body).strip("\n"), " " * 8
    ) + "\n"


def fixed(source: str) -> str:
    return fix_source(source, "m.py", EVERYTHING, unsafe=True)


def messages(source: str, code: str) -> list[str]:
    """Each finding's message with its notes (a missing fix's reason is a note at the finding)."""
    return [
        " ".join((f.message, *(note.message for note in f.related)))
        for f in check_source(source, "m.py", EVERYTHING)
        if f.code == code
    ]


def test_a_compound_test_becomes_one_tensor_predicate() -> None:
    source = model("""
        if x.sum() > 0 or not x.shape[0] > 1:
            x = x * 2
        return x
    """)
    assert "torch.cond(torch.logical_or(x.sum() > 0, torch.logical_not(torch.tensor(x.shape[0] > 1)))" in fixed(source)


def test_a_guard_before_the_tensor_test_keeps_python_short_circuiting() -> None:
    branch = model("""
        if mask is not None and mask.all():
            x = x * 2
        return x
    """, "x, mask=None")
    assert fixed(branch) == branch
    assert any("`mask is not None` guards the rest of the condition" in m for m in messages(branch, "XPT101"))
    check = model("""
        if mask is not None and not mask.any():
            raise ValueError("empty mask")
        return x
    """, "x, mask=None")
    assert "        if mask is not None:\n            torch._assert_async(mask.any(), \"empty mask\")\n" in fixed(check)


def test_a_number_read_from_a_tensor_is_bound_as_the_tensor_when_only_the_branch_reads_it() -> None:
    source = model("""
        peak = x.abs().max().item()
        if peak > 1.0:
            x = x / peak
        return x
    """)
    out = fixed(source)
    assert "peak = x.abs().max()\n" in out and "(x, peak))" in out


def test_a_number_used_as_a_size_is_not_replaced_by_a_tensor() -> None:
    source = model("""
        n = lengths.max().item()
        if n < x.shape[1]:
            x = x[:, :n]
        return x
    """, "x, lengths")
    assert "lengths.max().item()" in fixed(source)
    assert any("a number read from tensor data" in m for m in messages(source, "XPT104"))


def test_int_of_a_tensor_keeps_its_truncation() -> None:
    source = model("""
        count = int(x.sum())
        if count > 0:
            x = x * 2
        return x
    """)
    assert "count = x.sum().long()\n" in fixed(source)


def test_a_counted_loop_over_an_item_becomes_a_while_loop_over_a_tensor_counter() -> None:
    source = model("""
        acc = torch.zeros(x.shape[1])
        for i in range(n.item()):
            acc += x[i]
        return acc
    """, "x, n")
    out = fixed(source)
    assert "return i < n" in out
    # the body may not mutate its inputs: `+=` is written out of place
    assert "acc = acc + x.index_select(0, i.reshape(1)).squeeze(0)" in out
    assert "return (i + 1, acc)" in out
    assert "torch.while_loop(cond_fn, body_fn, (torch.zeros((), dtype=torch.int64), acc))" in out


def test_a_counter_used_as_a_slice_bound_gets_no_loop_fix() -> None:
    source = model("""
        acc = torch.zeros(())
        for i in range(n.item()):
            acc = acc + x[:i].sum()
        return acc
    """, "x, n")
    assert fixed(source) == source
    assert any("used as a size or an index other than `x[i]`" in m for m in messages(source, "XPT201"))


def test_a_submodule_named_like_a_container_method_is_not_a_mutation() -> None:
    source = model("""
        for _ in range(steps.item()):
            x = self.update(x)
        return x
    """, "x, steps")
    assert "torch.while_loop" in fixed(source)


def test_a_branch_that_only_reports_goes_under_the_export_guard() -> None:
    source = model("""
        if torch.isnan(x).any():
            print("nan in input")
            logger.warning("nan")
        return x
    """)
    assert "        if not torch.compiler.is_exporting():\n            if torch.isnan(x).any():\n" in fixed(source)


def test_a_break_is_named_as_the_reason() -> None:
    source = model("""
        for _ in range(3):
            x = x * 2
            if (x > 10).all():
                break
        return x
    """)
    assert any("it uses `break`" in m for m in messages(source, "XPT101"))


def test_names_the_file_already_uses_are_not_introduced() -> None:
    source = "def body_fn(x):\n    return x\n" + model("""
        h = x * 1
        while h.sum() < 10:
            h = body_fn(h) * 2
        return h
    """)
    out = fixed(source)
    assert "def body_fn_1(h):" in out and "torch.while_loop(cond_fn, body_fn_1, (h,))" in out


def test_torch_is_called_by_a_name_bound_only_to_it() -> None:
    branch = """
        torch = x.abs()
        if x.sum() > 0:
            y = torch * 2
        else:
            y = torch * 3
        return y
    """
    aliased = model(branch).replace("import torch\n", "import torch\nimport torch as T\n")
    assert "y = T.cond(x.sum() > 0, true_fn, false_fn, (torch,))" in fixed(aliased)
    assert "import torch as torch_1\n" in fixed(model(branch))
    # `from torch import nn` binds `nn`: `torch` is still the module
    plain = model("""
        if x.sum() > 0:
            x = x * 2
        return x
    """).replace("import torch\n", "import torch\nfrom torch import nn\n")
    assert "x = torch.cond(x.sum() > 0, true_fn, false_fn, (x,))" in fixed(plain)


def test_a_branch_that_reads_a_name_before_assigning_it_gets_no_fix() -> None:
    # moved into `true_fn`, `scale` would be a local read before it is bound
    source = model("""
        scale = 2.0
        if x.sum() > 0:
            scale = scale * 2
            y = x * scale
        else:
            y = x
        return y
    """)
    assert fixed(source) == source
    assert any("it reads `scale` before assigning it" in m for m in messages(source, "XPT101"))


def test_augmented_assignment_to_a_name_the_branch_made_stays_in_place() -> None:
    source = model("""
        if x.sum() > 0:
            y = x * 2
            y += 1
        else:
            y = x - 1
        return y
    """)
    assert "            y += 1\n" in fixed(source)


def test_int_of_a_tensor_carried_through_integer_arithmetic_into_a_size_becomes_item() -> None:
    narrowed = model("""
        k = int(scores.argmax()) + 1
        return x.narrow(0, 0, k)
    """, "x, scores")
    assert "k = scores.argmax().item() + 1" in fixed(narrowed)
    sections = model("""
        head, tail = x.split([int(n), x.shape[0] - int(n)])
        return head.sum(0) - tail.sum(0)
    """, "x, n")
    assert "x.split([n.item(), x.shape[0] - n.item()])" in fixed(sections)
    pieces = model("""
        return x.split(int(n))
    """, "x, n")
    assert "n.item()" not in fixed(pieces)  # one size: the number of pieces would be data


def test_an_unflatten_inferring_a_size_from_a_read_number_gets_it_written_out() -> None:
    source = model("""
        return x.unflatten(1, (h.item(), -1))
    """, "x, h")
    assert "x.unflatten(1, (h.item(), x.shape[1] // h.item()))" in fixed(source)


def test_a_branch_returning_a_view_of_an_operand_returns_a_copy() -> None:
    source = model("""
        kept = x[x.sum(1) > 0]
        if len(kept) > 1:
            return kept.mean(0)
        return x[0]
    """)
    assert "return x[0].clone()" in fixed(source)


def test_not_of_a_tensor_in_a_one_line_method_is_compared_with_zero() -> None:
    source = """import torch
class M(torch.nn.Module):
    def _inactive(self, mask):
        return not mask.any()

    def forward(self, x, mask):
        if self._inactive(mask):
            return x
        return x * 3
"""
    assert "torch.cond(mask.any() == 0, " in fixed(source)


def test_a_bool_tested_by_identity_becomes_an_equality_of_the_tensor() -> None:
    source = model("""
        if bool(torch.isnan(x).any()) is False:
            return x
        return torch.nan_to_num(x)
    """)
    assert "torch.cond(torch.isnan(x).any() == False, " in fixed(source)


def test_a_count_unpacked_from_a_helpers_tuple_is_bound_as_its_tensor() -> None:
    source = """import torch
class M(torch.nn.Module):
    def _plan(self, t):
        return int(t.sum()), 0.5

    def forward(self, x, t):
        n, scale = self._plan(t)
        for _ in range(n):
            x = x * scale
        return x
"""
    out = fixed(source)
    assert "n, scale = (t.sum().long(), 0.5)" in out and "torch.while_loop(" in out


def test_a_loop_over_the_classes_as_numbers_is_one_scatter() -> None:
    source = model("""
        out = torch.zeros(4, x.shape[1])
        for c in labels.unique().tolist():
            out[c] = x[labels == c].sum(0)
        return out
    """, "x, labels")
    assert 'out.scatter_reduce_(0, labels.reshape(' in fixed(source)


def test_a_count_read_from_data_and_stepped_down_in_a_while_is_carried_as_its_tensor() -> None:
    source = model("""
        steps = n.item()
        while steps > 0:
            x = x * 0.5
            steps -= 1
        return x
    """, "x, n")
    out = fixed(source)
    assert "steps = n\n" in out and "steps = steps - 1" in out and "torch.while_loop(" in out
    read_after = model("""
        steps = n.item()
        while steps > 0:
            x = x * 0.5
            steps -= 1
        return x, steps
    """, "x, n")
    assert "steps = n\n" not in fixed(read_after)  # the number is read after the loop: it stays a number


def test_a_lambda_bound_once_reads_as_its_body_at_the_call() -> None:
    source = model("""
        active = lambda t: bool((t > 0).any())
        return x * 2 if active(x) else x.neg()
    """)
    assert "return torch.where((x > 0).any(), x * 2, x.neg())" in fixed(source)


def test_a_reduction_of_an_elementwise_comprehension_over_tolist_is_the_tensors() -> None:
    source = model("""
        probs = x.softmax(-1).amax(-1)
        if any(p > 0.9 for p in probs.tolist()):
            return x * 2
        return x
    """)
    assert "torch.cond((probs > 0.9).any(), " in fixed(source)
    # a bare element's truth depends on the tensor's rank (a row of a 2-d tensor is a list)
    bare = model("""
        if any(p for p in x.tolist()):
            return x * 2
        return x
    """)
    assert fixed(bare) == bare


def test_a_list_computed_per_element_of_tolist_is_computed_from_the_tensor() -> None:
    source = model("""
        scales = [2.0 * g if g > 0 else 1.0 for g in gains.tolist()]
        return x * torch.tensor(scales)
    """, "x, gains")
    assert "scales = torch.where(gains > 0, 2.0 * gains, 1.0)\n        return x * scales\n" in fixed(source)


def test_math_of_a_read_number_is_torchs_op_on_the_tensor() -> None:
    """As an operand of tensor arithmetic, torch's op on the tensor; as a size, torch's op truncated
    by `.int()` and read once (`int(math.exp(v.item()))` -> `torch.exp(v).int().item()`)."""
    operand = "import math\n" + model("return x / math.sqrt(x.var().item() + 1e-5)")
    assert "return x / torch.sqrt(x.var() + 1e-5)" in fixed(operand)
    size = "import math\n" + model("return x.new_zeros(int(math.exp(x.max().item())))")
    assert "x.new_zeros(torch.exp(x.max()).int().item())" in fixed(size)


def test_positions_of_a_nonzero_loop_written_one_value_become_a_mask_write() -> None:
    source = model("""
        x = x.clone()
        for b, t in mask.nonzero().tolist():
            x[b, t] = 0.0
        return x
    """, "x, mask")
    assert "x[mask != 0] = 0.0\n" in fixed(source)
    by_position = model("""
        x = x.clone()
        for b, t in mask.nonzero().tolist():
            x[b, t] = b
        return x
    """, "x, mask")
    assert "x[mask" not in fixed(by_position)


def test_a_module_picked_by_an_entry_of_tolist_loops_over_the_tensor() -> None:
    source = """import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.experts = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(4))
    def forward(self, x, w):
        weights, ids = w.topk(2)
        out = 0
        for weight, i in zip(weights, ids.tolist()):
            out = out + weight * self.experts[i](x)
        return out
"""
    result = fixed(source)
    assert "for weight, i in zip(weights, ids):" in result
    assert ".index_select(0, i.reshape(1)).squeeze(0)" in result


def test_a_clamped_read_is_bound_as_the_clamped_tensor() -> None:
    source = model("""
        n_pos, n_neg = (labels == 1).sum().item(), (labels == 0).sum().item()
        ratio = n_pos / max(n_neg, 1)
        if ratio > 1.0:
            return x * ratio
        return x
    """, "x, labels")
    result = fixed(source)
    assert "ratio = n_pos / n_neg.clamp_min(1)" in result
    assert "torch.cond(ratio > 1.0, " in result


def test_the_index_of_the_largest_in_a_tolist_is_argmax() -> None:
    source = model("""
        s = scores.tolist()
        best = s.index(max(s))
        return x[best]
    """, "x, scores")
    assert "        best = scores.argmax().item()\n        return x[best]\n" in fixed(source)


def test_layers_sliced_by_a_read_depth_all_run_and_keep_results_below_it() -> None:
    source = """import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(3, 3) for _ in range(4))
    def forward(self, x, depth):
        for layer in self.layers[:depth.item()]:
            x = layer(x)
        return x
"""
    result = fixed(source)
    assert "for index, layer in enumerate(self.layers):\n            x = torch.where(index < depth, layer(x), x)" in result


def test_a_walrus_in_a_trip_count_has_a_reason_not_an_internal_error() -> None:
    source = model("""
        for _ in range(k := int(n.sum())):
            x = x * 0.5
        return x + k
    """, "x, n")
    assert not [f for f in check_source(source, "m.py", EVERYTHING) if f.code == "internal-error"]
    assert any("binds `k` with `:=`" in m for m in messages(source, "XPT201"))
