"""The script check for texts sent without a language (engine.text.script).

It decides whether a text sent with no language gets a note saying it was read in
the default language although it is mostly in another script, so its mistakes are
either a missing note on a Russian or Arabic text, or a wrong note on a Latin one
(Yoruba's tone marks, Hausa's hooked letters, French accents are Latin).
"""

from __future__ import annotations

import pytest

from engine.text.script import dominant_script


@pytest.mark.parametrize(
    ("text", "script"),
    [
        ("Сегодня на рынке было много людей и свежих овощей.", "Cyrillic"),
        ("ذهبنا إلى السوق صباحا واشترينا الخبز والسمك.", "Arabic"),
        ("Σήμερα η αγορά ήταν γεμάτη κόσμο.", "Greek"),
        ("היום השוק היה מלא אנשים.", "Hebrew"),
        ("今天市场上有很多人。", "CJK"),
        ("आज बाज़ार में बहुत भीड़ थी।", "Indic"),
        # mostly Cyrillic, a Latin word or two inside
        ("ok, я купил хлеб и молоко в магазине", "Cyrillic"),
        # Arabic with Western digits and an emoji
        ("السوق يفتح الساعة 9 صباحا 😀", "Arabic"),
    ],
)
def test_a_text_mostly_in_another_script_is_named(text: str, script: str) -> None:
    assert dominant_script(text) == script


@pytest.mark.parametrize(
    "text",
    [
        "The market was full of people today.",  # ASCII: never even encoded
        "El mercado estaba lleno de gente hoy, ¡qué día!",
        "Le marché était plein de monde aujourd'hui, à midi.",
        "Ọjà kún fún ènìyàn lónìí, ọ̀pọ̀lọpọ̀ ẹja wà níbẹ̀.",  # Yoruba: dots and tones
        "Kasuwa ta cika da mutane yau, ƙwarai da gaske, ɗan uwa.",  # Hausa hooked letters
        "Ahịa jupụtara na ndị mmadụ taa, ọ bụ eziokwu.",  # Igbo dotted vowels
        "Mostly English with one Russian word: привет.",
        "",
        "12345 !!! 😀😀😀",  # no letters at all
        "abc \ud800 def",  # a lone surrogate does not raise
    ],
)
def test_a_latin_or_letterless_text_is_not_flagged(text: str) -> None:
    assert dominant_script(text) is None


def test_the_share_is_the_taxonomy_s_threshold() -> None:
    half = "hello мир"  # 5 Latin letters, 3 Cyrillic ones: 3/8 of the letters
    assert dominant_script(half, share=0.5) is None
    assert dominant_script(half, share=0.3) == "Cyrillic"
