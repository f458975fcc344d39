"""The morphology layer: word classes written as lemmas, expanded from committed forms.

A language pack lists word classes (``words:``) as lemmas with a part of speech;
``make taxonomy-forms`` (``engine.rules.formgen``) writes every inflected form of
those lemmas to ``taxonomy/forms/<code>.yaml``. At run time nothing is
lemmatized or generated: this module reads that file, checks that it was made
from the pack's current lemmas by the current generator (``inputs_digest``) and
that nobody edited it by hand (``content_digest``), and hands the compiler the
forms of each class, per paradigm slot. So the run time needs only re2 and
pyyaml, and a pattern written once per construction covers every inflection.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import PatternError, TaxonomyError

__all__ = [
    "GENERATORS",
    "LANGUAGE_SLOTS",
    "SLOTS",
    "FormsFile",
    "WordBook",
    "content_digest",
    "forms_path",
    "inputs_digest",
    "slots_for",
]

# The generator of each language and its version. Bumping a version makes every
# committed forms file of that language stale until `make taxonomy-forms` runs.
GENERATORS: dict[str, str] = {
    "en": "en-lemminflect/1",
    "fr": "fr-paradigms/2",
    "es": "es-paradigms/2",
    "ru": "ru-pymorphy3/2",
    "ha": "ha-hand/1",
    "ig": "ig-hand/1",
    "yo": "yo-hand/1",
    "ar": "ar-templates/3",
}

# Paradigm slots per part of speech. A pattern may restrict a class to some of
# them ({W:KILL_V:inf,imp}); a slot that a part of speech does not have is an error.
_VERB_SLOTS = (
    "inf",  # infinitive
    "pres",  # present indicative, every person
    "impf",  # imperfect
    "fut",  # future
    "cond",  # conditional
    "subj",  # present subjunctive
    "past",  # simple past (passé simple / pretérito)
    "psubj",  # past subjunctive (Spanish -ra / -se: "ojalá los mataran"); French has none
    "imp",  # imperative
    "ppr",  # present participle / gerund
    "pp",  # past participle, every gender and number
)
SLOTS: dict[str, tuple[str, ...]] = {
    "verb": _VERB_SLOTS,
    "adj": ("ms", "fs", "mp", "fp"),
    "noun": ("s", "p"),
}

# Languages whose paradigms have other slots than the Romance ones above. Russian
# inflects for case and aspect, not for the Romance tenses; Hausa, Igbo and Yoruba
# barely inflect, and their "forms" are spellings and the particles that carry
# person, aspect and number (Hausa "za su kashe", Igbo "ndị", Yoruba "àwọn").
_RU_CASES = ("nom", "gen", "dat", "acc", "ins", "loc")
LANGUAGE_SLOTS: dict[str, dict[str, tuple[str, ...]]] = {
    # English: base form (infinitive, imperative, present but the third person
    # singular), -s, simple past, past participle, -ing; nouns singular and plural.
    "en": {
        "verb": ("inf", "pres3", "past", "pp", "ger"),
        "noun": ("s", "p"),
    },
    "ru": {
        "verb": (
            "inf",  # infinitive
            "pres1",  # imperfective non-past (present), 1st person sg/pl
            "pres2",
            "pres3",
            "fut1",  # perfective non-past (simple future), 1st person sg/pl
            "fut2",
            "fut3",
            "past",  # every gender and number
            "imp",  # imperative, 2nd person sg/pl and the inclusive "-те"
            "pps",  # passive participles, short forms (убит, убиты)
        ),
        # long forms by case (every gender and number), short forms, comparative
        "adj": (*_RU_CASES, "short", "comp"),
        "noun": tuple(f"{case}_{n}" for n in ("s", "p") for case in _RU_CASES),
    },
    # Hausa: verb alone, verbal noun, and the pronoun-aspect complexes + verb for
    # every person (perfective, future, subjunctive, continuous); nouns with their
    # hand-listed plurals and the genitive linker (-n / -r).
    "ha": {
        "verb": ("base", "vn", "perf", "fut", "fut1", "subj", "cont"),
        "noun": ("s", "p", "link"),
    },
    # Igbo: infinitive (i-), imperative/subjunctive (root + harmonizing vowel), the
    # participial form after "ga-" (future) and "na-" (progressive), the perfect
    # (-la); nouns with the plural "ndị".
    "ig": {"verb": ("base", "inf", "imp", "part", "perf"), "noun": ("s", "p")},
    # Yoruba: the word as written with or without "sh" for ṣ; nouns with "àwọn".
    "yo": {"verb": ("base",), "noun": ("s", "p"), "adj": ("base",)},
    # Arabic: verbs by the dialect affix templates around their stems (see
    # engine/rules/formgen/ar.py): verbal noun; bare imperfect (subj), ب-present
    # (pres), future markers (fut) and perfect (past), each by person (1, 2, 3);
    # imperative, colloquial passive, participles.
    "ar": {
        "verb": (
            "inf",  # verbal noun (masdar)
            *(f"{tense}{person}" for tense in ("subj", "pres", "fut", "past") for person in "123"),
            "neg",  # the م…ش circumfix, first and third persons
            "imp",
            "pass",  # colloquial passive (ات / ان / يت / ين)
            "ppr",  # active participle
            "pp",  # passive participle
        ),
        "adj": ("ms", "fs", "mp", "fp"),
        "noun": ("s", "p"),
    },
}


def slots_for(code: str | None, pos: str) -> tuple[str, ...] | None:
    """The paradigm slots of a part of speech in a language (None: no such pos)."""
    table = LANGUAGE_SLOTS.get(code or "", SLOTS)
    return table.get(pos)


def forms_path(pack_path: Path, code: str) -> Path:
    """Where the forms of a pack live: ``taxonomy/forms/<code>.yaml`` beside ``lang/``."""
    return pack_path.parent.parent / "forms" / f"{code}.yaml"


def _canonical(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


def inputs_digest(code: str, words: Mapping[str, Any]) -> str:
    """sha256 over what the forms are generated from: the (lemma, pos) pairs and the
    generator version. Notes and class names are left out: renaming a class or
    rewording a note does not change a single form."""
    pairs = sorted({(lemma, entry.pos) for entry in words.values() for lemma in entry.lemmas})
    return hashlib.sha256(
        _canonical({"language": code, "generator": GENERATORS.get(code), "lemmas": pairs})
    ).hexdigest()


def content_digest(lemmas: Mapping[str, Any]) -> str:
    """sha256 over the generated forms themselves: a hand edit changes it."""
    return hashlib.sha256(_canonical(lemmas)).hexdigest()


@dataclass(frozen=True)
class FormsFile:
    """A verified forms file: lemma -> pos and slot -> forms."""

    path: Path
    pos: dict[str, str]
    forms: dict[str, dict[str, tuple[str, ...]]]

    @classmethod
    def load(
        cls, path: Path, code: str, words: Mapping[str, Any], data: dict[str, Any]
    ) -> FormsFile:
        """Check a parsed forms file against the pack's words; refuse stale or edited ones."""
        regen = "run `make taxonomy-forms`"
        lemmas = data.get("lemmas")
        if not isinstance(lemmas, dict):
            raise TaxonomyError(f"{path}: no 'lemmas' mapping; {regen}")
        expected = inputs_digest(code, words)
        if data.get("inputs_digest") != expected:
            raise TaxonomyError(
                f"{path}: stale: generated from other lemmas or by another generator "
                f"version than {GENERATORS.get(code)!r} (inputs_digest differs); {regen}"
            )
        if data.get("content_digest") != content_digest(lemmas):
            raise TaxonomyError(
                f"{path}: edited by hand (content_digest does not match the forms); {regen}"
            )
        pos: dict[str, str] = {}
        forms: dict[str, dict[str, tuple[str, ...]]] = {}
        for lemma, entry in lemmas.items():
            slots = slots_for(code, entry.get("pos", ""))
            if slots is None:
                raise TaxonomyError(f"{path}: lemma {lemma}: unknown part of speech")
            pos[lemma] = entry["pos"]
            forms[lemma] = {
                slot: tuple(values) for slot, values in entry["forms"].items() if slot in slots
            }
        return cls(path=path, pos=pos, forms=forms)


class WordBook:
    """The word classes of one pack, resolved to forms, for the pattern compiler."""

    def __init__(
        self,
        words: Mapping[str, Any],
        forms: FormsFile | None,
        where: str,
        code: str | None = None,
    ) -> None:
        self._words = words
        self._forms = forms
        self._where = where
        self._code = code

    def names(self) -> Iterable[str]:
        return self._words.keys()

    def pos(self, spec: str) -> str | None:
        """The part of speech of the class a ``{W:...}`` spec names (None: no such class)."""
        entry = self._words.get(spec.partition(":")[0])
        return entry.pos if entry is not None else None

    def forms(self, spec: str, where: str) -> list[str]:
        """The forms a ``{W:CLASS}`` or ``{W:CLASS:slot,slot}`` token stands for."""
        name, _, slot_list = spec.partition(":")
        entry = self._words.get(name)
        if entry is None:
            raise PatternError(f"{where}: unknown word class {{W:{name}}}")
        allowed = slots_for(self._code, entry.pos)
        if allowed is None:
            raise PatternError(
                f"{where}: {{W:{name}}}: part of speech {entry.pos!r} has no paradigm"
            )
        slots = [s for s in slot_list.split(",") if s] if slot_list else list(allowed)
        for slot in slots:
            if slot not in allowed:
                raise PatternError(
                    f"{where}: {{W:{spec}}}: paradigm slot {slot!r} does not exist for "
                    f"{entry.pos} (slots: {', '.join(allowed)})"
                )
        if self._forms is None:
            raise PatternError(f"{where}: word class {name} used but the pack has no forms file")
        out: list[str] = []
        for lemma in entry.lemmas:
            by_slot = self._forms.forms.get(lemma)
            if by_slot is None:  # the digest check makes this unreachable; keep the message
                raise PatternError(f"{where}: lemma {lemma} of {name} has no generated forms")
            for slot in slots:
                out.extend(by_slot.get(slot, ()))
        # Longest first, so that an alternation prefers "tuerons" to "tuer".
        return sorted(dict.fromkeys(out), key=lambda form: (-len(form), form))
