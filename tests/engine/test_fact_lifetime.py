"""How long facts kept by node identity live (incremental.FactStore): a check of a fresh parse
keeps none past its end, so a CLI worker does not hold the trees of the files it checked before;
a ChunkedParser keeps those its parses' checks still ask for, so an edit reuses them."""

from __future__ import annotations

import gc
import sys

import libcst as cst

from xport_lint.analyzers import check_source
from xport_lint.analyzers.incremental import ChunkedParser, FactStore, PerStatement, facts_kept_in
from xport_lint.analyzers.rewrites import common
from xport_lint.analyzers.runner import check_file

# a traced `assert` with a fix: the fix asks for the file's names (rewrites.common.names_of)
MODEL = """import torch


class Model(torch.nn.Module):
    def forward(self, x):
        assert x.sum() > 0
        return x * 2


torch.export.export(Model(), (torch.ones(2),))
"""


def counting() -> tuple[PerStatement[str], list[cst.CSTNode]]:
    computed: list[cst.CSTNode] = []
    return PerStatement(lambda node: computed.append(node) or type(node).__name__), computed


def test_a_check_keeps_its_facts_until_it_ends_and_no_longer() -> None:
    facts, computed = counting()
    statement = cst.parse_module("x = 1\n").body[0]
    held = sys.getrefcount(statement)
    with facts_kept_in(FactStore()):
        assert facts(statement) == facts(statement) == "SimpleStatementLine"
        assert len(computed) == 1
        assert sys.getrefcount(statement) > held
    computed.clear()
    assert sys.getrefcount(statement) == held  # the store went with the check: the node is not kept
    with facts_kept_in(FactStore()):
        facts(statement)
    assert len(computed) == 1  # a new check computes it again


def test_a_fact_may_be_none_and_is_still_computed_once() -> None:
    computed: list[cst.CSTNode] = []
    facts: PerStatement[None] = PerStatement(computed.append)
    statement = cst.parse_module("x = 1\n").body[0]
    with facts_kept_in(FactStore()):
        facts(statement)
        facts(statement)
    assert len(computed) == 1


def test_get_and_put_keep_a_fact_computed_elsewhere_in_the_same_store() -> None:
    facts: PerStatement[frozenset[str]] = PerStatement()
    function = cst.parse_module("def f(x):\n    return x\n").body[0]
    with facts_kept_in(FactStore()):
        assert facts.get(function) is None
        assert facts.put(function, frozenset({"x"})) == frozenset({"x"})
        assert facts.get(function) == frozenset({"x"})
    with facts_kept_in(FactStore()):
        assert facts.get(function) is None


def test_scopes_nest_and_the_outer_store_comes_back() -> None:
    facts, computed = counting()
    statement = cst.parse_module("x = 1\n").body[0]
    outer = FactStore()
    with facts_kept_in(outer):
        facts(statement)
        with facts_kept_in(FactStore()):
            facts(statement)
        facts(statement)
    assert len(computed) == 2


def documents(count: int) -> list[str]:
    return [f"import torch\n\ny_{n} = 1\n\n\ndef helper_{n}(x):\n    return x + {n}\n" for n in range(count)]


def ask_all(parser: ChunkedParser, text: str, facts: PerStatement[str]) -> cst.Module:
    module, _ = parser.parse(text)
    with facts_kept_in(parser.facts):
        for statement in module.body:
            facts(statement)
    return module


def test_a_parser_keeps_the_facts_of_the_two_documents_edited_last() -> None:
    """Two documents edited in turn keep theirs (an edit computes only the statement it
    changed); one not parsed since the parse before the last loses them."""
    facts, computed = counting()
    parser = ChunkedParser()
    first, second, third = documents(3)
    ask_all(parser, first, facts)
    ask_all(parser, second, facts)
    computed.clear()
    ask_all(parser, first.replace("x + 0", "x + 10"), facts)
    assert [type(node).__name__ for node in computed] == ["FunctionDef"]
    ask_all(parser, third, facts)
    ask_all(parser, second, facts)  # the first document has not been parsed since the one before the last
    computed.clear()
    ask_all(parser, first, facts)
    # the assignment and the helper computed again; the import is the same node in all three
    # documents (the same text), asked for by each
    assert [type(node).__name__ for node in computed] == ["SimpleStatementLine", "FunctionDef"]


def test_a_parsers_facts_live_in_its_own_store() -> None:
    facts, computed = counting()
    parser = ChunkedParser()
    (text,) = documents(1)
    ask_all(parser, text, facts)
    module, _ = parser.parse(text)
    with facts_kept_in(FactStore()):
        for statement in module.body:
            facts(statement)
    assert len(computed) == 2 * len(module.body)


def test_an_editor_check_keeps_the_file_names_for_the_next_edit(monkeypatch) -> None:  # noqa: ANN001
    """check_file with a ChunkedParser: the rewrites' per-statement scans are asked again only
    for the statement an edit changed."""
    scanned: list[cst.CSTNode] = []
    scan = common._STATEMENT_SCANS.compute
    assert scan is not None
    monkeypatch.setattr(common._STATEMENT_SCANS, "compute", lambda node: scanned.append(node) or scan(node))
    parser = ChunkedParser()
    first = check_file(MODEL, "model.py", parser=parser)
    assert any(finding.fix is not None for finding in first.findings)
    assert scanned
    scanned.clear()
    edited = check_file(MODEL.replace("x * 2", "x * 3"), "model.py", parser=parser)
    assert [f.code for f in edited.findings] == [f.code for f in first.findings]
    assert [type(node).__name__ for node in scanned] == ["ClassDef"]


def test_a_check_of_a_fresh_parse_leaves_no_statement_of_its_tree_kept() -> None:
    """What the CLI's workers do, file after file: the rewrites' per-statement scans of a file
    are gone with its check (a shared store kept the last 4,000 top-level statements of every
    file a worker checked: whole files)."""
    check_source(MODEL, "model.py")
    scan = common._STATEMENT_SCANS
    # `type(...) is`, not isinstance: isinstance asks a dead weak proxy another test left for its
    # class, which raises ReferenceError
    kept = [node for node in gc.get_objects() if type(node) is cst.ClassDef and scan.get(node) is not None]
    assert kept == []
