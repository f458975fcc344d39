"""Arabic paradigms: templates of dialect affixes around stems, hand-written.

No library covers the colloquial affixes (simplemma's Arabic table is Modern
Standard Arabic), so the templates are written here. Unvowelled Arabic spells a
sound triliteral verb with the same three letters in every stem (قتل, يقتل,
قتلوا, اقتل), so one rule set generates them; verbs whose stems change (hollow,
defective and doubled roots, derived forms, phrasal verbs) are listed by stem in
``STEMS``. Lemmas are written in the folded spelling the matcher sees (ا for
أ إ آ, ي for final ى, ه for ة): the perfect, third person masculine singular for
verbs, the masculine singular for adjectives, the singular for nouns.

Slots (``engine.rules.morphology.SLOTS``), as the Arabic pack uses them:

- ``inf``: the verbal noun (masdar), which does the infinitive's work ("يجب قتل");
- ``subj``: the bare imperfect, every person (ا ن ي ت + stem + و وا ون ي ين ن): the
  dialect subjunctive after لازم, عايز, بدي, ان and the Standard indicative alike;
- ``pres``: ``subj`` plus the dialect present with ب (بيقتلوا, بنقتل, بقتل);
- ``fut``: ``subj`` behind a future marker: ه and ح (Egypt, Levant; the first person
  both هقتل and هاقتل), رح / راح (Levant), س and سوف (Standard), غادي / غا (Maghreb);
- ``past``: the perfect, every person (قتلت, قتلنا, قتلتو, قتلوا, قتلو);
- ``imp``: the imperative (اقتل, اقتلوا, اقتلو, اقتلي);
- ``neg``: the م…ش circumfix around the first and third persons of ``subj``,
  ``pres`` and ``past`` (ما نحرقش, منحرقش, مبيقتلوش), for the rhetorical "why don't
  we ..." frames; negation cues match the circumfix around any verb;
- ``pass``: the colloquial passive: ات / ان / ت before the perfect (اتقتل, انقتلوا),
  يت / ين before the imperfect, bare or behind ب, ه, ح (بيتقتلوا, هينقتلوا);
- ``ppr`` / ``pp``: active and passive participles with their gender and number
  endings (قاتلين, مقتولين), and the colloquial participle متـ (متقتلين).

Object clitics (ـه ـها ـهم ـكم ـنا) are not generated: a space in a pattern also
matches no space, so ``{W:KILL_V:imp} {T}`` reads "اقتلوهم" with the clitic in the
target slot (the pack's references). As a negation cue the م…ش circumfix goes
around any verb, known or not, so the cue lives in the pack's negation cues.

Letter mergers: the dialects write ذ as د or ز, ث as ت or س, ظ as ض or ز (دبح for
ذبح, عزاب for عذاب). Every generated form gets its merged spellings, except those
listed in ``MERGED_OUT``: merged spellings that are ordinary words of their own
(قدر "fate" from قذر "filthy").
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

Paradigm = dict[str, list[str]]

# Slots a library's lemma table cannot know: they are colloquial by construction.
UNATTESTED_SLOTS = frozenset({"pres1", "pres2", "pres3", "fut1", "fut2", "fut3", "pass", "neg"})

MERGERS: dict[str, tuple[str, ...]] = {
    "ذ": ("ذ", "د", "ز"),
    "ث": ("ث", "ت", "س"),
    "ظ": ("ظ", "ض", "ز"),
}

# Merged spellings that are other words: "قدر" (fate, pot), "قدره" (his capability),
# "قدرات" (abilities), "عزب" (bachelor), "عدو" (enemy), "زل" (slipped) ...
MERGED_OUT = frozenset(
    {
        "قدر",
        "قدره",
        "قدرات",
        "قزر",
        "عزب",
        "عزاب",
        "عدب",
        "زباب",
        "دباب",
        "خبس",
        "خبت",
        "خبيت",
        "خبيس",
        "نتن",
        "دبابه",
        "دبابات",
        "تعبان",
        "تعابين",
        "جرد",
        "زاني",
    }
)


# Generated forms that are other common words, dropped wherever they come out (also
# behind the ب/ه/ح markers): the colloquial passive of صفي, "ينصفوا", is also "they are
# treated fairly" (أنصف), as in "X must be treated fairly".
COLLISIONS: frozenset[str] = frozenset(
    {f"{person}نصف{ending}" for person in ("ي", "ت", "ن") for ending in ("", "و", "وا", "ون", "ي")}
)


def _collides(form: str) -> bool:
    return form in COLLISIONS or (form[:1] in "بهح" and form[1:] in COLLISIONS)


# Lemmas whose merged spellings are other common words altogether: اذي (hurt)
# would give ودي (Egyptian "take": هوديهم = I'll take them) and ازي ("how").
NO_MERGE = frozenset({"اذي"})


@dataclass(frozen=True)
class Stems:
    """The stems of a verb whose letters change between tenses.

    ``past_c``: the perfect before a consonant suffix (مت-نا, صفي-نا); ``past_v``:
    the bare perfect and before a vowel suffix (مات, ماتوا); ``impf``: after the
    person prefix (يـموت); ``imp``: the imperative singular; ``masdar``; ``act`` /
    ``pas``: the participles (masculine singular); ``defective``: a final ي that a
    plural suffix replaces (يصفوا, صفوا); ``tail``: the preposition of a phrasal
    verb (قضي علي), written after every form.
    """

    past_c: tuple[str, ...]
    past_v: tuple[str, ...]
    impf: tuple[str, ...]
    imp: tuple[str, ...]
    masdar: tuple[str, ...] = ()
    act: tuple[str, ...] = ()
    pas: tuple[str, ...] = ()
    defective: bool = False
    passive: bool = True


def _s(*forms: str) -> tuple[str, ...]:
    return forms


STEMS: dict[str, Stems] = {
    # hollow roots
    "مات": Stems(
        _s("مت"), _s("مات"), _s("موت"), _s("موت"), _s("موت"), _s("ميت", "مايت"), passive=False
    ),
    "باد": Stems(_s("بد"), _s("باد"), _s("بيد"), _s(), _s(), passive=False),
    "زال": Stems(_s("زل"), _s("زال"), _s("زول"), _s(), _s("زوال"), passive=False),
    "اباد": Stems(
        _s("ابد", "اباد"),
        _s("اباد"),
        _s("بيد"),
        _s("ابيد", "بيد"),
        _s("اباده", "ابادت"),
        _s("مبيد"),
        _s("مباد"),
    ),
    # form II sterilize: imperative without alif, verbal noun تعقيم (issue 12 class 2)
    "عقم": Stems(_s("عقم"), _s("عقم"), _s("عقم"), _s("عقم"), _s("تعقيم"), _s("معقم"), _s("معقم")),
    # trample (Egyptian and Levantine: يدوس, passive اتداس / ينداس)
    "داس": Stems(_s("دس"), _s("داس"), _s("دوس"), _s("دوس"), _s("دوس"), _s("دايس"), _s("مدوس")),
    "قوص": Stems(_s("قوص"), _s("قوص"), _s("قوص"), _s("قوص"), _s("تقويص"), _s("مقوص"), _s("مقوص")),
    # defective roots (final ي)
    "صفي": Stems(
        _s("صفي"),
        _s("صفي"),
        _s("صفي"),
        _s("صفي"),
        _s("تصفيه", "تصفيت"),
        _s("مصفي"),
        _s("متصفي"),
        defective=True,
    ),
    "محا": Stems(
        _s("محي", "محو"),
        _s("محي", "محا"),
        _s("محي", "محو"),
        _s("امحي", "امحو", "امح"),
        _s("محو"),
        _s("ماحي"),
        _s("ممحي"),
        defective=True,
    ),
    "فني": Stems(
        _s("فني"),
        _s("فني"),
        _s("فني"),
        _s("افني"),
        _s("فناء", "فنا"),
        _s("فاني"),
        passive=False,
        defective=True,
    ),
    "افني": Stems(
        _s("افني"), _s("افني"), _s("فني"), _s("افني"), _s("افناء"), _s("مفني"), defective=True
    ),
    "رمي": Stems(
        _s("رمي"),
        _s("رمي", "رما"),
        _s("رمي"),
        _s("ارمي"),
        _s("رمي"),
        _s("رامي"),
        _s("مرمي"),
        defective=True,
    ),
    "خصي": Stems(
        _s("خصي"),
        _s("خصي"),
        _s("خصي"),
        _s("اخصي"),
        _s("خصي", "اخصاء"),
        _s("خاصي"),
        _s("مخصي"),
        defective=True,
    ),
    "سبي": Stems(
        _s("سبي"),
        _s("سبي"),
        _s("سبي"),
        _s("اسبي"),
        _s("سبي"),
        _s("سابي"),
        _s("مسبي"),
        defective=True,
    ),
    "عاني": Stems(
        _s("عاني"), _s("عاني"), _s("عاني"), _s(), _s("معاناه"), passive=False, defective=True
    ),
    "قضي علي": Stems(
        _s("قضي"),
        _s("قضي", "قضا"),
        _s("قضي"),
        _s("اقضي", "اقض"),
        _s("قضاء", "القضاء"),
        _s("قاضي"),
        _s("مقضي"),
        defective=True,
    ),
    "اختفي": Stems(
        _s("اختفي"), _s("اختفي"), _s("ختفي"), _s(), _s("اختفاء"), passive=False, defective=True
    ),
    # اذي (hurt): Standard يؤذي folds to يوذي, colloquial هأذي to هاذي
    "اذي": Stems(
        _s("اذي"),
        _s("اذي", "اذا"),
        _s("وذي", "اذي"),
        _s("اوذي"),
        _s("اذي", "اذيه", "ايذاء"),
        _s("موذي"),
        _s("متاذي"),
        defective=True,
        passive=False,
    ),
    # doubled roots (one written letter for the geminate)
    "طخ": Stems(_s("طخي"), _s("طخ"), _s("طخ"), _s("طخ"), _s("طخ"), _s("طاخخ"), _s("مطخوخ")),
    "جز": Stems(_s("جزي"), _s("جز"), _s("جز"), _s("جز"), _s("جز"), _s(), _s("مجزوز")),
    "دق": Stems(_s("دقي"), _s("دق"), _s("دق"), _s("دق"), _s("دق"), _s(), _s("مدقوق")),
    # derived forms
    "اعدم": Stems(
        _s("اعدم"), _s("اعدم"), _s("عدم"), _s("اعدم"), _s("اعدام"), _s("معدم"), _s("معدوم")
    ),
    "اغتصب": Stems(
        _s("اغتصب"), _s("اغتصب"), _s("غتصب"), _s("اغتصب"), _s("اغتصاب"), _s("مغتصب"), _s("مغتصب")
    ),
    "احترق": Stems(
        _s("احترق", "اتحرق", "انحرق"),
        _s("احترق", "اتحرق", "انحرق"),
        _s("حترق", "تحرق", "نحرق"),
        _s(),
        _s("احتراق"),
        _s("محترق"),
        passive=False,
    ),
    "انقرض": Stems(
        _s("انقرض"), _s("انقرض"), _s("نقرض"), _s(), _s("انقراض"), _s("منقرض"), passive=False
    ),
    "تعذب": Stems(
        _s("تعذب", "اتعذب"),
        _s("تعذب", "اتعذب"),
        _s("تعذب"),
        _s(),
        _s("عذاب"),
        _s("متعذب"),
        passive=False,
    ),
    "تالم": Stems(
        _s("تالم", "اتالم"),
        _s("تالم", "اتالم"),
        _s("تالم"),
        _s(),
        _s("الم"),
        _s("متالم"),
        passive=False,
    ),
    "تخلص من": Stems(
        _s("تخلص", "اتخلص"),
        _s("تخلص", "اتخلص"),
        _s("تخلص"),
        _s("تخلص"),
        _s("تخلص", "التخلص"),
        _s("متخلص"),
        passive=False,
    ),
    "استاصل": Stems(
        _s("استاصل"),
        _s("استاصل"),
        _s("ستاصل"),
        _s("استاصل"),
        _s("استئصال", "استيصال"),
        _s("مستاصل"),
        _s("مستاصل"),
    ),
    "اجتث": Stems(
        _s("اجتثي", "اجتث"), _s("اجتث"), _s("جتث"), _s("اجتث"), _s("اجتثاث"), _s("مجتث"), _s("مجتث")
    ),
    "استحق": Stems(
        _s("استحق", "استحقي"),
        _s("استحق"),
        _s("ستحق"),
        _s(),
        _s("استحقاق"),
        _s("مستحق"),
        passive=False,
    ),
    "استاهل": Stems(
        _s("استاهل"), _s("استاهل"), _s("ستاهل"), _s(), _s(), _s("مستاهل"), passive=False
    ),
    "هلك": Stems(_s("هلك"), _s("هلك"), _s("هلك"), _s(), _s("هلاك"), _s("هالك"), passive=False),
    "فطس": Stems(
        _s("فطس"), _s("فطس"), _s("فطس"), _s("افطس"), _s("فطيس"), _s("فاطس"), passive=False
    ),
}

# Form II and quadriliteral verbs: the same letters in every stem, no alif in the
# imperative, masdar taf'il / fa'lala. Listed with their masdar.
FORM_II: dict[str, tuple[str, ...]] = {
    "عذب": ("تعذيب",),
    "دمر": ("تدمير",),
    "فجر": ("تفجير",),
    "قطع": ("تقطيع", "قطع"),
    "كسر": ("تكسير", "كسر"),
    "فرم": ("فرم", "تفريم"),
    "خوزق": ("خوزقه", "خوزقت"),
    "ولع": ("تولع",),
    "موت": ("تمويت",),
    "غرق": ("تغريق", "غرق"),
    "طهر": ("تطهير",),
    "نظف": ("تنظيف",),
    "نضف": ("تنضيف",),
    "علق": ("تعليق",),
    "شرح": ("تشريح",),
    "خلص": ("تخليص",),
    "طلق": ("اطلاق", "طلق"),
    "شوي": ("شوي",),
    "علم": ("تعليم",),
    "سمم": ("تسميم",),
    "عور": ("تعوير",),
}

# Form II verbs also used as form I (قطع / قطّع): their imperative is written
# with and without the alif ("اقطعوا", "قطعوا").
FORM_I_TOO = frozenset({"قطع", "كسر", "غرق", "فرم"})

# Verbs of a sound root whose masdar differs from the bare root letters.
MASDAR: dict[str, tuple[str, ...]] = {
    "قتل": ("قتل", "تقتيل"),
    "ذبح": ("ذبح",),
    "خنق": ("خنق",),
    "سحل": ("سحل",),
    "سلخ": ("سلخ",),
    "بتر": ("بتر",),
}

# Nouns: hand-listed plurals (broken or sound), by singular. A noun that is not
# listed takes the feminine sound plural when it ends in ه (حشره -> حشرات) and the
# masculine sound plural when it is a nisba in ي (طفيلي -> طفيليين / طفيليون).
PLURALS: dict[str, tuple[str, ...]] = {
    "فار": ("فئران", "فيران"),
    "جرذ": ("جرذان",),
    # Sudanese for a rat or mouse (issue 12 class 3; the sense is from usage, uncertain)
    "جقر": ("جقور",),
    "صرصور": ("صراصير", "صراصر"),
    "برغوث": ("براغيث",),
    "دوده": ("ديدان", "دود"),
    "قمله": ("قمل",),
    "ذبابه": ("ذباب",),
    "بعوضه": ("بعوض",),
    "عقرب": ("عقارب",),
    "ثعبان": ("ثعابين",),
    "افعي": ("افاعي",),
    "قارض": ("قوارض",),
    "افه": ("افات",),
    "علقه": ("علق",),
    "جراده": ("جراد",),
    "كلب": ("كلاب",),
    "خنزير": ("خنازير",),
    # قروده: the Maghrebi and Libyan plural (issue 12 class 3)
    "قرد": ("قرود", "قرده", "قروده"),
    "حمار": ("حمير",),
    "بهيمه": ("بهائم", "بهايم"),
    "حيوان": ("حيوانات",),
    "وحش": ("وحوش",),
    "بغل": ("بغال",),
    "ضبع": ("ضباع",),
    "دابه": ("دواب",),
    "جيفه": ("جيف",),
    "زباله": ("زبالات",),
    "قمامه": ("قمامات",),
    "نفايه": ("نفايات",),
    "وسخ": ("اوساخ",),
    "قذاره": ("قذارات", "قاذورات"),
    "مجرم": ("مجرمين", "مجرمون"),
    "حرامي": ("حراميه", "حراميه"),
    "لص": ("لصوص",),
    "سرطان": ("سرطانات",),
    "ورم": ("اورام",),
    "وباء": ("اوبئه",),
    "جرثومه": ("جراثيم",),
    "فيروس": ("فيروسات", "فايروسات"),
    "شيطان": ("شياطين",),
    "عدو": ("اعداء", "اعادي"),
}

# Adjectives whose masculine plural is broken (besides the sound -ين / -ون).
ADJ_PLURALS: dict[str, tuple[str, ...]] = {
    "نجس": ("انجاس",),
    "حقير": ("حقراء", "حقرا"),
    "قذر": ("قذرين",),
    "خسيس": ("اخساء",),
    "وسخ": ("وسخين",),
    "همجي": ("همج",),
    "متوحش": ("متوحشين",),
    "غبي": ("اغبياء", "اغبيا"),
    "تافه": ("توافه",),
    "رخيص": ("رخاص",),
    "منحط": ("منحطين",),
    "وحشي": ("وحوش",),
}

# Imperfect person prefixes and suffixes, by person: 1 = I / we (Maghrebi نقتل is
# "I", نقتلو "we"); 2 = you (ت + ي ين و وا ون); 3 = he, she, they (تقتل is "you" and
# "she" alike: it counts as third person, as تقتلن "they (f.)").
_IMPF_PERSONS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "1": (("ا", ("",)), ("ن", ("", "و", "وا"))),
    "2": (("ت", ("ي", "ين", "و", "وا", "ون")),),
    "3": (("ي", ("", "و", "وا", "ون", "ن")), ("ت", ("", "ن"))),
}
_FUTURE_GLUED = ("ه", "ح", "س", "غا")
_FUTURE_SPACED = ("رح ", "راح ", "سوف ", "غادي ")
# Perfect suffixes by person: (after the consonant stem, after the vowel stem).
# قتلت is "I", "you" and "she": it counts as first person.
_PAST_PERSONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "1": (("ت", "نا"), ()),
    "2": (("تي", "تم", "تو", "توا", "تن"), ()),
    "3": ((), ("", "ت", "وا", "و", "ن")),
}
_IMP = ("", "وا", "و", "ي")
_PARTICIPLE = ("", "ه", "ين", "ون", "ات")


def merged(form: str) -> list[str]:
    """``form`` and its spellings with the dialect letter mergers (ذ/د/ز, ث/ت/س, ظ/ض/ز)."""
    choices = [MERGERS.get(ch, (ch,)) for ch in form]
    out = ["".join(letters) for letters in product(*choices)]
    return [f for f in out if f == form or f.split(" ")[0] not in MERGED_OUT]


def _with_tail(forms: list[str], tail: str) -> list[str]:
    return [f"{form} {tail}" if tail else form for form in forms]


def _plural_suffix(stem: str, suffix: str, defective: bool) -> str:
    """A defective stem loses its final ي before و / وا / ون (يصفوا, صفوا) and
    before ي / ين (تصفي, تصفين); so does a stem in و (يمحوا, not يمحووا): a word that
    ends in two و would also keep two in an elongated ending ("يتدبحووو")."""
    if defective and suffix[:1] in ("و", "ي") and stem.endswith(("ي", "و")):
        return stem[:-1] + suffix
    return stem + suffix


def _stems(lemma: str) -> tuple[Stems, str]:
    head, _, tail = lemma.partition(" ")
    if lemma in STEMS:
        stems = STEMS[lemma]
        return stems, tail
    if head in STEMS and tail:
        return STEMS[head], tail
    if head in FORM_II:
        root = head
        masdar = FORM_II[head]
        imp = _s(root, "ا" + root) if root in FORM_I_TOO else _s(root)
        return Stems(
            _s(root), _s(root), _s(root), imp, masdar, _s("م" + root), _s("م" + root)
        ), tail
    letters = head
    if len(letters) != 3 or any(ch in "اوي" for ch in letters):
        raise ValueError(
            f"no Arabic paradigm for the verb {lemma!r}: not a sound triliteral root; "
            "list its stems in STEMS (or FORM_II)"
        )
    masdar = MASDAR.get(lemma, (letters,))
    act = letters[0] + "ا" + letters[1:]
    pas = "م" + letters[:2] + "و" + letters[2]
    return Stems(
        _s(letters), _s(letters), _s(letters), _s("ا" + letters), masdar, _s(act), _s(pas)
    ), tail


def verb(lemma: str) -> Paradigm:
    """Every form of an Arabic verb, by slot (see the module docstring)."""
    stems, tail = _stems(lemma)
    d = stems.defective
    slots: Paradigm = {"inf": list(stems.masdar)}
    for person, affixes in _IMPF_PERSONS.items():
        subj = [
            prefix + _plural_suffix(stem, suffix, d)
            for stem in stems.impf
            for prefix, suffixes in affixes
            for suffix in suffixes
        ]
        slots["subj" + person] = subj
        pres = ["ب" + form for form in subj]
        fut: list[str] = []
        for form in subj:
            glued = _FUTURE_GLUED[:3] if form[:1] == "ا" else _FUTURE_GLUED
            fut.extend(marker + form for marker in (*glued, *_FUTURE_SPACED))
        if person == "1":
            pres.extend("ب" + stem for stem in stems.impf)  # بقتل = باقتل
            # هقتل = هاقتل; Levantine رح قتّل without the alif
            fut.extend(m + stem for stem in stems.impf for m in ("ه", "ح", "رح ", "راح "))
        slots["pres" + person] = pres
        slots["fut" + person] = fut
    for person, (consonant, vowel) in _PAST_PERSONS.items():
        past = [stem + suffix for stem in stems.past_c for suffix in consonant]
        past += [_plural_suffix(stem, suffix, d) for stem in stems.past_v for suffix in vowel]
        slots["past" + person] = past
    # The م…ش circumfix of the first and third persons: "ما نحرقش", "منحرقش",
    # "مبيقتلوش", "مقتلناش". It goes around the verb, before a phrasal verb's
    # preposition ("منولعش في").
    negatable = [f for p in "13" for t in ("subj", "pres", "past") for f in slots[t + p]]
    slots["neg"] = [lead + form + "ش" for form in negatable for lead in ("م", "ما ")]
    slots["imp"] = [_plural_suffix(stem, suffix, d) for stem in stems.imp for suffix in _IMP]
    passive: list[str] = []
    if stems.passive:
        for stem in stems.past_v:
            base = stem[1:] if stem.startswith("ا") else stem
            for lead in ("ات", "ان"):
                passive.extend(_plural_suffix(lead + base, s, d) for s in ("", "ت", "وا", "و"))
        # A hollow root's passive imperfect keeps the perfect's long ا (يتداس, ينباع,
        # هيتقال), not the imperfect's و/ي: the bare perfect stem joins the imperfect's.
        hollow = [
            base
            for stem in stems.past_v
            if len(base := stem[1:] if stem.startswith("ا") else stem) == 3 and base[1] == "ا"
        ]
        for stem in dict.fromkeys((*stems.impf, *hollow)):
            for lead in ("يت", "تت", "نت", "ين", "تن", "نن"):
                bare = [_plural_suffix(lead + stem, s, d) for s in ("", "و", "وا", "ون", "ي")]
                passive.extend(bare)
                passive.extend(marker + f for f in bare for marker in ("ب", "ه", "ح"))
    slots["pass"] = passive
    slots["ppr"] = [a + e for a in stems.act for e in _PARTICIPLE]
    pp = [p + e for p in stems.pas for e in _PARTICIPLE]
    if stems.passive:
        pp += ["مت" + st + e for st in stems.past_v for e in _PARTICIPLE if not st.startswith("ا")]
    slots["pp"] = pp
    out: Paradigm = {}
    for slot, forms in slots.items():
        spelled = forms if lemma in NO_MERGE else [v for form in forms for v in merged(form)]
        # A phrasal verb's preposition follows every form, the verbal noun's too
        # ("القضاء علي", "التخلص من").
        kept = [form for form in spelled if not _collides(form)]
        out[slot] = list(dict.fromkeys(_with_tail(kept, tail)))
    return out


def adjective(lemma: str) -> Paradigm:
    """Masculine/feminine, singular/plural of an adjective; nisba plurals also with
    the colloquial doubled ي (عنصريين / عنصرين)."""
    fem = lemma + "ه"
    masc_pl = [lemma + "ين", lemma + "ون"]
    if lemma.endswith("ي"):
        masc_pl += [lemma + "ين", lemma[:-1] + "ين", lemma + "ون"]
    masc_pl += list(ADJ_PLURALS.get(lemma, ()))
    fem_pl = [lemma + "ات"]
    slots = {"ms": [lemma], "fs": [fem], "mp": masc_pl, "fp": fem_pl}
    return {
        slot: list(dict.fromkeys(v for f in forms for v in merged(f)))
        for slot, forms in slots.items()
    }


def noun(lemma: str) -> Paradigm:
    """Singular and plural of a noun: hand-listed plurals first (``PLURALS``)."""
    if lemma in PLURALS:
        plural = list(PLURALS[lemma])
    elif lemma.endswith("ه"):
        plural = [lemma[:-1] + "ات"]
    elif lemma.endswith("ي"):
        plural = [lemma + "ين", lemma + "ون", lemma + "ات", lemma[:-1] + "ين"]
    else:
        raise ValueError(f"no plural for the Arabic noun {lemma!r}: list it in PLURALS")
    slots = {"s": [lemma], "p": plural}
    return {
        slot: list(dict.fromkeys(v for f in forms for v in merged(f)))
        for slot, forms in slots.items()
    }
