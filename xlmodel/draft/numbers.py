"""Numbers and comparison words as plan texts write them.

* :func:`fold` — the text for matching: full-width digits, letters and punctuation folded
  to ASCII (NFKC, one character at a time) with a map back to the original positions, so a
  quote is always cut from the text as published;
* :func:`cn_int` — Chinese numerals (三, 十二, 二十五, 一百, 两, 〇/○/零) and ASCII digits;
* :func:`ratio` — 30%, 12.5 %, 百分之三十, 三分之二, 2/3, 1/2, 二分之一, 半数 → a Fraction;
* :func:`amount` — 5,000万元, 4亿元, 0.22元, 人民币五千万元 → a Fraction of 元;
* :data:`OPS` / :func:`op_of` — 不少于 / 不低于 / 达到或超过 / 以上 → ``>=``; 超过 / 高于 →
  ``>``; 不超过 / 以下 → ``<=``; 低于 / 少于 → ``<`` (DOMAIN.md §4: 以上 and 以下 include the
  number itself, Civil Code art. 1259).

The patterns are bounded (no nested repetition), so a hostile text costs linear time. A number
in digits starts where no digit stands before it and takes its digits possessively, so a long run
of digits is tried once, not once from each of its digits; a number longer than :data:`MAX_DIGITS`
digits (or :data:`MAX_DECIMALS` decimals) is no number at all here (:data:`LONG_NUMBER` finds it
for the review list), so nothing converts an absurd number (Python refuses integers of more than
4,300 digits).
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import chain, repeat

_DIGIT = {"零": 0, "〇": 0, "○": 0, "Ｏ": 0, "一": 1, "壹": 1, "二": 2, "贰": 2, "两": 2, "三": 3, "叁": 3,
          "四": 4, "肆": 4, "五": 5, "伍": 5, "六": 6, "陆": 6, "七": 7, "柒": 7, "八": 8, "捌": 8,
          "九": 9, "玖": 9}
_UNIT = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_BIG = {"万": 10_000, "亿": 100_000_000}
CN_NUM = "零〇○一壹二贰两三叁四肆五伍六陆七柒八捌九玖十拾百佰千仟万亿"
#: the longest number read: 16 digits before the point (amounts are below 10**15 元), 8 after it
MAX_DIGITS, MAX_DECIMALS = 16, 8
#: a number as digits (with thousands separators and decimals) or as Chinese numerals; digits start where
#: none stands before them, are taken possessively and end where none follows (bounded, linear)
NUM = (rf"(?:(?<![\d.])(?:\d{{1,3}}(?:,\d{{3}}){{1,5}}+|\d{{1,{MAX_DIGITS}}}+)(?:\.\d{{1,{MAX_DECIMALS}}}+)?(?![\d]|\.\d)"
       rf"|[零〇○一壹二贰两三叁四肆五伍六陆七柒八捌九玖十拾][{CN_NUM}]{{0,11}})")
#: a run of digits no number here reads: longer than MAX_DIGITS, or with more than MAX_DECIMALS decimals
LONG_NUMBER = re.compile(rf"(?<![\d.])\d{{{MAX_DIGITS + 1},}}+|(?<=\d)\.\d{{{MAX_DECIMALS + 1},}}+")


@dataclass(frozen=True)
class Folded:
    """``text`` folded for matching; ``origin[i]`` is the index in the original of ``text[i]``."""

    text: str
    origin: Sequence[int]  #: a range (nothing expands) or an array
    source: str

    def span(self, start: int, end: int) -> str:
        """The original text behind ``text[start:end]``."""
        if start >= end:
            return ""
        return self.source[self.origin[start]: self.origin[end - 1] + 1]


_FOLD_EXTRA = {"—": "-", "–": "-", "－": "-", "～": "~", "〜": "~", "﹪": "%", "％": "%", "‰": "‰",
               "“": '"', "”": '"', "‘": "'", "’": "'", "、": "、", "。": "。", "，": ",", "；": ";",
               "：": ":", "（": "(", "）": ")", "【": "[", "】": "]", "〔": "[", "〕": "]", "○": "○", "〇": "〇"}
#: traditional characters of the wording the recognisers read, each with its simplified form (a plan
#: published in traditional characters, or a few of them in a simplified text, reads as simplified; the
#: PDF reader converts whole texts, this small table serves every path, the plain .txt one too)
TRADITIONAL = ("現现紅红潤润當当實实歸归屬属淨净凈净於于為为爲为應应須须與与會会計计資资產产負负債债東东權权規规劃划"
               "虧亏損损積积審审見见標标準准無无經经營营額额達达過过並并條条況况發发階阶長长議议決决數数萬万億亿兩两"
               "個个進进採采總总報报併并務务財财據据關关監监獨独範范圍围續续穩稳證证號号內内優优轉转餘余區区別别難难"
               "處处該该項项減减註注冊册業业償偿還还網网絡络預预時时後后對对將将從从來来說说變变動动調调則则盡尽釋释"
               "訂订製制適适彌弥補补專专幣币較较擇择選选滿满備备稅税購购買买設设師师帶带強强響响隨随門门錢钱種种類类"
               "價价導导擬拟確确認认顯显間间屆届臨临佈布紀纪錄录記记詳详細细書书檔档辦办許许諾诺違违佔占競竞銷销納纳"
               "參参場场開开徵征聽听訴诉溝沟頻频擴扩張张陳陈賬账帳账圓圆衆众眾众們们這这給给級级結结構构匯汇際际國国"
               "簡简稱称編编碼码異异離离約约爭争頁页驗验戶户貨货幣币額额準准嚴严維维護护複复週周雙双滬沪濟济倉仓")
_FOLD_EXTRA.update(zip(TRADITIONAL[0::2], TRADITIONAL[1::2]))
#: a character NFKC writes as more characters than this is kept as it is: only 19 do (squared
#: katakana such as ㌖, Arabic ligatures such as ﷺ, 18 characters), none a plan's wording; ⑽ → (10)
#: is the longest fold a plan text needs, so a folded text is at most 4 times its original
MAX_FOLD = 4


def _fold_char(ch: str) -> str:
    f = _FOLD_EXTRA.get(ch)
    if f is not None:
        return f
    if ord(ch) <= 0x7F or ch in "○〇":
        return ch
    f = unicodedata.normalize("NFKC", ch)
    return f if len(f) <= MAX_FOLD else ch


def fold(text: str) -> Folded:
    """``text`` folded one character at a time (:data:`_FOLD_EXTRA`, else NFKC up to
    :data:`MAX_FOLD` characters; ○ and 〇 kept).

    Linear and bounded (issue 21): each distinct character is folded once and the text mapped by
    ``str.translate``; the map back is a ``range`` when no character expands, else one array of
    4 bytes a folded character (1 MiB of ligatures took 12 s and 600 MB one character at a time)."""
    table = {ord(ch): f for ch in set(text) if (f := _fold_char(ch)) != ch}
    folded = text.translate(table) if table else text
    sizes = {o: len(f) for o, f in table.items() if len(f) != 1}
    if not sizes:
        return Folded(folded, range(len(text)), text)
    each = map(sizes.get, map(ord, text), repeat(1))  # the folded length of each character
    return Folded(folded, array("I", chain.from_iterable(map(repeat, range(len(text)), each))), text)


def cn_int(s: str) -> int | None:
    """An integer written in digits or Chinese numerals; None when it is neither."""
    s = s.strip().replace(",", "")
    if not s or len(s) > MAX_DIGITS + 4:  # never an absurd number (nor int()'s 4,300-digit refusal)
        return None
    if s.isdigit():
        return int(s)
    if any(ch not in _DIGIT and ch not in _UNIT and ch not in _BIG for ch in s):
        return None
    if all(ch in _DIGIT for ch in s) and len(s) > 1:  # 二○二二 (a year written digit by digit)
        return int("".join(str(_DIGIT[ch]) for ch in s))
    total, section, digit = 0, 0, None
    for ch in s:
        if ch in _DIGIT:
            digit = _DIGIT[ch]
        elif ch in _UNIT:
            section += (1 if digit is None else digit) * _UNIT[ch]
            digit = None
        elif ch == "万":
            total += (section + (digit or 0)) * 10_000
            section, digit = 0, None
        else:  # 亿
            total = (total + section + (digit or 0)) * 100_000_000
            section, digit = 0, None
    return total + section + (digit or 0)


def number(s: str) -> Fraction | None:
    """A number in digits (``5,000``, ``0.22``) or Chinese numerals (``三十``)."""
    s = s.strip().replace(",", "")
    if re.fullmatch(rf"\d{{1,{MAX_DIGITS}}}(?:\.\d{{1,{MAX_DECIMALS}}})?", s):
        return Fraction(s)
    n = cn_int(s)
    return Fraction(n) if n is not None else None


RATIO = rf"(?:百分之{NUM}|{NUM}\s{{0,3}}%|{NUM}\s{{0,3}}分之\s{{0,3}}{NUM}|(?<![\d.])\d{{1,6}}+\s{{0,3}}/\s{{0,3}}\d{{1,6}}+(?!\d)|半数)"
_RATIO_RE = re.compile(RATIO)


def ratio(s: str) -> Fraction | None:
    """A share written as 30%, 百分之三十, 三分之二, 2/3 or 半数 (1/2); None otherwise."""
    s = s.strip()
    if s == "半数":
        return Fraction(1, 2)
    m = re.fullmatch(rf"百分之({NUM})", s) or re.fullmatch(rf"({NUM})\s{{0,3}}%", s)
    if m:
        n = number(m.group(1))
        return None if n is None else n / 100
    m = re.fullmatch(rf"({NUM})\s{{0,3}}分之\s{{0,3}}({NUM})", s)
    if m:
        den, num = number(m.group(1)), number(m.group(2))
        return None if not den or num is None else num / den
    m = re.fullmatch(r"(\d{1,6})\s{0,3}/\s{0,3}(\d{1,6})", s)
    if m and int(m.group(2)):
        return Fraction(int(m.group(1)), int(m.group(2)))
    return None


AMOUNT = rf"(?:人民币)?{NUM}\s{{0,3}}(?:(?:千万|百万|万|亿)\s{{0,3}}元?|元)(?:人民币)?"
_AMOUNT_RE = re.compile(rf"(?:人民币)?({NUM})\s{{0,3}}(?:(千万|百万|万|亿)\s{{0,3}}元?|元)(?:人民币)?")
#: amounts are below 10**15 元 (DOMAIN.md §4): a larger one is no amount a rule can take
MAX_AMOUNT = Fraction(10**15)
_UNITS = {"千万": 10_000_000, "百万": 1_000_000, "万": 10_000, "亿": 100_000_000, "": 1}


def amount(s: str) -> Fraction | None:
    """An amount in 元: ``5,000万元`` → 50,000,000; ``4亿元`` → 400,000,000; ``0.22元`` → 0.22; ``五千万元``."""
    m = _AMOUNT_RE.fullmatch(s.strip())
    if not m:
        return None
    n = number(m.group(1))
    if n is None or n * _UNITS[m.group(2) or ""] >= MAX_AMOUNT:
        return None
    return n * _UNITS[m.group(2) or ""]


# ---- comparison words (longest first) --------------------------------------------------
#: (word, op) in the order they must be tried; prefixes come after the words that contain them
OPS: tuple[tuple[str, str], ...] = (
    ("达到或者超过", ">="), ("达到或超过", ">="), ("达或超", ">="), ("大于或等于", ">="), ("大于等于", ">="),
    ("不少于", ">="), ("不低于", ">="), ("不得少于", ">="), ("不得低于", ">="), ("不小于", ">="), ("至少", ">="),
    ("最低应达到", ">="), ("最低达到", ">="), ("最低达", ">="), ("最低为", ">="), ("最低", ">="),
    ("不超过", "<="), ("未超过", "<="), ("未超", "<="), ("不得超过", "<="), ("不高于", "<="), ("不大于", "<="),
    ("超过", ">"), ("高于", ">"), ("大于", ">"), ("多于", ">"), ("过半数", ">"), ("超", ">"),
    ("低于", "<"), ("少于", "<"), ("不满", "<"), ("小于", "<"), ("未达到", "<"),
    ("逐年提升至", ">="), ("逐步提升至", ">="), ("提升至", ">="), ("提高至", ">="),  # 现金分红比例逐年提升至65%、70%、75%
    ("达到", ">="), ("达", ">="), ("≥", ">="), (">=", ">="), ("≤", "<="), ("<=", "<="), (">", ">"), ("<", "<"),
)
OP_WORDS = "|".join(re.escape(w) for w, _ in OPS)
_OP = dict(OPS)
#: a number followed by these words states the bound with it (以上 / 以下 include the number)
SUFFIX_OPS = {"以上": ">=", "及以上": ">=", "或以上": ">=", "以下": "<=", "及以下": "<=", "以内": "<="}


def op_of(word: str, suffix: str = "") -> str | None:
    """The comparison a word (and an optional suffix after the number) states."""
    if suffix in SUFFIX_OPS and not word:
        return SUFFIX_OPS[suffix]
    op = _OP.get(word)
    if op is None:
        return SUFFIX_OPS.get(suffix)
    return op


def fmt_ratio(r: Fraction) -> str | float:
    """A ratio for the policy file: 0.3 for 30%, '2/3' where no short decimal is exact."""
    f = float(r)
    if Fraction(repr(f)) == r and len(repr(f)) <= 8:
        return f
    return f"{r.numerator}/{r.denominator}"


def fmt_amount(a: Fraction) -> int | float:
    return int(a) if a.denominator == 1 else float(a)
