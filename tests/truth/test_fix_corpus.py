"""The proof of the quick fixes on failing model code (tests/truth/fix_corpus.py): every snippet
fails export as written; each gets a fix that parses, re-lints with no error, is stable, exports
in every mode the original failed in, and equals eager on all its inputs, except the few listed
in `UNFIXED`, which get no fix at all (never one that fails)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.truth.fix_corpus import SNIPPETS, UNFIXED
from tests.truth.harness import failing_modes, load, prove_snippet

pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def test_the_corpus_is_large_and_at_least_85_percent_fixable() -> None:
    assert len(SNIPPETS) >= 60
    assert set(UNFIXED) <= set(SNIPPETS)
    assert (len(SNIPPETS) - len(UNFIXED)) / len(SNIPPETS) >= 0.85


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_snippet_fails_export_and_its_fix_is_proven(name: str) -> None:
    source = SNIPPETS[name]
    with tempfile.TemporaryDirectory() as folder:
        assert failing_modes(load(source, Path(folder))), f"{name} exports as written: not a failing snippet"
    status, detail = prove_snippet(source)
    if name in UNFIXED:
        assert status in ("no fix", "missed"), f"{name}: {status} {detail}"
    else:
        assert status == "proven", f"{name}: {status}: {detail}"
