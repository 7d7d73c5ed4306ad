"""The editor's model view, through the real server: `xport-lint/models` answers the workspace's
report (docs/report.md), and `xport-lint/modelsChanged` follows an edit that changes a verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pytest_lsp import LanguageClient

from tests.cli.test_report import SCHEMA, write_project
from tests.server.conftest import open_document, replace_text, start, wait_for

#: a report is a project check in the server's own child process (cold the first time)
PATIENCE = 120.0


@pytest.fixture(autouse=True)
def _raw_json(monkeypatch: pytest.MonkeyPatch) -> None:
    """The client sees a custom method's JSON as it is (as VS Code does): pygls would make named
    tuples of it, renaming keys such as "non-strict" that are no Python names."""
    monkeypatch.setattr("pygls.protocol._dict_to_object", lambda data: data)


def _verdicts(report: dict[str, Any]) -> dict[str, str]:
    return {m["name"]: m["verdicts"]["non-strict"]["verdict"] for m in report["models"]}


async def test_models_request_answers_the_workspace_report(client: LanguageClient, tmp_path: Path) -> None:
    project = write_project(tmp_path / "project")
    await start(client, project, pull=True)
    report = (await client.protocol.send_request_async("xport-lint/models", {}))
    jsonschema.validate(report, SCHEMA)
    assert _verdicts(report) == {
        "Detector": "fails", "Head": "fails", "Classifier": "fails-when", "Encoder": "exports", "Adapter": "exports",
    }
    detector = next(m for m in report["models"] if m["name"] == "Detector")
    assert detector["path"] == str(project / "vision" / "models" / "detector.py")
    assert [step["function"] for step in detector["findings"][0]["chain"]] == [
        "Detector.forward", "Head.forward", "keep_positive"]


async def test_an_edit_that_changes_a_verdict_is_notified(client: LanguageClient, tmp_path: Path) -> None:
    project = write_project(tmp_path / "project")
    changes: list[dict[str, Any]] = []

    @client.feature("xport-lint/modelsChanged")
    def models_changed(params: Any) -> None:
        changes.append(params)

    await start(client, project, pull=True)
    before = (await client.protocol.send_request_async("xport-lint/models", {}))
    assert _verdicts(before)["Encoder"] == "exports"
    path = project / "text" / "encoder.py"
    text = path.read_text()
    uri = open_document(client, path, text)
    # unsaved: the view follows the editor's text, not the disk's
    replace_text(client, uri, text.replace("return self.proj(x).relu()", "if x.sum() > 0:\n            x = -x\n"
                                                                         "        return self.proj(x)"), 2)
    await wait_for(lambda: bool(changes), timeout=PATIENCE)
    change = changes[-1]
    assert change["changed"] == ["text.encoder.Encoder"]
    assert change["recomputed"] == ["text.encoder.Encoder"]  # no other model reaches text/encoder.py
    assert _verdicts(change["report"])["Encoder"] == "fails"
    assert _verdicts(change["report"])["Detector"] == "fails"  # the rest as before
    # the edit undone: back to exports, notified again
    replace_text(client, uri, text, 3)
    await wait_for(lambda: len(changes) >= 2, timeout=PATIENCE)
    assert _verdicts(changes[-1]["report"])["Encoder"] == "exports"


async def test_an_edit_works_out_again_only_the_models_that_reach_the_edited_file(
    client: LanguageClient, tmp_path: Path
) -> None:
    """`keep_positive` (vision/ops/boxes.py) is reached by `Head.forward` and, through the head it
    builds, by `Detector`: an edit there recomputes those two; the other models keep their entries."""
    project = write_project(tmp_path / "project")
    changes: list[dict[str, Any]] = []

    @client.feature("xport-lint/modelsChanged")
    def models_changed(params: Any) -> None:
        changes.append(params)

    await start(client, project, pull=True)
    before = (await client.protocol.send_request_async("xport-lint/models", {}))
    assert _verdicts(before)["Detector"] == _verdicts(before)["Head"] == "fails"
    path = project / "vision" / "ops" / "boxes.py"
    text = path.read_text()
    uri = open_document(client, path, text)
    replace_text(client, uri, text.replace("    if keep.shape[0] == 0:\n        return scores\n", ""), 2)
    await wait_for(lambda: bool(changes), timeout=PATIENCE)
    change = changes[-1]
    affected = ["vision.models.detector.Detector", "vision.models.detector.Head"]
    assert change["recomputed"] == affected
    assert change["changed"] == affected
    assert _verdicts(change["report"])["Detector"] == _verdicts(change["report"])["Head"] == "exports"
    old = {m["id"]: m for m in before["models"]}
    new = {m["id"]: m for m in change["report"]["models"]}
    assert old.keys() == new.keys()
    for model in old.keys() - set(affected):
        assert new[model] == old[model]
