"""Language-server figures for bench/RESULTS.md: start-up against a bare pygls server,
edit-to-diagnostics latency on real model files (and on a 20,000-line module made of distinct
transformers model files), hover latency while a lint runs, and memory with 50 large files open.

The server runs with its default settings (no initializationOptions), so the latencies include
its debounce, as a user sees them.

Usage: .venv/bin/python bench/server_bench.py [--edits N] [--open N] [--startups N] [--hovers N]
(after bash bench/fetch_corpus.sh; writes bench/results/server.json)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from figures import begin, write_results
from lsprotocol import types
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).parent
SRC = HERE / "corpus" / "src"
SERVER = [sys.executable, "-m", "xport_lint.server"]
MINIMAL = [sys.executable, str(HERE / "minimal_server.py")]
CAPABILITIES = types.ClientCapabilities(
    text_document=types.TextDocumentClientCapabilities(
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True)
    )
)


class Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("bench", "0")
        self.published: dict[str, tuple[int | None, float]] = {}
        self.arrived = asyncio.Event()

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(client: Client, params: types.PublishDiagnosticsParams) -> None:
            client.published[params.uri] = (params.version, time.perf_counter())
            client.arrived.set()

        @self.feature(types.WINDOW_LOG_MESSAGE)
        def on_log(client: Client, params: types.LogMessageParams) -> None:
            pass


async def start(command: list[str]) -> tuple[Client, float]:
    client = Client()
    began = time.perf_counter()
    await client.start_io(*command)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=CAPABILITIES, root_uri=SRC.as_uri()
        )
    )
    elapsed = time.perf_counter() - began
    client.initialized(types.InitializedParams())
    return client, elapsed


async def stop(client: Client) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


async def startup(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        client, elapsed = await start(command)
        times.append(elapsed)
        await stop(client)
    return statistics.median(times)


async def wait_version(client: Client, uri: str, version: int) -> float:
    while client.published.get(uri, (None, 0.0))[0] != version:
        client.arrived.clear()
        await asyncio.wait_for(client.arrived.wait(), 60)
    return client.published[uri][1]


async def edit_latency(path: Path, edits: int) -> dict[str, object]:
    client, _ = await start(SERVER)
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        )
    )
    await wait_version(client, uri, 1)
    lines = text.splitlines(keepends=True)
    target = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].startswith("        ") and lines[i].strip())
    latencies = []
    for n in range(edits):
        version = n + 2
        # a keystroke inside a method body: append a character to a comment on that line
        lines[target] = lines[target].rstrip("\n") + ("  #" if n == 0 else "x") + "\n"
        began = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text="".join(lines))],
            )
        )
        latencies.append(await wait_version(client, uri, version) - began)
    await stop(client)
    return {
        "file": str(path.relative_to(SRC)) if path.is_relative_to(SRC) else path.name,
        "lines": len(lines),
        "median_ms": 1000 * statistics.median(latencies),
        "first_edit_ms": 1000 * latencies[0],
        "max_ms": 1000 * max(latencies),
        "edits": edits,
    }


def big_module(files: list[Path], lines: int, into: Path) -> Path:
    """One module of distinct transformers model files, concatenated in the corpus order until
    it has `lines` lines (`from __future__` lines left out: they must come first)."""
    parts, count = [], 0
    for path in files:
        if not str(path.relative_to(SRC)).startswith("transformers/"):
            continue
        text = "".join(
            line for line in path.read_text(encoding="utf-8").splitlines(keepends=True)
            if not line.startswith("from __future__")
        )
        parts.append(text if text.endswith("\n") else text + "\n")
        count += text.count("\n")
        if count >= lines:
            break
    into.write_text("".join(parts), encoding="utf-8")
    return into


async def hover_during_lint(path: Path, hovers: int) -> dict[str, object]:
    """An edit, then at once a hover on an input size (`x.shape[1]` in a `forward`), while the
    edit's lint runs: the time to the hover's answer, and how many answered before the edit's
    diagnostics arrived. The document's first size hover (which computes the facts) is not
    counted."""
    from xport_lint.analyzers.runner import size_facts

    client, _ = await start(SERVER)
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        )
    )
    await wait_version(client, uri, 1)
    lines = text.splitlines(keepends=True)
    span = size_facts(text, str(path))[0][0]  # an input size the server has a hover for
    at = types.Position(line=span.start.line - 1, character=span.start.column + 1)
    hover = types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=at)
    first = await client.text_document_hover_async(hover)
    target = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].startswith("        ") and lines[i].strip())
    latencies, before_diagnostics, answered = [], 0, 0
    for n in range(hovers):
        version = n + 2
        lines[target] = lines[target].rstrip("\n") + ("  #" if n == 0 else "x") + "\n"
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text="".join(lines))],
            )
        )
        await asyncio.sleep(0.2)  # past the debounce: the lint has started
        began = time.perf_counter()
        answer = await client.text_document_hover_async(hover)
        latencies.append(time.perf_counter() - began)
        answered += answer is not None
        before_diagnostics += client.published.get(uri, (None, 0.0))[0] != version
        await wait_version(client, uri, version)
    await stop(client)
    return {
        "file": path.name,
        "lines": len(lines),
        "hovers": hovers,
        "median_ms": 1000 * statistics.median(latencies),
        "max_ms": 1000 * max(latencies),
        "during_lint": before_diagnostics,
        "answered": answered,
        "first_hover_answered": first is not None,
    }


async def memory(paths: list[Path]) -> float:
    client, _ = await start(SERVER)
    for path in paths:
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=path.as_uri(), language_id="python", version=1, text=path.read_text(encoding="utf-8")
                )
            )
        )
    for path in paths:
        await wait_version(client, path.as_uri(), 1)
    pid = client._server.pid  # type: ignore[union-attr]
    # the server lints in a child process, which holds the parsed trees: count the whole tree
    rss_kb = sum(_rss_kb(p) for p in _process_tree(pid))
    await stop(client)
    return rss_kb / 1024


def _process_tree(pid: int) -> list[int]:
    # children are listed per thread: the lint child is started from a worker thread
    kids = [int(c) for task in Path(f"/proc/{pid}/task").iterdir() for c in (task / "children").read_text().split()]
    return [pid, *(p for kid in kids for p in _process_tree(kid))]


def _rss_kb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    return next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))


def default_debounce_ms() -> float:
    """The debounce a client gets when it sets none, read from the server itself."""
    from xport_lint.server.session import XportLanguageServer

    return XportLanguageServer().debounce * 1000


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edits", type=int, default=15, help="keystrokes per file")
    parser.add_argument("--open", type=int, default=50, help="largest files opened for the memory figure")
    parser.add_argument("--startups", type=int, default=7)
    parser.add_argument("--hovers", type=int, default=10, help="hovers while a lint of the 20,000-line module runs")
    args = parser.parse_args()
    stamp = begin("server")
    files = [SRC / p for p in (HERE / "corpus" / "files.txt").read_text().split()]
    sizes = {p: p.read_text(encoding="utf-8").count("\n") for p in files}
    around_500 = min(files, key=lambda p: abs(sizes[p] - 500))
    largest = max(files, key=lambda p: sizes[p])
    scratch = Path(tempfile.mkdtemp(prefix="xport-lint-server-bench-"))
    big = big_module(files, 20_000, scratch / "model_dense_20000.py")
    results = {
        "debounce_ms": default_debounce_ms(),
        "default_settings": True,
        "startups": args.startups,
        "startup_minimal_pygls_s": await startup(MINIMAL, args.startups),
        "startup_xport_lint_s": await startup(SERVER, args.startups),
        "edit_500_lines": await edit_latency(around_500, args.edits),
        "edit_largest": await edit_latency(largest, args.edits),
        "edit_20000_lines": await edit_latency(big, args.edits),
        "hover_during_lint": await hover_during_lint(big, args.hovers),
        "opened": args.open,
        "rss_mb": await memory(sorted(files, key=lambda p: -sizes[p])[: args.open]),
    }
    big.unlink()
    scratch.rmdir()
    full = args.edits >= 15 and args.open >= 50 and args.startups >= 7 and args.hovers >= 10
    reduced = None if full else (
        f"{args.edits} edits, {args.open} files open, {args.startups} start-ups, {args.hovers} hovers"
    )
    print(write_results("server", stamp, results, reduced))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
