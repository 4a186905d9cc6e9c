"""The differentiated policy (差异化现金分红政策): the stage × major-outlay table, a declared stage, a fixed share.

Rows read ``成熟期且无重大资金支出安排的……所占比例最低应达到80%`` (a row without a stage
takes the previous row's: ``……80%，有重大资金支出时不低于40%``); ``不易区分但有重大资金支出
安排的，可以按照前项规定处理`` gives the indeterminate stage the growth-stage share. A
plan that declares its stage (``鉴于公司目前的发展阶段尚属于成长期，且预计将有重大资金支出
安排……最低应达到20%``) gets that share as a fixed minimum; the table is then informational.
"""

from __future__ import annotations

import re

from . import numbers as nb
from .model import Draft, Rule
from .text import ClauseText, ancestors, common_ancestor, descendants
from .words import IF_CONDITIONS, RATIO

_STAGE = r"成熟期|成长期|不易区分|难以区分|阶段难分|难分"
_ROW = re.compile(rf"(?P<stage>{_STAGE})?(?P<join>(?:(?!成熟期|成长期)[^。;%]){{0,8}}?)(?P<mo>无|没有|不存在|有|存在|将有)重大(?:的)?(?:资金|现金)?支出"
                  rf"(?:安排)?(?=[^。;]{{0,60}}?(?:%|百分之|分之))(?P<gap>[^。;%]{{0,50}}?)(?P<r>{RATIO})")  # (a share ahead: else fail at once)
_LIKE_PREVIOUS = re.compile(rf"(?:{_STAGE})[^。;]{{0,12}}?有重大(?:资金|现金)?支出(?:安排)?[^。;]{{0,16}}?(?:按照|参照|按)"
                            r"(?:前项|前款|上述|前述)?[^。;]{0,12}?(?:规定|情形)?处理")
_DECLARED = re.compile(r"(?:鉴于|目前|现阶段|当前)[^。]{0,12}?发展阶段[^。]{0,6}?(?:属于|处于|属|为)(?P<stage>成长期|成熟期)"
                       r"[^。]{0,30}?(?P<mo>无|没有|不存在|有|将有|存在)重大(?:资金|现金)?支出")
_SHARE = re.compile(rf"现金分红在(?:本次|该次|单次|当次|每次|当年度|当年|年度|全年)?(?:的)?利润分配中所占(?:的)?比例(?P<op>最低应达到|最低达到|不低于|不少于|最低为|最低|应达到)"
                    rf"(?P<r>{RATIO})")
#: a share of the year's distributions together (当年, 全年); otherwise (本次/该次/单次, or no word: CSRC
#: guideline No. 3, 进行利润分配时……在本次利润分配中所占比例) each distribution has its own share: interim and
#: final. 年度利润分配 is the annual (final) distribution, as against the interim (年度利润分配或中期利润分配)
_PER_YEAR = re.compile(r"现金分红在(?:当年度|当年|全年)(?:的)?利润分配中所占")
_CELLS = ("mature_no_major", "mature_major", "growth_no_major", "growth_major", "indeterminate_no_major", "indeterminate_major")
_KEY = {"成熟期": "mature", "成长期": "growth"}


def find_stage_policy(d: Draft) -> None:
    declared = _declared(d)
    rows = _rows(d)
    if rows:
        _table(d, rows, declared)
    if not declared:
        _fixed(d)


def _add_share(d: Draft, rule: Rule, wording: str, span: tuple[int, int] | None = None) -> Rule:
    """Add a share rule; checked per distribution unless the plan words it on the year's distributions:
    then it is the final distribution's, with an interim twin reading its share (one set of thresholds)."""
    if _PER_YEAR.search(wording):
        rule.note = "“当年（全年）利润分配”：按全年利润分配合计计算占比 the share of the year's distributions together" + (
            f" {rule.note}" if rule.note else "")
        return d.add(rule, span)
    rule.params["distribution"] = "final"
    if re.search(r"现金分红在年度(?:的)?利润分配中所占", wording):
        rule.review = ("“年度利润分配”：按年度（末次）利润分配检查占比；中期利润分配是否同样适用，请复核 the annual "
                       "distribution's share: check whether the interim's is bound too")
    d.add(rule, span)
    d.add(Rule("cash_share_interim", "cash_share", rule.clause, rule.quote,
               {"distribution": "interim", "share_from": rule}, when=list(rule.when), severity=rule.severity))
    return rule


def _gated(d: Draft, cid: str) -> bool:
    """A clause under a heading such as ``在符合上述现金分红条件的情况下``: its rules apply when the conditions are met."""
    for c in [d.clauses[cid], *ancestors(d.clauses, cid)]:
        if re.search(IF_CONDITIONS + r"(?:的)?(?:情况下|前提下|下|时)", c.text[c.body: c.body + 60]) and c.id != cid:
            return True
    return False


def _declared(d: Draft) -> Rule | None:
    for c in d.clauses.values():
        for a, b in c.sentences():
            m = _DECLARED.search(c.text, a, b)
            s = m and _SHARE.search(c.text, m.end(), b)
            if not s:
                continue
            r = nb.ratio(s.group("r"))
            key = f"{_KEY[m.group('stage')]}_{'major' if m.group('mo') in ('有', '将有', '存在') else 'no_major'}"
            rule = Rule("cash_share", "cash_share", c.id, c.quote(a, s.end()), {"share": nb.fmt_ratio(r)},
                        when=["conditions_met"] if _gated(d, c.id) else ["always"],
                        note=f"规划认定公司目前处于{m.group('stage')}（{key}）：适用该情形的最低现金占比；董事会修改认定时调整比例。")
            rule.params["_declared"] = key
            _add_share(d, rule, c.text[a:b], (a, b))
            for x, y in c.sentences():  # 董事会应……适时修改本条关于公司发展阶段的规定: part of the declaration
                if "发展阶段" in c.text[x:y]:
                    d.cover(c.id, x, y)
            return rule
    return None


def _rows(d: Draft) -> list[tuple[ClauseText, re.Match, list[str]]]:
    out, stage = [], None
    for c in d.clauses.values():
        for m in _ROW.finditer(c.text):
            if d.is_covered(c.id, *m.span()):
                continue
            st = m.group("stage") or ""
            between = m.group("join") or ""
            keys = []
            if st in _KEY:
                stage = _KEY[st]
                keys.append(stage)
                if re.search(r"难分|难以区分|不易区分", between):
                    keys.append("indeterminate")
            elif st:
                stage = "indeterminate"
                keys.append(stage)
            elif stage:
                keys.append(stage)
            if not keys:
                continue
            out.append((c, m, keys))
    return out


def _table(d: Draft, rows, declared: Rule | None) -> None:
    table: dict = {k: None for k in _CELLS}
    for c, m, keys in rows:
        major = m.group("mo") in ("有", "存在", "将有")
        for st in keys:
            table[f"{st}_{'major' if major else 'no_major'}"] = nb.fmt_ratio(nb.ratio(m.group("r")))
        d.cover(c.id, *m.span())
    ids = [c.id for c, _, _ in rows]
    top = common_ancestor(ids)
    near = {c.id: c for c, _, _ in rows}
    near.update({x: d.clauses[x] for x in [top, *descendants(d.clauses, top)] if x in d.clauses})
    for c in near.values():
        for m in _LIKE_PREVIOUS.finditer(c.text):
            d.cover(c.id, *m.span())
            ids.append(c.id)
            if table["indeterminate_major"] is None:
                table["indeterminate_major"] = table["growth_major"]
    for cid in set(ids):  # 具体所处阶段，由公司董事会根据具体情形确定: part of the table
        c = d.clauses[cid]
        for x, y in c.sentences():
            if re.search(r"阶段", c.text[x:y]) and re.search(r"董事会", c.text[x:y]) and re.search(r"确定|认定", c.text[x:y]):
                d.cover(cid, x, y)
    home = common_ancestor(ids)
    home = home if home in d.clauses else ids[0]
    hc = d.clauses[home]
    for x, y in hc.sentences():  # 区分下列情形，提出差异化的现金分红政策: the table's own opening
        if re.search(r"差异化|区分下列情形|区分以下情形", hc.text[x:y]) and not d.is_covered(home, x, y):
            d.info(home, "差异化现金分红政策：发展阶段与重大资金支出安排对照表的开头（比例见各情形）。", (x, y))
    first_c, first_m, _ = rows[0]
    missing = [k for k in ("mature_no_major", "mature_major", "growth_major") if table[k] is None]
    if declared is not None:
        _check_declared(d, declared, table, home)
        return
    rule = Rule("cash_share", "cash_share", home, first_c.quote(first_m.start(), first_m.end()), {"table": table},
                when=["conditions_met"] if _gated(d, home) else ["always"])
    if missing:
        rule.review = f"差异化政策表不完整（缺 {', '.join(missing)}） the stage table lacks {', '.join(missing)}"
    _add_share(d, rule, "".join(m.group(0) for _, m, _ in rows))
    twins = [rule] + [r for r in d.rules if r.params.get("share_from") is rule]
    for cid in dict.fromkeys(ids + descendants(d.clauses, home)):
        for r in twins:
            d.implements(cid, r)


def _check_declared(d: Draft, declared: Rule, table: dict, home: str) -> None:
    key = declared.params["_declared"]
    d.info(home, f"发展阶段与现金占比对照表；规划在 {declared.clause} 认定公司处于 {key}，适用规则 {{rule:{id(declared)}}}。")
    if table.get(key) is not None and table[key] != declared.params["share"]:
        d.review(declared.clause, f"认定阶段的比例 {declared.params['share']} 与对照表 {table[key]} 不一致 the declared share "
                                  "differs from the table's")


def _fixed(d: Draft) -> None:
    for c in d.clauses.values():
        for m in _SHARE.finditer(c.text):
            if d.is_covered(c.id, *m.span()):
                continue
            a, b = c.sentence_at(m.start())
            if re.search(_STAGE, c.text[a:b]):
                continue
            _add_share(d, Rule("cash_share", "cash_share", c.id, c.quote(*c.piece_at(m.start(), m.end())),
                               {"share": nb.fmt_ratio(nb.ratio(m.group("r")))},
                               when=["conditions_met"] if _gated(d, c.id) else ["always"]), m.group(0), m.span())
