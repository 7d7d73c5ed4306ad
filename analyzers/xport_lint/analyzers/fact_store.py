"""Facts kept by node identity (`PerStatement`), and where they are kept (`FactStore`): for as
long as the tree they are of. Apart from the parser (incremental.py) so that every layer can keep
its facts here without importing what the parser needs (the editor's lenses: confirm, and through
it the rule registry).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

import libcst as cst

T = TypeVar("T")


class FactStore:
    """Where the facts `PerStatement`s compute are kept, for as long as the trees they are of: a
    check of a fresh parse keeps them in a store of its own, dropped with its tree when the check
    ends (a store shared by every check kept each file's functions alive long after: a CLI worker
    grew from 121 to 400 MB over the 150 largest corpus files, the lint child held a hundred MB
    of trees its parser had let go). A ChunkedParser's store keeps the facts its last two parses'
    checks asked for (`age`): an edit asks again for those of its unchanged statements, so a
    document being edited keeps them, and so does one whose edits alternate with another's
    lints. Holds the nodes it keeps facts of: an id is unique only while its node lives.
    `capacity`: entries past which it is emptied (the store of code outside any check)."""

    def __init__(self, capacity: int | None = None) -> None:
        self.capacity = capacity
        #: (the PerStatement, the node's id) -> (the node, its fact), asked for since `age`
        self._asked: dict[tuple[object, int], tuple[cst.CSTNode, object]] = {}
        #: the same, asked for in the last parse and not since, then in the parse before it
        self._before: tuple[dict[tuple[object, int], tuple[cst.CSTNode, object]], ...] = ({}, {})

    def age(self) -> None:
        """A new parse: the facts not asked for since the parse before the last one are dropped."""
        self._before, self._asked = (self._asked, self._before[0]), {}

    def get(self, key: tuple[object, int]) -> tuple[cst.CSTNode, object] | None:
        found = self._asked.get(key)
        if found is None:
            for older in self._before:
                found = older.pop(key, None)
                if found is not None:
                    self._asked[key] = found
                    break
        return found

    def put(self, key: tuple[object, int], node: cst.CSTNode, fact: object) -> None:
        if self.capacity is not None and len(self._asked) >= self.capacity:
            self._asked.clear()
        self._asked[key] = (node, fact)


#: where facts are kept now; outside any check (a test, a direct call) a store bounded as one
#: shared by unrelated trees must be (four times the statements a ChunkedParser keeps)
_store = FactStore(capacity=4_000)


@contextmanager
def facts_kept_in(store: FactStore) -> Iterator[None]:
    """Every `PerStatement` keeps its facts in `store` meanwhile (a check, over the tree `store`
    is of)."""
    global _store
    outer, _store = _store, store
    try:
        yield
    finally:
        _store = outer


class PerStatement(Generic[T]):
    """A fact of a statement (or of any node), computed once per node while its tree is kept
    (see FactStore): with ChunkedParser an unchanged statement is the same node from one edit to
    the next, so an edit computes the fact again only for the statements it touched. Calling it
    computes the fact with `compute`; `get` and `put` serve a fact computed with more at hand
    than the node (then never None: None is a fact not known)."""

    def __init__(self, compute: Callable[[cst.CSTNode], T] | None = None) -> None:
        self.compute = compute

    def __call__(self, node: cst.CSTNode) -> T:
        key = (self, id(node))
        found = _store.get(key)
        if found is not None:
            return found[1]  # type: ignore[return-value]
        assert self.compute is not None
        fact = self.compute(node)
        _store.put(key, node, fact)
        return fact

    def get(self, node: cst.CSTNode) -> T | None:
        found = _store.get((self, id(node)))
        return None if found is None else found[1]  # type: ignore[return-value]

    def put(self, node: cst.CSTNode, fact: T) -> T:
        _store.put((self, id(node)), node, fact)
        return fact
