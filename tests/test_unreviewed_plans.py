"""A drafted plan with open review items (待复核) is an unreviewed draft, never a plan that passes (issue 46, part 1).

``policies check`` lists each open item as an error, ``policies install`` refuses the plan, and a case
evaluated under it is never a bare 通过: every face (the report, its JSON, the batch, the workbook's cover,
``check``, the worksheet functions) says the plan is an unreviewed draft and the exit code is 1, while the
figures are those of the same plan reviewed. The plan here is the GCL template under another id with one
clause note marked 待复核, so its figures are the GCL sample's (tests/test_custom_plans.py).
"""

from __future__ import annotations

import csv
import json

import openpyxl
import pytest
import yaml

from conftest import cli
from test_custom_plans import GCL, GCL_MIN_CASH, _udf_args, clean, write_case, write_plan
from xlmodel import udfs
from xlmodel.case import load_case
from xlmodel.batch.evaluate import evaluate_batch
from xlmodel.batch.table import read_table
from xlmodel.draft import draft_text
from xlmodel.evaluator import attestation_ids, model_for
from xlmodel.plans.schema import open_reviews
from xlmodel.plans.loading import load_policy_file
from xlmodel.report import UNREVIEWED

DRAFT = "acme-draft-2022-2024"
CLAUSE = "三、(二)、1、(1)"  # the GCL plan's cash conditions (its first rule's clause)
ITEM = "待复核 REVIEW: 条件未识别 condition not recognised: “现金流充裕”"


pytestmark = pytest.mark.usefixtures("isolated_config")


def _mark(data):
    assert CLAUSE in data["clauses"]
    data["clauses"][CLAUSE]["note"] = ITEM


def draft_plan(folder):
    return write_plan(folder, DRAFT, mutate=_mark)


def settle(path, word="已复核"):
    """The reader settles the item in the file: the 待复核 mark replaced (the note kept as a record)."""
    path.write_text(path.read_text(encoding="utf-8").replace("待复核", word), encoding="utf-8")


def test_open_review_items_are_found_in_notes_and_in_review(tmp_path):
    p = load_policy_file(draft_plan(tmp_path / "plans"))
    assert open_reviews(p) == [(f"clauses[{CLAUSE}].note", ITEM)]
    settle(tmp_path / "plans" / f"{DRAFT}.yaml")
    assert open_reviews(load_policy_file(tmp_path / "plans" / f"{DRAFT}.yaml")) == []


def test_policies_check_lists_open_items_and_install_refuses_them_until_settled(tmp_path, capsys):
    src = draft_plan(tmp_path / "src")
    code, out, err = cli(capsys, "policies", "check", src)
    assert code == 2 and f"clauses[{CLAUSE}].note" in err and "未复核" in err and "条件未识别" in err, err
    clean(err)
    code, out, err = cli(capsys, "policies", "install", src)
    assert code == 2 and f"clauses[{CLAUSE}].note" in err, err
    assert not (tmp_path / "config" / "plans" / f"{DRAFT}.yaml").exists()
    settle(src)  # 已复核: explicitly settled in the file
    assert cli(capsys, "policies", "check", src)[0] == 0
    assert cli(capsys, "policies", "install", src)[0] == 0


def test_a_rule_note_marked_for_review_is_an_open_item_too(tmp_path, capsys):
    def mark_rule(data):
        data["rules"][0]["note"] = "待复核 REVIEW: “或”：按孰低起草"
    src = write_plan(tmp_path / "src", DRAFT, mutate=mark_rule)
    code, _, err = cli(capsys, "policies", "check", src)
    assert code == 2 and "rules[" in err and "].note" in err, err


def test_a_case_under_an_unreviewed_draft_is_never_a_bare_pass(tmp_path, capsys):
    plans = tmp_path / "plans"
    draft_plan(plans)
    case = write_case(tmp_path, DRAFT)
    code, out, err = cli(capsys, "--plans", plans, "evaluate", case)
    assert code == 1, err  # all rules pass (the GCL sample), yet not compliant: the plan is a draft
    lines = out.splitlines()
    assert lines[0].startswith("⚠ 规划为未复核的草稿（1 项待复核）")
    overall = next(ln for ln in lines if ln.startswith("总体结论 Overall:"))
    assert "通过 pass" in overall and "未复核草稿" in out[out.index(overall):out.index(overall) + 200]
    code, out, err = cli(capsys, "--plans", plans, "evaluate", case, "--json")
    assert code == 1
    [rep] = json.loads(out)
    assert rep["plan_reviewed"] is False and rep["open_reviews"] == [f"clauses[{CLAUSE}].note: {ITEM}"]
    assert rep["overall_status"] == "pass" and rep["min_cash_dividend"] == GCL_MIN_CASH  # the figures still shown
    keys = list(rep)  # a reader of the JSON meets the draft beside the status, not after the rules
    assert keys[keys.index("overall_status") + 1] == "plan_reviewed"
    settle(plans / f"{DRAFT}.yaml")
    code, out, err = cli(capsys, "--plans", plans, "evaluate", case, "--json")
    assert code == 0 and json.loads(out)[0]["plan_reviewed"] is True


def test_a_batch_under_an_unreviewed_draft_warns_and_exits_1(tmp_path, capsys):
    plans = tmp_path / "plans"
    draft_plan(plans)
    rows = list(csv.reader((_samples() / "company_years.csv").open(encoding="utf-8")))
    keep = [i for i, c in enumerate(rows[0]) if not c.startswith("attest_")]
    batch = tmp_path / "batch.csv"
    with batch.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow([rows[0][i] for i in keep])
        for r in rows[1:]:
            if r[0] == GCL:
                w.writerow([DRAFT] + [r[i] for i in keep[1:]])
    for out in (tmp_path / "out.csv", tmp_path / "out.xlsx"):
        code, _, err = cli(capsys, "--plans", plans, "evaluate", "--batch", batch, "-o", out)
        assert code == 1 and f"规划 {DRAFT} 为未复核的草稿（1 项待复核）" in err, err
    summary = [c.value for ws in openpyxl.load_workbook(tmp_path / "out.xlsx").worksheets for row in ws.iter_rows()
               for c in row if isinstance(c.value, str)]
    assert any("未复核的草稿" in v for v in summary)


def _samples():
    from test_custom_plans import ROOT

    return ROOT / "samples"


def test_the_workbook_cover_check_and_worksheet_functions_say_so(tmp_path, capsys, monkeypatch):
    plans = tmp_path / "plans"
    draft_plan(plans)
    case = write_case(tmp_path, DRAFT)
    book = tmp_path / "draft.xlsx"
    code, _, err = cli(capsys, "--plans", plans, "build", case, "-o", book)
    assert code == 0, err
    cover = openpyxl.load_workbook(book).worksheets[0]
    labels = {row[1].value: row[2].value for row in cover.iter_rows(min_row=1, max_row=20) if len(row) > 2}
    assert labels["规划复核 Plan review"].startswith("⚠ 未复核的草稿（1 项待复核）")
    code, out, err = cli(capsys, "--plans", plans, "check", book, "--json")
    assert code == 1
    [obj] = json.loads(out)
    assert obj["integrity"]["plan_reviewed"] is False and obj["integrity"]["trusted"] is False
    assert obj["min_cash_dividend"] == GCL_MIN_CASH
    code, out, _ = cli(capsys, "--plans", plans, "check", book)
    assert code == 1 and out.startswith("⚠ 规划为未复核的草稿")
    monkeypatch.setenv("XLMODEL_PLANS", str(plans))  # Excel has no --plans
    udfs.clear_caches()
    c = load_case(case)
    status = udfs.XLM_OVERALL_STATUS(*_udf_args(c))
    assert status.startswith("通过") and "未复核草稿" in status
    assert udfs.XLM_MIN_CASH(*_udf_args(c)) == pytest.approx(GCL_MIN_CASH, abs=0.001)


def test_a_reviewed_plan_shows_no_draft_note(tmp_path, capsys):
    code, out, err = cli(capsys, "evaluate", _samples() / f"{GCL}.yaml")
    assert code == 0 and "未复核" not in out and not out.startswith("⚠")


def test_a_drafts_review_items_of_no_clause_are_kept_in_its_data(tmp_path, capsys):
    text = ("一、利润分配原则\n公司实行持续、稳定的利润分配政策。\n二、现金分红\n"
            "公司每年以现金方式分配的利润不少于当年实现的可分配利润的10%。\n")
    d = draft_text(text)  # no plan years in the text: drafted from this year, a review item of no clause
    assert [w for w, _ in d.reviews] == ["plan_years"]
    assert len(d.policy["review"]) == 1 and d.policy["review"][0].startswith("待复核 REVIEW plan_years:")
    src = tmp_path / "plan.txt"
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "demo.yaml"
    assert cli(capsys, "draft", src, "-o", out)[0] == 0
    assert yaml.safe_load(out.read_text(encoding="utf-8"))["review"] == d.policy["review"]
    code, _, err = cli(capsys, "policies", "check", out)
    assert code == 2 and "review[0]" in err and "plan_years" in err, err



# ---- the batch's rows and the worksheet functions (46.1) ------------------------------------------

def _two_company_batch(tmp_path, plans):
    """The GCL sample's three years (2021–2023) under the draft's id, for 002015 and for a second company of
    the same figures (002016), with the plan's own attestation columns: ``--year 2023`` shows two rows, and
    each passes (the GCL sample's 2023 row does: every input given, its two years before read as history)."""
    rows = list(csv.reader((_samples() / "company_years.csv").open(encoding="utf-8")))
    known = {f"attest_{a}" for a in attestation_ids(model_for(load_policy_file(plans / f"{DRAFT}.yaml")))}
    keep = [i for i, c in enumerate(rows[0]) if not c.startswith("attest_") or c in known]
    code, name = rows[0].index("stock_code"), rows[0].index("company_name")
    batch = tmp_path / "two.csv"
    with batch.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow([rows[0][i] for i in keep])
        for other in (False, True):
            for r in (r for r in rows[1:] if r[0] == GCL):
                r = [DRAFT] + r[1:]
                if other:
                    r[code], r[name] = "002016", "乙能源科技股份有限公司"
                w.writerow([r[i] for i in keep])
    return batch


def _results(tmp_path, capsys, plans, batch, suffix, code_expected):
    out = tmp_path / f"out{suffix}"
    out.unlink(missing_ok=True)
    code, _, err = cli(capsys, "--plans", plans, "evaluate", "--batch", batch, "--year", 2023, "-o", out)
    assert code == code_expected, err
    return out


def _xlsx_columns(path):
    """The 结果 sheet as {column id: [values of its rows]} (row 2 holds the ids) and the 汇总 sheet's texts."""
    wb = openpyxl.load_workbook(path)
    res = list(wb["结果"].iter_rows(values_only=True))
    cols = {cid: [r[j] for r in res[2:]] for j, cid in enumerate(res[1])}
    summary = [v for row in wb["汇总"].iter_rows(values_only=True) for v in row if isinstance(v, str)]
    return list(res[1]), cols, summary


def test_a_batchs_rows_under_an_unreviewed_draft_carry_the_mark_in_csv_and_xlsx(tmp_path, capsys):
    plans = tmp_path / "plans"
    draft_plan(plans)
    batch = _two_company_batch(tmp_path, plans)
    with _results(tmp_path, capsys, plans, batch, ".csv", 1).open(encoding="utf-8-sig") as f:
        got = list(csv.DictReader(f))
    assert [(r["stock_code"], r["overall_status"], r["plan_reviewed"]) for r in got] == \
        [("002015", "pass", "False"), ("002016", "pass", "False")]  # the figures pass; the plan is a draft
    head = list(got[0])
    assert head[head.index("overall_status") + 1] == "plan_reviewed"
    ids, cols, summary = _xlsx_columns(_results(tmp_path, capsys, plans, batch, ".xlsx", 1))
    assert ids[ids.index("overall_status") + 1] == "plan_reviewed"
    assert cols["overall_status"] == [f"通过{UNREVIEWED}"] * 2  # never a bare 通过 (nor its green)
    assert cols["plan_reviewed"] == ["否", "否"]
    assert "其中 2 个公司年度按未复核的草稿评估（plan_reviewed 为“否”），不构成合规结论" in " ".join(summary)
    settle(plans / f"{DRAFT}.yaml")
    with _results(tmp_path, capsys, plans, batch, ".csv", 0).open(encoding="utf-8-sig") as f:
        got = list(csv.DictReader(f))
    assert [(r["overall_status"], r["plan_reviewed"]) for r in got] == [("pass", "True")] * 2
    _, cols, summary = _xlsx_columns(_results(tmp_path, capsys, plans, batch, ".xlsx", 0))
    assert cols["overall_status"] == ["通过", "通过"] and cols["plan_reviewed"] == ["是", "是"]
    assert not any("未复核" in v for v in summary)


def test_a_baseline_only_screen_has_the_column_and_it_is_true():
    """The column is there in every batch (the table's shape never depends on the plan); the baseline is no draft."""
    df = read_table(_samples() / "company_years.csv")
    out = evaluate_batch(df.drop(columns=["policy", *[c for c in df.columns if c.startswith("attest_")]]))
    cols = list(out.columns)
    assert cols[cols.index("overall_status") + 1] == "plan_reviewed" and out["plan_reviewed"].tolist() == [True] * 9
    assert out.attrs["columns"]["plan_reviewed"]["zh"] == "规划已复核"


def test_the_worksheet_functions_mark_every_status_under_a_draft_and_none_once_settled(tmp_path, monkeypatch):
    plans = tmp_path / "plans"
    draft_plan(plans)
    monkeypatch.setenv("XLMODEL_PLANS", str(plans))  # Excel has no --plans
    args = _udf_args(load_case(write_case(tmp_path, DRAFT)))
    udfs.clear_caches()
    table, path = udfs.XLM_EVALUATE(*args), udfs.XLM_PLAN(*args)
    rule = table[1][0]
    status_of_rule = udfs.XLM_RULE_STATUS(rule, *args)
    statuses = [r[2] for r in table[1:]]
    assert statuses and all(s.endswith(UNREVIEWED) for s in statuses), statuses
    assert f"通过{UNREVIEWED}" in statuses and "通过" not in statuses
    assert status_of_rule == statuses[0]
    assert [r[-1] for r in path[1:]] and all(r[-1].endswith(UNREVIEWED) for r in path[1:]), path
    settle(plans / f"{DRAFT}.yaml")
    udfs.clear_caches()
    settled, settled_path = udfs.XLM_EVALUATE(*args), udfs.XLM_PLAN(*args)
    assert not any(UNREVIEWED in str(c) for r in settled + settled_path for c in r)
    # the same table otherwise: only the mark differs, the figures are the reviewed plan's
    assert [[c.removesuffix(UNREVIEWED) if isinstance(c, str) else c for c in r] for r in table] == settled
    assert [[c.removesuffix(UNREVIEWED) if isinstance(c, str) else c for c in r] for r in path] == settled_path
    assert udfs.XLM_RULE_STATUS(rule, *args) == settled[1][2]
