"""Duties beside the minimums: yearly cash, the cap, votes, the payout deadline, procedures, attestations.

Sentence by sentence; a sentence about changing the policy (调整/变更……利润分配政策)
belongs to the policy-change duty (its 2/3 vote is an attestation: the vote field is
the distribution proposal's), and a sentence opened by ``年度盈利但未提出现金分红预案``
applies only then (``when: profitable_no_cash``).
"""

from __future__ import annotations

import re

from . import numbers as nb
from .model import Draft, Rule
from .text import ClauseText

_POLICY = re.compile(r"(?:调整|变更|变动|修改)[^。]{0,14}?(?:利润分配政策|分红政策|现金分红政策|回报规划|分红回报规划|股东回报计划)"
                     r"|(?:利润分配政策|分红政策|现金分红政策|回报规划)[^。]{0,30}?(?:调整|变更|变动|修改)")
_VOTE = re.compile(rf"(?:出席|参加)(?:股东大会|股东会)[^。;]{{0,24}}?(?:所持)?(?:有效)?表决权(?:的)?(?P<r>{nb.RATIO}|过半数)"
                   r"(?P<suf>以上)?")
_GATE = re.compile(r"盈利(?:但|且|而)?[^。;]{0,16}?未(?:提出|拟定|制定|作出|进行)[^。;]{0,8}?(?P<what>现金分红|利润分配|分红)"
                   r"(?:的)?(?:预案|方案)?")
_PAYOUT = re.compile(rf"(?:股东大会|股东会)[^。;]{{0,24}}?(?:召开后|结束后|审议通过后|决议后)[^。;]{{0,60}}?(?:须|应|应当)?在?"
                     rf"(?P<n>{nb.NUM})个月内(?:完成)?")
_ID_OPINION = re.compile(r"独立董事(?:应当|应|须|需)?(?:对|就)[^。;,]{0,16}?(?:利润分配|分红)[^。;,]{0,8}?发表(?:独立|明确)?(?:的)?意见")
_ID_BARE = re.compile(r"独立董事(?:应当|应|须|需)发表(?:独立|明确)(?:的)?意见")
_PROPOSAL = re.compile(r"利润分配(?:预案|方案)|分红(?:预案|方案)")
_FUNDS = re.compile(r"违规占用(?:公司)?资金[^。]{0,60}?扣减[^。]{0,30}?(?:现金红利|红利|分红)")
_MINORITY = re.compile(r"中小股东[^。;]{0,6}?(?:进行)?(?:沟通和交流|沟通与交流|沟通交流)|(?:沟通和交流|沟通与交流)[^。;]{0,4}?中小股东")
_RECORDS = re.compile(r"详细记录[^。]{0,80}?(?:书面记录|妥善保存|存档)")
_STOCK = re.compile(r"(?:发放|采取|采用|实施|提出|增加)[^。,]{0,6}?股票股利|股票股利(?:的)?(?:方式)?(?:分配|发放)")
_YEARLY = re.compile(r"(?P<pr>原则上)?(?:应当|应)?[^。;,]{0,6}?每(?:个)?(?:会计)?年(?:度)?[^。;,]{0,24}?(?:进行|实施)?(?:至少)?"
                     r"(?P<n>一|两|二|1|2)次(?P<what>现金分红|现金方式分配股利|利润分配|分红)"
                     r"|(?P<pr2>原则上)(?:应当|应)?每年(?:度)?(?:都)?(?:进行|实施)现金分红")
_CASH_FIRST = re.compile(r"(?:具备|满足|符合)(?:现金分红|上述|前述)?(?:的)?(?:具体)?条件(?:时|的|下)?[,]?(?:公司)?(?:应当|应|须|必须)"
                         r"(?:首先)?(?:采用|采取)现金(?:分红|方式)")
#: duties to pay in cash worded without a share: 公司应当采取现金方式分配股利 (when the conditions hold),
#: 利润分配方式中必须含有现金分配方式 (any distribution), 应当每年度进行利润分配 (a distribution every year)
_CASH_WAY = re.compile(r"(?:应当|应|须|必须)(?:采取|采用|以)现金(?:方式|形式)?(?:分配(?:股利|利润)|进行利润分配|分红)")
_CASH_INCLUDED = re.compile(r"(?:利润分配|分配方式|分红方式)[^。;]{0,12}?(?:必须|应当|应|须)(?:含有|包含|包括|含)现金(?:分配|分红)?")
_EVERY_YEAR = re.compile(r"(?:应当|应|须|必须)(?:每(?:个)?(?:会计)?年(?:度)?)(?:都|均)?(?:进行|实施)(?:一次)?(?:利润分配|分红)")
_CAP = re.compile(r"(?:利润分配|分配的利润|分配利润|现金分红|分红|现金红利|现金股利)[^。;]{0,30}?(?:不得|不应|不能|不可|不|未|勿)"
                  r"(?:超过|超出|高于|大于)[^。;,]{0,10}?(?:累计可(?:供)?(?:股东)?分配(?:的)?利润|累计未分配利润|期末未分配利润)"
                  r"(?:的)?(?:范围)?"
                  r"|(?:在|以)(?:公司)?(?:累计|期末)(?:可(?:供)?(?:股东)?分配(?:的)?利润|未分配利润)(?:的)?(?:范围内|为限)")
#: ``每年利润分配不得超过当年实现的可分配利润``: the year's distribution within the year's distributable profit
_YEAR_CAP = re.compile(r"(?:(?P<cash>现金分红|现金红利|现金股利)|利润分配|分配的利润|分配利润)[^。;]{0,20}?(?:不得|不应|不能|不可|不)"
                       r"(?:超过|超出|高于|大于)(?:公司)?(?:当年|当期|该年度|本年度)(?:实现的)?(?:的)?可(?:供)?(?:股东)?分配(?:的)?利润")
_GOING = re.compile(r"不得(?:损害|影响)(?:公司)?(?:的)?持续经营(?:能力)?")
_INTERIM = re.compile(r"(?:中期|半年度|季度)(?:现金)?(?:分红|利润分配|利润\(现金\)分配|股利|现金分红)")
_INTERIM_CAP = re.compile(r"(?:审议批准|授权)[^。]{0,12}?(?:下一年|下一年度|下年)[^。]{0,12}?中期[^。]{0,30}?(?:上限|条件和)")
_INTERIM_CAP_NPA = re.compile(r"中期(?:现金)?(?:分红|利润分配)(?:金额)?(?:的)?上限[^。;]{0,4}?(?:不超过|不超|不得超过|不高于)"
                              r"(?:公司)?(?:相应期间|相应|当期)(?:的)?(?:归属于(?:上市公司|母公司)?股东的?)?净利润")
_BUYBACK = re.compile(r"回购[^。]{0,40}?(?:视同|视为|计入|纳入)[^。]{0,16}?(?:现金分红|分红)")


def find_procedures(d: Draft) -> None:
    policy_votes = {c.id for c in d.clauses.values() if _has_policy_vote(c)}
    for c in d.clauses.values():
        for a, b in c.sentences():
            _sentence(d, c, a, b, c.id in policy_votes)


def _has_policy_vote(c: ClauseText) -> bool:
    return any(_POLICY.search(c.text, a, b) and _VOTE.search(c.text, a, b) for a, b in c.sentences())


def _sentence(d: Draft, c: ClauseText, a: int, b: int, policy_clause: bool) -> None:
    s = c.text
    if _POLICY.search(s, a, b):
        if c.is_heading(a, b):
            d.cover(c.id, a, b)
        else:
            _policy(d, c, a, b, policy_clause)
        return
    g = _GATE.search(s, a, b)
    if g:
        _gated(d, c, a, b, g)
        return
    for fn in (_votes, _payout, _id_opinion, _online, _funds, _minority, _records, _stock, _yearly, _cash_first,
               _cash_duties, _cap, _going, _interim, _buyback):
        fn(d, c, a, b)


def _own(d: Draft, c: ClauseText, name: str, quote: str, when=("always",), span=None) -> Rule:
    """An attestation the user confirms (its own yes/no input)."""
    return d.add(Rule(f"attest:{name}", "attestation", c.id, quote, {}, when=list(when), duties=[name]), span)


def _policy(d: Draft, c: ClauseText, a: int, b: int, policy_clause: bool) -> None:
    v = _VOTE.search(c.text, a, b)
    if v:
        r = nb.ratio(v.group("r")) if v.group("r") != "过半数" else None
        q = c.quote(*c.piece_at(v.start(), v.end()))
        rule = _own(d, c, "policy_change", q, span=(a, b))
        rule.params["_ratio"] = r
        rule.note = f"规划调整须经出席股东大会股东所持表决权的{v.group('r')}{v.group('suf') or ''}通过。"
        return
    d.info(c.id, "利润分配政策或规划的调整程序" + ("（表决比例见本条款的规则）。" if policy_clause else "；本条款未规定表决比例。"), (a, b))


def _gated(d: Draft, c: ClauseText, a: int, b: int, g) -> None:
    when = "profitable_no_cash" if g.group("what") == "现金分红" else "profitable_no_distribution"
    s = c.text[a:b]
    d.cover(c.id, a, b)
    if "网络投票" in s:
        d.add(Rule("online_voting", "attestation", c.id, c.quote(*c.piece_at(s.index("网络投票") + a, s.index("网络投票") + a + 4)),
                   {"field": "online_voting_offered"}, when=[when]))
        rest = s.replace("网络投票", "")
        if not re.search(r"说明|专项|披露|意见", rest):
            return
    prefix = "no_cash" if when == "profitable_no_cash" else "no_distribution"
    name = (f"{prefix}_supervisory_statement" if "监事会" in s else f"{prefix}_annual_report" if "年度报告" in s
            else f"{prefix}_explanation")
    start = g.start()
    while start > a and c.text[start - 1] not in ",;。":
        start -= 1
    _own(d, c, name, c.quote(start, b), when=[when])


def _votes(d: Draft, c: ClauseText, a: int, b: int) -> None:
    s = c.text
    for v in _VOTE.finditer(s, a, b):
        sentence = s[a:b]
        q = c.quote(*c.piece_at(v.start(), v.end()))
        majority = v.group("r") == "过半数"  # 过半数 → >; 2/3以上 → ≥ (以上 includes the number)
        r = nb.ratio("1/2") if majority else nb.ratio(v.group("r"))
        op = ">" if majority else ">="
        if re.search(r"股票股利|资本公积(?:金)?转增|转增股本", sentence):
            d.add(Rule("vote_stock", "vote", c.id, q, {"ratio": nb.fmt_ratio(r), "op": op, "resolution": "special"},
                       when=["stock_or_conversion"]), v.span())
        elif _PROPOSAL.search(sentence):
            rule = Rule("vote_distribution", "vote", c.id, q, {"ratio": nb.fmt_ratio(r), "op": op, "resolution": "ordinary"})
            if r <= nb.ratio("1/2"):
                if r < nb.ratio("1/2"):
                    rule.review = f"表决比例 {v.group('r')} 低于过半数 a threshold below a majority"
                rule.params.update(ratio="1/2", op=">")
                rule.note = (f"规划原文为“{v.group('r')}{v.group('suf') or ''}”；利润分配方案为普通决议，公司法（2023）第一百一十六条"
                             "要求过半数，恰好50%不通过（DOMAIN.md §5）。")
            d.add(rule, v.span())
        else:
            d.review(c.id, f"表决比例的事项未识别 a vote threshold on an unrecognised matter: “{q}”")
            d.cover(c.id, *v.span())


def _payout(d: Draft, c: ClauseText, a: int, b: int) -> None:
    m = _PAYOUT.search(c.text, a, b)
    if m:
        n = nb.cn_int(m.group("n"))
        if n is None or not 1 <= n <= 24:
            d.review(c.id, f"派发期限未能读出 payout deadline not read: “{c.quote(*m.span())}”")
            return
        d.add(Rule("payout_deadline", "within_months", c.id, c.quote(*c.piece_at(*m.span())), {"months": n}), m.span())


def _id_opinion(d: Draft, c: ClauseText, a: int, b: int) -> None:
    m = _ID_OPINION.search(c.text, a, b)
    if m is None and _PROPOSAL.search(c.text, a, b):
        m = _ID_BARE.search(c.text, a, b)
    if m:
        d.add(Rule("independent_directors_opinion", "attestation", c.id, c.quote(*c.piece_at(*m.span())),
                   {"field": "independent_directors_opinion"}), m.span())


def _online(d: Draft, c: ClauseText, a: int, b: int) -> None:
    i = c.text.find("网络投票", a, b)
    if i >= 0:
        d.add(Rule("online_voting", "attestation", c.id, c.quote(*c.piece_at(i, i + 4)), {"field": "online_voting_offered"}),
              (i, i + 4))


def _simple(pattern: re.Pattern, name: str, when=("always",), needs: str | None = None):
    def find(d: Draft, c: ClauseText, a: int, b: int) -> None:
        m = pattern.search(c.text, a, b)
        if m and (needs is None or re.search(needs, c.text[a:b])):
            x, y = c.piece_at(*m.span())
            pieces = c.pieces(a, b)
            i = next(i for i, p in enumerate(pieces) if p[0] == x)
            while y - x < 20 and i > 0:  # a short piece (……与股东，特别是中小股东进行沟通和交流): with the one before
                i -= 1
                x = pieces[i][0]
            _own(d, c, name, c.quote(x, y), when, m.span())
    return find


_funds = _simple(_FUNDS, "fund_occupation_withheld")
_minority = _simple(_MINORITY, "minority_consulted", needs=r"应|主动")
_records = _simple(_RECORDS, "board_records_kept")


def _stock(d: Draft, c: ClauseText, a: int, b: int) -> None:
    s = c.text[a:b]
    m = _STOCK.search(c.text, a, b)
    if c.is_heading(a, b):
        return
    if m and re.search(r"前提|条件|时", s) and "表决权" not in s and not d.is_covered(c.id, *m.span()):
        _own(d, c, "stock_dividend_basis", c.quote(*c.piece_at(*m.span())), ["stock_or_conversion"], m.span())


def _yearly(d: Draft, c: ClauseText, a: int, b: int) -> None:
    m = _YEARLY.search(c.text, a, b)
    if not m:
        return
    start = c.piece_at(*m.span())[0]
    principle = "原则上" in c.text[start:m.end()]
    q = c.quote(*c.piece_at(*m.span()))
    n, what = m.group("n") or "一", m.group("what") or "现金分红"
    rule = Rule("cash_every_year", "cash_paid", c.id, q, when=["conditions_met"], severity="warn" if principle else "fail")
    each = re.search(r"中期[^。;,]{0,4}年度[^。;,]{0,4}各|年度[^。;,]{0,4}中期[^。;,]{0,4}各", q)
    count = 2 if each else nb.cn_int(n)
    if count != 1:  # 每年度进行两次分红; 每年中期、年度各进行一次现金分红: distributions a year (distribution_count)
        d.add(Rule("distributions_a_year", "min_distributions", c.id, q, {"count": count}, when=["conditions_met"],
                   severity="warn" if principle else "fail",
                   note="每年分配次数：输入本年度利润分配次数（distribution_count，含中期）。"), m.span())
        return
    if not what.startswith("现金"):
        rule.review = f"“每年{n}次{what}”未限定现金：按现金分红起草 a yearly distribution (not said to be cash): drafted as cash"
    d.add(rule, m.span())


def _cash_first(d: Draft, c: ClauseText, a: int, b: int) -> None:
    m = _CASH_FIRST.search(c.text, a, b)
    if m:
        d.add(Rule("cash_when_distributing", "cash_paid", c.id, c.quote(*c.piece_at(*m.span())),
                   when=["conditions_met", "distribution_made"]), m.span())


def _cash_duties(d: Draft, c: ClauseText, a: int, b: int) -> None:
    """A duty to pay in cash, or to distribute every year, worded without a share (read where nothing else did)."""
    for pat, make in ((_CASH_INCLUDED, _cash_included), (_CASH_WAY, _cash_way), (_EVERY_YEAR, _every_year)):
        m = pat.search(c.text, a, b)
        if m and not d.is_covered(c.id, *m.span()) and not re.search(r"原则上|可以|可", c.text[c.piece_at(*m.span())[0]: m.start()]):
            x, y = c.piece_at(*m.span())
            d.add(make(c, c.quote(x, y)), (x, y))


def _cash_included(c: ClauseText, q: str) -> Rule:
    return Rule("cash_in_every_distribution", "cash_paid", c.id, q, when=["distribution_made"],
                titles=("利润分配须含现金分红", "Every distribution includes cash"),
                note="“利润分配方式中必须含有现金分配方式”：进行利润分配的，须有现金分红。")


def _cash_way(c: ClauseText, q: str) -> Rule:
    return Rule("cash_when_conditions", "cash_paid", c.id, q, when=["conditions_met"],
                note="“应当采取现金方式分配股利”：满足现金分红条件时须有现金分红（金额由最低比例规则检查）。")


def _every_year(c: ClauseText, q: str) -> Rule:
    return Rule("distributions_a_year", "min_distributions", c.id, q, {"count": 1}, when=["conditions_met"],
                note="“应当每年度进行利润分配”：满足条件的年度至少一次利润分配（输入 distribution_count）。")


#: ``不得超过累计可分配利润的50%``: a share of the cumulative figure, not the whole — never the whole's cap (the
#: share is left to the ledger: a review item quoting it)
_CAP_SHARE = re.compile(rf"(?:的)?(?:{nb.RATIO}|一半|半数)")


def _cap(d: Draft, c: ClauseText, a: int, b: int) -> None:
    m = _CAP.search(c.text, a, b)
    if m and _CAP_SHARE.match(c.text, m.end(), b):
        return
    if m:
        # each distribution against the figure it is paid out of: the final against the year end, the interim
        # against its own period end (docs/domain.md §4)
        quote = c.quote(*c.piece_at(m.end() - 4, m.end()))
        d.add(Rule("distribution_cap", "distribution_cap", c.id, quote, {"distribution": "final"}), m.span())
        d.add(Rule("distribution_cap_interim", "distribution_cap", c.id, quote, {"distribution": "interim"}))
        return
    m = _YEAR_CAP.search(c.text, a, b)
    if m and m.group("cash"):  # 现金分红金额不超过当年可供分配利润: the cash (as the plan counts it)
        d.add(Rule("cash_within_year", "compare", c.id, c.quote(*c.piece_at(m.end() - 4, m.end())),
                   {"measure": "cash", "op": "<=", "ratio": 1, "of": "distributable_profit"}, role="requirement",
                   when=["cash_paid"], note="当年现金分红不超过当年可分配利润。"), m.span())
    elif m:
        d.add(Rule("distribution_within_year", "compare", c.id, c.quote(*c.piece_at(m.end() - 4, m.end())),
                   {"measure": "distribution", "op": "<=", "ratio": 1, "of": "distributable_profit"}, role="requirement",
                   when=["distribution_made"], note="当年利润分配（现金+股票股利）不超过当年可分配利润。"), m.span())


def _going(d: Draft, c: ClauseText, a: int, b: int) -> None:
    m = _GOING.search(c.text, a, b)
    if m:
        d.add(Rule("going_concern", "attestation", c.id, c.quote(*c.piece_at(*m.span())),
                   {"field": "going_concern_unaffected"}, when=["distribution_made"]), m.span())


def _interim(d: Draft, c: ClauseText, a: int, b: int) -> None:
    m = _INTERIM.search(c.text, a, b)
    if not m:
        return
    d.facts["interim"] = True
    cap = _INTERIM_CAP_NPA.search(c.text, a, b)
    if cap:  # 下一年中期分红上限不超相应期间净利润 (CSRC 2023): interim ≤ the period's net profit attributable
        d.add(Rule("interim_cap", "compare", c.id, c.quote(*c.piece_at(*cap.span())),
                   {"measure": "interim_cash_dividend", "op": "<=", "ratio": 1, "of": "half_year_net_profit_attributable"},
                   role="requirement", when=["interim_paid"],
                   note="中期分红上限不超过相应期间归属于上市公司股东的净利润（输入半年度归母净利润）。"), (a, b))
    elif _INTERIM_CAP.search(c.text, a, b):
        d.review(c.id, "股东大会授权的中期分红条件和上限：上限由股东大会确定，未起草 an AGM-authorised interim cap (set by the "
                       "AGM, not stated in the plan) is not drafted")
        d.cover(c.id, a, b)
    elif re.search(r"可以|可|提议", c.text[a:b]):
        d.info(c.id, "中期（半年度、季度）分红为可选事项；现金分红金额含中期。", m.span())


def _buyback(d: Draft, c: ClauseText, a: int, b: int) -> None:
    m = _BUYBACK.search(c.text, a, b)
    if not m:
        return
    d.settings["cash_includes_buybacks"] = True
    d.setting_notes.append(f"cash_includes_buybacks: true — {c.id} “{c.quote(*m.span())}”")
    if "注销" in c.text[a:b]:  # 以现金回购股份并注销的，回购金额纳入分红比例计算: only cancelled buybacks count
        d.settings["cash_buyback_basis"] = "buyback_cancelled"
        d.setting_notes.append(f"cash_buyback_basis: buyback_cancelled — {c.id} “{c.quote(*m.span())}”")
        d.info(c.id, "以现金回购并注销的股份金额视同现金分红（settings.cash_buyback_basis: buyback_cancelled）。", m.span())
    else:
        d.info(c.id, "以现金回购股份视同现金分红（settings.cash_includes_buybacks）。", m.span())
