"""A failure's identity does not depend on which failure export meets first.

Export stops at its first failure, so an error an earlier one precedes on every path is reported
as a warning that names that line. The fix prover (and repair) compare failures before and after
a fix: when a fix removes the earlier failure, the later one must still be the same failure, not
a new one. The line of the earlier failure is a field of the finding (`after`), and
`own_message` is the message without the note it adds.
"""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from xport_lint.analyzers.cache import Cache
from xport_lint.analyzers.config import Config
from xport_lint.analyzers.runner import check_source

TWO_BRANCHES = dedent("""\
    import torch


    class Model(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                x = x + 1
            if x.max() > 1:
                x = x * 2
            return x
""")

#: the first branch gone (what its fix leaves behind, as far as the second branch is concerned)
SECOND_ALONE = dedent("""\
    import torch


    class Model(torch.nn.Module):
        def forward(self, x):
            x = torch.where(x.sum() > 0, x + 1, x)
            if x.max() > 1:
                x = x * 2
            return x
""")


def test_a_failure_an_earlier_one_precedes_names_that_line_in_a_field() -> None:
    first, second = check_source(TWO_BRANCHES, "model.py", Config())
    assert (first.after, second.after) == (None, 6)
    assert second.message.endswith("(after line 6, whose failure export meets first on the way here)")
    assert second.severity == "warning"


def test_without_the_earlier_failure_the_later_one_keeps_its_own_message() -> None:
    before = check_source(TWO_BRANCHES, "model.py", Config())[1]
    (after,) = [f for f in check_source(SECOND_ALONE, "model.py", Config()) if f.code == "XPT101"]
    assert after.after is None and after.severity == "error"
    assert before.message != after.message
    assert before.own_message == after.own_message == after.message


def test_the_cache_keeps_the_line_of_the_earlier_failure(tmp_path: Path) -> None:
    findings = check_source(TWO_BRANCHES, "model.py", Config())
    cache = Cache(tmp_path / "cache")
    key = cache.key(TWO_BRANCHES, "model.py", Config())
    cache.put(key, findings, None)
    cache.save()
    cached = Cache(tmp_path / "cache").get(key, "model.py")
    assert cached is not None
    assert [f.after for f in cached[0]] == [None, 6]
    assert cached[0] == findings
