"""Custom plans are first-class (issue 12, part 2; docs/reference.md "Your own plan in three steps").

A custom plan — a copy of the GCL template with another id, written to a temporary folder,
never into ``templates/`` — goes through ``policies``, ``policies check``, ``policies install``,
``evaluate`` of a case naming it, ``build``, ``check``, ``refresh`` and a worksheet function.
Because its rules are GCL's, every figure it gives must be the GCL sample's (FY2023: minimum cash
85,509,212.89 元, worked out by hand in tests/test_cli.py). Hostile plan folders (a symbolic link
out, a FIFO, a huge file, a duplicate id, ``text: ../../etc/passwd``) end in exit 2 with a message
naming the file, never a traceback.

Every test runs with its own empty user plan folder (``XLMODEL_CONFIG_HOME``) and no
``XLMODEL_PLANS``.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import zipfile
import zlib
from pathlib import Path

import openpyxl
import pytest
import yaml

from conftest import cli
from xlmodel import udfs
from xlmodel.case import load_case
from xlmodel.errors import PolicyError, UnknownPolicyError, XlmodelError
from xlmodel.evaluator import evaluate
from xlmodel.plans.folders import user_plan_dir
from xlmodel.plans.text import PlanTextError, plan_clauses, policy_source, read_plan_text, text_ref_problem
from xlmodel.plans.loading import load_policy, plan_directories, load_plan_by_id
from xlmodel.workbook import embed
from xlmodel.workbook.layout import SHEETS

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "templates"
GCL = "gcl-energy-2022-2024"
ACME = "acme-energy-2022-2024"
#: the GCL template's version (the acme plan is a copy of it)
V = re.search(r'^version: "([^"]+)"', (TEMPLATES / f"{GCL}.yaml").read_text(encoding="utf-8"), re.M).group(1)
GCL_SAMPLE = ROOT / "samples" / f"{GCL}.yaml"
GCL_MIN_CASH = 85_509_212.89  # tests/test_cli.py: 10% × 855,092,128.94, rounded to the fen
SECRET = "root:x:0:0:do-not-show"


pytestmark = pytest.mark.usefixtures("isolated_config")


def write_plan(folder: Path, pid: str = ACME, mutate=None, text: str | None = None) -> Path:
    """The GCL template as plan ``pid`` in ``folder`` (``<pid>.yaml``), its text as ``texts/<pid>.txt``.

    ``mutate(data)`` edits the policy's data (then the file is written by yaml.safe_dump);
    ``text`` replaces the plan text."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "texts").mkdir(exist_ok=True)
    (folder / "texts" / f"{pid}.txt").write_text(
        text if text is not None else (TEMPLATES / "texts" / f"{GCL}.txt").read_text(encoding="utf-8"), encoding="utf-8")
    src = (TEMPLATES / f"{GCL}.yaml").read_text(encoding="utf-8")
    src = src.replace(f"id: {GCL}", f"id: {pid}", 1).replace(f"text: texts/{GCL}.txt", f"text: texts/{pid}.txt", 1)
    assert f"id: {pid}" in src and f"text: texts/{pid}.txt" in src
    path = folder / f"{pid}.yaml"
    if mutate is None:
        path.write_text(src, encoding="utf-8")
    else:
        data = yaml.safe_load(src)
        mutate(data)
        path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def write_case(folder: Path, pid: str = ACME) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = GCL_SAMPLE.read_text(encoding="utf-8")
    assert f"policy: {GCL}\n" in text
    path = folder / f"{pid}-case.yaml"
    path.write_text(text.replace(f"policy: {GCL}\n", f"policy: {pid}\n"), encoding="utf-8")
    return path


def clean(err: str) -> None:
    assert "Traceback" not in err and 'File "' not in err, err
    assert SECRET not in err


def props_of(book: Path) -> dict[str, str]:
    wb = openpyxl.load_workbook(book)
    return {p.name: str(p.value) for p in wb.custom_doc_props}


def set_props(book: Path, out: Path, edit) -> Path:
    """A copy of ``book`` whose custom properties are ``edit(dict)``'s result (the rest unchanged)."""
    from xml.sax.saxutils import escape

    props = edit(props_of(book))
    body = "".join(f'<property fmtid="{{D5CDD505-2E9C-101B-9397-08002B2CF9AE}}" pid="{i + 2}" name="{escape(k)}">'
                   f"<vt:lpwstr>{escape(v)}</vt:lpwstr></property>" for i, (k, v) in enumerate(props.items()))
    xml = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Properties xmlns="http://schemas.openxmlformats.'
           'org/officeDocument/2006/custom-properties" xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/'
           f'docPropsVTypes">{body}</Properties>')
    with zipfile.ZipFile(book) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for i in src.infolist():
            dst.writestr(i, xml.encode() if i.filename == "docProps/custom.xml" else src.read(i.filename))
    return out


# ---- plan folders ----------------------------------------------------------------------------------

def test_plan_folders_are_the_bundled_the_given_and_the_users(tmp_path, monkeypatch, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    assert user_plan_dir() == tmp_path / "config" / "plans"
    assert [d.path for d in plan_directories()] == [TEMPLATES, tmp_path / "config" / "plans"]
    monkeypatch.setenv("XLMODEL_PLANS", os.pathsep.join([str(a), "", str(tmp_path / "missing")]))
    assert [d.path for d in plan_directories()] == [TEMPLATES, a, tmp_path / "missing", tmp_path / "config" / "plans"]  # empty entry: not the cwd
    write_plan(b)
    # --plans replaces XLMODEL_PLANS for the command: the plan in b is found, only through --plans
    assert cli(capsys, "policies", "show", ACME)[0] == 2
    code, out, err = cli(capsys, "--plans", b, "policies", "show", ACME)
    assert code == 0, err
    assert f"来源 Source: --plans: {b / (ACME + '.yaml')}" in out
    monkeypatch.setenv("XLMODEL_PLANS", str(b))
    code, out, _ = cli(capsys, "policies", "show", ACME)
    assert code == 0 and f"来源 Source: XLMODEL_PLANS: {b / (ACME + '.yaml')}" in out


def test_a_relative_plan_folder_in_the_environment_is_refused(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    write_plan(tmp_path / "plans")
    monkeypatch.setenv("XLMODEL_PLANS", "plans")
    code, out, err = cli(capsys, "evaluate", write_case(tmp_path))
    assert code == 2 and out == ""
    clean(err)
    assert "XLMODEL_PLANS: 'plans' is not an absolute path" in err


def test_a_plans_option_naming_no_folder_is_an_error(capsys, tmp_path):
    code, out, err = cli(capsys, "--plans", tmp_path / "nope", "policies")
    assert code == 2 and out == ""
    assert f"--plans {tmp_path / 'nope'}: no such folder" in err


def test_policies_lists_every_plan_with_where_it_comes_from(tmp_path, capsys):
    d = tmp_path / "plans"
    write_plan(d)
    for args in (["--plans", d, "policies"], ["policies", "--plans", d], ["policies", "list", "--plans", d]):
        code, out, err = cli(capsys, *args)
        assert code == 0, err
        lines = [ln for ln in out.splitlines() if ln.strip()]
        assert [ln.split()[0] for ln in lines] == [ACME, "far-east-2022-2024", GCL, "houpu-2024-2026"]
        acme = lines[0]
        assert acme.endswith(f"[--plans: {d / (ACME + '.yaml')}]") and "22 rules" in acme
        assert not any("[" in ln for ln in lines[1:])  # the bundled plans: no origin tag
        assert f"--plans {d}" in err and "bundled" in err  # the folders searched, on stderr
    # installed: listed as the user's
    assert cli(capsys, "policies", "install", d / f"{ACME}.yaml")[0] == 0
    out = cli(capsys, "policies")[1]
    assert f"[user: {tmp_path / 'config' / 'plans' / (ACME + '.yaml')}]" in out


# ---- policies check --------------------------------------------------------------------------------

def test_policies_check_accepts_a_valid_plan(tmp_path, capsys):
    path = write_plan(tmp_path / "src")
    code, out, err = cli(capsys, "policies", "check", path)
    assert code == 0, err
    assert f"{path}: 规划文件有效 valid policy {ACME} v{V} — 22 rules" in out
    assert f"plan text {tmp_path / 'src' / 'texts' / (ACME + '.txt')} (35 clauses, every quote found)" in out


def test_policies_check_reports_every_schema_problem_at_once(tmp_path, capsys):
    def broken(d):
        d["id"] = "acme-other-2022-2024"  # not the file name, in a plan folder
        next(r for r in d["rules"] if r["id"] == "min_annual")["components"][0]["ratio"] = 1.5
        next(r for r in d["rules"] if r["id"] == "min_rolling")["kind"] = "no_such_kind"
        d["text"] = "../outside.txt"

    folder = tmp_path / "plans"
    path = write_plan(folder, mutate=broken)
    code, out, err = cli(capsys, "--plans", folder, "policies", "check", path)
    assert code == 2 and out == ""
    clean(err)
    assert f"{path}: 规划文件有误 invalid policy file (4 problems)" in err
    assert "rule 'min_annual', field 'components.0.pct.ratio'" in err
    assert "rule 'min_rolling', field 'kind'" in err
    assert "field 'text': '../outside.txt' leaves the policy file's folder" in err
    assert "field 'id': 'acme-other-2022-2024' does not match the file name 'acme-energy-2022-2024'" in err


def test_policies_check_reports_text_reference_and_compile_problems_at_once(tmp_path, capsys):
    def broken(d):
        del d["clauses"]["三、(八)"]  # a clause of the text not accounted for
        next(r for r in d["rules"] if r["id"] == "min_annual")["quote"] = "不在原文中的一句话"
        next(r for r in d["rules"] if r["id"] == "cond_going_concern")["id"] = "reg_parent_retained_positive"

    path = write_plan(tmp_path / "src", mutate=broken)
    code, out, err = cli(capsys, "policies", "check", path)
    assert code == 2 and out == ""
    clean(err)
    assert "(3 problems)" in err
    assert "clause 三、(八): in the plan text but not accounted for under 'clauses'" in err
    assert "rule 'min_annual', field 'quote': not found in the text of clause 三、(二)、2、(1)" in err
    assert "(compile): " in err and "reg_parent_retained_positive" in err  # a baseline rule's id


def test_policies_check_outside_a_plan_folder_notes_a_file_name_that_is_not_the_id(tmp_path, capsys):
    path = write_plan(tmp_path / "src")
    other = path.rename(tmp_path / "src" / "draft.yaml")
    code, out, err = cli(capsys, "policies", "check", other)
    assert code == 0
    assert "valid policy acme-energy-2022-2024" in out
    assert "installs it as acme-energy-2022-2024.yaml" in err


# ---- policies install ------------------------------------------------------------------------------

def test_install_copies_the_plan_and_its_text_and_never_overwrites_without_force(tmp_path, capsys):
    src = write_plan(tmp_path / "src")
    home = tmp_path / "config" / "plans"
    code, out, err = cli(capsys, "policies", "install", src)
    assert code == 0, err
    assert f"installed: {ACME} v{V} -> {home / (ACME + '.yaml')}" in out
    assert (home / f"{ACME}.yaml").read_bytes() == src.read_bytes()
    assert (home / "texts" / f"{ACME}.txt").read_bytes() == (src.parent / "texts" / f"{ACME}.txt").read_bytes()
    assert load_plan_by_id(ACME).id == ACME
    # the same again: nothing to do
    code, out, _ = cli(capsys, "policies", "install", src)
    assert code == 0 and "already installed" in out
    # a changed plan of the same id: refused without --force, the installed file untouched
    before = (home / f"{ACME}.yaml").read_bytes()
    src2 = write_plan(tmp_path / "src2", mutate=lambda d: d.update(version="1.1.0"))
    code, out, err = cli(capsys, "policies", "install", src2)
    assert code == 2 and out == ""
    clean(err)
    assert f"{home / (ACME + '.yaml')} exists (installed v{V}) and differs; pass --force" in err
    assert (home / f"{ACME}.yaml").read_bytes() == before
    code, out, err = cli(capsys, "policies", "install", src2, "--force")
    assert code == 0, err
    assert load_plan_by_id(ACME).version == "1.1.0"
    assert sorted(p.name for p in home.iterdir()) == [f"{ACME}.yaml", "texts"]  # no temporary file left


def test_install_validates_first(tmp_path, capsys):
    src = write_plan(tmp_path / "src", mutate=lambda d: d["rules"][0].update(kind="no_such_kind"))
    code, _, err = cli(capsys, "policies", "install", src)
    assert code == 2
    clean(err)
    assert "invalid policy file" in err and "field 'kind'" in err
    assert not (tmp_path / "config" / "plans").exists()


def test_install_refuses_a_bundled_plans_id(tmp_path, capsys):
    src = write_plan(tmp_path / "src", pid=GCL)
    code, _, err = cli(capsys, "policies", "install", src)
    assert code == 2
    assert f"'{GCL}' is the id of the bundled plan {TEMPLATES / (GCL + '.yaml')}" in err
    assert "cannot be replaced" in err
    assert not (tmp_path / "config" / "plans" / f"{GCL}.yaml").exists()


def test_install_refuses_an_id_another_plan_folder_defines(tmp_path, capsys):
    team = tmp_path / "team"
    write_plan(team)
    src = write_plan(tmp_path / "src")
    code, _, err = cli(capsys, "--plans", team, "policies", "install", src)
    assert code == 2
    assert f"already defined by {team / (ACME + '.yaml')} (--plans)" in err and "ambiguous" in err


# ---- issue 21: a plan's text is its own --------------------------------------------------------------

GCL_TEXT = (TEMPLATES / "texts" / f"{GCL}.txt").read_text(encoding="utf-8")
OTHER_TEXT = "（乙公司）\n" + GCL_TEXT  # another plan's text: the same clauses, one more line of preamble


def _plan_named(folder: Path, pid: str, ref: str, text: str = GCL_TEXT, quoted: bool = False) -> Path:
    """Plan ``pid`` (the GCL template) in ``folder`` whose ``text:`` is ``ref``, holding ``text``."""
    path = write_plan(folder, pid)
    (folder / "texts" / f"{pid}.txt").unlink()
    (folder / ref).parent.mkdir(parents=True, exist_ok=True)
    (folder / ref).write_text(text, encoding="utf-8")
    src = path.read_text(encoding="utf-8")
    new = f'text: "{ref}"  # the published text' if quoted else f"text: {ref}"
    path.write_text(src.replace(f"text: texts/{pid}.txt", new, 1), encoding="utf-8")
    return path


def test_install_puts_each_plans_text_under_its_own_name(tmp_path, capsys):
    """Two plans whose files both name texts/plan.txt, with different texts: each installed plan has its own,
    texts/<id>.txt, the rest of its file as written (a comment, the quoting of other fields)."""
    home = tmp_path / "config" / "plans"
    a = _plan_named(tmp_path / "a", "plan-a", "texts/plan.txt")
    b = _plan_named(tmp_path / "b", "plan-b", "texts/plan.txt", OTHER_TEXT, quoted=True)
    assert cli(capsys, "policies", "install", a)[0] == 0
    code, out, err = cli(capsys, "policies", "install", b, "--force")
    assert code == 0, err
    assert f"(plan text {home / 'texts' / 'plan-b.txt'})" in out
    assert "规划原文安装为 texts/plan-b.txt" in err and "the file names texts/plan.txt" in err
    assert sorted(p.name for p in (home / "texts").iterdir()) == ["plan-a.txt", "plan-b.txt"]
    assert plan_clauses(load_plan_by_id("plan-a")) == plan_clauses(load_policy(a))
    assert policy_source(load_plan_by_id("plan-a")).text == GCL_TEXT
    assert policy_source(load_plan_by_id("plan-b")).text == OTHER_TEXT
    installed_b = (home / "plan-b.yaml").read_text(encoding="utf-8")
    assert installed_b == b.read_text(encoding="utf-8").replace('text: "texts/plan.txt"', "text: texts/plan-b.txt", 1)
    assert "text: texts/plan-b.txt  # the published text" in installed_b
    # installing B again is nothing to do; --force replaces only B's files
    code, out, _ = cli(capsys, "policies", "install", b)
    assert code == 0 and "already installed, the same" in out
    before_a = {p.name: p.read_bytes() for p in [home / "plan-a.yaml", home / "texts" / "plan-a.txt"]}
    b2 = _plan_named(tmp_path / "b2", "plan-b", "texts/plan.txt", "（丙）\n" + GCL_TEXT)
    assert cli(capsys, "policies", "install", b2, "--force")[0] == 0
    assert {p.name: p.read_bytes() for p in [home / "plan-a.yaml", home / "texts" / "plan-a.txt"]} == before_a
    assert policy_source(load_plan_by_id("plan-b")).text == "（丙）\n" + GCL_TEXT


def test_plans_installed_by_an_earlier_xlmodel_keep_loading_and_keep_their_text(tmp_path, capsys):
    """The earlier layout: the installed file names the text as its source did (texts/shared.txt, shared by
    two plans). Both keep loading; a new install of either gives it a text of its own and leaves the other's."""
    home = tmp_path / "config" / "plans"
    _plan_named(home, "plan-a", "texts/shared.txt")
    shutil.copyfile(_plan_named(tmp_path / "tmp", "plan-c", "texts/shared.txt"), home / "plan-c.yaml")
    assert load_plan_by_id("plan-a").text == load_plan_by_id("plan-c").text == "texts/shared.txt"
    code, out, err = cli(capsys, "policies")
    assert code == 0 and "plan-a" in out and "plan-c" in out, err
    # plan-a installed again, from its own installed file: its own text now, plan-c's untouched
    code, _, err = cli(capsys, "policies", "install", home / "plan-a.yaml", "--force")
    assert code == 0, err
    assert load_plan_by_id("plan-a").text == "texts/plan-a.txt"
    assert load_plan_by_id("plan-c").text == "texts/shared.txt"
    assert (home / "texts" / "shared.txt").read_text(encoding="utf-8") == GCL_TEXT


def test_install_never_replaces_a_text_another_installed_plan_reads(tmp_path, capsys):
    home = tmp_path / "config" / "plans"
    _plan_named(home, "plan-a", "texts/plan-b.txt")  # an earlier install named its text as plan-b's is named now
    b = write_plan(tmp_path / "src", "plan-b", text=OTHER_TEXT)
    for force in ((), ("--force",)):
        code, out, err = cli(capsys, "policies", "install", b, *force)
        assert code == 2 and out == "", err
        clean(err)
        if force:
            assert f"{home / 'texts' / 'plan-b.txt'} 也是已安装规划 plan-a 的规划原文" in err
            assert f"is also the plan text of the installed plan plan-a ({home / 'plan-a.yaml'}" in err
            assert f"xlmodel policies install {home / 'plan-a.yaml'} --force" in err
        else:
            assert "exists and differs; pass --force" in err
    assert (home / "texts" / "plan-b.txt").read_text(encoding="utf-8") == GCL_TEXT
    assert not (home / "plan-b.yaml").exists()
    # the way out the message gives: plan-a installed again gets its own text; then plan-b installs
    assert cli(capsys, "policies", "install", home / "plan-a.yaml", "--force")[0] == 0
    assert cli(capsys, "policies", "install", b, "--force")[0] == 0
    assert policy_source(load_plan_by_id("plan-a")).text == GCL_TEXT
    assert policy_source(load_plan_by_id("plan-b")).text == OTHER_TEXT


def test_a_workbook_built_from_the_source_file_checks_against_the_installed_copy(tmp_path, capsys):
    """Installing renames the text (texts/<id>.txt): the installed plan is still the workbook's plan — the same
    content, the text compared by what it says — so check trusts it, rather than refusing a 'different' plan."""
    src = _plan_named(tmp_path / "src", ACME, "plan.txt")
    book = tmp_path / "acme.xlsx"
    case_path = write_case(tmp_path)
    assert cli(capsys, "--plans", src.parent, "build", case_path, "-o", book)[0] == 0
    assert cli(capsys, "policies", "install", src)[0] == 0
    code, out, err = cli(capsys, "check", book, "--json")
    assert code == 0, err
    assert json.loads(out)[0]["integrity"]["trusted"] is True and "differs" not in err


# ---- every command, by id ------------------------------------------------------------------------

def _udf_args(case):
    ey = case.evaluation_year
    years = [float(y) for y in range(ey - 4, ey + 1)]
    fids = sorted({f for vals in case.years.values() for f in vals})

    def cell(v):
        return dt.datetime.combine(v, dt.time()) if isinstance(v, dt.date) else v

    values = [[cell(case.value(f, int(y))) for y in years] for f in fids]
    cids, aids = sorted(case.company), sorted(case.attestations)
    return (case.policy, float(ey), [[f] for f in fids], [years], values, [[c] for c in cids],
            [[case.company[c]] for c in cids], [[a] for a in aids], [[case.attestations[a]] for a in aids])


def test_an_installed_custom_plan_goes_through_every_command(tmp_path, capsys):
    src = write_plan(tmp_path / "src")
    case_path = write_case(tmp_path)
    assert cli(capsys, "policies", "check", src)[0] == 0
    assert cli(capsys, "policies", "install", src)[0] == 0
    # evaluate: the GCL sample's figures, since the rules are GCL's
    code, out, err = cli(capsys, "evaluate", case_path, "--json")
    assert code == 0, err
    [rep] = json.loads(out)
    assert rep["policy"] == ACME and rep["overall_status"] == "pass"
    assert rep["min_cash_dividend"] == GCL_MIN_CASH
    gcl = json.loads(cli(capsys, "evaluate", GCL_SAMPLE, "--json")[1])[0]
    assert {r["id"]: r["status"] for r in rep["rules"]} == {r["id"]: r["status"] for r in gcl["rules"]}
    # build, check, refresh
    book, again = tmp_path / "acme.xlsx", tmp_path / "acme-refreshed.xlsx"
    code, _, err = cli(capsys, "build", case_path, "-o", book)
    assert code == 0, err
    code, out, err = cli(capsys, "check", book, "--json")
    assert code == 0, err
    [obj] = json.loads(out)
    assert obj["policy"] == ACME and obj["min_cash_dividend"] == GCL_MIN_CASH and obj["integrity"]["trusted"] is True
    assert "not installed here" not in err  # the installed plan, the same as the one carried
    code, _, err = cli(capsys, "refresh", book, "-o", again)
    assert code == 0, err
    assert f"policy {ACME} v{V}" in err
    assert cli(capsys, "check", again)[0] == 0
    # an empty model by id, with the UDF sheet naming the id
    empty = tmp_path / "acme-empty.xlsx"
    assert cli(capsys, "build", "--policy", ACME, "--udf", "-o", empty)[0] == 0
    assert ACME in [c.value for row in openpyxl.load_workbook(empty)["UDF"].iter_rows() for c in row]
    # a worksheet function, as Excel calls it: the same figure as the evaluator
    case = load_case(case_path)
    assert udfs.XLM_MIN_CASH(*_udf_args(case)) == pytest.approx(GCL_MIN_CASH, abs=0.001)
    assert udfs.XLM_OVERALL_STATUS(*_udf_args(case)) == "通过"
    assert ACME in [row[0] for row in udfs.XLM_POLICIES()]


def test_worksheet_functions_find_plans_through_the_environment(tmp_path, monkeypatch):
    d = tmp_path / "plans"
    write_plan(d)
    assert udfs.XLM_RULES(ACME).startswith("#XLMODEL!")  # not in any plan folder yet
    udfs.clear_caches()
    monkeypatch.setenv("XLMODEL_PLANS", str(d))  # Excel has no --plans: the environment, or the user's folder
    rules = udfs.XLM_RULES(ACME)
    assert isinstance(rules, list) and "min_annual" in [r[0] for r in rules]
    case = load_case(write_case(tmp_path))
    assert udfs.XLM_MIN_CASH(*_udf_args(case)) == pytest.approx(evaluate(case).min_cash_dividend, abs=0.001)
    assert udfs.XLM_MIN_CASH(*_udf_args(case)) == pytest.approx(GCL_MIN_CASH, abs=0.001)


def test_evaluate_with_plans_option_and_build_from_a_path(tmp_path, capsys):
    d = tmp_path / "plans"
    path = write_plan(d)
    case_path = write_case(tmp_path)
    code, _, err = cli(capsys, "evaluate", case_path)
    assert code == 2 and f"unknown policy '{ACME}'" in err
    code, out, _ = cli(capsys, "evaluate", case_path, "--plans", d, "--json")
    assert code == 0 and json.loads(out)[0]["min_cash_dividend"] == GCL_MIN_CASH
    code, out, _ = cli(capsys, "--plans", d, "evaluate", case_path, "--json")
    assert code == 0 and json.loads(out)[0]["min_cash_dividend"] == GCL_MIN_CASH
    assert cli(capsys, "build", "--policy", path, "-o", tmp_path / "by-path.xlsx")[0] == 0


# ---- a workbook carries its plan ---------------------------------------------------------------------

def test_a_workbook_carries_its_plan_so_check_and_refresh_work_where_it_is_not_installed(tmp_path, capsys):
    d = tmp_path / "plans"
    write_plan(d)
    case_path = write_case(tmp_path)
    book = tmp_path / "acme.xlsx"
    assert cli(capsys, "--plans", d, "build", case_path, "-o", book)[0] == 0
    props = props_of(book)
    assert props["xlmodel_policy"] == ACME and props["xlmodel_plan_format"] == "1"
    n = int(props["xlmodel_plan_parts"])
    assert n > 1 and all(len(props[embed.part_name(i)]) <= 255 for i in range(1, n + 1))
    carried = embed.unpack(props, str(book))
    assert carried.yaml == (d / f"{ACME}.yaml").read_text(encoding="utf-8")
    assert carried.text == (d / "texts" / f"{ACME}.txt").read_text(encoding="utf-8")
    assert carried.text_file == f"texts/{ACME}.txt" and carried.policy_file == f"{ACME}.yaml"
    # not installed, no --plans: read with the plan the workbook carries, and said so; a plan nobody here
    # reviewed is evidence, not authority (issue 21): the figures are read, the verdict is not compliance
    code, out, err = cli(capsys, "check", book, "--json")
    assert code == 1, err
    [obj] = json.loads(out)
    assert obj["policy"] == ACME and obj["min_cash_dividend"] == GCL_MIN_CASH and obj["overall_status"] == "pass"
    assert obj["exit_code"] == 1 and obj["integrity"]["trusted"] is False and obj["integrity"]["plan_verified"] is False
    assert obj["integrity"]["plan"] == {"id": ACME, "built_with_version": V, "installed_version": None,
                                        "source": "carried"}
    assert f"plan {ACME} v{V} is not installed here: read with the plan the workbook carries ({ACME}.yaml" in err
    again = tmp_path / "again.xlsx"
    code, _, err = cli(capsys, "refresh", book, "-o", again)
    assert code == 0, err
    assert "not installed here" in err
    assert embed.unpack(props_of(again), str(again)).yaml == carried.yaml  # still carried
    code, out, err = cli(capsys, "check", again, "--json")
    assert code == 1 and json.loads(out)[0]["min_cash_dividend"] == GCL_MIN_CASH
    # installed (here by --plans): the same workbook is trusted, exit 0
    code, out, err = cli(capsys, "--plans", d, "check", book, "--json")
    assert code == 0, err
    integ = json.loads(out)[0]["integrity"]
    assert integ["trusted"] is True and integ["plan_verified"] is True and integ["plan"]["source"] == "installed"


def test_a_bundled_plans_workbook_carries_it_too_and_reads_silently(tmp_path, capsys):
    book = tmp_path / "gcl.xlsx"
    assert cli(capsys, "build", GCL_SAMPLE, "-o", book)[0] == 0
    carried = embed.unpack(props_of(book), str(book))
    assert carried.yaml == (TEMPLATES / f"{GCL}.yaml").read_text(encoding="utf-8")
    code, _, err = cli(capsys, "check", book)
    assert code == 0 and "carries" not in err


def test_an_installed_plan_that_differs_from_the_carried_one_is_trusted_by_neither(tmp_path, capsys):
    d = tmp_path / "plans"
    write_plan(d)
    book = tmp_path / "acme.xlsx"
    assert cli(capsys, "--plans", d, "build", write_case(tmp_path), "-o", book)[0] == 0
    # the same id and version, one threshold changed, installed in the user's folder
    changed = write_plan(tmp_path / "changed", mutate=lambda data: next(
        r for r in data["rules"] if r["id"] == "min_annual")["components"][0].update(ratio=0.12))
    assert cli(capsys, "policies", "install", changed)[0] == 0
    installed = tmp_path / "config" / "plans" / f"{ACME}.yaml"
    code, out, err = cli(capsys, "check", book)
    assert code == 2 and out == ""
    clean(err)
    assert f"the workbook carries plan {ACME} v{V} ({ACME}.yaml, sha256" in err
    assert f"differs from the installed {ACME} v{V} ({installed}, user)" in err
    assert "rules.min_annual.components[0].ratio: workbook 0.1, installed 0.12" in err
    assert "trusts neither silently" in err
    # refresh rebuilds with the installed plan, and says what differed
    again = tmp_path / "again.xlsx"
    code, _, err = cli(capsys, "refresh", book, "-o", again)
    assert code == 0, err
    assert "differs from the installed" in err and "the new workbook is built with the installed plan" in err
    code, out, _ = cli(capsys, "check", again, "--json")
    assert code in (0, 1)
    assert json.loads(out)[0]["min_cash_dividend"] == pytest.approx(0.12 * 855_092_128.94, abs=0.01)  # 102,611,055.47


def test_a_damaged_carried_plan_is_noted_when_installed_and_an_error_when_not(tmp_path, capsys):
    d = tmp_path / "plans"
    write_plan(d)
    book = tmp_path / "acme.xlsx"
    assert cli(capsys, "--plans", d, "build", write_case(tmp_path), "-o", book)[0] == 0

    def flip(props):
        part = props[embed.part_name(2)]
        props[embed.part_name(2)] = ("A" if part[0] != "A" else "B") + part[1:]
        return props

    bad = set_props(book, tmp_path / "bad.xlsx", flip)
    code, out, err = cli(capsys, "check", bad)
    assert code == 2 and out == ""
    clean(err)
    assert f"{bad}: 工作簿所用的规划本机未知 built for policy '{ACME}', which this xlmodel does not know" in err
    assert "the plan the workbook carries" in err and ("checksum" in err or "damaged" in err)
    code, _, err = cli(capsys, "--plans", d, "check", bad)
    assert code == 0
    assert "the plan the workbook carries" in err and f"read with the installed plan {ACME} v{V}" in err


def test_a_carried_plan_for_another_id_is_refused(tmp_path, capsys):
    d = tmp_path / "plans"
    write_plan(d)
    book = tmp_path / "acme.xlsx"
    assert cli(capsys, "--plans", d, "build", write_case(tmp_path), "-o", book)[0] == 0
    other = set_props(book, tmp_path / "other.xlsx", lambda p: {**p, "xlmodel_policy": "zzz-2022-2024"})
    code, _, err = cli(capsys, "check", other)
    assert code == 2
    assert f"built for policy 'zzz-2022-2024', but the plan the workbook carries is '{ACME}'" in err


def _packed(payload: bytes) -> dict[str, str]:
    packed = base64.b64encode(zlib.compress(payload, 9)).decode()
    parts = [packed[i:i + 240] for i in range(0, len(packed), 240)]
    return {"xlmodel_plan_format": "1", "xlmodel_plan_sha256": hashlib.sha256(payload).hexdigest(),
            "xlmodel_plan_parts": str(len(parts)), **{embed.part_name(i + 1): p for i, p in enumerate(parts)}}


def test_a_carried_plan_is_bounded_when_read_back():
    # a zip bomb: 64 MB of spaces packs into ~64 KB; refused at the unpacked limit, not unpacked in full
    bomb = _packed(b" " * (64 * 2**20))
    with pytest.raises(embed.CarriedPlanError) as e:
        embed.unpack(bomb, "bomb.xlsx")
    assert "bomb.xlsx: 工作簿自带的规划无法读取 the plan the workbook carries unpacks to more than a plan can be" in str(e.value)
    with pytest.raises(embed.CarriedPlanError, match="invalid number of parts"):
        embed.unpack({**bomb, "xlmodel_plan_parts": "100000"}, "x.xlsx")
    with pytest.raises(embed.CarriedPlanError, match="property xlmodel_plan_0002 is missing"):
        embed.unpack({k: v for k, v in bomb.items() if k != embed.part_name(2)}, "x.xlsx")
    with pytest.raises(embed.CarriedPlanError, match="not a base64 text of at most 255"):
        embed.unpack({**bomb, embed.part_name(1): "x" * 256}, "x.xlsx")
    # valid packing, contents that are not a plan: refused before any YAML is read
    with pytest.raises(embed.CarriedPlanError, match="not the expected contents"):
        embed.unpack(_packed(json.dumps({"policy": 1}).encode()), "x.xlsx")


def test_a_carried_plan_is_parsed_like_a_policy_file(tmp_path, capsys):
    """An alias bomb in the carried YAML is refused by the same bounded loader as a policy file."""
    d = tmp_path / "plans"
    write_plan(d)
    book = tmp_path / "acme.xlsx"
    assert cli(capsys, "--plans", d, "build", write_case(tmp_path), "-o", book)[0] == 0
    carried = embed.unpack(props_of(book), str(book))
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(8)) + "id: x\nrules: []\n"
    payload = json.dumps({"policy_file": f"{ACME}.yaml", "policy": bomb, "text_file": None, "text": None}).encode()
    hostile = set_props(book, tmp_path / "hostile.xlsx",
                        lambda p: {**{k: v for k, v in p.items() if not k.startswith("xlmodel_plan_")}, **_packed(payload)})
    code, out, err = cli(capsys, "check", hostile)
    assert code == 2 and out == ""
    clean(err)
    assert "the plan it carries" in err and ("aliases" in err or "values" in err)
    assert carried.yaml  # the original was a real plan


# ---- text paths ------------------------------------------------------------------------------------

def test_the_plan_text_is_read_beside_the_policy_file_everywhere(tmp_path, capsys):
    """A custom plan whose text has the same file name as a bundled one reads its own text."""
    own = (TEMPLATES / "texts" / f"{GCL}.txt").read_text(encoding="utf-8")
    lines = own.splitlines()
    lines.insert(1, "本规划为测试用的副本（ACME）。")  # into the preamble, before the first numbered clause
    d = tmp_path / "plans"
    path = write_plan(d, text="\n".join(lines) + "\n")
    shutil.move(d / "texts" / f"{ACME}.txt", d / "texts" / f"{GCL}.txt")
    path.write_text(path.read_text(encoding="utf-8").replace(f"text: texts/{ACME}.txt", f"text: texts/{GCL}.txt"),
                    encoding="utf-8")
    pol = load_policy(path)
    assert policy_source(pol).text_path == d / "texts" / f"{GCL}.txt"
    assert "本规划为测试用的副本（ACME）。" in plan_clauses(pol)["序言"]
    assert "本规划为测试用的副本" not in plan_clauses(load_policy(GCL))["序言"]
    code, out, _ = cli(capsys, "--plans", d, "policies", "show", ACME)
    assert code == 0 and f"规划原文 Plan text: {d / 'texts' / (GCL + '.txt')} (35 clauses)" in out


def test_the_plan_text_sheet_of_a_custom_plan_shows_its_own_text(tmp_path, capsys):
    d = tmp_path / "plans"
    write_plan(d)
    book = tmp_path / "acme.xlsx"
    assert cli(capsys, "--plans", d, "build", "--policy", ACME, "-o", book)[0] == 0
    ws = openpyxl.load_workbook(book)[SHEETS["text"]]
    row = next(r for r in ws.iter_rows() if r[0].value == "三、(二)、2、(1)")
    assert "任何三个连续年度内" in (row[3].value or "")


@pytest.mark.parametrize("ref, why", [
    ("../../etc/passwd", "leaves the policy file's folder"),
    ("texts/../../x.txt", "leaves the policy file's folder"),
    ("/etc/passwd", "is an absolute path"),
    ("C:/Windows/win.ini", "is an absolute path"),
    ("texts\\gcl.txt", "write the path with '/'"),
    ("texts/", "is a folder"),
    ("", "expected the plan text's file name"),
])
def test_a_text_reference_must_stay_in_the_policy_files_folder(ref, why):
    assert why in text_ref_problem(ref)


def test_a_text_reference_cannot_leave_through_a_symbolic_link(tmp_path):
    (tmp_path / "outside.txt").write_text(SECRET, encoding="utf-8")
    d = tmp_path / "plans"
    (d / "texts").mkdir(parents=True)
    (d / "texts" / "plan.txt").symlink_to(tmp_path / "outside.txt")
    with pytest.raises(PlanTextError) as e:
        read_plan_text(d, "texts/plan.txt")
    assert "symbolic link out of the policy file's folder" in str(e.value) and SECRET not in str(e.value)
    (d / "inside.txt").write_text("一、总则\n", encoding="utf-8")
    (d / "texts" / "ok.txt").symlink_to(d / "inside.txt")  # a link inside the folder is fine
    assert read_plan_text(d, "texts/ok.txt")[1] == "一、总则\n"


# ---- hostile plan folders ------------------------------------------------------------------------

def _outside(tmp_path: Path) -> Path:
    p = tmp_path / "outside" / "secret.yaml"
    p.parent.mkdir(exist_ok=True)
    p.write_text(f"id: evil\nrules: []\n# {SECRET}\n", encoding="utf-8")
    return p


def _symlink_out(d: Path, tmp_path: Path):
    (d / "evil-2022-2024.yaml").symlink_to(_outside(tmp_path))
    return "evil-2022-2024", [d / "evil-2022-2024.yaml"], "a symbolic link to a file outside its plan folder"


def _fifo(d: Path, tmp_path: Path):
    os.mkfifo(d / "fifo-2022-2024.yaml")
    return "fifo-2022-2024", [d / "fifo-2022-2024.yaml"], "is a named pipe (FIFO), not a policy file"


def _huge(d: Path, tmp_path: Path):
    (d / "huge-2022-2024.yaml").write_bytes(b"# " + b"x" * (2**20))
    return "huge-2022-2024", [d / "huge-2022-2024.yaml"], "is larger than a policy file can be (1 MB)"


def _directory(d: Path, tmp_path: Path):
    (d / "dir-2022-2024.yaml").mkdir()
    return "dir-2022-2024", [d / "dir-2022-2024.yaml"], "is a directory, not a policy file"


def _duplicate_bundled(d: Path, tmp_path: Path):
    write_plan(d, pid=GCL)
    return GCL, [TEMPLATES / f"{GCL}.yaml", d / f"{GCL}.yaml"], "a bundled plan cannot be replaced"


def _text_dotdot(d: Path, tmp_path: Path):
    write_plan(d, mutate=lambda data: data.update(text="../../etc/passwd"))
    return ACME, [d / f"{ACME}.yaml"], "field 'text': '../../etc/passwd' leaves the policy file's folder"


def _text_absolute(d: Path, tmp_path: Path):
    write_plan(d, mutate=lambda data: data.update(text=str(_outside(tmp_path))))
    return ACME, [d / f"{ACME}.yaml"], "is an absolute path"


def _text_fifo(d: Path, tmp_path: Path):
    write_plan(d)
    (d / "texts" / f"{ACME}.txt").unlink()
    os.mkfifo(d / "texts" / f"{ACME}.txt")
    return ACME, [d / f"{ACME}.yaml", d / "texts" / f"{ACME}.txt"], "is a named pipe (FIFO), not a plan text"


HOSTILE = {f.__name__[1:]: f for f in (_symlink_out, _fifo, _huge, _directory, _duplicate_bundled, _text_dotdot,
                                       _text_absolute, _text_fifo)}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_plan_folder_gives_a_clear_error_naming_the_file(name, tmp_path, capsys):
    d = tmp_path / "plans"
    d.mkdir()
    pid, files, why = HOSTILE[name](d, tmp_path)
    case_path = write_case(tmp_path / "cases", pid)
    for args in (["policies", "show", pid], ["evaluate", case_path], ["build", "--policy", pid, "-o", tmp_path / "b.xlsx"]):
        code, out, err = cli(capsys, "--plans", d, *args)
        assert code == 2, (args, err)
        assert out == ""
        clean(err)
        assert why in err, err
        for f in files:
            assert str(f) in err, (f, err)
    assert not (tmp_path / "b.xlsx").exists()
    # the listing names the bad file, and still lists the others
    code, out, err = cli(capsys, "--plans", d, "policies")
    assert code == 2
    clean(err)
    assert why in err and str(files[-1 if name.startswith("text") else 0]) in err
    assert "houpu-2024-2026" in out and ("far-east-2022-2024" in out)


def test_one_id_in_two_of_your_folders_is_an_error_naming_both(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    write_plan(a), write_plan(b)
    code, out, err = cli(capsys, "--plans", a, "--plans", b, "evaluate", write_case(tmp_path))
    assert code == 2 and out == ""
    assert f"plan id '{ACME}' is defined by 2 files: {a / (ACME + '.yaml')} (--plans); {b / (ACME + '.yaml')} (--plans)" in err
    assert "remove or rename all but one" in err
    # the same folder named twice is one folder
    assert cli(capsys, "--plans", a, "--plans", a, "policies", "show", ACME)[0] == 0


def test_policy_by_id_is_the_one_lookup_and_never_a_path(tmp_path, monkeypatch):
    d = tmp_path / "plans"
    path = write_plan(d)
    monkeypatch.setenv("XLMODEL_PLANS", str(d))
    assert load_plan_by_id(ACME).id == ACME
    for ref in (str(path), f"../plans/{ACME}", f"{ACME}.yaml"):
        with pytest.raises(UnknownPolicyError, match="not a policy id"):
            load_plan_by_id(ref)
    # a file whose id is not its name is refused by id
    path.rename(d / "acme-renamed-2022-2024.yaml")
    with pytest.raises(PolicyError, match="does not match the file name"):
        load_plan_by_id("acme-renamed-2022-2024")
    with pytest.raises(XlmodelError, match="unknown policy"):
        load_plan_by_id(ACME)


def _carrying_book(tmp_path: Path, capsys) -> tuple[Path, Path]:
    d = tmp_path / "plans"
    write_plan(d)
    book = tmp_path / "acme.xlsx"
    assert cli(capsys, "--plans", d, "build", write_case(tmp_path), "-o", book)[0] == 0
    return d, book


def test_a_carried_plan_whose_version_is_not_the_workbooks_is_ignored(tmp_path, capsys):
    d, book = _carrying_book(tmp_path, capsys)
    edited = set_props(book, tmp_path / "edited.xlsx", lambda p: {**p, "xlmodel_policy_version": "0.9.0"})
    code, out, err = cli(capsys, "check", edited)  # not installed: nothing to trust
    assert code == 2 and out == ""
    assert f"is v{V}, the property xlmodel_policy_version says v0.9.0 (the workbook was edited)" in err
    code, _, err = cli(capsys, "--plans", d, "check", edited)  # installed: read with it, both said
    assert code == 0
    assert "(the workbook was edited): it is ignored; read with the installed plan" in err
    assert "v0.9.0" in err and "xlmodel refresh" in err


def test_a_workbook_property_naming_a_path_is_still_refused(tmp_path, capsys):
    d, book = _carrying_book(tmp_path, capsys)
    edited = set_props(book, tmp_path / "edited.xlsx", lambda p: {**p, "xlmodel_policy": str(d / f"{ACME}.yaml")})
    code, out, err = cli(capsys, "--plans", d, "check", edited)
    assert code == 2 and out == ""
    clean(err)
    assert "is not a policy id" in err and "never by a path" in err


def test_an_ambiguous_installed_id_is_not_replaced_by_the_carried_plan(tmp_path, capsys):
    d, book = _carrying_book(tmp_path, capsys)
    other = tmp_path / "other"
    write_plan(other)
    code, out, err = cli(capsys, "--plans", d, "--plans", other, "check", book)
    assert code == 2 and out == ""
    assert f"built for policy '{ACME}'; 规划 ID '{ACME}' 由 2 个文件定义" in err and f"plan id '{ACME}' is defined by 2 files" in err
    assert "not installed here" not in err


def test_policies_check_refuses_a_fifo_at_once(tmp_path, capsys):
    os.mkfifo(tmp_path / "plan.yaml")
    code, out, err = cli(capsys, "policies", "check", tmp_path / "plan.yaml")
    assert code == 2 and out == ""
    assert f"{tmp_path / 'plan.yaml'}: 规划文件有误 invalid policy file (1 problem)" in err and "named pipe (FIFO)" in err


def test_a_plan_changed_in_code_is_not_carried_as_its_file(tmp_path):
    from xlmodel.workbook.writer import build_workbook

    pol = load_policy(write_plan(tmp_path / "plans"))
    assert embed.pack(pol)  # as loaded: carried
    changed = pol.model_copy(update={"version": "9.9.9"})
    assert policy_source(changed) is not None and policy_source(changed, unchanged=True) is None
    assert embed.pack(changed) == []
    book = build_workbook(tmp_path / "changed.xlsx", policy=changed)
    assert "xlmodel_plan_parts" not in props_of(book)


def test_policies_check_in_a_plan_folder_names_a_duplicate_id(tmp_path, capsys):
    d = tmp_path / "plans"
    path = write_plan(d, pid=GCL)
    code, out, err = cli(capsys, "--plans", d, "policies", "check", path)
    assert code == 2 and out == ""
    assert f"field 'id': '{GCL}' is also defined by {TEMPLATES / (GCL + '.yaml')} (bundled)" in err
    code, _, err = cli(capsys, "policies", "check", path)  # outside the plan folders: a note only
    assert code == 0 and f"'{GCL}' is the id of the bundled plan" in err


# ---- issue 21: an open plan folder ----------------------------------------------------------------

def test_a_world_writable_plan_folder_is_warned_of(tmp_path, capsys):
    d = tmp_path / "plans"
    write_plan(d)
    code, _, err = cli(capsys, "--plans", d, "policies")
    assert code == 0 and "Warning" not in err
    for folder in (d, d / "texts"):
        folder.chmod(0o777 if folder == d else 0o1777)  # the sticky bit does not stop anyone adding a file
        code, out, err = cli(capsys, "--plans", d, "policies")
        assert code == 0 and ACME in out
        assert (f"注意 Warning: 规划文件夹 {folder}（--plans）任何用户都可写入" in err
                and f"the plan folder {folder} (--plans) is writable by every user" in err), err
        folder.chmod(0o755)
    code, _, err = cli(capsys, "--plans", d, "policies")
    assert "Warning" not in err
