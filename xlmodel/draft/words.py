"""Regular-expression fragments for the wording plans share (matched on folded text, see :mod:`.numbers`).

Every gap is bounded (``[^。]{0,N}``) and nothing repeats inside a repetition, so
matching a hostile text stays linear in its length.
"""

from __future__ import annotations

from .numbers import AMOUNT, NUM, OP_WORDS, RATIO

#: the year's distributable profit (当年实现的可分配利润 and its variants)
DIST = r"(?:可供股东分配的利润|可供分配的净利润|可供分配的利润|可供分配利润|可分配的利润|可分配利润)"
#: net profit attributable to the listed company's shareholders
NPA = (r"(?:归属于(?:上市公司|本公司|公司|母公司)(?:普通股)?(?:股东|所有者)的?净利润|归属母公司(?:股东|所有者)的?净利润"
       r"|归母净利润|股东应占利润|归属于上市公司股东净利润)")
POSITIVE = r"(?:为正值|为正数|为正|大于零|大于0|>0)"
#: not negative (≥ 0), never read as positive (> 0): 不为负 / 非负 / 不低于零 / 大于或等于零
NONNEG = r"(?:不为负(?:值|数)?|为非负(?:值|数)?|非负(?:值|数)?|不低于零|不低于0|不小于零|不小于0|大于或等于零|大于或等于0|大于等于零|大于等于0|>=0|≥0)"
#: the sign a condition states: group ``nonneg`` set for ≥ 0
SIGN = rf"(?:(?P<nonneg>{NONNEG})|{POSITIVE})"
PAREN = r"(?:\([^()]{0,80}\))?"
#: an obligation in a sentence: a sentence with one of these and nothing recognised needs review
OBLIGATION = r"(?:应当|(?<![相对供适响反])应(?![付收对])|须|需(?![求要])|必须|不得|不应|承诺)"
#: the cash-dividend conditions, as the condition of another sentence
IF_CONDITIONS = r"(?:在|如|若)?(?:符合|满足|具备)(?:上述|前述|以上|前款|本条)?(?:的)?(?:现金分红|现金股利|分红)?(?:的)?(?:具体)?条件"
__all__ = ["AMOUNT", "NUM", "OP_WORDS", "RATIO", "DIST", "NPA", "POSITIVE", "NONNEG", "SIGN", "PAREN", "OBLIGATION", "IF_CONDITIONS"]
