"""Put on PYTHONPATH, breaks XPT101 in every process that starts with it (the CLI, its workers,
the language server and its child): each of its visits raises KeyError, the kind of bug an
internal error reports."""

from xport_lint.analyzers.rules import xpt101_tensor_branch as rule


def _broken(self: object, node: object) -> None:
    raise KeyError("bug")


for _name in dir(rule.TensorBranch):
    if _name.startswith("visit_"):
        setattr(rule.TensorBranch, _name, _broken)
