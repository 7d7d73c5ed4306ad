"""Reach: which code a default export runs, and the condition a finding's severity names when it
does not (training mode, a configuration switch, an optional argument). A default export is of an
`.eval()` module with the default configuration and only the example's arguments: an error on
code only another export runs is a warning naming that condition, and a Python side effect there
(a log, `self` state, randomness) is info."""

from __future__ import annotations

import textwrap

from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Finding, Severity


def findings(code: str) -> list[Finding]:
    return check_source(textwrap.dedent(code), "model.py")


def only(code: str) -> Finding:
    found = findings(code)
    assert len(found) == 1, found
    return found[0]


def test_the_else_of_not_training_runs_only_in_training_mode() -> None:
    finding = only(
        """
        import torch
        class Dropper(torch.nn.Module):
            def forward(self, x):
                if not self.training:
                    y = x * 2
                else:
                    if x.sum() > 0:
                        y = x
                    else:
                        y = -x
                return y
        """
    )
    assert (finding.code, finding.severity) == ("XPT101", Severity.WARNING)
    assert "only when exporting in training mode" in finding.message


def test_code_after_an_eval_return_runs_only_in_training_mode() -> None:
    finding = only(
        """
        import torch
        class Sampler(torch.nn.Module):
            def forward(self, x):
                if not self.training:
                    return x
                if x.sum() > 0:
                    return x
                return -x
        """
    )
    assert (finding.code, finding.severity) == ("XPT101", Severity.WARNING)
    assert "only when exporting in training mode" in finding.message


def test_an_is_training_flag_copied_from_the_config_is_a_switch_off_by_default() -> None:
    finding = only(
        """
        import torch
        class Head(torch.nn.Module):
            def __init__(self, config):
                super().__init__()
                self.is_training = config.is_training
            def forward(self, x):
                if self.is_training:
                    if x.max() > 1:
                        x = x / x.max()
                return x
        """
    )
    assert (finding.code, finding.severity) == ("XPT101", Severity.WARNING)
    assert "config.is_training=True" in finding.message


def test_code_after_returning_when_an_optional_argument_is_none_runs_only_when_it_is_passed() -> None:
    finding = only(
        """
        import torch
        class Scorer(torch.nn.Module):
            def forward(self, x, labels=None):
                y = x * 2
                if labels is None:
                    return y
                if labels.max() > 3:
                    y = y + 1
                return y
        """
    )
    assert (finding.code, finding.severity) == ("XPT101", Severity.WARNING)
    assert "only when `labels` is passed" in finding.message


def test_a_name_that_is_none_unless_an_optional_argument_is_passed_guards_like_it() -> None:
    """`grid_iter = iter(grid) if grid is not None else None`: `if grid_iter is not None:` runs
    its body only when a caller passes `grid` (hunyuan_vl's rope index)."""
    finding = only(
        """
        import torch
        class Rope(torch.nn.Module):
            def forward(self, ids, grid=None):
                grid_iter = iter(grid) if grid is not None else None
                out = ids * 1
                if grid_iter is not None:
                    if ids.sum() > 0:
                        out = out + 1
                return out
        """
    )
    assert (finding.code, finding.severity) == ("XPT101", Severity.WARNING)
    assert "only when `grid` is passed" in finding.message


def test_a_flag_parameter_defaulting_to_false_guards_code_a_default_export_skips() -> None:
    """`if output_attentions:` on `output_attentions=False`: off unless a caller passes it true
    (longformer's encoder tests its `.item()` flag only there); a flag defaulting to True keeps
    the error."""
    finding = only(
        """
        import torch
        class Encoder(torch.nn.Module):
            def forward(self, x, output_attentions=False):
                is_global = x.any().item()
                y = x * 2
                if output_attentions:
                    if is_global:
                        y = y + 1
                return y
        """
    )
    assert (finding.code, finding.severity) == ("XPT104", Severity.WARNING)
    assert "only when `output_attentions` is passed true: it defaults to False" in finding.message
    finding = only(
        """
        import torch
        class Encoder(torch.nn.Module):
            def forward(self, x, output_attentions=True):
                is_global = x.any().item()
                if output_attentions:
                    if is_global:
                        x = x + 1
                return x
        """
    )
    assert (finding.code, finding.severity) == ("XPT104", Severity.ERROR)


def test_a_return_on_a_required_argument_leaves_the_rest_on_the_default_path() -> None:
    finding = only(
        """
        import torch
        class Scorer(torch.nn.Module):
            def forward(self, x, labels):
                if labels is None:
                    return x
                if labels.max() > 3:
                    x = x + 1
                return x
        """
    )
    assert (finding.code, finding.severity) == ("XPT101", Severity.ERROR)


def test_a_side_effect_only_training_mode_runs_is_advice() -> None:
    finding = only(
        """
        import logging
        import torch
        logger = logging.getLogger(__name__)
        class Tracker(torch.nn.Module):
            def forward(self, x):
                if self.training:
                    logger.warning("mean %s", x.mean())
                return x
        """
    )
    assert (finding.code, finding.severity) == ("XPT405", Severity.INFO)
    assert "only when exporting in training mode" in finding.message


def test_randomness_only_training_mode_runs_is_advice_and_no_strict_error() -> None:
    code = """
        import random
        import torch
        class LayerDrop(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.layer = torch.nn.Linear(4, 4)
            def forward(self, x):
                if self.training and random.random() < 0.1:
                    return x
                return self.layer(x)
        """
    finding = only(code)
    assert (finding.code, finding.severity) == ("XPT402", Severity.INFO)
    [strict] = check_source(textwrap.dedent(code), "model.py", Config(strict=True))
    assert (strict.code, strict.severity) == ("XPT402", Severity.WARNING)
    assert "only when exporting in training mode" in strict.message


def test_state_the_module_reads_back_is_a_warning_and_scratch_state_is_info() -> None:
    """Scratch state: read back only after it is written in the same call (by the writing function,
    or by a method it calls after the write), or reset afresh."""
    found = {
        f.message.split("`")[1]: f.severity
        for f in findings(
            """
            import torch
            class Stateful(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.calls = 0
                def forward(self, x):
                    self.index = [0]
                    self.hidden = x * 2
                    y = self.hidden + 1
                    self.calls = self.calls + 1
                    self.cache = y
                    return self.step(y)
                def step(self, y):
                    self.index[0] += 1
                    return y + self.cache
            """
        )
    }
    assert found == {
        "self.index": Severity.INFO, "self.hidden": Severity.INFO, "self.calls": Severity.WARNING,
        "self.cache": Severity.INFO,
    }


def test_state_moved_or_built_once_is_info() -> None:
    """The attribute's own values moved to a device (qwenimage's `self.freqs`), or a buffer built
    once under `not hasattr` (esmfold's residue constants): the program computes what eager does.
    A cache the next call reads stays a warning, and so does the buffer in strict mode, which
    refuses to build one in `forward`."""
    code = textwrap.dedent(
            """
            import torch
            class Rotary(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.freqs = [torch.ones(4), torch.ones(4)]
                    self.scale = torch.ones(4)
                    self.last = None
                def forward(self, x):
                    self.freqs = [f.to(x.device) for f in self.freqs]
                    self.scale = self.scale.to(x.dtype)
                    if not hasattr(self, "table"):
                        self.table = torch.nn.Buffer(torch.arange(4.0), persistent=False)
                    if self.last is not None:
                        x = x + self.last
                    self.last = x
                    return self.add_table(x * self.freqs[0] * self.scale)
                def add_table(self, x):
                    return x + self.table
            """
    )
    found = {f.message.split("`")[1]: f.severity for f in check_source(code, "model.py")}
    assert found == {
        "self.freqs": Severity.INFO, "self.scale": Severity.INFO, "self.table": Severity.INFO,
        "self.last": Severity.WARNING,
    }
    strict = {f.message.split("`")[1]: f.severity for f in check_source(code, "model.py", Config(strict=True))}
    assert strict["self.table"] is Severity.WARNING


def test_a_cache_checked_before_reuse_is_info() -> None:
    """seamless_m4t's rotary table: `if n == self.cached_len and self.cached is not None: return
    self.cached`, then both written: a fresh module exports the miss, which recomputes the table
    from the input on each call (measured on 2.13: the program equals eager in both modes, with
    static and dynamic lengths). A value the next call reads unchecked stays a warning."""
    found = {
        f.message.split("`")[1]: f.severity
        for f in findings(
            """
            import torch
            class Rotary(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.inv_freq = torch.nn.Buffer(torch.ones(4))
                    self.cached_len = None
                    self.cached = None
                    self.last = None
                def forward(self, h):
                    n = h.shape[1]
                    if n == self.cached_len and self.cached is not None:
                        return h + self.cached
                    self.cached_len = n
                    self.cached = torch.arange(n).type_as(self.inv_freq)[:, None] * self.inv_freq
                    if self.last is not None:
                        h = h + self.last
                    self.last = h
                    return h + self.cached
            """
        )
    }
    assert found == {"self.cached_len": Severity.INFO, "self.cached": Severity.INFO, "self.last": Severity.WARNING}


def test_export_stops_at_the_first_failure_on_the_way() -> None:
    """An error every path reaches only after an earlier one is a warning naming that line; an
    error on another branch keeps its own."""
    found = {
        f.span.start.line: (f.code, f.severity)
        for f in findings(
            """
            import torch
            class Filter(torch.nn.Module):
                def forward(self, x):
                    keep = x[x > 0]
                    if keep.shape[0] == 0:
                        return x
                    if keep.max() > 1:
                        keep = keep / 2
                    return keep
                def other(self, x):
                    return x
            class Branches(torch.nn.Module):
                def forward(self, x, flag: bool):
                    if flag:
                        if x.sum() > 0:
                            return x
                    else:
                        if x.mean() > 0:
                            return -x
                    return x
            """
        )
    }
    assert found == {
        6: ("XPT105", Severity.ERROR),
        8: ("XPT101", Severity.WARNING),
        16: ("XPT101", Severity.ERROR),
        19: ("XPT101", Severity.ERROR),
    }


def test_a_helper_shared_with_an_optional_path_is_judged_with_the_default_paths_values() -> None:
    """radio's `_interpolate_position_embedding`: the default path passes it static sizes, and
    only the path `grid` opens passes numbers read from data. A default export passes (static
    sizes), so the helper's branch is no error; what only that path passes is not joined in."""
    found = findings(
        """
        import torch
        class Embed(torch.nn.Module):
            def _crop(self, dims):
                if dims[0] < 4:
                    return dims[0]
                return 4
            def forward(self, x: torch.Tensor, grid: torch.Tensor | None = None):
                if grid is not None:
                    return self._packed(x, grid)
                return x[:, : self._crop((x.shape[-2], x.shape[-1]))]
            def _packed(self, x: torch.Tensor, grid: torch.Tensor):
                h, w = grid.tolist()
                return x[:, : self._crop((h, w))]
        """
    )
    assert [f for f in found if f.severity is Severity.ERROR] == []


def test_a_helper_only_an_optional_path_calls_is_judged_with_its_values_as_a_warning() -> None:
    """The same helper with no default-path caller: the values that path passes reach it, and
    the branch fails only an export that passes `grid`."""
    finding = only(
        """
        import torch
        class Embed(torch.nn.Module):
            def _crop(self, dims):
                if dims[0] < 4:
                    return dims[0]
                return 4
            def forward(self, x: torch.Tensor, grid: torch.Tensor | None = None):
                if grid is not None:
                    return self._packed(x, grid)
                return x
            def _packed(self, x: torch.Tensor, grid: torch.Tensor):
                h, w = grid.tolist()
                return x[:, : self._crop((h, w))]
        """
    )
    assert (finding.code, finding.severity) == ("XPT104", Severity.WARNING)
    assert "only when `grid` is passed" in finding.message


def test_a_helper_the_default_path_passes_data_keeps_its_error() -> None:
    """What the default path passes still reaches a helper an optional path also calls."""
    found = findings(
        """
        import torch
        class Embed(torch.nn.Module):
            def _crop(self, dims):
                if dims[0] < 4:
                    return dims[0]
                return 4
            def forward(self, x: torch.Tensor, grid: torch.Tensor | None = None):
                if grid is not None:
                    return x[:, : self._crop((x.shape[-2], x.shape[-1]))]
                h, w = x[0, :2].tolist()
                return x[:, : self._crop((h, w))]
        """
    )
    assert [(f.code, f.severity) for f in found if f.span.start.line == 5] == [("XPT104", Severity.ERROR)]


LAYERDROP = """
    import random
    import torch
    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(2)])
            self.layerdrop = 0.5
        def forward(self, x):
            for layer in self.layers:
                p = random.random()
                if not self.training or p > self.layerdrop:
                    x = layer(x)
            return x
    """


def test_a_number_drawn_for_training_mode_only_is_advice_and_a_strict_error() -> None:
    """transformers' layerdrop draws on every call, but only training mode reads the number:
    non-strict export keeps every layer, as eager eval does (measured on 2.13); strict export
    refuses the call itself ("Attempted to call function marked as skipped")."""
    finding = only(LAYERDROP)
    assert (finding.code, finding.severity) == ("XPT402", Severity.INFO)
    assert "only training mode reads the number" in finding.message
    [strict] = check_source(textwrap.dedent(LAYERDROP), "model.py", Config(strict=True))
    assert (strict.code, strict.severity) == ("XPT402", Severity.ERROR)


def test_a_drawn_number_an_eval_export_reads_stays_a_warning() -> None:
    finding = only(LAYERDROP.replace("if not self.training or p > self.layerdrop:", "if p > self.layerdrop:"))
    assert (finding.code, finding.severity) == ("XPT402", Severity.WARNING)


HASHING = """
    import torch
    class Hashing(torch.nn.Module):
        def _hash(self, x, mask):
            if mask is not None and mask.sum().item() < x.shape[-1]:
                x = x + 1
            return x
        def _relevant(self, x, mask):
            return self._hash(x, mask)
        def forward(self, x, mask: torch.Tensor | None = None, cache=None):
            if cache is not None:
                return self._relevant(x, mask)
            return self._hash(x, mask)
    """


def test_a_helper_every_caller_passes_an_optional_argument_guards_like_it() -> None:
    """reformer's `_hash_vectors(..., attention_mask)`: no default of its own, but every call
    (directly, or through another helper's parameter) passes `forward`'s `mask=None`, so a
    default export never evaluates `mask.sum().item()`; an export passing a mask fails there."""
    finding = only(HASHING)
    assert (finding.code, finding.severity) == ("XPT104", Severity.WARNING)
    assert "only when `mask` is not None (every call passes it an argument that defaults to None)" in finding.message


def test_a_helper_given_a_filled_in_optional_argument_keeps_its_error() -> None:
    """`if mask is None: mask = ...` before the call: the helper's `mask` is never None."""
    filled = HASHING.replace(
        "return self._hash(x, mask)\n    ", "if mask is None:\n                mask = x > 0\n            return self._hash(x, mask)\n    "
    )
    assert "mask = x > 0" in filled
    found = findings(filled)
    assert [(f.code, f.severity) for f in found] == [("XPT104", Severity.ERROR)]


def test_forwards_first_input_passed_down_is_the_examples() -> None:
    """`forward(self, mask=None, ...)`: its first input is what the example passes, whatever its
    default, so a helper given it keeps its error."""
    first = HASHING.replace("def forward(self, x, mask: torch.Tensor | None = None, cache=None):",
                            "def forward(self, mask: torch.Tensor | None = None, x=None, cache=None):")
    assert "def forward(self, mask" in first
    found = findings(first)
    assert [(f.code, f.severity) for f in found] == [("XPT104", Severity.ERROR)]


def test_a_local_left_none_only_when_an_optional_argument_is_passed_guards_like_it() -> None:
    """timm's NaFlex embedding: `grid_size = None`, set on every path a default export takes
    (the one leaving it None is the `else` of `if coord is None:`), so `if grid_size is not
    None: ... else: <NaFlex>` runs its `else` only when `coord` is passed."""
    finding = only(
        """
        import torch
        class Embed(torch.nn.Module):
            def forward(self, x: torch.Tensor, coord: torch.Tensor | None = None):
                grid_size = None
                if self.linear:
                    if coord is None:
                        grid_size = x.shape[-2:]
                    x = x.flatten(1)
                else:
                    grid_size = x.shape[-2:]
                if grid_size is not None:
                    return x
                else:
                    n = int(coord.max().item())
                    return x[:n]
        """
    )
    assert (finding.code, finding.severity) == ("XPT203", Severity.WARNING)
    assert "only when `coord` is passed" in finding.message


def test_a_local_a_default_path_leaves_none_keeps_its_error() -> None:
    finding = only(
        """
        import torch
        class Embed(torch.nn.Module):
            def forward(self, x: torch.Tensor, coord: torch.Tensor | None = None):
                grid_size = None
                if self.linear:
                    x = x.flatten(1)
                else:
                    grid_size = x.shape[-2:]
                if grid_size is not None:
                    return x
                else:
                    n = int(x.max().item())
                    return x[:n]
        """
    )
    assert (finding.code, finding.severity) == ("XPT203", Severity.ERROR)


def test_a_helper_called_only_under_such_a_parameter_runs_only_when_it_is_passed() -> None:
    """timm's `_forward_embeds(x, patch_coord)`: `if patch_coord is not None:` calls the NaFlex
    grid helper, and every caller passes `forward_features`' `patch_coord=None`."""
    finding = only(
        """
        import torch
        def grid_sizes(coord):
            return [int(h.item()) for h in coord.amax(dim=1)]
        class Model(torch.nn.Module):
            def _embeds(self, x, coord):
                if coord is not None:
                    return x[: grid_sizes(coord)[0]]
                return x
            def forward(self, x: torch.Tensor, coord: torch.Tensor | None = None):
                return self._embeds(x, coord)
        """
    )
    assert (finding.code, finding.severity) == ("XPT203", Severity.WARNING)
    assert "only when `coord` is not None" in finding.message


def test_a_later_line_of_a_loop_body_comes_after_the_first_failing_line() -> None:
    """kimi_k25's frame index: `t, h, w = int(t), int(h), int(w)` fails a non-strict export
    (measured on 2.13: the traceback ends on that line), so `int(t > 1)` on the next line is
    reached only once it is fixed: a warning after it. The three conversions of one line stay
    errors: export stops at the first failing line, and that is the line they share."""
    found = [
        (f.span.start.line, f.severity, f.after)
        for f in findings(
            """
            import torch
            def frame_index(grid_thw):
                parts = []
                for t, h, w in grid_thw.tolist():
                    t, h, w = int(t), int(h), int(w)
                    frames = torch.arange(t) + int(t > 1)
                    parts.append(frames.repeat_interleave(h * w))
                return torch.cat(parts)
            class Frames(torch.nn.Module):
                def forward(self, x, grid_thw):
                    return x + frame_index(grid_thw).sum()
            """
        )
        if f.code == "XPT203"
    ]
    assert found == [(6, Severity.ERROR, None)] * 3 + [(7, Severity.WARNING, 6)]


def test_a_failure_under_a_condition_comes_after_an_earlier_one_on_its_path() -> None:
    """llava_next's `unpad_image` when `pixel_values` is passed: the `if` on the aspect ratios
    fails first, so `int(round(...))` in its body is said to come after it. A plain error never
    comes after a conditional one: the condition may not hold on the default path."""
    found = {
        f.span.start.line: (f.code, f.severity, f.after)
        for f in findings(
            """
            import torch
            class Unpad(torch.nn.Module):
                def forward(self, x, sizes=None):
                    if sizes is not None:
                        height, width = sizes.tolist()
                        if width / height > 1.0:
                            x = x[: int(round(height * 0.5, 7))]
                    if x.sum() > 0:
                        x = x * 2
                    return x
            """
        )
    }
    assert found == {
        7: ("XPT104", Severity.WARNING, None),
        8: ("XPT203", Severity.WARNING, 7),
        9: ("XPT101", Severity.ERROR, None),
    }


def test_a_loop_the_default_configuration_leaves_empty_runs_only_with_another_value() -> None:
    """minicpm's merger: `for i in range(1, self.merger_times):` with `merger_times = 1` in the
    configuration class runs no iteration in a default export (real torch: test_reachability)."""
    finding = only(
        """
        import torch
        class MergerConfig:
            merger_times: int = 1
        class Merger(torch.nn.Module):
            def __init__(self, config: MergerConfig):
                super().__init__()
                self.merger_times = config.merger_times
            def forward(self, x, sizes):
                height = sizes[0]
                for i in range(1, self.merger_times):
                    if height % 2 != 0:
                        raise ValueError("odd")
                    height = height // 2
                return x * 2
        """
    )
    assert (finding.code, finding.severity) == ("XPT101", Severity.WARNING)
    assert "only with a larger `config.merger_times`" in finding.message
    assert "leaves `range(1, self.merger_times)` empty" in finding.message


def test_a_helper_the_default_configuration_also_calls_keeps_its_error() -> None:
    """`top_k` called under `if self.max_keypoints >= 0:` (-1 by default) and once more outside
    it: the default export runs it, so its finding stays an error."""
    found = findings(
        """
        import torch
        class PointConfig:
            max_keypoints: int = -1
        def top_k(keypoints, k: int):
            if k >= len(keypoints):
                return keypoints
            return keypoints[:k]
        class Points(torch.nn.Module):
            def __init__(self, config: PointConfig):
                super().__init__()
                self.max_keypoints = config.max_keypoints
            def forward(self, x):
                keypoints = torch.nonzero(x > 0)
                if self.max_keypoints >= 0:
                    keypoints = top_k(keypoints, self.max_keypoints)
                return top_k(keypoints, 4)
        """
    )
    assert {(f.code, f.severity) for f in found} == {("XPT105", Severity.ERROR), ("XPT203", Severity.ERROR)}


def _severities(code: str) -> list[tuple[int, Severity]]:
    return [(f.span.start.line, f.severity) for f in findings(code)]


SWITCHED_BY_A_HELPER = """
import torch


def _resolve(flag, kind):
    if flag and kind not in ("a", "b"):
        raise ValueError(kind)
    return False if flag is None else flag


class M(torch.nn.Module):
    def __init__(self, kind="a", flag=None):
        super().__init__()
        self.flag = _resolve(flag, kind)
{extra}
    def forward(self, x):
        if self.flag:
            return x[: int(x.argmax())]
        return x
"""


def test_a_switch_a_helper_resolves_on_the_default_is_a_warning_naming_the_argument() -> None:
    finding = only(SWITCHED_BY_A_HELPER.format(extra=""))
    assert finding.severity is Severity.WARNING
    assert "only with another `flag`: `self.flag` is False with `__init__`'s defaults (`flag=None`)" in finding.message


def test_a_switch_another_method_sets_is_no_switch() -> None:
    extra = "\n    def turn_on(self):\n        self.flag = True\n"
    assert only(SWITCHED_BY_A_HELPER.format(extra=extra)).severity is Severity.ERROR


def test_a_switch_a_subclass_sets_is_no_switch() -> None:
    code = SWITCHED_BY_A_HELPER.format(extra="") + (
        "\n\nclass On(M):\n    def __init__(self):\n        super().__init__()\n        self.flag = True\n"
    )
    assert [severity for _, severity in _severities(code)] == [Severity.ERROR]


def test_a_switch_set_in_a_loop_or_on_an_unknown_path_is_no_switch() -> None:
    looped = """
    import torch
    class M(torch.nn.Module):
        def __init__(self, flag=False, names=()):
            super().__init__()
            self.flag = flag
            for name in names:
                self.flag = name == "on"
        def forward(self, x):
            if self.flag:
                return x[: int(x.argmax())]
            return x
    """
    unknown_path = """
    import torch
    class M(torch.nn.Module):
        def __init__(self, flag=False, size=3):
            super().__init__()
            if size > len(self.__class__.__name__):
                flag = True
            self.flag = flag
        def forward(self, x):
            if self.flag:
                return x[: int(x.argmax())]
            return x
    """
    matched = """
    import torch
    class M(torch.nn.Module):
        def __init__(self, mode="a", flag=False):
            super().__init__()
            match mode:
                case "a":
                    flag = True
            self.flag = flag
        def forward(self, x):
            if self.flag:
                return x[: int(x.argmax())]
            return x
    """
    assert only(looped).severity is Severity.ERROR
    assert only(unknown_path).severity is Severity.ERROR
    assert only(matched).severity is Severity.ERROR


def test_a_function_that_is_not_a_guard_decides_nothing() -> None:
    """A function of the file returning a constant reads no export guard: its test is left alone."""
    finding = only(
        """
        import torch
        def enabled():
            return False
        class M(torch.nn.Module):
            def forward(self, x):
                if not enabled():
                    return x[: int(x.argmax())]
                return x
        """
    )
    assert finding.severity is Severity.ERROR


def test_a_switch_names_only_the_arguments_its_value_follows_from() -> None:
    """Checks that raise on other arguments, and an argument filled in on its own path, decide
    nothing about `self.flag`: the condition names `flag` alone."""
    finding = only(
        """
        import torch
        class M(torch.nn.Module):
            def __init__(self, batch="auto", mode=None, flag=False):
                super().__init__()
                if isinstance(batch, str):
                    if batch != "auto":
                        raise ValueError(batch)
                elif batch <= 0:
                    raise ValueError(batch)
                if mode is None:
                    mode = "lm"
                self.mode = mode
                self.flag = bool(flag)
            def forward(self, x):
                if self.flag:
                    return x[: int(x.argmax())]
                return x
        """
    )
    assert finding.severity is Severity.WARNING
    assert "only with another `flag`: `self.flag` is False with `__init__`'s defaults (`flag=False`)" in finding.message


MATCH_EVERYWHERE = '''
import torch
from torch import nn


def pick(x, kind):
    match kind:
        case "a" | "b":
            return x + 1
        case [first, *rest]:
            return x * first
        case _:
            return x


class Big(nn.Module):
    def __init__(self, kind="a"):
        super().__init__()
        match kind:
            case "a":
                self.kind = 0
            case _:
                self.kind = 1
        self.lin = nn.Linear(3, 3)

    def forward(self, x, n):
        match self.kind:
            case 0:
                y = self.lin(x)
            case 1:
                y = x
        match n.item():
            case 3:
                y = y * 2
        for i in range(3):
            match i:
                case 0:
                    if x.max() > 1:
                        y = y + i
        return pick(y, "a")
'''


def test_match_cases_are_blocks_and_a_compared_subject_is_tested() -> None:
    """`match` statements in `__init__`, `forward`, a loop and a helper are analysed like `if`s (they
    once stopped the file's analysis): the subject read from data fails at its first compared `case`,
    the tensor test after it is a warning naming it."""
    for config in (Config(), Config(strict=True)):
        found = [(f.code, f.span.start.line, f.severity) for f in check_source(MATCH_EVERYWHERE, "model.py", config)]
        assert found == [("XPT104", 33, Severity.ERROR), ("XPT101", 38, Severity.WARNING)], found
