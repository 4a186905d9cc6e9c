"""Loading cases (DOMAIN.md §3): types, units and required fields are validated,
and EVERY problem of a case is reported at once, each naming the field and the
fiscal year it belongs to.

Cases are written as dicts (``xlmodel.case.parse_case``) and as YAML/JSON files
in ``tmp_path`` (``xlmodel.case.load_case``). Expected numbers are worked out by
hand from the GCL sample (samples/gcl-energy-2022-2024.yaml); the arithmetic is
written next to them.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path

import pytest
import yaml

import xlmodel
from xlmodel.case import Case, check_attestations, load_case, parse_case
from xlmodel.errors import CaseError, XlmodelError
from xlmodel.evaluator import evaluate, model_for
from xlmodel.plans.loading import load_policy

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
GCL_SAMPLE = SAMPLES / "gcl-energy-2022-2024.yaml"
GCL = "gcl-energy-2022-2024"


def sample_data(name: str = "gcl-energy-2022-2024") -> dict:
    """The raw mapping of a sample case (what yaml.safe_load gives)."""
    return yaml.safe_load((SAMPLES / f"{name}.yaml").read_text(encoding="utf-8"))


def year_row(data: dict, fy: int) -> dict:
    return next(r for r in data["years"] if r["fiscal_year"] == fy)


def problems_of(exc: CaseError) -> dict[str, str]:
    """where -> message (each `where` appears once in these tests)."""
    out = {p.where: p.message for p in exc.problems}
    assert len(out) == len(exc.problems), f"duplicate locations in {exc.problems}"
    return out


# ---------------------------------------------------------------------------
# one case with many problems: all of them are reported at once
# ---------------------------------------------------------------------------

def many_problems() -> dict:
    """A case with eleven independent problems (no 'policy' key at all)."""
    return {
        # (1) the policy key is missing
        "evaluation_year": 2024,  # (2) ... and no entry for 2024 under years
        "company": {
            "company_name": "协鑫能源科技股份有限公司",
            "stock_code": "002015.SH",  # (3) a Shenzhen code with a Shanghai suffix
            "board": "szse_main",
        },
        "years": [
            {"fiscal_year": 2022, "distributable_profit": 611845138.87, "cash_dividend": 306781780.12},
            {
                "fiscal_year": 2023,
                "cash_dividend": "1.2亿",           # (4) an amount given as text
                "vote_for_ratio": 67,               # (5) a ratio as a percentage: 67 instead of 0.67
                "share_count": -1581450548,         # (6) a negative share count
                "net_profit": 908993690.08,         # (7) an unknown field id
                "board": "szse_main",               # (8) a company field put in a year
                "agm_date": "2024-13-20",           # (9) a bad date (month 13)
                "audit_opinion": "clean",           # (10) an unknown audit opinion
                "distributable_profit": 855092128.94,
            },
            {"fiscal_year": 2022, "distributable_profit": 1.0},  # (11) a duplicate fiscal year
        ],
    }


# (location, words the message must contain)
EXPECTED_PROBLEMS = {
    "policy": ["required"],
    "company.stock_code": ["002015", "深圳证券交易所", "SH", "SZSE"],
    "years[1].cash_dividend (2023)": ["amount", "'1.2亿'"],
    "years[1].vote_for_ratio (2023)": ["ratio between 0 and 1", "0.67", "67"],
    "years[1].share_count (2023)": ["non-negative", "-1581450548"],
    "years[1].net_profit (2023)": ["unknown field"],
    "years[1].board (2023)": ["unknown field", "company field"],
    "years[1].agm_date (2023)": ["date", "YYYY-MM-DD", "'2024-13-20'"],
    "years[1].audit_opinion (2023)": ["standard_unqualified", "标准无保留意见", "'clean'"],
    "years[2].fiscal_year": ["2022", "more than once"],
    "years": ["evaluation year 2024"],
}


def assert_all_problems(exc: CaseError, source: str):
    probs = problems_of(exc)
    assert set(probs) == set(EXPECTED_PROBLEMS), sorted(probs)
    for where, words in EXPECTED_PROBLEMS.items():
        for w in words:
            assert w in probs[where], (where, w, probs[where])
    text = str(exc)
    assert text.splitlines()[0] == f"{source}: 案例文件有误 invalid case (11 problems)"
    # one line per problem, each naming the field; per-year fields name the fiscal year
    assert len(text.splitlines()) == 1 + 11
    for field in ("cash_dividend", "vote_for_ratio", "share_count", "net_profit", "board", "agm_date",
                  "audit_opinion"):
        line = next(ln for ln in text.splitlines() if f".{field} (" in ln)
        assert f"{field} (2023)" in line
    assert "company.stock_code" in text
    assert "fiscal_year" in text and "2022" in text


def test_parse_case_reports_every_problem_at_once():
    with pytest.raises(CaseError) as ei:
        parse_case(many_problems(), "many.yaml")
    assert_all_problems(ei.value, "many.yaml")
    assert ei.value.source == "many.yaml"


def test_yaml_file_reports_every_problem_at_once(tmp_path):
    data = many_problems()
    path = tmp_path / "many.yaml"
    # the bad date is quoted: an unquoted one is a separate test below
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    assert "stock_code: 002015.SH" in path.read_text(encoding="utf-8")
    with pytest.raises(CaseError) as ei:
        load_case(path)
    assert_all_problems(ei.value, str(path))


def test_json_file_reports_every_problem_at_once(tmp_path):
    path = tmp_path / "many.json"
    path.write_text(json.dumps(many_problems(), ensure_ascii=False), encoding="utf-8")
    with pytest.raises(CaseError) as ei:
        load_case(path)
    assert_all_problems(ei.value, str(path))


def test_top_level_problems_are_reported_together():
    data = {
        "policy": 7,                 # not a policy id
        "evaluation_year": "FY2023", # not a year ("2023" as text is one, as in a CSV file)
        "years": {"2023": {}},       # not a list
        "attestations": ["x"],       # not a mapping
        "notes": {"no such field": "x"},  # not even shaped like a field or rule id
        "extra": 1,                  # unknown top-level key
    }
    with pytest.raises(CaseError) as ei:
        parse_case(data)
    probs = problems_of(ei.value)
    assert set(probs) == {"extra", "policy", "evaluation_year", "years", "attestations", "notes.no such field"}
    assert "'FY2023'" in probs["evaluation_year"]


def test_year_row_without_fiscal_year_is_named_by_position():
    data = sample_data()
    del year_row(data, 2022)["fiscal_year"]
    with pytest.raises(CaseError) as ei:
        parse_case(data)
    assert problems_of(ei.value) == {"years[1].fiscal_year": "required: a fiscal year, got None"}


def test_problems_in_several_years_each_name_their_year():
    data = sample_data()
    year_row(data, 2021)["cash_dividend"] = "3.2亿"
    year_row(data, 2022)["cash_dividend"] = "3.1亿"
    year_row(data, 2023)["cash_dividend"] = "2.1亿"
    with pytest.raises(CaseError) as ei:
        parse_case(data)
    assert set(problems_of(ei.value)) == {
        "years[0].cash_dividend (2021)", "years[1].cash_dividend (2022)", "years[2].cash_dividend (2023)"}


@pytest.mark.parametrize("field, value, words", [
    ("cash_dividend", True, ["amount"]),                 # a bool is not an amount
    ("cash_dividend", float("nan"), ["finite"]),
    ("total_assets", 1e15, ["below 1e15"]),              # beyond 15 digits the fen is lost
    ("vote_for_ratio", 1.0000001, ["between 0 and 1"]),
    ("vote_for_ratio", -0.01, ["between 0 and 1"]),
    ("vote_for_ratio", "167%", ["between 0 and 1"]),  # a percentage is read ("67%" is 0.67), then checked
    ("share_count", 1.5, ["whole"]),
    ("going_concern_unaffected", 1, ["yes/no"]),         # 1 is not a yes/no
    ("going_concern_unaffected", "maybe", ["yes/no"]),
    ("development_stage", "startup", ["mature (成熟期)", "growth (成长期)"]),
    ("payout_date", "20/07/2024", ["YYYY-MM-DD"]),
    ("payout_date", 20240712, ["YYYY-MM-DD"]),
])
def test_wrong_type_is_a_load_error_naming_field_and_year(field, value, words):
    data = sample_data()
    year_row(data, 2023)[field] = value
    with pytest.raises(CaseError) as ei:
        parse_case(data)
    probs = problems_of(ei.value)
    assert list(probs) == [f"years[2].{field} (2023)"]
    for w in words:
        assert w in probs[f"years[2].{field} (2023)"]


@pytest.mark.parametrize("field, value, expected", [
    ("vote_for_ratio", 0, 0.0),
    ("vote_for_ratio", 1, 1.0),
    ("vote_for_ratio", 0.67, 0.67),
    ("share_count", 1581450548, 1581450548.0),
    ("cash_dividend", 205588571, 205588571.0),           # an int amount is a number
    ("total_assets", 999_999_999_999_999.0, 999_999_999_999_999.0),
    ("payout_date", "2024-07-12", dt.date(2024, 7, 12)),
    ("payout_date", dt.date(2024, 7, 12), dt.date(2024, 7, 12)),
    ("payout_date", dt.datetime(2024, 7, 12, 9, 30), dt.date(2024, 7, 12)),
    # one reading everywhere: numbers as text, as a CSV file or a workbook cell holds them
    ("vote_for_ratio", "67%", 0.67),
    ("cash_dividend", "1,234.56", 1234.56),
    ("cash_dividend", "１２３４", 1234.0),
])
def test_valid_values_are_accepted(field, value, expected):
    data = sample_data()
    year_row(data, 2023)[field] = value
    assert parse_case(data).value(field, 2023) == expected


def test_stock_code_text_keeps_leading_zeros_and_must_have_six_digits():
    data = sample_data()
    assert parse_case(data).company["stock_code"] == "002015"
    assert not any("002015" in w for w in parse_case(data).warnings)
    # the zeros a spreadsheet lost: restored for a Shenzhen code (000–003), with a note
    for lost in ("2015", 2015, 2015.0):
        data["company"]["stock_code"] = lost
        case = parse_case(data)
        assert case.company["stock_code"] == "002015"
        assert any("2015" in w and "002015" in w and "前导零" in w for w in case.warnings), case.warnings
    # no listed code with its zeros restored, too many digits, not a whole number: refused
    for bad in ("12345", "1234567", 2015.5, -2015):
        data["company"]["stock_code"] = bad
        with pytest.raises(CaseError) as ei:
            parse_case(data)
        msg = problems_of(ei.value)["company.stock_code"]
        assert msg.startswith("证券代码应为6位数字") and "6-digit" in msg, msg


def test_stock_code_as_vendors_write_it_and_the_board_from_the_code():
    data = sample_data()
    del data["company"]["board"]
    for written in ("002015.SZ", "002015.sz", "SZ002015", "sz002015", "SZ.002015", "002015.XSHE", "００２０１５"):
        data["company"]["stock_code"] = written
        case = parse_case(data)
        assert case.company["stock_code"] == "002015", written
        assert case.company["board"] == "szse_main"  # 002: 深交所主板 (the former SME board)
        assert any("szse_main" in w for w in case.warnings)
    for code, board in (("600519", "sse_main"), ("601318", "sse_main"), ("603259", "sse_main"), ("605499", "sse_main"),
                        ("688981", "star"), ("689009", "star"), ("000001", "szse_main"), ("001979", "szse_main"),
                        ("003816", "szse_main"), ("300750", "chinext"), ("301269", "chinext"),
                        ("430047", "bse"), ("830799", "bse"), ("870299", "bse"), ("920118", "bse")):
        data["company"]["stock_code"] = code
        assert parse_case(data).company["board"] == board, code
    # a code of no listed board (a B share) gives none; a stated board is kept
    data["company"]["stock_code"] = "900901"
    assert "board" not in parse_case(data).company
    data["company"]["board"] = "sse_main"
    assert parse_case(data).company["board"] == "sse_main"
    # a stated board that contradicts the code, or a suffix of another exchange: refused
    data["company"].update(stock_code="300750", board="szse_main")
    with pytest.raises(CaseError) as ei:
        parse_case(data)
    msg = problems_of(ei.value)["company.board"]
    assert msg.startswith("上市板块为深交所主板") and "chinext" in msg and "300750" in msg
    data["company"].update(stock_code="600519.SZ", board="sse_main")
    with pytest.raises(CaseError) as ei:
        parse_case(data)
    assert "上海证券交易所" in problems_of(ei.value)["company.stock_code"]
    # 主板 alone does not say which exchange; 中小板 is the Shenzhen main board now
    data["company"].update(stock_code="002015", board="主板")
    with pytest.raises(CaseError) as ei:
        parse_case(data)
    assert "sse_main" in problems_of(ei.value)["company.board"]
    data["company"]["board"] = "中小板"
    assert parse_case(data).company["board"] == "szse_main"


def test_unknown_company_field_and_year_field_under_company():
    data = sample_data()
    data["company"]["cash_dividend"] = 1.0  # a per-year field put under company
    data["company"]["ceo"] = "x"
    with pytest.raises(CaseError) as ei:
        parse_case(data)
    probs = problems_of(ei.value)
    assert set(probs) == {"company.cash_dividend", "company.ceo"}
    assert "per-year field" in probs["company.cash_dividend"]


# ---------------------------------------------------------------------------
# Chinese labels, 是/否
# ---------------------------------------------------------------------------

def test_chinese_labels_and_yes_no_are_accepted_and_give_the_same_result():
    data = sample_data()
    zh = copy.deepcopy(data)
    y23 = year_row(zh, 2023)
    y23["audit_opinion"] = "标准无保留意见"
    y23["development_stage"] = "成长期"
    y23["going_concern_unaffected"] = "是"
    y23["online_voting_offered"] = " 是 "
    y23["independent_directors_opinion"] = "是"
    year_row(zh, 2021)["audit_opinion"] = "标准无保留意见"
    zh["company"]["board"] = "深交所主板"
    zh["attestations"] = {k: "是" for k in zh["attestations"]}
    case = parse_case(zh)
    assert case.value("audit_opinion", 2023) == "standard_unqualified"
    assert case.value("development_stage", 2023) == "growth"
    assert case.value("going_concern_unaffected", 2023) is True
    assert case.value("online_voting_offered", 2023) is True
    assert case.company["board"] == "szse_main"
    assert set(case.attestations.values()) == {True}
    assert evaluate(case).to_dict() == evaluate(parse_case(data)).to_dict()


@pytest.mark.parametrize("label, code", [
    ("标准无保留意见", "standard_unqualified"),
    ("带强调事项段的无保留意见", "unqualified_with_emphasis"),
    ("保留意见", "qualified"),
    ("否定意见", "adverse"),
    ("无法表示意见", "disclaimer"),
])
def test_every_audit_opinion_label(label, code):
    data = sample_data()
    year_row(data, 2023)["audit_opinion"] = label
    assert parse_case(data).value("audit_opinion", 2023) == code


@pytest.mark.parametrize("label, code", [("成熟期", "mature"), ("成长期", "growth"), ("不易区分", "indeterminate")])
def test_every_development_stage_label(label, code):
    data = sample_data()
    year_row(data, 2023)["development_stage"] = label
    assert parse_case(data).value("development_stage", 2023) == code


@pytest.mark.parametrize("value, expected", [
    ("是", True), ("否", False), (" 否 ", False), (True, True), (False, False),
    ("yes", True), ("no", False), ("true", True), ("FALSE", False),
])
def test_yes_no_values(value, expected):
    data = sample_data()
    year_row(data, 2023)["going_concern_unaffected"] = value
    data["attestations"]["board_records_kept"] = value
    case = parse_case(data)
    assert case.value("going_concern_unaffected", 2023) is expected
    assert case.attestations["board_records_kept"] is expected


def test_no_to_a_condition_changes_the_result():
    # 否 for the board's going-concern judgment: condition 三、(二)、1、(2) fails, so the
    # cash-dividend conditions are not met and the minimums do not apply
    data = sample_data()
    year_row(data, 2023)["going_concern_unaffected"] = "否"
    rep = evaluate(parse_case(data))
    assert rep.rule("cond_going_concern").status == "not_met"  # a condition is met or not met (DOMAIN.md §4)
    assert rep.cash_conditions_met is False
    assert rep.rule("min_annual").status == "not_applicable"


# ---------------------------------------------------------------------------
# blanks are absent; distribution amounts default to 0
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("blank", [None, "", "   "])
def test_blank_values_are_absent_and_the_rule_reports_missing_input(blank):
    data = sample_data()
    y23 = year_row(data, 2023)
    y23["audit_opinion"] = blank
    y23["going_concern_unaffected"] = blank
    case = parse_case(data)  # not a load error
    assert "audit_opinion" not in case.years[2023]
    assert "going_concern_unaffected" not in case.years[2023]
    rep = evaluate(case)
    aud = rep.rule("cond_audit_opinion")
    assert aud.status == "missing_input"
    assert any("audit_opinion" in m and "(2023)" in m for m in aud.missing_inputs), aud.missing_inputs
    gc = rep.rule("cond_going_concern")
    assert gc.status == "missing_input"
    assert any("going_concern_unaffected" in m and "(2023)" in m for m in gc.missing_inputs)
    assert rep.overall_status == "missing_input"
    assert rep.exit_code == 1


def test_blank_in_an_earlier_year_names_that_year():
    # FY2021 distributable profit is read by the rolling minimum (window 2021–2023)
    data = sample_data()
    year_row(data, 2021)["distributable_profit"] = ""
    rep = evaluate(parse_case(data))
    r = rep.rule("min_rolling")
    assert r.status == "missing_input"
    assert any("distributable_profit" in m and "(2021)" in m for m in r.missing_inputs), r.missing_inputs


def test_distribution_amounts_default_to_zero():
    data = sample_data()
    for row in data["years"]:
        row.pop("stock_dividend", None)       # no stock dividend in any year
    del year_row(data, 2021)["cash_dividend"]  # absent -> 0
    year_row(data, 2022)["buyback_amount"] = None  # blank -> 0
    rep = evaluate(parse_case(data))
    assert rep.missing_input_count == 0
    roll = rep.rule("min_rolling")
    # cash over 2021–2023 = 0 + 306,781,780.12 + 205,588,571.24 = 512,370,351.36
    assert roll.actual == pytest.approx(512_370_351.36, abs=0.005)
    # required = 30% × (903,600,000 + 611,845,138.87 + 855,092,128.94) / 3
    #          = 30% × 790,179,089.27 = 237,053,726.781 -> 237,053,726.78
    assert roll.required == pytest.approx(237_053_726.78, abs=0.005)
    assert roll.status == "pass"
    # no stock dividend: the cash share rule passes (a distribution all in cash is 100% cash)
    assert rep.rule("cash_share").status == "pass"
    assert rep.overall_status == "pass"


def test_missing_non_distribution_field_is_not_a_load_error():
    data = sample_data()
    del year_row(data, 2023)["total_assets"]
    rep = evaluate(parse_case(data))
    r = rep.rule("cond_no_major_outlay")
    assert r.status == "missing_input"
    assert any("total_assets" in m and "(2023)" in m for m in r.missing_inputs)


# ---------------------------------------------------------------------------
# files
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name, text", [
    ("bad.yaml", "policy: gcl-energy-2022-2024\nyears: [ {fiscal_year: 2023\n"),
    ("tabs.yaml", "policy: x\n\tevaluation_year: 2023\n"),
    ("bad.json", '{"policy": "gcl-energy-2022-2024", "years": [}'),
])
def test_malformed_file_is_a_case_error_not_a_traceback(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CaseError) as ei:
        load_case(path)
    probs = problems_of(ei.value)
    assert list(probs) == ["(file)"]
    assert probs["(file)"].startswith("不是有效的 YAML/JSON not valid YAML/JSON")
    assert str(path) in str(ei.value)


@pytest.mark.parametrize("text", ["", "- a\n- b\n", "just text\n"])
def test_file_that_is_not_a_mapping(tmp_path, text):
    path = tmp_path / "case.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CaseError) as ei:
        load_case(path)
    assert "expected a mapping" in str(ei.value)


def test_missing_and_undecodable_files(tmp_path):
    with pytest.raises(CaseError) as ei:
        load_case(tmp_path / "nope.yaml")
    assert "nope.yaml" in str(ei.value)
    bad = tmp_path / "gbk.yaml"
    bad.write_bytes("policy: 协鑫".encode("gbk"))
    with pytest.raises(CaseError):
        load_case(bad)


def test_sample_files_load_and_yaml_and_json_agree(tmp_path):
    case = load_case(GCL_SAMPLE)
    assert isinstance(case, Case)
    assert case.policy == GCL and case.evaluation_year == 2023
    assert sorted(case.years) == [2021, 2022, 2023]
    assert case.company["stock_code"] == "002015"
    assert case.value("agm_date", 2023) == dt.date(2024, 5, 20)
    js = tmp_path / "gcl.json"
    js.write_text(json.dumps(case.to_dict(), ensure_ascii=False), encoding="utf-8")
    again = load_case(js)
    assert again.years == case.years
    assert again.company == case.company
    assert again.attestations == case.attestations
    assert evaluate(again).to_dict() == evaluate(case).to_dict()
    assert xlmodel.load_case is load_case


def test_unquoted_invalid_date_in_yaml_is_a_case_error(tmp_path):
    text = GCL_SAMPLE.read_text(encoding="utf-8").replace("agm_date: 2024-05-20", "agm_date: 2024-13-20")
    assert "agm_date: 2024-13-20" in text
    path = tmp_path / "bad-date.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CaseError) as ei:
        load_case(path)
    assert "agm_date" in str(ei.value)


def test_unquoted_leading_zero_stock_code_message_does_not_suggest_a_wrong_code(tmp_path):
    text = GCL_SAMPLE.read_text(encoding="utf-8").replace('stock_code: "002015"', "stock_code: 002015")
    path = tmp_path / "octal.yaml"
    path.write_text(text, encoding="utf-8")
    case = load_case(path)  # YAML 1.1 reads 002015 as octal 1037: the code is its text
    assert case.company["stock_code"] == "002015"
    assert not any("001037" in w for w in case.warnings)


def test_unquoted_stock_code_without_leading_zero_in_yaml(tmp_path):
    text = GCL_SAMPLE.read_text(encoding="utf-8").replace('stock_code: "002015"', "stock_code: 2015")
    path = tmp_path / "int.yaml"
    path.write_text(text, encoding="utf-8")
    case = load_case(path)
    assert case.company["stock_code"] == "002015"
    assert any("002015" in w and "leading zeros" in w for w in case.warnings)
    path.write_text(text.replace("stock_code: 2015", "stock_code: 0x7DF"), encoding="utf-8")  # 2015 in hex
    with pytest.raises(CaseError) as ei:
        load_case(path)
    assert "0x7DF" in problems_of(ei.value)["company.stock_code"]


# ---------------------------------------------------------------------------
# every problem, even in a duplicate year; blanks in attestations
# ---------------------------------------------------------------------------

def test_values_in_a_duplicate_year_row_are_still_validated():
    data = sample_data()
    data["years"].append({"fiscal_year": 2022, "cash_dividend": "3.1亿"})
    with pytest.raises(CaseError) as ei:
        parse_case(data)
    text = str(ei.value)
    assert "years[3].fiscal_year" in text
    assert "cash_dividend" in text and "'3.1亿'" in text


@pytest.mark.parametrize("blank", [None, ""])
def test_blank_attestation_is_absent(blank):
    data = sample_data()
    data["attestations"]["board_records_kept"] = blank
    case = parse_case(data)
    assert "board_records_kept" not in case.attestations
    assert evaluate(case).rule("board_records_kept").status == "missing_input"


# ---------------------------------------------------------------------------
# attestations must be the policy's
# ---------------------------------------------------------------------------

def test_unknown_attestation_id_is_rejected_when_evaluating():
    data = sample_data()
    data["attestations"]["fund_occupaton_withheld"] = True  # typo
    data["attestations"]["no_such_rule"] = "是"
    case = parse_case(data)  # the case alone does not know the policy's rules
    with pytest.raises(CaseError) as ei:
        evaluate(case)
    probs = problems_of(ei.value)
    assert set(probs) == {"attestations.fund_occupaton_withheld", "attestations.no_such_rule"}
    for msg in probs.values():
        assert GCL in msg
        assert "fund_occupation_withheld" in msg  # the known ids are listed
    assert isinstance(ei.value, XlmodelError)


def test_attestation_ids_of_another_policy_are_rejected():
    # houpu's no_distribution_supervisory_statement is not an attestation of the GCL plan
    data = sample_data()
    data["attestations"]["no_distribution_supervisory_statement"] = True
    case = parse_case(data)
    known = model_for(load_policy(GCL)).attestation_ids()
    assert "board_records_kept" in known
    with pytest.raises(CaseError) as ei:
        check_attestations(case, known)
    assert "attestations.no_distribution_supervisory_statement" in str(ei.value)


def test_unknown_policy_is_reported_when_evaluating():
    data = sample_data()
    data["policy"] = "no-such-plan"
    case = parse_case(data)
    with pytest.raises(XlmodelError) as ei:
        evaluate(case)
    assert "no-such-plan" in str(ei.value)
