"""Size checks of real library models reduced without the library (issue 24 on real code, the
zoo's `DYNAMIC` cases of bench/zoo_models.py): transformers' ViTEmbeddings rejects an image whose
size is not the configured one with `if height != self.image_size[0] or ...: raise`, the size
held from the config (no literal). The example must take the side that does not raise, so the
guard pins the size to that value: a named `Dim` whose range holds more than one size fails
export (ConstraintViolationError), whatever the configured value; a static size exports.

Each outcome was measured on torch 2.13.0 in both modes, and torch must still agree. Written with
the engine change that reads them (shapes.py: `Sizes.raised_on`, `pinned_to_held_value(raised=True)`, `init_layer_calls` reading a constructor default,
`init_buffers` a configuration default; XPT306 and reach.py's `config_default` in local edits),
from the library's spelling, not from any held-out program.
"""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_CONFIG = 'CONFIG = {"image_size": 8}'
_HELD = 'size = CONFIG["image_size"]\nself.image_size = size if isinstance(size, tuple) else (size, size)'
_BOTH = (
    "batch_size, num_channels, height, width = x.shape\n"
    "if height != self.image_size[0] or width != self.image_size[1]:\n"
    "    raise ValueError('image size')\n"
    "return x * 2"
)
_BLOCK = '''
CONFIG = {"image_size": 8}


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.img_size = CONFIG["image_size"]

    def forward(self, pixel_values):
        if pixel_values.shape[2] != self.img_size:
            raise ValueError("height")
        return pixel_values.flatten(2)
'''
_PATCH_EMBED = '''
def _assert(condition, message):
    assert condition, message


class Block(torch.nn.Module):
    def __init__(self, img_size=8, strict_img_size=True):
        super().__init__()
        self.img_size = (img_size, img_size)
        self.strict_img_size = strict_img_size

    def forward(self, x):
        B, C, H, W = x.shape
        if self.strict_img_size:
            _assert(H == self.img_size[0], f"Input height ({H}) doesn't match model ({self.img_size[0]}).")
        return x.flatten(2)
'''
#: timm's VisionTransformer: the patch embedding's class a constructor argument's default
_VIT = '''
class VisionTransformer(torch.nn.Module):
    def __init__(self, embed_layer=Block):
        super().__init__()
        self.patch_embed = embed_layer(img_size=8)

    def forward(self, x):
        return self.patch_embed(x)
'''
#: transformers' BertEmbeddings: the position buffer as long as the config's default, `input_shape`
#: bound in both arms of `if input_ids is not None:`
_BERT = '''
class TextConfig:
    def __init__(self, hidden_size=4, max_position_embeddings=16):
        self.hidden_size = hidden_size
        self.max_position_embeddings = max_position_embeddings


class Embeddings(torch.nn.Module):
    def __init__(self, config):
        super().__init__()
        self.position_embeddings = torch.nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.position_ids = torch.nn.Buffer(torch.arange(config.max_position_embeddings).expand((1, -1)),
                                            persistent=False)

    def forward(self, input_ids=None, inputs_embeds=None, past_key_values_length: int = 0):
        if input_ids is not None:
            input_shape = input_ids.size()
        else:
            input_shape = inputs_embeds.size()[:-1]
        batch_size, seq_length = input_shape
        position_ids = self.position_ids[:, past_key_values_length : seq_length + past_key_values_length]
        return self.position_embeddings(position_ids)
'''
_HW = '{"x": {2: Dim("height", min=4, max=16), 3: Dim("width", min=4, max=16)}}'

PROGRAMS: list[Program] = [
    Program("raise-unless-the-held-size", _BOTH, "(torch.randn(2, 3, 8, 8),)", _HW, fails=True,
            top=_CONFIG, init=_HELD),
    Program("raise-unless-the-held-size-of-a-static-dim", _BOTH, "(torch.randn(2, 3, 8, 8),)",
            '{"x": {0: Dim("batch", min=2, max=16)}}', fails=False, top=_CONFIG, init=_HELD),
    # in a submodule of another file, the size read from `.shape` in the test itself
    Program("raise-unless-the-held-size-in-a-block", "return self.block(x)", "(torch.randn(2, 3, 8, 8),)",
            '{"x": {2: Dim("height", min=4, max=16)}}', fails=True, init="self.block = Block()", block=_BLOCK),
    Program("raise-unless-the-held-size-in-a-block-batch-dim", "return self.block(x)", "(torch.randn(2, 3, 8, 8),)",
            '{"x": {0: Dim("batch", min=2, max=16)}}', fails=False, init="self.block = Block()", block=_BLOCK),
    Program("patch-embedding-from-a-constructor-default", "return self.vit(x)", "(torch.randn(2, 3, 8, 8),)",
            '{"x": {2: Dim("height", min=4, max=16)}}', fails=True, top=_VIT, init="self.vit = VisionTransformer()",
            block=_PATCH_EMBED),
    Program("patch-embedding-from-a-constructor-default-batch-dim", "return self.vit(x)", "(torch.randn(2, 3, 8, 8),)",
            '{"x": {0: Dim("batch", min=2, max=16)}}', fails=False, top=_VIT, init="self.vit = VisionTransformer()",
            block=_PATCH_EMBED),
    Program("position-buffer-as-long-as-the-config-default", "return self.embeddings(input_ids=x)",
            "(torch.randint(0, 16, (2, 8)),)", '{"x": {1: Dim("seq", min=2, max=32)}}', fails=True, top=_BERT,
            init="self.embeddings = Embeddings(TextConfig())"),
    Program("position-buffer-as-long-as-the-config-default-in-range", "return self.embeddings(input_ids=x)",
            "(torch.randint(0, 16, (2, 8)),)", '{"x": {1: Dim("seq", min=2, max=16)}}', fails=False, top=_BERT,
            init="self.embeddings = Embeddings(TextConfig())"),
]
#: (program, mode) -> why xport-lint's verdict differs from torch's
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

BATCH = ProgramBatch("zoosizes", {"size checks of library models": PROGRAMS}, KNOWN_MISSES)
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
