"""One everyday sentence per harmwatch language, this project's own words (nothing harmful).

Shared by the identification tests and the "language" section of ``make perf``:
short, tweet-like texts are where identification is weakest, and a 280-character
text made of them is what the perf targets are stated for.
"""

from __future__ import annotations

SENTENCES: dict[str, str] = {
    "en": "The bus was late again this morning, so we walked all the way to work.",
    "es": "El autobús llegó tarde otra vez esta mañana, así que fuimos andando al trabajo.",
    "fr": "Le bus était encore en retard ce matin, alors nous sommes allés au travail à pied.",
    "ru": "Автобус сегодня утром снова опоздал, поэтому мы пошли на работу пешком.",
    "ar": "تأخرت الحافلة مرة أخرى هذا الصباح، لذلك مشينا إلى العمل على الأقدام.",
    "ig": "Ụgbọ ala bịara n'azụ oge ọzọ n'ụtụtụ a, ya mere anyị ji ụkwụ gaa ọrụ.",
    "yo": "Ọkọ̀ bọ́ọ̀sì tún pẹ́ láàárọ̀ yìí, nítorí náà a fẹsẹ̀ rìn lọ síbi iṣẹ́.",
    "ha": "Motar bas ta sake yin latti da safiyar nan, don haka muka tafi aiki da ƙafa.",
}

MORE: dict[str, str] = {
    "en": "Today is market day in our town and people came from everywhere to buy fish.",
    "es": "Hoy es día de mercado en nuestro pueblo y la gente vino de todas partes.",
    "fr": "Aujourd'hui c'est jour de marché et les gens sont venus de partout.",
    "ru": "Сегодня в нашем городе базарный день, и люди приехали отовсюду.",
    "ar": "اليوم هو يوم السوق في مدينتنا وجاء الناس من كل مكان لشراء السمك.",
    "ig": "Taa bụ ụbọchị ahịa n'obodo anyị, ndị mmadụ si n'ebe niile bịa ịzụta azụ.",
    "yo": "Lónìí jẹ́ ọjọ́ ọjà ní ìlú wa, àwọn ènìyàn wá láti ibi gbogbo láti ra ẹja.",
    "ha": "Yau ce ranar kasuwa a garinmu, mutane sun zo daga ko'ina domin su sayi kifi.",
}


def texts_of(code: str, length: int = 280, count: int = 20) -> list[str]:
    """``count`` texts of exactly ``length`` characters in one language: the two
    sentences repeated, each text starting at a different word."""
    base = f"{SENTENCES[code]} {MORE[code]} "
    words = base.split(" ")
    out = []
    for start in range(count):
        rotated = " ".join(words[start % len(words) :] + words[: start % len(words)])
        text = (rotated + " ") * (length // len(rotated) + 2)
        out.append(text[:length])
    return out
