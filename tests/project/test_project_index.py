"""What export traces across a project's files: classes whose nn.Module base is in another file,
helpers other modules' `forward` calls, re-exports through `__init__.py`, methods inherited from
a base or a mixin in another file. Every case is linted as a whole project (`check_project`, what
`xport-lint check` runs), from cold and again from the cache."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from xport_lint.analyzers.cache import Cache
from xport_lint.analyzers.config import Config
from xport_lint.analyzers.files import discover
from xport_lint.analyzers.index import ProjectIndex, module_name
from xport_lint.analyzers.model import Finding
from xport_lint.analyzers.project import check_project
from xport_lint.analyzers.runner import check_file
from xport_lint.analyzers.shapes import DimKind, DimSpec


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def lint(root: Path, cache: Cache | None = None, config: Config | None = None) -> dict[str, list[Finding]]:
    files = discover([str(root)], ())
    checked = check_project(files, config or Config(), cache, jobs=1)
    return {Path(r.path).relative_to(root).as_posix(): r.findings for r in checked.results if r.findings}


def lines(findings: dict[str, list[Finding]], name: str, code: str = "XPT101") -> list[int]:
    return [f.span.start.line for f in findings.get(name, []) if f.code == code]


PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/ops/__init__.py": "from .boxes import keep_positive\n",
    # no `forward`, `export` or `compile` anywhere in this file: it is still indexed
    "pkg/ops/boxes.py": """
        import torch


        def keep_positive(boxes):
            if boxes.sum() > 0:  # line 5
                return boxes
            return _flip(boxes)


        def _flip(boxes):
            if boxes.max() > 1:  # line 11
                return -boxes
            return boxes


        def never_called(boxes):
            if boxes.sum() > 0:  # line 17: no traced code calls this
                return boxes
            return boxes
    """,
    "pkg/models/__init__.py": "",
    "pkg/models/base.py": """
        from torch import nn


        class FooPreTrainedModel(nn.Module):
            def _scale(self, x):
                if x.max() > 1:  # line 6
                    return x
                return x * 2

            def unused(self, x):
                if x.max() > 1:  # line 11: no traced code calls this
                    return x
                return x


        class GateMixin:
            def gate(self, x):
                if x.mean() > 0:  # line 18
                    return x
                return -x
    """,
    "pkg/models/foo.py": """
        from ..ops import keep_positive
        from .base import FooPreTrainedModel, GateMixin


        class FooModel(FooPreTrainedModel, GateMixin):
            def forward(self, x):
                x = self._scale(x)
                x = self.gate(x)
                return keep_positive(x)
    """,
}


def test_helpers_in_other_files_are_analysed_when_traced_code_calls_them(tmp_path: Path) -> None:
    write(tmp_path, PACKAGE)
    findings = lint(tmp_path)
    assert lines(findings, "pkg/ops/boxes.py") == [5, 11]  # through the re-export in ops/__init__.py
    assert lines(findings, "pkg/models/base.py") == [6, 18]  # a base's method; a mixin's method
    assert "pkg/models/foo.py" not in findings


def test_a_finding_in_a_helper_names_the_entry_point_that_reaches_it(tmp_path: Path) -> None:
    write(tmp_path, PACKAGE)
    findings = lint(tmp_path)
    flip = next(f for f in findings["pkg/ops/boxes.py"] if f.span.start.line == 11)
    (note,) = [r for r in flip.related if r.path is not None]
    assert note.message == "traced: reached from `FooModel.forward` via `keep_positive`"
    assert Path(note.path).name == "foo.py" and note.span.start.line == 6  # the def of FooModel.forward


def test_the_cache_gives_the_same_findings_as_a_cold_run(tmp_path: Path) -> None:
    project = tmp_path / "project"
    write(project, PACKAGE)
    cache = Cache(tmp_path / "cache")
    cold = lint(project, cache)
    cache.save()
    assert lint(project, Cache(tmp_path / "cache")) == cold


def test_a_class_whose_module_base_is_in_another_file_is_a_module(tmp_path: Path) -> None:
    """`class FooModel(FooPreTrainedModel)` without a `forward` of its own: its inherited forward
    runs `self.score`, which FooModel overrides."""
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/base.py": """
            from torch import nn


            class Base(nn.Module):
                def forward(self, x):
                    return self.score(x)

                def score(self, x):
                    return x
        """,
        "pkg/foo.py": """
            from .base import Base


            class FooModel(Base):
                def score(self, x):
                    if x.sum() > 0:  # line 6
                        return x
                    return -x


            class NotAModule:
                def score(self, x):
                    if x.sum() > 0:
                        return x
                    return -x
        """,
    })
    findings = lint(tmp_path)
    assert lines(findings, "pkg/foo.py") == [6]


def test_super_calls_reach_the_base_in_another_file(tmp_path: Path) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/base.py": """
            class Mixin:
                def forward(self, x):
                    if x.sum() > 0:  # line 3
                        return x
                    return -x
        """,
        "pkg/foo.py": """
            from torch import nn
            from .base import Mixin


            class Foo(Mixin, nn.Module):
                def forward(self, x):
                    return super().forward(x) + 1
        """,
    })
    assert lines(lint(tmp_path), "pkg/base.py") == [3]


def test_module_level_imports_of_a_module_reach_its_functions(tmp_path: Path) -> None:
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/utils.py": """
            def check(x):
                if x.sum() > 0:  # line 2
                    raise ValueError("positive")
                return x
        """,
        "pkg/model.py": """
            import torch
            from pkg import utils


            class M(torch.nn.Module):
                def forward(self, x):
                    return utils.check(x)
        """,
    })
    assert lines(lint(tmp_path), "pkg/utils.py", "XPT101") == [2]


def test_files_not_reached_by_traced_code_stay_quiet(tmp_path: Path) -> None:
    write(tmp_path, {
        "train.py": """
            from model import helper


            def train(x):
                return helper(x)
        """,
        "model.py": """
            def helper(x):
                if x.sum() > 0:
                    return x
                return -x
        """,
    })
    assert lint(tmp_path) == {}


@pytest.mark.parametrize(("path", "expected"), [
    ("pkg/models/foo.py", ("pkg.models.foo", False)),
    ("pkg/models/__init__.py", ("pkg.models", True)),
    ("script.py", ("script", False)),
])
def test_module_names_follow_the_package_folders(tmp_path: Path, path: str, expected: tuple[str, bool]) -> None:
    write(tmp_path, PACKAGE | {"script.py": ""})
    assert module_name(str(tmp_path / path)) == expected


def test_the_index_resolves_relative_imports_and_reexports(tmp_path: Path) -> None:
    write(tmp_path, PACKAGE)
    files = discover([str(tmp_path)], ())
    summaries = {p: s for p in files if (s := check_file(Path(p).read_text(), p).summary) is not None}
    index = ProjectIndex(files, summaries)
    assert summaries[str(tmp_path / "pkg/models/foo.py")].imports["keep_positive"] == "pkg.ops.keep_positive"
    assert index.lookup("pkg.ops.keep_positive") == ("pkg.ops.boxes", "keep_positive")
    assert index.is_module_class(("pkg.models.foo", "FooModel"))
    assert not index.is_module_class(("pkg.models.base", "GateMixin"))


def test_a_static_helper_binds_its_arguments_from_the_first(tmp_path: Path) -> None:
    """big_bird's `self._get_rand_attn_plan(from_seq_length, ...)`, a staticmethod called with
    sizes: its first parameter is the first argument, not `self`."""
    write(tmp_path, {"m.py": """
        import torch


        class M(torch.nn.Module):
            def forward(self, x):
                n = self._plan(x.shape[0], 4)
                return x[:n]

            @staticmethod
            def _plan(length, block):
                if length // block > 2:
                    return length
                return block
    """})
    dynamic = Config(shapes="dynamic")  # every input dimension Dim.AUTO
    assert [f.severity.value for fs in lint(tmp_path, config=dynamic).values() for f in fs] == ["warning"]  # XPT301


def test_transformers_tracing_guards_are_true_while_exporting(tmp_path: Path) -> None:
    """transformers' `is_tracing()` wraps `torch.compiler.is_compiling()` (True under export in both
    modes): `if not is_tracing(m) and (m[:, -1] == 0).all():` never evaluates its right side."""
    write(tmp_path, {
        "transformers/__init__.py": "",
        "transformers/utils/__init__.py": "from .import_utils import is_tracing\n",
        "transformers/utils/import_utils.py": """
            def is_tracing(tensor=None) -> bool:
                import torch

                return torch.compiler.is_compiling()
        """,
        "transformers/masking_utils.py": """
            import torch
            from torch import nn

            from .utils import is_tracing


            class Mask(nn.Module):
                def forward(self, mask):
                    if not is_tracing(mask) and (mask[:, -1] == 0).all():
                        return None
                    if is_tracing(mask):
                        return mask
                    if mask.sum() > 0:
                        return mask
                    return -mask
        """,
    })
    assert lint(tmp_path) == {}


VENDORED = {
    "vendor/layers/__init__.py": "",
    "vendor/layers/base.py": """
        from torch import nn


        class Block(nn.Module):
            def forward(self, x):
                return self.gate(x)

            def gate(self, x):
                if x.sum() > 0:  # line 9: reached from the app's model
                    return x
                return -x


        class Other(nn.Module):
            def forward(self, x):
                if x.sum() > 0:  # line 16: nothing of the app reaches it
                    return x
                return -x
    """,
    "app/model.py": """
        from layers.base import Block


        class Model(Block):
            def gate(self, x):
                return x * 2
    """,
    "app/run.py": """
        from layers.base import Block


        class Uses(Block):
            pass
    """,
}


def test_followed_code_is_reported_only_where_the_linted_code_reaches_it(tmp_path: Path) -> None:
    """`follow = ["../vendor"]`: the library's files join the project index; its `Block.forward`
    runs for the app's `Uses` (which inherits it) and calls `Block.gate`."""
    write(tmp_path, VENDORED)
    app = tmp_path / "app"
    files = discover([str(app)], ())
    plain = check_project(files, Config(), None, jobs=1)
    assert all(not r.findings for r in plain.results)
    config = Config(follow=("../vendor",), root=app)
    followed = check_project(files, config, None, jobs=1)
    reported = {Path(r.path).name: [f.span.start.line for f in r.findings] for r in followed.results if r.findings}
    assert reported == {"base.py": [9]}
    (gate,) = next(r.findings for r in followed.results if r.path.endswith("base.py"))
    assert [n.message for n in gate.related] == ["traced: reached from `Uses.forward`"]


@pytest.mark.parametrize(("value", "error"), [
    (["missing"], "follow: missing: no such folder"),
    ("vendor", "follow: expected a list of folders"),
    (["/"], "follow: /: the filesystem root or the home folder"),
])
def test_follow_is_validated(tmp_path: Path, value: object, error: str) -> None:
    from xport_lint.analyzers.config import ConfigError

    with pytest.raises(ConfigError, match=error):
        Config.from_table({"follow": value}, root=tmp_path)


def test_transformers_experts_loops_warn_that_only_the_eager_implementation_runs_them(tmp_path: Path) -> None:
    """`@use_experts_implementation` swaps `forward` for the kernel the config names; the default
    (`grouped_mm`) is not the loop (bench/zoo.py: Mixtral and Qwen2-MoE export, the loop's lines
    never run)."""
    write(tmp_path, {
        "transformers/__init__.py": "",
        "transformers/integrations/__init__.py": "def use_experts_implementation(cls):\n    return cls\n",
        "transformers/models/__init__.py": "",
        "transformers/models/moe.py": """
            import torch
            from torch import nn

            from ..integrations import use_experts_implementation


            @use_experts_implementation
            class Experts(nn.Module):
                def forward(self, hidden, top_k_index):
                    hit = torch.greater(top_k_index.sum(dim=-1), 0).nonzero()
                    for expert_idx in hit:  # line 11
                        hidden = hidden + expert_idx
                    return hidden
        """,
    })
    (finding,) = lint(tmp_path)["transformers/models/moe.py"]
    assert finding.span.start.line == 11 and finding.severity.value == "warning"
    assert 'only with `experts_implementation="eager"`' in finding.message


def test_a_helper_argument_is_a_tensor_only_where_its_body_uses_one(tmp_path: Path) -> None:
    """A helper another file calls holds what its call sites pass: `num_frames` is `x.shape[0]`,
    a size (compared, never used as a tensor), not tensor data; `x` is a tensor."""
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/helpers.py": """
            def frames(num_frames, x):
                if num_frames <= 0:
                    return x
                if x.sum() > 0:  # line 4
                    return x
                return -x
        """,
        "pkg/model.py": """
            import torch
            from .helpers import frames


            class M(torch.nn.Module):
                def forward(self, x):
                    return frames(x.shape[0], x)
        """,
    })
    assert lines(lint(tmp_path), "pkg/helpers.py") == [4]


def test_declared_flags_are_python_values_whatever_the_caller_passes(tmp_path: Path) -> None:
    """fastspeech2's `output_attentions: torch.Tensor | None = False` defaults to a bool;
    granitemoehybrid's `return_final_states: bool = False` is a bool a caller passes on."""
    write(tmp_path, {"m.py": """
        import torch


        def scan(x, return_final_states: bool = False):
            if return_final_states:
                return x, x
            return x


        class M(torch.nn.Module):
            def forward(self, x, output_attentions: torch.Tensor | None = False):
                if output_attentions:
                    return x
                return scan(x, return_final_states=x.sum())
    """})
    assert lint(tmp_path) == {}


def test_a_helper_in_another_file_asking_the_device_namespaces_returns_a_python_bool(tmp_path: Path) -> None:
    """vit-pytorch's `flex_attention_supported(x.device)`, in another file, asks `torch.xpu` and
    `torch.cpu` what the machine has: Python bools, as `torch.cuda.is_available()` is."""
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/masking.py": """
            import torch


            def supported(device) -> bool:
                if torch.device(device).type == "cuda":
                    return True
                return not torch.xpu.is_available() and torch.cpu._is_avx2_supported() and torch.mps.is_available()
        """,
        "pkg/model.py": """
            import torch

            from pkg.masking import supported


            class M(torch.nn.Module):
                def forward(self, x):
                    if supported(x.device):
                        return x + 1
                    return x
        """,
    })
    assert lint(tmp_path) == {}


SHAPES_PROJECT = {
    "pkg/__init__.py": "",
    "pkg/model.py": """
        import torch


        class Decoder(torch.nn.Module):
            def forward(self, hidden):
                if hidden.shape[1] > 4:
                    return hidden * 0.5
                return hidden.cumsum(1)
    """,
}


@pytest.mark.parametrize(
    ("declared", "expected"),
    [
        (None, []),  # no export declares anything: static shapes, nothing to report
        ('{"hidden": None}', []),
        ('{"hidden": {1: Dim.AUTO}}', ["warning"]),
        ('{"hidden": {1: Dim("seq")}}', ["error"]),  # the test splits the declared range
        ('{"hidden": {1: Dim("seq", max=4)}}', []),  # the range decides the test
    ],
)
def test_an_export_script_in_another_file_sets_the_shape_severity(
    tmp_path: Path, declared: str | None, expected: list[str]
) -> None:
    files = dict(SHAPES_PROJECT)
    if declared is not None:
        files["scripts/export_decoder.py"] = f"""
            import torch
            from torch.export import Dim

            from pkg.model import Decoder

            model = Decoder().eval()
            torch.export.export(model, (torch.randn(2, 3, 8),), dynamic_shapes={declared})
        """
    write(tmp_path, files)
    found = lint(tmp_path).get("pkg/model.py", [])
    assert [f.severity.value for f in found if f.code == "XPT301"] == expected
    if expected:
        assert "export_decoder" in found[0].message  # says which export made the size dynamic


def test_pyproject_declares_dynamic_shapes_per_model(tmp_path: Path) -> None:
    write(tmp_path, SHAPES_PROJECT)
    table = {"pkg.model.Decoder": (("hidden", ((1, DimSpec(DimKind.NAMED, "seq")),)),)}
    found = lint(tmp_path, config=Config(dynamic_shapes=table))["pkg/model.py"]
    assert [(f.code, f.severity.value) for f in found] == [("XPT301", "error")]
    assert "[tool.xport-lint.dynamic-shapes]" in found[0].message
    everything_auto = lint(tmp_path, config=Config(shapes="dynamic"))["pkg/model.py"]
    assert [(f.code, f.severity.value) for f in everything_auto] == [("XPT301", "warning")]


def test_pyproject_dynamic_shapes_table_is_read_from_toml(tmp_path: Path) -> None:
    write(tmp_path, {**SHAPES_PROJECT, "pyproject.toml": """
        [tool.xport-lint]
        shapes = "static"

        [tool.xport-lint.dynamic-shapes."pkg.model.Decoder"]
        hidden = { 0 = "batch", 1 = { name = "seq", min = 2, max = 4 } }
    """})
    config = Config.load(tmp_path / "pyproject.toml")
    (entry,) = config.dynamic_shapes["pkg.model.Decoder"]
    assert entry == ("hidden", ((0, DimSpec(DimKind.NAMED, "batch")), (1, DimSpec(DimKind.NAMED, "seq", 2, 4))))
    assert lint(tmp_path, config=config).get("pkg/model.py") is None  # max=4 decides `> 4`


@pytest.mark.parametrize(("table", "error"), [
    ({"shapes": "auto"}, 'shapes: expected "static"'),
    ({"dynamic-shapes": {"M": {"x": {"one": "seq"}}}}, "dimension 'one' is not a number"),
    ({"dynamic-shapes": {"M": {"x": {"0": 3}}}}, 'dynamic-shapes."M".x.0: 3 is not "static"'),
    ({"dynamic-shapes": {"M": {"x": {"0": {"name": "s", "min": -1}}}}}, "is not"),
    ({"dynamic-shapes": {"M": "x"}}, "expected a table of inputs"),
])
def test_dynamic_shapes_settings_are_validated(table: dict[str, object], error: str) -> None:
    from xport_lint.analyzers.config import ConfigError

    with pytest.raises(ConfigError, match=error):
        Config.from_table(table)


CALLED_FROM_ANOTHER_FILE = {
    "ops.py": """
        def helper(n):
            if n > 0:  # line 2
                return n
            return -n


        def count(n: int):
            if n > 0:  # line 8: declared a Python number, whatever a caller passes
                return n
            return -n
    """,
    "model.py": """
        from torch import nn

        from ops import count, helper


        class Model(nn.Module):
            def forward(self, x):
                return helper(x.sum()), count(x.sum())
    """,
}


def test_a_tensor_passed_from_another_file_makes_the_parameter_a_tensor(tmp_path: Path) -> None:
    """What a call site passes binds a helper's parameter whether the helper is in the caller's
    file or in another one: moving `helper` to `ops.py` keeps its finding."""
    write(tmp_path, CALLED_FROM_ANOTHER_FILE)
    across = lint(tmp_path)
    assert [(f.code, f.span.start.line) for f in across["ops.py"]] == [("XPT101", 2)]
    assert "model.py" not in across
    in_one_file = tmp_path / "together"
    ops, model = (textwrap.dedent(CALLED_FROM_ANOTHER_FILE[n]).lstrip("\n") for n in ("ops.py", "model.py"))
    write(in_one_file, {"together.py": model.replace("from ops import count, helper\n", "") + "\n\n" + ops})
    assert [(f.code, f.message) for f in lint(in_one_file)["together.py"]] == [
        (f.code, f.message) for f in across["ops.py"]
    ]


def test_the_index_tells_each_file_the_same_whatever_the_order_of_the_paths(tmp_path: Path) -> None:
    """Which caller a helper is reached from, what is passed to it and which classes are modules
    come from the summaries, not from the order the files were listed in."""
    write(tmp_path, {**PACKAGE, "pkg/models/bar.py": """
        from ..ops.boxes import keep_positive
        from .base import FooPreTrainedModel


        class BarModel(FooPreTrainedModel):
            def forward(self, x):
                return keep_positive(x[x > 0])
    """})
    files = discover([str(tmp_path)], ())
    summaries = check_project(files, Config(), None, jobs=1).summaries
    orders = [files[i:] + files[:i] for i in range(len(files))]
    orders += [list(reversed(order)) for order in orders]
    contexts = [{path: ProjectIndex(order, summaries).context(path) for path in files} for order in orders]
    assert all(found == contexts[0] for found in contexts)
    boxes = contexts[0][str(tmp_path / "pkg/ops/boxes.py")]
    assert dict(boxes.arguments)["keep_positive"] == (("0", "dd"),)  # BarModel's filtered boxes
    assert [(name, reach.describe()) for name, reach in boxes.entries] == [
        ("keep_positive", "traced: reached from `BarModel.forward`")
    ]
