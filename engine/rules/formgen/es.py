"""Spanish paradigms: regular -ar/-er/-ir verbs with their stem and spelling changes,
adjectives and nouns by ending.

Rules for what is regular (the three conjugations; o -> ue and e -> ie diphthongs
in stressed stems, listed per lemma in ``DIPHTHONG``; -car/-gar/-zar/-cer spelling
changes before e; -ecer/-ucir verbs with zc), a hand-written table for the few
irregular verbs the pack needs (``IRREGULAR``). Checked against simplemma's
Spanish table like the French forms.
"""

from __future__ import annotations

Paradigm = dict[str, list[str]]

# Persons: yo, tú, él, nosotros, vosotros, ellos (imperative: tú, vosotros, ustedes,
# nosotros). Voseo forms (vos matás) are not generated.
_ER_PSUBJ = ("iera", "ieras", "iéramos", "ierais", "ieran", "iese", "ieses", "iésemos", "iesen")
_ENDINGS: dict[str, dict[str, tuple[str, ...]]] = {
    "ar": {
        "pres": ("o", "as", "a", "amos", "áis", "an"),
        "impf": ("aba", "abas", "aba", "ábamos", "abais", "aban"),
        "subj": ("e", "es", "e", "emos", "éis", "en"),
        "past": ("é", "aste", "ó", "amos", "asteis", "aron"),
        "psubj": ("ara", "aras", "ara", "áramos", "arais", "aran", "ase", "ases", "ásemos", "asen"),
        "imp": ("a", "ad", "en", "emos"),
        "ppr": ("ando",),
        "pp": ("ado", "ada", "ados", "adas"),
    },
    "er": {
        "pres": ("o", "es", "e", "emos", "éis", "en"),
        "impf": ("ía", "ías", "ía", "íamos", "íais", "ían"),
        "subj": ("a", "as", "a", "amos", "áis", "an"),
        "past": ("í", "iste", "ió", "imos", "isteis", "ieron"),
        "psubj": _ER_PSUBJ,
        "imp": ("e", "ed", "an", "amos"),
        "ppr": ("iendo",),
        "pp": ("ido", "ida", "idos", "idas"),
    },
    "ir": {
        "pres": ("o", "es", "e", "imos", "ís", "en"),
        "impf": ("ía", "ías", "ía", "íamos", "íais", "ían"),
        "subj": ("a", "as", "a", "amos", "áis", "an"),
        "past": ("í", "iste", "ió", "imos", "isteis", "ieron"),
        "psubj": _ER_PSUBJ,
        "imp": ("e", "id", "an", "amos"),
        "ppr": ("iendo",),
        "pp": ("ido", "ida", "idos", "idas"),
    },
}

# Stem-changing verbs: the stressed stem vowel (persons yo, tú, él, ellos of the
# present and subjunctive, and the tú/ustedes imperative) diphthongizes.
DIPHTHONG: dict[str, tuple[str, str]] = {
    "colgar": ("o", "ue"),
    "degollar": ("o", "üe"),
    "desollar": ("o", "ue"),
    "reventar": ("e", "ie"),
    "volar": ("o", "ue"),
    "apretar": ("e", "ie"),
}

# Stressed persons per slot: indices of the endings that take the diphthong.
_STRESSED = {"pres": (0, 1, 2, 5), "subj": (0, 1, 2, 5), "imp": (0, 2)}

# Before e, c -> qu, g -> gu, z -> c (ataque, cuelgue, descuartice).
_BEFORE_E = {"c": "qu", "g": "gu", "z": "c"}

IRREGULAR: dict[str, Paradigm] = {
    "ser": {
        "inf": ["ser"],
        "pres": ["soy", "eres", "es", "somos", "sois", "son"],
        "impf": ["era", "eras", "era", "éramos", "erais", "eran"],
        "fut": ["seré", "serás", "será", "seremos", "seréis", "serán"],
        "cond": ["sería", "serías", "sería", "seríamos", "seríais", "serían"],
        "subj": ["sea", "seas", "sea", "seamos", "seáis", "sean"],
        "past": ["fui", "fuiste", "fue", "fuimos", "fuisteis", "fueron"],
        "psubj": ["fuera", "fueras", "fuéramos", "fuerais", "fueran", "fuese", "fuesen"],
        "imp": ["sé", "sed", "sean", "seamos"],
        "ppr": ["siendo"],
        "pp": ["sido"],
    },
    "estar": {
        "inf": ["estar"],
        "pres": ["estoy", "estás", "está", "estamos", "estáis", "están"],
        "impf": ["estaba", "estabas", "estábamos", "estabais", "estaban"],
        "fut": ["estaré", "estarás", "estará", "estaremos", "estaréis", "estarán"],
        "cond": ["estaría", "estarías", "estaríamos", "estaríais", "estarían"],
        "subj": ["esté", "estés", "estemos", "estéis", "estén"],
        "past": ["estuve", "estuviste", "estuvo", "estuvimos", "estuvisteis", "estuvieron"],
        "psubj": ["estuviera", "estuvieras", "estuviéramos", "estuvieran", "estuviesen"],
        "imp": ["está", "estad", "estén", "estemos"],
        "ppr": ["estando"],
        "pp": ["estado"],
    },
    "morir": {
        "inf": ["morir"],
        "pres": ["muero", "mueres", "muere", "morimos", "morís", "mueren"],
        "impf": ["moría", "morías", "moríamos", "moríais", "morían"],
        "fut": ["moriré", "morirás", "morirá", "moriremos", "moriréis", "morirán"],
        "cond": ["moriría", "morirías", "moriríamos", "moriríais", "morirían"],
        "subj": ["muera", "mueras", "muramos", "muráis", "mueran"],
        "past": ["morí", "moriste", "murió", "morimos", "moristeis", "murieron"],
        "psubj": ["muriera", "murieras", "muriéramos", "murieran", "muriese", "muriesen"],
        "imp": ["muere", "morid", "mueran", "muramos"],
        "ppr": ["muriendo"],
        "pp": ["muerto", "muerta", "muertos", "muertas"],
    },
    "pudrir": {
        "inf": ["pudrir", "podrir"],
        "pres": ["pudro", "pudres", "pudre", "pudrimos", "pudrís", "pudren"],
        "impf": ["pudría", "pudrías", "pudríamos", "pudrían"],
        "fut": ["pudriré", "pudrirá", "pudriremos", "pudrirán"],
        "cond": ["pudriría", "pudrirían"],
        "subj": ["pudra", "pudras", "pudramos", "pudran"],
        "past": ["pudrí", "pudrió", "pudrieron"],
        "psubj": ["pudriera", "pudrieran", "pudriese", "pudriesen"],
        "imp": ["pudre", "pudrid", "pudran"],
        "ppr": ["pudriendo"],
        "pp": ["podrido", "podrida", "podridos", "podridas"],
    },
}


def _diphthong(stem: str, change: tuple[str, str]) -> str:
    """The stem with its last ``change[0]`` vowel diphthongized (colg -> cuelg)."""
    old, new = change
    index = stem.rfind(old)
    return stem if index < 0 else stem[:index] + new + stem[index + 1 :]


def _spell(stem: str, ending: str) -> str:
    """Stem + ending with the spelling change a consonant needs before e/é (c, g, z)."""
    if ending[:1] in ("e", "é") and stem[-1:] in _BEFORE_E:
        return stem[:-1] + _BEFORE_E[stem[-1]] + ending
    return stem + ending


def verb(lemma: str) -> Paradigm:
    if lemma in IRREGULAR:
        return {slot: list(forms) for slot, forms in IRREGULAR[lemma].items()}
    ending = lemma[-2:]
    if ending not in _ENDINGS:
        raise ValueError(f"no Spanish paradigm for the verb {lemma!r}")
    stem = lemma[:-2]
    strong = _diphthong(stem, DIPHTHONG[lemma]) if lemma in DIPHTHONG else stem
    # -ecer / -ucir: zc before a and o (merezco, desaparezcan).
    zc = lemma.endswith(("ecer", "ucir")) and lemma not in ("mecer",)
    out: Paradigm = {"inf": [lemma]}
    for slot, endings in _ENDINGS[ending].items():
        forms = []
        for index, end in enumerate(endings):
            base = strong if index in _STRESSED.get(slot, ()) else stem
            if ending == "ar":
                forms.append(_spell(base, end))
            elif zc and end[:1] in ("o", "a", "á"):
                forms.append(base[:-1] + "zc" + end)
            else:
                forms.append(base + end)
        out[slot] = forms
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
    if lemma.endswith("z"):
        plural = lemma[:-1] + "ces"
        return {"ms": [lemma], "fs": [lemma], "mp": [plural], "fp": [plural]}
    return {"ms": [lemma], "fs": [lemma], "mp": [lemma + "es"], "fp": [lemma + "es"]}


def noun(lemma: str) -> Paradigm:
    if lemma.endswith(("a", "e", "i", "o", "u", "é")):
        return {"s": [lemma], "p": [lemma + "s"]}
    if lemma.endswith("z"):
        return {"s": [lemma], "p": [lemma[:-1] + "ces"]}
    return {"s": [lemma], "p": [lemma + "es"]}
