"""Tiny-config models of four model zoos, exported by bench/zoo.py under coverage.

Run in an interpreter with torch 2.13.0, transformers, diffusers, timm, torchvision and coverage
(not the test environment): each entry builds (model, args) in eval mode.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch


def _torchvision() -> Any:
    """PyPI's torchvision wheel is built for CUDA torch: with the CPU wheel its import fails only
    where it registers fake kernels for two ops its C extension would define. Defining their
    schemas first lets the pure-Python models import (no op of the extension is used). With a
    CUDA torch (the zoo interpreter's 2.14.1+cu130) the extension loads and defines them itself."""
    import sys

    if "torchvision" not in sys.modules and torch.version.cuda is None:
        lib = torch.library.Library("torchvision", "DEF")  # noqa: TOR901 - kept alive below
        lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        _torchvision.lib = lib  # type: ignore[attr-defined]
    import torchvision

    return torchvision


def _ids(vocab: int = 128, length: int = 8) -> tuple[torch.Tensor, ...]:
    return (torch.randint(0, vocab, (1, length)),)


def _hf(
    model_class: str, config_class: str, inputs: Callable[[], tuple[Any, ...]], **config: Any
) -> Callable[..., Any]:
    def build(**switches: Any) -> tuple[Any, tuple[Any, ...]]:
        """`switches`: config settings a case changes (`experts_implementation="eager"`)."""
        import transformers

        cfg = getattr(transformers, config_class)(**{**config, **switches})
        model = getattr(transformers, model_class)(cfg)
        return model.eval(), inputs()

    return build


TEXT = {"vocab_size": 128, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4}


def _timm(name: str, size: int = 64) -> Callable[..., Any]:
    def build(**switches: Any) -> tuple[Any, tuple[Any, ...]]:
        """`switches`: `create_model` settings a case changes (`dynamic_img_size=True`)."""
        _torchvision()
        import timm

        return timm.create_model(name, pretrained=False, **switches).eval(), (torch.randn(1, 3, size, size),)

    return build


def _tv(name: str, size: int = 64, **kwargs: Any) -> Callable[[], Any]:
    def build() -> tuple[Any, tuple[Any, ...]]:
        tv = _torchvision()
        model = (
            getattr(tv.models, name, None)
            or getattr(tv.models.detection, name, None)
            or getattr(tv.models.segmentation, name)
        )
        return model(weights=None, **kwargs).eval(), (
            [torch.rand(3, size, size)],
        ) if "detection" in model.__module__ else (torch.randn(1, 3, size, size),)

    return build


def _unet2d() -> tuple[Any, tuple[Any, ...]]:
    from diffusers import UNet2DModel

    model = UNet2DModel(
        sample_size=16,
        in_channels=3,
        out_channels=3,
        block_out_channels=(8, 16),
        layers_per_block=1,
        down_block_types=("DownBlock2D", "AttnDownBlock2D"),
        up_block_types=("AttnUpBlock2D", "UpBlock2D"),
        norm_num_groups=4,
        attention_head_dim=4,
    )
    return model.eval(), (torch.randn(1, 3, 16, 16), torch.tensor([10]))


def _unet_cond() -> tuple[Any, tuple[Any, ...]]:
    from diffusers import UNet2DConditionModel

    model = UNet2DConditionModel(
        sample_size=16,
        in_channels=4,
        out_channels=4,
        block_out_channels=(8, 16),
        layers_per_block=1,
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
        up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
        cross_attention_dim=8,
        norm_num_groups=4,
        attention_head_dim=4,
    )
    return model.eval(), (torch.randn(1, 4, 16, 16), torch.tensor([10]), torch.randn(1, 4, 8))


def _vae() -> tuple[Any, tuple[Any, ...]]:
    from diffusers import AutoencoderKL

    model = AutoencoderKL(
        in_channels=3,
        out_channels=3,
        block_out_channels=(8, 16),
        latent_channels=4,
        down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
        norm_num_groups=4,
    )
    return model.eval(), (torch.randn(1, 3, 16, 16),)


def _dit() -> tuple[Any, tuple[Any, ...]]:
    from diffusers import DiTTransformer2DModel

    model = DiTTransformer2DModel(
        num_attention_heads=2,
        attention_head_dim=8,
        in_channels=4,
        out_channels=4,
        num_layers=1,
        sample_size=8,
        patch_size=2,
        num_embeds_ada_norm=10,
        norm_num_groups=4,
    )
    return model.eval(), (torch.randn(1, 4, 8, 8), torch.tensor([3]), torch.tensor([1]))


def _video() -> tuple[Any, tuple[Any, ...]]:
    tv = _torchvision()
    return tv.models.video.r3d_18(weights=None).eval(), (torch.randn(1, 3, 4, 32, 32),)


def _raft() -> tuple[Any, tuple[Any, ...]]:
    tv = _torchvision()
    model = tv.models.optical_flow.raft_small(weights=None)
    return model.eval(), (torch.randn(1, 3, 128, 128), torch.randn(1, 3, 128, 128), 2)  # 2 flow updates


def _whisper() -> tuple[Any, tuple[Any, ...]]:
    """Encoder and decoder: the features' length must be twice `max_source_positions`."""
    import transformers

    cfg = transformers.WhisperConfig(
        vocab_size=128,
        num_mel_bins=16,
        d_model=32,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        max_source_positions=16,
        max_target_positions=32,
        use_cache=False,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        decoder_start_token_id=3,
    )
    return transformers.WhisperModel(cfg).eval(), (torch.randn(1, 16, 32), None, _ids(length=4)[0])


def _controlnet() -> tuple[Any, tuple[Any, ...]]:
    from diffusers import ControlNetModel

    model = ControlNetModel(
        in_channels=4,
        block_out_channels=(8, 16),
        layers_per_block=1,
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
        cross_attention_dim=8,
        norm_num_groups=4,
        attention_head_dim=4,
        conditioning_embedding_out_channels=(4, 8),
    )
    return model.eval(), (
        torch.randn(1, 4, 16, 16),
        torch.tensor([10]),
        torch.randn(1, 4, 8),
        torch.randn(1, 3, 32, 32),
    )


def _sd3() -> tuple[Any, tuple[Any, ...]]:
    from diffusers import SD3Transformer2DModel

    model = SD3Transformer2DModel(
        sample_size=8,
        patch_size=2,
        in_channels=4,
        num_layers=1,
        attention_head_dim=8,
        num_attention_heads=2,
        joint_attention_dim=16,
        caption_projection_dim=16,
        pooled_projection_dim=8,
        out_channels=4,
        pos_embed_max_size=8,
    )
    return model.eval(), (torch.randn(1, 4, 8, 8), torch.randn(1, 5, 16), torch.randn(1, 8), torch.tensor([3]))


def _vae_tiny() -> tuple[Any, tuple[Any, ...]]:
    from diffusers import AutoencoderTiny

    model = AutoencoderTiny(
        encoder_block_out_channels=(8, 8),
        decoder_block_out_channels=(8, 8),
        num_encoder_blocks=(1, 1),
        num_decoder_blocks=(1, 1),
        latent_channels=4,
    )
    return model.eval(), (torch.randn(1, 3, 16, 16),)


MODELS: dict[str, Callable[..., tuple[Any, tuple[Any, ...]]]] = {
    "transformers/llama": _hf("LlamaModel", "LlamaConfig", _ids, use_cache=False, num_key_value_heads=2, **TEXT),
    "transformers/qwen2": _hf("Qwen2Model", "Qwen2Config", _ids, use_cache=False, num_key_value_heads=2, **TEXT),
    "transformers/mistral": _hf("MistralModel", "MistralConfig", _ids, use_cache=False, num_key_value_heads=2, **TEXT),
    "transformers/mixtral": _hf(
        "MixtralModel", "MixtralConfig", _ids, use_cache=False, num_key_value_heads=2, num_local_experts=4, **TEXT
    ),
    "transformers/bert": _hf("BertModel", "BertConfig", _ids, **TEXT),
    "transformers/gpt2": _hf(
        "GPT2Model", "GPT2Config", _ids, use_cache=False, n_embd=32, n_layer=2, n_head=4, vocab_size=128
    ),
    "transformers/t5-encoder": _hf(
        "T5EncoderModel", "T5Config", _ids, vocab_size=128, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4
    ),
    "transformers/vit": _hf(
        "ViTModel",
        "ViTConfig",
        lambda: (torch.randn(1, 3, 32, 32),),
        image_size=32,
        patch_size=8,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
    ),
    "transformers/clip-text": _hf(
        "CLIPTextModel",
        "CLIPTextConfig",
        _ids,
        vocab_size=128,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
    ),
    "transformers/wav2vec2": _hf(
        "Wav2Vec2Model",
        "Wav2Vec2Config",
        lambda: (torch.randn(1, 800),),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        conv_dim=(8, 8),
        conv_stride=(5, 2),
        conv_kernel=(10, 3),
        num_conv_pos_embeddings=8,
        num_conv_pos_embedding_groups=2,
    ),
    "transformers/qwen2-moe": _hf(
        "Qwen2MoeModel",
        "Qwen2MoeConfig",
        _ids,
        use_cache=False,
        num_key_value_heads=2,
        num_experts=4,
        num_experts_per_tok=2,
        moe_intermediate_size=16,
        shared_expert_intermediate_size=16,
        **TEXT,
    ),
    "transformers/longformer": _hf("LongformerModel", "LongformerConfig", _ids, attention_window=4, **TEXT),
    "transformers/big-bird": _hf(
        "BigBirdModel", "BigBirdConfig", lambda: _ids(length=64), block_size=4, num_random_blocks=2, **TEXT
    ),
    "transformers/reformer": _hf(
        "ReformerModel",
        "ReformerConfig",
        lambda: _ids(length=16),
        use_cache=False,
        vocab_size=128,
        hidden_size=32,
        attention_head_size=8,
        num_attention_heads=4,
        feed_forward_size=64,
        axial_pos_shape=(4, 4),
        axial_pos_embds_dim=(16, 16),
        local_attn_chunk_length=4,
        lsh_attn_chunk_length=4,
        num_buckets=2,
        is_decoder=False,
    ),
    "transformers/mamba": _hf(
        "MambaModel",
        "MambaConfig",
        _ids,
        use_cache=False,
        vocab_size=128,
        hidden_size=32,
        state_size=4,
        num_hidden_layers=2,
        expand=2,
        conv_kernel=4,
    ),
    "transformers/jamba": _hf(
        "JambaModel",
        "JambaConfig",
        _ids,
        use_cache=False,
        vocab_size=128,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        num_experts=2,
        attn_layer_period=2,
        attn_layer_offset=1,
        expert_layer_period=2,
        expert_layer_offset=1,
        mamba_d_state=4,
        mamba_expand=2,
        use_mamba_kernels=False,
    ),
    "transformers/funnel": _hf(
        "FunnelBaseModel",
        "FunnelConfig",
        _ids,
        vocab_size=128,
        d_model=32,
        n_head=4,
        d_head=8,
        d_inner=64,
        block_sizes=[1, 1],
    ),
    "transformers/detr": _hf(
        "DetrModel",
        "DetrConfig",
        lambda: (torch.randn(1, 3, 64, 64),),
        use_timm_backbone=False,
        use_pretrained_backbone=False,
        d_model=32,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        num_queries=8,
        backbone_config={
            "model_type": "resnet",
            "embedding_size": 8,
            "hidden_sizes": [8, 16],
            "depths": [1, 1],
            "out_features": ["stage2"],
        },
    ),
    "transformers/swin": _hf(
        "SwinModel",
        "SwinConfig",
        lambda: (torch.randn(1, 3, 32, 32),),
        image_size=32,
        patch_size=2,
        embed_dim=8,
        depths=[1, 1],
        num_heads=[1, 2],
        window_size=4,
    ),
    "transformers/mobilevit": _hf(
        "MobileViTModel",
        "MobileViTConfig",
        lambda: (torch.randn(1, 3, 64, 64),),
        image_size=64,
        hidden_sizes=[16, 16, 16],
        neck_hidden_sizes=[8, 8, 8, 8, 8, 16, 32],
    ),
    "timm/resnet10t": _timm("resnet10t"),
    "timm/densenet121": _timm("densenet121"),
    "timm/vit_tiny": _timm("vit_tiny_patch16_224", 224),
    "timm/convnext_atto": _timm("convnext_atto"),
    "timm/efficientnet_b0": _timm("efficientnet_b0"),
    "timm/mobilenetv3_small": _timm("mobilenetv3_small_050"),
    "torchvision/resnet18": _tv("resnet18"),
    "torchvision/mobilenet_v3_small": _tv("mobilenet_v3_small"),
    "torchvision/squeezenet": _tv("squeezenet1_0"),
    "torchvision/shufflenet_v2": _tv("shufflenet_v2_x0_5"),
    "torchvision/googlenet": _tv("googlenet", init_weights=False, aux_logits=False),
    "torchvision/fasterrcnn_mobilenet": _tv("fasterrcnn_mobilenet_v3_large_320_fpn", 128, weights_backbone=None),
    "torchvision/ssdlite": _tv("ssdlite320_mobilenet_v3_large", 128, weights_backbone=None),
    "diffusers/unet2d": _unet2d,
    "diffusers/unet2d-condition": _unet_cond,
    "diffusers/autoencoder-kl": _vae,
    "diffusers/dit": _dit,
    # Added on 2026-11-26, first exported and linted before any engine change they led to (held-out).
    "transformers/whisper": _whisper,
    "transformers/bart": _hf(
        "BartModel",
        "BartConfig",
        _ids,
        vocab_size=128,
        d_model=32,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        max_position_embeddings=32,
        use_cache=False,
    ),
    "transformers/gemma2": _hf(
        "Gemma2Model",
        "Gemma2Config",
        _ids,
        use_cache=False,
        num_key_value_heads=2,
        head_dim=8,
        sliding_window=4,
        **TEXT,
    ),
    "transformers/phi3": _hf(
        "Phi3Model", "Phi3Config", _ids, use_cache=False, num_key_value_heads=2, pad_token_id=0, **TEXT
    ),
    "transformers/bloom": _hf(
        "BloomModel", "BloomConfig", _ids, use_cache=False, vocab_size=128, hidden_size=32, n_layer=2, n_head=4
    ),
    "transformers/deberta-v2": _hf("DebertaV2Model", "DebertaV2Config", _ids, **TEXT),
    "transformers/mobilebert": _hf(
        "MobileBertModel",
        "MobileBertConfig",
        _ids,
        vocab_size=128,
        hidden_size=32,
        embedding_size=16,
        intermediate_size=64,
        intra_bottleneck_size=16,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_feedforward_networks=2,
    ),
    "transformers/siglip-vision": _hf(
        "SiglipVisionModel",
        "SiglipVisionConfig",
        lambda: (torch.randn(1, 3, 32, 32),),
        image_size=32,
        patch_size=8,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
    ),
    "transformers/dinov2": _hf(
        "Dinov2Model",
        "Dinov2Config",
        lambda: (torch.randn(1, 3, 32, 32),),
        image_size=32,
        patch_size=8,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
    ),
    "transformers/segformer": _hf(
        "SegformerModel",
        "SegformerConfig",
        lambda: (torch.randn(1, 3, 64, 64),),
        num_encoder_blocks=2,
        depths=[1, 1],
        sr_ratios=[2, 1],
        hidden_sizes=[8, 16],
        num_attention_heads=[1, 2],
        decoder_hidden_size=16,
    ),
    "timm/regnetx_002": _timm("regnetx_002"),
    "timm/levit_128s": _timm("levit_128s", 224),
    "timm/ghostnet_050": _timm("ghostnet_050"),
    "torchvision/regnet_y_400mf": _tv("regnet_y_400mf"),
    "torchvision/efficientnet_b0": _tv("efficientnet_b0"),
    "torchvision/swin_t": _tv("swin_t"),
    "torchvision/lraspp_mobilenet": _tv("lraspp_mobilenet_v3_large", weights_backbone=None),
    "torchvision/r3d_18": _video,
    "torchvision/retinanet": _tv("retinanet_resnet50_fpn", 128, weights_backbone=None),
    "torchvision/fcos": _tv("fcos_resnet50_fpn", 128, weights_backbone=None),
    "torchvision/raft_small": _raft,
    "diffusers/controlnet": _controlnet,
    "diffusers/sd3-transformer": _sd3,
    "diffusers/autoencoder-tiny": _vae_tiny,
}


def _batch_ids(length: int = 8) -> tuple[torch.Tensor, ...]:
    """Token ids with a batch of 2: a dynamic dimension's example must not be 0 or 1."""
    return (torch.randint(0, 128, (2, length)),)


def _images(size: int, batch: int = 1, channels: int = 3) -> Callable[[], tuple[torch.Tensor, ...]]:
    return lambda: (torch.randn(batch, channels, size, size),)


def _seq(high: int | None = None) -> dict[str, Any]:
    return {"name": "seq", "min": 2, **({"max": high} if high is not None else {})}


BATCH = {"name": "batch", "min": 2, "max": 16}
HEIGHT, WIDTH = {"name": "height", "min": 16, "max": 64}, {"name": "width", "min": 16, "max": 64}


@dataclass(frozen=True)
class Dynamic:
    """A zoo model exported with `dynamic_shapes`. `shapes` is written as the user declares it to
    the lint, a `[tool.xport-lint.dynamic-shapes]` entry for the exported class (input ->
    dimension -> "auto", "dynamic", a Dim name or {name, min, max}); the export builds the same
    `Dim`s from it, one `Dim` per name."""

    model: str
    inputs: Callable[[], tuple[Any, ...]]
    shapes: dict[str, dict[int, Any]]
    switches: dict[str, Any] = field(default_factory=dict)

    def build(self) -> tuple[Any, tuple[Any, ...]]:
        model, _ = MODELS[self.model](**self.switches)
        return model, self.inputs()


def dims(shapes: dict[str, dict[int, Any]]) -> dict[str, dict[int, Any]]:
    """The torch `dynamic_shapes` of a `Dynamic.shapes` table."""
    made: dict[str, Any] = {}

    def one(spec: Any) -> Any:
        if spec in ("auto", "dynamic"):
            return getattr(torch.export.Dim, spec.upper())
        name, low, high = (
            (spec, None, None) if isinstance(spec, str) else (spec["name"], spec.get("min"), spec.get("max"))
        )
        if name not in made:
            made[name] = torch.export.Dim(name, min=low, max=high)
        return made[name]

    return {arg: {int(i): one(spec) for i, spec in per.items()} for arg, per in shapes.items()}


# Added on 2026-11-26 with named Dims (issue 24), exported and linted before any engine change they
# led to (held-out first run). Which exports fail is what torch says, not what was expected.
DYNAMIC: dict[str, Dynamic] = {
    # a 512-long position_ids buffer sliced by the sequence length bounds it to 512
    "transformers/bert@seq<=1024": Dynamic("transformers/bert", _batch_ids, {"input_ids": {0: BATCH, 1: _seq(1024)}}),
    "transformers/bert@seq<=256": Dynamic("transformers/bert", _batch_ids, {"input_ids": {0: BATCH, 1: _seq(256)}}),
    "transformers/gpt2@seq<=512": Dynamic("transformers/gpt2", _batch_ids, {"input_ids": {0: BATCH, 1: _seq(512)}}),
    "transformers/llama@seq<=128": Dynamic("transformers/llama", _batch_ids, {"input_ids": {0: BATCH, 1: _seq(128)}}),
    "transformers/t5-encoder@seq<=256": Dynamic(
        "transformers/t5-encoder", _batch_ids, {"input_ids": {0: BATCH, 1: _seq(256)}}
    ),
    # CLIP's text positions are 77 long
    "transformers/clip-text@seq<=128": Dynamic("transformers/clip-text", _batch_ids, {"input_ids": {1: _seq(128)}}),
    "transformers/mistral@auto": Dynamic("transformers/mistral", _batch_ids, {"input_ids": {0: "auto", 1: "auto"}}),
    "transformers/vit@hw": Dynamic("transformers/vit", _images(32), {"pixel_values": {2: HEIGHT, 3: WIDTH}}),
    "transformers/dinov2@hw": Dynamic("transformers/dinov2", _images(32), {"pixel_values": {2: HEIGHT, 3: WIDTH}}),
    "transformers/siglip-vision@batch": Dynamic(
        "transformers/siglip-vision", _images(32, batch=2), {"pixel_values": {0: BATCH}}
    ),
    "timm/vit_tiny@hw": Dynamic(
        "timm/vit_tiny", _images(224), {"x": {2: {"name": "height", "min": 32, "max": 448}, 3: "width"}}
    ),
    "timm/vit_tiny-dynamic_img_size@hw": Dynamic(
        "timm/vit_tiny",
        _images(224),
        {"x": {2: {"name": "height", "min": 32, "max": 448}, 3: {"name": "width", "min": 32, "max": 448}}},
        {"dynamic_img_size": True},
    ),
    "timm/convnext_atto@hw": Dynamic(
        "timm/convnext_atto",
        _images(64),
        {"x": {2: {"name": "height", "min": 32, "max": 512}, 3: {"name": "width", "min": 32, "max": 512}}},
    ),
    "torchvision/resnet18@batch-hw": Dynamic(
        "torchvision/resnet18",
        _images(64, batch=2),
        {"x": {0: BATCH, 2: {"name": "height", "min": 32, "max": 512}, 3: {"name": "width", "min": 32, "max": 512}}},
    ),
    # diffusers' Upsample2D tests `hidden_states.shape[0] >= 64`
    "diffusers/unet2d@batch<=128": Dynamic(
        "diffusers/unet2d",
        lambda: (torch.randn(2, 3, 16, 16), torch.tensor([10])),
        {"sample": {0: {"name": "batch", "min": 2, "max": 128}}},
    ),
    "diffusers/unet2d@batch<=32": Dynamic(
        "diffusers/unet2d",
        lambda: (torch.randn(2, 3, 16, 16), torch.tensor([10])),
        {"sample": {0: {"name": "batch", "min": 2, "max": 32}}},
    ),
    "diffusers/autoencoder-kl@batch<=128": Dynamic(
        "diffusers/autoencoder-kl",
        lambda: (torch.randn(2, 3, 16, 16),),
        {"sample": {0: {"name": "batch", "min": 2, "max": 128}}},
    ),
    "diffusers/unet2d-condition@hw": Dynamic(
        "diffusers/unet2d-condition",
        lambda: (torch.randn(1, 4, 16, 16), torch.tensor([10]), torch.randn(1, 4, 8)),
        {"sample": {2: {"name": "height", "min": 8, "max": 64}, 3: {"name": "width", "min": 8, "max": 64}}},
    ),
}
