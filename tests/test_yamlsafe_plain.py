"""A front matter of strings, lists and mappings is read without PyYAML's constructor, to the
same data and lines; anything else goes through the constructor, as before."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor import yamlsafe

SCALARS = ["plain words", '"quoted: text"', "'single'", "yes", "no", "1", "1.5", "2024-01-01", "null", "~", "", "[a, b]", "{x: 1}",
           "&a anchored", "*a", "!!str 5", "\"esc\\tape\"", "- item", "|\n  block\n  text", "https://example.com/a#b", "a: b: c", "#comment"]
KEYS = ["id", "title", "questions", "1", "yes", "<<"]


def _document(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        key = draw(st.sampled_from(KEYS))
        if draw(st.booleans()):
            lines.append(f"{key}: {draw(st.sampled_from(SCALARS))}")
        else:
            lines.append(f"{key}:")
            lines += [f"  - {draw(st.sampled_from(SCALARS))}" for _ in range(draw(st.integers(0, 3)))]
    return "\n".join(lines) + "\n"


documents = st.composite(_document)


def _reference(text: str) -> yamlsafe.YamlDoc | str:
    """The constructor's reading (the plain one switched off), or its error."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(yamlsafe, "_plain", lambda *args: (_ for _ in ()).throw(yamlsafe._NotPlain()))
        try:
            return yamlsafe.load(text, 1)
        except yamlsafe.YamlError as error:
            return f"{error.line}:{error.message}"


@settings(max_examples=1500, deadline=None)
@given(documents())
def test_the_plain_reading_gives_what_the_constructor_gives(text: str) -> None:
    try:
        found: yamlsafe.YamlDoc | str = yamlsafe.load(text, 1)
    except yamlsafe.YamlError as error:
        found = f"{error.line}:{error.message}"
    assert found == _reference(text)


def test_a_recursive_alias_is_refused_as_before() -> None:
    with pytest.raises(yamlsafe.YamlError, match="aliases"):
        yamlsafe.load("a: &x [1, *x]\n")
    assert _reference("a: &x [1, *x]\n") == "2:invalid YAML: aliases (*name) are not supported; write the value out"  # line_offset 1


def test_safe_loader_only() -> None:
    with pytest.raises(yamlsafe.YamlError):
        yamlsafe.load("!!python/object/apply:os.system ['true']\n")
    assert yaml  # the module under test never uses anything but the safe loaders
