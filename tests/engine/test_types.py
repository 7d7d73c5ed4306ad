"""What a value is, from the sampled corpus errors that got it wrong (bench/precision_verdicts.json):
each case below was an error on code that reads no tensor data."""

from __future__ import annotations

import pytest

from xport_lint.analyzers import Config, check_source

HEAD = "import torch\nimport math\n"


def errors(source: str) -> list[tuple[str, int]]:
    return [(f.code, f.span.start.line) for f in check_source(HEAD + source, "m.py", Config())
            if f.severity.value == "error"]


def test_repeat_interleave_by_an_int_keeps_sizes_static() -> None:
    """qwen3_5's gated delta rule: `key.repeat_interleave(num_v_heads // num_k_heads, dim=2)`."""
    assert errors(
        "def rule(query, key):\n"
        "    batch, length, num_k_heads, dim = key.shape\n"
        "    num_v_heads = query.shape[-2]\n"
        "    if num_k_heads != num_v_heads:\n"
        "        key = key.repeat_interleave(num_v_heads // num_k_heads, dim=2)\n"
        "    for i in range(length):\n"
        "        query = query + key[:, i].sum()\n"
        "    return query\n"
        "class M(torch.nn.Module):\n    def forward(self, q, k):\n        return rule(q, k)\n"
    ) == []


def test_repeat_interleave_by_a_tensor_sizes_from_data() -> None:
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, x, counts):\n"
        "        y = x.repeat_interleave(counts)\n        if y.shape[0] > 4:\n            return y\n        return x\n"
    ) == [("XPT105", 6)]


def test_a_conditional_expression_on_a_guard_takes_the_exported_side() -> None:
    """mobilevit: `torch_int(torch.ceil(h / p) * p) if torch.jit.is_tracing() else int(math.ceil(h / p) * p)`."""
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, x):\n"
        "        h = x.shape[-1]\n"
        "        new_h = torch.ceil(torch.tensor(h / 4)) * 4 if torch.jit.is_tracing() else int(math.ceil(h / 4) * 4)\n"
        "        if new_h != h:\n            return x[..., :1]\n        return x\n"
    ) == []


def test_a_parameter_annotated_as_a_tuple_of_ints_holds_python_numbers() -> None:
    """encodec's `_pad1d(hidden_states, paddings: tuple[int, int], ...)`."""
    assert errors(
        "def pad(x, paddings: tuple[int, int]):\n"
        "    left, right = paddings\n"
        "    if x.shape[-1] <= max(left, right):\n        return x\n    return x[..., 1:]\n"
        "class M(torch.nn.Module):\n    def forward(self, x):\n        return pad(x, (x.sum(), 1))\n"
    ) == []


def test_a_forward_argument_read_by_string_keys_is_a_dict() -> None:
    """anyflow's rotary module: `forward(self, layout_cfg, device)` reads `layout_cfg["total_frames"]`."""
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, layout_cfg, device):\n"
        "        frames = layout_cfg['total_frames']\n"
        "        if min(frames, 2) <= 0:\n            return torch.zeros(1)\n        return torch.ones(frames)\n"
    ) == []


def test_zip_binds_each_target_from_its_own_iterable() -> None:
    """pp_ocr: `for feature, scale_factor in zip(features, self.scale_factor_list)`."""
    assert errors(
        "class M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.scales = [1, 2]\n"
        "    def forward(self, a, b):\n        out = []\n"
        "        for feature, scale in zip([a, b], self.scales):\n"
        "            out.append(feature * 2 if scale > 1 else feature)\n        return out\n"
    ) == []


def test_a_lazy_check_message_is_not_traced() -> None:
    """neomme: `torch_compilable_check(n == m, lambda: f"... {int(n)} ...")` builds the message only
    when the check fails."""
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, mask, x):\n        n = mask.sum()\n"
        "        torch._check(x.shape[0] > 0, lambda: f'{int(n)} tokens')\n        return x\n"
    ) == []


def test_each_optional_operand_is_a_warning_naming_its_argument() -> None:
    """evolla: `(protein is not None and protein_mask.any()) or (msa is not None and msa_mask.any())`."""
    findings = check_source(HEAD + (
        "class M(torch.nn.Module):\n"
        "    def forward(self, x, protein=None, protein_mask=None, msa=None, msa_mask=None):\n"
        "        if (protein is not None and protein_mask.any()) or (msa is not None and msa_mask.any()):\n"
        "            return x * 2\n        return x\n"
    ), "m.py", Config())
    assert [(f.code, f.severity.value) for f in findings] == [("XPT101", "warning"), ("XPT101", "warning")]
    assert "only when `msa` is passed" in findings[1].message


def test_a_range_check_before_an_argument_becomes_a_tensor_reads_the_argument() -> None:
    """vits: `if self.config.num_speakers > 1 and speaker_id is not None:` guards a range check on
    `speaker_id`, which a later line turns into a tensor: the check reads the int argument."""
    findings = check_source(HEAD + (
        "class M(torch.nn.Module):\n"
        "    def forward(self, x, speaker_id: int | None = None):\n"
        "        if x.shape[0] > 1 and speaker_id is not None:\n"
        "            if not 0 <= speaker_id < 4:\n                raise ValueError('speaker')\n"
        "            speaker_id = torch.full((1,), speaker_id)\n"
        "        return x\n"
    ), "m.py", Config())
    # the range check reads the argument (an int) before the line that makes it a tensor
    assert [f.code for f in findings if f.code == "XPT101"] == []


def test_a_block_forward_takes_its_flags_from_the_parent() -> None:
    """pvt_v2, squeezebert: `forward(self, hidden_states, output_attentions)` of a layer the model
    builds in a ModuleList; the flag is the parent's bool, the first argument its tensor."""
    assert errors(
        "class Layer(torch.nn.Module):\n"
        "    def forward(self, hidden_states, output_attentions):\n"
        "        if output_attentions:\n            return hidden_states, hidden_states\n"
        "        if hidden_states.sum() > 0:\n            return hidden_states,\n        return -hidden_states,\n"
        "class Model(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.layers = torch.nn.ModuleList([Layer() for _ in range(2)])\n"
        "    def forward(self, x):\n        for layer in self.layers:\n            x = layer(x, False)[0]\n        return x\n"
    ) == [("XPT101", 7)]


def test_an_object_built_from_tensors_is_not_a_tensor() -> None:
    """flava: `flava_losses = FlavaLosses(mim=mim_loss, ...)`; `if not flava_losses.all_none():`."""
    assert errors(
        "class Losses:\n    def __init__(self, a):\n        self.a = a\n    def all_none(self):\n        return self.a is None\n"
        "class M(torch.nn.Module):\n    def forward(self, x):\n        losses = Losses(a=x.sum())\n"
        "        if not losses.all_none():\n            return x * 2\n        return x\n"
    ) == []


def test_a_helper_called_only_behind_an_optional_argument_warns_naming_it() -> None:
    """rag: the loss helper `get_nll` (and `_mask_pads` in it) runs only when `labels` is passed."""
    findings = check_source(HEAD + (
        "class M(torch.nn.Module):\n"
        "    def forward(self, x, labels=None):\n"
        "        if labels is not None:\n            return self.loss(x)\n        return x\n"
        "    def loss(self, x):\n"
        "        pad = x.eq(0)\n        if pad.any():\n            x = x.masked_fill(pad, 0.0)\n        return x.sum()\n"
    ), "m.py", Config())
    assert [(f.code, f.severity.value) for f in findings] == [("XPT101", "warning")]
    assert "only when `labels` is passed" in findings[0].message


def test_a_parameter_defaulting_to_none_tested_for_truth_is_optional() -> None:
    """bria: `if guidance:` with `guidance=None`: a tensor (and a data-dependent test) only when
    a caller passes it."""
    findings = check_source(HEAD + (
        "class M(torch.nn.Module):\n"
        "    def forward(self, x, guidance=None):\n"
        "        if guidance:\n            x = x + guidance.sum()\n        return x\n"
    ), "m.py", Config())
    assert [(f.code, f.severity.value) for f in findings] == [("XPT101", "warning")]
    assert "only when `guidance` is passed" in findings[0].message


def test_a_comprehension_variable_lives_in_its_own_scope() -> None:
    """controlnet_z_image: `[len(_) for _ in x]`, then `all(_ % 8 == 0 for _ in lengths)`: the
    second `_` holds the sizes, never the rows of the first."""
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, x):\n"
        "        lengths = [len(_) for _ in x]\n"
        "        assert all(_ % 8 == 0 for _ in lengths)\n"
        "        return x\n"
    ) == []


def test_a_comprehension_filter_on_its_rows_is_still_checked() -> None:
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, x):\n"
        "        return torch.stack([row for row in x if row.sum() > 0])\n"
    ) == [("XPT101", 5)]


def test_a_nested_function_parameter_is_not_the_outer_tensor_of_the_same_name() -> None:
    """esmfold: `def compute_projection_helper(pair, mask, a=True): if a:` inside a method whose
    `a` is a tensor."""
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, x):\n"
        "        a = x * 2\n"
        "        def helper(pair, a=True):\n"
        "            if a:\n                return pair\n            return -pair\n"
        "        if a.sum() > 0:\n            return helper(x)\n"
        "        return x\n"
    ) == [("XPT101", 10)]


def test_torchvision_is_tracing_is_false_while_exporting() -> None:
    """torchvision's `_is_tracing()` is the TorchScript tracer's state: None under export
    (tests/truth/test_reachability.py runs `torch._C._get_tracing_state()` through export)."""
    assert errors(
        "import torchvision\n"
        "class M(torch.nn.Module):\n    def forward(self, x):\n"
        "        if torchvision._is_tracing():\n            return x[: int(x.max())]\n"
        "        return x\n"
    ) == []


def test_a_parameter_read_before_it_is_reassigned_holds_the_argument() -> None:
    """vilt: `if max_image_length < 0 ...:` on an int argument, then `max_image_length = t.max()`."""
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, x, max_len=200):\n"
        "        if max_len < 0:\n            max_len = x.max()\n"
        "        for i in range(3):\n            if max_len > 4:\n                x = x + 1\n"
        "        return x\n"
    ) == [("XPT101", 8)]  # in the loop: after the reassignment of line 6 on some paths


def test_a_read_sees_only_the_assignments_before_it() -> None:
    """seamless_m4t: `if hidden_states.size(0) == 1:` on the input's size, then
    `hidden_states = torch.repeat_interleave(hidden_states, durations)` below it."""
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, x, durations):\n"
        "        hidden = x * 2\n"
        "        if hidden.size(0) == 1:\n"
        "            hidden = torch.repeat_interleave(hidden, durations, dim=0)\n"
        "        if hidden.size(0) > 3:\n            return hidden\n"
        "        return x\n"
    ) == [("XPT105", 8)]  # the second test reads the data-dependent size


def test_a_submodule_input_its_parent_may_pass_as_none_is_optional() -> None:
    """evolla: a cross-attention block tests `protein_kv_states is not None and mask.any()`; its
    parent passes None when there is no protein input."""
    findings = check_source(HEAD + (
        "class Cross(torch.nn.Module):\n"
        "    def forward(self, query, protein_states, protein_mask):\n"
        "        if protein_states is not None and protein_mask.any():\n"
        "            return query + protein_states\n"
        "        return query\n"
        "class Model(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.cross = Cross()\n"
        "    def forward(self, x):\n        return self.cross(x, None, None)\n"
    ), "m.py", Config())
    assert [(f.code, f.severity.value) for f in findings] == [("XPT101", "warning")]
    assert "only when `protein_states` is not None (the parent module may pass None)" in findings[0].message


def test_an_else_branch_does_not_see_what_the_if_body_assigns() -> None:
    """seamless_m4t: `if h.size(0) == 1: h = repeat_interleave(h, durations)` / `else: if h.shape[0] > 1`."""
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, x, durations):\n"
        "        hidden = x * 2\n"
        "        if hidden.size(0) == 1:\n"
        "            hidden = torch.repeat_interleave(hidden, durations, dim=0)\n"
        "        else:\n"
        "            if hidden.shape[0] > 3:\n                return hidden\n"
        "        if hidden.size(0) > 3:\n            return hidden\n"
        "        return x\n"
    ) == [("XPT105", 11)]  # after the if/else, either value


def test_an_optional_flag_in_a_conditional_expression_guards_its_right_operand() -> None:
    """led: `all_global_attentions = () if (output_attentions and is_global_attn) else None`."""
    findings = check_source(HEAD + (
        "class M(torch.nn.Module):\n"
        "    def forward(self, x, output_attentions=None):\n"
        "        is_global = (x > 0).any().item()\n"
        "        extra = () if (output_attentions and is_global) else None\n"
        "        return x\n"
    ), "m.py", Config())
    assert [(f.code, f.severity.value) for f in findings] == [("XPT104", "warning")]


def test_torch_where_with_one_argument_sizes_from_data() -> None:
    """torchvision's rpn: `keep = torch.where(scores >= t)[0]; boxes = boxes[keep]`."""
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, boxes, scores):\n"
        "        keep = torch.where(scores >= 0.5)[0]\n"
        "        boxes = boxes[keep]\n"
        "        if boxes.numel() == 0:\n            return scores\n"
        "        return boxes.sum(0)\n"
    ) == [("XPT105", 7)]


def test_a_helper_parameter_declared_optional_guards_like_an_optional_argument() -> None:
    """timm gemma4: `_encode(self, x, position_ids, padding_positions: Optional[Tensor])` tests
    `padding_positions is not None and padding_positions.any()`; its callers may pass None."""
    findings = check_source(HEAD + (
        "from typing import Optional\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n        return self._encode(x, x > 0)\n"
        "    def _encode(self, x, padding: Optional[torch.Tensor]):\n"
        "        mask = None\n"
        "        if padding is not None and padding.any():\n            x = x * 2\n"
        "        if x.sum() > 0:\n            mask = x > 0\n"
        "        if mask is not None and mask.any():\n            x = x + 1\n"
        "        return x\n"
    ), "m.py", Config())
    assert [(f.code, f.span.start.line, f.severity.value) for f in findings] == [
        ("XPT101", 9, "warning"), ("XPT101", 11, "error"), ("XPT101", 13, "warning"),
    ]


def test_a_tensor_made_from_python_numbers_is_a_constant() -> None:
    """torchvision's poolers: `float(torch.tensor(approx_scale).log2().round())` with
    `approx_scale` a Python float (measured: exports in both modes); a tensor input still counts."""
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, x):\n"
        "        approx = float(x.shape[-1]) / 32.0\n"
        "        scale = 2 ** float(torch.tensor(approx).log2().round())\n"
        "        n = int(torch.tensor(x.sum()).round())\n"
        "        return x * scale + n\n"
    ) == [("XPT203", 7)]


def test_a_torch_function_of_constant_tensors_read_back_is_a_constant() -> None:
    """torchvision's `_setup_scales`: `-torch.log2(torch.tensor(scales[0])).item()` with `scales`
    the floats a `-> float` helper returns (measured: `int()` of it exports in both modes); the
    same read of an input's values still counts."""
    assert errors(
        "def infer(x) -> float:\n    return x.shape[-1] / 64\n"
        "class M(torch.nn.Module):\n    def forward(self, x):\n"
        "        scales = [infer(f) for f in (x, x)]\n"
        "        lvl = -torch.log2(torch.tensor(scales[0], dtype=torch.float32)).item()\n"
        "        top = torch.log2(x.sum()).item()\n"
        "        return x * int(lvl) + int(top)\n"
    ) == [("XPT203", 10)]


def test_the_truth_of_a_list_of_tensors_is_its_length() -> None:
    """evolla: `masks = [m for m in masks if m is not None]; if not masks: raise ...` before
    `masks = torch.cat(masks)` (measured: exports in both modes). A tensor bound before the
    test, or a loop that brings the tensor assignment back round, keeps the error."""
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, q, a, b=None):\n"
        "        masks = [a, b]\n"
        "        masks = [m for m in masks if m is not None]\n"
        "        if not masks:\n            raise ValueError('none')\n"
        "        masks = torch.cat(masks, dim=1)\n"
        "        return q * masks.sum()\n"
    ) == []
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, q, a):\n"
        "        kept = [a]\n"
        "        kept = a[a > 0]\n"
        "        if not kept:\n            return q\n"
        "        return q + 1\n"
    ) == [("XPT101", 7)]
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, q, a):\n"
        "        kept = [a]\n"
        "        for _ in range(2):\n"
        "            if kept:\n                q = q + 1\n"
        "            kept = a.sum()\n"
        "        return q\n"
    ) == [("XPT101", 7)]


def test_a_part_of_a_returned_tuple_tested_against_none_is_optional() -> None:
    """timm gemma4: `x, pos, padding = self.patch_embed(...)`, then `padding is not None and padding.any()`."""
    findings = check_source(HEAD + (
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        x, padding = self.embed(x)\n"
        "        if padding is not None and padding.any():\n            x = x * 2\n"
        "        return x\n"
    ), "m.py", Config())
    assert [(f.code, f.severity.value) for f in findings] == [("XPT101", "warning")]


def test_an_attribute_built_from_an_argument_defaulting_to_none_is_optional() -> None:
    """rag: `__init__(..., retriever=None)` stores `self.retriever = retriever`; retrieval runs
    under `has_to_retrieve = self.retriever is not None and ...`."""
    findings = check_source(HEAD + (
        "class M(torch.nn.Module):\n"
        "    def __init__(self, retriever=None):\n        super().__init__()\n        self.retriever = retriever\n"
        "    def forward(self, x):\n"
        "        has_to_retrieve = self.retriever is not None and x.dim() == 2\n"
        "        if has_to_retrieve:\n            docs = self.retriever(x.detach().numpy())\n"
        "        return x\n"
    ), "m.py", Config())
    assert [(f.code, f.severity.value) for f in findings] == [("XPT401", "warning")]
    assert "`self.retriever` is not None" in findings[0].message


def test_what_is_read_out_of_an_optional_argument_is_optional() -> None:
    """smolvlm / ovis2: `mm_encoder_outputs=None`, then `mm_encoder_outputs["mask"]` tested: a
    warning naming the optional argument. `outputs.get("image")` is no `torch.Tensor` method: what it
    returns is unknown (the argument is some other object there), and an unknown value is no finding."""
    findings = check_source(HEAD + (
        "class M(torch.nn.Module):\n"
        "    def forward(self, x, outputs=None):\n"
        "        scale = outputs.sum() if torch.jit.is_scripting() else 1  # used as a tensor\n"
        "        if isinstance(outputs, dict) and outputs.get('image'):\n            x = x * 2\n"
        "        if outputs.get('mask') is not None:\n"
        "            if outputs['mask'].any():\n                x = x + 1\n"
        "        return x\n"
    ), "m.py", Config())
    assert [(f.code, f.span.start.line, f.severity.value) for f in findings] == [
        ("XPT101", 9, "warning"),
    ]


@pytest.mark.parametrize(
    "spelling",
    [
        "keep = scores.max(-1).values > 0.5",
        "best = scores.max(-1)\n        keep = best.values > 0.5",
        "values, _ = scores.max(-1)\n        keep = values > 0.5",
        "keep = torch.topk(scores, 2).values[:, 0] > 0.5",
        "keep = scores.sort(-1).values[:, -1] > 0.5",
    ],
)
def test_a_field_of_a_named_tuple_result_is_a_tensor(spelling: str) -> None:
    """`x.max(-1).values` is a tensor: a filter by it sizes from data (the detector head's keep)."""
    source = f"""
import torch
class Head(torch.nn.Module):
    def forward(self, scores, boxes):
        {spelling}
        boxes = boxes[keep]
        if boxes.shape[0] == 0:
            return boxes.new_zeros(1, 4)
        return boxes
"""
    assert ("XPT105", 9 + spelling.count("\n")) in errors(source)  # HEAD adds two lines


# -- from a held-out sample: errors drawn from libraries the engine was never tuned on (kornia,
# monai, vit-pytorch), each on code that reads no tensor data where it was flagged


def test_only_the_first_size_of_a_masked_selection_depends_on_data() -> None:
    """kornia's homography helpers test `pts.shape[-1] == 3` and `A.shape[-2:] == (2, 3)` of points
    a RANSAC step selected by a mask: those sizes are the input's, as export sees them."""
    program = (
        "class M(torch.nn.Module):\n    def forward(self, x):\n"
        "        pts = x[x[:, 0] > 0]\n"
        "        if pts.shape[-1] == 3:\n            pts = pts[:, :2]\n"  # line 6
        "        n, d = pts.shape\n"
        "        if d == 2 and pts.size(1) == 2 and pts.shape[1:] == (2,):\n            pts = pts * 2\n"
        "        if n == 0:\n            return x\n"  # line 11
        "        return pts\n"
    )
    assert errors(program) == [("XPT105", 11)]
    assert errors(program.replace("if n == 0", "if pts.size(0) == 0")) == [("XPT105", 11)]


def test_the_keys_of_a_dict_of_tensors_are_names() -> None:
    """kornia's `for k, v in list(mod_param.items()): if k == batch_index_param:`."""
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, x, params: dict):\n"
        "        for key, value in params.items():\n"
        "            if key == 'scale':\n                x = x * value\n"
        "        return x\n"
    ) == []


def test_python_facts_of_a_tensor_are_not_its_data() -> None:
    """kornia's `non_blocking = ... and not tensor.is_pinned()`, then `if non_blocking:`."""
    assert errors(
        "class M(torch.nn.Module):\n    def forward(self, x):\n"
        "        fast = x.device.type == 'cpu' and not x.is_pinned() and not x.is_inference()\n"
        "        if fast:\n            return x + 1\n"
        "        return x\n"
    ) == []


def test_torch_pair_helpers_return_the_python_values_they_take() -> None:
    """kornia's `compute_padding(x.shape[-2:], window)` through `torch.nn.modules.utils._pair`."""
    assert errors(
        "from torch.nn.modules.utils import _pair\n"
        "def pad_for(size, window):\n"
        "    size, window = _pair(size), _pair(window)\n"
        "    if any(w <= 0 for w in window):\n        raise ValueError(window)\n"
        "    rem = (size[0] - window[0]) % window[0]\n"
        "    return window[0] - rem if rem != 0 else 0\n"
        "class M(torch.nn.Module):\n    def forward(self, x):\n"
        "        return torch.nn.functional.pad(x, (0, 0, 0, pad_for(x.shape[-2:], 3)))\n"
    ) == []
