"""Spanish paradigms: regular -ar/-er/-ir verbs, adjectives and nouns by ending.

Written for the lemmas a Spanish pack may name; irregular verbs are listed by
hand in ``IRREGULAR`` as they are needed (none of the pack's classes uses one
yet). Checked against simplemma's Spanish table like the French forms.
"""

from __future__ import annotations

Paradigm = dict[str, list[str]]

_ENDINGS: dict[str, dict[str, tuple[str, ...]]] = {
    "ar": {
        "pres": ("o", "as", "a", "amos", "áis", "an"),
        "impf": ("aba", "abas", "aba", "ábamos", "abais", "aban"),
        "subj": ("e", "es", "e", "emos", "éis", "en"),
        "past": ("é", "aste", "ó", "amos", "asteis", "aron"),
        "imp": ("a", "ad", "en", "emos"),
        "ppr": ("ando",),
        "pp": ("ado", "ada", "ados", "adas"),
    },
    "er": {
        "pres": ("o", "es", "e", "emos", "éis", "en"),
        "impf": ("ía", "ías", "ía", "íamos", "íais", "ían"),
        "subj": ("a", "as", "a", "amos", "áis", "an"),
        "past": ("í", "iste", "ió", "imos", "isteis", "ieron"),
        "imp": ("e", "ed", "an", "amos"),
        "ppr": ("iendo",),
        "pp": ("ido", "ida", "idos", "idas"),
    },
    "ir": {
        "pres": ("o", "es", "e", "imos", "ís", "en"),
        "impf": ("ía", "ías", "ía", "íamos", "íais", "ían"),
        "subj": ("a", "as", "a", "amos", "áis", "an"),
        "past": ("í", "iste", "ió", "imos", "isteis", "ieron"),
        "imp": ("e", "id", "an", "amos"),
        "ppr": ("iendo",),
        "pp": ("ido", "ida", "idos", "idas"),
    },
}

IRREGULAR: dict[str, Paradigm] = {}


def verb(lemma: str) -> Paradigm:
    if lemma in IRREGULAR:
        return {slot: list(forms) for slot, forms in IRREGULAR[lemma].items()}
    ending = lemma[-2:]
    if ending not in _ENDINGS:
        raise ValueError(f"no Spanish paradigm for the verb {lemma!r}")
    stem = lemma[:-2]
    out: Paradigm = {"inf": [lemma]}
    for slot, endings in _ENDINGS[ending].items():
        out[slot] = [stem + e for e in endings]
    out["fut"] = [lemma + e for e in ("é", "ás", "á", "emos", "éis", "án")]
    out["cond"] = [lemma + e for e in ("ía", "ías", "ía", "íamos", "íais", "ían")]
    return out


def adjective(lemma: str) -> Paradigm:
    if lemma.endswith("o"):
        stem = lemma[:-1]
        return {"ms": [lemma], "fs": [stem + "a"], "mp": [stem + "os"], "fp": [stem + "as"]}
    if lemma.endswith(("e", "a")):
        return {"ms": [lemma], "fs": [lemma], "mp": [lemma + "s"], "fp": [lemma + "s"]}
    if lemma.endswith(("or", "ón", "án", "ín")):
        base = lemma.replace("ó", "o").replace("á", "a").replace("í", "i")
        return {"ms": [lemma], "fs": [base + "a"], "mp": [base + "es"], "fp": [base + "as"]}
    return {"ms": [lemma], "fs": [lemma], "mp": [lemma + "es"], "fp": [lemma + "es"]}


def noun(lemma: str) -> Paradigm:
    if lemma.endswith(("a", "e", "i", "o", "u", "é")):
        return {"s": [lemma], "p": [lemma + "s"]}
    if lemma.endswith("z"):
        return {"s": [lemma], "p": [lemma[:-1] + "ces"]}
    return {"s": [lemma], "p": [lemma + "es"]}


def paradigm(lemma: str, pos: str) -> Paradigm:
    if pos == "verb":
        return verb(lemma)
    if pos == "adj":
        return adjective(lemma)
    if pos == "noun":
        return noun(lemma)
    raise ValueError(f"unknown part of speech {pos!r}")
