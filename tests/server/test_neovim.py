"""A second real client: Neovim's built-in LSP client, headless, against the real server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli import FIXABLE

SCRIPT = r"""
vim.g.loaded_python3_provider = 0
local ok, err = xpcall(function()
  local last = nil
  local client_id = vim.lsp.start_client({
    name = "xport-lint",
    cmd = { PYTHON, "-m", "xport_lint.server" },
    root_dir = ROOT,
    handlers = {
      ["textDocument/publishDiagnostics"] = function(e, result, ctx, config)
        last = result
        vim.lsp.diagnostic.on_publish_diagnostics(e, result, ctx, config)
      end,
    },
  })
  vim.cmd("edit " .. FILE)
  local buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buf, client_id)
  if not vim.wait(20000, function() return last ~= nil and #last.diagnostics > 0 end, 20) then
    error("no diagnostics arrived")
  end
  local seen = vim.deepcopy(last.diagnostics)
  local diagnostic = seen[1]
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = diagnostic.range,
    context = { diagnostics = { diagnostic } },
  }
  local responses = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 10000)
  local applied = nil
  for _, response in pairs(responses or {}) do
    for _, action in ipairs(response.result or {}) do
      if action.isPreferred and action.edit then
        vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
        applied = action.title
      end
    end
  end
  if applied == nil then error("no preferred code action") end
  if not vim.wait(20000, function() return last ~= nil and #last.diagnostics == 0 end, 20) then
    error("diagnostics did not clear after the fix")
  end
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  local out = io.open(RESULT, "w")
  out:write(vim.fn.json_encode({ code = diagnostic.code, line = diagnostic.range.start.line, action = applied, text = text }))
  out:close()
end, debug.traceback)
if not ok then
  io.stderr:write(tostring(err) .. "\n")
  vim.cmd("cquit 1")
end
vim.cmd("qall!")
"""


def neovim() -> str | None:
    found = shutil.which("nvim")
    if found is None and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-q", "neovim"], capture_output=True, timeout=600)
        found = shutil.which("nvim")
    return found


def test_neovim_sees_the_diagnostic_and_applies_the_fix(tmp_path: Path) -> None:
    nvim = neovim()
    if nvim is None:
        pytest.skip("Neovim is not installed and cannot be installed here (needs root and apt-get)")
    model = tmp_path / "snap.py"
    model.write_text(FIXABLE)
    result = tmp_path / "result.json"
    header = (
        f"PYTHON = {json.dumps(sys.executable)}\nROOT = {json.dumps(str(tmp_path))}\n"
        f"FILE = {json.dumps(str(model))}\nRESULT = {json.dumps(str(result))}\n"
    )
    script = tmp_path / "test.lua"
    script.write_text(header + SCRIPT)
    env = {**os.environ, "HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state")}
    run = subprocess.run(
        [nvim, "--headless", "--clean", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {script}"],
        capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr + run.stdout
    outcome = json.loads(result.read_text())
    assert outcome["code"] == "XPT407" and outcome["line"] == 4
    assert "x.clone() + 1  # keep this comment" in outcome["text"]
