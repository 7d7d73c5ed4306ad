"""Where a file's analysis lived before it was split by layer: kept so that imports from here
still work while they move (symbols -> export_site -> reach -> facts)."""

from .export_site import EXPORT_APIS, ExportCall
from .facts import FileFacts as Program
from .facts import passed_kind
from .reach import Traced, export_guard
from .symbols import ModuleClass

__all__ = ["EXPORT_APIS", "ExportCall", "ModuleClass", "Program", "Traced", "export_guard", "passed_kind"]
