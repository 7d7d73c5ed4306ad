"""A held-out probe for issue 24, written by a helper session that saw none of the project's
shape batches: 132 programs in the style of timm, torchvision, transformers and diffusers models
with named `Dim`s (patch-embedding asserts, position tables sliced by the sequence, window
partitions, heads views, cross-attention and timestep batches, UNet skips, MAE masking, unfold,
pixel (un)shuffle, GLU chunks, config-switched size checks), each beside near misses that export.
Every outcome was measured on torch 2.13.0 in both modes: 66 fail non-strict (61 strict), 66
export non-strict (71 strict). (One more the helper wrote added two lengths eager rejects too; it is
left out.)

BEFORE (this file on the engine of `9711616`, the programs written and measured before any change
they prompted):
    non-strict: 50/66 failing programs with an error; 2/66 exporting programs with one
    strict:     47/61 failing programs with an error; 2/71 exporting programs with one
AFTER (this commit; the misses and the one false error below are `KNOWN_MISSES`; in-sample: the
changes were made for this file's misses, so only BEFORE measures generalisation):
    non-strict: 54/66 failing programs with an error (82 %); 1/66 exporting programs with one
    strict:     51/61 failing programs with an error (84 %); 1/71 exporting programs with one
What changed: `F.scaled_dot_product_attention` no longer ties 4-d keys' and values' lengths (CPU's
fused kernel guards nothing between them: the probe's `sdpa-kv-separate-lens` exports); layer sizes written as arithmetic in `__init__`
(`nn.Linear(8 * 8 * 8, 10)`) are numbers; `torch.rand(n, L)`/`zeros`/`ones`/`empty` have the sizes they
are given, `argsort` and `*_like` keep them; XPT308 judges a floor-divided slice bound on any
tensor whose dimension is the input's (MAE's `argsort(noise)[:, : L // 4]`); XPT305 follows
straight-line helpers (`timestep_embedding(t, 32)`, a literal default filled in) and
`torch.tensor([...])` examples have their shape. Later, a loop over an `nn.ModuleList` gives the
list's first block the input's `Dim`s (`patch-merging-stages`; spellings in
tests/truth/test_module_list_loops.py): the figures above include it.
"""

from __future__ import annotations

import pytest

from tests.truth.batches import Mode, Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

PATCH_EMBED = '''
class PatchEmbed(torch.nn.Module):
    def __init__(self, img_size=32, patch_size=8, in_chans=3, embed_dim=32):
        super().__init__()
        self.img_size = (img_size, img_size)
        self.proj = torch.nn.Conv2d(in_chans, embed_dim, patch_size, patch_size)

    def forward(self, x):
        B, C, H, W = x.shape
        assert H == self.img_size[0], f"Input height ({H}) doesn't match model ({self.img_size[0]})."
        assert W == self.img_size[1], f"Input width ({W}) doesn't match model ({self.img_size[1]})."
        return self.proj(x).flatten(2).transpose(1, 2)
'''

WINDOW = '''
def window_partition(x, window_size: int):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size, window_size, W // window_size, window_size, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, C)


def window_reverse(windows, window_size: int, H: int, W: int):
    C = windows.shape[-1]
    x = windows.view(-1, H // window_size, W // window_size, window_size, window_size, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, H, W, C)
'''

UPSAMPLE = '''
class Upsample2D(torch.nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = torch.nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, hidden_states):
        if hidden_states.shape[0] >= 64:
            hidden_states = hidden_states.contiguous()
        hidden_states = F.interpolate(hidden_states, scale_factor=2.0, mode="nearest")
        return self.conv(hidden_states)
'''

TIMESTEP = '''
def timestep_embedding(timesteps, dim, max_period=10000):
    half = dim // 2
    exponent = -math.log(max_period) * torch.arange(half, dtype=torch.float32) / half
    args = timesteps[:, None].float() * torch.exp(exponent)[None, :]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
'''

MERGING = '''
class PatchMerging(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = torch.nn.LayerNorm(4 * dim)
        self.reduction = torch.nn.Linear(4 * dim, 2 * dim, bias=False)

    def forward(self, x):
        B, H, W, C = x.shape
        x = x.reshape(B, H // 2, 2, W // 2, 2, C).permute(0, 1, 3, 4, 2, 5).flatten(3)
        return self.reduction(self.norm(x))
'''

VIT_CONFIG = '''
class ViTConfig:
    def __init__(self, image_size=32, patch_size=8, hidden_size=32, num_channels=3, interpolate=False):
        self.image_size = image_size
        self.patch_size = patch_size
        self.hidden_size = hidden_size
        self.num_channels = num_channels
        self.interpolate_pos_encoding = interpolate


class ViTEmbeddings(torch.nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.image_size = (config.image_size, config.image_size)
        self.patch_size = config.patch_size
        self.num_channels = config.num_channels
        self.projection = torch.nn.Conv2d(config.num_channels, config.hidden_size, config.patch_size, config.patch_size)
        grid = config.image_size // config.patch_size
        self.position_embeddings = torch.nn.Parameter(torch.randn(1, grid * grid, config.hidden_size))

    def interpolate_pos_encoding(self, embeddings, height, width):
        dim = embeddings.shape[-1]
        n = self.position_embeddings.shape[1]
        side = int(math.sqrt(n))
        pos = self.position_embeddings.reshape(1, side, side, dim).permute(0, 3, 1, 2)
        new_h, new_w = height // self.patch_size, width // self.patch_size
        pos = F.interpolate(pos, size=(new_h, new_w), mode="bicubic", align_corners=False)
        return pos.permute(0, 2, 3, 1).view(1, -1, dim)

    def forward(self, pixel_values):
        batch_size, num_channels, height, width = pixel_values.shape
        if num_channels != self.num_channels:
            raise ValueError("channel dimension mismatch")
        if not self.config.interpolate_pos_encoding:
            if height != self.image_size[0] or width != self.image_size[1]:
                raise ValueError(f"Input image size ({height}*{width}) doesn't match model.")
        embeddings = self.projection(pixel_values).flatten(2).transpose(1, 2)
        if self.config.interpolate_pos_encoding:
            return embeddings + self.interpolate_pos_encoding(embeddings, height, width)
        return embeddings + self.position_embeddings
'''

RELPOS_INIT = '''
self.ws = 4
self.table = torch.nn.Parameter(torch.zeros((2 * self.ws - 1) ** 2, 2))
coords = torch.stack(torch.meshgrid(torch.arange(self.ws), torch.arange(self.ws), indexing="ij")).flatten(1)
rel = coords[:, :, None] - coords[:, None, :]
rel = rel.permute(1, 2, 0) + (self.ws - 1)
self.register_buffer("rel_index", rel[..., 0] * (2 * self.ws - 1) + rel[..., 1], persistent=False)
'''

ROTARY_INIT = '''
inv_freq = 1.0 / (10000 ** (torch.arange(0, 16, 2).float() / 16))
self.register_buffer("inv_freq", inv_freq, persistent=False)
t = torch.arange(64).float()
freqs = torch.outer(t, inv_freq)
emb = torch.cat((freqs, freqs), dim=-1)
self.register_buffer("cos_cached", emb.cos(), persistent=False)
self.register_buffer("sin_cached", emb.sin(), persistent=False)
'''

GPT_INIT = '''
self.c_attn = torch.nn.Linear(16, 48)
self.register_buffer("bias", torch.tril(torch.ones(64, 64)).view(1, 64, 64))
'''

GPT_BODY = '''
B, T, C = x.size()
q, k, v = self.c_attn(x).split(C, dim=2)
att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
att = att.masked_fill(self.bias[:, :T, :T] == 0, float("-inf"))
att = F.softmax(att, dim=-1)
return att @ v
'''

SWIN_PAD_BODY = '''
B, H, W, C = x.shape
pad_b = (self.ws - H % self.ws) % self.ws
pad_r = (self.ws - W % self.ws) % self.ws
x = F.pad(x, (0, 0, 0, pad_r, 0, pad_b))
_, Hp, Wp, _ = x.shape
windows = window_partition(x, self.ws) * 2.0
x = window_reverse(windows, self.ws, Hp, Wp)
return x[:, :H, :W, :].contiguous()
'''

UNET_INIT = '''
self.down = torch.nn.Conv2d(4, 8, 3, stride=2, padding=1)
self.conv_out = torch.nn.Conv2d(12, 4, 3, padding=1)
'''

TIMESTEP_2 = '''
def timestep_embedding(timesteps, dim, max_period=10000):
    half = dim // 2
    exponent = -math.log(max_period) * torch.arange(half, dtype=torch.float32) / half
    args = timesteps[..., None].float() * torch.exp(exponent)
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
'''

GROUPED = '''
class GroupedChannelMix(torch.nn.Module):
    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, x):
        b, c, h, w = x.size()
        x = x.view(b, self.groups, c // self.groups, h, w)
        return x.transpose(1, 2).reshape(b, c, h, w)
'''

POOL_INIT = "self.depth = 3\nself.bias = torch.nn.Parameter(torch.zeros(1, 4, 4, 4))"

RESIZE = '''
class ResizeTo(torch.nn.Module):
    def __init__(self, size):
        super().__init__()
        self.expected = torch.Size(size)

    def forward(self, x):
        if x.shape[-2:] != self.expected:
            x = F.interpolate(x, size=tuple(self.expected), mode="bilinear", align_corners=False)
        return x
'''


PROGRAMS: list[Program] = [
    # --- patch embed asserting a fixed img_size
    Program("patch-embed-assert-img-size", "return self.patch_embed(x)", "(torch.randn(2, 3, 32, 32),)",
      '{"x": {0: Dim("batch", min=2, max=64), 2: Dim("height", min=16, max=64)}}', fails=True,
      top=PATCH_EMBED, init="self.patch_embed = PatchEmbed()"),
    Program("patch-embed-assert-batch-only", "return self.patch_embed(x)", "(torch.randn(2, 3, 32, 32),)",
      '{"x": {0: Dim("batch", min=2, max=64)}}', fails=False,
      top=PATCH_EMBED, init="self.patch_embed = PatchEmbed()"),
    # --- HF ViT embeddings with config
    Program("hf-vit-config-size-check", "return self.embeddings(pixel_values)", "(torch.randn(2, 3, 32, 32),)",
      '{"pixel_values": {0: Dim("batch"), 2: Dim("height", min=16, max=128), 3: Dim("width", min=16, max=128)}}',
      fails=True, params="pixel_values", top=VIT_CONFIG, init="self.embeddings = ViTEmbeddings(ViTConfig())"),
    Program("hf-vit-config-interpolate", "return self.embeddings(pixel_values)", "(torch.randn(2, 3, 32, 32),)",
      '{"pixel_values": {0: Dim("batch"), 2: Dim("height", min=16, max=128), 3: Dim("width", min=16, max=128)}}',
      fails=False, params="pixel_values", top=VIT_CONFIG,
      init="self.embeddings = ViTEmbeddings(ViTConfig(interpolate=True))"),
    # --- pos-embed sliced by sequence length
    Program("pos-embed-slice-past-buffer", "tokens = self.proj(x)\nn = tokens.shape[1]\nreturn tokens + self.pos_embed[:, :n]",
      "(torch.randn(2, 20, 16),)", '{"x": {1: Dim("tokens", max=128)}}', fails=True,
      init="self.proj = torch.nn.Linear(16, 32)\nself.pos_embed = torch.nn.Parameter(torch.zeros(1, 64, 32))"),
    Program("pos-embed-slice-within-buffer", "tokens = self.proj(x)\nn = tokens.shape[1]\nreturn tokens + self.pos_embed[:, :n]",
      "(torch.randn(2, 20, 16),)", '{"x": {1: Dim("tokens", max=64)}}', fails=False,
      init="self.proj = torch.nn.Linear(16, 32)\nself.pos_embed = torch.nn.Parameter(torch.zeros(1, 64, 32))"),
    # --- interpolate pos-embed only when grid differs
    Program("pos-embed-interp-if-differs", '''
x = self.patch(x)
gh, gw = x.shape[-2:]
pos = self.pos
if (gh, gw) != tuple(pos.shape[-2:]):
    pos = F.interpolate(pos, size=(gh, gw), mode="bilinear", align_corners=False)
return (x + pos).flatten(2).transpose(1, 2)
''', "(torch.randn(2, 3, 48, 48),)", '{"x": {2: Dim("h", min=8, max=128), 3: Dim("w", min=8, max=128)}}', fails=True, strict_fails=False,
      init="self.patch = torch.nn.Conv2d(3, 32, 4, 4)\nself.pos = torch.nn.Parameter(torch.zeros(1, 32, 8, 8))"),
    Program("pos-embed-interp-always", '''
x = self.patch(x)
gh, gw = x.shape[-2:]
pos = F.interpolate(self.pos, size=(gh, gw), mode="bilinear", align_corners=False)
return (x + pos).flatten(2).transpose(1, 2)
''', "(torch.randn(2, 3, 48, 48),)", '{"x": {2: Dim("h", min=8, max=128), 3: Dim("w", min=8, max=128)}}', fails=False,
      init="self.patch = torch.nn.Conv2d(3, 32, 4, 4)\nself.pos = torch.nn.Parameter(torch.zeros(1, 32, 8, 8))"),
    # --- window partition
    Program("swin-window-partition", "return window_partition(x, self.ws)", "(torch.randn(2, 14, 14, 16),)",
      '{"x": {1: Dim("h", min=7, max=56), 2: Dim("w", min=7, max=56)}}', fails=True, top=WINDOW, init="self.ws = 7"),
    Program("swin-window-partition-multiple", "return window_partition(x, self.ws)", "(torch.randn(2, 14, 14, 16),)",
      '{"x": {1: 7 * hb, 2: 7 * wb}}', fails=False, top=WINDOW, init="self.ws = 7",
      prelude='hb = Dim("hb", min=1, max=8)\nwb = Dim("wb", min=1, max=8)'),
    Program("swin-pad-then-partition", SWIN_PAD_BODY, "(torch.randn(2, 12, 12, 16),)",
      '{"x": {1: Dim("h", min=7, max=56), 2: Dim("w", min=7, max=56)}}', fails=True, top=WINDOW, init="self.ws = 7"),
    # --- heads reshape
    Program("heads-view-dyn-channels", '''
b, n, c = x.shape
q = x.view(b, n, self.num_heads, c // self.num_heads).transpose(1, 2)
attn = (q @ q.transpose(-2, -1)).softmax(dim=-1)
return (attn @ q).transpose(1, 2).reshape(b, n, c)
''', "(torch.randn(2, 10, 32),)", '{"x": {1: Dim("n"), 2: Dim("c", max=512)}}', fails=True, init="self.num_heads = 4"),
    Program("heads-view-dyn-tokens", '''
b, n, c = x.shape
q = x.view(b, n, self.num_heads, -1).transpose(1, 2)
attn = (q @ q.transpose(-2, -1)).softmax(dim=-1)
return (attn @ q).transpose(1, 2).reshape(b, n, c)
''', "(torch.randn(2, 10, 32),)", '{"x": {0: Dim("b"), 1: Dim("n")}}', fails=False, init="self.num_heads = 4"),
    # --- causal mask buffer
    Program("gpt2-causal-mask-past-block", GPT_BODY, "(torch.randn(2, 12, 16),)", '{"x": {1: Dim("T", max=128)}}',
      fails=True, init=GPT_INIT),
    Program("gpt2-causal-mask-within-block", GPT_BODY, "(torch.randn(2, 12, 16),)", '{"x": {1: Dim("T", max=64)}}',
      fails=True, init=GPT_INIT),
    # --- cross attention
    Program("cross-attn-separate-batch-dims", '''
q = self.to_q(x)
k, v = self.to_kv(context).chunk(2, dim=-1)
attn = torch.softmax(q @ k.transpose(-1, -2) / 4.0, dim=-1)
return attn @ v
''', "(torch.randn(2, 10, 16), torch.randn(2, 7, 24))",
      '{"x": {0: Dim("b"), 1: Dim("n")}, "context": {0: Dim("bc"), 1: Dim("m")}}', fails=True, params="x, context",
      init="self.to_q = torch.nn.Linear(16, 16)\nself.to_kv = torch.nn.Linear(24, 32)"),
    Program("cross-attn-shared-batch-dim", '''
q = self.to_q(x)
k, v = self.to_kv(context).chunk(2, dim=-1)
attn = torch.softmax(q @ k.transpose(-1, -2) / 4.0, dim=-1)
return attn @ v
''', "(torch.randn(2, 10, 16), torch.randn(2, 7, 24))",
      '{"x": {0: batch, 1: Dim("n")}, "context": {0: batch, 1: Dim("m")}}', fails=False, params="x, context",
      prelude='batch = Dim("batch")', init="self.to_q = torch.nn.Linear(16, 16)\nself.to_kv = torch.nn.Linear(24, 32)"),
    # --- einsum
    Program("einsum-head-dim-separate", 'return torch.einsum("bhnd,bhmd->bhnm", q, k)',
      "(torch.randn(2, 4, 10, 8), torch.randn(2, 4, 12, 8))",
      '{"q": {2: Dim("nq"), 3: Dim("dq")}, "k": {2: Dim("nk"), 3: Dim("dk")}}', fails=True, params="q, k"),
    Program("einsum-seq-lens-separate", 'return torch.einsum("bhnd,bhmd->bhnm", q, k)',
      "(torch.randn(2, 4, 10, 8), torch.randn(2, 4, 12, 8))",
      '{"q": {2: Dim("nq")}, "k": {2: Dim("nk")}}', fails=False, params="q, k"),
    # --- cls token then fixed pos-embed
    Program("cls-token-fixed-pos-embed", '''
B = x.shape[0]
cls = self.cls_token.expand(B, -1, -1)
x = torch.cat((cls, x), dim=1)
x = x + self.pos_embed
return x
''', "(torch.randn(2, 16, 32),)", '{"x": {0: Dim("batch"), 1: Dim("patches", max=256)}}', fails=True,
      init="self.cls_token = torch.nn.Parameter(torch.zeros(1, 1, 32))\nself.pos_embed = torch.nn.Parameter(torch.zeros(1, 17, 32))"),
    Program("cls-token-fixed-pos-embed-batch-only", '''
B = x.shape[0]
cls = self.cls_token.expand(B, -1, -1)
x = torch.cat((cls, x), dim=1)
x = x + self.pos_embed
return x
''', "(torch.randn(2, 16, 32),)", '{"x": {0: Dim("batch")}}', fails=False,
      init="self.cls_token = torch.nn.Parameter(torch.zeros(1, 1, 32))\nself.pos_embed = torch.nn.Parameter(torch.zeros(1, 17, 32))"),
    # --- conv stem into fixed Linear
    Program("conv-stem-flatten-linear", "x = F.relu(self.conv(x))\nx = x.flatten(1)\nreturn self.fc(x)",
      "(torch.randn(2, 3, 16, 16),)", '{"x": {0: Dim("b"), 2: Dim("h", min=8, max=64)}}', fails=True,
      init="self.conv = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)\nself.fc = torch.nn.Linear(8 * 8 * 8, 10)"),
    Program("conv-stem-pool-flatten-linear",
      "x = F.relu(self.conv(x))\nx = F.adaptive_avg_pool2d(x, (8, 8))\nx = x.flatten(1)\nreturn self.fc(x)",
      "(torch.randn(2, 3, 16, 16),)", '{"x": {0: Dim("b"), 2: Dim("h", min=8, max=64)}}', fails=False,
      init="self.conv = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)\nself.fc = torch.nn.Linear(8 * 8 * 8, 10)"),
    # --- square-input check by tuple unpacking
    Program("square-check-separate-dims", '''
B, C, H, W = x.shape
if H != W:
    raise ValueError("expected a square input")
return x.mean((2, 3))
''', "(torch.randn(2, 3, 24, 24),)", '{"x": {2: Dim("H"), 3: Dim("W")}}', fails=True),
    Program("square-check-shared-dim", '''
B, C, H, W = x.shape
if H != W:
    raise ValueError("expected a square input")
return x.mean((2, 3))
''', "(torch.randn(2, 3, 24, 24),)", '{"x": {2: side, 3: side}}', fails=False, prelude='side = Dim("side")'),
    # --- diffusers batch-size branch
    Program("upsample-batch-branch-wide", "return self.up(x)", "(torch.randn(2, 4, 8, 8),)",
      '{"x": {0: Dim("batch", max=128)}}', fails=True, top=UPSAMPLE, init="self.up = Upsample2D(4)"),
    Program("upsample-batch-branch-narrow", "return self.up(x)", "(torch.randn(2, 4, 8, 8),)",
      '{"x": {0: Dim("batch", max=63)}}', fails=False, top=UPSAMPLE, init="self.up = Upsample2D(4)"),
    # --- HF position_ids buffer
    Program("hf-position-ids-past-max", '''
seq_length = input_ids.size(1)
position_ids = self.position_ids[:, :seq_length]
return self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
''', "(torch.randint(0, 100, (2, 12)),)", '{"input_ids": {1: Dim("seq", max=64)}}', fails=True, params="input_ids",
      init='self.word_embeddings = torch.nn.Embedding(100, 16)\nself.position_embeddings = torch.nn.Embedding(32, 16)\n'
           'self.register_buffer("position_ids", torch.arange(32).expand((1, -1)), persistent=False)'),
    Program("hf-position-ids-within-max", '''
seq_length = input_ids.size(1)
position_ids = self.position_ids[:, :seq_length]
return self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
''', "(torch.randint(0, 100, (2, 12)),)", '{"input_ids": {1: Dim("seq", max=32)}}', fails=False, params="input_ids",
      init='self.word_embeddings = torch.nn.Embedding(100, 16)\nself.position_embeddings = torch.nn.Embedding(32, 16)\n'
           'self.register_buffer("position_ids", torch.arange(32).expand((1, -1)), persistent=False)'),
    # --- max len via raise / torch._check
    Program("max-len-raise-wide", '''
seq_len = x.shape[1]
if seq_len > self.max_len:
    raise ValueError(f"sequence length {seq_len} exceeds {self.max_len}")
return x * 2.0
''', "(torch.randn(2, 10, 16),)", '{"x": {1: Dim("seq", max=64)}}', fails=True, init="self.max_len = 32"),
    Program("max-len-raise-narrow", '''
seq_len = x.shape[1]
if seq_len > self.max_len:
    raise ValueError(f"sequence length {seq_len} exceeds {self.max_len}")
return x * 2.0
''', "(torch.randn(2, 10, 16),)", '{"x": {1: Dim("seq", max=32)}}', fails=False, init="self.max_len = 32"),
    Program("max-len-check-wide", "n = x.size(1)\ntorch._check(n <= self.max_positions)\nreturn x.cumsum(1)",
      "(torch.randn(2, 10, 16),)", '{"x": {1: Dim("n", max=1024)}}', fails=True, init="self.max_positions = 512"),
    Program("max-len-check-narrow", "n = x.size(1)\ntorch._check(n <= self.max_positions)\nreturn x.cumsum(1)",
      "(torch.randn(2, 10, 16),)", '{"x": {1: Dim("n", max=512)}}', fails=False, init="self.max_positions = 512"),
    # --- arange vs fixed buffer
    Program("arange-vs-fixed-buffer", "T = x.shape[1]\nkeep = torch.arange(T) < self.valid\nreturn x * keep[None, :, None]",
      "(torch.randn(2, 16, 8),)", '{"x": {1: Dim("T", max=64)}}', fails=True,
      init='self.register_buffer("valid", torch.arange(16))'),
    Program("arange-vs-scalar-buffer", "T = x.shape[1]\nkeep = torch.arange(T) < self.limit\nreturn x * keep[None, :, None]",
      "(torch.randn(2, 16, 8),)", '{"x": {1: Dim("T", max=64)}}', fails=False,
      init='self.register_buffer("limit", torch.tensor(12))'),
    # --- expand to another input's size
    Program("expand-as-other-input", "return x * mask.expand_as(x)", "(torch.randn(2, 8, 16), torch.randn(2, 8, 1))",
      '{"x": {1: Dim("n")}, "mask": {1: Dim("m")}}', fails=True, params="x, mask"),
    Program("expand-as-other-input-shared", "return x * mask.expand_as(x)", "(torch.randn(2, 8, 16), torch.randn(2, 8, 1))",
      '{"x": {1: n}, "mask": {1: n}}', fails=False, params="x, mask", prelude='n = Dim("n")'),
    # --- repeat_interleave (GQA)
    Program("gqa-repeat-dyn-heads", '''
n_rep = q.shape[1] // k.shape[1]
k = k.repeat_interleave(n_rep, dim=1)
return torch.softmax(q @ k.transpose(-1, -2), dim=-1)
''', "(torch.randn(2, 8, 10, 16), torch.randn(2, 4, 10, 16))",
      '{"q": {1: Dim("hq", max=32)}, "k": {1: Dim("hk", max=32)}}', fails=False, params="q, k"),
    Program("gqa-repeat-static-heads", '''
n_rep = q.shape[1] // k.shape[1]
k = k.repeat_interleave(n_rep, dim=1)
return torch.softmax(q @ k.transpose(-1, -2), dim=-1)
''', "(torch.randn(2, 8, 10, 16), torch.randn(2, 4, 12, 16))",
      '{"q": {2: Dim("q_len")}, "k": {2: Dim("kv_len")}}', fails=False, params="q, k"),
    Program("repeat-interleave-vs-other", "return x.repeat_interleave(2, dim=1) + y", "(torch.randn(2, 5, 8), torch.randn(2, 10, 8))",
      '{"x": {1: Dim("n")}, "y": {1: Dim("m")}}', fails=True, params="x, y"),
    Program("repeat-interleave-vs-derived", "return x.repeat_interleave(2, dim=1) + y", "(torch.randn(2, 5, 8), torch.randn(2, 10, 8))",
      '{"x": {1: n}, "y": {1: 2 * n}}', fails=False, params="x, y", prelude='n = Dim("n", max=100)'),
    # --- GLU chunk
    Program("glu-chunk-dyn-width", "a, gate = x.chunk(2, dim=-1)\nreturn a * torch.sigmoid(gate)", "(torch.randn(2, 10, 32),)",
      '{"x": {2: Dim("width", max=256)}}', fails=True),
    Program("glu-chunk-even-width", "a, gate = x.chunk(2, dim=-1)\nreturn a * torch.sigmoid(gate)", "(torch.randn(2, 10, 32),)",
      '{"x": {2: 2 * half}}', fails=False, prelude='half = Dim("half", max=128)'),
    # --- relative position bias of fixed window
    Program("rel-pos-bias-dyn-tokens", '''
B, H, N, _ = x.shape
bias = self.table[self.rel_index.view(-1)].view(N, N, -1).permute(2, 0, 1)
return x + bias.unsqueeze(0)
''', "(torch.randn(2, 2, 16, 16),)", '{"x": {2: n, 3: n}}', fails=True, init=RELPOS_INIT, prelude='n = Dim("n", max=64)'),
    Program("rel-pos-bias-window-area", '''
B, H, N, _ = x.shape
area = self.ws * self.ws
bias = self.table[self.rel_index.view(-1)].view(area, area, -1).permute(2, 0, 1)
return x + bias.unsqueeze(0)
''', "(torch.randn(2, 2, 16, 16),)", '{"x": {0: Dim("batch")}}', fails=False, init=RELPOS_INIT),
    # --- flatten/transpose then Linear
    Program("flatten-transpose-linear-dyn-chans", "x = x.flatten(2).transpose(1, 2)\nreturn self.proj(x)", "(torch.randn(2, 16, 8, 8),)",
      '{"x": {1: Dim("c")}}', fails=True, init="self.proj = torch.nn.Linear(16, 32)"),
    Program("flatten-transpose-linear-dyn-hw", "x = x.flatten(2).transpose(1, 2)\nreturn self.proj(x)", "(torch.randn(2, 16, 8, 8),)",
      '{"x": {2: Dim("h"), 3: Dim("w")}}', fails=False, init="self.proj = torch.nn.Linear(16, 32)"),
    # --- timestep embedding batch
    Program("timestep-emb-separate-batch", '''
emb = self.time_mlp(timestep_embedding(t, 32))
h = self.conv(x)
return h + emb[:, :, None, None]
''', "(torch.randn(2, 8, 16, 16), torch.tensor([1, 500]))", '{"x": {0: Dim("batch")}, "t": {0: Dim("t_batch")}}',
      fails=True, params="x, t", top=TIMESTEP,
      init="self.time_mlp = torch.nn.Linear(32, 8)\nself.conv = torch.nn.Conv2d(8, 8, 3, padding=1)"),
    Program("timestep-emb-shared-batch", '''
emb = self.time_mlp(timestep_embedding(t, 32))
h = self.conv(x)
return h + emb[:, :, None, None]
''', "(torch.randn(2, 8, 16, 16), torch.tensor([1, 500]))", '{"x": {0: batch}, "t": {0: batch}}',
      fails=False, params="x, t", top=TIMESTEP, prelude='batch = Dim("batch")',
      init="self.time_mlp = torch.nn.Linear(32, 8)\nself.conv = torch.nn.Conv2d(8, 8, 3, padding=1)"),
    # --- UNet skip connections
    Program("unet-skip-odd-sizes", '''
skip = x
h = self.down(x)
h = F.interpolate(h, scale_factor=2.0, mode="nearest")
h = torch.cat([h, skip], dim=1)
return self.conv_out(h)
''', "(torch.randn(2, 4, 16, 16),)", '{"x": {2: Dim("h", min=8, max=128), 3: Dim("w", min=8, max=128)}}',
      fails=True, init=UNET_INIT),
    Program("unet-skip-interp-to-skip", '''
skip = x
h = self.down(x)
h = F.interpolate(h, size=skip.shape[-2:], mode="nearest")
h = torch.cat([h, skip], dim=1)
return self.conv_out(h)
''', "(torch.randn(2, 4, 16, 16),)", '{"x": {2: Dim("h", min=8, max=128), 3: Dim("w", min=8, max=128)}}',
      fails=False, init=UNET_INIT),
    Program("unet-skip-even-derived", '''
skip = x
h = self.down(x)
h = F.interpolate(h, scale_factor=2.0, mode="nearest")
h = torch.cat([h, skip], dim=1)
return self.conv_out(h)
''', "(torch.randn(2, 4, 16, 16),)", '{"x": {2: 2 * hh, 3: 2 * hw}}',
      fails=False, init=UNET_INIT, prelude='hh = Dim("hh", min=4, max=64)\nhw = Dim("hw", min=4, max=64)'),
    # --- pad to multiple of 8
    Program("pad-if-not-multiple-of-8", '''
h, w = x.shape[-2:]
if h % 8 != 0 or w % 8 != 0:
    ph = (8 - h % 8) % 8
    pw = (8 - w % 8) % 8
    x = F.pad(x, (0, pw, 0, ph))
return self.enc(x)
''', "(torch.randn(1, 3, 30, 30),)", '{"x": {2: Dim("h", min=8, max=256), 3: Dim("w", min=8, max=256)}}',
      fails=True, init="self.enc = torch.nn.Conv2d(3, 4, 8, stride=8)"),
    Program("pad-if-not-multiple-of-8-derived", '''
h, w = x.shape[-2:]
if h % 8 != 0 or w % 8 != 0:
    ph = (8 - h % 8) % 8
    pw = (8 - w % 8) % 8
    x = F.pad(x, (0, pw, 0, ph))
return self.enc(x)
''', "(torch.randn(1, 3, 32, 32),)", '{"x": {2: 8 * gh, 3: 8 * gw}}',
      fails=False, init="self.enc = torch.nn.Conv2d(3, 4, 8, stride=8)",
      prelude='gh = Dim("gh", min=1, max=32)\ngw = Dim("gw", min=1, max=32)'),
    # --- audio frames
    Program("audio-frames-reshape", '''
B, T, C = x.shape
frames = x.reshape(B, T // self.frame, self.frame * C)
return self.proj(frames)
''', "(torch.randn(2, 40, 8),)", '{"x": {1: Dim("T", min=4, max=4000)}}', fails=True,
      init="self.frame = 4\nself.proj = torch.nn.Linear(32, 16)"),
    Program("audio-frames-reshape-derived", '''
B, T, C = x.shape
frames = x.reshape(B, T // self.frame, self.frame * C)
return self.proj(frames)
''', "(torch.randn(2, 40, 8),)", '{"x": {1: 4 * n_frames}}', fails=False,
      init="self.frame = 4\nself.proj = torch.nn.Linear(32, 16)", prelude='n_frames = Dim("n_frames", min=1, max=1000)'),
    # --- LayerNorm / GroupNorm with fixed params
    Program("layernorm-dyn-hidden", "return self.norm(x)", "(torch.randn(2, 10, 32),)", '{"x": {2: Dim("hidden")}}',
      fails=True, init="self.norm = torch.nn.LayerNorm(32)"),
    Program("layernorm-dyn-seq", "return self.norm(x)", "(torch.randn(2, 10, 32),)", '{"x": {1: Dim("seq")}}',
      fails=False, init="self.norm = torch.nn.LayerNorm(32)"),
    Program("groupnorm-dyn-channels", "return F.silu(self.norm(x))", "(torch.randn(2, 16, 8, 8),)", '{"x": {1: Dim("ch", max=64)}}',
      fails=True, init="self.norm = torch.nn.GroupNorm(4, 16)"),
    # --- builtin max vs sym_max
    Program("square-pad-builtin-max", '''
H, W = x.shape[2], x.shape[3]
side = max(H, W)
return F.pad(x, (0, side - W, 0, side - H))
''', "(torch.randn(1, 3, 20, 24),)", '{"x": {2: Dim("H", max=512), 3: Dim("W", max=512)}}', fails=False),
    Program("square-pad-sym-max", '''
H, W = x.shape[2], x.shape[3]
side = torch.sym_max(H, W)
return F.pad(x, (0, side - W, 0, side - H))
''', "(torch.randn(1, 3, 20, 24),)", '{"x": {2: Dim("H", max=512), 3: Dim("W", max=512)}}', fails=False),
    # --- min length padding
    Program("min-len-pad-low-min", '''
n = x.size(1)
if n < self.min_len:
    x = F.pad(x, (0, 0, 0, self.min_len - n))
return x.sum(1)
''', "(torch.randn(2, 8, 4),)", '{"x": {1: Dim("n", min=2, max=64)}}', fails=True, init="self.min_len = 4"),
    Program("min-len-pad-min-ok", '''
n = x.size(1)
if n < self.min_len:
    x = F.pad(x, (0, 0, 0, self.min_len - n))
return x.sum(1)
''', "(torch.randn(2, 8, 4),)", '{"x": {1: Dim("n", min=4, max=64)}}', fails=False, init="self.min_len = 4"),
    # --- split with fixed sizes
    Program("split-fixed-sizes-dyn-dim", "a, b = torch.split(x, [16, 16], dim=-1)\nreturn a * b", "(torch.randn(2, 10, 32),)",
      '{"x": {2: Dim("d")}}', fails=True),
    # --- video frames
    Program("video-frames-view", '''
bt, c, h, w = x.shape
x = x.view(bt // self.num_frames, self.num_frames, c, h, w)
return x.mean(1)
''', "(torch.randn(8, 3, 8, 8),)", '{"x": {0: Dim("bt", max=256)}}', fails=True, init="self.num_frames = 4"),
    Program("video-frames-view-derived", '''
bt, c, h, w = x.shape
x = x.view(bt // self.num_frames, self.num_frames, c, h, w)
return x.mean(1)
''', "(torch.randn(8, 3, 8, 8),)", '{"x": {0: 4 * b}}', fails=False, init="self.num_frames = 4",
      prelude='b = Dim("b", min=1, max=64)'),
    # --- classifier-free guidance
    Program("cfg-cat-two-inputs-chunk", '''
z = torch.cat([x, y])
uncond, cond = z.chunk(2)
return uncond + 7.5 * (cond - uncond)
''', "(torch.randn(2, 4, 8, 8), torch.randn(2, 4, 8, 8))", '{"x": {0: Dim("bx")}, "y": {0: Dim("by")}}',
      fails=False, params="x, y"),
    Program("cfg-cat-same-input-chunk", '''
z = torch.cat([x] * 2)
uncond, cond = z.chunk(2)
return uncond + 7.5 * (cond - uncond)
''', "(torch.randn(2, 4, 8, 8), torch.randn(2, 4, 8, 8))", '{"x": {0: Dim("bx")}, "y": None}',
      fails=True, params="x, y"),
    # --- pixel unshuffle
    Program("pixel-unshuffle-dyn", "return F.pixel_unshuffle(x, 2)", "(torch.randn(2, 3, 16, 16),)",
      '{"x": {2: Dim("h", max=64), 3: Dim("w", max=64)}}', fails=True),
    Program("pixel-unshuffle-derived", "return F.pixel_unshuffle(x, 2)", "(torch.randn(2, 3, 16, 16),)",
      '{"x": {2: 2 * hh, 3: 2 * hw}}', fails=False, prelude='hh = Dim("hh", max=32)\nhw = Dim("hw", max=32)'),
    # --- MAE random masking
    Program("mae-int-len-keep", '''
N, L, D = x.shape
len_keep = int(L * (1 - self.mask_ratio))
noise = torch.rand(N, L)
ids_keep = torch.argsort(noise, dim=1)[:, :len_keep]
return torch.gather(x, 1, ids_keep.unsqueeze(-1).repeat(1, 1, D))
''', "(torch.randn(2, 16, 8),)", '{"x": {1: Dim("L", max=256)}}', fails=True, init="self.mask_ratio = 0.75"),
    Program("mae-floordiv-len-keep", '''
N, L, D = x.shape
len_keep = L // 4
noise = torch.rand(N, L)
ids_keep = torch.argsort(noise, dim=1)[:, :len_keep]
return torch.gather(x, 1, ids_keep.unsqueeze(-1).repeat(1, 1, D))
''', "(torch.randn(2, 16, 8),)", '{"x": {1: Dim("L", min=4, max=256)}}', fails=True),
    # --- strided conv then length assert
    Program("strided-conv-assert-half-k3", "T = x.shape[-1]\ny = self.conv(x)\nassert y.shape[-1] == T // 2\nreturn y",
      "(torch.randn(2, 4, 20),)", '{"x": {2: Dim("T", min=4, max=1000)}}', fails=True,
      init="self.conv = torch.nn.Conv1d(4, 8, 3, stride=2, padding=1)"),
    Program("strided-conv-assert-half-k4", "T = x.shape[-1]\ny = self.conv(x)\nassert y.shape[-1] == T // 2\nreturn y",
      "(torch.randn(2, 4, 20),)", '{"x": {2: Dim("T", min=4, max=1000)}}', fails=False,
      init="self.conv = torch.nn.Conv1d(4, 8, 4, stride=2, padding=1)"),
    # --- pad to max length with new_zeros
    Program("new-zeros-pad-to-max-wide", '''
B, T, C = x.shape
pad = x.new_zeros(B, self.max_len - T, C)
return torch.cat([x, pad], dim=1)
''', "(torch.randn(2, 10, 4),)", '{"x": {1: Dim("T", max=100)}}', fails=True, violation=False, init="self.max_len = 50"),
    Program("new-zeros-pad-to-max-narrow", '''
B, T, C = x.shape
pad = x.new_zeros(B, self.max_len - T, C)
return torch.cat([x, pad], dim=1)
''', "(torch.randn(2, 10, 4),)", '{"x": {1: Dim("T", max=50)}}', fails=True, violation=False, strict_fails=False, init="self.max_len = 50"),
    # --- loop of patch-merging stages
    Program("patch-merging-stages", "for stage in self.stages:\n    x = stage(x)\nreturn x", "(torch.randn(2, 32, 32, 8),)",
      '{"x": {1: Dim("H", min=8, max=256), 2: Dim("W", min=8, max=256)}}', fails=True, top=MERGING,
      init="self.stages = torch.nn.ModuleList([PatchMerging(8), PatchMerging(16), PatchMerging(32)])"),
    Program("patch-merging-stages-derived", "for stage in self.stages:\n    x = stage(x)\nreturn x", "(torch.randn(2, 32, 32, 8),)",
      '{"x": {1: 8 * gh, 2: 8 * gw}}', fails=False, top=MERGING,
      init="self.stages = torch.nn.ModuleList([PatchMerging(8), PatchMerging(16), PatchMerging(32)])",
      prelude='gh = Dim("gh", min=1, max=32)\ngw = Dim("gw", min=1, max=32)'),
    # --- helper method with torch._check divisibility
    Program("helper-method-check-patchable", "self._check_patchable(x)\nreturn self.proj(x).flatten(2)", "(torch.randn(2, 3, 16, 16),)",
      '{"x": {2: Dim("h", min=4, max=64), 3: Dim("w", min=4, max=64)}}', fails=True,
      init="self.patch = 4\nself.proj = torch.nn.Conv2d(3, 8, 4, 4)", methods='''
def _check_patchable(self, x):
    torch._check(x.shape[-1] % self.patch == 0)
    torch._check(x.shape[-2] % self.patch == 0)
'''),
    Program("helper-method-check-patchable-derived", "self._check_patchable(x)\nreturn self.proj(x).flatten(2)",
      "(torch.randn(2, 3, 16, 16),)", '{"x": {2: 4 * gh, 3: 4 * gw}}', fails=False,
      init="self.patch = 4\nself.proj = torch.nn.Conv2d(3, 8, 4, 4)", prelude='gh = Dim("gh", min=1, max=16)\ngw = Dim("gw", min=1, max=16)',
      methods='''
def _check_patchable(self, x):
    torch._check(x.shape[-1] % self.patch == 0)
    torch._check(x.shape[-2] % self.patch == 0)
'''),
    # --- decoder memory
    Program("decoder-attends-memory", '''
attn = torch.softmax(tgt @ memory.transpose(1, 2), dim=-1) @ memory
return tgt + attn + memory.mean(1, keepdim=True)
''', "(torch.randn(2, 10, 16), torch.randn(2, 12, 16))",
      '{"tgt": {1: Dim("tgt_len")}, "memory": {1: Dim("src_len")}}', fails=False, params="tgt, memory"),
    # --- attention mask of separate batch
    Program("attn-mask-separate-batch", '''
scores = x @ x.transpose(-1, -2)
mask = attention_mask[:, None, :].to(scores.dtype)
scores = scores + (1.0 - mask) * -10000.0
return scores.softmax(-1)
''', "(torch.randn(2, 10, 16), torch.ones(2, 10))",
      '{"x": {0: Dim("batch"), 1: seq}, "attention_mask": {0: Dim("mask_batch"), 1: seq}}', fails=True,
      params="x, attention_mask", prelude='seq = Dim("seq")'),
    Program("attn-mask-shared-batch", '''
scores = x @ x.transpose(-1, -2)
mask = attention_mask[:, None, :].to(scores.dtype)
scores = scores + (1.0 - mask) * -10000.0
return scores.softmax(-1)
''', "(torch.randn(2, 10, 16), torch.ones(2, 10))",
      '{"x": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}}', fails=False,
      params="x, attention_mask", prelude='seq = Dim("seq")\nbatch = Dim("batch")'),
    Program("hf-mask-size-tuple-check", '''
bsz, q_len, _ = x.size()
kv_len = q_len
if attention_mask.size() != (bsz, 1, q_len, kv_len):
    raise ValueError(f"Attention mask should be of size {(bsz, 1, q_len, kv_len)}")
scores = x @ x.transpose(1, 2)
return scores.unsqueeze(1) + attention_mask
''', "(torch.randn(2, 10, 16), torch.zeros(2, 1, 10, 10))",
      '{"x": {0: batch, 1: Dim("q")}, "attention_mask": {0: batch, 2: Dim("mq"), 3: Dim("mk")}}', fails=True,
      params="x, attention_mask", prelude='batch = Dim("batch")'),
    Program("hf-mask-size-tuple-check-shared", '''
bsz, q_len, _ = x.size()
kv_len = q_len
if attention_mask.size() != (bsz, 1, q_len, kv_len):
    raise ValueError(f"Attention mask should be of size {(bsz, 1, q_len, kv_len)}")
scores = x @ x.transpose(1, 2)
return scores.unsqueeze(1) + attention_mask
''', "(torch.randn(2, 10, 16), torch.zeros(2, 1, 10, 10))",
      '{"x": {0: batch, 1: q}, "attention_mask": {0: batch, 2: q, 3: q}}', fails=False,
      params="x, attention_mask", prelude='batch = Dim("batch")\nq = Dim("q")'),
    # --- upsample then add skip
    Program("upsample-add-skip-separate", 'up = F.interpolate(x, scale_factor=2, mode="nearest")\nreturn up + skip',
      "(torch.randn(2, 4, 8, 8), torch.randn(2, 4, 16, 16))",
      '{"x": {2: Dim("h", max=64), 3: Dim("w", max=64)}, "skip": {2: Dim("hs", max=128), 3: Dim("ws", max=128)}}',
      fails=True, params="x, skip"),
    Program("upsample-add-skip-derived", 'up = F.interpolate(x, scale_factor=2, mode="nearest")\nreturn up + skip',
      "(torch.randn(2, 4, 8, 8), torch.randn(2, 4, 16, 16))",
      '{"x": {2: h, 3: w}, "skip": {2: 2 * h, 3: 2 * w}}', fails=False, params="x, skip",
      prelude='h = Dim("h", max=64)\nw = Dim("w", max=64)'),
    # --- torch MHA near miss
    Program("torch-mha-dyn-seq", "out, _ = self.attn(x, x, x, need_weights=False)\nreturn out", "(torch.randn(2, 10, 16),)",
      '{"x": {0: Dim("batch"), 1: Dim("seq")}}', fails=False,
      init="self.attn = torch.nn.MultiheadAttention(16, 4, batch_first=True)"),
    # --- fixed prefix slice
    Program("prefix-slice-low-min", "prefix = x[:, : self.n_prefix]\nreturn prefix.transpose(1, 2) @ self.w",
      "(torch.randn(2, 20, 4),)", '{"x": {1: Dim("n", min=2, max=64)}}', fails=True,
      init="self.n_prefix = 16\nself.w = torch.nn.Parameter(torch.randn(16, 8))"),
    Program("prefix-slice-min-ok", "prefix = x[:, : self.n_prefix]\nreturn prefix.transpose(1, 2) @ self.w",
      "(torch.randn(2, 20, 4),)", '{"x": {1: Dim("n", min=16, max=64)}}', fails=True, strict_fails=False,
      init="self.n_prefix = 16\nself.w = torch.nn.Parameter(torch.randn(16, 8))"),
    # --- rotary
    Program("rotary-cache-slice-unbounded", '''
seq_len = x.shape[-2]
cos = self.cos_cached[:seq_len]
sin = self.sin_cached[:seq_len]
x1, x2 = x[..., :8], x[..., 8:]
rot = torch.cat((-x2, x1), dim=-1)
return x * cos + rot * sin
''', "(torch.randn(2, 4, 10, 16),)", '{"x": {2: Dim("seq")}}', fails=True, init=ROTARY_INIT),
    Program("rotary-on-the-fly", '''
seq_len = x.shape[-2]
t = torch.arange(seq_len, dtype=torch.float32)
freqs = torch.outer(t, self.inv_freq)
emb = torch.cat((freqs, freqs), dim=-1)
x1, x2 = x[..., :8], x[..., 8:]
rot = torch.cat((-x2, x1), dim=-1)
return x * emb.cos() + rot * emb.sin()
''', "(torch.randn(2, 4, 10, 16),)", '{"x": {2: Dim("seq")}}', fails=False, init=ROTARY_INIT),
    # --- unfold / fold
    Program("tensor-unfold-low-min", "frames = x.unfold(1, 16, 8)\nreturn self.proj(frames)", "(torch.randn(2, 64),)",
      '{"x": {1: Dim("T", min=2, max=4096)}}', fails=True, init="self.proj = torch.nn.Linear(16, 8)"),
    Program("tensor-unfold-min-ok", "frames = x.unfold(1, 16, 8)\nreturn self.proj(frames)", "(torch.randn(2, 64),)",
      '{"x": {1: Dim("T", min=16, max=4096)}}', fails=True, init="self.proj = torch.nn.Linear(16, 8)"),
    Program("unfold-fold-to-input-size", '''
B, C, H, W = x.shape
cols = F.unfold(x, kernel_size=4, stride=4) * 2.0
return F.fold(cols, output_size=(H, W), kernel_size=4, stride=4)
''', "(torch.randn(2, 3, 16, 16),)", '{"x": {2: 4 * gh, 3: 4 * gw}}', fails=False,
      prelude='gh = Dim("gh", min=1, max=16)\ngw = Dim("gw", min=1, max=16)'),
    Program("unfold-fold-to-fixed-size", '''
cols = F.unfold(x, kernel_size=4, stride=4) * 2.0
return F.fold(cols, output_size=(self.size, self.size), kernel_size=4, stride=4)
''', "(torch.randn(2, 3, 16, 16),)", '{"x": {2: Dim("h", min=4, max=64), 3: Dim("w", min=4, max=64)}}', fails=True,
      init="self.size = 16"),
    # near misses completing set1's pairs
    Program("gpt2-causal-mask-max-63", GPT_BODY, "(torch.randn(2, 12, 16),)", '{"x": {1: Dim("T", max=63)}}',
      fails=False, init=GPT_INIT),
    Program("prefix-slice-min-17", "prefix = x[:, : self.n_prefix]\nreturn prefix.transpose(1, 2) @ self.w",
      "(torch.randn(2, 20, 4),)", '{"x": {1: Dim("n", min=17, max=64)}}', fails=False,
      init="self.n_prefix = 16\nself.w = torch.nn.Parameter(torch.randn(16, 8))"),
    Program("tensor-unfold-min-24", "frames = x.unfold(1, 16, 8)\nreturn self.proj(frames)", "(torch.randn(2, 64),)",
      '{"x": {1: Dim("T", min=24, max=4096)}}', fails=True, init="self.proj = torch.nn.Linear(16, 8)"),
    Program("mae-floordiv-len-keep-derived", '''
N, L, D = x.shape
len_keep = L // 4
noise = torch.rand(N, L)
ids_keep = torch.argsort(noise, dim=1)[:, :len_keep]
return torch.gather(x, 1, ids_keep.unsqueeze(-1).repeat(1, 1, D))
''', "(torch.randn(2, 16, 8),)", '{"x": {1: 4 * quarter}}', fails=False, prelude='quarter = Dim("quarter", min=2, max=64)'),
    Program("swin-pad-then-partition-multiple", SWIN_PAD_BODY, "(torch.randn(2, 14, 14, 16),)",
      '{"x": {1: 7 * hb, 2: 7 * wb}}', fails=False, top=WINDOW, init="self.ws = 7",
      prelude='hb = Dim("hb", min=1, max=8)\nwb = Dim("wb", min=1, max=8)'),
    Program("cfg-cat-slice-halves", '''
B = x.shape[0]
z = torch.cat([x, x])
uncond, cond = z[:B], z[B:]
return uncond + 7.5 * (cond - uncond)
''', "(torch.randn(2, 4, 8, 8),)", '{"x": {0: Dim("batch")}}', fails=False),
    Program("new-zeros-pad-to-max-48", '''
B, T, C = x.shape
pad = x.new_zeros(B, self.max_len - T, C)
return torch.cat([x, pad], dim=1)
''', "(torch.randn(2, 10, 4),)", '{"x": {1: Dim("T", max=48)}}', fails=False, init="self.max_len = 50"),
    Program("pad-to-max-fpad-wide", "B, T, C = x.shape\nreturn F.pad(x, (0, 0, 0, self.max_len - T))", "(torch.randn(2, 10, 4),)",
      '{"x": {1: Dim("T", max=100)}}', fails=False, init="self.max_len = 50"),
    Program("conv-stem-flatten-linear-batch-only", "x = F.relu(self.conv(x))\nx = x.flatten(1)\nreturn self.fc(x)",
      "(torch.randn(2, 3, 16, 16),)", '{"x": {0: Dim("b")}}', fails=False,
      init="self.conv = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)\nself.fc = torch.nn.Linear(8 * 8 * 8, 10)"),
    Program("timestep-scalar-broadcast", '''
emb = self.time_mlp(timestep_embedding(t, 32))
return self.conv(x) + emb[..., None, None]
''', "(torch.randn(2, 8, 16, 16), torch.tensor(10))", '{"x": {0: Dim("batch")}, "t": None}',
      fails=False, params="x, t", top=TIMESTEP_2,
      init="self.time_mlp = torch.nn.Linear(32, 8)\nself.conv = torch.nn.Conv2d(8, 8, 3, padding=1)"),
    # fresh programs
    Program("einsum-class-queries", 'return torch.einsum("bchw,bkc->bkhw", feats, queries)',
      "(torch.randn(2, 16, 8, 8), torch.randn(2, 5, 16))",
      '{"feats": {0: batch, 2: Dim("h"), 3: Dim("w")}, "queries": {0: batch, 1: Dim("k")}}', fails=False,
      params="feats, queries", prelude='batch = Dim("batch")'),
    Program("einsum-class-queries-sep-batch", 'return torch.einsum("bchw,bkc->bkhw", feats, queries)',
      "(torch.randn(2, 16, 8, 8), torch.randn(2, 5, 16))",
      '{"feats": {0: Dim("bf"), 2: Dim("h"), 3: Dim("w")}, "queries": {0: Dim("bq"), 1: Dim("k")}}', fails=True,
      params="feats, queries"),
    Program("channel-shuffle-dyn-channels", "return self.shuffle(x)", "(torch.randn(2, 12, 8, 8),)",
      '{"x": {1: Dim("c", max=96)}}', fails=True, top=GROUPED, init="self.shuffle = GroupedChannelMix(3)"),
    Program("channel-shuffle-dyn-spatial", "return self.shuffle(x)", "(torch.randn(2, 12, 8, 8),)",
      '{"x": {2: h, 3: w}}', fails=False, top=GROUPED, init="self.shuffle = GroupedChannelMix(3)",
      prelude='h, w = dims("h", "w", max=64)'),
    Program("depthwise-conv-dyn-channels", "return self.dw(x) + x", "(torch.randn(2, 16, 8, 8),)",
      '{"x": {0: Dim("b"), 1: Dim("c")}}', fails=True, init="self.dw = torch.nn.Conv2d(16, 16, 3, padding=1, groups=16)"),
    Program("stack-two-views-separate", "both = torch.stack([x, y], dim=1)\nreturn both.mean(1)",
      "(torch.randn(2, 3, 16, 16), torch.randn(2, 3, 16, 16))",
      '{"x": {0: Dim("bx")}, "y": {0: Dim("by")}}', fails=True, params="x, y"),
    Program("stack-two-views-shared", "both = torch.stack([x, y], dim=1)\nreturn both.mean(1)",
      "(torch.randn(2, 3, 16, 16), torch.randn(2, 3, 16, 16))",
      '{"x": {0: b}, "y": {0: b}}', fails=False, params="x, y", prelude='b = Dim("b")'),
    Program("haar-even-odd-split", '''
lo = (x[..., ::2] + x[..., 1::2]) / 2
hi = (x[..., ::2] - x[..., 1::2]) / 2
return torch.cat([lo, hi], dim=1)
''', "(torch.randn(2, 4, 32),)", '{"x": {2: Dim("t", min=4, max=1024)}}', fails=True),
    Program("haar-even-odd-split-derived", '''
lo = (x[..., ::2] + x[..., 1::2]) / 2
hi = (x[..., ::2] - x[..., 1::2]) / 2
return torch.cat([lo, hi], dim=1)
''', "(torch.randn(2, 4, 32),)", '{"x": {2: 2 * half}}', fails=False, prelude='half = Dim("half", min=2, max=512)'),
    Program("patchify-reshape-dyn-hw", '''
B, C, H, W = x.shape
p = self.patch
x = x.reshape(B, C, H // p, p, W // p, p)
x = torch.einsum("nchpwq->nhwpqc", x)
return x.reshape(B, (H // p) * (W // p), p * p * C)
''', "(torch.randn(2, 3, 16, 16),)", '{"x": {2: Dim("H", max=128), 3: Dim("W", max=128)}}', fails=True,
      init="self.patch = 4"),
    Program("patchify-reshape-derived", '''
B, C, H, W = x.shape
p = self.patch
x = x.reshape(B, C, H // p, p, W // p, p)
x = torch.einsum("nchpwq->nhwpqc", x)
return x.reshape(B, (H // p) * (W // p), p * p * C)
''', "(torch.randn(2, 3, 16, 16),)", '{"x": {2: 4 * gh, 3: 4 * gw}}', fails=False,
      init="self.patch = 4", prelude='gh, gw = dims("gh", "gw", min=1, max=32)'),
    Program("sdpa-kv-separate-lens", "return F.scaled_dot_product_attention(q, k, v)",
      "(torch.randn(2, 4, 10, 8), torch.randn(2, 4, 12, 8), torch.randn(2, 4, 12, 8))",
      '{"q": {2: Dim("lq")}, "k": {2: Dim("lk")}, "v": {2: Dim("lv")}}', fails=False, params="q, k, v"),
    Program("sdpa-kv-shared-len", "return F.scaled_dot_product_attention(q, k, v)",
      "(torch.randn(2, 4, 10, 8), torch.randn(2, 4, 12, 8), torch.randn(2, 4, 12, 8))",
      '{"q": {2: Dim("lq")}, "k": {2: lk}, "v": {2: lk}}', fails=False, params="q, k, v", prelude='lk = Dim("lk")'),
    Program("truncate-if-too-wide", '''
if x.size(-1) > self.max_w:
    x = x[..., : self.max_w]
return x.softmax(-1)
''', "(torch.randn(2, 8, 40),)", '{"x": {2: Dim("w", max=256)}}', fails=True, init="self.max_w = 64"),
    Program("truncate-if-too-wide-narrow", '''
if x.size(-1) > self.max_w:
    x = x[..., : self.max_w]
return x.softmax(-1)
''', "(torch.randn(2, 8, 40),)", '{"x": {2: Dim("w", max=64)}}', fails=False, init="self.max_w = 64"),
    Program("gram-bmm-separate-batch", '''
b, c, h, w = x.size()
fx = x.view(b, c, h * w)
fy = y.view(y.size(0), c, -1)
return torch.bmm(fx, fy.transpose(1, 2)) / (c * h * w)
''', "(torch.randn(2, 8, 8, 8), torch.randn(2, 8, 8, 8))", '{"x": {0: Dim("bx")}, "y": {0: Dim("by")}}',
      fails=True, params="x, y"),
    Program("pool-loop-fixed-bias", "for _ in range(self.depth):\n    x = F.avg_pool2d(x, 2)\nreturn x + self.bias",
      "(torch.randn(2, 4, 32, 32),)", '{"x": {0: Dim("b"), 2: Dim("h", min=16, max=256), 3: Dim("w", min=16, max=256)}}',
      fails=True, init=POOL_INIT),
    Program("pool-loop-adaptive-fixed-bias", "for _ in range(self.depth):\n    x = F.avg_pool2d(x, 2)\nx = F.adaptive_avg_pool2d(x, 4)\nreturn x + self.bias",
      "(torch.randn(2, 4, 32, 32),)", '{"x": {0: Dim("b"), 2: Dim("h", min=16, max=256), 3: Dim("w", min=16, max=256)}}',
      fails=False, init=POOL_INIT),
    Program("check-same-length-separate", "torch._check(x.shape[1] == y.shape[1])\nreturn torch.cat([x, y], dim=-1)",
      "(torch.randn(2, 10, 4), torch.randn(2, 10, 6))", '{"x": {1: Dim("nx")}, "y": {1: Dim("ny")}}', fails=True,
      params="x, y"),
    Program("check-same-length-shared", "torch._check(x.shape[1] == y.shape[1])\nreturn torch.cat([x, y], dim=-1)",
      "(torch.randn(2, 10, 4), torch.randn(2, 10, 6))", '{"x": {1: n}, "y": {1: n}}', fails=False,
      params="x, y", prelude='n = Dim("n")'),
    Program("len-batch-view", "B = len(x)\nreturn self.head(x.view(B, -1))", "(torch.randn(2, 4, 4, 4),)",
      '{"x": {0: Dim("batch", max=1024)}}', fails=True, strict_fails=False, init="self.head = torch.nn.Linear(64, 10)"),
    Program("resize-if-unexpected-equal-example", "return self.resize(x) * 2.0", "(torch.randn(2, 3, 16, 16),)",
      '{"x": {2: Dim("h", min=8, max=64), 3: Dim("w", min=8, max=64)}}', fails=True, top=RESIZE,
      init="self.resize = ResizeTo((16, 16))"),
    Program("resize-if-unexpected-other-example", "return self.resize(x) * 2.0", "(torch.randn(2, 3, 20, 20),)",
      '{"x": {2: Dim("h", min=8, max=64), 3: Dim("w", min=8, max=64)}}', fails=True, strict_fails=False, top=RESIZE,
      init="self.resize = ResizeTo((16, 16))"),
    Program("layernorm-dim-dynamic", "return self.norm(x)", "(torch.randn(2, 10, 32),)", '{"x": {2: Dim.DYNAMIC}}',
      fails=True, init="self.norm = torch.nn.LayerNorm(32)"),
    Program("layernorm-dim-auto", "return self.norm(x)", "(torch.randn(2, 10, 32),)", '{"x": {2: Dim.AUTO}}',
      fails=False, init="self.norm = torch.nn.LayerNorm(32)"),
    Program("register-tokens-cat-strip", '''
B = x.shape[0]
reg = self.register_tokens.expand(B, -1, -1)
x = torch.cat([reg, x], dim=1)
x = self.blk(x)
return x[:, self.num_reg:]
''', "(torch.randn(2, 16, 32),)", '{"x": {0: Dim("batch"), 1: Dim("tokens", max=1024)}}', fails=False,
      init="self.num_reg = 4\nself.register_tokens = torch.nn.Parameter(torch.zeros(1, 4, 32))\nself.blk = torch.nn.Linear(32, 32)"),
]

#: (program, mode) -> why xport-lint's verdict differs from torch's
KNOWN_MISSES: dict[tuple[str, Mode], str] = {
    **{("hf-vit-config-interpolate", mode): "a false error: the config object is built with `interpolate=True` in"
       " the model's `__init__`; switches are read from the config class's defaults, which run the raise"
       for mode in Mode},
    ("pos-embed-interp-if-differs", Mode.NON_STRICT): "`(gh, gw) != tuple(pos.shape[-2:])` in an `if` that does not"
    " raise: whole shapes are compared size by size only where the `if` raises",
    **{("rel-pos-bias-dyn-tokens", mode): "a fixed table viewed to the tokens' count squared: the view of a buffer"
       " by a size is not modelled" for mode in Mode},
    **{("cfg-cat-same-input-chunk", mode): "`torch.cat([x] * 2)` (a repeated list) then `chunk(2)`: neither is"
       " modelled" for mode in Mode},
    ("mae-int-len-keep", Mode.STRICT): "`int(L * ratio)` as a slice bound: XPT303 claims the float round trip"
    " non-strict only",
    **{("new-zeros-pad-to-max-wide", mode): "`self.max_len - T` as a size: a size negative on part of the range is"
       " not judged" for mode in Mode},
    ("new-zeros-pad-to-max-narrow", Mode.NON_STRICT): "`self.max_len - T` as a size, 0 at the range's top:"
    " not judged",
    **{(name, mode): "`Tensor.unfold(dim, size, step)` on a named `Dim` is not modelled"
       for name in ("tensor-unfold-low-min", "tensor-unfold-min-ok", "tensor-unfold-min-24") for mode in Mode},
    **{("unfold-fold-to-fixed-size", mode): "`F.unfold` then `F.fold` to a fixed size: not modelled" for mode in Mode},
    **{("pool-loop-fixed-bias", mode): "pooling in a `for _ in range(self.depth)` loop: sizes are not carried"
       " through loop iterations" for mode in Mode},
    **{("resize-if-unexpected-equal-example", mode): "`if x.shape[-2:] != self.expected:` that does not raise,"
       " in a submodule: not expanded size by size" for mode in Mode},
    ("resize-if-unexpected-other-example", Mode.NON_STRICT): "`if x.shape[-2:] != self.expected:` that does not"
    " raise, in a submodule: not expanded size by size",
}

BATCH = ProgramBatch("heldout24", {"zoo-style": PROGRAMS}, KNOWN_MISSES)
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
