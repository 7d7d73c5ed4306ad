"""An editor session re-parses only the top-level statements an edit touched (the lint child's
ChunkedParser) and keeps facts of unchanged statements by their identity. Whatever the edit,
the findings are exactly those of a fresh check of the same text."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst
import pytest

from tests.conftest import all_cases
from xport_lint.analyzers import Config
from xport_lint.analyzers.incremental import ChunkedParser, PerStatement
from xport_lint.analyzers.model import Finding
from xport_lint.analyzers.rule import Invalid
from xport_lint.analyzers.runner import check_file

PATH = "big_module.py"
CONFIG = Config(select=("ALL",))


def big_module() -> str:
    """Every rule's failing examples that parse as one module (a few thousand lines, hundreds of
    traced functions), `from __future__` lines left out (they must come first)."""
    parts = []
    for _, case, _ in all_cases():
        if isinstance(case, Invalid):
            kept = [line for line in case.source.splitlines(keepends=True) if not line.startswith("from __future__")]
            part = "".join(kept).rstrip("\n") + "\n\n\n"
            try:
                cst.parse_module(part)
            except cst.ParserSyntaxError:
                continue  # the syntax error rule's own example
            parts.append(part)
    return "".join(parts)


def _line(text: str, wanted: Callable[[str], bool], after: int = 0) -> int:
    lines = text.splitlines(keepends=True)
    return next(i for i in range(after, len(lines)) if wanted(lines[i]))


def _replace_line(text: str, index: int, new: str) -> str:
    lines = text.splitlines(keepends=True)
    lines[index] = new
    return "".join(lines)


def comment_in_a_method(text: str) -> str:
    index = _line(text, lambda line: line.startswith("        ") and line.strip() != "", len(text.splitlines()) // 2)
    line = text.splitlines(keepends=True)[index]
    return _replace_line(text, index, line.rstrip("\n") + "  # edited\n")


def line_added_in_forward(text: str) -> str:
    index = _line(text, lambda line: line.strip().startswith("def forward("), len(text.splitlines()) // 3)
    line = text.splitlines(keepends=True)[index]
    indent = line[: len(line) - len(line.lstrip())] + "    "
    return _replace_line(text, index, f"{line}{indent}unused_local = 1\n")


def helper_made_data_dependent(text: str) -> str:
    """A new helper whose branch reads tensor data, and a call to it from a traced `forward`:
    the edit changes what another function's analysis sees."""
    index = _line(text, lambda line: line.strip().startswith("def forward(self, x"), len(text.splitlines()) // 4)
    line = text.splitlines(keepends=True)[index]
    indent = line[: len(line) - len(line.lstrip())] + "    "
    helper = "def edited_helper(t):\n    if t.sum() > 0:\n        return t\n    return -t\n\n\n"
    edited = _replace_line(text, index, f"{line}{indent}x = edited_helper(x)\n")
    return helper + edited


def statement_deleted(text: str) -> str:
    index = _line(text, lambda line: line.startswith("class "), len(text.splitlines()) // 2)
    return _replace_line(text, index, "class Replaced:\n    pass\n\n\nclass Renamed" + text.splitlines()[index][5:] + "\n")


def half_typed(text: str) -> str:
    index = _line(text, lambda line: line.strip().startswith("def forward("), len(text.splitlines()) // 2)
    line = text.splitlines(keepends=True)[index]
    indent = line[: len(line) - len(line.lstrip())] + "    "
    return _replace_line(text, index, f"{line}{indent}y = (x +\n")


EDITS = [comment_in_a_method, line_added_in_forward, helper_made_data_dependent, statement_deleted, half_typed]


@pytest.fixture(scope="module")
def session() -> tuple[str, ChunkedParser, list[Finding]]:
    """The big module checked once through an editor session's parser (its caches warm), and
    its findings."""
    parser = ChunkedParser()
    text = big_module()
    return text, parser, check_file(text, PATH, CONFIG, parser).findings


@pytest.mark.parametrize("edit", EDITS, ids=lambda edit: edit.__name__)
def test_an_edit_finds_what_a_fresh_check_finds(
    session: tuple[str, ChunkedParser, list[Finding]], edit: Callable[[str], str]
) -> None:
    text, parser, findings = session
    edited = edit(text)
    assert edited != text
    incremental = check_file(edited, PATH, CONFIG, parser)
    fresh = check_file(edited, PATH, CONFIG)
    assert incremental.findings == fresh.findings
    assert incremental.summary == fresh.summary
    # and back: the session's caches hold the text before the edit too
    assert check_file(text, PATH, CONFIG, parser).findings == findings


def test_the_module_is_big_and_flagged(session: tuple[str, ChunkedParser, list[Finding]]) -> None:
    """The comparison above means something: many statements, many findings, the same as a
    fresh check's before any edit."""
    text, _, findings = session
    assert text.count("\n") > 1_500
    assert len(findings) > 100
    assert findings == check_file(text, PATH, CONFIG).findings


def distinct_functions(count: int) -> str:
    return "import torch\n\n\n" + "".join(
        f"# helper {n}\ndef helper_{n}(x):\n    return x + {n}  # step\n\n\n" for n in range(count)
    )


def test_an_unchanged_statement_is_the_same_node_after_an_edit() -> None:
    """What PerStatement relies on, the blank lines and comments before a statement included:
    only the edited statement is parsed again."""
    parser = ChunkedParser()
    text = distinct_functions(200)
    before, _ = parser.parse(text)
    misses = parser.misses
    edited = text.replace("return x + 100  # step", "return x + 100  # steps")
    after, _ = parser.parse(edited)
    assert after.code == edited
    assert parser.misses == misses + 1
    changed = [a for a, b in zip(after.body, before.body, strict=True) if a is not b]
    assert [after.code_for_node(a).strip() for a in changed] == [
        "# helper 100\ndef helper_100(x):\n    return x + 100  # steps"
    ]


def test_a_text_twice_in_a_file_gets_nodes_of_its_own_at_each_place() -> None:
    """The analysis keys facts by node identity: one node for both places gave both one line.
    Each place keeps its nodes from one parse to the next."""
    parser = ChunkedParser()
    text = "import torch\nx = torch.ones(2)\ny = 1\nx = torch.ones(2)\n"
    module, _ = parser.parse(text)
    assert module.body[1] is not module.body[3]
    assert module.code == text
    again, _ = parser.parse(text.replace("y = 1", "y = 2"))
    assert again.body[1] is module.body[1] and again.body[3] is module.body[3]


def test_a_fact_per_statement_is_computed_once_while_the_statement_is_unchanged() -> None:
    parser = ChunkedParser()
    text = distinct_functions(200)
    computed: list[cst.CSTNode] = []
    kind = PerStatement(lambda statement: computed.append(statement) or type(statement).__name__)
    module, _ = parser.parse(text)
    assert [kind(statement) for statement in module.body] == [type(s).__name__ for s in module.body]
    edited, _ = parser.parse(text.replace("return x + 7  # step", "return x + 8  # step"))
    for statement in edited.body:
        kind(statement)
    assert len(computed) == len(module.body) + 1
