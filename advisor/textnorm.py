"""Text normalisation shared by indexing and querying.

Both sides go through the same functions, so a Vietnamese query typed without diacritics, with a
combining-mark keyboard or in capitals meets the knowledge on equal terms.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from itertools import filterfalse

# đ/Đ have no Unicode decomposition, so stripping combining marks leaves them untouched.
_EXTRA_FOLDS = str.maketrans({"đ": "d", "Đ": "D", "ð": "d", "ł": "l", "ø": "o", "æ": "ae", "ß": "ss"})
_EXTRA_FOLD_LETTERS = tuple(map(chr, _EXTRA_FOLDS))
# What words are made of in folded text. Tokens: every other byte of its UTF-8 made a space, then
# split, which is four times as fast as a regular expression over a large folder's bodies (and
# spares `advisor ask` compiling one).
WORD_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789"
SEPARATE = bytes(byte if chr(byte) in WORD_CHARACTERS else 32 for byte in range(256))
# Letters that only Vietnamese uses among the languages advisor meets.
_VIETNAMESE_LETTERS = frozenset("ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹàáãèéìíòóõùúýĩũ")
# C0/C1 controls and escape sequences (CSI, OSC, other ESC forms) that could drive a terminal.
# Compiled on first use: `advisor ask --json` never needs it.
_TERMINAL_ESCAPES_PATTERN = (
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI ... final byte
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL or ST (also unterminated)
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[@-Z\\-_]?"  # two-byte escapes and a lone ESC
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # other controls (keeps \t and \n)
)


def normalize(text: str) -> str:
    """NFC, casefolded, whitespace collapsed: the displayable canonical form."""
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


def fold(text: str) -> str:
    """`normalize` plus diacritics removed (including đ→d): the matching form."""
    if text.isascii():  # most text: nothing to decompose, and casefold is lower (5x faster)
        return " ".join(text.lower().split())
    folded = text.casefold()
    if any(letter in folded for letter in _EXTRA_FOLD_LETTERS):  # a dict translate costs 50 ns a character
        folded = folded.translate(_EXTRA_FOLDS)
    # filterfalse keeps the per-character test in C: an entry's body is thousands of characters.
    stripped = "".join(filterfalse(unicodedata.combining, unicodedata.normalize("NFD", folded)))
    return " ".join(unicodedata.normalize("NFC", stripped).split())


def tokens(text: str) -> list[str]:
    """Folded alphanumeric tokens; punctuation separates tokens."""
    return fold(text).encode("utf-8", "surrogatepass").translate(SEPARATE).decode("ascii").split()


# A Vietnamese syllable written without its marks: onset, vowel nucleus, final consonant. English
# words rarely fit ("pod", "node", "gpu" do not); Vietnamese ones always do ("phap", "tong").
_VIETNAMESE_SYLLABLE_PATTERN = (
    r"(?:ngh|ng|nh|ch|gh|gi|kh|ph|qu|th|tr|[bcdghklmnrstvx])?"
    r"(?:uye|uya|uyu|uoi|uou|uay|oai|oay|oeo|ieu|yeu|ai|ao|au|ay|eo|eu|ia|ie|iu|oa|oe|oi|oo|ua|ue|ui|uo|uu|uy|ya|ye|a|e|i|o|u|y)"
    r"(?:ch|ng|nh|[cmnpt])?"
)


def is_vietnamese_syllable(token: str) -> bool:
    """Whether a folded token reads as one Vietnamese syllable typed without diacritics."""
    return _vietnamese_syllable().fullmatch(token) is not None


@lru_cache(maxsize=1)
def _vietnamese_syllable() -> re.Pattern[str]:
    """Compiled on first use: compiling it costs 0.6 ms, and English questions never need it."""
    return re.compile(_VIETNAMESE_SYLLABLE_PATTERN)


def has_vietnamese_letters(text: str) -> bool:
    return any(ch in _VIETNAMESE_LETTERS for ch in normalize(text))


def typo_allowance(name: str) -> int:
    """How many edits a mistyped name may be off by (a swap of neighbours counts as one): one for
    a name of five letters or fewer, two for a longer one ("mgi" -> mig, "recomend" -> recommend)."""
    return 1 if len(name) <= 5 else 2


def strip_terminal_escapes(text: str) -> str:
    """Remove escape sequences and control characters so text cannot drive a terminal."""
    if text.replace("\n", "").replace("\t", "").isprintable():
        return text  # no control character, so nothing the pattern could match: spare compiling it
    return _terminal_escapes().sub("", text)


def json_dumps(data: object, indent: int | None = None) -> str:
    """`json.dumps(data, ensure_ascii=False, indent=indent)`, made safe for a terminal (`json_safe`).

    Compact JSON comes straight from the json module's C encoder (`_json`, which `json.dumps`
    itself uses): importing `json`, its decoder and the regular expressions of three modules,
    would cost a one-shot `advisor ask --json` about a millisecond. Indented JSON needs the
    module's Python encoder, as does an interpreter without `_json`.
    """
    if indent is None:
        try:
            from _json import encode_basestring, make_encoder

            encode = make_encoder({}, _not_serializable, encode_basestring, None, ": ", ", ", False, False, True)
        except (ImportError, TypeError):  # no C encoder, or one that takes other arguments
            pass
        else:
            if isinstance(data, str):
                return json_safe(encode_basestring(data))
            return json_safe("".join(encode(data, 0)))
    import json

    return json_safe(json.dumps(data, ensure_ascii=False, indent=indent))


def json_loads(text: str) -> object:
    """`json.loads(text)`, by the json module's C scanner when there is one, for the same reason
    as `json_dumps`: importing `json` compiles the patterns of three modules."""
    try:
        from _json import make_scanner
    except ImportError:  # an interpreter without the C scanner
        import json

        return json.loads(text)
    blank = " \t\n\r"
    start = len(text) - len(text.lstrip(blank))
    try:
        value, end = make_scanner(_ScanSettings)(text, start)  # type: ignore[arg-type]  # reads the settings as attributes, as of a JSONDecoder
    except StopIteration:
        raise ValueError(f"expecting a value at character {start}") from None
    if text[end:].strip(blank):
        raise ValueError(f"extra data at character {end}")
    return value


class _ScanSettings:
    """What `_json.make_scanner` reads from a `json.JSONDecoder`: its defaults."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int, parse_constant = float, int, float


def _not_serializable(value: object) -> object:
    """What `json.JSONEncoder.default` does: refuse anything but plain data, in its words."""
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def json_safe(json_text: str) -> str:
    """JSON text with DEL and the C1 controls written as `\\u` escapes.

    `json.dumps(ensure_ascii=False)` escapes ESC but leaves U+0080-U+009F raw, and a terminal
    that reads UTF-8 acts on U+009B (a one-character CSI). Outside strings JSON has no such
    characters, so replacing them everywhere keeps the JSON valid and the data the same.
    """
    if "\x7f" not in json_text and (json_text.isascii() or b"\xc2" not in json_text.encode("utf-8", "surrogatepass")):
        return json_text  # U+0080-U+009F are C2 80 to C2 9F in UTF-8: nothing to escape, no pattern to compile
    return _c1_controls().sub(lambda found: f"\\u{ord(found.group()):04x}", json_text)


@lru_cache(maxsize=1)
def _c1_controls() -> re.Pattern[str]:
    return re.compile("[\x7f-\x9f]")  # a scan, not `str.translate`: 20 times faster on an answer


def shown(value: str, limit: int = 80) -> str:
    """A value the user gave, as an error message echoes it: control characters written out
    (`\\x1b`), so they are seen but cannot act, and cut to `limit` characters (a 900 KB answer
    must not become a 900 KB error line)."""
    visible = _visible_controls()
    if len(value) > limit:
        return value[: limit - 1].translate(visible) + "…"
    return value.translate(visible)


@lru_cache(maxsize=1)
def _visible_controls() -> dict[int, str]:
    return {code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0))}


@lru_cache(maxsize=1)
def _terminal_escapes() -> re.Pattern[str]:
    return re.compile(_TERMINAL_ESCAPES_PATTERN)
