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
    from advisor.decision.tree import Tree
    from advisor.search.cache import Progress

# Bump when the tree records change: cached trees of an older shape are then read again.
TREE_FORMAT = 1


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
    from advisor.decision.tree import from_data, to_data
    from advisor.search import storage
    from advisor.search.cache import UNREADABLE, cached_path, save

    if path is None:
        from advisor.paths import BUNDLED_TREE, bundled_trees_root

        path = os.path.join(bundled_trees_root(), BUNDLED_TREE)
    real = os.path.realpath(path)
    try:
        stat = os.stat(real)
        key = (TREE_FORMAT, real, stat.st_size, stat.st_mtime_ns)
    except OSError:
        key = None
    cache = cached_path("tree", real)
    if key is not None:
        try:
            header, _ = storage.open_file(cache)
            if header.get("key") == key:
                return from_data(header["tree"])
        except UNREADABLE:
            pass
    from pathlib import Path

    from advisor.decision.validate import load_tree

    tree = load_tree(Path(path))
    if key is not None:
        save(cache, storage.pack_parts({"key": key, "source": real, "tree": to_data(tree)}, {}))
    return tree
