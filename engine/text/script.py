"""Which script a text is mostly written in: the cheap check for texts sent without a language.

A text sent without a language is read as the SPEC default (en). When it is mostly
Cyrillic or Arabic, the English pack will find nothing in it, and the analyst should
know why; full language identification costs tens of microseconds and is only run
when ``language: "auto"`` is asked for, so this check has to cost about one
microsecond on a 280-character text and nothing on a plain ASCII one.

It reads the UTF-8 encoding rather than the characters: one ``bytes.translate``
maps every byte to its class in C, and the lead byte of a two- or three-byte
sequence names its Unicode block (0xD0-0xD3 Cyrillic, 0xD8-0xDB Arabic, ...). A
per-character loop in Python would cost about ten times the budget.
"""

from __future__ import annotations

# Byte classes. Continuation bytes, ASCII non-letters, symbols, punctuation, emoji and
# blocks shared by several scripts are neutral: they count for no script.
_NEUTRAL = ord(".")
_LATIN = ord("L")
# Script names by class byte, in the order a tie is broken.
SCRIPTS: dict[int, str] = {
    ord("C"): "Cyrillic",
    ord("A"): "Arabic",
    ord("G"): "Greek",
    ord("H"): "Hebrew",
    ord("I"): "Indic",
    ord("K"): "CJK",
    ord("O"): "non-Latin",
}


def _table() -> bytes:
    table = bytearray([_NEUTRAL]) * 256
    for byte in range(256):
        char = chr(byte)
        if char.isascii() and char.isalpha():
            table[byte] = _LATIN
    # Lead bytes of two-byte sequences (U+0080-U+07FF): the block is byte >> 6 of the
    # code point. 0xC3-0xC9: Latin-1 letters, Latin Extended-A/B (Hausa's hooked
    # letters), IPA; 0xCA-0xCB spacing modifiers (the Hausa apostrophe U+02BC) count as
    # Latin too. 0xCC-0xCD are combining marks (Yoruba tone marks): neutral.
    for byte in range(0xC3, 0xCC):
        table[byte] = _LATIN
    for byte in (0xCE, 0xCF):  # U+0380-U+03FF Greek and Coptic
        table[byte] = ord("G")
    for byte in range(0xD0, 0xD5):  # U+0400-U+053F Cyrillic and its supplement
        table[byte] = ord("C")
    table[0xD5] = ord("O")  # Armenian
    for byte in (0xD6, 0xD7):  # U+0580-U+05FF Armenian end, Hebrew
        table[byte] = ord("H")
    for byte in (0xD8, 0xD9, 0xDA, 0xDB, 0xDD):  # Arabic, Arabic Supplement
        table[byte] = ord("A")
    for byte in (0xDC, 0xDE, 0xDF):  # Syriac, Thaana, NKo
        table[byte] = ord("O")
    # Lead bytes of three-byte sequences: 0xE0 is U+0800-U+0FFF (Indic scripts, Thai,
    # Tibetan); 0xE3-0xED hold CJK, Hangul and Yi. 0xE1 mixes Latin Extended Additional
    # (Yoruba's dotted letters) with other scripts, 0xE2 is punctuation and symbols,
    # 0xEF presentation forms and full-width letters: neutral. Four-byte sequences
    # (0xF0-0xF4) are mostly emoji: neutral.
    table[0xE0] = ord("I")
    for byte in range(0xE3, 0xEE):
        table[byte] = ord("K")
    return bytes(table)


def _neutral(table: bytes) -> bytes:
    return bytes(byte for byte in range(256) if table[byte] == _NEUTRAL)


_TABLE = _table()
_DELETE = _neutral(_TABLE)
_LATIN_BYTE = bytes([_LATIN])


def dominant_script(text: str, share: float = 0.5) -> str | None:
    """The name of the non-Latin script that most of the text's letters are in, or None.

    None when the text is plain ASCII (checked first, for nothing), when Latin letters
    are at least ``1 - share`` of the letters, or when it has no letters at all. A
    letter is counted once whatever its encoded length; digits, punctuation, emoji
    and combining marks count for no script. The script named is that of the middle
    non-Latin letter, which is the dominant one whenever one script has most of them
    (each further ``count`` over the bytes would cost a third of a microsecond).
    """
    if text.isascii():
        return None
    # One pass classifies every byte and drops the neutral ones: what is left is one
    # class byte per letter.
    letters = text.encode("utf-8", "surrogatepass").translate(_TABLE, _DELETE)
    latin = letters.count(_LATIN_BYTE)
    other = len(letters) - latin
    if other == 0 or other <= share * len(letters):
        return None
    scripts = letters.translate(None, _LATIN_BYTE)
    return SCRIPTS[scripts[len(scripts) // 2]]
