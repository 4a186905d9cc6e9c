"""xlmodel announce (issue 50): the profit distribution announcement's figures, table, sentences and faces.

The expected numbers are worked out by hand in the comments, from the exchange's definition of the table
(docs/domain.md §6.1: cash dividends plus cancelled buybacks over the three years, against 30 % of the
average net profit attributable and the board's floor) and from the companies' own printed figures
(tests/data/announcements, every figure as printed).
"""

from __future__ import annotations

import json
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
import yaml

from xlmodel.announce.figures import figures_for
from xlmodel.announce.render import markdown, to_json, write_docx
from xlmodel.case import parse_case
from xlmodel.cli import main

CORPUS = Path(__file__).parent / "data" / "announcements"
FILES = sorted(CORPUS.glob("*.yaml"))


def case(years: dict, board="sse_main", ey=2024, listing="2010-01-01", policy=None, **company):
    data = {"evaluation_year": ey, "company": {"company_name": "示例股份有限公司", "board": board,
                                               **({"listing_date": listing} if listing else {}), **company},
            "years": [{"fiscal_year": y, **v} for y, v in sorted(years.items())]}
    if policy:
        data["policy"] = policy
    return parse_case(data, "<test>", "yaml", plan_optional=True)


#: a main-board company that triggers the warning (hand-made, not a real company):
#: cash 10,000,000 + 12,000,000 + 14,000,000 = 36,000,000; cancelled 5,000,000 (2024); sum 41,000,000;
#: average (200 + 220 + 240) / 3 = 220,000,000; 30 % of it 66,000,000; 41,000,000 < 66,000,000 and < 50,000,000 → 是;
#: ratio 41 / 220 = 18.6363…% → 18.64
TRIGGERS = {2022: {"net_profit_attributable": 200_000_000, "cash_dividend": 10_000_000},
            2023: {"net_profit_attributable": 220_000_000, "cash_dividend": 12_000_000},
            2024: {"net_profit_attributable": 240_000_000, "cash_dividend": 14_000_000, "buyback_amount": 5_000_000,
                   "buyback_cancelled": 5_000_000, "interim_cash_dividend": 4_200_000,
                   "retained_earnings_parent": 500_000_000, "retained_earnings_consolidated": 600_000_000,
                   "cash_per_10_shares": 0.10, "base_share_count": 1_000_000_000,
                   "buyback_account_shares": 20_000_000, "base_change_keeps": "total"}}


def test_a_company_that_triggers_the_warning():
    f = figures_for(case(TRIGGERS), None)
    t = to_json(f)["table"]
    assert t["cash_dividends"] == [14_000_000, 12_000_000, 10_000_000]
    assert t["cumulative_cash"] == 36_000_000 and t["cumulative_cancelled_buybacks"] == 5_000_000
    assert t["cumulative_sum"] == 41_000_000 and t["average_net_profit"] == 220_000_000
    assert t["ratio_percent"] == 18.64 and t["below_30_percent"] == "是" and t["below_floor"] == "是"
    assert t["triggers"] == "是"
    assert t["article"] == "《上海证券交易所股票上市规则》第9.8.1条第一款第（八）项"
    # the cash still needed: the lower bound min(66,000,000, 50,000,000) = 50,000,000 less what the window already
    # counts (10,000,000 + 12,000,000 earlier, 5,000,000 cancelled this year) = 23,000,000
    assert f.report.cash_needed_to_avoid_st == 23_000_000
    text = markdown(f)
    assert "公司触及《上海证券交易所股票上市规则》第9.8.1条第一款第（八）项" in text and "23,000,000.00元方可避免" in text
    assert "不触及" not in text


def test_the_proposal_on_the_base_without_the_buyback_account():
    p = to_json(figures_for(case(TRIGGERS), None))["proposal"]
    # 1,000,000,000 − 20,000,000 = 980,000,000 shares; 0.10 / 10 × 980,000,000 = 9,800,000.00
    assert p["base"] == 980_000_000 and p["total_cash"] == 9_800_000
    # with the interim 4,200,000: 14,000,000 = cash_dividend as entered
    assert p["year_total"] == 14_000_000 and p["matches_cash_dividend"] is True
    # 14,000,000 / 240,000,000 = 5.8333…% → 5.83; with the 5,000,000 bought back: 19,000,000 / 240,000,000 = 7.9166…% → 7.92
    assert p["payout_percent"] == 5.83 and p["cash_with_buybacks"] == 19_000_000
    assert p["payout_with_buybacks_percent"] == 7.92
    # still required of this proposal: 23,000,000 less the interim 4,200,000 = 18,800,000; per 10 shares on 980,000,000:
    # 18,800,000 × 10 / 980,000,000 = 0.19183… → 0.20 (0.19 gives 18,620,000 < 18,800,000)
    assert p["required"] == 18_800_000 and p["min_cash_per_10_shares"] == 0.20


@pytest.mark.parametrize("earlier, required, least", [(13_500_000, 23_000_000, 0.23),
                                                     (13_499_999.99, 23_000_000.01, 0.24),
                                                     (13_500_000.01, 22_999_999.99, 0.23)])
def test_the_least_amount_per_10_shares_at_its_fen(earlier, required, least):
    """On 1,000,000,000 shares 0.23 per 10 gives exactly 23,000,000.00: a fen more required needs 0.24.
    The requirement is the warning's: the floor 50,000,000 less the earlier years' 13,500,000 + ``earlier``
    (the interim 0): 23,000,000, 23,000,000.01, 22,999,999.99."""
    years = {2022: {"net_profit_attributable": 1_000_000_000, "cash_dividend": 13_500_000},
             2023: {"net_profit_attributable": 1_000_000_000, "cash_dividend": earlier},
             2024: {"net_profit_attributable": 1_000_000_000, "cash_dividend": 0, "retained_earnings_parent": 1e9,
                    "cash_per_10_shares": 0, "base_share_count": 1_000_000_000}}
    p = to_json(figures_for(case(years), None))["proposal"]
    assert p["required"] == required
    assert p["min_cash_per_10_shares"] == least


def test_out_of_scope_says_why_and_no():
    # 2024's net profit is a loss: out of scope whatever the cash (not positive → 否, with the reason)
    years = {2022: {"net_profit_attributable": 100_000_000}, 2023: {"net_profit_attributable": 100_000_000},
             2024: {"net_profit_attributable": -1_000_000, "retained_earnings_parent": 10_000_000}}
    f = figures_for(case(years), None)
    t = to_json(f)["table"]
    assert t["triggers"] == "否" and "净利润不为正值" in t["triggers_reason_zh"]
    # the average printed as it is: (100,000,000 + 100,000,000 − 1,000,000) / 3 = 66,333,333.33
    assert t["average_net_profit"] == 66_333_333.33


def test_the_star_market_table_has_the_r_and_d_rows_and_the_exemption():
    # R&D 50,000,000 a year on revenue 300,000,000 a year: 150,000,000 / 900,000,000 = 16.67 % ≥ 15 % → exempt → 否
    years = {y: {"net_profit_attributable": 100_000_000, "rd_expense": 50_000_000, "revenue": 300_000_000}
             for y in (2022, 2023, 2024)}
    years[2024]["retained_earnings_parent"] = 100_000_000
    f = figures_for(case(years, board="star", stock_code="688001"), None)
    t = to_json(f)["table"]
    assert t["rd"] == {"expense": [50_000_000] * 3, "cumulative": 150_000_000, "revenue": [300_000_000] * 3,
                       "cumulative_revenue": 900_000_000, "ratio_percent": 16.67}
    assert t["triggers"] == "否" and "研发投入" in t["triggers_reason_zh"]
    assert t["article"] == "《上海证券交易所科创板股票上市规则》第12.9.1条第一款第（八）项"
    assert "是否触及《科创板股票上市规则》第12.9.1条第一款第（八）项规定的可能被实施其他风险警示的情形" in markdown(f)


def test_an_undecided_warning_is_never_said_not_to_apply():
    years = {k: dict(v) for k, v in TRIGGERS.items()}
    del years[2023]["net_profit_attributable"]  # a year of the window unknown
    for y in years.values():
        y["cash_dividend"] = 100_000_000  # plenty of cash, but the average is not known
    years[2024].update(interim_cash_dividend=0, cash_per_10_shares=1, base_share_count=1_000_000_000,
                       buyback_account_shares=0)
    f = figures_for(case(years), None)
    t = to_json(f)["table"]
    # 60,000,000 ≥ 50,000,000 this year alone would pass; 100,000,000 a year passes whatever the missing year
    assert t["triggers"] == "否"
    years[2024]["cash_dividend"] = years[2022]["cash_dividend"] = 1_000_000
    years[2024].update(cash_per_10_shares=0.01)
    f = figures_for(case(years), None)
    assert to_json(f)["table"]["triggers"] is None
    text = markdown(f)
    assert "无法判断" in text and "不触及" not in text.replace("不得表述为“不触及”", "")


def test_a_proposal_that_does_not_add_up_to_the_cash_dividend_is_said(capsys, tmp_path):
    years = {k: dict(v) for k, v in TRIGGERS.items()}
    years[2024]["cash_per_10_shares"] = 0.11  # 10,780,000 + 4,200,000 = 14,980,000 ≠ 14,000,000
    p = tmp_path / "case.yaml"
    p.write_text(yaml.safe_dump({"evaluation_year": 2024, "company": {"board": "sse_main", "listing_date": "2010-01-01"},
                                 "years": [{"fiscal_year": y, **v} for y, v in years.items()]}, allow_unicode=True),
                 encoding="utf-8")
    code = main(["announce", str(p)])
    out = capsys.readouterr().out
    assert code == 1 and "14,980,000.00元" in out and "不一致" in out


def test_the_cli_faces_and_the_word_document(capsys, tmp_path):
    p = tmp_path / "case.yaml"
    p.write_text(yaml.safe_dump({"evaluation_year": 2024, "company": {"company_name": "示例股份有限公司", "board": "sse_main",
                                                                      "listing_date": "2010-01-01"},
                                 "years": [{"fiscal_year": y, **v} for y, v in TRIGGERS.items()]}, allow_unicode=True),
                 encoding="utf-8")
    assert main(["announce", str(p), "--json"]) == 1  # triggered: exit 1
    d = json.loads(capsys.readouterr().out)
    assert d["table"]["triggers"] == "是" and d["proposal"]["total_cash"] == 9_800_000
    out = tmp_path / "公告.docx"
    assert main(["announce", str(p), "-o", str(out)]) == 1 and out.exists()
    capsys.readouterr()
    assert main(["announce", str(p), "-o", str(out)]) == 2  # never over a file without --force
    assert "--force" in capsys.readouterr().err
    from docx import Document

    doc = Document(str(out))
    assert doc.paragraphs[0].text == "示例股份有限公司关于2024年度利润分配方案的公告"
    rows = [[c.text for c in r.cells] for r in doc.tables[0].rows]
    assert rows[0][0] == "项目" and rows[1][1:] == ["14,000,000.00", "12,000,000.00", "10,000,000.00"]
    assert rows[-1][1] == "是"


def test_a_plan_s_statement_is_added(tmp_path):
    from xlmodel.case import load_case

    c = load_case(Path(__file__).parents[1] / "samples" / "gcl-energy-2022-2024.yaml")
    from xlmodel.evaluator import cached_plan_by_id

    f = figures_for(c, cached_plan_by_id(c.policy))
    lines = "\n".join(to_json(f)["sentences"]["三、测算与提示（供董秘办核对，不直接刊登）"])
    assert "《" in lines and "规定" in lines


# ---- the corpus of real announcements (tests/data/announcements) ------------------------------------------

def _d(x):
    return None if x is None else Decimal(str(x))


def _scale(doc: dict) -> Decimal:
    """A table printed in 万元 (``unit: 万元``, as 002992 prints it under (元) labels) is read ×10,000 into 元."""
    return Decimal(10_000) if doc["table"].get("unit") == "万元" else Decimal(1)


def corpus_case(doc: dict):
    """A case from what the announcement printed: the three years' figures, the proposal, the board; the
    listing date far back (unless the file says otherwise)."""
    t, p, ey, k = doc["table"], doc["proposal"], doc["fiscal_year"], _scale(doc)
    years = {y: {} for y in t["columns"]}
    for key, fid in (("cash_dividends", "cash_dividend"), ("cancelled_buybacks", "buyback_cancelled"),
                     ("net_profit_attributable", "net_profit_attributable")):
        for y, v in zip(t["columns"], t[key]):
            if v is not None:
                years[y][fid] = float(_d(v) * k)
    cons = t.get("retained_earnings_consolidated_year_end")
    if cons is not None:
        cons = cons[0] if isinstance(cons, list) else cons
        if cons is not None:
            years[ey]["retained_earnings_consolidated"] = float(_d(cons) * k)
    rd = t.get("rd") or {}
    for key, fid in (("expense", "rd_expense"), ("revenue", "revenue")):
        for y, v in zip(t["columns"], rd.get(key) or [None] * 3):
            if v is not None:
                years[y][fid] = v
    this = years[ey]
    if p.get("net_profit_attributable") is not None:
        this.setdefault("net_profit_attributable", p["net_profit_attributable"])
    parent = t.get("retained_earnings_parent_year_end")
    parent = float(_d(parent) * k) if parent is not None else p.get("retained_earnings_parent")
    if parent is not None:
        this["retained_earnings_parent"] = parent
    if p.get("retained_earnings_consolidated") is not None:
        this.setdefault("retained_earnings_consolidated", p["retained_earnings_consolidated"])
    _proposal_inputs(this, p)
    company = {"company_name": doc["company"], "stock_code": doc["stock_code"], "board": doc["board"],
               "listing_date": doc.get("listing_date") or "1990-01-01"}
    data = {"evaluation_year": ey, "company": company, "years": [{"fiscal_year": y, **v} for y, v in years.items()]}
    return parse_case(data, doc["stock_code"], "yaml", plan_optional=True)


def _proposal_inputs(this: dict, p: dict) -> None:
    if p.get("cash_per_10_shares") is not None:
        this["cash_per_10_shares"] = p["cash_per_10_shares"]
    if p.get("total_shares") is not None:
        this["base_share_count"] = p["total_shares"]
        this["buyback_account_shares"] = p.get("buyback_account_shares") or 0
    elif p.get("share_base") is not None:
        this["base_share_count"] = p["share_base"]  # the base as printed (the account already left out)
    if p.get("keeps") in ("ratio", "total"):
        this["base_change_keeps"] = p["keeps"]
    interim = p.get("interim_cash")
    if interim is None and p.get("year_cash_total") is not None and p.get("total_cash") is not None:
        interim = float(_d(p["year_cash_total"]) - _d(p["total_cash"]))  # the year's total less this proposal
    if interim:
        this["interim_cash_dividend"] = interim
    total = p.get("year_cash_total")
    if total is None and p.get("total_cash") is not None:
        total = float(_d(p["total_cash"]) + _d(interim or 0))
    if total is not None:
        this.setdefault("cash_dividend", total)
    if p.get("buyback_cash"):
        this["buyback_amount"] = p["buyback_cash"]


def compared(doc: dict) -> list[tuple[str, object, object]]:
    """(what, printed, ours) for every printed figure xlmodel can compute from the printed inputs."""
    ours = to_json(figures_for(corpus_case(doc), None))
    p, q, out = doc["proposal"], ours["proposal"], []
    if p.get("cash_per_10_shares") is not None and (p.get("share_base") or p.get("total_shares")):
        out.append(("total_cash", _d(p["total_cash"]), _d(q["total_cash"])))
        if p.get("share_base") is not None:
            out.append(("share_base", _d(p["share_base"]), _d(q["base"])))
    if p.get("interim_cash") is not None and p.get("year_cash_total") is not None:
        out.append(("year_cash_total", _d(p["year_cash_total"]), _d(q["year_total"])))
    if p.get("cash_and_buyback_total") is not None and p.get("buyback_cash") is not None:
        out.append(("cash_and_buyback_total", _d(p["cash_and_buyback_total"]), _d(q["cash_with_buybacks"])))
    if p.get("payout_ratio_percent") is not None and q["payout_with_buybacks_percent"] is not None:
        out.append(("payout_ratio_percent", _d(p["payout_ratio_percent"]), _d(q["payout_with_buybacks_percent"])))
    return out + _table_compared(doc, ours["table"])


def _complete(t: dict) -> bool:
    return all(v is not None for v in t["cash_dividends"] + t["net_profit_attributable"])


def _as_printed(printed, ours, k: Decimal = Decimal(1)):
    """(printed, ours) at the printed unit and precision: ours in the table's unit, rounded half away from zero
    to the printed decimals where the page prints fewer than two (300147's average: -592,527,264.6)."""
    a, b = _d(printed), _d(ours)
    if b is None:
        return a, b
    b = b / k
    places = max(0, -a.as_tuple().exponent)
    if places < 2 or k != 1:
        b = b.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return a, b


def _table_compared(doc: dict, ours: dict | None) -> list:
    t, out, k = doc["table"], [], _scale(doc)
    if ours is None:
        return out
    for key in ("cash_dividends", "net_profit_attributable"):
        out += [(f"{key}[{i}]", *_as_printed(v, ours[key][i], k)) for i, v in enumerate(t[key]) if v is not None]
    if t.get("retained_earnings_parent_year_end") is not None:
        out.append(("retained_earnings_parent_year_end",
                    *_as_printed(t["retained_earnings_parent_year_end"], ours["retained_earnings_parent_year_end"], k)))
    if _complete(t):  # the window's figures need every year's inputs
        for key in ("cumulative_cash", "cumulative_cancelled_buybacks", "cumulative_sum", "average_net_profit"):
            if t.get(key) is not None:
                out.append((key, *_as_printed(t[key], ours[key], k)))
        if t.get("ratio_percent") is not None:
            out.append(("ratio_percent", *_as_printed(t["ratio_percent"], ours["ratio_percent"])))
        rd = t.get("rd") or {}
        for key, mine in (("cumulative", "cumulative"), ("cumulative_revenue", "cumulative_revenue"),
                          ("ratio_percent", "ratio_percent")):
            if rd.get(key) is not None and (ours.get("rd") or {}).get(mine) is not None:
                out.append((f"rd.{key}", *_as_printed(rd[key], ours["rd"][mine], k if key != "ratio_percent" else 1)))
        if t.get("below_30_percent") is not None:
            out.append(("below_30_percent", t["below_30_percent"], ours["below_30_percent"]))
    if t.get("triggers") is not None and (ours["triggers"] is not None or _complete(t)):
        out.append(("triggers", t["triggers"], ours["triggers"]))  # decided by us: must agree; complete: must decide
    return out


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_every_printed_figure_of_a_real_announcement(path):
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    rows = compared(doc)
    wrong = [(what, str(a), str(b)) for what, a, b in rows if a != b]
    assert not wrong, wrong


def test_the_corpus_compares_figures_and_verdicts():
    """Not an empty comparison: the corpus gives figures and 是/否 verdicts that xlmodel reproduces."""
    rows = [r for f in FILES for r in compared(yaml.safe_load(f.read_text(encoding="utf-8")))]
    assert len(FILES) >= 2 and sum(1 for r in rows if r[0] == "total_cash") >= 2


# ---- the same figures on every face: announce, the workbook in LibreOffice and Gnumeric, the worksheet function ---

PLAN = "gcl-energy-2022-2024"  # a bundled plan with the baseline (its ST rule is the baseline's, whatever the plan)


def _face_cases() -> list:
    """Two real companies' printed figures (600857: the fullest main-board table; 300147: a ChiNext table with its
    R&D rows) and the company that triggers, each under a bundled plan so that a workbook can be built."""
    out = []
    for stem in ("600857-2024", "300147-2024"):
        c = corpus_case(yaml.safe_load((CORPUS / f"{stem}.yaml").read_text(encoding="utf-8")))
        out.append((stem, c))
    out.append(("triggers", case(TRIGGERS)))
    import dataclasses

    return [(k, dataclasses.replace(c, policy=PLAN)) for k, c in out]


def _sheet_rows(path: Path) -> dict[str, int]:
    import openpyxl

    ws = openpyxl.load_workbook(path)["公告"]
    return {ws.cell(r, 1).value: r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value}


def _expected(f) -> dict[str, list]:
    """{line key: its values} as announce computes them (raw: ratios as fractions, yes/no as 1/0)."""
    from xlmodel.announce.rows import LINES, PROPOSAL

    exp = {name: [f.proposal[name.split(".", 1)[1]]] for name, *_ in PROPOSAL}
    exp.update({ln.key: [f.st[c] for c in ln.calcs] for ln in LINES})
    exp["columns"] = f.years
    exp["triggers"] = [{"是": "是", "否": "否"}.get(f.triggers, "无法判断")]
    return exp


def _equal(a, b) -> bool:
    if isinstance(b, bool) or isinstance(a, bool):
        return float(a) == float(b)
    if b is None or b == "":
        return a in (None, "")
    if isinstance(b, str):
        return a == b
    return a is not None and a != "" and abs(float(a) - float(b)) < 5e-10 * max(1.0, abs(float(b)))


@pytest.mark.parametrize("engine", ["libreoffice", "gnumeric"])
def test_the_announcement_sheet_equals_announce_in_both_engines(engine, request, tmp_path):
    from conftest import engine_values
    from xlmodel.evaluator import cached_plan_by_id
    from xlmodel.workbook.writer import build_workbook

    request.getfixturevalue(engine)
    policy = cached_plan_by_id(PLAN)
    paths, expected = [], {}
    for key, c in _face_cases():
        p = build_workbook(tmp_path / f"{key}.xlsx", policy, c)
        paths.append(p)
        expected[p.name] = (_sheet_rows(p), _expected(figures_for(c, policy)))
    got = engine_values(engine, paths, tmp_path / engine)
    wrong, compared = [], 0
    for name, (rows, exp) in expected.items():
        for key, values in exp.items():
            for k, v in enumerate(values):
                cell = f"{'CDE'[k]}{rows[key]}"
                theirs = got[name].get(("公告", cell))
                compared += 1
                if not _equal(theirs, v):
                    wrong.append((name, key, cell, theirs, v))
    assert not wrong, wrong[:10]
    assert compared > 100


def test_the_worksheet_function_equals_announce():
    from xlmodel.evaluator import cached_plan_by_id
    from xlmodel.fields import FIELDS
    from xlmodel.udfs import XLM_ANNOUNCE, clear_caches

    clear_caches()
    policy = cached_plan_by_id(PLAN)
    for key, c in _face_cases():
        years = sorted(c.years)
        fids = sorted({k for y in years for k in c.years[y]})
        values = [[c.years[y].get(fid) for y in years] for fid in fids]
        comp = [k for k in c.company if k in FIELDS]
        out = XLM_ANNOUNCE(PLAN, c.evaluation_year, fids, years, values, comp, [c.company[k] for k in comp])
        assert isinstance(out, list), out
        got = {row[0]: row[2:] for row in out[1:]}
        exp = _expected(figures_for(c, policy))
        wrong = [(key, k, got[name][k], v) for name, vs in exp.items() for k, v in enumerate(vs)
                 if not _equal(got[name][k], v)]
        assert not wrong, (key, wrong[:10])


def test_announce_reads_a_filled_workbook_as_its_case(tmp_path, capsys):
    """A workbook built for the case gives the announcement of the case (read as check reads it)."""
    import dataclasses

    from xlmodel.evaluator import cached_plan_by_id
    from xlmodel.workbook.writer import build_workbook

    c = dataclasses.replace(case(TRIGGERS), policy=PLAN)
    p = build_workbook(tmp_path / "book.xlsx", cached_plan_by_id(PLAN), c)
    assert main(["announce", str(p), "--json"]) == 1
    got = json.loads(capsys.readouterr().out)
    want = to_json(figures_for(c, cached_plan_by_id(PLAN)))
    assert got["table"] == json.loads(json.dumps(want["table"])) and got["proposal"] == want["proposal"]
    assert got["table"]["triggers"] == "是"
