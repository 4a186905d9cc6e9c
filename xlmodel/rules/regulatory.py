"""Rule kinds of the regulatory baseline: the exchange's low-dividend risk warning, the restriction on share
sales, the plausibility of the amounts (a unit slip).
"""

from __future__ import annotations

from typing import Callable

from ..plans import schema as pol
from ..plans.rule_kinds import PlausibleAmounts, SaleRestriction, StLowDividend
from .expr import FY, And, Blank, C, If, In, InList, Max, Min, Missing, Node, Not, Num, Or, Round2, Sum, YearOf
from ..fields import FIELDS
from .model import Check, _amount_short


def _st_params(b: _Builder, s: StLowDividend) -> tuple:
    """The rule's parameters on 参数, in their order: first year, ratio, the two floors, the boards of each,
    the R&D exemption's ratio and amount, the boards of the parent-only reading (None without)."""
    def prm(key, value, zh, en, unit):
        return b.param(s.id, key, value, s.clause, zh, en, unit)

    first = prm("first_year", s.first_fiscal_year, "首次适用会计年度", "First fiscal year tested", "年")
    ratio = prm("ratio", s.ratio, "累计现金分红占年均净利润比例", "Cumulative cash as a share of average net profit", "%")
    f_main = prm("floor_main", s.floor_main, "累计现金分红金额标准（主板）", "Cumulative cash floor (main boards)", "元")
    f_growth = prm("floor_growth", s.floor_growth, "累计现金分红金额标准（创业板、科创板）", "Cumulative cash floor (ChiNext, STAR)", "元")
    mains = prm("main_boards", tuple(s.main_boards), "适用主板标准的板块", "Boards with the main-board floor", "选项")
    growths = prm("growth_boards", tuple(s.growth_boards), "适用创业板/科创板标准的板块", "Boards with the ChiNext/STAR floor", "选项")
    rd_ratio = prm("rd_ratio", s.rd_ratio, "研发投入占营业收入比例（豁免）", "R&D share of revenue (exemption)", "%")
    rd_amount = prm("rd_amount", s.rd_amount, "累计研发投入金额（豁免）", "Cumulative R&D (exemption)", "元")
    parent_only = prm("parent_only_boards", tuple(s.parent_only_boards),
                      "仅以母公司报表未分配利润为正为前提的板块（上交所规则原文）",
                      "Boards whose rule text requires only the parent's retained earnings positive (SSE wording)", "选项") \
        if s.parent_only_boards else None
    return first, ratio, f_main, f_growth, mains, growths, rd_ratio, rd_amount, parent_only


def _st_window(b: _Builder, s: StLowDividend, params: tuple) -> tuple:
    """The window's calculations: its years since listing, cash, the profit test and the floor (the bound),
    the cash still needed, the R&D exemption."""
    first, ratio, f_main, f_growth, mains, growths, rd_ratio, rd_amount, _parent_only = params
    offs = list(range(-(s.window - 1), 1))
    b.m.history = min(b.m.history, offs[0])
    sc, rid = b.m.scalars, s.id
    # a company listed for fewer full fiscal years counts the full years since listing; without a listing
    # date the window is this year alone, the least cash any listing date counts (the window always ends
    # with this year and no year's cash is negative): what decides the rule without it (docs/domain.md §6.1)
    unlisted = Missing((("listing_date", 0),))
    sc[f"{rid}.first_full_year"] = If(unlisted, FY(0), YearOf(In("listing_date") - Num(1)) + Num(1))
    inc = {o: FY(o) >= C(f"{rid}.first_full_year") for o in offs}
    sc[f"{rid}.years"] = Sum(*[If(inc[o], Num(1), Num(0)) for o in offs])
    n = C(f"{rid}.years")
    board = In("board")
    is_main, is_growth = InList(board, mains), InList(board, growths)

    def window(node_at) -> Node:
        return Round2(Sum(*[If(inc[o], node_at(o), Num(0)) for o in offs]))

    sc[f"{rid}.cash"] = window(lambda o: C("cash_st", o))
    sc[f"{rid}.prior_cash"] = Round2(Sum(*[If(inc[o], C("cash_st", o), Num(0)) for o in offs[:-1]]))
    sc[f"{rid}.profit_required"] = If(n > Num(0), Round2(Max(Num(0), ratio * window(lambda o: In("net_profit_attributable", o)) / n)), Num(0))
    sc[f"{rid}.floor"] = If(is_main, f_main, f_growth)
    b.transparent.add(f"{rid}.floor")  # its input (the board) is what a test on it reads
    # the bound: the lower of the two; without a listing date only the floor holds for every window
    sc[f"{rid}.bound"] = If(unlisted, C(f"{rid}.floor"), Min(C(f"{rid}.profit_required"), C(f"{rid}.floor")))
    sc[f"{rid}.in_scope"] = And(FY(0) >= first, Or(is_main, is_growth), n > Num(0))
    # the cash dividend still to declare: the threshold less the window's cash already counted, i.e. the
    # earlier years' cash and cancelled buybacks AND this year's cancelled buybacks (DOMAIN.md §5)
    sc[f"{rid}.counted_cash"] = Round2(C(f"{rid}.prior_cash") + If(inc[0], Round2(In("buyback_cancelled")), Num(0)))
    sc[f"{rid}.needed"] = Max(Num(0), Round2(C(f"{rid}.bound") - C(f"{rid}.counted_cash")))
    # the exchange's table in the 利润分配方案公告 (issue 50): the window's parts as printed, the average net
    # profit as it is (negative too) and the ratio; the trigger above stays the test, these only show it
    def shown(fid: str, o: int) -> Node:  # a year's figure as the table prints it: blank stays blank
        return If(Missing(((fid, o),)), Blank(), Round2(In(fid, o)))

    for o in offs:  # 本年度 y0, 上年度 y1, 上上年度 y2
        sc[f"{rid}.y{-o}.year"] = FY(o)
        for key, fid in (("dividends", "cash_dividend"), ("cancelled", "buyback_cancelled"),
                         ("profit", "net_profit_attributable"), ("rd", "rd_expense"), ("revenue", "revenue")):
            sc[f"{rid}.y{-o}.{key}"] = shown(fid, o) if key in ("profit", "rd", "revenue") else Round2(In(fid, o))
    sc[f"{rid}.retained_parent"] = shown("retained_earnings_parent", 0)
    sc[f"{rid}.dividends"] = window(lambda o: In("cash_dividend", o))
    sc[f"{rid}.cancelled"] = window(lambda o: In("buyback_cancelled", o))
    sc[f"{rid}.average_profit"] = If(n > Num(0), Round2(window(lambda o: In("net_profit_attributable", o)) / n), Blank())
    avg = C(f"{rid}.average_profit")
    # (the average is blank without a counted year: a blank reads as text, above every number, in a comparison)
    sc[f"{rid}.cash_ratio"] = If(And(n > Num(0), avg > Num(0)), C(f"{rid}.cash") / avg, Blank())
    sc[f"{rid}.below_ratio"] = C(f"{rid}.cash") < C(f"{rid}.profit_required")
    sc[f"{rid}.below_floor"] = C(f"{rid}.cash") < C(f"{rid}.floor")
    sc[f"{rid}.rd"] = window(lambda o: In("rd_expense", o))
    sc[f"{rid}.revenue"] = window(lambda o: In("revenue", o))
    sc[f"{rid}.growth_board"] = is_growth
    rd = C(f"{rid}.rd")
    sc[f"{rid}.rd_ratio_actual"] = If(C(f"{rid}.revenue") > Num(0), rd / C(f"{rid}.revenue"), Blank())
    sc[f"{rid}.exempt"] = And(C(f"{rid}.growth_board"), n > Num(0),
                              Or(rd >= Round2(rd_ratio * C(f"{rid}.revenue")), rd >= rd_amount))
    exempt = C(f"{rid}.exempt")
    return rid, offs, inc, n, board, is_main, is_growth, exempt


def k_st_low_dividend(b: _Builder, s: StLowDividend) -> Check:
    """Exchange low-dividend risk warning (DOMAIN.md §5); see also the outputs it feeds."""
    params = _st_params(b, s)
    first, parent_only = params[0], params[-1]
    rid, offs, inc, n, board, is_main, is_growth, exempt = _st_window(b, s, params)
    sc = b.m.scalars
    blank = lambda fid, o=0: Missing(((fid, o),))  # noqa: E731

    def precondition(fid: str, reason: str):
        return Round2(In(fid)) > Num(0), blank(fid), [(fid, 0)], reason

    sc[f"{rid}.rd_unknown"] = And(C(f"{rid}.growth_board"),
                                  Or(*[And(inc[o], Or(blank("rd_expense", o), blank("revenue", o))) for o in offs]))
    rd_unknown = C(f"{rid}.rd_unknown")
    history_unknown = Or(*[And(inc[o], blank("net_profit_attributable", o)) for o in offs])
    consolidated = precondition("retained_earnings_consolidated", "na_retained_cons_not_positive")
    if parent_only is not None:
        # the SSE's rule text names the parent's retained earnings only: there the consolidated figure is
        # no precondition (nor a needed input), and a case it would exclude on the SZSE is said to be in
        # scope by that reading (report); the SZSE's reading requires both (docs/domain.md §6.1)
        sse = InList(board, parent_only)
        cons_ok, cons_blank = consolidated[0], consolidated[1]
        consolidated = (Or(sse, cons_ok), And(Not(sse), cons_blank), consolidated[2], consolidated[3])
        sc[f"{rid}.parent_only_reading"] = And(sse, Not(blank("retained_earnings_consolidated")), Not(cons_ok))
    act = C(f"{rid}.cash")
    # the third part never changes the test where every input is there (the window's cash is at least this
    # year's); it is the part three-valued logic can know without a listing date or the earlier years
    this_year = Round2(C("cash_st", 0)) >= C(f"{rid}.floor")
    return Check(
        actual=act, required=C(f"{rid}.bound"),
        passes=Or(act >= C(f"{rid}.profit_required"), act >= C(f"{rid}.floor"), this_year), op=">=",
        shortfall=_amount_short,
        applies=[(FY(0) >= first, None, [], "na_before_first_year"),
                 (Or(is_main, is_growth), blank("board"), [("board", 0)], "na_board_not_covered"),
                 (n > Num(0), blank("listing_date"), [("listing_date", 0)], "na_no_full_year"),
                 precondition("net_profit_attributable", "na_not_profitable"),
                 consolidated,
                 precondition("retained_earnings_parent", "na_retained_parent_not_positive"),
                 (Not(exempt), rd_unknown, [], "na_rd_exempt")],
        missing=history_unknown)


SALE_TRIGGERS = {  # DOMAIN.md §5: any one restricts the controlling shareholder's market sales
    "below_net_assets": ("破净：最近20个交易日任一日收盘价低于每股净资产", "price below net assets per share (last 20 trading days)"),
    "below_ipo": ("破发：最近20个交易日任一日收盘价低于首发价格", "price below the IPO price (last 20 trading days)"),
    "low_dividend": ("分红不达标：最近三年未现金分红或累计低于年均净利润30%（亏损年度不计）",
                     "no cash dividend, or cash below 30% of average net profit, over three years (loss years left out)"),
}


def k_sale_restriction(b: _Builder, s: SaleRestriction) -> Check:
    """Controlling-shareholder sale restriction (DOMAIN.md §5): 破净, 破发 or 分红不达标.

    The dividend test counts only years whose net profit attributable is not negative: a loss year
    leaves both the cumulative cash and the average; bidding/tender buybacks count as cash. A company
    with no such year in the window is not restricted by it. The price facts are inputs."""
    ratio = b.param(s.id, "ratio", s.ratio, s.clause, "累计现金分红占年均净利润比例", "Cumulative cash as a share of average net profit", "%")
    offs = list(range(-(s.window - 1), 1))
    b.m.history = min(b.m.history, offs[0])
    sc, rid = b.m.scalars, s.id
    counted = {o: Round2(In("net_profit_attributable", o)) >= Num(0) for o in offs}
    sc[f"{rid}.years"] = Sum(*[If(counted[o], Num(1), Num(0)) for o in offs])
    n = C(f"{rid}.years")
    sc[f"{rid}.cash"] = Round2(Sum(*[If(counted[o], C("cash_reg", o), Num(0)) for o in offs]))
    profit = Sum(*[If(counted[o], In("net_profit_attributable", o), Num(0)) for o in offs])
    sc[f"{rid}.profit_required"] = If(n > Num(0), Round2(Max(Num(0), ratio * profit / n)), Num(0))
    b.transparent |= {f"{rid}.{k}" for k in ("cash", "profit_required", "years", *SALE_TRIGGERS)}
    blank = lambda fid, o=0: Missing(((fid, o),))  # noqa: E731
    history_unknown = Or(*[blank("net_profit_attributable", o) for o in offs])
    a, r = C(f"{rid}.cash"), C(f"{rid}.profit_required")
    sc[f"{rid}.low_dividend"] = If(history_unknown, Blank(), And(n > Num(0), Or(a.eq(Num(0)), a < r)))
    sc[f"{rid}.below_net_assets"] = If(blank("price_below_net_assets_20d"), Blank(), In("price_below_net_assets_20d"))
    sc[f"{rid}.below_ipo"] = If(blank("price_below_ipo_20d"), Blank(), In("price_below_ipo_20d"))
    triggers = [C(f"{rid}.{k}") for k in SALE_TRIGGERS]
    known_true = Or(*[t.eq(Num(1) > Num(0)) for t in triggers])
    unknown = Or(*[t.eq(Blank()) for t in triggers])
    return Check(actual=a, required=r, passes=Not(known_true), op=">=", shortfall=_amount_short,
                 missing=And(Not(known_true), unknown))


def plausible_signals(s: PlausibleAmounts) -> list[tuple[str, str, str]]:
    """The signals of a plausibility rule: (calculation key, 中文, English), in the order they are tested."""
    out = [("small_assets", f"期末总资产低于 {s.assets_floor:,.0f} 元", f"total assets below {s.assets_floor:,.0f} 元"),
           ("small_revenue", f"营业收入低于 {s.revenue_floor:,.0f} 元", f"revenue below {s.revenue_floor:,.0f} 元")]
    out += [(f"small_{f}", f"{FIELDS[f].zh}绝对值不为 0 但低于 {s.small:,.0f} 元", f"{f} not 0 but below {s.small:,.0f} 元 in size")
            for f in _SMALL_FIELDS]
    out += [(f"jump_{f}", f"{FIELDS[f].zh}相邻两年相差 {s.jump_ratio:,.0f} 倍以上", f"{f} changes {s.jump_ratio:,.0f}× or more in a year")
            for f in s.jump_fields]
    out += [(f"pair_{a}_{b}", f"同一年度{FIELDS[a].zh}与{FIELDS[b].zh}相差 {s.pair_ratio:,.0f} 倍以上",
             f"{a} and {b} of one year {s.pair_ratio:,.0f}× apart or more") for a, b in s.pairs]
    return out


_SMALL_FIELDS = ("net_assets", "net_profit_attributable", "cash_dividend")


def k_plausible(b: _Builder, s: PlausibleAmounts) -> Check:
    """Amounts a listed company could hardly have in 元: each signal a calculation of its own (named in the
    report), the rule passing when none holds or the case confirms its figures (DOMAIN.md §5). A blank
    input reads 0 and is no signal: the rule never waits for one."""
    def prm(key, value, zh, en, unit="元"):
        return b.param(s.id, key, value, s.clause, zh, en, unit)

    assets = prm("assets_floor", s.assets_floor, "总资产下限（低于即疑似万元）", "Total assets floor (below: 万元 suspected)")
    revenue = prm("revenue_floor", s.revenue_floor, "营业收入下限（高于0而低于即疑似万元）", "Revenue floor (above 0 and below it: 万元 suspected)")
    small = prm("small", s.small, "净资产、净利润、现金分红的最小绝对值（非0而低于即疑似万元）",
                "Smallest size of net assets, net profit, cash dividend (not 0 and below it: 万元 suspected)")
    ratio = prm("jump_ratio", s.jump_ratio, "相邻年度变动倍数（达到即疑似单位不一）", "Change between two years (at it: mixed units suspected)", "倍")
    offs = list(range(-(s.window - 1), 1))
    b.m.history = min(b.m.history, offs[0])
    sc, rid = b.m.scalars, s.id
    for f in dict.fromkeys((*_SMALL_FIELDS, *s.jump_fields, *(f for p in s.pairs for f in p))):  # sizes, every year
        x = Round2(In(f))
        b.m.series[f"size_{f}"] = Max(x, Num(0) - x)

    def size(f: str, o: int = 0) -> Node:
        return C(f"size_{f}", o)

    sc[f"{rid}.small_assets"] = And(Round2(In("total_assets")) > Num(0), Round2(In("total_assets")) < assets)
    sc[f"{rid}.small_revenue"] = And(Round2(In("revenue")) > Num(0), Round2(In("revenue")) < revenue)
    for f in _SMALL_FIELDS:
        sc[f"{rid}.small_{f}"] = And(size(f) > Num(0), size(f) < small)
    for f in s.jump_fields:
        pairs = [And(size(f, o) > Num(0), size(f, o - 1) > Num(0),
                     Or(size(f, o) >= ratio * size(f, o - 1), size(f, o - 1) >= ratio * size(f, o))) for o in offs[1:]]
        sc[f"{rid}.jump_{f}"] = pairs[0] if len(pairs) == 1 else Or(*pairs)
    _plausible_pairs(b, s, size, offs)
    signals = [C(f"{rid}.{key}") for key, _, _ in plausible_signals(s)]
    for group in ("small", "jump", "pair"):  # the signals that hold, counted a kind at a time (short formulas)
        held = [If(C(f"{rid}.{key}"), Num(1), Num(0)) for key, _, _ in plausible_signals(s) if key.startswith(group)]
        if held:
            sc[f"{rid}.count_{group}"] = Sum(*held)
    counts = [C(f"{rid}.count_{g}") for g in ("small", "jump", "pair") if f"{rid}.count_{g}" in sc]
    confirmed = In("amounts_confirmed")
    return Check(actual=Sum(*counts), passes=Or(confirmed, Not(Or(*signals))), op="plausible", unit="项", known=True)


def _plausible_pairs(b: _Builder, s: PlausibleAmounts, size: Callable[..., Node], offs: list[int]) -> None:
    """A field and its neighbour of the same year (distributable profit and net profit …) ``pair_ratio`` times
    apart or more, either way, in any year of the window: one of them typed in 万元 (issue 47)."""
    if not s.pairs:
        return
    ratio = b.param(s.id, "pair_ratio", s.pair_ratio, s.clause, "同一年度相关项目相差倍数（达到即疑似单位不一）",
                    "Two related figures of one year apart (at it: mixed units suspected)", "倍")
    for a, c in s.pairs:
        years = [And(size(a, o) > Num(0), size(c, o) > Num(0),
                     Or(size(a, o) >= ratio * size(c, o), size(c, o) >= ratio * size(a, o))) for o in offs]
        b.m.scalars[f"{s.id}.pair_{a}_{c}"] = years[0] if len(years) == 1 else Or(*years)
