"""The language-server client fixture, for the editor's repair command."""

from tests.server.conftest import client  # noqa: F401 - a fixture, used by name
