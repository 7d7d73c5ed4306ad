"""Confirmation latency, for bench/RESULTS.md: the first draft_export confirmation of a small
model (pays the worker's start and torch's import), a second one of an edited file in the same
warm worker, and a cache hit (unchanged file: no worker call).

Usage: .venv/bin/python bench/confirm_bench.py   (writes bench/results/confirm.json)
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path

from figures import begin, write_results

from xport_lint.analyzers import check_source
from xport_lint.analyzers.confirm import Confirmer

HERE = Path(__file__).parent
MODEL = """\
import torch


class Gate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(16, 16)

    def forward(self, x):
        h = self.proj(x)
        if h.sum() > {threshold}:
            return h * 2
        return h


def xport_example():
    return Gate(), (torch.randn(4, 16),)
"""


def confirm(confirmer: Confirmer, path: Path, source: str) -> float:
    path.write_text(source)
    began = time.perf_counter()
    result = confirmer.confirm(str(path), source, check_source(source, str(path)))
    elapsed = time.perf_counter() - began
    assert result.status == "ran", result.summary
    return elapsed


WARM_RUNS = 5


def main() -> None:
    stamp = begin("confirm")
    confirmer = Confirmer()
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "gate.py"
            first = confirm(confirmer, path, MODEL.format(threshold=0))
            warm = [confirm(confirmer, path, MODEL.format(threshold=i)) for i in range(1, WARM_RUNS + 1)]
            source = MODEL.format(threshold=WARM_RUNS)
            began = time.perf_counter()
            confirmer.confirm(str(path), source, check_source(source, str(path)))
            cached = time.perf_counter() - began
    finally:
        confirmer.close()
    results = {
        "first_confirmation_s": round(first, 3),
        "warm_runs": WARM_RUNS,
        "warm_confirmation_median_s": round(statistics.median(warm), 3),
        "warm_confirmation_max_s": round(max(warm), 3),
        "cache_hit_s": round(cached, 4),
    }
    print(write_results("confirm", stamp, results))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
