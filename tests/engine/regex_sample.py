"""A text that an RE2 source of the taxonomy matches, for building adversarial texts.

The adversarial suite (tests/engine/adversarial.py) needs, for every group word,
coded term and pattern component, one string the engine will read as such. The
sources are the engine's own compiled expressions, so a group word or lexicon
entry added to the taxonomy is covered without a test edit.

The string follows the first alternative of every choice (a pack writes its
canonical spelling first, and obfuscation classes list the plain letter first)
and the fewest repetitions, except that with ``spaced`` an optional space or
hyphen is written ("happy merchant" rather than "happymerchant"). The walk reads
the first alternative and only skips the others: the compiled sources run to tens
of thousands of characters (word classes as prefix trees), which the stdlib's
parser would take seconds to read in full. Callers check the string against the
engine (a scan, a finder), never trust it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from engine.rules.regex_syntax import class_end, escape_length, group_end

__all__ = ["sample"]

_QUANTIFIER = re.compile(r"\?|\*|\+|\{(\d+)(?:,\d*)?\}")
_SPECIAL = re.compile(r"[\\\[()|]")
_GROUP_OPEN = re.compile(r"\(\?(?:P?<\w+>|[imsU-]*:|[imsU-]+\))?|\(")
# What an escape stands for, as one character ("" for an assertion).
_ESCAPES = {
    "s": " ",
    "S": "a",
    "d": "0",
    "D": "a",
    "w": "a",
    "W": " ",
    "b": "",
    "B": "",
    "A": "",
    "z": "",
    "pL": "a",
    "pN": "0",
    "p{L}": "a",
    "p{N}": "0",
}
# Characters tried, in order, for a negated class.
_OUTSIDE = " x0.-"
_RE2_ONLY = {"\\pL": "\\w", "\\p{L}": "\\w", "\\pN": "\\d", "\\p{N}": "\\d"}
_HEX = re.compile(r"\\x\{([0-9A-Fa-f]+)\}")


class _UnsupportedError(Exception):
    """A construct the walk does not know (the caller gets None)."""


def sample(source: str, *, spaced: bool = False, last: bool = False) -> str | None:
    """A string ``source`` matches (see the module's docstring), or None.

    With ``last`` every choice takes its last alternative instead: another word of
    the same class, for when normalization would change the first one (a doubled
    letter folded, as in Arabic "ااذي").
    """
    try:
        text, end = _alternation(source, 0, spaced, last)
    except (_UnsupportedError, IndexError, ValueError):
        return None
    return text if end == len(source) else None


def _alternation(source: str, i: int, spaced: bool, last: bool) -> tuple[str, int]:
    """The first alternative (the last with ``last``) that the walk can read of the
    alternation at ``i``, and where the alternation ends (its closing parenthesis,
    or the end)."""
    starts = [i]
    if last:  # every alternative's start, to read them from the last
        while (end := _next_alternative(source, starts[-1])) < len(source) and source[end] == "|":
            starts.append(end + 1)
        starts.reverse()
    for start in starts:
        try:
            text, end = _sequence(source, start, spaced, last)
        except _UnsupportedError:
            if start is starts[-1]:
                raise
            continue
        while end < len(source) and source[end] == "|":
            end = _next_alternative(source, end + 1)
        return text, end
    raise _UnsupportedError(source[i : i + 20])


def _next_alternative(source: str, i: int) -> int:
    """The next top-level ``|`` or ``)`` from ``i`` (or the end)."""
    while (found := _SPECIAL.search(source, i)) is not None:
        j = found.start()
        ch = source[j]
        if ch in "|)":
            return j
        if ch == "\\":
            i = j + escape_length(source, j)
        elif ch == "[":
            i = class_end(source, j) + 1
        else:
            i = group_end(source, j) + 1
    return len(source)


def _sequence(source: str, i: int, spaced: bool, last: bool) -> tuple[str, int]:
    out: list[str] = []
    n = len(source)
    while i < n and source[i] not in "|)":
        atom, i = _atom(source, i, spaced, last)
        quantifier = _QUANTIFIER.match(source, i)
        if quantifier is None:
            out.append(atom)
            continue
        i = quantifier.end()
        if i < n and source[i] in "?+":  # lazy or possessive
            i += 1
        token = quantifier.group()
        low = 1 if token == "+" else int(quantifier.group(1)) if token[0] == "{" else 0
        if spaced and low == 0 and atom in (" ", "-"):
            low = 1
        out.append(atom * low)
    return "".join(out), i


def _atom(source: str, i: int, spaced: bool, last: bool) -> tuple[str, int]:
    ch = source[i]
    if ch == "(":
        opening = _GROUP_OPEN.match(source, i)
        assert opening is not None
        if opening.group().endswith(")"):  # flags only: "(?i)"
            return "", opening.end()
        text, end = _alternation(source, opening.end(), spaced, last)
        if end >= len(source) or source[end] != ")":
            raise _UnsupportedError(source[i : i + 20])
        return text, end + 1
    if ch == "[":
        end = class_end(source, i)
        return _member(source[i + 1 : end]), end + 1
    if ch == "\\":
        length = escape_length(source, i)
        return _escape(source[i + 1 : i + length]), i + length
    if ch == ".":
        return "x", i + 1
    if ch in "^$":
        return "", i + 1
    return ch, i + 1


def _escape(body: str) -> str:
    if body in _ESCAPES:
        return _ESCAPES[body]
    if body.startswith("x{"):
        return chr(int(body[2:-1], 16))
    if body.startswith("x"):
        return chr(int(body[1:], 16))
    if body[0].isalnum():
        raise _UnsupportedError("\\" + body)
    return body


@lru_cache(maxsize=1024)
def _member(inner: str) -> str:
    """One character of a class: its first member, or for a negated class the first
    of ``_OUTSIDE`` that it leaves out."""
    if inner.startswith("^"):
        python = _HEX.sub(lambda m: f"\\U{int(m.group(1), 16):08x}", inner)
        for re2, equivalent in _RE2_ONLY.items():
            python = python.replace(re2, equivalent)
        pattern = re.compile(f"[{python}]")
        for ch in _OUTSIDE:
            if pattern.fullmatch(ch):
                return ch
        raise _UnsupportedError(f"[{inner}]")
    if inner.startswith("\\"):
        return _escape(inner[1 : escape_length(inner, 0)])
    return inner[0]
