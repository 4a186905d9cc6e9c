"""The ``xlmodel`` command line (docs/reference.md "Command line").

The CLI is run in-process through ``xlmodel.cli.main([...])`` with ``capsys``, and
once through ``python -m xlmodel.cli`` in a subprocess to prove the module entry
point works. Exit codes: 0 compliant, 1 a rule fails or an input is missing,
2 bad input or usage (one line per problem on stderr, never a traceback).

Numbers are either worked out by hand from the GCL sample
(samples/gcl-energy-2022-2024.yaml; arithmetic in comments) or compared with the
Python API (``xlmodel.evaluate``) on the same input.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import re
import os
import subprocess
import sys
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
import yaml

import xlmodel
from conftest import cli
from xlmodel.cli import main
from xlmodel.errors import XlmodelError
from xlmodel.evaluator import model_for
from xlmodel.plans.loading import load_policy

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
GCL = "gcl-energy-2022-2024"
FAR_EAST = "far-east-2022-2024"
HOUPU = "houpu-2024-2026"
POLICY_IDS = [FAR_EAST, GCL, HOUPU]
GCL_SAMPLE = SAMPLES / f"{GCL}.yaml"
JSON_KEYS = ["policy", "evaluation_year", "overall_status", "plan_reviewed", "cash_conditions_met", "min_cash_dividend",
             "max_distribution", "rules"]

# GCL sample, FY2023 (hand arithmetic, DOMAIN.md §4: required amounts rounded half-up to the fen)
#   min_annual:  10% × 855,092,128.94 = 85,509,212.894          -> 85,509,212.89
#   min_rolling: 30% × (903,600,000 + 611,845,138.87 + 855,092,128.94) / 3
#              = 30% × 2,370,537,267.81 / 3 = 30% × 790,179,089.27 = 237,053,726.781 -> 237,053,726.78
#   rolling need of FY2023 given 2021–2022 cash 324,664,922.80 + 306,781,780.12 = 631,446,702.92:
#              237,053,726.78 − 631,446,702.92 < 0 -> 0
#   min_cash_dividend = max(85,509,212.89, 0) = 85,509,212.89
#   max_distribution  = lower of consolidated 1,569,732,042.75 and parent 1,095,152,827.27 = 1,095,152,827.27
GCL_MIN_CASH = 85_509_212.89
GCL_MAX_DISTRIBUTION = 1_095_152_827.27




def assert_clean_error(err: str):
    """A usage/input error: a message on stderr, no traceback."""
    assert "Traceback" not in err
    assert err.strip()
    assert err.startswith(("xlmodel: ", "usage: "))


def sample_data(name: str = GCL) -> dict:
    return yaml.safe_load((SAMPLES / f"{name}.yaml").read_text(encoding="utf-8"))


def year_row(data: dict, fy: int) -> dict:
    return next(r for r in data["years"] if r["fiscal_year"] == fy)


def write_case(path: Path, data: dict) -> Path:
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def failing_case(tmp_path: Path) -> Path:
    """GCL sample with a FY2023 cash dividend of 1.00 元: min_annual fails."""
    data = sample_data()
    year_row(data, 2023)["cash_dividend"] = 1.00
    data["company"]["amounts_confirmed"] = True  # one yuan is real here (else the units check fails too)
    return write_case(tmp_path / "gcl-fail.yaml", data)


def missing_case(tmp_path: Path) -> Path:
    """GCL sample without the FY2023 audit opinion: cond_audit_opinion is missing_input."""
    data = sample_data()
    del year_row(data, 2023)["audit_opinion"]
    return write_case(tmp_path / "gcl-missing.yaml", data)


def invalid_case(tmp_path: Path) -> Path:
    data = sample_data()
    y = year_row(data, 2023)
    y["cash_dividend"] = "1.2亿"
    y["vote_for_ratio"] = 67
    y["board"] = "szse_main"
    data["company"]["stock_code"] = "002015.SH"  # a Shenzhen code with a Shanghai suffix
    return write_case(tmp_path / "gcl-invalid.yaml", data)


def with_attestation(rule_id: str) -> dict:
    """The GCL sample with one more attestation."""
    data = sample_data()
    data["attestations"][rule_id] = True
    return data


def api_json(path: Path) -> dict:
    """What the Python API says about a case, as JSON would carry it."""
    rep = xlmodel.evaluate(xlmodel.load_case(path))
    return json.loads(json.dumps(rep.to_dict(), ensure_ascii=False))


def defined_value(wb, name: str):
    sheet, ref = next(iter(wb.defined_names[name].destinations))
    return wb[sheet][ref.replace("$", "").split(":")[0]].value


# ---------------------------------------------------------------------------
# policies
# ---------------------------------------------------------------------------

def test_policies_lists_the_three_policy_ids(capsys):
    code, out, err = cli(capsys, "policies")
    assert code == 0
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert [ln.split()[0] for ln in lines] == POLICY_IDS
    assert "协鑫能源科技股份有限公司" in out
    assert cli(capsys, "policies", "list")[1] == out


def test_policies_show_prints_rules_and_clauses(capsys):
    code, out, err = cli(capsys, "policies", "show", GCL)
    assert code == 0
    for rule in load_policy(GCL).rules:
        assert f"[{rule.clause}] {rule.id}  (" in out, rule.id
    assert "[三、(二)、2、(1)] min_annual" in out
    assert "[三、(二)、2、(1)] min_rolling" in out
    assert "[三、(二)、1、(4)] cond_no_major_outlay" in out
    assert "任何三个连续年度内" in out  # the quoted clause text
    assert "参数 Parameters:" in out and "条款 Clauses:" in out


@pytest.mark.parametrize("args, words", [
    (["policies", "show", "nope"], ["unknown policy 'nope'", GCL]),
    (["policies", "show"], ["needs a policy id"]),
])
def test_policies_show_errors(capsys, args, words):
    code, out, err = cli(capsys, *args)
    assert code == 2
    assert_clean_error(err)
    for w in words:
        assert w in err


# ---------------------------------------------------------------------------
# evaluate: table and JSON
# ---------------------------------------------------------------------------

def test_evaluate_sample_prints_a_table_and_exits_0(capsys):
    code, out, err = cli(capsys, "evaluate", GCL_SAMPLE)
    assert code == 0
    assert "协鑫能源科技股份有限公司 002015" in out
    assert "总体结论 Overall: 通过 pass" in out
    assert "最低现金分红 Minimum cash dividend: 85,509,212.89 元" in out
    assert "利润分配上限 Maximum distribution: 1,095,152,827.27 元" in out
    assert "规则 Rule" in out and "条款 Clause" in out
    assert "三、(二)、2、(1)" in out
    assert err == ""


def test_evaluate_json_top_level_keys_and_numbers_equal_the_api(capsys):
    code, out, err = cli(capsys, "evaluate", GCL_SAMPLE, "--json")
    assert code == 0
    docs = json.loads(out)
    assert isinstance(docs, list) and len(docs) == 1  # one shape: a list, also for one file
    doc = docs[0]
    assert list(doc)[:len(JSON_KEYS)] == JSON_KEYS
    assert doc == api_json(GCL_SAMPLE)
    assert doc["policy"] == GCL and doc["evaluation_year"] == 2023
    assert doc["overall_status"] == "pass" and doc["cash_conditions_met"] is True
    assert doc["min_cash_dividend"] == pytest.approx(GCL_MIN_CASH, abs=1e-6)
    assert doc["max_distribution"] == pytest.approx(GCL_MAX_DISTRIBUTION, abs=1e-6)
    rules = {r["id"]: r for r in doc["rules"]}
    assert rules["min_annual"]["required"] == pytest.approx(85_509_212.89, abs=1e-6)
    assert rules["min_rolling"]["required"] == pytest.approx(237_053_726.78, abs=1e-6)
    # 324,664,922.80 + 306,781,780.12 + 205,588,571.24 = 837,035,274.16
    assert rules["min_rolling"]["actual"] == pytest.approx(837_035_274.16, abs=1e-6)
    assert rules["min_annual"]["clause"] == "三、(二)、2、(1)"


def test_evaluate_several_cases_as_json_gives_a_list(capsys):
    paths = [SAMPLES / f"{p}.yaml" for p in POLICY_IDS]
    code, out, err = cli(capsys, "evaluate", *paths, "--json")
    assert code == 0
    docs = json.loads(out)
    assert [d["policy"] for d in docs] == POLICY_IDS
    for d, p in zip(docs, paths):
        assert list(d)[:len(JSON_KEYS)] == JSON_KEYS
        assert d == api_json(p)


def test_evaluate_exits_1_when_a_rule_fails(capsys, tmp_path):
    path = failing_case(tmp_path)
    code, out, err = cli(capsys, "evaluate", path, "--json")
    assert code == 1
    [doc] = json.loads(out)
    assert doc == api_json(path)
    assert doc["overall_status"] == "fail"
    assert doc["fail_count"] == 1
    rules = {r["id"]: r for r in doc["rules"]}
    ma = rules["min_annual"]
    assert ma["status"] == "fail"
    assert ma["actual"] == pytest.approx(1.00, abs=1e-9)
    assert ma["required"] == pytest.approx(85_509_212.89, abs=1e-6)
    # shortfall = 85,509,212.89 − 1.00 = 85,509,211.89
    assert ma["shortfall"] == pytest.approx(85_509_211.89, abs=1e-6)
    # 324,664,922.80 + 306,781,780.12 + 1.00 = 631,446,703.92 >= 237,053,726.78: still passes
    assert rules["min_rolling"]["status"] == "pass"
    assert rules["min_rolling"]["actual"] == pytest.approx(631_446_703.92, abs=1e-6)
    assert doc["min_cash_dividend"] == pytest.approx(GCL_MIN_CASH, abs=1e-6)

    code, out, err = cli(capsys, "evaluate", path)
    assert code == 1
    assert "总体结论 Overall: 不通过 fail" in out
    assert "85,509,211.89" in out  # the shortfall in the table


def test_evaluate_several_cases_exits_with_the_worst(capsys, tmp_path):
    code, out, err = cli(capsys, "evaluate", GCL_SAMPLE, failing_case(tmp_path))
    assert code == 1
    assert out.count("总体结论 Overall:") == 2


def test_evaluate_exits_1_for_missing_input(capsys, tmp_path):
    path = missing_case(tmp_path)
    code, out, err = cli(capsys, "evaluate", path, "--json")
    assert code == 1
    [doc] = json.loads(out)
    assert doc == api_json(path)
    assert doc["overall_status"] == "missing_input"
    aud = next(r for r in doc["rules"] if r["id"] == "cond_audit_opinion")
    assert aud["status"] == "missing_input"
    assert any("audit_opinion" in m and "(2023)" in m for m in aud["missing_inputs"])
    code, out, err = cli(capsys, "evaluate", path)
    assert code == 1
    assert "缺少输入 missing_input" in out
    assert "audit_opinion" in out and "(2023)" in out


def test_evaluate_invalid_case_exits_2_with_one_line_per_problem(capsys, tmp_path):
    path = invalid_case(tmp_path)
    code, out, err = cli(capsys, "evaluate", path)
    assert code == 2
    assert out == ""
    assert_clean_error(err)
    lines = err.rstrip("\n").splitlines()
    assert lines[0] == f"xlmodel: {path}: 案例文件有误 invalid case (4 problems)"
    problems = lines[1:]
    assert len(problems) == 4
    assert all(ln.startswith("  - ") for ln in problems)
    expected = ["company.stock_code: ", "years[2].cash_dividend (2023): ", "years[2].board (2023): ",
                "years[2].vote_for_ratio (2023): "]
    for prefix in expected:
        # each line: "  - ", the Chinese of the problem, its place, what is wrong
        assert sum(re.sub(r"^  - [\u4e00-\u9fff]+ ", "  - ", ln).startswith("  - " + prefix)
                   for ln in problems) == 1, (prefix, problems)


@pytest.mark.parametrize("make, words", [
    (lambda tmp: tmp / "nope.yaml", ["nope.yaml", "invalid case"]),
    (lambda tmp: write_case(tmp / "pol.yaml", {**sample_data(), "policy": "no-such-plan"}),
     ["unknown policy 'no-such-plan'", GCL]),
    (lambda tmp: write_case(tmp / "att.yaml", with_attestation("no_such_rule")),
     ["attestations.no_such_rule", "not an attestation of policy"]),
    (lambda tmp: (tmp / "broken.yaml").write_text("policy: [unclosed\n") and tmp / "broken.yaml",
     ["broken.yaml", "not valid YAML/JSON"]),
])
def test_evaluate_bad_input_exits_2(capsys, tmp_path, make, words):
    path = make(tmp_path)
    code, out, err = cli(capsys, "evaluate", path)
    assert code == 2
    assert out == ""
    assert_clean_error(err)
    for w in words:
        assert w in err


def test_evaluate_stops_with_2_when_any_case_is_invalid(capsys, tmp_path):
    code, out, err = cli(capsys, "evaluate", GCL_SAMPLE, invalid_case(tmp_path))
    assert code == 2
    assert_clean_error(err)


@pytest.mark.parametrize("args, words", [
    (["frobnicate"], ["invalid choice: 'frobnicate'"]),
    ([], ["required"]),
    (["evaluate", "--frob"], ["unrecognized arguments: --frob"]),
    (["evaluate"], ["evaluate needs a CASE file"]),
    (["build", "samples/gcl-energy-2022-2024.yaml"], ["-o"]),
])
def test_usage_errors_exit_2(capsys, args, words):
    code, out, err = cli(capsys, *args)
    assert code == 2
    assert_clean_error(err)
    for w in words:
        assert w in err


def test_version(capsys):
    code, out, err = cli(capsys, "--version")
    assert code == 0
    assert out.strip() == f"xlmodel {xlmodel.__version__}"


def test_evaluate_json_with_a_listing_date(capsys, tmp_path):
    data = sample_data()
    data["company"]["listing_date"] = dt.date(2010, 2, 5)
    path = write_case(tmp_path / "listed.yaml", data)
    code, out, err = cli(capsys, "evaluate", path, "--json")
    assert code == 0
    [doc] = json.loads(out)
    assert doc["company"]["listing_date"] == "2010-02-05"


def test_evaluate_unquoted_bad_date_exits_2(capsys, tmp_path):
    text = GCL_SAMPLE.read_text(encoding="utf-8").replace("agm_date: 2024-05-20", "agm_date: 2024-13-20")
    path = tmp_path / "bad-date.yaml"
    path.write_text(text, encoding="utf-8")
    code, out, err = cli(capsys, "evaluate", path)
    assert code == 2
    assert_clean_error(err)
    assert "agm_date" in err


# ---------------------------------------------------------------------------
# the module entry point, in a subprocess
# ---------------------------------------------------------------------------

def _run_module(*args, cwd=ROOT):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "xlmodel.cli", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=300)


def test_module_entry_point_runs_in_a_subprocess(tmp_path):
    p = _run_module("evaluate", "samples/gcl-energy-2022-2024.yaml", "--json")
    assert p.returncode == 0, p.stderr
    [doc] = json.loads(p.stdout)
    assert list(doc)[:len(JSON_KEYS)] == JSON_KEYS
    assert doc == api_json(GCL_SAMPLE)

    p = _run_module("evaluate", failing_case(tmp_path))
    assert p.returncode == 1, p.stderr

    p = _run_module("evaluate", invalid_case(tmp_path))
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    assert "invalid case (4 problems)" in p.stderr
    assert p.stdout == ""

    p = _run_module("frobnicate")
    assert p.returncode == 2
    assert "Traceback" not in p.stderr


# ---------------------------------------------------------------------------
# evaluate --batch
# ---------------------------------------------------------------------------

def _cell(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "是" if v else "否"
    if isinstance(v, dt.date):
        return v.isoformat()
    return repr(v) if isinstance(v, float) else str(v)


def batch_rows() -> list[dict]:
    """Two companies × three fiscal years from the GCL and Far East samples, as table rows.

    Attestations are given in the evaluation year of each sample (FY2023) only, in
    ``attest_<rule_id>`` columns; blank cells elsewhere.
    """
    rows = []
    for pid in (GCL, FAR_EAST):
        case = xlmodel.load_case(SAMPLES / f"{pid}.yaml")
        for fy in sorted(case.years):
            row = {"policy": pid, "stock_code": case.company["stock_code"], "fiscal_year": fy,
                   **case.years[fy]}
            if fy == case.evaluation_year:
                row.update({f"attest_{k}": v for k, v in case.attestations.items()})
            rows.append(row)
    return rows


def write_batch_csv(path: Path, rows: list[dict]) -> Path:
    cols: list[str] = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({c: _cell(r.get(c)) for c in cols})
    return path


def equivalent_case(rows: list[dict], i: int):
    """The single case the batch row ``i`` stands for: that company's rows up to its year."""
    row = rows[i]
    years = [{k: v for k, v in r.items() if k not in ("policy", "stock_code") and not k.startswith("attest_")}
             for r in rows if r["stock_code"] == row["stock_code"] and r["fiscal_year"] <= row["fiscal_year"]]
    att = {k[len("attest_"):]: v for k, v in row.items() if k.startswith("attest_")}
    return xlmodel.parse_case({"policy": row["policy"], "evaluation_year": row["fiscal_year"],
                               "company": {"stock_code": row["stock_code"]}, "years": years,
                               "attestations": att})


def assert_batch_matches_api(df: pd.DataFrame, rows: list[dict]):
    assert len(df) == len(rows)
    assert list(df["stock_code"]) == [r["stock_code"] for r in rows]  # '002015' keeps its zeros
    assert list(df["fiscal_year"]) == [r["fiscal_year"] for r in rows]
    assert list(df["policy"]) == [r["policy"] for r in rows]
    assert "overall_status" in df.columns
    for pid in (GCL, FAR_EAST):
        for rule in model_for(pid).rules:
            assert f"{rule.id}.status" in df.columns
    for i, r in enumerate(rows):
        rep = xlmodel.evaluate(equivalent_case(rows, i))
        got = df.iloc[i]
        assert got["overall_status"] == rep.overall_status, (r["stock_code"], r["fiscal_year"])
        for name in ("min_cash_dividend", "max_distribution"):
            want = getattr(rep, name)
            if want is None:
                assert pd.isna(got[name])
            else:
                assert got[name] == pytest.approx(want, abs=1e-6), name
        for rr in rep.rules:
            assert got[f"{rr.id}.status"] == rr.status, (r["stock_code"], r["fiscal_year"], rr.id)


def test_batch_csv_writes_one_row_per_input_row(capsys, tmp_path):
    rows = batch_rows()
    src = write_batch_csv(tmp_path / "company_years.csv", rows)
    assert "002015" in src.read_text(encoding="utf-8")
    out = tmp_path / "results.csv"
    code, stdout, err = cli(capsys, "evaluate", "--batch", src, "-o", out)
    # FY2021/2022 rows lack the inputs their rules need (e.g. retained earnings): missing_input -> 1
    assert code == 1
    assert "6 company-years evaluated" in err
    df = pd.read_csv(out, dtype={"stock_code": str}, encoding="utf-8-sig")
    assert_batch_matches_api(df, rows)
    # the evaluation years of the samples pass, as with `xlmodel evaluate`
    gcl23 = df[(df["stock_code"] == "002015") & (df["fiscal_year"] == 2023)].iloc[0]
    assert gcl23["overall_status"] == "pass"
    assert gcl23["min_cash_dividend"] == pytest.approx(GCL_MIN_CASH, abs=1e-6)
    assert gcl23["max_distribution"] == pytest.approx(GCL_MAX_DISTRIBUTION, abs=1e-6)
    assert not list(tmp_path.glob(".results.*"))  # no temporary file left


def test_batch_python_api(tmp_path):
    rows = batch_rows()
    src = write_batch_csv(tmp_path / "company_years.csv", rows)
    df = xlmodel.evaluate_batch(pd.read_csv(src, dtype={"stock_code": str}))
    assert_batch_matches_api(df, rows)


def test_batch_refuses_to_overwrite_without_force(capsys, tmp_path):
    src = write_batch_csv(tmp_path / "company_years.csv", batch_rows())
    out = tmp_path / "results.csv"
    out.write_bytes(b"keep me\n")
    code, stdout, err = cli(capsys, "evaluate", "--batch", src, "-o", out)
    assert code == 2
    assert_clean_error(err)
    assert "--force" in err and str(out) in err
    assert out.read_bytes() == b"keep me\n"


def test_batch_overwrites_with_force(capsys, tmp_path):
    rows = batch_rows()
    src = write_batch_csv(tmp_path / "company_years.csv", rows)
    out = tmp_path / "results.csv"
    out.write_bytes(b"old\n")
    code, stdout, err = cli(capsys, "evaluate", "--batch", src, "-o", out, "--force")
    assert code == 1
    df = pd.read_csv(out, dtype={"stock_code": str}, encoding="utf-8-sig")
    assert len(df) == len(rows)
    assert "overall_status" in df.columns


def test_batch_xlsx_in_and_out(capsys, tmp_path):
    rows = batch_rows()
    src = tmp_path / "company_years.xlsx"
    cols: list[str] = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    pd.DataFrame([{c: _cell(r.get(c)) or None for c in cols} for r in rows], columns=cols).to_excel(
        src, index=False)
    out = tmp_path / "results.xlsx"
    code, stdout, err = cli(capsys, "evaluate", "--batch", src, "-o", out)
    assert code == 1
    # the results sheet: Chinese labels on row 1, column ids on row 2; statuses shown in Chinese
    from xlmodel.batch.output import RESULTS_SHEET, STATUS_LABELS

    df = pd.read_excel(out, sheet_name=RESULTS_SHEET, header=1, dtype={"stock_code": str})
    codes = {zh: code for code, zh in STATUS_LABELS.items()}
    for c in [c for c in df.columns if c == "overall_status" or c.endswith(".status")]:
        df[c] = df[c].map(lambda v: codes.get(v, v))
    assert_batch_matches_api(df, rows)
    # the same as the CSV route
    csv_out = tmp_path / "results.csv"
    cli(capsys, "evaluate", "--batch", write_batch_csv(tmp_path / "in.csv", rows), "-o", csv_out)
    df_csv = pd.read_csv(csv_out, dtype={"stock_code": str}, encoding="utf-8-sig")
    assert list(df["overall_status"]) == list(df_csv["overall_status"])


def test_batch_invalid_values_exit_2_naming_row_and_field(capsys, tmp_path):
    rows = batch_rows()
    rows[2]["vote_for_ratio"] = 99  # spreadsheet row 4 (header is row 1)
    rows[4]["cash_dividend"] = "1.2亿"  # row 6
    src = write_batch_csv(tmp_path / "bad.csv", rows)
    out = tmp_path / "results.csv"
    code, stdout, err = cli(capsys, "evaluate", "--batch", src, "-o", out)
    assert code == 2
    assert_clean_error(err)
    assert "row 4, vote_for_ratio" in err
    assert "row 6, cash_dividend" in err and "'1.2亿'" in err
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


@pytest.mark.parametrize("mutate, words", [
    (lambda rows: [{**r, "net_profit": 1} for r in rows], ["column 'net_profit'", "unknown field id"]),
    (lambda rows: rows + [dict(rows[0])], ["002015 2021 appears more than once"]),
    (lambda rows: [{**r, "policy": "no-such-plan"} for r in rows], ["no-such-plan"]),
])
def test_batch_bad_tables_exit_2(capsys, tmp_path, mutate, words):
    src = write_batch_csv(tmp_path / "bad.csv", mutate(batch_rows()))
    code, stdout, err = cli(capsys, "evaluate", "--batch", src, "-o", tmp_path / "out.csv")
    assert code == 2
    assert_clean_error(err)
    for w in words:
        assert w in err
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("output, words", [
    (None, ["--batch needs -o"]),
    ("results.txt", [".csv or .xlsx"]),
])
def test_batch_usage_errors(capsys, tmp_path, output, words):
    src = write_batch_csv(tmp_path / "in.csv", batch_rows())
    extra = ["-o", tmp_path / output] if output else []
    code, stdout, err = cli(capsys, "evaluate", "--batch", src, *extra)
    assert code == 2
    assert_clean_error(err)
    for w in words:
        assert w in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]


def test_batch_missing_input_file_exits_2(capsys, tmp_path):
    code, stdout, err = cli(capsys, "evaluate", "--batch", tmp_path / "nope.csv", "-o", tmp_path / "o.csv")
    assert code == 2
    assert_clean_error(err)
    assert "nope.csv" in err


# ---------------------------------------------------------------------------
# build
# ---------------------------------------------------------------------------

def test_build_case_writes_a_workbook(capsys, tmp_path):
    out = tmp_path / "x.xlsx"
    code, stdout, err = cli(capsys, "build", GCL_SAMPLE, "-o", out)
    assert code == 0
    assert f"wrote {out}" in err
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames == ["封面", "输入", "参数", "计算", "检查", "汇总", "公告", "测算", "规划原文", "列表"]
    assert defined_value(wb, "in_evaluation_year") == 2023
    assert defined_value(wb, "in_stock_code") == "002015"
    cached = openpyxl.load_workbook(out, data_only=True)
    assert defined_value(cached, "out_min_cash_dividend") == pytest.approx(GCL_MIN_CASH, abs=1e-6)
    assert defined_value(cached, "out_max_distribution") == pytest.approx(GCL_MAX_DISTRIBUTION, abs=1e-6)
    assert defined_value(cached, "out_overall_status") == "通过"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.xlsx"]  # no temporary file left


def test_build_refuses_to_overwrite_without_force(capsys, tmp_path):
    out = tmp_path / "x.xlsx"
    assert cli(capsys, "build", GCL_SAMPLE, "-o", out)[0] == 0
    before = out.read_bytes()
    code, stdout, err = cli(capsys, "build", SAMPLES / f"{HOUPU}.yaml", "-o", out)
    assert code == 2
    assert_clean_error(err)
    assert "--force" in err
    assert out.read_bytes() == before

    code, stdout, err = cli(capsys, "build", SAMPLES / f"{HOUPU}.yaml", "-o", out, "--force")
    assert code == 0
    assert out.read_bytes() != before
    assert defined_value(openpyxl.load_workbook(out), "in_stock_code") == "300471"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.xlsx"]


def test_build_empty_model_for_a_policy(capsys, tmp_path):
    out = tmp_path / "y.xlsx"
    code, stdout, err = cli(capsys, "build", "--policy", HOUPU, "-o", out)
    assert code == 0
    wb = openpyxl.load_workbook(out)
    assert "检查" in wb.sheetnames
    assert defined_value(wb, "in_evaluation_year") == 2026  # the plan's last year (2024–2026)
    assert defined_value(wb, "in_stock_code") == "300471"   # the company the plan file names (51.1) …
    assert defined_value(wb, "in_cash_dividend") is None     # … and no figure filled in
    out2 = tmp_path / "y2025.xlsx"
    assert cli(capsys, "build", "--policy", HOUPU, "--year", 2025, "-o", out2)[0] == 0
    assert defined_value(openpyxl.load_workbook(out2), "in_evaluation_year") == 2025


def test_a_blank_model_knows_the_plans_company(capsys, tmp_path):
    """Issue 51.1: the GCL plan file names 协鑫能源科技股份有限公司, 002015, 深交所主板 (templates/gcl-energy-2022-2024.yaml,
    ``company:``); a blank model for 2024 shows them on 输入 and 封面, and the risk-warning check no longer
    lacks the board (it still lacks the year's figures and the listing date, which no plan gives)."""
    out = tmp_path / "blank.xlsx"
    assert cli(capsys, "build", "--policy", GCL, "--year", "2024", "-o", out)[0] == 0
    wb = openpyxl.load_workbook(out)
    assert defined_value(wb, "in_company_name") == "协鑫能源科技股份有限公司"
    assert defined_value(wb, "in_stock_code") == "002015"
    assert defined_value(wb, "in_board") == "深交所主板"
    assert defined_value(wb, "in_listing_date") is None
    cached = openpyxl.load_workbook(out, data_only=True)  # the cover's formulas as a viewer shows them
    cover = {r[1]: r[2] for r in cached["封面"].iter_rows(values_only=True) if len(r) > 2 and r[1]}
    assert cover["公司 Company"] == "协鑫能源科技股份有限公司" and cover["证券代码 Stock code"] == "002015"
    assert wb.properties.creator == "xlmodel"
    code, stdout, err = cli(capsys, "check", out)
    assert "协鑫能源科技股份有限公司 002015" in stdout
    st = stdout.split("交易所低分红风险警示", 1)[1].split("避免所需现金", 1)[0]
    assert "listing_date" in st and "board" not in st and "上市板块" not in st


@pytest.mark.parametrize("args, words", [
    (lambda tmp: [invalid_case(tmp)], ["invalid case (4 problems)", "years[2].cash_dividend (2023)"]),
    (lambda tmp: [write_case(tmp / "att.yaml", with_attestation("no_such_rule"))],
     ["attestations.no_such_rule"]),
    (lambda tmp: [write_case(tmp / "pol.yaml", {**sample_data(), "policy": "no-such-plan"})], ["no-such-plan"]),
    (lambda tmp: [tmp / "nope.yaml"], ["nope.yaml"]),
    (lambda tmp: ["--policy", "no-such-plan"], ["unknown policy 'no-such-plan'"]),
    (lambda tmp: [GCL_SAMPLE, "--policy", GCL], ["either a CASE file or --policy"]),
    (lambda tmp: [], ["either a CASE file or --policy"]),
])
def test_build_bad_input_leaves_no_file_behind(capsys, tmp_path, args, words):
    work = tmp_path / "work"
    work.mkdir()
    inputs = args(tmp_path)
    out = work / "book.xlsx"
    code, stdout, err = cli(capsys, "build", *inputs, "-o", out)
    assert code == 2
    assert_clean_error(err)
    for w in words:
        assert w in err
    assert list(work.iterdir()) == []  # neither the workbook nor a temporary file


def test_build_failing_while_writing_leaves_no_file_and_keeps_the_old_one(capsys, tmp_path, monkeypatch):
    from xlmodel.workbook import writer

    def broken_write(self, path):
        Path(path).write_bytes(b"PK half a workbook")
        raise XlmodelError("simulated failure while writing")

    monkeypatch.setattr(writer.WorkbookBuilder, "write", broken_write)
    out = tmp_path / "book.xlsx"
    code, stdout, err = cli(capsys, "build", GCL_SAMPLE, "-o", out)
    assert code == 2
    assert "simulated failure" in err
    assert list(tmp_path.iterdir()) == []

    out.write_bytes(b"the old workbook")
    code, stdout, err = cli(capsys, "build", GCL_SAMPLE, "-o", out, "--force")
    assert code == 2
    assert out.read_bytes() == b"the old workbook"
    assert [p.name for p in tmp_path.iterdir()] == ["book.xlsx"]


def test_build_rejects_a_nonsense_year(capsys, tmp_path):
    out = tmp_path / "y0.xlsx"
    code, stdout, err = cli(capsys, "build", "--policy", HOUPU, "--year", 0, "-o", out)
    assert code == 2
    assert not out.exists()


# ---------------------------------------------------------------------------
# samples
# ---------------------------------------------------------------------------

def test_samples_writes_three_workbooks(capsys, tmp_path):
    code, stdout, err = cli(capsys, "samples", "--dir", SAMPLES, "--out", tmp_path)
    assert code == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [f"{p}.xlsx" for p in POLICY_IDS]
    # 51.5: one screen — a heading, each sample's verdict and its workbook, where the details are (was ~350 lines)
    lines = stdout.splitlines()
    assert len(lines) == 1 + 2 * 3 + 1 and lines[-1].startswith("详情 Details") and "samples -v" in lines[-1]
    # the GCL sample: passes, its minimum 10 % of 855,092,128.94 = 85,509,212.89 (tests/test_gcl.py)
    assert "  通过 pass  002015 协鑫能源科技股份有限公司  2023 年  不通过 0 / 警告 0 / 缺少输入 0  最低现金分红 85,509,212.89 元" in lines
    assert "总体结论 Overall:" not in stdout  # the full reports only with -v
    code, verbose, _ = cli(capsys, "samples", "--dir", SAMPLES, "--out", tmp_path, "--force", "-v")
    assert code == 0 and verbose.count("总体结论 Overall:") == 3 and len(verbose.splitlines()) > 300
    for pid in POLICY_IDS:
        assert f"-> {tmp_path / (pid + '.xlsx')}" in stdout
        rep = xlmodel.evaluate(xlmodel.load_case(SAMPLES / f"{pid}.yaml"))
        wb = openpyxl.load_workbook(tmp_path / f"{pid}.xlsx", data_only=True)
        assert defined_value(wb, "in_evaluation_year") == rep.evaluation_year
        assert defined_value(wb, "out_min_cash_dividend") == pytest.approx(rep.min_cash_dividend, abs=1e-6)
        assert defined_value(wb, "out_max_distribution") == pytest.approx(rep.max_distribution, abs=1e-6)


def test_samples_without_cases_exits_2(capsys, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    code, stdout, err = cli(capsys, "samples", "--dir", empty, "--out", tmp_path / "out")
    assert code == 2
    assert_clean_error(err)
    assert "no sample cases" in err
    assert not (tmp_path / "out").exists()


def test_samples_refuses_to_overwrite_without_force(capsys, tmp_path):
    """Issue 14: `samples` never rewrites existing workbooks without --force; all are named at once,
    nothing is written, and --force rewrites them."""
    code, _, _ = cli(capsys, "samples", "--out", tmp_path)
    assert code == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    (tmp_path / f"{GCL}.xlsx").write_bytes(b"my own edits")
    code, stdout, err = cli(capsys, "samples", "--out", tmp_path)
    assert code == 2
    assert_clean_error(err)
    assert "pass --force" in err and "3 of the 3 workbooks exist" in err
    for pid in POLICY_IDS:
        assert str(tmp_path / f"{pid}.xlsx") in err
    assert stdout == ""  # refused before any work
    assert (tmp_path / f"{GCL}.xlsx").read_bytes() == b"my own edits"
    code, stdout, err = cli(capsys, "samples", "--out", tmp_path, "--force")
    assert code == 0
    assert (tmp_path / f"{GCL}.xlsx").read_bytes()[:2] == b"PK"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(before)


def test_samples_default_out_is_a_folder_in_the_current_directory(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, stdout, err = cli(capsys, "samples")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [f"{p}.xlsx" for p in POLICY_IDS]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_samples_finds_the_bundled_samples_from_another_directory(tmp_path):
    """Run from a folder that has no samples/: the cases next to the package are found."""
    p = _run_module("samples", "--out", "books", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert sorted(f.name for f in (tmp_path / "books").iterdir()) == [f"{pid}.xlsx" for pid in POLICY_IDS]
    assert p.stdout.count("  通过 pass  ") == 3


def test_samples_without_bundled_samples_says_so(capsys, tmp_path, monkeypatch):
    import xlmodel.commands.samples as wcli

    monkeypatch.setattr(wcli, "bundled_samples", lambda: None)
    code, stdout, err = cli(capsys, "samples", "--out", tmp_path / "out")
    assert code == 2
    assert_clean_error(err)
    assert "no bundled sample cases found" in err and "--dir" in err
    assert not (tmp_path / "out").exists()


def test_bundled_samples_are_the_source_trees():
    from xlmodel.commands.samples import bundled_samples

    assert bundled_samples().resolve() == SAMPLES.resolve()


# ---------------------------------------------------------------------------
# help, JSON shapes, library warnings (issue 14)
# ---------------------------------------------------------------------------

def test_help_shows_the_exit_codes(capsys):
    code, out, err = cli(capsys, "--help")
    assert code == 0
    tail = out[out.index("exit codes:"):]
    for words in ["0    合规", "compliant", "1    有规则不通过", "a rule fails", "formulas were changed",
                  "2    输入或用法有误", "bad input or usage", "130", "143", "--force"]:
        assert words in tail, words
    assert "docs/user-guide.md" in out
    for line in out.splitlines():
        assert len(line) <= 100, line


@pytest.mark.parametrize("command", ["policies", "evaluate", "check", "build", "refresh", "samples"])
def test_every_command_help_shows_its_exit_codes(capsys, command):
    code, out, err = cli(capsys, command, "--help")
    assert code == 0
    assert "exit codes:" in out
    assert "  0 " in out and "  2 " in out
    for line in out[out.index("exit codes:"):].splitlines():
        assert len(line) <= 100, line


def test_evaluate_json_is_a_list_for_one_file_and_for_several(capsys):
    code, out, _ = cli(capsys, "evaluate", GCL_SAMPLE, "--json")
    one = json.loads(out)
    assert isinstance(one, list) and [d["policy"] for d in one] == [GCL]
    code, out, _ = cli(capsys, "evaluate", GCL_SAMPLE, SAMPLES / f"{HOUPU}.yaml", "--json")
    two = json.loads(out)
    assert [d["policy"] for d in two] == [GCL, HOUPU]
    assert two[0] == one[0]


def test_evaluate_jsonl_prints_one_object_per_line(capsys, tmp_path):
    paths = [SAMPLES / f"{p}.yaml" for p in POLICY_IDS] + [failing_case(tmp_path)]
    code, out, err = cli(capsys, "evaluate", *paths, "--jsonl")
    assert code == 1  # the worst of the cases
    lines = out.splitlines()
    assert len(lines) == len(paths)
    for line, path in zip(lines, paths):
        doc = json.loads(line)
        assert isinstance(doc, dict)
        assert list(doc)[:len(JSON_KEYS)] == JSON_KEYS
        assert doc == api_json(path)
    code, out, err = cli(capsys, "evaluate", GCL_SAMPLE, "--json")
    assert json.loads(out) == [json.loads(lines[1])]


def test_evaluate_json_and_jsonl_are_exclusive(capsys):
    code, out, err = cli(capsys, "evaluate", GCL_SAMPLE, "--json", "--jsonl")
    assert code == 2
    assert_clean_error(err)
    assert "--jsonl" in err and out == ""


def _with_unsupported_extension(src: Path, dst: Path) -> Path:
    """The workbook as Excel saves it with an x14 data validation on the input sheet (which
    openpyxl does not read and warns about, naming its own file in site-packages)."""
    import zipfile

    ext = ('<extLst><ext uri="{CCE6A557-97BC-4b89-ADB6-D9C93CAAB3DF}" '
           'xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main">'
           '<x14:dataValidations count="0"/></ext></extLst></worksheet>')
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename == "xl/worksheets/sheet2.xml":  # 输入
                assert b"<extLst>" not in data
                data = data.replace(b"</worksheet>", ext.encode())
            zout.writestr(info, data)
    return dst


def test_check_turns_openpyxl_warnings_into_a_short_note(tmp_path):
    book = tmp_path / "book.xlsx"
    code = main(["build", str(GCL_SAMPLE), "-o", str(book)])
    assert code == 0
    edited = _with_unsupported_extension(book, tmp_path / "from-excel.xlsx")
    p = _run_module("check", edited, cwd=tmp_path)
    assert p.returncode in (0, 1), p.stderr
    assert "Traceback" not in p.stderr
    assert "site-packages" not in p.stderr and "UserWarning" not in p.stderr and "openpyxl" not in p.stderr
    assert "warn(msg)" not in p.stderr
    notes = [ln for ln in p.stderr.splitlines() if "Data Validation" in ln]
    assert notes == ["注意 Note: the workbook has Excel features xlmodel does not read (Data Validation extension); "
                     "ignored when reading; the file itself is not changed"]  # once, though the file is read twice


def test_library_notes_map_known_messages_and_drop_housekeeping():
    import warnings

    from xlmodel.libnotes import collecting, notes

    site = str(Path(openpyxl.__file__).parent / "worksheet" / "_reader.py")
    with collecting() as caught:
        warnings.warn_explicit("Cell D12 is marked as a date but the serial value 9999999 is outside the limits "
                               "for dates. The cell will be treated as an error.", UserWarning, site, 1)
        warnings.warn_explicit("Workbook contains no default style, apply openpyxl's default", UserWarning, site, 2)
        warnings.warn_explicit("old API", DeprecationWarning, site, 3)
        warnings.warn_explicit("something odd in /usr/lib/python3/site-packages/foo/bar.py", UserWarning,
                               "/elsewhere/foo.py", 4)
    assert notes(caught) == [
        "cell D12: a date cell holds 9999999, outside the range of dates; it is read as an error (#VALUE!)",
        "something odd in …",
    ]


@pytest.mark.skipif(os.name == "nt", reason="a newline in a file name is POSIX's")
def test_an_output_path_with_a_newline_is_said_on_one_line_escaped(tmp_path, capsys, monkeypatch):
    """Issue 48, item 10: an -o path with a newline is said as plain text (``\\n``), as folder names are: no
    line of the output begins with what follows the newline (it was echoed raw, forging a line)."""
    monkeypatch.chdir(tmp_path)
    book, screen = "a\nb.xlsx", "s\n总体结论 Overall: 通过 pass.csv"
    code, _, err = cli(capsys, "build", SAMPLES / "gcl-energy-2022-2024.yaml", "-o", book)
    assert code == 0 and (tmp_path / book).is_file()
    assert "已写入 wrote a\\nb.xlsx\n" in err and "\nb.xlsx" not in err
    code, _, err = cli(capsys, "build", SAMPLES / "gcl-energy-2022-2024.yaml", "-o", book)  # exists: refused, said so
    assert code == 2 and "a\\nb.xlsx: 文件已存在" in err and "— a\\nb.xlsx exists" in err and "\nb.xlsx" not in err
    code, _, err = cli(capsys, "evaluate", "--batch", SAMPLES / "company_years.csv", "-o", screen)
    assert code in (0, 1) and (tmp_path / screen).is_file()
    assert "-> s\\n总体结论 Overall: 通过 pass.csv" in err and "\n总体结论" not in err
