"""The 规划原文 sheet (issue 22, "Done when"): clause by clause, what the model does with the plan — computed
(计算检查, with the rules that compute it and their rows on 检查), confirmed by the user (确认事项, what and where
on 输入) or informational (说明性, with its note) — for a bundled plan, an invented one and a plan drafted by
`xlmodel draft` from its text. Each workbook is read back with openpyxl and compared with the policy itself."""

from __future__ import annotations

import re
from pathlib import Path

import openpyxl
import pytest

from conftest import cli
from xlmodel.plans.schema import Policy
from xlmodel.plans.text import plan_clauses
from xlmodel.plans.loading import load_policy, load_policy_file
from xlmodel.workbook.layout import HEADER_ROW, SHEETS
from xlmodel.workbook.writer import build_workbook

DATA = Path(__file__).parent / "data"
LABELS = {"computed": "计算检查\nComputed", "attestation": "确认事项\nAttestation", "informational": "说明性\nInformational"}


def _sheet(policy, path: Path):
    book = build_workbook(path, policy=policy)
    wb = openpyxl.load_workbook(book)
    return wb, wb[SHEETS["text"]]


def _clause_rows(ws, policy) -> dict[str, tuple]:
    """The plan's clause rows (A–E), right below the header, in the policy's order."""
    rows = list(ws.iter_rows(min_row=HEADER_ROW + 2, max_row=HEADER_ROW + 1 + len(policy.clauses), max_col=5))
    return {r[0].value: tuple(c.value for c in r) for r in rows}


def _check_row(wb, rid: str) -> int:
    (sheet, coord), = wb.defined_names[f"chk_{rid}"].destinations
    assert sheet == SHEETS["checks"]
    return int(re.sub(r"\D", "", coord))


def assert_sheet_shows_the_policy(wb, ws, policy) -> None:
    """Every clause of ``policy`` on its own row, in order: its treatment, every rule citing it (computed
    ones with their row on 检查, confirmations with their input), its text and its note."""
    rows = _clause_rows(ws, policy)
    assert list(rows) == list(policy.clauses)
    texts = plan_clauses(policy)
    for cid, entry in policy.clauses.items():
        _, label, how, text, note = rows[cid]
        how = how or ""
        assert label.startswith(LABELS[entry.treatment]), cid
        assert ("待复核 REVIEW" in label) == ("待复核" in (entry.note or "") or "待复核" in how), cid
        assert (text or "") == texts.get(cid, ""), cid
        assert (note or "") == (entry.note or ""), cid
        ids = [r.id for r in policy.rules if r.clause == cid] + list(entry.rules)
        for rid in ids:
            r = policy.rule(rid)
            if r.kind == "attestation":
                where = f"in_{r.field}" if r.field else f"att_{rid}"
                assert f"☐ 用户确认：{r.title_zh}" in how and where in how, (cid, rid)
            else:
                assert f"• {r.title_zh}（{rid}，“检查”表第{_check_row(wb, rid)}行）" in how, (cid, rid)
        if entry.treatment == "informational" and not ids:
            assert how.startswith("无可检查的内容") and entry.note, cid
        if entry.treatment == "computed" and not ids and not (policy.major_outlay and policy.major_outlay.clause == cid):
            subs = [c for c in policy.clauses if c.startswith(cid + "、")]
            assert how.startswith("由子条款的规则计算") and any(s in how for s in subs), cid
    counts = {k: sum(e.treatment == k for e in policy.clauses.values()) for k in LABELS}
    legend = ws.cell(4, 1).value
    assert f"本规划 {len(policy.clauses)} 条：计算检查 {counts['computed']} 条、确认事项 {counts['attestation']} 条、" \
           f"说明性 {counts['informational']} 条" in legend


def test_a_drafted_plan_shows_how_each_clause_is_treated(tmp_path, capsys):
    text = tmp_path / "typical-plan.txt"
    text.write_bytes((DATA / "draft" / "typical-plan.txt").read_bytes())
    out = tmp_path / "demo-2025-2027.yaml"
    code, _, _ = cli(capsys, "draft", text, "-o", out, "--stock-code", "600000")
    assert code == 0
    policy = load_policy_file(out)
    wb, ws = _sheet(policy, tmp_path / "drafted.xlsx")
    assert_sheet_shows_the_policy(wb, ws, policy)
    rows = _clause_rows(ws, policy)
    # the three kinds, each as the reader of the workbook needs it
    assert rows["二、(二)、2"][1] == "计算检查\nComputed" and "cond_audit_opinion" in rows["二、(二)、2"][2]
    assert rows["三、2"][1] == "确认事项\nAttestation" and "att_minority_consulted" in rows["三、2"][2]
    assert rows["四"][1] == "说明性\nInformational" and rows["四"][4]
    # a heading computed through its sub-clauses says so; the drafter's open question is flagged
    assert rows["二、(二)"][2].startswith("由子条款的规则计算 via its sub-clauses: 二、(二)、1")
    assert rows["二、(五)"][1].endswith("待复核 REVIEW")
    # the major-outlay definition: its clause and the sub-clauses its tests are worded in
    mo = policy.major_outlay.clause
    assert rows[mo][2].startswith("重大投资计划或重大现金支出的认定：按规划公式计算")
    subs = [c for c in rows if c.startswith(mo + "、")]
    assert subs and all(f"属于 {mo} 的重大支出认定" in rows[c][2] for c in subs)
    # the drafter marks the sub-clauses holding the definition's tests computed, by the condition that reads them
    assert all(rows[c][1] == "计算检查\nComputed" and "（cond_no_major_outlay，" in rows[c][2] for c in subs)


@pytest.mark.parametrize("ref", ["gcl-energy-2022-2024", "far-east-2022-2024", DATA / "eighth_plan" / "demo8-2025-2027.yaml"])
def test_the_sheet_shows_every_clause_of_a_plan(ref, tmp_path):
    policy = load_policy(ref)
    wb, ws = _sheet(policy, tmp_path / "plan.xlsx")
    assert_sheet_shows_the_policy(wb, ws, policy)


def test_the_baseline_clauses_are_treated_the_same_way(tmp_path):
    policy = load_policy("houpu-2024-2026")
    wb, ws = _sheet(policy, tmp_path / "houpu.xlsx")
    from xlmodel.plans.loading import load_baseline

    base = load_baseline(policy.settings.regulatory_baseline)
    rows = {r[0].value: tuple(c.value for c in r) for r in ws.iter_rows(min_row=HEADER_ROW + 2, max_col=5)}
    for cid, entry in base.clauses.items():
        _, label, how, _, _ = rows[cid]
        assert label.startswith(LABELS[entry.treatment]), cid
        for r in (x for x in base.rules if x.clause == cid):
            assert (f"☐ 用户确认：{r.title_zh}" if r.kind == "attestation" else f"• {r.title_zh}（{r.id}，") in how, r.id


def test_text_of_a_plan_never_becomes_a_formula(tmp_path):
    data = {"id": "mini-2025-2027", "version": "0", "title_zh": "测试", "title_en": "test", "plan_years": [2025, 2027],
            "settings": {"regulatory_baseline": None},
            "clauses": {"一": {"treatment": "computed", "note": '=HYPERLINK("http://example.invalid","x")'},
                        "二": {"treatment": "attestation"},
                        "三": {"treatment": "informational", "note": "+1+1"}},
            "rules": [{"id": "m", "kind": "positive", "measure": "net_profit_attributable", "clause": "一",
                       "quote": "测试条款原文", "title_zh": "=1+1", "title_en": "@SUM(A1)"},
                      {"id": "a", "kind": "attestation", "clause": "二", "quote": "测试条款原文", "title_zh": "-2+3",
                       "title_en": "=cmd|' /c calc'!A0"}]}
    policy = Policy.model_validate(data)
    path = build_workbook(tmp_path / "mini.xlsx", policy=policy)
    ws = openpyxl.load_workbook(path)[SHEETS["text"]]
    cells = [c for row in ws.iter_rows() for c in row if c.value is not None]
    assert all(c.data_type == "s" for c in cells), [(c.coordinate, c.value) for c in cells if c.data_type != "s"]
    values = [c.value for c in cells]
    assert '=HYPERLINK("http://example.invalid","x")' in values and "+1+1" in values
    assert any("=1+1" in v for v in values) and any("=cmd|' /c calc'!A0" in v for v in values)
    assert not ws._hyperlinks
