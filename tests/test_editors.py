"""The editor integrations with real clients: Microsoft's DAP test client driving
`lc3jit dap`, and the VS Code extension packaged into a .vsix by @vscode/vsce.

Both need Node and the npm packages of editors/vscode (package-lock.json), which .ci/run
installs once with `npm ci`; on a machine with Node where nobody did, the first test here
installs them. Without Node they are skipped, saying so (and fail under .ci/run, which sets
LC3JIT_REQUIRE_NODE).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
EXTENSION = ROOT / "editors" / "vscode"
FIB = (ROOT / "examples" / "fib.asm").resolve()
TIMEOUT = 300  # seconds: an npm install on a slow network, or a hang


@pytest.fixture(scope="session")
def node() -> str:
    """The node command, with the extension's npm packages installed."""
    node = shutil.which("node")
    if node is None:
        if os.environ.get("LC3JIT_REQUIRE_NODE"):  # .ci/run: these tests must run
            pytest.fail("Node.js is not installed, and LC3JIT_REQUIRE_NODE says the editor tests must run")
        pytest.skip("Node.js is not installed: the DAP client and vsce tests need `node` and `npm`")
    if not (EXTENSION / "node_modules" / ".package-lock.json").exists():
        with open(EXTENSION / "package.json", "rb") as lock:  # one install, whatever the xdist workers
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (EXTENSION / "node_modules" / ".package-lock.json").exists():
                npm = shutil.which("npm") or "npm"
                subprocess.run(
                    [npm, "ci", "--no-audit", "--no-fund"], cwd=EXTENSION, check=True, timeout=TIMEOUT
                )
    return node


def quiet_npm() -> dict[str, str]:
    return {**os.environ, "npm_config_update_notifier": "false", "NO_UPDATE_NOTIFIER": "1"}


def test_debug_client_drives_a_session(node: str, tmp_path: Path) -> None:
    """Launch, a breakpoint by line and its hit, variables, step in, over and out, evaluate,
    a register written, run to the end, the exit code: adapter.test.js says how."""
    lc3jit = tmp_path / "lc3jit"  # the adapter under this very Python
    lc3jit.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m lc3jit "$@"\n')
    lc3jit.chmod(0o755)
    fault = tmp_path / "fault.asm"
    fault.write_text(".ORIG x3000\n.FILL xD000\n.END\n")
    mocha = EXTENSION / "node_modules" / "mocha" / "bin" / "mocha.js"
    result = subprocess.run(
        [node, str(mocha), "--reporter", "spec", "test/adapter.test.js"],
        cwd=EXTENSION,
        env={**quiet_npm(), "LC3JIT": str(lc3jit), "FIB": str(FIB), "FAULT": str(fault)},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passing" in result.stdout


def test_extension_packages_with_language_debugger_and_client(node: str, tmp_path: Path) -> None:
    vsix = tmp_path / "lc3jit.vsix"
    vsce = EXTENSION / "node_modules" / "@vscode" / "vsce" / "vsce"
    result = subprocess.run(
        [node, str(vsce), "package", "--out", str(vsix)],
        cwd=EXTENSION,
        env=quiet_npm(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ERROR" not in result.stdout + result.stderr and "Packaged" in result.stdout
    with zipfile.ZipFile(vsix) as archive:
        names = set(archive.namelist())
        manifest = json.loads(archive.read("extension/package.json"))
        client = archive.read("extension/extension.js").decode()
    contributes = manifest["contributes"]
    [language] = contributes["languages"]
    assert language["id"] == "lc3" and language["extensions"] == [".asm", ".lc3"]
    assert "extension/" + contributes["grammars"][0]["path"].removeprefix("./") in names
    assert "extension/language-configuration.json" in names
    [debugger] = contributes["debuggers"]
    assert (
        debugger["type"] == "lc3" and "program" in debugger["configurationAttributes"]["launch"]["required"]
    )
    assert manifest["main"] == "./extension.js"
    assert "LanguageClient" in client and "'lsp'" in client and "'dap'" in client
    assert "extension/node_modules/vscode-languageclient/node.js" in names  # the client ships with it
    assert not any(name.startswith("extension/test/") for name in names)
