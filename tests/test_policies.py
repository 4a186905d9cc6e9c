"""The three policy files against their plan texts and DOMAIN.md §2."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from xlmodel import plantext
from xlmodel.catalogue import compile_policy
from xlmodel.errors import PolicyError
from xlmodel.policy import TEMPLATES, list_policies, load_policy, load_policy_file

IDS = ("far-east-2022-2024", "gcl-energy-2022-2024", "houpu-2024-2026")
SHARED = Path(__file__).resolve().parents[2] / "shared" / "policy-texts"
SOURCE_FILES = {"far-east-2022-2024": "000_5067863a4f5fe13b.txt", "gcl-energy-2022-2024": "001_d3d48a42de735c28.txt",
                "houpu-2024-2026": "004_0bde842b4a8684a6.txt"}
# a line that opens a numbered clause, in any of the four numbering styles the plans use
HEADING = re.compile(r"^\s*([一二三四五六七八九十]+、|[（(][一二三四五六七八九十]+[）)]|\d{1,2}、|[（(]\d{1,2}[）)])")


def test_the_three_policies_are_listed():
    assert [p.id for p in list_policies()] == list(IDS)


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
    listed = [c for c in p.clauses if c != plantext.PREAMBLE]
    assert len(headings) == len(listed)
    # each listed clause's own marker opens one of those lines, in order
    for line, cid in zip(headings, listed):
        last = cid.split("、")[-1].strip("()")
        assert last in HEADING.match(line).group(1), (cid, line)
    assert all(e.treatment in ("computed", "attestation", "informational") for e in p.clauses.values())


@pytest.mark.parametrize("pid", IDS)
def test_every_rule_quotes_its_clause(pid):
    p = load_policy(pid)
    clauses = plantext.parse((TEMPLATES / p.text).read_text(encoding="utf-8"))
    for r in p.rules:
        section = plantext.normalise(plantext.section_text(clauses, r.clause))
        assert plantext.normalise(r.quote) in section, r.id
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
