"""The YAML the knowledge shows, checked the way a reader will use it: pasted into a cluster.

Every ```yaml block of every entry (and every YAML heredoc in a shell block) must parse, and each
document in it is checked by what it is:

- a core Kubernetes kind validates against the Kubernetes schemas (`kubernetes-validate`, strict:
  a misspelt field is an error), so we never hand-write those schemas;
- an operator's kind (PyTorchJob, ClusterQueue, InferenceService...) has the fields its operator
  requires, from the table in tests/data/operator_kinds.yaml; its pod templates and metadata are
  validated against the Kubernetes schemas too;
- a fragment (a few fields of a bigger object, such as `resources:` or `tolerations:`) validates
  inside the smallest core object that holds all its keys;
- a known configuration file (device-plugin config, MIG partitions) has the right shape; other
  YAML (Helm values) need only parse.

`python -m tests.knowledge_yaml [KNOWLEDGE_DIR]` prints each problem as `file:line: problem`.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import kubernetes_validate
import yaml

REPO = Path(__file__).resolve().parent.parent
RULES_FILE = REPO / "tests" / "data" / "operator_kinds.yaml"
# The oldest Kubernetes minor whose API serves resource.k8s.io/v1 (DRA), which entries show; the
# managed services all offer it or newer.
KUBERNETES = "1.34.0"

FENCE = re.compile(r"^([ \t]*)```(\S*)[^\n]*\n(.*?)^[ \t]*```[ \t]*$", re.S | re.M)
HEREDOC = re.compile(r"<<-?[ \t]*['\"]?(\w+)['\"]?[^\n]*\n(.*?)^\1$", re.S | re.M)
# A heredoc holds YAML when its command writes a .yaml file or pipes into kubectl.
YAML_COMMAND = re.compile(r"\.ya?ml\b|kubectl\s+(?:apply|create)\b")
UNEXPECTED = re.compile(r"\('([^']+)' was unexpected\)")
YAML_TYPES = {"bool": bool, "int": int, "str": str, "list": list, "map": dict}


class Block(NamedTuple):
    """YAML text from an entry: `where` (knowledge/<lang>/<id>.md), the file `line` of its first
    line and its `text`."""

    where: str
    line: int
    text: str


class Found(NamedTuple):
    """What a path reached: its `value`, YAML `node`, `trail` (keys and indexes) and `line` (of
    its key, where a reader looks)."""

    value: Any
    node: yaml.Node
    trail: tuple[Any, ...]
    line: int


class Missing(NamedTuple):
    """A required path that is absent: `line` is that of the nearest parent that is there."""

    trail: tuple[Any, ...]
    line: int


def yaml_blocks(root: Path) -> list[Block]:
    """Every YAML text in the entries under `root` (a knowledge folder of <lang>/<id>.md files)."""
    found: list[Block] = []
    for path in sorted(root.glob("*/*.md")):
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(root.parent).as_posix()
        for fence in FENCE.finditer(text):
            first = text.count("\n", 0, fence.start(3)) + 1
            body = textwrap.dedent(fence.group(3))
            if fence.group(2) in ("yaml", "yml"):
                found.append(Block(where, first, body))
            elif fence.group(2) in ("bash", "sh", "shell", "console"):
                for doc in HEREDOC.finditer(body):
                    command = body[body.rfind("\n", 0, doc.start()) + 1 : doc.start()]
                    if YAML_COMMAND.search(command):
                        found.append(Block(where, first + body.count("\n", 0, doc.start(2)), doc.group(2)))
    return found


@cache
def rules() -> tuple[dict[tuple[str, str], dict[str, Any]], list[dict[str, Any]]]:
    """The operator kinds table, by (apiVersion, kind), and the config shapes."""
    data = yaml.safe_load(RULES_FILE.read_text(encoding="utf-8"))
    return {(kind["apiVersion"], kind["kind"]): kind for kind in data["kinds"]}, data["configs"]


@cache
def _definitions() -> dict[str, Any]:
    schemas = Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema" / f"v{KUBERNETES}-local-strict"
    return json.loads((schemas / "_definitions.json").read_text(encoding="utf-8"))["$defs"]


def _fields(definition: str) -> frozenset[str]:
    return frozenset(_definitions()[f"io.k8s.api.{definition}"]["properties"])


def _pod(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "fragment"}, "spec": spec}


_CONTAINER = {"name": "fragment"}
_TEMPLATE = {"metadata": {"labels": {"app": "fragment"}}, "spec": {"containers": [_CONTAINER]}}
# Where a fragment may sit, smallest first: (schema definition, whole object around it, path of
# the fragment in that object).
HOSTS: tuple[tuple[str, Any, tuple[Any, ...]], ...] = (
    ("core.v1.Container", lambda f: _pod({"containers": [{**_CONTAINER, **f}]}), ("spec", "containers", 0)),
    ("core.v1.PodSpec", lambda f: _pod({"containers": [_CONTAINER], **f}), ("spec",)),
    (
        "apps.v1.DeploymentSpec",
        lambda f: {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "fragment"},
                   "spec": {"selector": {"matchLabels": {"app": "fragment"}}, "template": _TEMPLATE, **f}},
        ("spec",),
    ),
    (
        "batch.v1.JobSpec",
        lambda f: {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "fragment"},
                   "spec": {"template": {"spec": {"containers": [_CONTAINER], "restartPolicy": "Never"}}, **f}},
        ("spec",),
    ),
)


def is_core(api_version: str) -> bool:
    """Whether `api_version` belongs to Kubernetes itself (v1, apps/v1, *.k8s.io/*) rather than to
    an add-on (kueue.x-k8s.io, ray.io...)."""
    group = api_version.rpartition("/")[0]
    return "." not in group or (group.endswith(".k8s.io") and not group.endswith(".x-k8s.io"))


def parse_path(path: str) -> list[tuple[str, bool]]:
    """`a.b?.[c.d/e]` -> [("a", False), ("b", True), ("c.d/e", False)]."""
    out = []
    for part in re.findall(r"\[[^\]]*\]\??|[^.\[]+", path):
        optional = part.endswith("?")
        out.append((part.rstrip("?").removeprefix("[").removesuffix("]"), optional))
    return out


def child(node: yaml.Node, key: Any) -> tuple[yaml.Node, int]:
    """The node under `key` (a mapping key or list index) of `node` and the line of its key;
    `node` and its own line when there is no such key."""
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if key_node.value == str(key):
                return value_node, key_node.start_mark.line
    elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
        return node.value[key], node.value[key].start_mark.line
    return node, node.start_mark.line


def walk(value: Any, node: yaml.Node, path: str) -> Iterator[Found | Missing]:
    """What `path` reaches in `value` (whose YAML node is `node`), one result per match."""
    yield from _walk(value, node, parse_path(path), (), node.start_mark.line)


def _walk(value: Any, node: yaml.Node, segments: list[tuple[str, bool]], trail: tuple[Any, ...], line: int) -> Iterator[Found | Missing]:
    if not segments:
        yield Found(value, node, trail, line)
        return
    (key, optional), rest = segments[0], segments[1:]
    if key == "*":
        items = list(value.items()) if isinstance(value, dict) else list(enumerate(value)) if isinstance(value, list) else []
        if not items and not optional:
            yield Missing((*trail, "*"), line)
        for label, item in items:
            item_node, item_line = child(node, label)
            yield from _walk(item, item_node, rest, (*trail, label), item_line)
    elif isinstance(value, dict) and key in value:
        value_node, key_line = child(node, key)
        yield from _walk(value[key], value_node, rest, (*trail, key), key_line)
    elif not optional:
        yield Missing((*trail, key), line)


def dotted(trail: tuple[Any, ...]) -> str:
    """A path for people: `spec.containers[0].resources`."""
    out = ""
    for part in trail:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the document"


def locate(node: yaml.Node, path: tuple[Any, ...]) -> int:
    """The line of the deepest key along `path` (keys and indexes) from `node`."""
    line = node.start_mark.line
    for key in path:
        found, key_line = child(node, key)
        if found is node:
            break
        node, line = found, key_line
    return line


class Checker:
    """Collects `file:line: problem` lines for the YAML blocks it is given."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.kinds, self.configs = rules()

    def report(self, block: Block, line: int, message: str) -> None:
        """Record `message` about line `line` (counted from 0) of `block`."""
        self.problems.append(f"{block.where}:{block.line + line}: {message}")

    def check(self, block: Block) -> None:
        loader = yaml.SafeLoader(block.text)
        try:
            while loader.check_node():
                node = loader.get_node()
                self._duplicates(block, node)
                self.document(block, loader.construct_document(node), node)
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            self.report(block, mark.line if mark else 0, "YAML does not parse: " + " ".join(str(getattr(error, "problem", error)).split()))
        finally:
            loader.dispose()

    def _duplicates(self, block: Block, node: yaml.Node) -> None:
        """A key given twice: YAML keeps the last silently, kubectl refuses the manifest."""
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key_node, value_node in node.value:
                if key_node.value in seen:
                    self.report(block, key_node.start_mark.line, f"duplicate key '{key_node.value}'")
                seen.add(key_node.value)
                self._duplicates(block, value_node)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                self._duplicates(block, item)

    def document(self, block: Block, doc: Any, node: yaml.Node) -> None:
        if not isinstance(doc, dict):
            return  # a bare list or scalar: parsing is all there is to check
        if "apiVersion" in doc or "kind" in doc:
            self.manifest(block, doc, node)
        else:
            self.untyped(block, doc, node)

    def manifest(self, block: Block, doc: dict[str, Any], node: yaml.Node) -> None:
        api_version, kind = doc.get("apiVersion"), doc.get("kind")
        top = node.start_mark.line
        if not isinstance(api_version, str) or not isinstance(kind, str):
            self.report(block, top, "a manifest needs both apiVersion and kind (strings)")
            return
        table = self.kinds.get((api_version, kind))
        if table is None and is_core(api_version):
            try:
                kubernetes_validate.validate(doc, KUBERNETES, strict=True)
            except kubernetes_validate.SchemaNotFoundError:
                self.report(block, top, f"{kind} {api_version} is not in the Kubernetes {KUBERNETES} API")
            except kubernetes_validate.ValidationError as error:
                self.schema_error(block, node, tuple(error.path), f"{kind} {_name(doc)}", error)
            else:
                self.embedded(block, doc, node)
            return
        if table is None:
            self.report(block, top, f"{kind} {api_version}: unknown kind; add what its operator requires to tests/data/operator_kinds.yaml")
            return
        label = f"{kind} {_name(doc)}".strip()
        if isinstance(doc.get("metadata"), dict) and not table.get("own_metadata"):
            self.validate_in(block, node, top, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": doc["metadata"]}, (), (), label)
        self.apply(block, doc, node, table, label)
        for path in table.get("pod_templates", ()):
            for hit in _found(doc, node, path):
                template = hit.value if isinstance(hit.value, dict) else {}
                pod = {"apiVersion": "v1", "kind": "Pod", "metadata": template.get("metadata") or {}, "spec": template.get("spec")}
                self.validate_in(block, hit.node, hit.line, pod, (), hit.trail, label)

    def embedded(self, block: Block, doc: dict[str, Any], node: yaml.Node) -> None:
        """A known configuration file held in a ConfigMap (a MIG or device-plugin config) is
        checked as the file it is."""
        if doc.get("kind") != "ConfigMap":
            return
        for key, value in (doc.get("data") or {}).items():
            try:
                config = yaml.safe_load(value)
            except yaml.YAMLError:
                continue  # data need not be YAML
            if isinstance(config, dict) and self.shape(config) is not None:
                # A block scalar's text starts on the line after its key.
                self.check(Block(block.where, block.line + locate(node, ("data", key)) + 1, value))

    def shape(self, doc: dict[str, Any]) -> dict[str, Any] | None:
        """The known configuration file `doc` is, by the fields it holds."""
        for shape in self.configs:
            when = shape["when"]
            if all(k in doc for k in when.get("all", ())) and (not when.get("any") or any(k in doc for k in when["any"])):
                return shape
        return None

    def untyped(self, block: Block, doc: dict[str, Any], node: yaml.Node) -> None:
        """A fragment of a core object, a known configuration file, or other YAML (Helm values)."""
        shape = self.shape(doc)
        if shape is not None:
            self.apply(block, doc, node, shape, shape["name"])
            return
        inner, inner_node, prefix = doc, node, ()
        if set(doc) == {"spec"} and isinstance(doc["spec"], dict):
            inner, inner_node, prefix = doc["spec"], child(node, "spec")[0], ("spec",)
        for definition, wrap, at in HOSTS:
            if prefix and definition == "core.v1.Container":
                continue
            if inner and set(inner) <= _fields(definition):
                label = definition.rpartition(".")[2] + " fragment"
                self.validate_in(block, inner_node, node.start_mark.line, wrap(inner), at, prefix, label)
                return

    def validate_in(self, block: Block, node: yaml.Node, line: int, whole: dict[str, Any], at: tuple[Any, ...],
                    trail: tuple[Any, ...], label: str) -> None:
        """Validate `whole`, a core object built around the YAML at `node` (which sits at `at` in
        it, and at `trail` and `line` in the document), and report an error at its line."""
        try:
            kubernetes_validate.validate(whole, KUBERNETES, strict=True)
        except kubernetes_validate.ValidationError as error:
            path = tuple(error.path)
            if path[: len(at)] == at:
                self.schema_error(block, node, path[len(at) :], label, error, trail)
            else:  # the error is in the scaffolding: the fragment lacks something it needs
                self.report(block, line, f"{label}: {_message(error)}")

    def schema_error(self, block: Block, node: yaml.Node, path: tuple[Any, ...], label: str,
                     error: kubernetes_validate.ValidationError, trail: tuple[Any, ...] = ()) -> None:
        """Report a schema `error` found at `path` below `node`, at the line of the field it names."""
        extra = UNEXPECTED.search(error.message)
        full = (*path, extra.group(1)) if extra else path
        self.report(block, locate(node, full), f"{label}: {dotted((*trail, *full))}: {_message(error)}")

    def apply(self, block: Block, doc: Any, node: yaml.Node, table: dict[str, Any], label: str) -> None:
        """Check `doc` against one entry of the operator or config table."""
        for path in table.get("required", ()):
            for hit in walk(doc, node, path):
                if isinstance(hit, Missing):
                    what = f"{dotted(hit.trail[:-1])} has no items" if hit.trail[-1] == "*" else f"missing {dotted(hit.trail)}"
                    self.report(block, hit.line, f"{label}: {what} (required)")
        for rule in table.get("one_of", ()):
            for hit in _found(doc, node, rule.get("at", "")):
                present = [f for f in rule["fields"] if any(isinstance(h, Found) for h in walk(hit.value, hit.node, f + "?"))]
                if len(present) != 1:
                    self.report(block, hit.line, f"{label}: {dotted(hit.trail)} needs exactly one of {', '.join(rule['fields'])} (has {', '.join(present) or 'none'})")
        for path, allowed in table.get("keys", {}).items():
            for hit in _found(doc, node, path):
                for key in hit.value if isinstance(hit.value, dict) else ():
                    if key not in allowed:
                        self.report(block, child(hit.node, key)[1], f"{label}: {dotted((*hit.trail, key))}: not a known field (expected one of {', '.join(allowed)})")
        for path, pattern in table.get("key_pattern", {}).items():
            for hit in _found(doc, node, path):
                for key in hit.value if isinstance(hit.value, dict) else ():
                    if not re.fullmatch(pattern, str(key)):
                        self.report(block, child(hit.node, key)[1], f"{label}: {dotted((*hit.trail, key))}: '{key}' does not match {pattern}")
        for path, name in table.get("named", {}).items():
            for hit in _found(doc, node, path):
                if not any(isinstance(c, dict) and c.get("name") == name for c in hit.value or ()):
                    self.report(block, hit.line, f"{label}: {dotted(hit.trail)} has no container named '{name}', which the operator requires")
        for path, allowed in table.get("values", {}).items():
            for hit in _found(doc, node, path):
                if not any(hit.value == a and type(hit.value) is type(a) for a in allowed):
                    self.report(block, hit.line, f"{label}: {dotted(hit.trail)}: {hit.value!r} is not one of {', '.join(map(str, allowed))}")
        for path, type_name in table.get("types", {}).items():
            for hit in _found(doc, node, path):
                wanted = YAML_TYPES[type_name]
                if not isinstance(hit.value, wanted) or (wanted is int and isinstance(hit.value, bool)):
                    self.report(block, hit.line, f"{label}: {dotted(hit.trail)}: must be {type_name}, not {hit.value!r}")
        for path in table.get("json", ()):
            for hit in _found(doc, node, path):
                try:
                    json.loads(hit.value)
                except (TypeError, ValueError) as error:
                    self.report(block, hit.line, f"{label}: {dotted(hit.trail)}: not JSON ({error})")


def _found(doc: Any, node: yaml.Node, path: str) -> Iterator[Found]:
    return (hit for hit in walk(doc, node, path) if isinstance(hit, Found))


def _name(doc: dict[str, Any]) -> str:
    metadata = doc.get("metadata")
    return str(metadata.get("name", "")) if isinstance(metadata, dict) else ""


def _message(error: kubernetes_validate.ValidationError) -> str:
    text = " ".join(error.message.split())
    return text if len(text) <= 160 else text[:157] + "..."


def problems(root: Path) -> list[str]:
    """Every problem of every YAML text in the knowledge folder `root`."""
    checker = Checker()
    for block in yaml_blocks(root):
        checker.check(block)
    return checker.problems


if __name__ == "__main__":
    found = problems(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "knowledge")
    print("\n".join(found) or "no problems")
    sys.exit(1 if found else 0)
