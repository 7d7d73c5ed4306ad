"""`xport-lint report`, as a team runs it before a release: the real CLI on a project of several
packages, its JSON checked against the published schema, its markdown against GitHub's comment
limit, and its HTML opened in a real headless browser."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from xport_lint.analyzers.cache import unsealed

REPO = Path(__file__).parents[2]
SCHEMA = json.loads((REPO / "docs" / "report.schema.json").read_text())
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

PROJECT = {
    "vision/__init__.py": "",
    "vision/ops/__init__.py": "",
    # a helper in another package: the detector's export fails here
    "vision/ops/boxes.py": """
        def keep_positive(scores):
            keep = scores[scores > 0]
            if keep.shape[0] == 0:
                return scores
            return keep
    """,
    "vision/models/__init__.py": "",
    "vision/models/detector.py": """
        import torch
        from torch import nn

        from vision.ops.boxes import keep_positive


        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 4)

            def forward(self, x):
                return keep_positive(self.proj(x))


        class Detector(nn.Module):
            def __init__(self):
                super().__init__()
                self.backbone = nn.Linear(8, 8)
                self.head = Head()

            def forward(self, x):
                return self.head(self.backbone(x))
    """,
    # fails only when exported in training mode
    "vision/models/classifier.py": """
        import torch
        from torch import nn


        class Classifier(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 2)

            def forward(self, x):
                if self.training:
                    assert (x > 0).all()
                return self.fc(x)


        def xport_example():
            return Classifier(), (torch.randn(2, 8),)
    """,
    "text/__init__.py": "",
    # exports; its print is a warning (the graph drops it)
    "text/encoder.py": """
        import torch
        from torch import nn


        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def forward(self, x):
                print("encoding")
                return self.proj(x).relu()
    """,
    # exports non-strict; strict export refuses nn.Parameter made in forward (XPT408, strict only)
    "text/adapter.py": """
        import torch
        from torch import nn


        class Adapter(nn.Module):
            def forward(self, x):
                scale = nn.Parameter(torch.ones(1))
                return x * scale
    """,
    "scripts/export_text.py": """
        import torch

        from text.encoder import Encoder

        model = Encoder().eval()
        batch = torch.export.Dim("batch")
        program = torch.export.export(model, (torch.randn(2, 8),), dynamic_shapes={"x": {0: batch}})
    """,
}


def write_project(root: Path, files: dict[str, str] = PROJECT) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return root


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xport_lint.analyzers.cli", "report", *args],
        cwd=root, capture_output=True, text=True, timeout=600, env={**os.environ, "NO_COLOR": "1"},
    )


def report_json(root: Path, *args: str) -> dict[str, Any]:
    done = run(root, ".", "--format", "json", *args)
    assert done.returncode in (0, 1) and done.stdout.startswith("{"), done.stderr
    data = json.loads(done.stdout)
    jsonschema.validate(data, SCHEMA)
    return data


def models(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["name"]: m for m in data["models"]}


def verdicts(data: dict[str, Any], mode: str = "non-strict") -> dict[str, str]:
    return {m["name"]: m["verdicts"][mode]["verdict"] for m in data["models"]}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "project")


def test_every_model_gets_a_verdict_and_each_finding_the_chain_that_reaches_it(project: Path) -> None:
    data = report_json(project)
    assert verdicts(data) == {
        "Detector": "fails", "Head": "fails", "Classifier": "fails-when", "Encoder": "exports", "Adapter": "exports",
    }
    detector = models(data)["Detector"]
    assert detector["package"] == "vision.models" and detector["top_level"]
    assert detector["submodules"] == ["vision.models.detector.Head"]
    (finding,) = detector["findings"]
    assert finding["code"] == "XPT105" and finding["path"] == "vision/ops/boxes.py" and finding["line"] == 3
    assert [(s["function"], s["path"]) for s in finding["chain"]] == [
        ("Detector.forward", "vision/models/detector.py"),
        ("Head.forward", "vision/models/detector.py"),
        ("keep_positive", "vision/ops/boxes.py"),
    ]
    assert finding["fix"]["diff"].startswith("--- a/vision/ops/boxes.py")
    assert not models(data)["Head"]["top_level"]  # the detector builds it


def test_conditions_export_configuration_and_confirmation_state(project: Path) -> None:
    data = report_json(project)
    classifier = models(data)["Classifier"]["verdicts"]["non-strict"]
    assert classifier["conditions"] == ["only when exporting in training mode: `self.training` is False after `.eval()`"]
    encoder = models(data)["Encoder"]
    assert [(c["kind"], c["path"], c["dynamic"]) for c in encoder["export_config"]] == [
        ("export-script", "scripts/export_text.py", True)
    ]
    assert encoder["verdicts"]["non-strict"]["warnings"] == 1  # exports; the print is dropped from the graph
    assert [c["kind"] for c in models(data)["Classifier"]["export_config"]] == ["xport_example"]
    assert {m["confirmation"]["state"] for m in data["models"]} == {"never-run"}
    # exported models come first
    assert [m["name"] for m in data["models"]][:2] == ["Classifier", "Encoder"]


def test_a_warm_report_is_the_cold_one_and_an_edit_is_read_again(project: Path, tmp_path: Path) -> None:
    """What the report reads from each file's text (where functions are, what `__init__` builds,
    export calls) is cached with the findings, by the text's hash: a warm run reports exactly what
    a run without the cache does, and an edited file is read again."""
    cache = str(tmp_path / "cache")
    cold = report_json(project, "--no-cache")
    assert report_json(project, "--cache-dir", cache) == cold
    assert report_json(project, "--cache-dir", cache) == cold
    detector = project / "vision" / "models" / "detector.py"
    detector.write_text(detector.read_text().replace("self.head = Head()", "self.head = nn.Identity()"))
    edited = report_json(project, "--cache-dir", cache)
    assert models(edited)["Detector"]["submodules"] == [] and models(edited)["Head"]["top_level"]
    assert verdicts(edited)["Detector"] == "exports"  # its export no longer runs the head's forward
    assert edited == report_json(project, "--no-cache")


def test_an_unchanged_project_is_answered_from_its_last_report_without_the_index(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm report of a project whose files and configuration have not changed reads the last
    report back from the cache (only confirmation states are read again): no file is checked and
    no project index is built. An edit builds it again, equal to a cold report; the project keeps
    one stored report, replaced, not piled up."""
    from xport_lint.analyzers import index, workers
    from xport_lint.analyzers.cache import Cache
    from xport_lint.analyzers.config import Config
    from xport_lint.analyzers.files import discover
    from xport_lint.analyzers.readiness import ConfirmationRecord, report_data

    built: list[str] = []
    real_index, real_round = index.ProjectIndex.__init__, workers.check_round

    def counted_index(self: index.ProjectIndex, *args: Any, **kwargs: Any) -> None:
        built.append("index")
        real_index(self, *args, **kwargs)

    def counted_round(*args: Any, **kwargs: Any) -> Any:
        built.append("round")
        return real_round(*args, **kwargs)

    monkeypatch.setattr(index.ProjectIndex, "__init__", counted_index)
    monkeypatch.setattr("xport_lint.analyzers.workspace.check_round", counted_round)
    monkeypatch.chdir(project)
    config = Config.discover(project)
    files = discover(["."], config.exclude)
    directory = tmp_path / "cache"

    def report(use_cache: bool = True) -> dict[str, Any]:
        cache = Cache(directory) if use_cache else None
        try:
            return report_data(files, config, cache, jobs=1, record=ConfirmationRecord(directory))
        finally:
            if cache is not None:
                cache.save()
                cache.close()

    cold = report()
    assert "index" in built and "round" in built
    built.clear()
    assert report() == cold and built == []
    classifier = project / "vision" / "models" / "classifier.py"
    record = ConfirmationRecord(directory)
    record.record(str(classifier), classifier.read_text(), "ran", True, "Classifier", "export succeeded")
    record.save()
    confirmed = models(report())["Classifier"]["confirmation"]
    assert (confirmed["state"], confirmed["export_ok"], built) == ("confirmed", True, [])
    classifier.write_text(classifier.read_text().replace("if self.training:", "if not self.training:"))
    edited = report()
    assert "index" in built and verdicts(edited)["Classifier"] == "fails"
    assert models(edited)["Classifier"]["confirmation"]["state"] == "stale"
    assert edited == report(use_cache=False)
    with sqlite3.connect(directory / "findings-v3.sqlite3") as db:
        bodies = [unsealed(body) for (body,) in db.execute("SELECT body FROM findings")]
    stored = [body for body in bodies if body.startswith('{"inputs"')]
    assert len(stored) == 1


def test_the_other_mode_is_derived_unless_both_are_checked(project: Path) -> None:
    derived = report_json(project)
    adapter = models(derived)["Adapter"]["verdicts"]["strict"]
    assert adapter["verdict"] == "exports" and adapter["basis"] == "derived" and "XPT408" in adapter["unchecked"]
    checked = report_json(project, "--both-modes")
    adapter = models(checked)["Adapter"]["verdicts"]["strict"]
    assert adapter["verdict"] == "fails" and adapter["basis"] == "checked"
    assert models(checked)["Adapter"]["verdicts"]["non-strict"]["verdict"] == "exports"
    strict_only = report_json(project, "--strict")
    assert strict_only["mode"] == "strict" and verdicts(strict_only, "strict")["Adapter"] == "fails"


def test_exit_status_follows_fail_on_as_check_does(project: Path) -> None:
    assert run(project, "text", "--fail-on", "error").returncode == 0  # only warnings in text/
    assert run(project, "text").returncode == 1  # default: warnings fail
    assert run(project, "text", "--exit-zero").returncode == 0
    assert run(project, "vision", "--fail-on", "error").returncode == 1
    assert run(project, "missing-folder").returncode == 2


def test_baseline_shows_what_changed_new_failures_first(project: Path) -> None:
    saved = project / "main-readiness.json"
    assert run(project, ".", "--format", "json", "-o", str(saved)).returncode == 1
    # nothing new since the saved report: old failures do not fail the run
    assert run(project, ".", "--baseline", str(saved), "--fail-on", "error").returncode == 0
    encoder = project / "text" / "encoder.py"
    encoder.write_text(encoder.read_text().replace("return self.proj(x).relu()",
                                                   "if x.sum() > 0:\n            x = -x\n        return self.proj(x)"))
    classifier = project / "vision" / "models" / "classifier.py"
    classifier.write_text(classifier.read_text().replace("        if self.training:\n            assert (x > 0).all()\n",
                                                         ""))
    done = run(project, ".", "--format", "json", "--baseline", str(saved), "--fail-on", "error")
    assert done.returncode == 1  # a new error
    data = json.loads(done.stdout)
    jsonschema.validate(data, SCHEMA)
    changes = [(c["kind"], c["model"].rpartition(".")[2], c["mode"]) for c in data["baseline"]["changes"]]
    assert changes[0] == ("new-failure", "Encoder", "non-strict")
    assert ("new-finding", "Encoder", "non-strict") in changes
    assert ("verdict-changed", "Classifier", "non-strict") in changes  # fails-when -> exports
    assert changes.index(("verdict-changed", "Classifier", "non-strict")) > changes.index(
        ("new-finding", "Encoder", "non-strict"))
    assert [k for k, *_ in changes].count("resolved-finding") == 1
    text = run(project, ".", "--baseline", str(saved)).stdout
    assert "**Since `" in text and text.index("new failure `text.encoder.Encoder`") < text.index("verdict changed")


def test_markdown_is_a_pull_request_comment_within_githubs_limit(project: Path, tmp_path: Path) -> None:
    text = run(project, ".").stdout
    assert text.startswith("## Export readiness: 5 models in ")
    assert "<details><summary>❌ <b>Detector</b>" in text
    assert "chain: `Detector.forward` → `Head.forward` → `keep_positive`" in text
    assert "```diff" in text and "Cut to fit" not in text
    # a message quoting code keeps its `<` inside the code span (GitHub shows entities there as written)
    assert "`(x > 0).all()`" in text
    many = {"big/__init__.py": ""}
    for number in range(400):
        many[f"big/model_{number}.py"] = f"""
            import torch
            from torch import nn


            class VeryLongModelNameNumber{number}ForTheSizeCap(nn.Module):
                def forward(self, x, boxes):
                    keep = boxes[boxes[:, 0] > 0.5]
                    if keep.shape[0] > {number}:
                        return x * 2
                    while x.sum() > 0:
                        x = x - 1
                    return x
        """
    big = write_project(tmp_path / "big", many)
    text = run(big, ".").stdout
    assert len(text.rstrip("\n")) <= 65_536
    assert re.search(r"Cut to fit GitHub's 65,536-character limit:\*\* \d+ more section", text)
    assert text.count("<details><summary>") == text.count("</details>")  # no section cut in half


def _browse(page: Path, script: str) -> str:
    """The page's DOM after `script` ran in a real headless Chromium (the script writes its
    findings into `<pre id="probe">`)."""
    probe = page.with_name("probe.html")
    probe.write_text(page.read_text().replace("</body>", f"<script>{script}</script></body>"))
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", f"--user-data-dir={page.parent / 'profile'}",
         "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=180, env={**os.environ, "HOME": str(page.parent)},
    )
    found = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout, re.S)
    assert found is not None, done.stderr[-2000:]
    return found.group(1)


_CLICK_THROUGH = """
const out = {};
const names = () => [...document.querySelectorAll('tbody.model:not([hidden])')].map(b => b.dataset.name);
out.initial = names();
document.querySelector('th[data-key=name]').click();
out.byName = names();
document.querySelector('th[data-key=name]').click();
out.byNameDescending = names();
document.querySelector('th[data-key=errors]').click();
out.byErrors = names();
const verdict = document.getElementById('filter-verdict');
verdict.value = 'fails'; verdict.dispatchEvent(new Event('change'));
out.failing = names();
out.shown = document.getElementById('shown').textContent;
verdict.value = ''; verdict.dispatchEvent(new Event('change'));
const pkg = document.getElementById('filter-package');
pkg.value = 'text'; pkg.dispatchEvent(new Event('change'));
out.text = names().sort();
pkg.value = ''; pkg.dispatchEvent(new Event('change'));
const row = document.querySelector('tbody.model[data-name=Detector] tr.row');
out.closed = row.nextElementSibling.hidden;
row.click();
out.opened = !row.nextElementSibling.hidden;
out.excerpt = row.nextElementSibling.querySelector('pre.excerpt .hit').textContent;
out.diff = [...row.nextElementSibling.querySelectorAll('pre.diff .add')].map(e => e.textContent);
out.external = [...document.querySelectorAll('[src],link[href]')].length;
const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
"""


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian's chromium")
def test_html_report_sorts_and_filters_in_a_real_browser(project: Path, tmp_path: Path) -> None:
    page = tmp_path / "browser" / "readiness.html"
    page.parent.mkdir()
    assert run(project, ".", "--format", "html", "-o", str(page)).returncode == 1
    html = page.read_text()
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html.replace(
        "https://github.com/xport-lint", "")  # nothing fetched: rule links only
    seen = json.loads(_browse(page, _CLICK_THROUGH).replace("&quot;", '"').replace("&amp;", "&")
                      .replace("&lt;", "<").replace("&gt;", ">"))
    assert seen["initial"][:2] == ["Detector", "Head"]  # failing first
    assert seen["byName"] == sorted(seen["initial"])
    assert seen["byNameDescending"] == sorted(seen["initial"], reverse=True)
    assert seen["byErrors"][-2:] in (["Detector", "Head"], ["Head", "Detector"])  # ascending: failing last
    assert sorted(seen["failing"]) == ["Detector", "Head"] and seen["shown"] == "2"
    assert seen["text"] == ["Adapter", "Encoder"]
    assert seen["closed"] and seen["opened"]
    assert "if keep.shape[0] == 0:" in seen["excerpt"]
    assert any("torch.cond(keep.shape[0] == 0" in line for line in seen["diff"])
    assert seen["external"] == 0


CONFIRMABLE = {
    "exports_fine.py": """
        import torch
        from torch import nn


        class Scaler(nn.Module):
            def forward(self, x):
                return x * 2


        def xport_example():
            return Scaler().eval(), (torch.randn(2, 8),)
    """,
    "fails_for_real.py": """
        import torch
        from torch import nn


        class Gate(nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    return x * 2
                return x - 1


        def xport_example():
            return Gate().eval(), (torch.randn(2, 8),)
    """,
}


def test_confirm_records_what_draft_export_said_until_the_file_changes(tmp_path: Path) -> None:
    project = write_project(tmp_path / "confirmable", CONFIRMABLE)
    data = report_json(project, "--confirm")  # real torch.export in a worker process
    states = {m["name"]: (m["verdicts"]["non-strict"]["verdict"], m["confirmation"]["state"],
                          m["confirmation"]["export_ok"]) for m in data["models"]}
    assert states == {"Scaler": ("exports", "confirmed", True), "Gate": ("fails", "confirmed", False)}
    scaler = project / "exports_fine.py"
    scaler.write_text(scaler.read_text().replace("x * 2", "x * 3"))
    later = {m["name"]: m["confirmation"]["state"] for m in report_json(project)["models"]}
    assert later == {"Scaler": "stale", "Gate": "confirmed"}  # the record is kept by the text's hash
    # `check --confirm` keeps its outcomes in the same record
    confirmed = subprocess.run([sys.executable, "-m", "xport_lint.analyzers.cli", "check", "--confirm", "exports_fine.py"],
                               cwd=project, capture_output=True, text=True, timeout=600)
    assert confirmed.returncode == 0, confirmed.stderr
    assert {m["name"]: m["confirmation"]["state"] for m in report_json(project)["models"]}["Scaler"] == "confirmed"
