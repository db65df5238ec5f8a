"""Knowledge and trees opened for use, through the user's cache so that commands read no YAML.

Every front end opens the index here, so the cached file always carries the provider catalogue:
a warm `advisor ask` answers a provider question, and `advisor providers` or an export lists the
providers that fit, without reading YAML (`advisor providers` reads `providers.yaml` only when the
cache is not current, rather than build the whole index to reach it). Decision trees are cached
beside the index once they have been validated: walking every path of the bundled tree to prove
it sound costs more than a whole `advisor recommend` otherwise does.
"""

from __future__ import annotations

import os

from advisor.search.index import SearchIndex

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from typing import Any

    from advisor.catalogue.model import Catalogue
    from advisor.decision.hints import Hints
    from advisor.decision.tree import Tree
    from advisor.search.cache import Progress

# Bump when the tree records change: cached trees of an older shape are then read again.
TREE_FORMAT = 4


def open_index(root: str | os.PathLike[str], *, use_cache: bool = True, refresh: bool = False, progress: Progress | None = None) -> SearchIndex:
    """The search index of the knowledge folder `root`, with the provider catalogue attached.

    `refresh` checks every knowledge file even in a large folder, and `progress(done, total)`
    follows a rebuild (`advisor index`: `advisor.search.cache.load_index`).
    """
    from advisor.search.cache import load_index

    return load_index(root, attach=_catalogue_attachment(root), use_cache=use_cache, refresh=refresh, progress=progress)


def _catalogue_attachment(root: str | os.PathLike[str]) -> Any:
    def catalogue(analyzer: Any, frequency: Any) -> dict[str, Any]:
        from pathlib import Path

        from advisor.catalogue.terms import attachment

        return attachment(Path(root), analyzer, frequency)

    return catalogue


def catalogue_of(index: SearchIndex) -> Catalogue:
    """The provider catalogue the index of a knowledge folder carries, with its problems."""
    from advisor.catalogue.model import from_data
    from advisor.problems import Problem

    found = from_data(index.data.get("providers"))
    return found._replace(problems=tuple(Problem(*problem) for problem in index.data.get("catalogue_problems", ())))


def open_catalogue(root: str | os.PathLike[str]) -> Catalogue:
    """The provider catalogue of the knowledge folder `root`: from its index when the cache holds
    a current one, else read from `providers.yaml` itself, which costs a small fraction of
    building the index only to reach it (the next question builds it)."""
    from advisor.search.cache import cached_index

    index = cached_index(root, attach=_catalogue_attachment(root))
    if index is not None:
        return catalogue_of(index)
    from pathlib import Path

    from advisor.catalogue.load import load_catalogue

    return load_catalogue(Path(root))


def open_tree(path: str | os.PathLike[str] | None = None) -> Tree:
    """The decision tree at `path` (default: the bundled one), validated (`DataError` when it
    cannot be used) and cached, keyed by the file's path, size and modification time."""
    import marshal

    from advisor.decision.tree import from_data, to_data
    from advisor.search import storage
    from advisor.search.cache import UNREADABLE, cached_path, save

    path = _bundled_tree() if path is None else path
    real, key = _tree_key(path)
    if key is not None:
        try:
            header, sections = storage.open_file(cached_path("tree", real))
            if header.get("key") == key:
                return from_data(marshal.loads(bytes(sections["tree"])))
        except UNREADABLE:  # missing or damaged: built again, never trusted
            pass
    from pathlib import Path

    from advisor.decision.hints import hints_of
    from advisor.decision.validate import load_tree

    tree = load_tree(Path(path))
    if key is not None:  # the records in a section: reading the hints alone skips them
        questions, offered_from = hints_of(tree)
        header = {"key": key, "source": real, "hints": questions, "offered_from": sorted(offered_from)}
        cache = cached_path("tree", real)
        if save(cache, storage.pack_parts(header, {"tree": marshal.dumps(to_data(tree))})):
            try:  # read back, as a new index is: once checked whole, it is trusted unread
                storage.open_file(cache)
            except UNREADABLE:
                pass
    return tree


def tree_hints() -> Hints:
    """The bundled tree's hints (`advisor.decision.hints`), from the header of its cache alone:
    answering a question never decodes the tree's records (a section apart). Empty when the tree
    cannot be used."""
    from advisor.search import storage
    from advisor.search.cache import UNREADABLE, cached_path

    real, key = _tree_key(_bundled_tree())
    try:
        header, _ = storage.open_file(cached_path("tree", real))  # checked once, as the index is
        if key is not None and header.get("key") == key:
            return tuple(header["hints"]), frozenset(header["offered_from"])
    except UNREADABLE:
        pass
    from advisor.decision.hints import NO_HINTS, hints_of
    from advisor.problems import DataError

    try:
        return hints_of(open_tree())
    except DataError:
        return NO_HINTS


def _bundled_tree() -> str:
    from advisor.paths import BUNDLED_TREE, bundled_trees_root

    return os.path.join(bundled_trees_root(), BUNDLED_TREE)


def _tree_key(path: str | os.PathLike[str]) -> tuple[str, tuple[Any, ...] | None]:
    """(real path, cache key) of the tree at `path`: the key is None when the file cannot be read."""
    real = os.path.realpath(path)
    try:
        stat = os.stat(real)
    except OSError:
        return real, None
    return real, (TREE_FORMAT, real, stat.st_size, stat.st_mtime_ns)
