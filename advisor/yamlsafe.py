"""Safe YAML loading that remembers where every mapping key was written.

Only `yaml.SafeLoader` is ever used: a `!!python/object` tag is an error, never code. Validation
messages need line numbers, so the composed node tree is kept alongside the plain data.

Aliases (`*name`) are refused: none of advisor's files needs them, and a few hundred bytes of
nested aliases ("billion laughs") expand to gigabytes in anything that walks the data. The node
count is capped too, so what a 1 MB file can make the validators walk stays bounded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

try:  # the C loader is several times faster; both are safe loaders
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Loader = yaml.SafeLoader


@dataclass(frozen=True)
class YamlDoc:
    """Parsed YAML plus the 1-based line of each node, addressed by key/index path."""

    data: Any
    lines: dict[tuple[Any, ...], int] = field(default_factory=dict)
    line_offset: int = 0

    def line(self, *path: Any) -> int:
        """The line of the deepest known node on `path` (the document start if none)."""
        for end in range(len(path), -1, -1):
            found = self.lines.get(tuple(path[:end]))
            if found is not None:
                return found + self.line_offset
        return 1 + self.line_offset


# More values than any knowledge entry, tree, catalogue or answers file needs by far.
MAX_NODES = 250_000


class YamlError(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


class _Walk:
    """Records the line of every node once, refusing aliases and bounding the node count."""

    def __init__(self) -> None:
        self.lines: dict[tuple[Any, ...], int] = {}
        self.seen: set[int] = set()

    def node(self, node: yaml.Node, path: tuple[Any, ...], line: int) -> None:
        """`line` is where the node is referred to (an alias has only its anchor's position)."""
        if id(node) in self.seen:
            raise YamlError(line, "invalid YAML: aliases (*name) are not supported; write the value out")
        self.seen.add(id(node))
        if len(self.seen) > MAX_NODES:
            raise YamlError(line, f"invalid YAML: more than {MAX_NODES:,} values")
        self.lines[path] = line = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
                key_line = key_node.start_mark.line + 1
                self.node(value_node, path + (key,), key_line)
                self.lines[path + (key,)] = key_line
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self.node(item, path + (index,), line)


_STR, _SEQ, _MAP = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"


class _NotPlain(Exception):
    """A document the plain reading leaves to PyYAML's constructor."""


def _plain(node: yaml.Node, path: tuple[Any, ...], lines: dict[tuple[Any, ...], int], seen: set[int]) -> Any:
    """The data of a document of strings, lists and string-keyed mappings only, and each node's
    line, in one walk: what the constructor builds, at a third of its cost (indexing reads a
    hundred thousand front matters). Anything else (numbers, dates, tags, merges, aliases)
    raises `_NotPlain`."""
    if id(node) in seen or len(seen) >= MAX_NODES:  # an alias, or a document too large
        raise _NotPlain
    seen.add(id(node))
    lines[path] = node.start_mark.line + 1
    if node.tag == _STR and isinstance(node, yaml.ScalarNode):
        return node.value
    if node.tag == _SEQ and isinstance(node, yaml.SequenceNode):
        return [_plain(item, path + (index,), lines, seen) for index, item in enumerate(node.value)]
    if node.tag != _MAP or not isinstance(node, yaml.MappingNode):
        raise _NotPlain
    data: dict[str, Any] = {}
    for key_node, value_node in node.value:
        if key_node.tag != _STR or not isinstance(key_node, yaml.ScalarNode):
            raise _NotPlain
        key = key_node.value
        data[key] = _plain(value_node, path + (key,), lines, seen)
        lines[path + (key,)] = key_node.start_mark.line + 1
    return data


def load(text: str, line_offset: int = 0) -> YamlDoc:
    """Parse one YAML document; raise `YamlError` with a 1-based line on any failure."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return YamlDoc(None, {}, line_offset)
        lines: dict[tuple[Any, ...], int] = {}
        try:
            data = _plain(node, (), lines, set())
        except _NotPlain:  # the slower reading, which also refuses aliases and huge documents
            walk = _Walk()
            walk.node(node, (), node.start_mark.line + 1)
            lines = walk.lines
            data = loader.construct_document(node)
    except YamlError as error:
        raise YamlError(error.line + line_offset, error.message) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = (mark.line + 1 if mark else 1) + line_offset
        problem = " ".join((error.problem or error.context or "unreadable").split())
        raise YamlError(line, f"invalid YAML: {problem}") from None
    except yaml.reader.ReaderError as error:  # a character YAML refuses (NUL, other controls)
        line = text.count("\n", 0, max(error.position, 0)) + 1 + line_offset
        raise YamlError(line, f"invalid YAML: unacceptable character #x{error.character:04x}") from None
    except yaml.YAMLError as error:
        raise YamlError(1 + line_offset, "invalid YAML: " + " ".join(str(error).split())) from None
    except RecursionError:
        raise YamlError(1 + line_offset, "invalid YAML: nested too deeply") from None
    finally:
        loader.dispose()
    return YamlDoc(data, lines, line_offset)
