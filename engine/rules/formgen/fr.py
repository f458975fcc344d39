"""French paradigms: the inflected forms of the lemmas a French pack names.

Rule-based for the regular patterns (-er verbs with their stem alternations,
-ir verbs of the finir type, -dre/-ttre verbs; adjectives and nouns by their
ending), a hand-written table for the irregular verbs the taxonomy needs. Each
generated form is checked against simplemma's French lemma table by the caller
(``engine.rules.formgen``), which lists the forms the library does not know, so
a reviewer sees where the rules may be wrong. No library here generates French
forms with their grammatical features under a licence the project can ship
(mlconjug3's data derive from Verbiste, GPL; verbecc is LGPL and needs lxml), so
the rules are ours and small.
"""

from __future__ import annotations

Paradigm = dict[str, list[str]]

_VOWELS = "aeiouyéèêàâîïôûh"


def _person(stem: str, endings: tuple[str, ...]) -> list[str]:
    return [stem + ending for ending in endings]


def _pp(masc: str) -> list[str]:
    if masc.endswith(("s", "x")):
        return [masc, masc + "e", masc + "es"]
    return [masc, masc + "e", masc + "s", masc + "es"]


# -eler / -eter verbs that double the consonant before a mute e (jeter -> jette).
_DOUBLING = frozenset({"jeter", "appeler", "rappeler", "rejeter", "épousseter"})


# Consonant groups that count as one consonant for the e -> è alternation.
_ONE_SOUND = frozenset({"ch", "gn", "vr", "br", "tr", "cr", "gr", "pl", "bl", "gl"})


def _er(lemma: str) -> Paradigm:
    """First-group verbs, with -cer/-ger, -yer and e/é + consonant alternations."""
    stem = lemma[:-2]
    soft = stem  # before a / o
    if stem.endswith("c"):
        soft = stem[:-1] + "ç"
    elif stem.endswith("g"):
        soft = stem + "e"
    mute = stem  # before a mute e (je tue, ils crèvent, il noie)
    fut_stem = lemma  # tuer-ai
    if stem.endswith("y") and not stem.endswith("ay"):
        mute = stem[:-1] + "i"
        fut_stem = mute + "er"
        if lemma.endswith("envoyer"):
            # envoyer and renvoyer take the future stem of voir: j'enverrai, on les renverra
            fut_stem = lemma[: -len("voyer")] + "verr"
    elif lemma in _DOUBLING:
        mute = stem + stem[-1]
        fut_stem = mute + "er"
    else:
        # e or é in the last syllable before one consonant (or ch/gn/tr...): è.
        for index in range(len(stem) - 1, 0, -1):
            if stem[index] in _VOWELS:
                rest = stem[index + 1 :]
                if stem[index] in "eé" and (len(rest) == 1 or rest in _ONE_SOUND):
                    mute = stem[:index] + "è" + stem[index + 1 :]
                    fut_stem = (mute if stem[index] == "e" else stem) + "er"
                break
    pres = [mute + "e", mute + "es", mute + "e", soft + "ons", stem + "ez", mute + "ent"]
    impf = [*_person(soft, ("ais", "ais", "ait")), stem + "ions", stem + "iez", soft + "aient"]
    fut = _person(fut_stem, ("ai", "as", "a", "ons", "ez", "ont"))
    cond = _person(fut_stem, ("ais", "ais", "ait", "ions", "iez", "aient"))
    subj = [mute + "e", mute + "es", mute + "e", stem + "ions", stem + "iez", mute + "ent"]
    past = [soft + "ai", soft + "as", soft + "a", soft + "âmes", soft + "âtes", stem + "èrent"]
    imp = [mute + "e", soft + "ons", stem + "ez"]
    return {
        "inf": [lemma],
        "pres": pres,
        "impf": impf,
        "fut": fut,
        "cond": cond,
        "subj": subj,
        "past": past,
        "imp": imp,
        "ppr": [soft + "ant"],
        "pp": _pp(stem + "é"),
    }


def _ir(lemma: str) -> Paradigm:
    """Second-group verbs (finir: nous finissons)."""
    stem = lemma[:-2]
    long = stem + "iss"
    return {
        "inf": [lemma],
        "pres": _person(stem, ("is", "is", "it")) + _person(long, ("ons", "ez", "ent")),
        "impf": _person(long, ("ais", "ais", "ait", "ions", "iez", "aient")),
        "fut": _person(lemma, ("ai", "as", "a", "ons", "ez", "ont")),
        "cond": _person(lemma, ("ais", "ais", "ait", "ions", "iez", "aient")),
        "subj": _person(long, ("e", "es", "e", "ions", "iez", "ent")),
        "past": _person(stem, ("is", "is", "it", "îmes", "îtes", "irent")),
        "imp": [stem + "is", long + "ons", long + "ez"],
        "ppr": [long + "ant"],
        "pp": _pp(stem + "i"),
    }


def _re(lemma: str) -> Paradigm:
    """-dre and -ttre verbs (pendre, abattre): the stem keeps d, loses one t alone."""
    stem = lemma[:-2]
    short = stem[:-1] if stem.endswith("tt") else stem
    return {
        "inf": [lemma],
        "pres": [short + "s", short + "s", short, *_person(stem, ("ons", "ez", "ent"))],
        "impf": _person(stem, ("ais", "ais", "ait", "ions", "iez", "aient")),
        "fut": _person(stem + "r", ("ai", "as", "a", "ons", "ez", "ont")),
        "cond": _person(stem + "r", ("ais", "ais", "ait", "ions", "iez", "aient")),
        "subj": _person(stem, ("e", "es", "e", "ions", "iez", "ent")),
        "past": _person(stem, ("is", "is", "it", "îmes", "îtes", "irent")),
        "imp": [short + "s", stem + "ons", stem + "ez"],
        "ppr": [stem + "ant"],
        "pp": _pp(stem + "u"),
    }


def _table(**slots: str) -> Paradigm:
    return {slot: value.split() for slot, value in slots.items()}


# Irregular verbs the taxonomy needs, written out (modern spelling only).
IRREGULAR: dict[str, Paradigm] = {
    "être": _table(
        inf="être",
        pres="suis es est sommes êtes sont",
        impf="étais était étions étiez étaient",
        fut="serai seras sera serons serez seront",
        cond="serais serait serions seriez seraient",
        subj="sois soit soyons soyez soient",
        past="fus fut fûmes fûtes furent",
        imp="sois soyons soyez",
        ppr="étant",
        pp="été",
    ),
    "avoir": _table(
        inf="avoir",
        pres="ai as a avons avez ont",
        impf="avais avait avions aviez avaient",
        fut="aurai auras aura aurons aurez auront",
        cond="aurais aurait aurions auriez auraient",
        subj="aie aies ait ayons ayez aient",
        past="eus eut eûmes eûtes eurent",
        imp="aie ayons ayez",
        ppr="ayant",
        pp="eu eue eus eues",
    ),
    "aller": _table(
        inf="aller",
        pres="vais vas va allons allez vont",
        impf="allais allait allions alliez allaient",
        fut="irai iras ira irons irez iront",
        cond="irais irait irions iriez iraient",
        subj="aille ailles allions alliez aillent",
        past="allai allas alla allâmes allâtes allèrent",
        imp="va allons allez",
        ppr="allant",
        pp="allé allée allés allées",
    ),
    "faire": _table(
        inf="faire",
        pres="fais fait faisons faites font",
        impf="faisais faisait faisions faisiez faisaient",
        fut="ferai feras fera ferons ferez feront",
        cond="ferais ferait ferions feriez feraient",
        subj="fasse fasses fassions fassiez fassent",
        past="fis fit fîmes fîtes firent",
        imp="fais faisons faites",
        ppr="faisant",
        pp="fait faite faits faites",
    ),
    "devoir": _table(
        inf="devoir",
        pres="dois doit devons devez doivent",
        impf="devais devait devions deviez devaient",
        fut="devrai devras devra devrons devrez devront",
        cond="devrais devrait devrions devriez devraient",
        subj="doive doives devions deviez doivent",
        past="dus dut dûmes dûtes durent",
        imp="dois devons devez",
        ppr="devant",
        pp="dû due dus dues",
    ),
    "falloir": _table(
        inf="falloir",
        pres="faut",
        impf="fallait",
        fut="faudra",
        cond="faudrait",
        subj="faille",
        past="fallut",
        pp="fallu",
    ),
    "valoir": _table(
        inf="valoir",
        pres="vaux vaut valons valez valent",
        impf="valais valait valions valiez valaient",
        fut="vaudrai vaudras vaudra vaudrons vaudrez vaudront",
        cond="vaudrais vaudrait vaudrions vaudriez vaudraient",
        subj="vaille vailles valions valiez vaillent",
        past="valus valut valûmes valûtes valurent",
        ppr="valant",
        pp="valu value valus values",
    ),
    "pouvoir": _table(
        inf="pouvoir",
        pres="peux peut pouvons pouvez peuvent",
        impf="pouvais pouvait pouvions pouviez pouvaient",
        fut="pourrai pourras pourra pourrons pourrez pourront",
        cond="pourrais pourrait pourrions pourriez pourraient",
        subj="puisse puisses puissions puissiez puissent",
        past="pus put pûmes pûtes purent",
        ppr="pouvant",
        pp="pu",
    ),
    "vouloir": _table(
        inf="vouloir",
        pres="veux veut voulons voulez veulent",
        impf="voulais voulait voulions vouliez voulaient",
        fut="voudrai voudras voudra voudrons voudrez voudront",
        cond="voudrais voudrait voudrions voudriez voudraient",
        subj="veuille veuilles voulions vouliez veuillent",
        past="voulus voulut voulûmes voulûtes voulurent",
        imp="veuille veuillons veuillez",
        ppr="voulant",
        pp="voulu voulue voulus voulues",
    ),
    "mourir": _table(
        inf="mourir",
        pres="meurs meurt mourons mourez meurent",
        impf="mourais mourait mourions mouriez mouraient",
        fut="mourrai mourras mourra mourrons mourrez mourront",
        cond="mourrais mourrait mourrions mourriez mourraient",
        subj="meure meures mourions mouriez meurent",
        past="mourus mourut mourûmes mourûtes moururent",
        imp="meurs mourons mourez",
        ppr="mourant",
        pp="mort morte morts mortes",
    ),
    "souffrir": _table(
        inf="souffrir",
        pres="souffre souffres souffrons souffrez souffrent",
        impf="souffrais souffrait souffrions souffriez souffraient",
        fut="souffrirai souffriras souffrira souffrirons souffrirez souffriront",
        cond="souffrirais souffrirait souffririons souffririez souffriraient",
        subj="souffre souffres souffrions souffriez souffrent",
        past="souffris souffrit souffrîmes souffrîtes souffrirent",
        imp="souffre souffrons souffrez",
        ppr="souffrant",
        pp="souffert soufferte soufferts souffertes",
    ),
    "disparaître": _table(
        inf="disparaître disparaitre",
        pres="disparais disparaît disparait disparaissons disparaissez disparaissent",
        impf="disparaissais disparaissait disparaissions disparaissiez disparaissaient",
        fut="disparaîtrai disparaîtra disparaîtrons disparaîtront disparaitra disparaitront",
        cond="disparaîtrais disparaîtrait disparaîtraient disparaitrait disparaitraient",
        subj="disparaisse disparaisses disparaissions disparaissiez disparaissent",
        past="disparus disparut disparurent",
        imp="disparais disparaissons disparaissez",
        ppr="disparaissant",
        pp="disparu disparue disparus disparues",
    ),
    "vivre": _table(
        inf="vivre",
        pres="vis vit vivons vivez vivent",
        impf="vivais vivait vivions viviez vivaient",
        fut="vivrai vivras vivra vivrons vivrez vivront",
        cond="vivrais vivrait vivrions vivriez vivraient",
        subj="vive vives vivions viviez vivent",
        past="vécus vécut vécurent",
        imp="vis vivons vivez",
        ppr="vivant",
        pp="vécu",
    ),
    "mettre": _table(
        inf="mettre",
        pres="mets met mettons mettez mettent",
        impf="mettais mettait mettions mettiez mettaient",
        fut="mettrai mettras mettra mettrons mettrez mettront",
        cond="mettrais mettrait mettrions mettriez mettraient",
        subj="mette mettes mettions mettiez mettent",
        past="mis mit mirent",
        imp="mets mettons mettez",
        ppr="mettant",
        pp="mis mise mises",
    ),
    "détruire": _table(
        inf="détruire",
        pres="détruis détruit détruisons détruisez détruisent",
        impf="détruisais détruisait détruisions détruisiez détruisaient",
        fut="détruirai détruiras détruira détruirons détruirez détruiront",
        cond="détruirais détruirait détruirions détruiriez détruiraient",
        subj="détruise détruises détruisions détruisiez détruisent",
        past="détruisis détruisit détruisirent",
        imp="détruis détruisons détruisez",
        ppr="détruisant",
        pp="détruit détruite détruits détruites",
    ),
    "foutre": _table(
        inf="foutre",
        pres="fous fout foutons foutez foutent",
        impf="foutais foutait foutions foutiez foutaient",
        fut="foutrai foutras foutra foutrons foutrez foutront",
        cond="foutrais foutrait foutrions foutriez foutraient",
        subj="foute foutes foutions foutiez foutent",
        imp="fous foutons foutez",
        ppr="foutant",
        pp="foutu foutue foutus foutues",
    ),
    "haïr": _table(
        inf="haïr",
        pres="hais hait haïssons haïssez haïssent",
        impf="haïssais haïssait haïssions haïssiez haïssaient",
        fut="haïrai haïras haïra haïrons haïrez haïront",
        cond="haïrais haïrait haïrions haïriez haïraient",
        subj="haïsse haïsses haïssions haïssiez haïssent",
        imp="hais haïssons haïssez",
        ppr="haïssant",
        pp="haï haïe haïs haïes",
    ),
}

# Verbs in -ir that are conjugated like finir (the others are listed above).
_SECOND_GROUP = frozenset(
    {"anéantir", "punir", "pourrir", "périr", "salir", "finir", "bannir", "envahir", "abrutir"}
)


def verb(lemma: str) -> Paradigm:
    """Every form of a French verb, by slot (see engine.rules.morphology.SLOTS)."""
    if lemma in IRREGULAR:
        return {slot: list(forms) for slot, forms in IRREGULAR[lemma].items()}
    if lemma.endswith("er"):
        return _er(lemma)
    if lemma in _SECOND_GROUP:
        return _ir(lemma)
    if lemma.endswith(("dre", "ttre")):
        return _re(lemma)
    raise ValueError(f"no French paradigm for the verb {lemma!r}: add it to IRREGULAR")


# Adjectives whose feminine the endings below get wrong.
_ADJ_FEMININE = {
    "fou": "folle",
    "mou": "molle",
    "vieux": "vieille",
    "faux": "fausse",
    "gentil": "gentille",
    "nul": "nulle",
    "bas": "basse",
    "gras": "grasse",
    "gros": "grosse",
    "épais": "épaisse",
    "frais": "fraîche",
    "malin": "maligne",
    "sec": "sèche",
}


def adjective(lemma: str) -> Paradigm:
    """Masculine/feminine singular/plural of a French adjective (by its ending)."""
    if lemma in _ADJ_FEMININE:
        fem = _ADJ_FEMININE[lemma]
    elif lemma.endswith("e"):
        fem = lemma
    elif lemma.endswith("eux"):
        fem = lemma[:-1] + "se"
    elif lemma.endswith("if"):
        fem = lemma[:-1] + "ve"
    elif lemma.endswith(("el", "eil", "en", "on", "et")):
        fem = lemma + lemma[-1] + "e"
    elif lemma.endswith("er"):
        fem = lemma[:-2] + "ère"
    else:
        fem = lemma + "e"
    if lemma.endswith(("s", "x")):
        masc_pl = lemma
    elif lemma.endswith("al"):
        masc_pl = lemma[:-2] + "aux"
    elif lemma.endswith("eau"):
        masc_pl = lemma + "x"
    else:
        masc_pl = lemma + "s"
    return {"ms": [lemma], "fs": [fem], "mp": [masc_pl], "fp": [fem + "s"]}


_NOUN_PLURAL = {"oeil": "yeux", "œil": "yeux", "pou": "poux", "ciel": "cieux"}


def noun(lemma: str) -> Paradigm:
    """Singular and plural of a French noun (by its ending)."""
    if lemma in _NOUN_PLURAL:
        plural = _NOUN_PLURAL[lemma]
    elif lemma.endswith(("s", "x", "z")):
        plural = lemma
    elif lemma.endswith(("au", "eau", "eu")):
        plural = lemma + "x"
    elif lemma.endswith("al"):
        plural = lemma[:-2] + "aux"
    else:
        plural = lemma + "s"
    return {"s": [lemma], "p": [plural]}
