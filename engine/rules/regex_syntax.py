"""Reading RE2 source: where an escape, a character class or a group ends, what an
expression can match at least, whether it holds an assertion.

Every part of the engine that walks RE2 (or taxonomy pattern) source uses these
helpers, so escapes and classes are read the same way everywhere: the compiler's
rewrites (engine.rules.compiler), the load-time checks (engine.rules.load) and
the dispatch and cue-presence decisions (engine.pipeline).
"""

from __future__ import annotations

import functools
import re

from engine.errors import PatternError
from engine.text.normalize import fold_char


def fold_class(inner: str) -> str:
    """Fold the literal members of a character class, leaving escapes alone."""
    out: list[str] = []
    k = 0
    while k < len(inner):
        ch = inner[k]
        if ch == "\\":
            step = 3 if inner[k + 1 : k + 2] in ("p", "P") else 2
            if inner[k + 1 : k + 3] in ("p{", "P{"):
                step = inner.index("}", k) - k + 1
            out.append(inner[k : k + step])
            k += step
            continue
        folded = fold_char(ch) if not ch.isascii() else ch.lower()
        out.append(folded if len(folded) == 1 else ch)
        k += 1
    return "".join(out)


def escape_length(source: str, start: int) -> int:
    """Length of the escape at ``start``: ``\\pL``, ``\\p{Greek}``, ``\\x{1F600}``, ``\\s``."""
    nxt = source[start + 1 : start + 2]
    if nxt in ("p", "P", "x") and source[start + 2 : start + 3] == "{":
        close = source.find("}", start)
        if close < 0:
            raise PatternError(f"unterminated \\{nxt}{{...}} in {source!r}")
        return close - start + 1
    if nxt in ("p", "P"):
        return 3
    if nxt == "x":
        return 4
    return 2


def class_end(source: str, start: int) -> int:
    j = start + 1
    if j < len(source) and source[j] == "^":
        j += 1
    if j < len(source) and source[j] == "]":
        j += 1
    while j < len(source) and source[j] != "]":
        j += 2 if source[j] == "\\" else 1
    return j


def group_end(source: str, start: int) -> int:
    """Index of the parenthesis closing the group that opens at ``start``."""
    depth = 0
    j = start
    while j < len(source):
        ch = source[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "[":
            j = class_end(source, j) + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    raise PatternError(f"unbalanced parenthesis in {source!r}")


# Sub-expressions whose minimum length their compiler already knows: a word class's
# prefix tree (engine.rules.compiler.word_class), tens of thousands of characters
# that every pattern using the class repeats. min_length reads each as one group.
_KNOWN_MIN: dict[str, int] = {}
_KNOWN_MIN_CHARS = 2000  # smaller expressions are cheaper to read than to look up


def know_min_length(regex: str, value: int) -> None:
    """Record that ``regex`` (a whole group) matches at least ``value`` characters."""
    if len(regex) >= _KNOWN_MIN_CHARS:
        _KNOWN_MIN[regex] = value


@functools.lru_cache(maxsize=4096)
def min_length(regex: str) -> int:
    """The fewest characters an RE2 expression of this compiler's output can match.

    Used to rank a pattern's components by how specific they are: a part that can
    match one letter ("i") says little; one that needs six says a lot. Cached: the
    same component (a word class, a lexicon entry) recurs in many patterns, and a
    word class's alternation is tens of thousands of characters long.
    """
    if len(regex) >= _KNOWN_MIN_CHARS:
        for known, value in tuple(_KNOWN_MIN.items()):  # a snapshot: other threads add
            if known in regex:
                regex = regex.replace(known, "(?:" + "x" * value + ")")
    value, _ = _min_alternation(regex, 0)
    return value


def _min_alternation(regex: str, i: int) -> tuple[int, int]:
    best: int | None = None
    total = 0
    last = 0
    while i < len(regex) and regex[i] != ")":
        ch = regex[i]
        if ch == "|":
            best = total if best is None else min(best, total)
            total = last = 0
            i += 1
            continue
        if ch == "(":
            j = i + 1
            if regex.startswith("?P<", j):
                j = regex.index(">", j) + 1
            elif regex.startswith("?", j):
                while regex[j] not in ":)":
                    j += 1
                if regex[j] == ")":  # a flag group such as (?i): matches nothing
                    i = j + 1
                    continue
                j += 1
            last, i = _min_alternation(regex, j)
            i += 1  # the closing parenthesis
        elif ch == "[":
            last, i = 1, class_end(regex, i) + 1
        elif ch == "\\":
            step = 2
            if regex[i + 1 : i + 3] in ("p{", "P{"):
                step = regex.index("}", i) - i + 1
            elif regex[i + 1] in "pP":
                step = 3
            elif regex[i + 1] == "x":
                step = regex.index("}", i) - i + 1 if regex[i + 2] == "{" else 4
            last, i = 1, i + step
        elif ch in "^$":
            last, i = 0, i + 1
        else:
            last, i = 1, i + 1
        # A quantifier applies to the atom just read.
        if i < len(regex) and regex[i] in "?*":
            last = 0
            i += 1
            if i < len(regex) and regex[i] == "?":
                i += 1
        elif i < len(regex) and regex[i] == "+":
            i += 1
        elif i < len(regex) and regex[i] == "{":
            close = regex.index("}", i)
            low = regex[i + 1 : close].split(",")[0]
            last = last * int(low or 0)
            i = close + 1
        total += last
    best = total if best is None else min(best, total)
    return best, i


def has_assertion(regex: str) -> bool:
    """Whether an RE2 expression holds a zero-width assertion (``^``, ``$``, ``\\b``...).

    Such an expression can match a slice of a text where it matches nowhere in
    the whole text (a slice has edges of its own), so "occurs nowhere in the
    text" proves nothing about its slices.
    """
    i = 0
    while i < len(regex):
        ch = regex[i]
        if ch == "[":
            i = class_end(regex, i) + 1
        elif ch == "\\":
            if regex[i + 1 : i + 2] in ("b", "B", "A", "z", "Z"):
                return True
            i += escape_length(regex, i)
        elif ch in "^$":
            return True
        else:
            i += 1
    return False


def balanced(regex: str) -> bool:
    """Whether parentheses balance outside character classes and escapes."""
    depth = 0
    i = 0
    while i < len(regex):
        ch = regex[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            i = class_end(regex, i)
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return depth == 0


_ASCII_SPELLING = {"\\pL": "a-zA-Z", "\\pN": "0-9"}
# An escape, or a whole character class (read as ``class_end`` reads it): escapes
# come first, so an escaped bracket never opens a class.
_ESCAPE = r"\\(?:[pPx]\{[^}]*\}|[pP].|x[0-9A-Fa-f]{2}|.)"
_ASCII_TOKENS = re.compile(rf"{_ESCAPE}|\[\^?\]?(?:{_ESCAPE}|[^\]\\])*\]", re.S)
_NEVER = r"[^\x00-\x{10FFFF}]"
_ANY = "(?s:.)"


def ascii_only(regex: str) -> str:
    """The expression as it behaves on ASCII text, with everything else left out.

    ``\\pL`` and ``\\pN`` become ASCII ranges, and classes lose their members
    above U+007F (the homoglyphs of the obfuscation classes: Cyrillic, Greek and
    symbol look-alikes). Each Unicode class, and each non-ASCII member, compiles to
    a UTF-8 automaton of its own, once per place it appears (a Set does not share
    them between entries): they made up most of a language's compile time. On
    bytes below 0x80 both expressions match exactly the same, so a text that is
    all ASCII (nearly every Latin-script text, once normalization has folded its
    accents) is matched by this one, compiled at its first use.
    """
    if regex.isascii() and "\\p" not in regex:
        return regex
    return _ASCII_TOKENS.sub(_ascii_token, regex)


def _ascii_token(match: re.Match[str]) -> str:
    return _ascii_spelt(match.group())


@functools.lru_cache(maxsize=8192)
def _ascii_spelt(token: str) -> str:
    """One escape or class in its ASCII spelling (remembered: a language's sources
    repeat the same few hundred look-alike classes some 400,000 times)."""
    if token[0] == "\\":
        spelt = _ASCII_SPELLING.get(token)
        return token if spelt is None else f"[{spelt}]"
    return _ascii_class(token)


def _code_point(token: str) -> int | None:
    """The character a class member stands for (None for a class escape like ``\\s``)."""
    if token[0] != "\\":
        return ord(token)
    if token.startswith("\\x{"):
        return int(token[3:-1], 16)
    if token.startswith("\\x"):
        return int(token[2:], 16)
    second = token[1:]
    return ord(second) if len(second) == 1 and not second.isalnum() else None


def _ascii_class(source: str) -> str:
    """A character class with its ``\\pL``/``\\pN`` members spelt as ASCII ranges and
    its members above U+007F left out (a class left empty can match no ASCII byte)."""
    negated = source.startswith("[^")
    body = source[2 if negated else 1 : -1]
    tokens: list[str] = []
    i = 0
    while i < len(body):
        step = escape_length(body, i) if body[i] == "\\" else 1
        tokens.append(body[i : i + step])
        i += step
    out: list[str] = []
    k = 0
    while k < len(tokens):
        token = tokens[k]
        low = _code_point(token)
        if low is not None and k + 2 < len(tokens) and tokens[k + 1] == "-":
            high = _code_point(tokens[k + 2])
            if high is not None:  # a range
                if low < 0x80:
                    out.append(token + "-" + (tokens[k + 2] if high < 0x80 else "\\x7f"))
                k += 3
                continue
        spelt = _ASCII_SPELLING.get(token)
        if spelt is not None:
            out.append(spelt)
        elif low is None or low < 0x80:
            out.append(token)
        k += 1
    if not out:
        return _ANY if negated else _NEVER
    members = "".join(out)
    if members.startswith("^") and not negated:
        members = "\\" + members  # a literal caret that now comes first
    return ("[^" if negated else "[") + members + "]"
