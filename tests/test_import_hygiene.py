"""`advisor ask` must feel instant: it never imports Textual, and a warm cache spares YAML and
markdown-it too. Checked in a fresh interpreter, as harlequin's import-hygiene test does."""

from __future__ import annotations

import json
import os
import subprocess
import sys

PROBE = """
import json, sys
from advisor.cli import main
code = main(sys.argv[1:])
heavy = sorted(m for m in ("textual", "yaml", "markdown_it", "rich", "numpy", "advisor.catalogue.questions") if m in sys.modules)
print("\\nMODULES=" + json.dumps(heavy), file=sys.stderr)
"""


def loaded_modules(*argv: str) -> list[str]:
    result = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=os.environ, timeout=60)
    line = [ln for ln in result.stderr.splitlines() if ln.startswith("MODULES=")][-1]
    return json.loads(line.removeprefix("MODULES="))


def test_ask_never_imports_textual_even_on_a_cold_cache() -> None:
    assert "textual" not in loaded_modules("ask", "--json", "mig la gi")


def test_warm_ask_imports_only_what_it_needs() -> None:
    loaded_modules("ask", "mig la gi")  # builds the cache
    assert loaded_modules("ask", "--json", "mig la gi") == []
    assert loaded_modules("ask", "what is MIG?") == []


def test_domain_modules_never_import_textual() -> None:
    code = (
        "import sys, advisor.search.rank, advisor.search.index, advisor.knowledge.load, advisor.reply, advisor.cli;"
        "print('textual' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "False"
