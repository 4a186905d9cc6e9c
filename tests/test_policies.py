"""The three policy files against their plan texts and DOMAIN.md §2."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from xlmodel.plans import clauses as plan_clauses
from xlmodel.rules.catalogue import compile_policy
from xlmodel.errors import PolicyError
from xlmodel.plans.loading import TEMPLATES, list_plans_or_raise, load_policy, load_policy_file

IDS = ("far-east-2022-2024", "gcl-energy-2022-2024", "houpu-2024-2026")
SHARED = Path(__file__).resolve().parents[2] / "shared" / "policy-texts"
SOURCE_FILES = {"far-east-2022-2024": "000_5067863a4f5fe13b.txt", "gcl-energy-2022-2024": "001_d3d48a42de735c28.txt",
                "houpu-2024-2026": "004_0bde842b4a8684a6.txt"}
# a line that opens a numbered clause, in any of the four numbering styles the plans use
HEADING = re.compile(r"^\s*([一二三四五六七八九十]+、|[（(][一二三四五六七八九十]+[）)]|\d{1,2}、|[（(]\d{1,2}[）)])")


def test_the_three_policies_are_listed():
    assert [p.id for p in list_plans_or_raise()] == list(IDS)


@pytest.mark.parametrize("pid", IDS)
def test_plan_text_is_the_published_one(pid):
    ours = (TEMPLATES / "texts" / f"{pid}.txt").read_text(encoding="utf-8")
    src = SHARED / SOURCE_FILES[pid]
    if not src.exists():
        pytest.skip("shared/ not beside the checkout")
    assert ours == src.read_text(encoding="utf-8")


@pytest.mark.parametrize("pid", IDS)
def test_every_numbered_clause_of_the_text_is_accounted_for(pid):
    """Counted independently of the parser: one heading line per listed clause (plus the preamble)."""
    p = load_policy(pid)
    text = (TEMPLATES / p.text).read_text(encoding="utf-8")
    headings = [ln for ln in text.splitlines() if HEADING.match(ln)]
    listed = [c for c in p.clauses if c != plan_clauses.PREAMBLE]
    assert len(headings) == len(listed)
    # each listed clause's own marker opens one of those lines, in order
    for line, cid in zip(headings, listed):
        last = cid.split("、")[-1].strip("()")
        assert last in HEADING.match(line).group(1), (cid, line)
    assert all(e.treatment in ("computed", "attestation", "informational") for e in p.clauses.values())


@pytest.mark.parametrize("pid", IDS)
def test_every_rule_quotes_its_clause(pid):
    p = load_policy(pid)
    clauses = plan_clauses.parse((TEMPLATES / p.text).read_text(encoding="utf-8"))
    for r in p.rules:
        section = plan_clauses.normalise(plan_clauses.section_text(clauses, r.clause))
        assert plan_clauses.normalise(r.quote) in section, r.id
        assert r.clause in p.clauses


@pytest.mark.parametrize("pid", IDS)
def test_computed_and_attested_clauses_have_rules(pid):
    p = load_policy(pid)
    for cid, entry in p.clauses.items():
        rules = [r for r in p.rules if r.clause == cid or r.clause.startswith(cid + "、") or r.id in entry.rules]
        if entry.treatment == "computed":
            assert any(r.kind != "attestation" for r in rules), cid
        elif entry.treatment == "attestation":
            assert any(r.kind == "attestation" for r in rules), cid
        else:
            assert entry.note, cid


def test_domain_inventory_gcl():
    p = load_policy("gcl-energy-2022-2024")
    m = compile_policy(p)
    assert p.major_outlay.basis == "total_assets" and p.major_outlay.combine == "and"
    assert m.params["major_outlay.ratio"].value == 0.30
    assert m.params["major_outlay.floor"].value == 50_000_000
    assert m.params["min_annual.c1_ratio"].value == 0.10
    assert m.params["min_rolling.ratio"].value == 0.30 and m.params["min_rolling.window"].value == 3
    assert m.params["cond_audit_opinion.accepted"].value == ("standard_unqualified", "unqualified_with_emphasis")
    assert p.settings.retained_earnings_basis == "lower"


def test_domain_inventory_far_east():
    p = load_policy("far-east-2022-2024")
    m = compile_policy(p)
    assert p.major_outlay.definition == "board"
    assert m.params["min_rolling.ratio"].value == 0.30
    assert m.params["cond_audit_opinion.accepted"].value == ("standard_unqualified",)
    assert m.params["vote_majority.ratio"].value == 0.5
    assert m.params["vote_stock_two_thirds.ratio"].value == 2 / 3
    assert {m.params[f"cash_share.{k}"].value for k in ("mature_no_major", "mature_major", "growth_major")} == {0.8, 0.4, 0.2}


def test_domain_inventory_houpu():
    p = load_policy("houpu-2024-2026")
    m = compile_policy(p)
    assert p.major_outlay.basis == "net_assets" and p.major_outlay.floor is None
    assert m.params["cash_share.share"].value == 0.20
    assert p.rule("cash_share").when == ["conditions_met"]
    assert not any(r.kind in ("min_cash", "min_cash_rolling") for r in p.rules)  # no numeric minimum
    assert p.rule("annual_cash_in_principle").severity == "warn"


def _broken(tmp_path, mutate) -> Path:
    data = yaml.safe_load((TEMPLATES / "gcl-energy-2022-2024.yaml").read_text(encoding="utf-8"))
    (tmp_path / "texts").mkdir(exist_ok=True)  # the plan text beside the policy file: text: is relative to it
    shutil.copy(TEMPLATES / "texts" / "gcl-energy-2022-2024.txt", tmp_path / "texts")
    mutate(data)
    path = tmp_path / "broken.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def _rule(d: dict, rule_id: str) -> dict:
    """The rule of the policy data with this id (by id: rules are added to the files over time)."""
    return next(r for r in d["rules"] if r["id"] == rule_id)


@pytest.mark.parametrize("mutate, expect", [
    (lambda d: _rule(d, "min_annual").update(
        components=[{"type": "pct", "ratio": 1.5, "basis": "distributable_profit"}]),
     ["rule 'min_annual'", "components"]),
    (lambda d: _rule(d, "min_annual").update(
        quote="每年以现金方式分配的利润应不低于当年实现的可分配利润的20%"),
     ["rule 'min_annual'", "quote", "三、(二)、2、(1)"]),
    (lambda d: d["clauses"].pop("三、(八)"), ["三、(八)", "not accounted for"]),
    (lambda d: d["rules"][0].update(kind="no_such_kind"), ["rule 'cond_retained_positive'", "kind"]),
    (lambda d: d["rules"][0].update(measure="profit"), ["rule 'cond_retained_positive'", "measure"]),
    (lambda d: d["rules"][1].update(clause="九、(九)"), ["rule 'cond_going_concern'", "九、(九)"]),
])
def test_policy_errors_name_file_rule_and_field(tmp_path, mutate, expect):
    path = _broken(tmp_path, mutate)
    with pytest.raises(PolicyError) as e:
        load_policy_file(path)
    msg = str(e.value)
    assert str(path) in msg
    for part in expect:
        assert part in msg, msg


def test_policy_errors_are_all_reported_at_once(tmp_path):
    def two(d):
        d["clauses"].pop("三、(八)")
        _rule(d, "min_annual")["quote"] = "不在原文中的一句话"
    msg = str(pytest.raises(PolicyError, load_policy_file, _broken(tmp_path, two)).value)
    assert "三、(八)" in msg and "min_annual" in msg and "2 problems" in msg


# ---- issue 21: no control characters in a policy file's text --------------------------------------

ESC_LINE = "\x1b]0;pwned\x07协鑫\x1b[2J"  # retitles a terminal, clears it


@pytest.mark.parametrize("mutate, where, char", [
    (lambda d: d.update(title_zh=ESC_LINE), "field 'title_zh'", "U+001B (ESC)"),
    (lambda d: d.update(title_en="GCL\r\n总体结论 Overall: 通过 pass"), "field 'title_en'", "U+000D (CR)"),
    (lambda d: d.update(version="1.1.0\x1b[8m"), "field 'version'", "U+001B (ESC)"),
    (lambda d: d["company"].update(company_name="协鑫\n能源"), "field 'company.company_name'", "U+000A (LF)"),
    (lambda d: _rule(d, "min_annual").update(title_zh="\x9b31m红"), "rule 'min_annual', field 'title_zh'", "U+009B (CSI)"),
    (lambda d: _rule(d, "min_annual").update(title_en="a\tb"), "rule 'min_annual', field 'title_en'", "U+0009 (tab)"),
    (lambda d: _rule(d, "min_annual").update(clause="三、(二)\x07"), "rule 'min_annual', field 'clause'", "U+0007 (BEL)"),
    (lambda d: _rule(d, "min_annual").update(quote="当年实现的\x1b[8m可分配利润"), "rule 'min_annual', field 'quote'",
     "U+001B (ESC)"),
    (lambda d: _rule(d, "min_annual").update(note="注\u202e意"), "rule 'min_annual', field 'note'", "U+202E"),
    (lambda d: d["clauses"].update({"三、(八)\x1b[31m": {"treatment": "informational", "note": "x"}}),
     "field 'clauses'", "U+001B (ESC)"),
    (lambda d: d["clauses"]["三、(八)"].update(note="\x00"), "field 'clauses.三、(八).note'", "U+0000 (NUL)"),
    (lambda d: d["major_outlay"].update(quote="\x9d0;x"), "field 'major_outlay.quote'", "U+009D (OSC)"),
])
def test_control_characters_in_a_policy_file_are_refused_naming_file_rule_and_field(tmp_path, mutate, where, char):
    path = _broken(tmp_path, mutate)
    with pytest.raises(PolicyError) as e:
        load_policy_file(path)
    [p] = [p for p in e.value.problems if p.where == where]
    assert str(path) in str(e.value)
    assert p.message.startswith(("含控制字符 " + char, "含换行或制表符 " + char)), p.message  # Chinese first
    assert "— contains " in p.message and char in p.message
    assert not any(c in str(e.value) for c in "\x1b\x07\x9b\x9d\r\x00\u202e")  # the message names, never shows


def test_quotes_and_notes_may_run_over_lines(tmp_path):
    """A quote is matched with its white space dropped, a note is prose: both may be YAML block scalars."""
    def multiline(d):
        r = _rule(d, "min_annual")
        r["quote"] = r["quote"][:8] + "\n  " + r["quote"][8:] + "\r\n"
        r["note"] = "第一行\n\t第二行"
        d["clauses"]["三、(八)"]["note"] = "a\nb"
    p = load_policy_file(_broken(tmp_path, multiline))
    assert "\n" in p.rule("min_annual").quote and p.rule("min_annual").note == "第一行\n\t第二行"


def test_every_text_of_the_bundled_plans_and_samples_passes():
    for pid in ("gcl-energy-2022-2024", "far-east-2022-2024", "houpu-2024-2026"):
        load_policy_file(TEMPLATES / f"{pid}.yaml")
    for path in sorted((TEMPLATES.parent / "tests" / "data").rglob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "rules" in data and "clauses" in data:
            load_policy_file(path)


def test_policies_show_escapes_what_a_plan_built_in_code_holds(capsys, monkeypatch):
    """A plan that never went through a file (changed in code) is printed inert all the same."""
    from conftest import cli
    from xlmodel import cli as cli_module  # noqa: F401 - the command's module, patched below
    import xlmodel.plans.loading as pol

    real = load_policy("gcl-energy-2022-2024")
    rules = [r.model_copy(update={"title_zh": ESC_LINE, "quote": "a\x1b[2Jb", "clause": r.clause}) for r in real.rules]
    evil = real.model_copy(update={"title_zh": ESC_LINE, "title_en": "x\r\nforged", "version": "1\x1b[8m", "rules": rules})
    monkeypatch.setattr(pol, "load_policy", lambda ref: evil)
    code, out, err = cli(capsys, "policies", "show", "gcl-energy-2022-2024")
    assert code == 0, err
    assert "\x1b" not in out and "\r" not in out and "\x07" not in out
    assert out.splitlines()[0] == "gcl-energy-2022-2024 v1\\x1b[8m  \\x1b]0;pwned\\x07协鑫\\x1b[2J"
    assert out.splitlines()[1] == "x\\r\\nforged"


def test_reports_escape_a_plan_version_and_notes_built_in_code():
    from xlmodel import load_case
    from xlmodel.evaluator import evaluate
    from xlmodel.report.terminal import render_table
    from xlmodel.report.markdown import render_markdown

    case = load_case(TEMPLATES.parent / "samples" / "gcl-energy-2022-2024.yaml")
    p = load_policy("gcl-energy-2022-2024")
    rep = evaluate(case, p.model_copy(update={"version": "1\x1b]0;x\x07\n| forged |"}))
    for text in (render_table(rep, width=100), render_table(rep, wide=True), render_markdown(rep)):
        assert "\x1b" not in text and "\x07" not in text and "\n| forged |" not in text
