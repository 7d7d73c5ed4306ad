"""An editor session, as the lint child runs it: each keystroke's text goes to
`Workspace.update` with one shared ChunkedParser, which re-parses only the top-level statements
around the changed lines (with `ast` and libcst alike). Whatever the edit, the findings after it
are exactly those of a cold check of the same text, including edits that change a fact another
class reads: a helper's return, a configuration default."""

from __future__ import annotations

import textwrap
from collections.abc import Callable

import pytest

from xport_lint.analyzers import Config
from xport_lint.analyzers.incremental import ChunkedParser
from xport_lint.analyzers.model import Finding, Severity
from xport_lint.analyzers.runner import check_file
from xport_lint.analyzers.workspace import Workspace

PATH = "pkg/modeling_x.py"
CONFIG = Config(select=("ALL",))

MODULE = textwrap.dedent(
    """
    import torch
    from torch import nn


    class XConfig:
        def __init__(self, hidden_size=8, enable_fusion=False):
            self.hidden_size = hidden_size
            self.enable_fusion = enable_fusion


    def width(t):
        return t.shape[0]


    class Fusion(nn.Module):
        def __init__(self, config: XConfig):
            super().__init__()
            self.enable_fusion = config.enable_fusion
            self.proj = nn.Linear(config.hidden_size, config.hidden_size)

        def forward(self, x):
            if self.enable_fusion:
                if x.sum() > 0:  # fails an export that takes the fusion branch
                    x = x * 2
            return self.proj(x)


    class Gate(nn.Module):
        def forward(self, x):
            # a comment to type into
            if width(x) > 2:
                x = x * 2
            return x
    """
).lstrip("\n")


def replace(old: str, new: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        assert text.count(old) == 1, old
        return text.replace(old, new)

    edit.__name__ = f"{old.strip()} -> {new.strip()}"
    return edit


def findings_at(text: str, line: str) -> list[Finding]:
    number = text.splitlines().index(line) + 1
    return [f for f in check_file(text, PATH, CONFIG).findings if f.span.start.line == number]


#: keystrokes in order, each kept: within a line (the region re-parse), across lines, half-typed
EDITS = [
    replace("# a comment to type into", "# a comment to type into, typed"),
    replace("    return t.shape[0]", "    return t.sum()"),  # Gate's branch now reads data
    replace("enable_fusion=False", "enable_fusion=True"),  # Fusion's branch is on the default path
    replace("        return x\n", "        return x  # done\n"),
    replace("    return t.sum()", "    return t.sum(  "),  # half-typed: does not parse
    replace("    return t.sum(  ", "    return t.shape[1]"),
    replace("    def forward(self, x):\n        # a", "    def forward(self, x):\n        y = 1\n        # a"),
    replace("enable_fusion=True", "enable_fusion=False"),
]


def test_the_edits_change_what_other_classes_are_told() -> None:
    """The comparison below means something: the helper's return and the configuration default
    are read in classes the edit does not touch."""
    assert findings_at(MODULE, "        if width(x) > 2:") == []
    helper_reads_data = EDITS[1](MODULE)
    assert [f.code for f in findings_at(helper_reads_data, "        if width(x) > 2:")] == ["XPT101"]
    branch = "            if x.sum() > 0:  # fails an export that takes the fusion branch"
    assert [f.severity for f in findings_at(MODULE, branch)] == [Severity.WARNING]
    assert [f.severity for f in findings_at(EDITS[2](MODULE), branch)] == [Severity.ERROR]


def test_each_edit_finds_what_a_cold_check_finds() -> None:
    workspace = Workspace(CONFIG)
    parser = ChunkedParser()
    text = MODULE
    workspace.update(PATH, text, parser)
    for edit in EDITS:
        text = edit(text)
        checked, _ = workspace.update(PATH, text, parser)
        assert checked.findings == check_file(text, PATH, CONFIG).findings, edit.__name__
    assert parser.partial >= 4  # the keystrokes within a line took the region re-parse


@pytest.mark.parametrize("far", [1, 40])
def test_two_places_edited_at_once(far: int) -> None:
    """One change in two statements (a rename across the file, a paste): everything between is
    parsed again."""
    padding = "".join(f"\n\ndef unused_{n}(t):\n    return t + {n}\n" for n in range(far))
    text = MODULE.replace("\n\nclass Gate", padding + "\n\nclass Gate")
    workspace = Workspace(CONFIG)
    parser = ChunkedParser()
    workspace.update(PATH, text, parser)
    edited = text.replace("width", "size_of")
    checked, _ = workspace.update(PATH, edited, parser)
    assert checked.findings == check_file(edited, PATH, CONFIG).findings
    assert parser.partial == 1


#: keystrokes that keep the line count, applied to MODULE: what the region re-parse must get
#: right (statements appearing, vanishing, merging; text that parses only as part of the whole)
SAME_LINES = [
    replace("\n\ndef width", "\nSCALE = 2\ndef width"),  # a statement typed on a blank line
    replace("def width(t):", "@staticmethod\ndef width(t):".replace("\n", " ")),  # does not parse
    replace("class Gate(nn.Module):", "class Gate(nn.Module): pass"),  # its body: unexpected indent
    replace("    return t.shape[0]", "    return t.shape[0]; print(t)"),
    replace("import torch\n", "import torch, math\n"),
    replace("        return x\n", "        return x  # last line\n"),
    replace('        # a comment to type into\n', '        """a string to type into\n'),  # unclosed
]


@pytest.mark.parametrize("edit", SAME_LINES, ids=lambda edit: edit.__name__)
def test_a_region_reparse_places_statements_as_a_whole_parse_does(edit: Callable[[str], str]) -> None:
    parser = ChunkedParser()
    parser.parse(MODULE)
    edited = edit(MODULE)
    assert edited.count("\n") == MODULE.count("\n")
    whole = ChunkedParser()
    try:
        expected = whole.parse(edited)[0].code
    except Exception as error:  # noqa: BLE001 - the same failure is expected of the session's parser
        with pytest.raises(type(error)):
            parser.parse(edited)
    else:
        assert parser.parse(edited)[0].code == expected == edited
    assert parser.last == whole.last
