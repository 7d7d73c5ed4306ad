"""A library model's export declared in `[tool.xport-lint.dynamic-shapes]` (the way a user
declares it when the export call builds the model through `from_pretrained` or
`timm.create_model`): the declared `Dim`s reach the size tests of the submodules the model passes
its inputs to, in its file and in others. Each project is a library-free reduction of a real
model the zoo (bench/zoo.py) exported with named `Dim`s on torch 2.14.1; the comment on each says
which, and what torch did. Run through the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

EXE = str(Path(sys.executable).with_name("xport-lint"))


def lint(root: Path, files: dict[str, str], declared: str) -> list[dict]:
    """The JSON findings of `xport-lint check` on a project of `files` whose pyproject.toml holds
    `declared` (TOML under `[tool.xport-lint]`)."""
    (root / ".git").mkdir()  # the project's root: no configuration above it is read
    (root / "pyproject.toml").write_text("[tool.xport-lint]\n" + textwrap.dedent(declared))
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
    done = subprocess.run(
        [EXE, "check", ".", "--no-cache", "--format", "json"], cwd=root, capture_output=True, text=True,
        env={**os.environ, "NO_COLOR": "1"}, timeout=300, stdin=subprocess.DEVNULL,
    )
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def found(findings: list[dict]) -> list[tuple[str, int, str, str]]:
    return sorted(
        (Path(f["filename"]).name, f["location"]["row"], f["code"], f["severity"]) for f in findings
    )


EMBEDDINGS = """
    import torch
    from torch import nn


    class Embeddings(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.pos = nn.Embedding(64, 8)
            self.register_buffer("position_ids", torch.arange(64).expand((1, -1)), persistent=False)

        def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
            seq_length = input_ids.shape[1]
            position_ids = self.position_ids[:, :seq_length]
            return self.pos(position_ids)


    class TextModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embeddings = Embeddings()

        def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
            return self.embeddings(input_ids)


    class Classifier(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if x.shape[0] > 4:
                return x.mean(0)
            return x
"""


def test_a_sequence_dim_beyond_a_position_buffer_fails_in_the_embedding_submodule(tmp_path: Path) -> None:
    # BertModel with `seq` up to 1024: its embeddings slice a 512-long `position_ids` buffer by
    # the sequence length; torch: "Constraints violated (seq)! ... <= 512" at that slice
    findings = lint(tmp_path, {"text.py": EMBEDDINGS}, """
        [tool.xport-lint.dynamic-shapes."text.TextModel"]
        input_ids = { 1 = { name = "seq", min = 2, max = 128 } }
    """)
    assert found(findings) == [("text.py", 14, "XPT306", "error")]
    assert 'Dim("seq", min=2, max=128)' in findings[0]["message"]


def test_a_sequence_dim_within_the_buffer_and_the_files_other_models_are_left_alone(tmp_path: Path) -> None:
    # BertModel with `seq` up to 256 exports; `Classifier` is not declared, so its sizes stay static
    findings = lint(tmp_path, {"text.py": EMBEDDINGS}, """
        [tool.xport-lint.dynamic-shapes."text.TextModel"]
        input_ids = { 1 = { name = "seq", min = 2, max = 64 } }
    """)
    assert found(findings) == []


def test_an_image_size_test_in_the_patch_embedding_splits_declared_height_and_width(tmp_path: Path) -> None:
    # transformers' ViTModel with dynamic height and width: its patch embeddings raise unless the
    # size is the configured one; torch: a constraint violation on height and width
    findings = lint(tmp_path, {"vit.py": """
        import torch
        from torch import nn


        class PatchEmbeddings(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.image_size = (32, 32)
                self.projection = nn.Conv2d(3, 16, kernel_size=8, stride=8)

            def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
                batch_size, num_channels, height, width = pixel_values.shape
                if height != self.image_size[0] or width != self.image_size[1]:
                    raise ValueError(f"Input image size ({height}*{width}) doesn't match model.")
                return self.projection(pixel_values).flatten(2).transpose(1, 2)


        class ViT(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.patch_embeddings = PatchEmbeddings()

            def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
                return self.patch_embeddings(pixel_values)
    """}, """
        [tool.xport-lint.dynamic-shapes."vit.ViT"]
        pixel_values = { 2 = { name = "height", min = 16, max = 64 }, 3 = { name = "width", min = 16, max = 64 } }
    """)
    assert found(findings) == [("vit.py", 14, "XPT301", "error"), ("vit.py", 14, "XPT301", "error")]


@pytest.mark.parametrize("features", [
    "return self.norm(self.patch_embed(x))",
    "x = self.patch_embed(x)\n                x = self.norm(x)\n                return x",  # timm's spelling: x rebound
])
def test_a_declared_dim_reaches_a_submodule_through_a_method_forward_calls(tmp_path: Path, features: str) -> None:
    # timm's VisionTransformer: `forward` hands `x` to `forward_features`, which calls the patch
    # embedding
    findings = lint(tmp_path, {"vit.py": f"""
        import torch
        from torch import nn


        class PatchEmbed(nn.Module):
            def forward(self, x: torch.Tensor) -> torch.Tensor:
                if x.shape[2] > 32:
                    return x[:, :, :32]
                return x


        class VisionTransformer(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.patch_embed = PatchEmbed()
                self.norm = nn.LayerNorm(8)

            def forward_features(self, x: torch.Tensor) -> torch.Tensor:
                {features}

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.forward_features(x)
    """}, """
        [tool.xport-lint.dynamic-shapes."vit.VisionTransformer"]
        x = { 2 = { name = "height", min = 16, max = 64 } }
    """)
    assert found(findings) == [("vit.py", 8, "XPT301", "error")]


def test_an_assert_helper_on_the_image_size_specialises_the_declared_dims(tmp_path: Path) -> None:
    # timm's VisionTransformer (strict image size) with dynamic height and width: PatchEmbed's
    # `_assert(H == self.img_size[0], ...)`; torch: a constraint violation
    findings = lint(tmp_path, {"timm_vit.py": """
        import torch
        from torch import _assert, nn


        class PatchEmbed(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.img_size = (32, 32)
                self.proj = nn.Conv2d(3, 16, kernel_size=8, stride=8)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                B, C, H, W = x.shape
                _assert(H == self.img_size[0], f"Input height ({H}) doesn't match model ({self.img_size[0]}).")
                _assert(W == self.img_size[1], f"Input width ({W}) doesn't match model ({self.img_size[1]}).")
                return self.proj(x).flatten(2).transpose(1, 2)


        class VisionTransformer(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.patch_embed = PatchEmbed()

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.patch_embed(x)
    """}, """
        [tool.xport-lint.dynamic-shapes."timm_vit.VisionTransformer"]
        x = { 2 = { name = "height", min = 16, max = 64 }, 3 = { name = "width", min = 16, max = 64 } }
    """)
    # the width's check fails too, reported once: a warning that says it comes after the height's
    assert found(findings) == [("timm_vit.py", 14, "XPT304", "error"), ("timm_vit.py", 15, "XPT304", "warning")]
    width = next(f for f in findings if f["location"]["row"] == 15)
    assert "(after line 14, whose failure export meets first" in width["message"]


@pytest.mark.parametrize(("declared", "expected"), [
    ('{ 2 = { name = "height", min = 16, max = 64 } }', [("patch.py", 13, "XPT304", "error")]),
    ('{ 0 = { name = "batch", min = 2, max = 64 } }', []),  # the height is static: the check holds
])
def test_a_check_against_an_image_size_set_from_the_config_fails_whatever_its_value(
    tmp_path: Path, declared: str, expected: list
) -> None:
    # timm's PatchEmbed as built from a config: `self.img_size` is not a literal, yet under a
    # named height Dim the example must equal it and the guard then fixes the height
    findings = lint(tmp_path, {"patch.py": """
        import torch
        from torch import _assert, nn


        class PatchEmbed(nn.Module):
            def __init__(self, img_size: int) -> None:
                super().__init__()
                self.img_size = (img_size, img_size)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                B, C, H, W = x.shape
                _assert(H == self.img_size[0], f"Input height ({H}) doesn't match model ({self.img_size[0]}).")
                return x.flatten(2).transpose(1, 2)


        class VisionTransformer(nn.Module):
            def __init__(self, img_size: int) -> None:
                super().__init__()
                self.patch_embed = PatchEmbed(img_size)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.patch_embed(x)
    """}, f"""
        [tool.xport-lint.dynamic-shapes."patch.VisionTransformer"]
        x = {declared}
    """)
    assert found(findings) == expected


UPSAMPLING = """
    import torch
    import torch.nn.functional as F
    from torch import nn


    class Upsample(nn.Module):
        def __init__(self, channels: int) -> None:
            super().__init__()
            self.conv = nn.Conv2d(channels, channels, 3, padding=1)

        def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
            if hidden_states.shape[0] >= 64:
                hidden_states = hidden_states.contiguous()
            hidden_states = F.interpolate(hidden_states, scale_factor=2.0, mode="nearest")
            return self.conv(hidden_states)
"""


def unet(passed: str) -> str:
    return f"""
        import torch
        from torch import nn

        from .upsampling import Upsample


        class UNet(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.conv_in = nn.Conv2d(3, 3, 3, padding=1)
                self.up = Upsample(3)

            def forward(self, sample: torch.Tensor) -> torch.Tensor:
                return self.up({passed})
    """


@pytest.mark.parametrize(("high", "expected"), [(128, [("upsampling.py", 13, "XPT301", "error")]), (32, [])])
def test_a_batch_dim_reaches_an_upsampling_block_in_another_file(tmp_path: Path, high: int, expected: list) -> None:
    # diffusers' UNet2DModel with a batch Dim: Upsample2D (upsampling.py) tests
    # `hidden_states.shape[0] >= 64`; torch: a constraint violation with max=128, exports with max=32
    findings = lint(tmp_path, {"pkg/__init__.py": "", "pkg/upsampling.py": UPSAMPLING, "pkg/unet.py": unet("sample")},
                    f"""
        [tool.xport-lint.dynamic-shapes."pkg.unet.UNet"]
        sample = {{ 0 = {{ name = "batch", min = 2, max = {high} }} }}
    """)
    assert found(findings) == expected


@pytest.mark.parametrize("passed", [
    "self.conv_in(sample)",  # Conv2d keeps dimension 0: the real UNet2DModel reaches Upsample2D that way
    "self.norm(self.conv_in(sample))",  # a GroupNorm keeps every dimension
    "hidden_states=self.conv_in(sample)",  # by keyword: the callee's parameter of that name
])
def test_a_batch_dim_reaches_the_upsampling_block_through_a_convolution(tmp_path: Path, passed: str) -> None:
    files = {"pkg/__init__.py": "", "pkg/upsampling.py": UPSAMPLING,
             "pkg/unet.py": unet(passed).replace("self.up = Upsample(3)",
                                                 "self.up = Upsample(3)\n                self.norm = nn.GroupNorm(1, 3)")}
    findings = lint(tmp_path, files, """
        [tool.xport-lint.dynamic-shapes."pkg.unet.UNet"]
        sample = { 0 = { name = "batch", min = 2, max = 128 } }
    """)
    assert found(findings) == [("upsampling.py", 13, "XPT301", "error")]


def test_a_dimension_the_convolution_recomputes_is_not_passed_on(tmp_path: Path) -> None:
    # a Conv2d makes its output's height from the input's: nothing claims the block's height
    # is the declared Dim (a test on it is left alone, not judged by the wrong range)
    upsampling = UPSAMPLING.replace("hidden_states.shape[0] >= 64", "hidden_states.shape[2] >= 64")
    findings = lint(tmp_path, {"pkg/__init__.py": "", "pkg/upsampling.py": upsampling,
                               "pkg/unet.py": unet("self.conv_in(sample)")}, """
        [tool.xport-lint.dynamic-shapes."pkg.unet.UNet"]
        sample = { 2 = { name = "height", min = 2, max = 128 } }
    """)
    assert found(findings) == []


def bert_embeddings(buffer: str, sizes: str, sliced: str, call: str) -> str:
    """BertEmbeddings (transformers 5.23) in the spellings it is written in, one part at a time."""
    return f"""
    import torch
    from torch import nn


    class Embeddings(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.pos = nn.Embedding(64, 8)
            {buffer}

        def forward(self, input_ids: torch.Tensor | None = None, past_key_values_length: int = 0) -> torch.Tensor:
            {sizes}
            position_ids = self.position_ids[{sliced}]
            return self.pos(position_ids)


    class TextModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embeddings = Embeddings()

        def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
            return self.embeddings({call})
"""


NN_BUFFER = "self.position_ids = nn.Buffer(torch.arange(64).expand((1, -1)), persistent=False)"
REGISTERED = 'self.register_buffer("position_ids", torch.arange(64).expand((1, -1)), persistent=False)'
UNPACKED = "input_shape = input_ids.size(); batch_size, seq_length = input_shape"
OFFSET = ":, past_key_values_length : seq_length + past_key_values_length"
KEYWORDS = "input_ids=input_ids, past_key_values_length=0"


@pytest.mark.parametrize(("buffer", "sizes", "sliced", "call"), [
    (NN_BUFFER, UNPACKED, OFFSET, KEYWORDS),  # as transformers writes it
    (NN_BUFFER, "seq_length = input_ids.shape[1]", ":, :seq_length", "input_ids"),
    (REGISTERED, UNPACKED, ":, :seq_length", "input_ids"),
    (REGISTERED, "seq_length = input_ids.shape[1]", OFFSET, "input_ids"),
    (REGISTERED, "seq_length = input_ids.shape[1]", ":, :seq_length", KEYWORDS),
    (REGISTERED, "batch_size, seq_length = input_ids.shape", ":, 0 : seq_length + 0", "input_ids, 0"),
])
def test_bert_embeddings_spellings_of_the_position_buffer_slice(
    tmp_path: Path, buffer: str, sizes: str, sliced: str, call: str
) -> None:
    # BertModel with `seq` up to 1024 on torch 2.14.1: "Constraints violated (seq)!" at this slice
    # (tests/truth/test_submodule_sizes.py measures each spelling on torch 2.13)
    findings = lint(tmp_path, {"text.py": bert_embeddings(buffer, sizes, sliced, call)}, """
        [tool.xport-lint.dynamic-shapes."text.TextModel"]
        input_ids = { 1 = { name = "seq", min = 2, max = 128 } }
    """)
    assert found(findings) == [("text.py", 14, "XPT306", "error")]


@pytest.mark.parametrize("sliced", [
    ":, past_key_values_length : seq_length - past_key_values_length",  # a difference: not the size plus a count
    ":, seq_length :",
])
def test_a_slice_end_that_is_not_the_size_plus_a_count_is_left_alone(tmp_path: Path, sliced: str) -> None:
    findings = lint(tmp_path, {"text.py": bert_embeddings(NN_BUFFER, UNPACKED, sliced, KEYWORDS)}, """
        [tool.xport-lint.dynamic-shapes."text.TextModel"]
        input_ids = { 1 = { name = "seq", min = 2, max = 128 } }
    """)
    assert [f for f in found(findings) if f[2] == "XPT306"] == []


def test_a_slice_end_computed_from_the_size_past_the_buffer_at_the_range_top(tmp_path: Path) -> None:
    # `: seq_length * 2` reaches 256 of a 64-long buffer at `max=128`: export guards it `<= 64`
    # (tests/rules/test_sizes_fixed_in_init.py measures the spelling on torch 2.13)
    findings = lint(tmp_path, {"text.py": bert_embeddings(NN_BUFFER, UNPACKED, ":, : seq_length * 2", KEYWORDS)}, """
        [tool.xport-lint.dynamic-shapes."text.TextModel"]
        input_ids = { 1 = { name = "seq", min = 2, max = 128 } }
    """)
    assert [f for f in found(findings) if f[2] == "XPT306"] == [("text.py", 14, "XPT306", "error")]


def test_bert_embeddings_within_the_buffer_export(tmp_path: Path) -> None:
    findings = lint(tmp_path, {"text.py": bert_embeddings(NN_BUFFER, UNPACKED, OFFSET, KEYWORDS)}, """
        [tool.xport-lint.dynamic-shapes."text.TextModel"]
        input_ids = { 1 = { name = "seq", min = 2, max = 64 } }
    """)
    assert found(findings) == []


def vit_embeddings(check: str, init: str = "self.image_size = image_size if isinstance(image_size, tuple) else "
                   "(image_size, image_size)") -> str:
    """transformers' ViTEmbeddings (5.23): the image size comes from the config, no literal."""
    return f"""
    import torch
    from torch import nn


    class Embeddings(nn.Module):
        def __init__(self, image_size: int) -> None:
            super().__init__()
            {init}

        def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
            batch_size, num_channels, height, width = pixel_values.shape
            {check}
            return pixel_values.flatten(2)


    class ViT(nn.Module):
        def __init__(self, image_size: int) -> None:
            super().__init__()
            self.embeddings = Embeddings(image_size)

        def forward(self, pixel_values: torch.Tensor) -> torch.Tensor:
            return self.embeddings(pixel_values)
"""


HEIGHT_WIDTH = '{ 2 = { name = "height", min = 16, max = 64 }, 3 = { name = "width", min = 16, max = 64 } }'
BOTH_RAISE = ('if height != self.image_size[0] or width != self.image_size[1]:\n'
              '                raise ValueError(f"Input image size ({height}*{width}) doesn\'t match model.")')


@pytest.mark.parametrize(("check", "init", "expected"), [
    # as transformers writes it: one `if` on both sizes, raising
    (BOTH_RAISE, None, [("vit.py", 13, "XPT301", "error"), ("vit.py", 13, "XPT301", "error")]),
    # one size, the raise on the `if`'s own line, the size read from `.shape` in the test
    ("if pixel_values.shape[2] != self.image_size[0]: raise ValueError('height')", None,
     [("vit.py", 13, "XPT301", "error")]),
    # the size a plain attribute set from the constructor's argument
    ("if height != self.size:\n                raise ValueError('height')", "self.size = image_size",
     [("vit.py", 13, "XPT301", "error")]),
])
def test_an_image_size_check_against_the_configured_size_that_raises_splits_a_named_dim(
    tmp_path: Path, check: str, init: str | None, expected: list
) -> None:
    # transformers' ViTModel with dynamic height and width: `if height != self.image_size[0] ...:
    # raise` fails export whatever the configured size (the example must equal it, and the guard
    # then pins the Dim; tests/truth/test_zoo_sizes.py measures it on torch 2.13)
    files = {"vit.py": vit_embeddings(check, init) if init else vit_embeddings(check)}
    findings = lint(tmp_path, files, f"""
        [tool.xport-lint.dynamic-shapes."vit.ViT"]
        pixel_values = {HEIGHT_WIDTH}
    """)
    assert found(findings) == expected


@pytest.mark.parametrize(("check", "declared", "expected"), [
    # only the batch is dynamic: the height is a constant of the export, the check holds
    (BOTH_RAISE, '{ 0 = { name = "batch", min = 2, max = 16 } }', []),
    # Dim.AUTO narrows silently: a warning
    (BOTH_RAISE, '{ 2 = "auto", 3 = "auto" }',
     [("vit.py", 13, "XPT301", "warning"), ("vit.py", 13, "XPT301", "warning")]),
    # an `if` that does not raise may take either side: not known to pin the size
    ("if height != self.image_size[0]:\n                pixel_values = pixel_values * 2",
     '{ 2 = { name = "height", min = 16, max = 64 } }', [("vit.py", 13, "XPT301", "warning")]),
    # raising where the sizes are equal is not the check
    ("if height == self.image_size[0]:\n                raise ValueError('height')",
     '{ 2 = { name = "height", min = 16, max = 64 } }', [("vit.py", 13, "XPT301", "warning")]),
])
def test_an_image_size_check_is_an_error_only_where_it_pins_a_named_dim(
    tmp_path: Path, check: str, declared: str, expected: list
) -> None:
    findings = lint(tmp_path, {"vit.py": vit_embeddings(check)}, f"""
        [tool.xport-lint.dynamic-shapes."vit.ViT"]
        pixel_values = {declared}
    """)
    assert found(findings) == expected


PATCH_EMBED = """
    import torch
    from torch import _assert, nn  # timm's `_assert` (timm/layers/trace_utils.py re-exports torch's)


    class PatchEmbed(nn.Module):
        def __init__(self, img_size: int = 224, patch_size: int = 16, strict_img_size: bool = True) -> None:
            super().__init__()
            self.img_size = (img_size, img_size)
            self.strict_img_size = strict_img_size
            self.proj = nn.Conv2d(3, 8, kernel_size=patch_size, stride=patch_size)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            B, C, H, W = x.shape
            if self.img_size is not None:
                if self.strict_img_size:
                    _assert(H == self.img_size[0], f"Input height ({H}) doesn't match model ({self.img_size[0]}).")
            return self.proj(x).flatten(2).transpose(1, 2)
"""


def timm_vit(parameter: str, built: str) -> str:
    """timm's VisionTransformer: the patch embedding's class is a constructor argument."""
    return f"""
    from typing import Callable

    import torch
    from torch import nn

    from .patch_embed import PatchEmbed


    class VisionTransformer(nn.Module):
        def __init__(self, img_size: int = 224, {parameter}) -> None:
            super().__init__()
            self.patch_embed = {built}
            self.norm = nn.LayerNorm(8)

        def forward_features(self, x: torch.Tensor) -> torch.Tensor:
            x = self.patch_embed(x)
            return self.norm(x)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.forward_features(x)
    """


@pytest.mark.parametrize(("parameter", "built"), [
    ("embed_layer: Callable = PatchEmbed", "embed_layer(img_size=img_size, patch_size=16)"),  # as timm writes it
    ("embed_layer=PatchEmbed", "embed_layer(img_size, 16)"),
    ("*, embed_layer: type[nn.Module] = PatchEmbed", "embed_layer(img_size=img_size)"),  # keyword-only
])
def test_a_declared_dim_reaches_a_patch_embedding_whose_class_is_a_constructor_default(
    tmp_path: Path, parameter: str, built: str
) -> None:
    # timm's vit_tiny_patch16_224 with a named height Dim on torch 2.14.1: "Constraints violated
    # (height, width)" at PatchEmbed's `_assert(H == self.img_size[0], ...)`; the model is built
    # with the default `embed_layer`. Past the assert, the patch projection's kernel and stride are
    # `patch_size`'s default 16: on torch 2.13, `PatchEmbed` without the assert fails in both modes
    # under that Dim ("Constraints violated (height)", guard `(height // 16) % (14 * (height // 16)) != 0`
    # at the flatten), so that second failure is an error too
    files = {"pkg/__init__.py": "", "pkg/patch_embed.py": PATCH_EMBED, "pkg/vit.py": timm_vit(parameter, built)}
    findings = lint(tmp_path, files, """
        [tool.xport-lint.dynamic-shapes."pkg.vit.VisionTransformer"]
        x = { 2 = { name = "height", min = 32, max = 448 } }
    """)
    assert found(findings) == [("patch_embed.py", 17, "XPT304", "error"), ("patch_embed.py", 18, "XPT307", "error")]


def test_a_constructor_default_that_is_no_class_builds_no_known_submodule(tmp_path: Path) -> None:
    # `embed_layer=None` names nothing: the patch embedding's class is unknown, nothing is claimed
    files = {"pkg/__init__.py": "", "pkg/patch_embed.py": PATCH_EMBED,
             "pkg/vit.py": timm_vit("embed_layer=None", "(embed_layer or PatchEmbed)(img_size)")}
    findings = lint(tmp_path, files, """
        [tool.xport-lint.dynamic-shapes."pkg.vit.VisionTransformer"]
        x = { 2 = { name = "height", min = 32, max = 448 } }
    """)
    assert found(findings) == []


BERT_CONFIG = """
    class TextConfig:
        model_type = "text"

        def __init__(self, vocab_size: int = 128, hidden_size: int = 8, max_position_embeddings: int = 64) -> None:
            self.vocab_size = vocab_size
            self.hidden_size = hidden_size
            self.max_position_embeddings = max_position_embeddings
"""
BERT_CONFIG_FIELDS = """
    from dataclasses import dataclass


    @dataclass
    class TextConfig:
        vocab_size: int = 128
        hidden_size: int = 8
        max_position_embeddings: int = 64
"""


def bert_from_config(sizes: str, buffer: str = "nn.Buffer(torch.arange(config.max_position_embeddings)"
                     ".expand((1, -1)), persistent=False)") -> str:
    """transformers' BertEmbeddings as written: every length from the config, `input_shape` bound
    in both arms of `if input_ids is not None:` (the other for `inputs_embeds`)."""
    return f"""
    import torch
    from torch import nn

    from .configuration_text import TextConfig


    class Embeddings(nn.Module):
        def __init__(self, config) -> None:
            super().__init__()
            self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
            self.position_ids = {buffer}

        def forward(self, input_ids=None, inputs_embeds=None, past_key_values_length: int = 0) -> torch.Tensor:
            {sizes}
            batch_size, seq_length = input_shape
            position_ids = self.position_ids[:, past_key_values_length : seq_length + past_key_values_length]
            return self.position_embeddings(position_ids)


    class TextModel(nn.Module):
        def __init__(self, config: TextConfig) -> None:
            super().__init__()
            self.embeddings = Embeddings(config)

        def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
            return self.embeddings(input_ids=input_ids)
    """


BOTH_ARMS = ("if input_ids is not None:\n                input_shape = input_ids.size()\n            else:\n"
             "                input_shape = inputs_embeds.size()[:-1]")


@pytest.mark.parametrize(("config", "sizes"), [
    (BERT_CONFIG, BOTH_ARMS),  # as transformers writes it
    (BERT_CONFIG_FIELDS, BOTH_ARMS),  # the defaults as a dataclass's fields
    (BERT_CONFIG, "if input_ids is None:\n                input_shape = inputs_embeds.size()[:-1]\n            else:\n"
                  "                input_shape = input_ids.size()"),
    (BERT_CONFIG, "input_shape = input_ids.size()"),
])
def test_a_position_buffer_as_long_as_the_configs_default_bounds_the_sequence_dim(
    tmp_path: Path, config: str, sizes: str
) -> None:
    # BertModel with `seq` up to 1024 on torch 2.14.1: "Constraints violated (seq)!" at the slice of
    # `position_ids`, `config.max_position_embeddings` (512 by default) long
    text = bert_from_config(sizes)
    files = {"pkg/__init__.py": "", "pkg/configuration_text.py": config, "pkg/modeling_text.py": text}
    findings = lint(tmp_path, files, """
        [tool.xport-lint.dynamic-shapes."pkg.modeling_text.TextModel"]
        input_ids = { 1 = { name = "seq", min = 2, max = 128 } }
    """)
    sliced = next(n for n, line in enumerate(text.splitlines(), 1) if "= self.position_ids[" in line)
    assert found(findings) == [("modeling_text.py", sliced, "XPT306", "error")]
    assert "(64 long on dimension 1)" in findings[0]["message"]


@pytest.mark.parametrize(("declared", "buffer"), [
    ('{ 1 = { name = "seq", min = 2, max = 64 } }', None),  # within the default's length: exports
    # a length no default gives (a field the configuration does not have): nothing is claimed
    ('{ 1 = { name = "seq", min = 2, max = 128 } }',
     "nn.Buffer(torch.arange(config.max_length).expand((1, -1)), persistent=False)"),
])
def test_a_position_buffer_from_the_config_left_alone(tmp_path: Path, declared: str, buffer: str | None) -> None:
    text = bert_from_config(BOTH_ARMS) if buffer is None else bert_from_config(BOTH_ARMS, buffer)
    files = {"pkg/__init__.py": "", "pkg/configuration_text.py": BERT_CONFIG, "pkg/modeling_text.py": text}
    findings = lint(tmp_path, files, f"""
        [tool.xport-lint.dynamic-shapes."pkg.modeling_text.TextModel"]
        input_ids = {declared}
    """)
    assert found(findings) == []
