"""The baseline for start-up time: a pygls server that does nothing."""

from pygls.lsp.server import LanguageServer

LanguageServer("minimal", "0").start_io()
