"""The architecture's rules, as tests (docs/architecture.md).

- Every module but the app's screens and widgets imports without Textual (a fresh interpreter
  proves it, as harlequin's import-hygiene test does), and the list is discovered, not written.
- `advisor ask` loads only what it needs: never Textual, and with a warm cache no YAML,
  markdown-it, dataclasses, pathlib, hashlib or platformdirs either, and no catalogue code for a
  question that names no provider.
- Engine modules import downwards only, never in a circle, and none grows past ~400 lines.
"""

from __future__ import annotations

import ast
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import advisor
from tests.conftest import cache_folder

PACKAGE = Path(advisor.__file__).resolve().parent
# The Textual layer: screens, widgets and the app that holds them.
UI_MODULES = ("advisor.tui.app", "advisor.tui.screens", "advisor.tui.widgets", "advisor.tui.messages", "advisor.tui.advisor_commands")
# Front ends: thin layers over the engine.
FRONT_ENDS = ("advisor.tui", "advisor.commands", "advisor.cli", "advisor.__main__")
# Engine layers, top to bottom: a module may import its own layer's package and anything below.
# Within a layer, a module imports only its own package; the leaves (last layer) import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("advisor.learning",),
    ("advisor.question_log",),
    ("advisor.reply", "advisor.export"),
    ("advisor.library",),
    ("advisor.decision",),
    ("advisor.catalogue",),
    ("advisor.search",),
    ("advisor.knowledge",),
    ("advisor.files", "advisor.textnorm", "advisor.yamlsafe", "advisor.i18n", "advisor.paths", "advisor.problems", "advisor.terminal", "advisor.terminal_markdown"),
)
MAX_ENGINE_LINES = 400


def _all_modules() -> list[str]:
    found = ["advisor"]
    for info in pkgutil.walk_packages([str(PACKAGE)], prefix="advisor."):
        found.append(info.name)
    return sorted(found)


def _under(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes)


def _file_of(module: str) -> Path:
    relative = Path(*module.split(".")[1:])
    package = PACKAGE / relative / "__init__.py"
    return package if package.exists() else (PACKAGE / relative).with_suffix(".py")


ENGINE = [m for m in _all_modules() if not _under(m, FRONT_ENDS)]
HEADLESS = [m for m in _all_modules() if not _under(m, UI_MODULES) and m != "advisor.__main__"]  # importing __main__ runs the CLI


def test_the_module_lists_are_discovered() -> None:
    assert "advisor.reply" in ENGINE and "advisor.search.rank" in ENGINE and "advisor.decision.session" in ENGINE
    assert "advisor.tui.settings" in HEADLESS and "advisor.commands.ask" in HEADLESS
    assert "advisor.tui.app" not in HEADLESS and "advisor.tui.screens.chat_screen" not in HEADLESS


def test_headless_modules_never_import_textual() -> None:
    code = (
        "import importlib, sys\n"
        f"for name in {HEADLESS!r}: importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


PROBE = """
import sys
from advisor.cli import main
main(sys.argv[1:])
loaded = sorted(sys.modules)
import json
print("\\nMODULES=" + json.dumps(loaded), file=sys.stderr)
"""
# The same, with standard output taken for an 80-column terminal (styled, wrapped, never paged).
TERMINAL_PROBE = """
import io, sys
class Terminal(io.StringIO):
    def isatty(self):
        return True
sys.stdout = Terminal()
""" + PROBE
# Never on a warm `advisor ask`: the app, YAML and Markdown parsing, slow standard modules, and
# the code that builds an index.
ASK_FORBIDDEN = ("textual", "rich", "yaml", "markdown_it", "numpy", "dataclasses", "pathlib", "hashlib", "platformdirs", "advisor.knowledge.load", "advisor.search.build", "advisor.search.postings")


def _loaded(tmp_path: Path, *argv: str, terminal: bool = False) -> set[str]:
    env = {**os.environ, "ADVISOR_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "80", "PAGER": ""}
    result = subprocess.run([sys.executable, "-c", TERMINAL_PROBE if terminal else PROBE, *argv], capture_output=True, text=True, env=env, timeout=120)
    line = [ln for ln in result.stderr.splitlines() if ln.startswith("MODULES=")][-1]
    return set(json.loads(line.removeprefix("MODULES=")))


def _forbidden(loaded: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(name for name in names if any(m == name or m.startswith(name + ".") for m in loaded))


@pytest.fixture
def warm(tmp_path: Path, built_cache: Path) -> Path:
    """tmp_path whose cache folder holds the built index and tree, as earlier commands leave it."""
    cache_folder(tmp_path, built_cache)
    return tmp_path


def test_ask_never_imports_textual_even_on_a_cold_cache(tmp_path: Path) -> None:
    assert "textual" not in _loaded(tmp_path, "ask", "--json", "mig la gi")


@pytest.mark.parametrize("argv", [("ask", "--json", "mig la gi"), ("ask", "what is MIG?"), ("mig la gi",)])
def test_warm_ask_imports_only_what_it_needs(warm: Path, argv: tuple[str, ...]) -> None:
    _loaded(warm, "ask", "mig")  # read once, as the ask before it would
    assert _forbidden(_loaded(warm, *argv), (*ASK_FORBIDDEN, "advisor.catalogue")) == []


def test_an_answer_that_offers_no_guide_reads_no_hints(warm: Path) -> None:
    """Most answers cannot offer the guide, which the tree cache's header tells without the module
    that reads a question's phrases (`advisor.reply.wizard_answers`)."""
    _loaded(warm, "ask", "mig")
    assert "advisor.decision.hints" not in _loaded(warm, "ask", "--json", "how do I split an A100 into MIG instances?")
    assert "advisor.decision.hints" in _loaded(warm, "ask", "--json", "k8s for 1 notebook?")


def test_warm_ask_json_writes_json_without_the_json_module(warm: Path) -> None:
    """Its C encoder is enough for compact output; the module costs a millisecond (`advisor.textnorm.json_dumps`)."""
    _loaded(warm, "ask", "mig")
    assert "json" not in _loaded(warm, "ask", "--json", "how do I split an A100 into MIG instances?")


def test_an_answer_on_a_terminal_needs_neither_the_json_module_nor_textwrap(warm: Path) -> None:
    """Labels are read by the json module's C scanner, lines wrapped by `advisor.terminal.wrap_words`:
    their modules would compile nine patterns, about 2 ms of every answer."""
    _loaded(warm, "ask", "mig")
    loaded = _loaded(warm, "ask", "how do I split an A100 into MIG instances?", terminal=True)
    assert "advisor.terminal" in loaded and "advisor.i18n" in loaded  # it was laid out for the terminal, with labels
    assert _forbidden(loaded, ("json", "textwrap")) == []


def test_a_settled_cache_is_not_read_whole_on_each_ask(tmp_path: Path) -> None:
    """Once checked, the same cache file is trusted until it changes (`advisor.search.storage`):
    the checksum module is not even imported."""
    env = {**os.environ, "ADVISOR_CACHE_DIR": str(tmp_path / "cache")}
    settle = "import advisor.search.storage as s; s.RACY_SECONDS = -1.0\n"  # as if the cache were old
    subprocess.run([sys.executable, "-c", settle + PROBE, "ask", "mig"], capture_output=True, env=env, timeout=120, check=True)  # built, then read back and checked
    assert "zlib" not in _loaded(tmp_path, "ask", "--json", "how do I split an A100 into MIG instances?")


def test_a_provider_question_still_needs_no_yaml(warm: Path) -> None:
    _loaded(warm, "ask", "mig")
    loaded = _loaded(warm, "ask", "does gke support mig")
    assert "advisor.catalogue.replies" in loaded
    assert _forbidden(loaded, ("textual", "yaml", "markdown_it", "advisor.knowledge.load", "advisor.search.build")) == []


@pytest.mark.parametrize("argv", [("recommend", "--answer", "workload=notebook", "--format", "json"), ("providers", "--json")])
def test_recommend_and_providers_never_import_dataclasses(warm: Path, argv: tuple[str, ...]) -> None:
    """Their records are NamedTuples: dataclasses cost them a third of their start-up (docs/architecture.md)."""
    _loaded(warm, "ask", "mig")  # read once, as the ask before it would
    assert _forbidden(_loaded(warm, *argv), ("textual", "yaml", "markdown_it", "dataclasses", "advisor.knowledge.load")) == []


def test_providers_without_a_current_index_builds_none(tmp_path: Path) -> None:
    """Reading providers.yaml costs a small part of building the index only to reach it."""
    loaded = _loaded(tmp_path, "providers", "--json")
    assert "advisor.search.build" not in loaded and "advisor.catalogue.load" in loaded


def _imports(module: str) -> set[str]:
    """Every advisor module `module` imports, at any depth of its code, except type-only imports."""
    tree = ast.parse(_file_of(module).read_text(encoding="utf-8"))
    type_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            type_only.update(id(child) for child in ast.walk(node))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    modules = set(_all_modules())
    return {name for name in found if name in modules and name != module}


def _layer(module: str) -> int:
    if module == "advisor":  # the package itself: only a lazy `__version__`
        return len(LAYERS) - 1
    for number, prefixes in enumerate(LAYERS):
        if _under(module, prefixes):
            return number
    raise AssertionError(f"{module} is in no layer of LAYERS")


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_engine_modules_import_downwards_only() -> None:
    wrong: list[str] = []
    for module in ENGINE:
        for imported in _imports(module):
            if _under(imported, FRONT_ENDS):
                wrong.append(f"{module} imports the front end {imported}")
            elif _layer(imported) < _layer(module) or (_layer(imported) == _layer(module) and _package(imported) != _package(module) and _layer(module) != len(LAYERS) - 1):
                wrong.append(f"{module} imports {imported}, which is not below it")
    assert wrong == []


def test_no_import_cycles_between_engine_modules() -> None:
    graph = {module: _imports(module) & set(ENGINE) for module in ENGINE}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(module: str, stack: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append(stack[stack.index(target):] + [target])
            elif target not in state:
                visit(target, [*stack, target])
        state[module] = 2

    for module in ENGINE:
        if module not in state:
            visit(module, [module])
    assert cycles == []


@pytest.mark.parametrize("module", ENGINE)
def test_engine_modules_stay_small(module: str) -> None:
    assert len(_file_of(module).read_text(encoding="utf-8").splitlines()) <= MAX_ENGINE_LINES


def test_only_the_command_line_raises_usage_errors() -> None:
    raising = [m for m in ENGINE if "UsageError" in _file_of(m).read_text(encoding="utf-8") and m != "advisor.problems"]
    assert raising == []
