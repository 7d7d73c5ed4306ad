"""Cache records written by another version of the summary format: a summary read from the
findings cache is a clean miss whenever its format is not this engine's (the file is checked
again and its record rewritten), never a crash and never a summary read with fields missing."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from pathlib import Path
from typing import Any

from xport_lint.analyzers.cache import Cache, sealed, unsealed
from xport_lint.analyzers.config import Config
from xport_lint.analyzers.files import discover
from xport_lint.analyzers.index import SUMMARY_VERSION
from xport_lint.analyzers.project import check_project

PROJECT = {
    "pkg/__init__.py": "",
    "pkg/model.py": """
        import torch


        class Decoder(torch.nn.Module):
            def forward(self, hidden):
                if hidden.shape[1] > 4:
                    return hidden * 0.5
                return hidden.cumsum(1)
    """,
    # its summary declares the shapes (with each input's rank) of a model of another file
    "scripts/export_decoder.py": """
        import torch
        from torch.export import Dim

        from pkg.model import Decoder

        model = Decoder().eval()
        torch.export.export(model, (torch.randn(2, 3, 8),), dynamic_shapes={"hidden": {1: Dim("seq")}})
    """,
}


def write(root: Path) -> list[str]:
    for name, text in PROJECT.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return discover([str(root)], ())


def rows(cache_dir: Path) -> dict[str, Any]:
    """Every record of the cache whose body holds a file's summary."""
    with sqlite3.connect(cache_dir / "findings-v3.sqlite3") as db:
        found = {key: json.loads(unsealed(body)) for key, body in db.execute("SELECT key, body FROM findings")}
    return {key: body for key, body in found.items() if isinstance(body, dict) and body.get("summary")}


def rewrite(cache_dir: Path, records: dict[str, Any]) -> None:
    db = sqlite3.connect(cache_dir / "findings-v3.sqlite3")
    with db:
        db.executemany("UPDATE findings SET body = ? WHERE key = ?", [(sealed(json.dumps(b)), k) for k, b in records.items()])
    db.close()


def as_version_11(summary: dict[str, Any]) -> dict[str, Any]:
    """The record as summary version 11 wrote it: shape declarations without the inputs' ranks."""
    return {**summary, "v": 11, "shapes": {name: config[:5] for name, config in summary["shapes"].items()}}


def test_a_summary_of_another_version_is_a_miss(tmp_path: Path) -> None:
    files = write(tmp_path / "project")
    cache = Cache(tmp_path / "cache")
    cold = check_project(files, Config(), cache, jobs=1)
    cache.save()
    records = rows(tmp_path / "cache")
    assert any(body["summary"]["shapes"] for body in records.values())  # the declaration is there
    for key, body in records.items():
        assert body["summary"]["v"] == SUMMARY_VERSION
        for version in (SUMMARY_VERSION - 1, SUMMARY_VERSION + 1):
            rewrite(tmp_path / "cache", {key: {**body, "summary": {**body["summary"], "v": version}}})
            assert Cache(tmp_path / "cache").get(key, "any.py") is None
        rewrite(tmp_path / "cache", {key: {**body, "summary": as_version_11(body["summary"])}})
        assert Cache(tmp_path / "cache").get(key, "any.py") is None
    summaries = {path: summary.to_plain() for path, summary in cold.summaries.items()}
    findings = [(r.path, r.findings) for r in cold.results]
    assert any(found for _, found in findings)

    # a second run over old records: the same findings and summaries as the cold run, and the
    # records rewritten in this version's format
    again = check_project(files, Config(), Cache(tmp_path / "cache"), jobs=1)
    assert [(r.path, r.findings) for r in again.results] == findings
    assert {path: summary.to_plain() for path, summary in again.summaries.items()} == summaries
    again.workspace.cache.save()
    assert all(body["summary"]["v"] == SUMMARY_VERSION for body in rows(tmp_path / "cache").values())
