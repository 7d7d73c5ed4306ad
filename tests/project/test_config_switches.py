"""A branch on a configuration switch whose default lives in another file's config class.

transformers' layout: `configuration_x.py` holds `XConfig` with the switch's default
(`enable_fusion=False`, or a dataclass-style `enable_fusion: bool = False`), `modeling_x.py`
copies it in `__init__` (`self.enable_fusion = config.enable_fusion`) and branches on it in
`forward`. A default export never takes the branch the default rules out, so what fails there is
a warning naming the switch; the branch the default takes is judged as any other code (an
error). The default is read from the config file's text through the project index, never by
importing it, and the findings are the same whichever order the files are named in.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from xport_lint.analyzers.config import Config
from xport_lint.analyzers.workspace import Workspace

CONFIG_INIT = """
    class XConfig:
        def __init__(self, hidden_size=8, enable_fusion={default}):
            self.hidden_size = hidden_size
            self.enable_fusion = enable_fusion
"""

CONFIG_FIELDS = """
    from dataclasses import dataclass


    @dataclass
    class XConfig:
        hidden_size: int = 8
        enable_fusion: bool = {default}
"""

MODEL = """
    from torch import nn

    from .configuration_x import XConfig


    class Fusion(nn.Module):
        def __init__(self, config: XConfig):
            super().__init__()
            self.enable_fusion = config.enable_fusion
            self.proj = nn.Linear(config.hidden_size, config.hidden_size)

        def forward(self, x):
            if self.enable_fusion:
                if x.sum() > 0:  # line 14: fails an export that takes the fusion branch
                    x = x * 2
            else:
                if x.max() > 1:  # line 17: fails an export that skips it
                    x = x / 2
            return self.proj(x)
"""

#: the config class named by an unannotated `config` (ClapAudioEncoder's `__init__(self, config)`)
MODEL_UNANNOTATED = MODEL.replace("config: XConfig", "config")


def write_project(root: Path, config: str, default: str, model: str = MODEL) -> list[str]:
    files = {
        "pkg/__init__.py": "",
        "pkg/configuration_x.py": textwrap.dedent(config.format(default=default)).lstrip("\n"),
        "pkg/modeling_x.py": textwrap.dedent(model).lstrip("\n"),
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return sorted(files)


def xport_lint(*args: str, cwd: Path, cache: Path | None = None) -> list[tuple[str, str, int, str, str]]:
    """(file, code, line, severity, message) of each finding of a real `xport-lint check`
    (with the findings cache in `cache`, else none)."""
    exe = shutil.which("xport-lint", path=str(Path(sys.executable).parent)) or "xport-lint"
    caching = ["--cache-dir", str(cache)] if cache is not None else ["--no-cache"]
    result = subprocess.run(
        [exe, "check", *caching, "--format", "json", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert result.returncode in (0, 1), result.stderr
    return sorted(
        (f["filename"], f["code"], f["location"]["row"], f["severity"], f["message"])
        for f in json.loads(result.stdout)
    )


SWITCH_ON = "only with `config.enable_fusion=True`: the default configuration (`XConfig`) sets it to False"
SWITCH_OFF = "only with `config.enable_fusion=False`: the default configuration (`XConfig`) sets it to True"


@pytest.mark.parametrize("config", [CONFIG_INIT, CONFIG_FIELDS], ids=["init-parameter", "dataclass-field"])
def test_the_branch_the_default_never_takes_is_a_warning_naming_the_switch(tmp_path: Path, config: str) -> None:
    write_project(tmp_path, config, "False")
    found = xport_lint(".", cwd=tmp_path)
    assert [(line, severity) for _, _, line, severity, _ in found] == [(14, "warning"), (17, "error")]
    assert SWITCH_ON in found[0][4]
    assert "config.enable_fusion" not in found[1][4]


@pytest.mark.parametrize("config", [CONFIG_INIT, CONFIG_FIELDS], ids=["init-parameter", "dataclass-field"])
def test_flipping_the_default_flips_which_branch_is_an_error(tmp_path: Path, config: str) -> None:
    write_project(tmp_path, config, "True")
    found = xport_lint(".", cwd=tmp_path)
    assert [(line, severity) for _, _, line, severity, _ in found] == [(14, "error"), (17, "warning")]
    assert "config.enable_fusion" not in found[0][4]
    assert SWITCH_OFF in found[1][4]


def test_editing_only_the_config_file_changes_the_model_file_findings_from_the_cache(tmp_path: Path) -> None:
    project, cache = tmp_path / "project", tmp_path / "cache"
    write_project(project, CONFIG_INIT, "False")
    first = xport_lint(".", cwd=project, cache=cache)
    write_project(project, CONFIG_INIT, "True")
    second = xport_lint(".", cwd=project, cache=cache)
    assert [(line, severity) for _, _, line, severity, _ in first] == [(14, "warning"), (17, "error")]
    assert [(line, severity) for _, _, line, severity, _ in second] == [(14, "error"), (17, "warning")]


def test_an_unannotated_config_reads_the_default_of_the_config_classes_the_file_imports(tmp_path: Path) -> None:
    write_project(tmp_path, CONFIG_INIT, "False", MODEL_UNANNOTATED)
    found = xport_lint(".", cwd=tmp_path)
    assert [(line, severity) for _, _, line, severity, _ in found] == [(14, "warning"), (17, "error")]


def test_without_the_config_file_the_default_is_unknown_and_both_branches_are_errors(tmp_path: Path) -> None:
    write_project(tmp_path, CONFIG_INIT, "False")
    found = xport_lint("pkg/modeling_x.py", cwd=tmp_path)
    assert [(line, severity) for _, _, line, severity, _ in found] == [(14, "error"), (17, "error")]


def test_a_switch_init_sets_again_is_not_the_config_default(tmp_path: Path) -> None:
    sets_again = "if config.hidden_size > 4:\n" + " " * 16 + "self.enable_fusion = True\n" + " " * 12 + "self.proj ="
    write_project(tmp_path, CONFIG_INIT, "False", MODEL.replace("self.proj =", sets_again))
    found = xport_lint(".", cwd=tmp_path)
    assert [(line, severity) for _, _, line, severity, _ in found] == [(16, "error"), (19, "error")]


def test_a_config_annotated_with_an_unknown_class_has_no_known_default(tmp_path: Path) -> None:
    write_project(tmp_path, CONFIG_INIT, "False", MODEL.replace("config: XConfig", 'config: "BaseConfig"'))
    found = xport_lint(".", cwd=tmp_path)
    assert [(line, severity) for _, _, line, severity, _ in found] == [(14, "error"), (17, "error")]


def test_a_default_that_is_not_a_bool_is_judged_by_its_truth(tmp_path: Path) -> None:
    write_project(tmp_path, CONFIG_FIELDS, "None")
    found = xport_lint(".", cwd=tmp_path)
    assert [(line, severity) for _, _, line, severity, _ in found] == [(14, "warning"), (17, "error")]
    assert "only with a true `config.enable_fusion`: the default configuration (`XConfig`) sets it to None" in (
        found[0][4]
    )


def test_a_default_that_is_not_a_literal_is_unknown(tmp_path: Path) -> None:
    write_project(tmp_path, CONFIG_INIT, "bool(0)")
    found = xport_lint(".", cwd=tmp_path)
    assert [(line, severity) for _, _, line, severity, _ in found] == [(14, "error"), (17, "error")]


def test_findings_do_not_depend_on_the_order_of_files(tmp_path: Path) -> None:
    names = write_project(tmp_path, CONFIG_FIELDS, "False")
    outputs = [xport_lint(*order, cwd=tmp_path) for order in itertools.permutations(names)]
    assert [(line, severity) for _, _, line, severity, _ in outputs[0]] == [(14, "warning"), (17, "error")]
    assert all(found == outputs[0] for found in outputs), outputs


def test_an_edit_of_the_open_config_document_rechecks_the_model_file(tmp_path: Path) -> None:
    """The server's path: the workspace re-indexes after the edit and names the model file."""
    names = write_project(tmp_path, CONFIG_INIT, "False")
    config_file, model_file = (str(tmp_path / name) for name in ("pkg/configuration_x.py", "pkg/modeling_x.py"))
    workspace = Workspace.for_paths([str(tmp_path / name) for name in names], Config(), None, 1)
    before = {r.path: r.findings for r in workspace.check_all().results}[model_file]
    flipped = Path(config_file).read_text().replace("enable_fusion=False", "enable_fusion=True")
    workspace.update(config_file, flipped)
    assert workspace.reindex() == [model_file]
    after, _ = workspace.update(model_file, Path(model_file).read_text())
    assert [(f.span.start.line, f.severity.value) for f in before] == [(14, "warning"), (17, "error")]
    assert [(f.span.start.line, f.severity.value) for f in after.findings] == [(14, "error"), (17, "warning")]


#: transformers' other spelling: the module keeps the config and branches on its field
#: (`if self.config.use_weighted_layer_sum:`), `self.config` stored by `__init__` or a library base
MODEL_READS_CONFIG = MODEL.replace("self.enable_fusion = config.enable_fusion", "self.config = config").replace(
    "if self.enable_fusion:", "if self.config.enable_fusion:"
)


def test_a_field_read_through_self_config_is_a_switch(tmp_path: Path) -> None:
    write_project(tmp_path, CONFIG_FIELDS, "False", MODEL_READS_CONFIG)
    found = xport_lint(".", cwd=tmp_path)
    assert [(line, severity) for _, _, line, severity, _ in found] == [(14, "warning"), (17, "error")]
    assert SWITCH_ON in found[0][4]


def test_self_config_set_to_something_else_is_not_the_config(tmp_path: Path) -> None:
    """`self.config = config.text_config`: the field's default is another class's, not known here."""
    model = MODEL_READS_CONFIG.replace("self.config = config", "self.config = config.text_config")
    write_project(tmp_path, CONFIG_FIELDS, "False", model)
    found = xport_lint(".", cwd=tmp_path)
    assert [(line, severity) for _, _, line, severity, _ in found] == [(14, "error"), (17, "error")]
