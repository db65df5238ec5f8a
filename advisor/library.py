"""A knowledge folder opened for use: its search index, with the provider catalogue attached.

Every front end opens the index here, so the cached file always carries the catalogue and a
warm `advisor ask` can answer a provider question without reading YAML.
"""

from __future__ import annotations

import os
from typing import Any

from advisor.search.index import SearchIndex


def open_index(root: str | os.PathLike[str], *, use_cache: bool = True) -> SearchIndex:
    """The search index of the knowledge folder `root`, with the provider catalogue attached."""
    from advisor.search.cache import load_index

    return load_index(root, attach=_catalogue_attachment(root), use_cache=use_cache)


def _catalogue_attachment(root: str | os.PathLike[str]) -> Any:
    def catalogue(analyzer: Any, frequency: Any) -> dict[str, Any]:
        from pathlib import Path

        from advisor.catalogue.terms import attachment

        return attachment(Path(root), analyzer, frequency)

    return catalogue
