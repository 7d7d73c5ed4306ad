"""Jupyter notebooks, linted by the real CLI as ruff lints them: the code cells as one module
(a model in one cell reaches its helper in another), IPython magics left out, findings at
`notebook.ipynb:cell N:line:col`, fixes written into the code cells' `source` only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.test_cli import BAD, run
from xport_lint.analyzers.files import read, write_back

HELPER_CELL = ["%matplotlib inline\n", "import torch\n", "\n", "def keep_positive(x):\n",
               "    if x.sum() > 0:\n", "        return x\n", "    return -x"]
MODEL_CELL = [
    "class Model(torch.nn.Module):\n",
    "    def forward(self, x):\n",
    "        !nvidia-smi\n",
    "        assert (x > 0).all()\n",
    "        return keep_positive(x)\n",
]
OUTPUTS = [{"name": "stdout", "output_type": "stream", "text": ["tensor([1.])\n", "naïve ✓\n"]}]


def notebook(*cells: dict[str, Any]) -> dict[str, Any]:
    return {
        "cells": list(cells),
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python", "version": "3.11.7"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def code(source: list[str] | str, outputs: list[Any] | None = None, count: int | None = None) -> dict[str, Any]:
    # "source" before "outputs": not the order Jupyter sorts keys into, so a rewrite that sorted them shows
    return {"cell_type": "code", "execution_count": count, "id": f"c{count}", "metadata": {"tags": ["model"]},
            "source": source, "outputs": outputs or []}


def markdown(text: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "id": "md", "metadata": {}, "source": [text]}


def write(path: Path, data: dict[str, Any]) -> bytes:
    """As Jupyter saves: one-space indent, non-ASCII as itself, a final newline."""
    raw = (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode()
    path.write_bytes(raw)
    return raw


def model_notebook() -> dict[str, Any]:
    """Cell 1 markdown, cell 2 the helper, cell 3 markdown, cell 4 the model, cell 5 a shell cell."""
    return notebook(
        markdown("# A model"),
        code(HELPER_CELL, count=1),
        markdown("The model uses the helper above."),
        code(MODEL_CELL, OUTPUTS, count=2),
        code("%%bash\nfor f in *.pt; do echo $f; done\n", count=3),
    )


def test_findings_are_reported_by_cell_and_line_in_the_cell(tmp_path: Path) -> None:
    write(tmp_path / "model.ipynb", model_notebook())
    result = run("check", "--no-cache", "model.ipynb", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "model.ipynb:cell 4:4:16: XPT103" in result.stdout
    # the snippet shows the cell's own line number
    assert "4 |         assert (x > 0).all()" in result.stdout


def test_a_helper_in_another_cell_is_traced_from_the_model_that_calls_it(tmp_path: Path) -> None:
    write(tmp_path / "model.ipynb", model_notebook())
    result = run("check", "--no-cache", "model.ipynb", cwd=tmp_path)
    assert "model.ipynb:cell 2:5:8: XPT101" in result.stdout, result.stdout
    # without the model cell, nothing traces the helper: nothing to report
    write(tmp_path / "helper_only.ipynb", notebook(code(HELPER_CELL, count=1)))
    alone = run("check", "--no-cache", "helper_only.ipynb", cwd=tmp_path)
    assert alone.returncode == 0 and "All checks passed!" in alone.stdout, alone.stdout


def test_json_rows_are_relative_to_the_cell_named_by_cell(tmp_path: Path) -> None:
    write(tmp_path / "model.ipynb", model_notebook())
    (tmp_path / "bad.py").write_text(BAD)
    items = json.loads(run("check", "--no-cache", "--format", "json", ".", cwd=tmp_path).stdout)
    by_code = {(item["filename"], item["code"]): item for item in items}
    branch = by_code[("model.ipynb", "XPT101")]
    assert branch["cell"] == 2 and branch["location"] == {"row": 5, "column": 8}
    assert branch["end_location"]["row"] == 5
    assert branch["fix"]["edits"][0]["location"]["row"] == 5  # edits are in the cell's rows too
    assert by_code[("model.ipynb", "XPT103")]["cell"] == 4
    assert by_code[("model.ipynb", "XPT103")]["location"] == {"row": 4, "column": 16}
    assert by_code[("bad.py", "XPT101")]["cell"] is None  # a .py file has no cell (ruff's null)


def test_magics_shell_escapes_and_foreign_cell_magics_are_not_python_errors(tmp_path: Path) -> None:
    write(tmp_path / "magic.ipynb", notebook(
        code(["%load_ext autoreload\n", "%autoreload 2\n", "!pip install einops\n", "files = !ls\n",
              "import torch\n", "torch.nn.Module?\n"], count=1),
        code("%%bash\nif [ -d data ]; then echo yes; fi\n", count=2),
        # Python lines that only look like magics: inside brackets, a string, after a backslash
        code('label = ("%d items"\n         % 3)\ndoc = """\n!not a shell command\n"""\n'
             "same = 1 \\\n    != 2\n", count=4),
        code("%%time\nclass Fine(torch.nn.Module):\n    def forward(self, x):\n        %time y = x * 2\n"
             "        return y\n", count=3),
    ))
    result = run("check", "--no-cache", "magic.ipynb", cwd=tmp_path)
    assert result.returncode == 0 and "All checks passed!" in result.stdout, result.stdout + result.stderr


def test_a_bad_notebook_is_one_message_and_the_other_files_are_still_reported(tmp_path: Path) -> None:
    (tmp_path / "broken.ipynb").write_text('{"cells": [')
    write(tmp_path / "old.ipynb", {"nbformat": 3, "worksheets": [], "cells": [], "metadata": {}})
    (tmp_path / "bad.py").write_text(BAD)
    write(tmp_path / "model.ipynb", model_notebook())
    result = run("check", "--no-cache", ".", cwd=tmp_path)
    # a file that cannot be parsed is an XPT000 finding, as a .py syntax error is: exit 1
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stdout.count("broken.ipynb") == 1
    assert "broken.ipynb:1:1: XPT000 cannot parse: not a notebook: invalid JSON" in result.stdout
    assert "old.ipynb:1:1: XPT000 cannot parse: not an nbformat 4 notebook (nbformat: 3)" in result.stdout
    assert "bad.py:4:12: XPT101" in result.stdout and "model.ipynb:cell 4:4:16: XPT103" in result.stdout


def test_discovery_takes_notebooks_and_respects_exclude(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.xport-lint]\nexclude = ["scratch/"]\n')
    (tmp_path / "scratch").mkdir()
    write(tmp_path / "scratch" / "draft.ipynb", model_notebook())
    write(tmp_path / "model.ipynb", model_notebook())
    result = run("check", "--no-cache", ".", cwd=tmp_path)
    assert "model.ipynb:cell 4" in result.stdout and "draft.ipynb" not in result.stdout


def test_fix_rewrites_only_the_code_cells_source_and_is_idempotent(tmp_path: Path) -> None:
    original = model_notebook()
    raw = write(tmp_path / "model.ipynb", original)
    result = run("check", "--no-cache", "--fix", "--unsafe-fixes", "model.ipynb", cwd=tmp_path)
    assert result.returncode == 0 and "All checks passed!" in result.stdout, result.stdout + result.stderr
    fixed_raw = (tmp_path / "model.ipynb").read_bytes()
    fixed = json.loads(fixed_raw)
    assert fixed["nbformat"] == 4 and isinstance(fixed["cells"], list)
    # everything but the two fixed cells' source is as it was: outputs, metadata, ids, key order
    for before, after in zip(original["cells"], fixed["cells"], strict=True):
        assert list(after) == list(before)
        assert {k: v for k, v in after.items() if k != "source"} == {k: v for k, v in before.items() if k != "source"}
    assert fixed["metadata"] == original["metadata"] and list(fixed) == list(original)
    helper = "".join(fixed["cells"][1]["source"])
    assert helper.startswith("%matplotlib inline\nimport torch\n") and "torch.cond" in helper
    assert not helper.endswith("\n")  # the cell ended without a newline; it still does
    model = fixed["cells"][3]["source"]
    assert model[2] == "        !nvidia-smi\n" and "assert (x > 0)" not in "".join(model)
    assert fixed["cells"][4]["source"] == original["cells"][4]["source"]
    # the file is written as Jupyter writes it: one-space indent, UTF-8 as itself, final newline
    assert fixed_raw.startswith(b'{\n "cells": [\n  {\n') and fixed_raw.endswith(b"}\n")
    assert "naïve ✓".encode() in fixed_raw
    unchanged_head = raw.split(b'"source"')[0]
    assert fixed_raw.startswith(unchanged_head)
    again = run("check", "--no-cache", "--fix", "--unsafe-fixes", "model.ipynb", cwd=tmp_path)
    assert again.returncode == 0 and (tmp_path / "model.ipynb").read_bytes() == fixed_raw


def test_diff_shows_each_changed_cell_with_its_magics(tmp_path: Path) -> None:
    raw = write(tmp_path / "model.ipynb", model_notebook())
    result = run("check", "--no-cache", "--diff", "--unsafe-fixes", "model.ipynb", cwd=tmp_path)
    assert result.returncode == 1
    assert "--- a/model.ipynb:cell 2\n+++ b/model.ipynb:cell 2\n" in result.stdout
    assert "--- a/model.ipynb:cell 4\n" in result.stdout and "\n         !nvidia-smi\n" in result.stdout
    assert (tmp_path / "model.ipynb").read_bytes() == raw


def test_stdin_notebook_fix_prints_the_fixed_notebook(tmp_path: Path) -> None:
    text = json.dumps(model_notebook(), indent=1, ensure_ascii=False) + "\n"
    result = run("check", "--no-cache", "--fix", "--unsafe-fixes", "--stdin-filename", "model.ipynb", "-",
                 cwd=tmp_path, stdin=text)
    fixed = json.loads(result.stdout)
    assert "torch.cond" in "".join(fixed["cells"][1]["source"]) and fixed["cells"][3]["outputs"] == OUTPUTS


def test_a_notebook_saved_during_the_run_is_not_overwritten(tmp_path: Path) -> None:
    """A kernel that saves new outputs after the read: the fix would put the old ones back."""
    path = tmp_path / "model.ipynb"
    write(path, model_notebook())
    source = read(str(path))
    assert source.text is not None and source.notebook is not None
    saved = model_notebook()
    saved["cells"][3]["outputs"] = []
    now = write(path, saved)  # same code cells, other outputs
    fixed = source.text.replace("assert (x > 0).all()", "torch._assert_async((x > 0).all())")
    assert write_back(source, fixed) == "the file changed since it was read (an edit saved during the run); check it again"
    assert path.read_bytes() == now
