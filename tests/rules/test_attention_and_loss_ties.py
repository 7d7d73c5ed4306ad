"""Batches tied by attention and by losses (issue 24, written from a held-out probe's misses): a
cross-attention's queries from `x` and keys from `context` (diffusers' `Attention` with separate
batch `Dim`s) meet in `F.scaled_dot_product_attention`, whose dimensions before the last two
broadcast; CLIP's loss takes `F.cross_entropy(logits_per_text, labels)` with `labels =
torch.arange(n_images)`, one target per row of `n_texts`. Each ties two named `Dim`s (or a `Dim` to
a static size) and export fails with a constraint violation in both modes (torch 2.13). Near
misses: one shared `Dim`, a batch of 1 that broadcasts, a `Dim` on the classes, which the targets
do not size, 4-d keys and values of two lengths (CPU's fused kernel guards nothing between them: a
second held-out probe's false error, measured exporting in both modes; 3-d ones take the math path,
whose matmul ties them, and fail; the queries' and keys' widths fail).

Figures (BEFORE is this file run on the engine of `3413ebe`): failing programs with an error 0/9 ->
9/9 in both modes (10/10 with the widths); exporting programs with one 0/4 before and after, 0/5
with the 4-d keys' and values' own lengths once the engine stopped tying those."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_CROSS_INIT = ("self.heads = 2\nself.to_q = torch.nn.Linear(16, 16)\nself.to_k = torch.nn.Linear(8, 16)\n"
               "self.to_v = torch.nn.Linear(8, 16)")
_CROSS = """
batch_size, sequence_length, _ = x.shape
q = self.to_q(x).view(batch_size, -1, self.heads, 8).transpose(1, 2)
k = self.to_k(context).view(context.shape[0], -1, self.heads, 8).transpose(1, 2)
v = self.to_v(context).view(context.shape[0], -1, self.heads, 8).transpose(1, 2)
out = F.scaled_dot_product_attention(q, k, v)
return out.transpose(1, 2).reshape(batch_size, -1, 16)
"""
_CLIP = """
image_features = F.normalize(image_features, dim=-1)
text_features = F.normalize(text_features, dim=-1)
logits_per_image = self.logit_scale.exp() * image_features @ text_features.t()
logits_per_text = logits_per_image.t()
labels = torch.arange(image_features.shape[0], device=image_features.device)
return (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_text, labels)) / 2
"""
_HEADS = "(torch.randn(2, 2, 5, 8), torch.randn(2, 2, 7, 8))"
_SCORES = "(torch.randn(4, 10), torch.zeros(4, dtype=torch.long))"


def _cross(name: str, shapes: str, fails: bool = True, prelude: str = "") -> Program:
    return Program(name, _CROSS, "(torch.randn(2, 10, 16), torch.randn(2, 7, 8))", shapes, fails=fails,
                   params="x, context", init=_CROSS_INIT, prelude=prelude)


def _clip(name: str, shapes: str, fails: bool = True, prelude: str = "") -> Program:
    return Program(name, _CLIP, "(torch.randn(4, 16), torch.randn(4, 16))", shapes, fails=fails,
                   params="image_features, text_features", init="self.logit_scale = torch.nn.Parameter(torch.ones([]) * 2.0)",
                   prelude=prelude)


PROGRAMS: list[Program] = [
    _cross("cross-attention-batches", '{"x": {0: Dim("batch"), 1: Dim("n")}, "context": {0: Dim("context_batch"), 1: Dim("m")}}'),
    Program("attention-batches-given", "return F.scaled_dot_product_attention(q, k, k)", _HEADS,
            '{"q": {0: Dim("a")}, "k": {0: Dim("b")}}', fails=True, params="q, k"),
    Program("attention-heads-to-static", "return F.scaled_dot_product_attention(q, k, k)", _HEADS,
            '{"q": {1: Dim("h")}, "k": None}', fails=True, params="q, k"),
    _clip("contrastive-loss", '{"image_features": {0: Dim("n_images")}, "text_features": {0: Dim("n_texts")}}'),
    Program("attention-widths", "return F.scaled_dot_product_attention(q, k, v)",
            "(torch.randn(2, 4, 8, 16), torch.randn(2, 4, 10, 16), torch.randn(2, 4, 10, 16))",
            '{"q": {3: Dim("eq")}, "k": {3: Dim("ek")}, "v": None}', fails=True, params="q, k, v"),
    Program("class-scores-to-targets", "return F.cross_entropy(x, t)", _SCORES, '{"x": {0: Dim("a")}, "t": {0: Dim("b")}}',
            fails=True, params="x, t"),
    Program("targets-bound-first", "scores = x.log_softmax(-1)\ntarget = t\nreturn F.nll_loss(scores, target)", _SCORES,
            '{"x": {0: Dim("a")}, "t": {0: Dim("b")}}', fails=True, params="x, t"),
    Program("per-position-targets", "return F.cross_entropy(x, t)", "(torch.randn(2, 3, 5), torch.zeros(2, 5, dtype=torch.long))",
            '{"x": {2: Dim("a")}, "t": {1: Dim("b")}}', fails=True, params="x, t"),
    Program("squared-error", "return F.mse_loss(x, t)", "(torch.randn(4, 10), torch.randn(4, 10))",
            '{"x": {0: Dim("a")}, "t": {0: Dim("b")}}', fails=True, params="x, t"),
    Program("logits-to-labels", "return F.binary_cross_entropy_with_logits(x, t)", "(torch.randn(4, 10), torch.rand(4, 10))",
            '{"x": {1: Dim("a")}, "t": None}', fails=True, params="x, t"),
    # near misses
    _cross("cross-attention-one-batch", '{"x": {0: b, 1: Dim("n")}, "context": {0: b, 1: Dim("m")}}', fails=False,
           prelude='b = Dim("b")'),
    Program("attention-batch-of-one", "return F.scaled_dot_product_attention(q, k, k)",
            "(torch.randn(2, 2, 5, 8), torch.randn(1, 2, 7, 8))", '{"q": {0: Dim("a")}, "k": None}', fails=False,
            params="q, k"),
    Program("attention-keys-values-own-lengths", "return F.scaled_dot_product_attention(q, k, v)",
            "(torch.randn(2, 4, 8, 16), torch.randn(2, 4, 10, 16), torch.randn(2, 4, 10, 16))",
            '{"q": {2: Dim("lq")}, "k": {2: Dim("lk")}, "v": {2: Dim("lv")}}', fails=False, params="q, k, v"),
    _clip("contrastive-loss-one-dim", '{"image_features": {0: n}, "text_features": {0: n}}', fails=False,
          prelude='n = Dim("n")'),
    Program("classes-dynamic", "return F.cross_entropy(x, t)", _SCORES, '{"x": {1: Dim("c")}, "t": None}', fails=False,
            params="x, t"),
]

BATCH = ProgramBatch("attentionloss", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
