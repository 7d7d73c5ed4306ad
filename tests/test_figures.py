"""Published figures are current: every figure in README.md and bench/RESULTS.md is generated from
a committed, stamped results file, and the benchmarks `bench/all.py` re-runs measured the code
that is committed now. Reads only committed JSON and git: no benchmark runs here.

When this fails after an engine change, commit the change, then run
`.venv/bin/python bench/all.py` (or `--only NAME`) and commit bench/results, README.md and
bench/RESULTS.md. When only the text is off, `.venv/bin/python bench/all.py --render`.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from bench.figures import (
    BENCHMARKS,
    BLOCKS,
    REFRESH,
    REPO,
    begin,
    blocks,
    load_all,
    provenance,
    staleness,
    write_results,
)

README = REPO / "README.md"
RESULTS_MD = REPO / "bench" / "RESULTS.md"
#: a measured quantity written as prose: "0.95 s", "16 ms", "92%", "1.48x", "215 MB"
FIGURE = re.compile(r"\b\d[\d,]*(\.\d+)?\s?(s|ms|%|x|MB|KB|GiB)(?![\w-])")


def _in_history(commit: str) -> bool:
    return subprocess.run(["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=REPO, capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def results() -> dict[str, dict]:
    if subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True).returncode != 0:
        pytest.skip("not a git checkout: the stamps cannot be checked")
    loaded = load_all()
    missing = [s["stamp"]["commit"][:7] for s in loaded.values() if not _in_history(s["stamp"]["commit"])]
    if missing:
        shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=REPO, capture_output=True,
                                 text=True).stdout.strip()
        if shallow == "true":
            pytest.skip(f"shallow clone: measured commits {missing} are not fetched")
        pytest.fail(f"results stamped with commits this repository does not have: {missing}")
    return loaded


def test_every_benchmark_has_a_stamped_results_file(results: dict[str, dict]) -> None:
    for name, benchmark in BENCHMARKS.items():
        stamp = results[name]["stamp"]
        assert re.fullmatch(r"[0-9a-f]{40}", stamp["commit"]), name
        assert stamp["paths"] == list(benchmark.paths), f"{name}: measured paths differ from bench/figures.py"
        assert stamp["date"] and (stamp["dirty"] is None or isinstance(stamp["dirty"], list)), name


@pytest.mark.parametrize("name", [name for name, b in BENCHMARKS.items() if b.default])
def test_rerunnable_benchmarks_measured_the_committed_code(results: dict[str, dict], name: str) -> None:
    """Clean tree, full run, and no commit touching the measured paths since the measured one."""
    problem = staleness(results[name]["stamp"])
    assert problem is None, f"bench/results/{name}.json: {problem}; refresh with `{REFRESH} --only {name}`"


@pytest.mark.parametrize("document", [README, RESULTS_MD], ids=lambda p: p.name)
def test_figures_are_what_the_generator_makes_of_the_results(results: dict[str, dict], document: Path) -> None:
    found = blocks(document.read_text())
    expected = {"readme-speed"} if document == README else set(BLOCKS) - {"readme-speed"}
    assert set(found) == expected
    for name, body in found.items():
        assert body == BLOCKS[name](results), f"{document.name} block {name!r}: run `{REFRESH} --render`"


def test_no_figure_is_written_by_hand_outside_the_generated_blocks() -> None:
    speed_section = README.read_text().split("\n## Speed\n", 1)[1].split("\n## ", 1)[0]
    for label, text in (("README Speed section", speed_section), ("bench/RESULTS.md", RESULTS_MD.read_text())):
        outside = re.sub(r"<!-- figures:[\w-]+ -->.*?<!-- /figures -->", "", text, flags=re.S)
        assert not [m[0] for m in FIGURE.finditer(outside)], f"{label}: figures outside generated blocks"


def test_a_benchmark_that_cannot_rerun_here_says_when_it_is_stale(results: dict[str, dict]) -> None:
    for name, benchmark in BENCHMARKS.items():
        if not benchmark.default and staleness(results[name]["stamp"]) is not None:
            assert "Not verified against the current code" in BLOCKS[name](results)


# --- the rule itself, on a throwaway repository ---------------------------------------------------


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                       "GIT_COMMITTER_EMAIL": "t@t"}.items():
        monkeypatch.setenv(key, value)
    _git(tmp_path, "init", "-q")
    for path in ("analyzers/engine.py", "bench/run.py", "README.md"):
        _write(tmp_path, path, "v1\n")
    _commit(tmp_path)
    return tmp_path


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _write(repo: Path, path: str, text: str) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)


def _commit(repo: Path) -> None:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "change")


def _measure(repo: Path, during: object = None) -> dict:
    stamp = begin("speed", repo=repo)
    if callable(during):
        during()
    return json.loads(write_results("speed", stamp, {}, repo=repo).read_text())["stamp"]


def test_figures_stay_current_until_a_commit_touches_the_measured_paths(repo: Path) -> None:
    stamp = _measure(repo)
    assert staleness(stamp, repo) is None
    _write(repo, "README.md", "v2\n")
    _commit(repo)
    assert staleness(stamp, repo) is None, "a commit outside the measured paths keeps the figures"
    _write(repo, "analyzers/engine.py", "v2\n")
    _commit(repo)
    assert "the measured paths changed since" in staleness(stamp, repo)


def test_a_run_over_uncommitted_engine_changes_measured_no_commit(repo: Path) -> None:
    _write(repo, "analyzers/engine.py", "edited, not committed\n")
    stamp = _measure(repo)
    assert stamp["dirty"] == ["analyzers/engine.py"]
    assert "uncommitted changes to analyzers/engine.py" in staleness(stamp, repo)


def test_a_commit_landing_during_the_run_marks_it_dirty(repo: Path) -> None:
    def someone_commits() -> None:
        _write(repo, "analyzers/engine.py", "v2\n")
        _commit(repo)

    stamp = _measure(repo, during=someone_commits)
    assert stamp["dirty"] == ["analyzers/engine.py"]
    assert staleness(stamp, repo) is not None


def test_a_reduced_run_is_not_a_figure(repo: Path) -> None:
    stamp = begin("speed", repo=repo)
    written = json.loads(write_results("speed", stamp, {}, reduced="60 of 953 files", repo=repo).read_text())
    assert "a reduced run (60 of 953 files)" in staleness(written["stamp"], repo)
    assert "Not verified against the current code" in provenance("speed", written, repo)
