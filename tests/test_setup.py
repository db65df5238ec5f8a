"""The README's set-up, run as a new user would: in a fresh shell with nothing of ours on the PATH,
from a copy of the checkout. Afterwards `advisor` must be a working command in that shell, from
any folder (the usability review found every example failing with `command not found`)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _setup_command() -> str:
    block = re.search(r"```sh\n(.*?)```", (REPO / "README.md").read_text(encoding="utf-8"), re.DOTALL)
    assert block is not None
    return block.group(1).strip().splitlines()[0]


def _copy_checkout(target: Path) -> None:
    """The files a clone has (tracked, plus new ones not ignored), without anything built here."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO, capture_output=True, check=True)
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def _fresh_environment() -> dict[str, str]:
    """A login-less shell's environment: the system PATH without this test run's virtual
    environment, a home, and how this machine reaches its package index (pip and proxy settings)."""
    ours = (sys.prefix, os.environ.get("VIRTUAL_ENV") or sys.prefix)
    path = os.pathsep.join(p for p in os.environ.get("PATH", os.defpath).split(os.pathsep) if p and not p.startswith(ours))
    kept = {key: value for key, value in os.environ.items() if key.startswith("PIP_") or key.lower().endswith("_proxy")}
    return {**kept, "PATH": path, "HOME": os.environ.get("HOME", "/tmp"), "LANG": "C.UTF-8"}


def test_the_readme_setup_gives_a_working_advisor_command_in_a_fresh_shell(tmp_path: Path) -> None:
    setup = _setup_command()
    assert setup.endswith("&& advisor"), "the set-up ends by starting the app"
    clone = tmp_path / "advisor"
    _copy_checkout(clone)
    # The app needs a terminal; everything before it runs as written, then the README's first examples.
    script = setup.removesuffix("advisor") + 'advisor --version && cd / && advisor ask "mig la gi" && advisor list --lang en && command -v advisor'
    done = subprocess.run(["bash", "--noprofile", "--norc", "-c", script], cwd=clone, env=_fresh_environment(), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("advisor ")
    assert any(line.startswith("MIG (Multi-Instance GPU)") for line in lines)
    assert lines[-1] == str(clone / ".venv" / "bin" / "advisor")
