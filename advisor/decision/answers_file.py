"""The answers-file format of `advisor recommend --answers`: a mapping, or an exported record.

A file of `key: value` lines (YAML or JSON), or a JSON export or saved session whose `answers`
list is read back; answers an export marked as assumed are left out so they are assumed afresh.
"""

from __future__ import annotations

from typing import Any

from advisor import yamlsafe
from advisor.problems import InvalidInput


def _answer_value(value: Any, key: str, where: str) -> str:
    if isinstance(value, bool):  # YAML reads an unquoted yes/no as true/false
        return "yes" if value else "no"
    if isinstance(value, str) and value.strip():
        return value.strip()
    kind = "nothing" if value is None else type(value).__name__.replace("dict", "a mapping").replace("list", "a list")
    raise InvalidInput("err_answer_not_text", where=where, key=key, kind=kind)


def read_answers(raw: bytes, shown: str) -> dict[str, str]:
    """Answers from YAML or JSON: `{key: value}`, or an export/session with an `answers` list.

    `shown` names the source in messages (`answers.yaml:3: ...`). Answers marked `assumed` in an
    export are skipped, so they are assumed afresh. `InvalidInput` says what is wrong, and where.
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise InvalidInput("err_line_not_utf8", path=shown, line=line) from None
    try:
        doc = yamlsafe.load(text)  # JSON is YAML too, and this keeps line numbers for both
    except yamlsafe.YamlError as error:
        raise InvalidInput(f"{shown}:{error.line}: {error.message}") from None
    data = doc.data
    answers: dict[str, str] = {}
    if isinstance(data, dict) and isinstance(data.get("answers"), list):
        for index, item in enumerate(data["answers"]):
            where = f"{shown}:{doc.line('answers', index)}"
            if not isinstance(item, dict) or not isinstance(item.get("key"), str):
                raise InvalidInput("err_answers_item", where=where)
            if item.get("assumed") is True:
                continue
            answers[item["key"].strip().replace("-", "_")] = _answer_value(item.get("value"), item["key"], where)
        return answers
    if data is None:
        return answers
    if not isinstance(data, dict):
        raise InvalidInput("err_answers_not_mapping", where=shown)
    for key, value in data.items():
        if not isinstance(key, str):
            raise InvalidInput("err_answer_key_not_text", where=shown, line=doc.line(key), key=repr(key))
        answers[key.strip().replace("-", "_")] = _answer_value(value, key, f"{shown}:{doc.line(key)}")
    return answers
