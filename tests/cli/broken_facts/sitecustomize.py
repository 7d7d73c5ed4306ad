"""Put on PYTHONPATH, breaks the dataflow facts of any function named `explode` in every process
that starts with it (the CLI and its workers): solving them raises KeyError, the kind of bug in
the analysis below the rules that an internal error reports."""

from xport_lint.analyzers import dataflow

_solve = dataflow.FunctionFlow._solve


def _broken(self: dataflow.FunctionFlow) -> None:
    if self.func.name.value == "explode":
        raise KeyError("bug")
    _solve(self)


dataflow.FunctionFlow._solve = _broken  # type: ignore[method-assign]
