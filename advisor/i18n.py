"""Interface labels in English and Vietnamese, kept as data in `advisor/locales/*.json`."""

from __future__ import annotations

import os
from functools import lru_cache

from advisor.textnorm import json_loads

# Every language advisor speaks: the knowledge, the trees and the interface come in each.
LANGUAGES: tuple[str, ...] = ("en", "vi")
_FOLDER = os.path.join(os.path.dirname(os.path.realpath(__file__)), "locales")


@lru_cache(maxsize=None)
def labels(lang: str) -> dict[str, str]:
    with open(os.path.join(_FOLDER, f"{lang if lang in LANGUAGES else 'en'}.json"), encoding="utf-8") as handle:
        return json_loads(handle.read())  # type: ignore[return-value]


def t(key: str, lang: str, /, **values: object) -> str:
    """The label `key` in `lang` (English when missing), formatted with `values`. With a `count`
    of one, a language with plurals has the singular as `key_one` ("1 answer", not "1 answers");
    Vietnamese, which has none, keeps one label."""
    if values.get("count") == 1 and f"{key}_one" in labels(lang):
        key = f"{key}_one"
    text = labels(lang).get(key) or labels("en").get(key) or key
    return text.format(**values) if values else text


def default_language() -> str:
    """The interface language from the environment (`LANGUAGE`, `LC_ALL`, `LANG`), else English."""
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(variable, "")
        if value:
            return "vi" if value.lower().startswith("vi") else "en"
    return "en"
