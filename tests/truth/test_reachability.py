"""What a default export runs: an `.eval()` module, in either mode. Code under a guard that is
never true while exporting gets no finding; a branch only training mode runs gets a warning that
says so, not an error. Each claim checked statically and with real torch 2.13."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.truth.harness import load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

HEAD = "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
NEVER_WHILE_EXPORTING = {
    "not-exporting": "        if not torch.compiler.is_exporting():\n            if x.sum() > 0:\n                return x * 2\n        return x\n",
    "exporting-else": "        if torch.compiler.is_exporting():\n            return x\n        else:\n            if x.sum() > 0:\n                return x * 2\n        return x\n",
    "scripting-or-tracing": "        if torch.jit.is_scripting() or torch.jit.is_tracing():\n            if x.sum() > 0:\n                return x * 2\n        return x\n",
    # torchvision's `_is_tracing()` returns this: the TorchScript tracer's state, None under export
    "torchscript-tracer": "        if torch._C._get_tracing_state():\n            n = int(x.max())\n            return x[:n]\n        return x\n",
    "onnx-export": "        if torch.onnx.is_in_onnx_export():\n            n = int(x.max())\n            return x[:n]\n        return x\n",
    "not-compiling": "        if not torch.compiler.is_compiling():\n            if x.sum() > 0:\n                return x * 2\n        return x\n",
    # anyflow: the guard read into a local first
    "guard-in-a-local": "        is_compiling = torch.compiler.is_compiling()\n        if not is_compiling and x.sum() > 0:\n            return x * 2\n        return x\n",
    "dynamo-is-compiling": "        if torch._dynamo.is_compiling():\n            return x\n        if x.sum() > 0:\n"
    "            return x * 2\n        return x\n",
    # a function of the file that returns a guard (kornia's `is_exporting`), behind a scripting test
    "guard-wrapper": "        if not exporting():\n            if x.sum() > 0:\n                return x * 2\n        return x\n"
    "\n\ndef exporting():\n    if torch.jit.is_scripting():\n        return False\n"
    "    return torch.compiler.is_exporting()\n",
    "guard-wrapper-else": "        if compiling():\n            return x\n        else:\n            n = int(x.max())\n"
    "            return x[:n]\n\n\ndef compiling():\n    return torch.compiler.is_compiling()\n",
    # a default export is fp32: the fp16 overflow clamp of T5-style blocks never runs
    "fp16-clamp": "        if x.dtype == torch.float16 and torch.isinf(x).any():\n            x = torch.clamp(x, -1.0, 1.0)\n        return x\n",
    # export never evaluates the right operand: `not True and ...` stops at the left
    "short-circuit": "        if not torch.compiler.is_compiling() and (x[-1] == 0).all():\n            return x * 2\n        return x\n",
    # the side of a conditional expression a guard rules out
    "guarded-conditional-expression": "        return x if torch.compiler.is_compiling() else (x * 2 if x.sum() > 0 else x)\n",
}
TRAINING_ONLY = {
    "helper-called-only-in-training": "        if self.training:\n            x = self.noisy(x)\n        return x\n\n"
    "    def noisy(self, x):\n        if x.sum() > 0:\n            return x * 2\n        return x\n",
    "training-block": "        if self.training:\n            if x.sum() > 0:\n                return x * 2\n        return x\n",
    "training-and": "        if self.training and x.mean() > 0:\n            return x * 2\n        return x\n",
    "else-of-not-training": "        if not self.training:\n            return x\n        else:\n            if x.sum() > 0:\n"
    "                return x * 2\n        return x\n",
    "after-not-training-return": "        if not self.training:\n            return x\n        if x.sum() > 0:\n            return x * 2\n"
    "        return x\n",
    # the side of a conditional expression only training mode takes, in a statement both run
    "training-conditional-expression": "        return (x * 2 if x.sum() > 0 else x) if self.training else x\n",
    "not-training-conditional-expression": "        y = x if not self.training else (x * 2 if x.sum() > 0 else x)\n"
    "        return y\n",
}


def exports(source: str, folder: Path, strict: bool, training: bool) -> bool:
    module = load(source, folder)
    try:
        torch.export.export(module.M().train(training), (torch.randn(4),), strict=strict)
    except Exception:  # noqa: BLE001 - failing is the fact checked
        return False
    return True


@pytest.mark.parametrize("body", NEVER_WHILE_EXPORTING.values(), ids=list(NEVER_WHILE_EXPORTING))
def test_a_branch_export_never_takes_has_no_finding(body: str, tmp_path: Path) -> None:
    source = HEAD + body
    assert check_source(source, "m.py", Config()) == []
    assert check_source(source, "m.py", Config(strict=True)) == []
    for strict in (False, True):
        for training in (False, True):
            assert exports(source, tmp_path, strict, training)


@pytest.mark.parametrize("body", TRAINING_ONLY.values(), ids=list(TRAINING_ONLY))
def test_a_training_only_branch_is_a_warning_naming_the_condition(body: str, tmp_path: Path) -> None:
    source = HEAD + body
    (finding,) = check_source(source, "m.py", Config())
    assert finding.code == "XPT101" and finding.severity is Severity.WARNING
    assert "only when exporting in training mode" in finding.message
    for strict in (False, True):
        assert exports(source, tmp_path, strict, training=False)
        assert not exports(source, tmp_path, strict, training=True)


def test_a_tensor_test_before_self_training_is_still_an_error(tmp_path: Path) -> None:
    source = HEAD + "        if x.sum() > 0 and self.training:\n            return x * 2\n        return x\n"
    (finding,) = check_source(source, "m.py", Config())
    assert finding.severity is Severity.ERROR
    assert not exports(source, tmp_path, strict=False, training=False)


def test_a_compiler_disabled_helper_is_still_traced(tmp_path: Path) -> None:
    """Folklore says `@torch.compiler.disable` keeps code out of export; on torch 2.13 non-strict
    export traces into it and strict export refuses to call it: both fail here."""
    source = (
        "import torch\n@torch.compiler.disable\ndef helper(x):\n    if x.sum() > 0:\n        return x * 2\n"
        "    return x\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return helper(x)\n"
    )
    (finding,) = check_source(source, "m.py", Config())
    assert finding.code == "XPT101" and finding.severity is Severity.ERROR
    for strict in (False, True):
        assert not exports(source, tmp_path, strict, training=False)


def test_a_branch_behind_an_optional_argument_is_a_warning_naming_it(tmp_path: Path) -> None:
    """`labels=None` and `if labels is not None and labels.max() > 3:`: an export that does not
    pass `labels` never evaluates the test (passes); one that does fails."""
    source = (
        "import torch\nclass M(torch.nn.Module):\n    def forward(self, x, labels=None):\n"
        "        if labels is not None and labels.max() > 3:\n            x = x * 2\n        return x\n"
    )
    (finding,) = check_source(source, "m.py", Config())
    assert finding.severity is Severity.WARNING and "only when `labels` is passed" in finding.message
    module = load(source, tmp_path)
    for strict in (False, True):
        torch.export.export(module.M(), (torch.randn(4),), strict=strict)
        with pytest.raises(Exception):  # noqa: B017 - torch raises several kinds for a guard on data
            torch.export.export(module.M(), (torch.randn(4),), {"labels": torch.arange(6)}, strict=strict)


def test_a_value_only_training_code_assigns_does_not_reach_eval_code(tmp_path: Path) -> None:
    """wav2vec2's LayerDrop: `skip` is a tensor only in training mode; an eval export sees False.
    (The training-mode failure is not reported: the value's training-only origin is dropped.)"""
    source = HEAD + (
        "        skip = False\n        if self.training:\n            skip = torch.rand([]) < 0.5\n"
        "        if not skip:\n            return x * 2\n        return x\n"
    )
    assert check_source(source, "m.py", Config()) == []
    for strict in (False, True):
        assert exports(source, tmp_path, strict, training=False)
        assert not exports(source, tmp_path, strict, training=True)


def test_a_helper_annotated_to_return_bool_is_flagged_inside_not_at_its_callers(tmp_path: Path) -> None:
    source = (
        "import torch\ndef is_big(x) -> bool:\n    return bool(x.sum() > 0)\n"
        "class M(torch.nn.Module):\n    def forward(self, x):\n        if is_big(x):\n            return x * 2\n        return x\n"
    )
    (finding,) = check_source(source, "m.py", Config())
    assert finding.code == "XPT203" and finding.span.start.line == 3
    assert not exports(source, tmp_path, strict=False, training=False)


def test_a_flag_made_of_an_optional_argument_guards_like_the_argument(tmp_path: Path) -> None:
    """reformer: `exists_cache = past is not None and ...`; what `if exists_cache` guards runs only
    when `past` is passed: a warning that names it. Exported without it, the model exports; with
    it, the data-dependent size fails."""
    source = HEAD.replace("def forward(self, x):", "def forward(self, x, past=None):") + (
        "        exists_cache = past is not None and len(past) > 0\n"
        "        if exists_cache:\n            x = x[x > 0]\n"
        "        if exists_cache and x.shape[0] >= 2:\n            return x * 2\n        return x\n"
    )
    (finding,) = check_source(source, "m.py", Config())
    assert finding.code == "XPT105" and finding.severity is Severity.WARNING
    assert "only when `past` is passed" in finding.message
    module = load(source, tmp_path)
    torch.export.export(module.M(), (torch.randn(4),), strict=False)
    with pytest.raises(Exception):  # noqa: B017 - any export failure is the fact checked
        torch.export.export(module.M(), (torch.randn(4), [torch.ones(1)]), strict=False)


SWITCHED = (
    "import torch\n\n\nclass Config:\n    is_training = False\n\n\nclass M(torch.nn.Module):\n"
    "    def __init__(self, config=Config()):\n        super().__init__()\n        self.is_training = config.is_training\n\n"
    "    def forward(self, x):\n        if self.is_training:\n            if x.sum() > 0:\n                return x * 2\n"
    "        return x\n"
)


def test_a_branch_a_config_flag_turns_on_is_a_warning_naming_it(tmp_path: Path) -> None:
    """OneFormer's `self.is_training = config.is_training` (False by default): what it guards runs
    only with the flag set, however `.train()`/`.eval()` leave the module."""
    (finding,) = check_source(SWITCHED, "m.py", Config())
    assert finding.code == "XPT101" and finding.severity is Severity.WARNING
    assert "only with `config.is_training=True`" in finding.message
    module = load(SWITCHED, tmp_path)
    switched_on = type("On", (), {"is_training": True})()
    for strict in (False, True):
        for training in (False, True):
            assert exports(SWITCHED, tmp_path, strict, training)
        with pytest.raises(Exception):  # noqa: B017 - failing is the fact checked
            torch.export.export(module.M(switched_on).eval(), (torch.randn(4),), strict=strict)


SESSION = (
    "import torch\n\n\nclass VideoInferenceSession:\n    def __init__(self):\n        self.frames = {}\n\n\n"
    "class M(torch.nn.Module):\n    def forward(self, inference_session: VideoInferenceSession, x):\n"
    "        return self.track(x)\n\n    def track(self, x):\n        if x.sum() > 0:\n            return x * 2\n        return x\n"
)


def test_a_forward_that_takes_an_inference_session_is_no_export_entry(tmp_path: Path) -> None:
    """SAM2/SAM3 video models take a Python session object: export rejects it among the inputs
    before tracing, so nothing the `forward` reaches is reported as an export failure."""
    assert check_source(SESSION, "m.py", Config()) == []
    # without the branch too: the session input is what export rejects
    plain = SESSION.replace("        if x.sum() > 0:\n            return x * 2\n", "")
    for source in (SESSION, plain):
        module = load(source, tmp_path)
        for strict in (False, True):
            with pytest.raises(Exception):  # noqa: B017 - failing is the fact checked
                torch.export.export(module.M().eval(), (module.VideoInferenceSession(), torch.ones(4)), strict=strict)


MERGER = (
    "import torch\nfrom dataclasses import dataclass\n\n\n@dataclass\nclass MergerConfig:\n    merger_times: int = 1\n\n\n"
    "class M(torch.nn.Module):\n    def __init__(self, config: MergerConfig = MergerConfig()):\n        super().__init__()\n"
    "        {store}\n\n"
    "    def forward(self, x, sizes):\n        height = sizes[0]\n        for i in {loop}:\n"
    "            if height % 2 != 0:\n                raise ValueError('odd')\n            height = height // 2\n"
    "        return x * 2\n"
)
EMPTY_BY_DEFAULT = {
    # minicpm's merger: one merge round by default, the rest under `range(1, self.merger_times)`
    "copied-field": ("self.merger_times = config.merger_times", "range(1, self.merger_times)"),
    "field-of-self-config": ("self.config = config", "range(self.config.merger_times - 1)"),
}


@pytest.mark.parametrize(("store", "loop"), EMPTY_BY_DEFAULT.values(), ids=list(EMPTY_BY_DEFAULT))
def test_a_loop_the_default_configuration_leaves_empty_is_a_warning_naming_it(
    store: str, loop: str, tmp_path: Path
) -> None:
    """`for i in range(1, self.merger_times):` with `merger_times` 1 by default runs no iteration
    in a default export: what fails in its body fails only with a larger value, which the
    warning names."""
    source = MERGER.format(store=store, loop=loop)
    for mode in (Config(), Config(strict=True)):
        (finding,) = check_source(source, "m.py", mode)
        assert (finding.code, finding.severity) == ("XPT101", Severity.WARNING)
        assert "only with a larger `config.merger_times`" in finding.message
    module = load(source, tmp_path)
    args = (torch.randn(4), torch.tensor([6, 4]))
    for strict in (False, True):
        torch.export.export(module.M().eval(), args, strict=strict)
        with pytest.raises(Exception):  # noqa: B017 - failing is the fact checked
            torch.export.export(module.M(module.MergerConfig(merger_times=2)).eval(), args, strict=strict)


POINTS = (
    "import torch\nfrom dataclasses import dataclass\n\n\n@dataclass\nclass PointConfig:\n    max_keypoints: int = -1\n\n\n"
    "def top_k(keypoints, scores, k: int):\n    if k >= len(keypoints):\n        return keypoints, scores\n"
    "    scores, indices = torch.topk(scores, k, dim=0)\n    return keypoints[indices], scores\n\n\n"
    "class M(torch.nn.Module):\n    def __init__(self, config: PointConfig = PointConfig()):\n        super().__init__()\n"
    "        self.max_keypoints = config.max_keypoints\n\n"
    "    def forward(self, x):\n        keypoints = torch.nonzero(x > 0)\n        scores = x[x > 0]\n"
    "        if self.max_keypoints >= 0:\n            keypoints, scores = top_k(keypoints, scores, self.max_keypoints)\n"
    "        return keypoints * 2, scores * 2\n"
)


def test_a_helper_called_only_past_a_compared_config_default_is_a_warning_naming_it(tmp_path: Path) -> None:
    """superpoint's `if self.max_keypoints >= 0: top_k_keypoints(...)` with -1 by default: the
    helper runs only with another value, so its test of a data-dependent count is a warning that
    names the switch."""
    for mode in (Config(), Config(strict=True)):
        found = check_source(POINTS, "m.py", mode)
        assert found and all(f.severity is Severity.WARNING for f in found), found
        assert all("only with a `config.max_keypoints` where `self.max_keypoints >= 0`" in f.message for f in found)
    module = load(POINTS, tmp_path)
    x = torch.tensor([0.5, -1.0, 2.0, 3.0])
    for strict in (False, True):
        torch.export.export(module.M().eval(), (x,), strict=strict)
        with pytest.raises(Exception):  # noqa: B017 - failing is the fact checked
            torch.export.export(module.M(module.PointConfig(max_keypoints=2)).eval(), (x,), strict=strict)


LENGTHS = (
    "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        parts = [x[:2], x[2:]]\n"
    "        lengths = [len(p) for p in parts]\n        if max(lengths) > 1:\n            x = x * 2\n"
    "        if not parts:\n            return x\n        return x + len(parts)\n"
)


def test_the_lengths_of_a_python_list_are_no_tensor_data(tmp_path: Path) -> None:
    """controlnet_z_image's `x_item_seqlens = [len(t) for t in xs]` and evolla's `if not masks:`:
    the length of a list, and of each static-sized tensor in it, is a Python int export knows."""
    assert check_source(LENGTHS, "m.py", Config()) == []
    assert check_source(LENGTHS, "m.py", Config(strict=True)) == []
    module = load(LENGTHS, tmp_path)
    for strict in (False, True):
        torch.export.export(module.M().eval(), (torch.randn(4),), strict=strict)


#: a Python list repeated by a count that is a tensor: the list reads the count through
#: `__index__`, its data (qwen3_asr's `[window] * (cnn_len // window)` for each `cnn_len` of a
#: tensor of lengths); name -> (source, the line of the finding, or None where export runs)
REPEATED = {
    "a-tensor-count": ("        chunks = [0] * (lens[0] // 2)\n        return x * len(chunks)\n", 6),
    "in-a-loop-over-lengths": (
        "        chunks = [0]\n        for n in lens:\n            chunks += [4] * (n // 4)\n"
        "        return x * len(chunks)\n",
        8,
    ),
    "a-named-list": ("        part = [1]\n        n = lens.max()\n        return x * len(part * n)\n", 8),
    # a tensor does not multiply a list: the list's own `*` repeats it, whichever side it is on
    "the-count-on-the-left": ("        chunks = (lens[0] // 2) * (0,)\n        return x * len(chunks)\n", 6),
    "a-static-size": ("        return x * len([0] * x.shape[0])\n", None),
}


@pytest.mark.parametrize("name", sorted(REPEATED))
def test_a_list_repeated_by_a_tensor_count_is_where_export_fails(name: str, tmp_path: Path) -> None:
    body, line = REPEATED[name]
    source = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x, lens):\n" + body
    module = load(source, tmp_path)
    for mode in (Config(), Config(strict=True)):
        found = [(f.code, f.span.start.line, f.severity) for f in check_source(source, "m.py", mode)]
        assert found == ([] if line is None else [("XPT205", line, Severity.ERROR)])
        args = (torch.randn(4), torch.tensor([6, 3]))
        if line is None:
            torch.export.export(module.M().eval(), args, strict=mode.strict)
            continue
        with pytest.raises(Exception, match="data-dependent"):
            torch.export.export(module.M().eval(), args, strict=mode.strict)


#: hunyuan_vl's rope index: `if input_ids is None or image_grid_thw is None or seen != 0: return
#: None` before the call of a helper that reads a data-dependent length
EARLY_RETURN = (
    "import torch\n\n\nclass M(torch.nn.Module):\n"
    "    def positions(self, ids, grid_thw=None, past=None):\n"
    "        seen = 0 if past is None else past.shape[0]\n"
    "        if ids is None or grid_thw is None or seen != 0:\n            return None\n"
    "        return self.index(ids, grid_thw)\n\n"
    "    def index(self, ids, grid_thw):\n        kept = ids[ids > 0]\n        return kept.max() + 1 - len(kept)\n\n"
    "    def forward(self, ids, grid_thw=None):\n        return ids * 2, self.positions(ids, grid_thw)\n"
)


def test_code_after_an_early_return_on_any_missing_optional_argument_is_a_warning_naming_it(tmp_path: Path) -> None:
    """`if a is None or b is None: return` leaves the rest to an export that passes `b`: a default
    export returns there, a non-strict one passing `grid_thw` fails on the length of the masked
    ids (strict export traces that `len()`: no finding, and it exports)."""
    found = check_source(EARLY_RETURN, "m.py", Config())
    assert [(f.code, f.span.start.line, f.severity) for f in found] == [("XPT203", 13, Severity.WARNING)]
    assert "only when `grid_thw` is passed" in found[0].message
    assert check_source(EARLY_RETURN, "m.py", Config(strict=True)) == []
    module = load(EARLY_RETURN, tmp_path)
    ids, grid = torch.tensor([[3, 0, 5]]), torch.tensor([[1, 2, 2]])
    for strict in (False, True):
        torch.export.export(module.M().eval(), (ids,), strict=strict)
    torch.export.export(module.M().eval(), (ids, grid), strict=True)
    with pytest.raises(Exception, match="data-dependent"):
        torch.export.export(module.M().eval(), (ids, grid), strict=False)


#: switches a construction with `__init__`'s defaults decides, each spelling built so that the
#: default export never runs the data-dependent line and the constructor argument in `on` makes
#: it run: (source, the argument that turns it on, the condition's words)
DEFAULT_SWITCHES = {
    # kornia's RANSAC: `degensac = _resolve(degensac, ...)` maps the default None to False
    "helper-maps-none-to-false": (
        "import torch\n\n\ndef _resolve(flag, kind):\n    if flag is not None and not isinstance(flag, bool):\n"
        "        raise ValueError(flag)\n    supported = kind in ('a', 'b')\n    if flag and not supported:\n"
        "        raise ValueError(kind)\n    return False if flag is None else flag\n\n\n"
        "class M(torch.nn.Module):\n    def __init__(self, kind='a', flag=None):\n        super().__init__()\n"
        "        flag = _resolve(flag, kind)\n        self.flag = flag\n\n    def forward(self, x):\n"
        "        if self.flag:\n            n = int(x.max())\n            return x[:n]\n        return x\n",
        {"flag": True}, "only with another `flag`: `self.flag` is False",
    ),
    # kornia's ImageSequential: a method reads `random_apply=False` into False, a number into a range
    "method-with-isinstance": (
        "import torch\n\n\nclass M(torch.nn.Module):\n    def __init__(self, random_apply=False):\n"
        "        super().__init__()\n        self.random_apply = self._read(random_apply, 3)\n\n"
        "    def _read(self, random_apply, n):\n        if isinstance(random_apply, bool) and random_apply is False:\n"
        "            random_apply = False\n        elif isinstance(random_apply, int):\n"
        "            random_apply = (random_apply, random_apply + 1)\n        else:\n"
        "            raise ValueError(random_apply)\n        return random_apply\n\n    def forward(self, x):\n"
        "        if self.random_apply:\n            return self.draw(x)\n        return x\n\n    def draw(self, x):\n"
        "        n = int(x.argmax())\n        return x[:n]\n",
        {"random_apply": 2}, "only with another `random_apply`: `self.random_apply` is False",
    ),
    # kornia's `_project_refits`: `if self.model_type != "essential": return` with "homography" by default
    "early-return-on-a-string": (
        "import torch\n\n\nclass M(torch.nn.Module):\n    def __init__(self, model_type='homography'):\n"
        "        super().__init__()\n        self.model_type = model_type\n        self.model_type = model_type\n\n"
        "    def forward(self, x):\n        return self.refit(x)\n\n    def refit(self, x):\n"
        "        if self.model_type != 'essential':\n            return x\n        n = int(x.argmax())\n"
        "        return x[:n]\n",
        {"model_type": "essential"}, "only with another `model_type`: `self.model_type != 'essential'` is True",
    ),
    # monai's AUCMLoss: the `else` of a string switch, after checks that raise on other arguments
    "else-of-a-string-after-checks": (
        "import torch\n\n\nclass M(torch.nn.Module):\n    def __init__(self, ratio=None, version='v1'):\n"
        "        super().__init__()\n        if version not in ['v1', 'v2']:\n            raise ValueError(version)\n"
        "        if ratio is not None and not 0.0 <= ratio <= 1.0:\n            raise ValueError(ratio)\n"
        "        self.version = version\n\n    def forward(self, x):\n        if self.version == 'v1':\n"
        "            return x\n        else:\n            n = int(x.argmax())\n            return x[:n]\n",
        {"version": "v2"}, "only with another `version`: `self.version == 'v1'` is True with `__init__`'s defaults "
        "(`version='v1'`)",
    ),
    # negated, the value unpacked from a tuple first
    "negated-after-unpacking": (
        "import torch\n\n\nclass M(torch.nn.Module):\n    def __init__(self, fast=True, size=4):\n"
        "        super().__init__()\n        fast, size = bool(fast), size\n        self.fast = fast\n\n"
        "    def forward(self, x):\n        if not self.fast:\n            n = int(x.argmax())\n            return x[:n]\n"
        "        return x\n",
        {"fast": False}, "only with another `fast`: `not self.fast` is False",
    ),
    # monai's FocalLoss: a buffer that is None unless `weight` is given
    "buffer-none-by-default": (
        "import torch\n\n\nclass M(torch.nn.Module):\n    def __init__(self, weight=None):\n        super().__init__()\n"
        "        weight = torch.as_tensor(weight) if weight is not None else None\n"
        "        self.register_buffer('class_weight', weight)\n\n    def forward(self, x):\n"
        "        if self.class_weight is not None:\n            if (self.class_weight < 0).any():\n"
        "                raise ValueError('negative')\n            x = x * self.class_weight\n        return x\n",
        {"weight": [1.0, 1.0, 1.0, 1.0]}, "only with another `weight`: `self.class_weight is not None` is False",
    ),
}


@pytest.mark.parametrize(("source", "on", "said"), DEFAULT_SWITCHES.values(), ids=list(DEFAULT_SWITCHES))
def test_a_switch_a_default_construction_leaves_off_is_a_warning_naming_it(
    source: str, on: dict[str, object], said: str, tmp_path: Path
) -> None:
    """What `__init__` leaves in `self` with its literal defaults, read through small pure code (a
    helper, a method, unpacking, `not`, a buffer): the default export never runs the code behind
    it (both modes), a construction passing the argument does and fails (non-strict)."""
    (finding,) = check_source(source, "m.py", Config())
    assert finding.severity is Severity.WARNING and said in finding.message, finding.message
    module = load(source, tmp_path)
    for strict in (False, True):
        torch.export.export(module.M().eval(), (torch.randn(4),), strict=strict)
    with pytest.raises(Exception):  # noqa: B017 - torch raises several kinds for a guard on data
        torch.export.export(module.M(**on).eval(), (torch.randn(4),), strict=False)


def test_a_switch_a_call_in_the_file_passes_is_no_switch(tmp_path: Path) -> None:
    """A parent that builds the block with the switch on runs the branch on a default export: an error."""
    source = DEFAULT_SWITCHES["helper-maps-none-to-false"][0] + (
        "\n\nclass Parent(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.block = M(flag=True)\n\n    def forward(self, x):\n        return self.block(x)\n"
    )
    errors = [f for f in check_source(source, "m.py", Config()) if f.severity is Severity.ERROR]
    assert errors, "the branch a parent turns on is an error"
    module = load(source, tmp_path)
    with pytest.raises(Exception):  # noqa: B017 - torch raises several kinds for a guard on data
        torch.export.export(module.Parent().eval(), (torch.randn(4),), strict=False)


def test_the_else_of_a_missing_optional_argument_is_a_warning_naming_it(tmp_path: Path) -> None:
    """kornia's `if weights is None: ... else: <checks on weights>`: the `else` runs only when
    `weights` is passed."""
    source = (
        "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x, weights=None):\n"
        "        if weights is None:\n            scale = 1.0\n        else:\n            if weights.sum() > 0:\n"
        "                raise ValueError('weights')\n            scale = weights\n        return x * scale\n"
    )
    (finding,) = check_source(source, "m.py", Config())
    assert finding.severity is Severity.WARNING and "only when `weights` is passed" in finding.message
    module = load(source, tmp_path)
    for strict in (False, True):
        torch.export.export(module.M().eval(), (torch.randn(4),), strict=strict)
        with pytest.raises(Exception):  # noqa: B017 - torch raises several kinds for a guard on data
            torch.export.export(module.M().eval(), (torch.randn(4), torch.ones(4)), strict=strict)


def test_guards_of_another_file_are_what_torch_sees_while_exporting(tmp_path: Path) -> None:
    """kornia's spellings of `is_compiling`/`is_exporting` in another file (tests/project/
    test_export_guards_across_files.py): every branch the linter leaves unflagged exports in both
    modes, and the one block it flags is where a non-strict export fails."""
    import importlib
    import sys

    from tests.project.test_export_guards_across_files import FILES, MODEL, RUNS_WHILE_EXPORTING, write_package

    flagged = MODEL.lstrip("\n").splitlines()
    unflagged = "\n".join(flagged[: RUNS_WHILE_EXPORTING - 2] + flagged[RUNS_WHILE_EXPORTING + 1 :]) + "\n"
    for name, model, fails in (("unflagged", unflagged, False), ("flagged", MODEL, True)):
        # a package name of its own: after a strict export of another test's `pkg.model` in this
        # process, dynamo's guards on this one read that module (`no attribute 'capturing'`)
        package = f"guards_{name}_pkg"
        write_package(tmp_path / name, {**FILES, "model.py": model}).rename(tmp_path / name / package)
        sys.path.insert(0, str(tmp_path / name))
        try:
            module = importlib.import_module(f"{package}.model")
            for strict in (False, True):
                for training in (False, True):
                    try:
                        torch.export.export(module.M().train(training), (torch.randn(4),), strict=strict)
                        failed = False
                    except Exception:  # noqa: BLE001 - failing is the fact checked
                        failed = True
                    assert failed is (fails and not strict), (name, strict, training)
        finally:
            sys.path.remove(str(tmp_path / name))
            for loaded in [m for m in sys.modules if m == package or m.startswith(f"{package}.")]:
                del sys.modules[loaded]


def test_a_function_called_only_under_a_switch_of_another_file_runs_only_with_it(tmp_path: Path) -> None:
    """tests/project/test_switched_calls_across_files.py's package: with the default construction
    (the always-run error removed), export passes both modes without running the other file's
    switched code; with `degensac=True` it fails there."""
    import importlib
    import sys

    from tests.project.test_export_guards_across_files import write_package
    from tests.project.test_switched_calls_across_files import FILES, SWITCHED

    without_error = SWITCHED.replace("if x.sum() > 0:", "if x.shape[0] > 0:")
    write_package(tmp_path, {**FILES, "switched.py": without_error})
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("pkg.switched")
        for strict in (False, True):
            torch.export.export(module.Ransac().eval(), (torch.randn(4),), strict=strict)
            with pytest.raises(Exception):  # noqa: B017 - torch raises several kinds for a guard on data
                torch.export.export(module.Ransac(degensac=True).eval(), (torch.randn(4),), strict=strict)
    finally:
        sys.path.remove(str(tmp_path))
        for loaded in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[loaded]


def test_a_branch_no_literal_argument_of_another_file_takes_runs_only_with_another(tmp_path: Path) -> None:
    """tests/project/test_literal_arguments_across_files.py's package: the default GaussianFilter
    (`approx="erf"`) and the loss (`"sampled"`, the default) export in both modes without running
    the Bessel branch; `approx="scalespace"` fails there in both."""
    import importlib
    import sys

    from tests.project.test_export_guards_across_files import write_package
    from tests.project.test_literal_arguments_across_files import FILES

    write_package(tmp_path, FILES)
    sys.path.insert(0, str(tmp_path))
    try:
        layers, losses = importlib.import_module("pkg.layers"), importlib.import_module("pkg.losses")
        for strict in (False, True):
            for model in (layers.GaussianFilter(), losses.Loss()):
                torch.export.export(model.eval(), (torch.randn(4),), strict=strict)
            with pytest.raises(Exception):  # noqa: B017 - torch raises several kinds for a guard on data
                torch.export.export(layers.GaussianFilter(approx="scalespace").eval(), (torch.randn(4),), strict=strict)
    finally:
        sys.path.remove(str(tmp_path))
        for loaded in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[loaded]
