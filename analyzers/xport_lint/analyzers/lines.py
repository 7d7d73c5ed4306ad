"""Lines as Python and LSP count them. No libcst here: the language server splits documents
before it has imported the parser (it answers `initialize` first)."""

from __future__ import annotations

import re

# characters `str.splitlines` breaks at that Python (and LSP) do not: \v \f \x1c-\x1e NEL LS PS
_NOT_PYTHON_BREAKS = re.compile("[\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_PYTHON_LINE = re.compile(r".*?(?:\r\n|\r|\n)|.+\Z", re.DOTALL)


def split_lines(text: str) -> list[str]:
    """`text`'s lines, ends kept, split where Python's tokenizer and LSP split (\\n, \\r\\n, \\r)
    and nowhere else: `str.splitlines` also splits at U+0085, U+2028, form feed..., so line
    numbers drift and a re-indented string literal would change or break."""
    if not _NOT_PYTHON_BREAKS.search(text):
        return text.splitlines(keepends=True)
    return _PYTHON_LINE.findall(text)
