"""What a rule hands the engine: the node it reports, its message, and the fix it proposes as
libcst replacements (positions and text edits are computed from these by the runner)."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from .index import Reach
from .model import Applicability, Severity


@dataclass(frozen=True)
class Report:
    node: cst.CSTNode
    message: str
    statement: cst.CSTNode | None
    fix: FixProposal | None = None
    related: tuple[tuple[cst.CSTNode, cst.CSTNode | None, str], ...] = ()
    #: how traced code of another file reaches the function this is in
    reach: Reach | None = None
    #: this finding's severity where the rule decides it per finding (shape rules: from how
    #: the model is exported); None: the rule's severity for the mode
    severity: Severity | None = None
    #: (path, line, message) of places elsewhere that explain it (the export call that made a
    #: size dynamic); an empty path: this file
    notes: tuple[tuple[str, int, str], ...] = ()


@dataclass(frozen=True)
class BlockReplacement:
    """Whole lines, from statement `first` to statement `last` of one block, replaced by
    `statements` at the same indentation (a branch turned into functions and a call)."""

    first: cst.CSTNode
    last: cst.CSTNode
    statements: tuple[cst.BaseStatement, ...]


@dataclass(frozen=True)
class FixProposal:
    """A libcst replacement: `replacements` maps original nodes to new ones (or removal);
    `blocks` replace whole statements."""

    title: str
    applicability: Applicability
    replacements: tuple[tuple[cst.CSTNode, cst.CSTNode | cst.RemovalSentinel], ...]
    imports: tuple[str, ...] = field(default=())
    blocks: tuple[BlockReplacement, ...] = field(default=())
    #: a step that leaves the error to another fix of the next round (a number kept on `self` made a
    #: local, which the branch rewrite then binds): offered only where it lets more errors be fixed
    step: bool = False
