"""Every input is untrusted (issue 9, the input side).

Bad input gets a clear error naming the file and the field (and the row or the
sheet!cell), in bounded time and memory, never a traceback; no input can make
xlmodel open another file; one reading of each field serves YAML, JSON, CSV/XLSX
batch files, workbooks and worksheet functions.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import os
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import cli
from xlmodel.inputs import untrusted as u
from xlmodel.batch.evaluate import evaluate_batch
from xlmodel.batch.table import read_table
from xlmodel.case import check_attestations, load_case, parse_case
from xlmodel.values import MAX_TEXT, from_cell, read_field, read_year
from xlmodel.errors import CaseError, PolicyError, UnknownPolicyError, XlmodelError
from xlmodel.evaluator import evaluate, model_for
from xlmodel.fields import FIELDS, Field, Kind
from xlmodel.plans.loading import (POLICY_ID, load_policy, load_policy_file, plan_directories, load_plan_by_id,
                                   policy_paths)

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
GCL = "gcl-energy-2022-2024"
GCL_SAMPLE = SAMPLES / f"{GCL}.yaml"
FOURTH = ROOT / "tests" / "data" / "fourth_plan" / "demo-2025-2027.yaml"


def sample_text() -> str:
    return GCL_SAMPLE.read_text(encoding="utf-8")


def sample_data() -> dict:
    return yaml.safe_load(sample_text())


def problems(exc) -> dict[str, str]:
    """where -> message; a batch's where is Chinese first (第2行 row 2, 列 column 'x'): keyed by its English part."""
    return {re.sub(r"^第[0-9, ]+(?:\(\+\d+ more\))?行 |^列 ", "", p.where): p.message for p in exc.problems}




def clean(err: str):
    assert "Traceback" not in err and "File \"" not in err, err


# ---------------------------------------------------------------------------------------------------
# 1. plans are found by id, never opened by whatever a file says


def test_plan_ids_are_found_in_the_plan_directories_only():
    assert plan_directories() and all(d.path.is_absolute() for d in plan_directories())
    assert set(policy_paths()) >= {GCL, "far-east-2022-2024", "houpu-2024-2026"}
    assert POLICY_ID.fullmatch(GCL) and not POLICY_ID.fullmatch("../gcl") and not POLICY_ID.fullmatch("a" * 81)
    assert load_plan_by_id(GCL).id == GCL


@pytest.mark.parametrize("ref", ["/etc/passwd", "../templates/gcl-energy-2022-2024", str(FOURTH),
                                 "templates/gcl-energy-2022-2024.yaml", "GCL-energy-2022-2024", "", 7, None])
def test_an_input_cannot_name_a_path(ref):
    with pytest.raises(UnknownPolicyError) as e:
        load_plan_by_id(ref)
    assert "not a policy id" in str(e.value)
    assert "root:" not in str(e.value)


def test_unknown_id_says_did_you_mean_and_the_known_ids():
    with pytest.raises(UnknownPolicyError) as e:
        load_plan_by_id("gcl-energy-2022-2025")
    msg = str(e.value)
    assert "did you mean 'gcl-energy-2022-2024'" in msg and "known: " in msg and "houpu-2024-2026" in msg


def test_a_directory_in_the_working_directory_does_not_hijack_an_id(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / GCL).mkdir()
    (tmp_path / "houpu-2024-2026").write_text("id: evil\nrules: []\n", encoding="utf-8")
    assert load_policy(GCL).id == GCL
    assert load_policy("houpu-2024-2026").id == "houpu-2024-2026"
    assert load_plan_by_id(GCL).id == GCL


def test_a_case_names_its_plan_by_id_not_by_path(tmp_path):
    data = {k: v for k, v in sample_data().items() if k not in ("attestations", "notes")}
    data["policy"] = str(FOURTH)
    with pytest.raises(CaseError) as e:
        parse_case(data, "case.yaml")
    assert "never by a path" in problems(e.value)["policy"]
    # the same file is loaded by the command line / Python API, and a case names it by its id
    pol = load_policy(FOURTH)
    data["policy"] = pol.id
    case = parse_case(data)
    assert case.policy == "demo-2025-2027"
    with pytest.raises(UnknownPolicyError):
        evaluate(case)  # by id alone it is not among the plans
    assert evaluate(case, pol, baseline=False).policy == "demo-2025-2027"


def test_cli_case_naming_a_path_exits_2_naming_the_file_and_field(tmp_path, capsys):
    path = tmp_path / "case.yaml"
    path.write_text(sample_text().replace(f"policy: {GCL}", "policy: /etc/passwd"), encoding="utf-8")
    code, out, err = cli(capsys, "evaluate", path)
    assert code == 2 and out == ""
    clean(err)
    assert str(path) in err and "policy:" in err and "root:x" not in err


def test_batch_policy_column_and_option_are_ids(tmp_path):
    df = pd.DataFrame({"policy": ["/etc/passwd", "gcl-energy-2022-2O24"], "stock_code": ["000001", "000002"],
                       "fiscal_year": [2024, 2024]})
    with pytest.raises(CaseError) as e:
        evaluate_batch(df, source="b.csv")
    msg = str(e.value)
    assert "row 2, policy" in msg and "row 3, policy" in msg and "did you mean 'gcl-energy-2022-2024'" in msg
    with pytest.raises(CaseError) as e:
        evaluate_batch(df.drop(columns="policy"), policy=str(FOURTH))
    assert "policy (--policy)" in str(e.value)
    # a loaded plan (the Python API) may be given
    out = evaluate_batch(pd.DataFrame({"stock_code": ["000001"], "fiscal_year": [2025]}), policy=load_policy(FOURTH))
    assert out.loc[0, "policy"] == "demo-2025-2027"


def test_udf_policy_argument_is_an_id():
    from xlmodel import udfs

    assert udfs.XLM_RULES("/etc/passwd").startswith("#XLMODEL! policy")
    assert "not a policy id" in udfs.XLM_RULES(str(FOURTH))
    with pytest.raises(UnknownPolicyError):
        udfs.policy_entry("../templates/gcl-energy-2022-2024")


def test_workbook_property_names_a_plan_by_id(tmp_path):
    from xlmodel.workbook.reader import read_workbook
    from xlmodel.workbook.writer import build_workbook

    book = build_workbook(tmp_path / "b.xlsx", policy=GCL, evaluation_year=2023)
    src = zipfile.ZipFile(book)
    out = tmp_path / "evil.xlsx"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for i in src.infolist():
            data = src.read(i.filename)
            if i.filename == "docProps/custom.xml":
                data = data.replace(GCL.encode(), str(FOURTH).encode())
            z.writestr(i, data)
    with pytest.raises(XlmodelError) as e:
        read_workbook(out)
    assert "not a policy id" in str(e.value) and str(out) in str(e.value)


def test_a_file_that_is_not_a_policy_is_never_quoted(tmp_path):
    secret = tmp_path / "secret.yaml"
    secret.write_text("password: hunter2\ntoken: s3cr3t-value\n", encoding="utf-8")
    with pytest.raises(PolicyError) as e:
        load_policy_file(secret)
    msg = str(e.value)
    assert "not a policy file" in msg and "hunter2" not in msg and "password" not in msg and "token" not in msg
    broken = tmp_path / "broken.yaml"
    broken.write_text("id: x\nrules: [\n  secret-line: {hunter2\n", encoding="utf-8")
    msg = str(pytest.raises(PolicyError, load_policy_file, broken).value)
    assert "line" in msg and "column" in msg and "hunter2" not in msg and "secret-line" not in msg
    passwd = Path("/etc/passwd")
    if passwd.is_file():
        msg = str(pytest.raises(PolicyError, load_policy, passwd).value)
        assert "root" not in msg and "not a policy file" in msg or "not valid" in msg


def test_the_fourth_plan_still_loads_by_path_from_the_api_and_the_cli(capsys, tmp_path):
    assert load_policy(FOURTH).id == "demo-2025-2027"
    assert load_policy(str(FOURTH)).id == "demo-2025-2027"
    code, _, err = cli(capsys, "build", "--policy", FOURTH, "-o", tmp_path / "demo.xlsx")
    assert code == 0, err


# ---------------------------------------------------------------------------------------------------
# 2. bounded work for any input file


def test_read_regular_refuses_fifo_directory_and_device_at_once(tmp_path):
    fifo = tmp_path / "case.yaml"
    os.mkfifo(fifo)
    t = time.perf_counter()
    with pytest.raises(CaseError) as e:
        load_case(fifo)  # would block forever if opened for reading without O_NONBLOCK
    assert time.perf_counter() - t < 1
    assert "named pipe" in str(e.value) and str(fifo) in str(e.value)
    with pytest.raises(CaseError, match="directory"):
        load_case(tmp_path)
    with pytest.raises(u.InputFileError, match="a device"):
        u.read_regular("/dev/zero", 100)
    with pytest.raises(CaseError, match="no such file"):
        load_case(tmp_path / "nope.yaml")


def test_size_limits(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (u.MAX_CASE_BYTES + 1))
    with pytest.raises(CaseError, match="larger than a case file can be"):
        load_case(big)
    with pytest.raises(u.InputFileError, match="larger"):
        u.read_regular(big, 10)


def test_yaml_duplicate_keys_are_refused_naming_the_key_and_line(tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text(sample_text().replace("evaluation_year: 2023", "evaluation_year: 2023\nevaluation_year: 2024"),
                    encoding="utf-8")
    with pytest.raises(CaseError) as e:
        load_case(path)
    msg = problems(e.value)["(file)"]
    assert "'evaluation_year' appears twice" in msg and "line " in msg and str(path) in str(e.value)


def test_yaml_duplicate_in_a_year_row(tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text(f"policy: {GCL}\nevaluation_year: 2023\nyears:\n  - fiscal_year: 2023\n    cash_dividend: 1\n"
                    "    cash_dividend: 2\n", encoding="utf-8")
    msg = str(pytest.raises(CaseError, load_case, path).value)
    assert "line 6" in msg and "'cash_dividend' appears twice" in msg and "first at line 5" in msg


def test_yaml_alias_bomb_is_refused_fast(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    t = time.perf_counter()
    with pytest.raises(CaseError) as e:
        load_case(path)
    assert time.perf_counter() - t < 2
    assert "alias" in str(e.value) and "line" in str(e.value)


def test_yaml_too_many_aliases_and_recursive_alias(tmp_path):
    path = tmp_path / "aliases.yaml"
    path.write_text("a: &a 1\nb: [" + ", ".join(["*a"] * (u.MAX_YAML_ALIASES + 1)) + "]\n", encoding="utf-8")
    assert "more than 100 aliases" in str(pytest.raises(CaseError, load_case, path).value)
    path.write_text("a: &a [*a]\n", encoding="utf-8")
    assert "recursive" in str(pytest.raises(CaseError, load_case, path).value)


@pytest.mark.parametrize("text", ["[" * 100_000, "a:\n" + "".join(" " * i + "- \n" for i in range(1, 200)),
                                  "{a: " * 5000])
def test_deep_nesting_is_an_error_not_a_recursion_error(tmp_path, text):
    path = tmp_path / "deep.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CaseError) as e:
        load_case(path)
    assert "(file)" in problems(e.value)


def test_yaml_1_1_octal_stock_code_is_explained(tmp_path):
    path = tmp_path / "octal.yaml"
    path.write_text(sample_text().replace('stock_code: "002015"', "stock_code: 002015"), encoding="utf-8")
    assert load_case(path).company["stock_code"] == "002015"  # its text, not YAML 1.1's octal 1037
    path.write_text(sample_text().replace('stock_code: "002015"', "stock_code: 0o3737"), encoding="utf-8")
    msg = problems(pytest.raises(CaseError, load_case, path).value)["company.stock_code"]
    assert "0o3737" in msg and "6-digit" in msg


def test_yaml_1_1_octal_amount_and_year_are_refused(tmp_path):
    path = tmp_path / "octal.yaml"
    path.write_text(f"policy: {GCL}\nevaluation_year: 2023\nyears:\n  - {{fiscal_year: 2023, cash_dividend: 0100}}\n",
                    encoding="utf-8")
    msg = problems(pytest.raises(CaseError, load_case, path).value)["years[0].cash_dividend (2023)"]
    assert "octal number 64" in msg


def test_yaml_1_1_exponent_without_dot_is_text_and_said_so(tmp_path):
    path = tmp_path / "exp.yaml"
    path.write_text(f"policy: {GCL}\nevaluation_year: 2023\nyears:\n  - {{fiscal_year: 2023, cash_dividend: 1e308,"
                    " revenue: 3e8}\n", encoding="utf-8")
    probs = problems(pytest.raises(CaseError, load_case, path).value)
    assert "YAML 1.1" in probs["years[0].cash_dividend (2023)"]
    assert "write the number in full" in probs["years[0].revenue (2023)"]


@pytest.mark.parametrize("name, text", [("case.yaml", "1.0e3"), ("case.yaml", "1.0e+3"), ("case.json", "1.0e3")])
def test_exponent_notation_is_refused_in_every_format(tmp_path, name, text):
    data = load_case(GCL_SAMPLE).to_dict()
    data["years"][2]["cash_dividend"] = "@@"
    path = tmp_path / name
    dumped = json.dumps(data, ensure_ascii=False) if name.endswith(".json") else yaml.safe_dump(data, allow_unicode=True)
    path.write_text(dumped.replace("'@@'", text).replace('"@@"', text), encoding="utf-8")
    msg = problems(pytest.raises(CaseError, load_case, path).value)["years[2].cash_dividend (2023)"]
    assert "exponent notation" in msg and text in msg
    assert "exponent notation" in read_field(_f("cash_dividend"), text, "csv")[1]
    assert "exponent notation" in read_field(_f("cash_dividend"), text, "cell")[1]
    assert read_field(_f("cash_dividend"), 1.0e3, "cell") == (1000.0, None)  # a number cell is a number


def test_yaml_yes_no_where_text_is_expected(tmp_path):
    path = tmp_path / "yes.yaml"
    path.write_text(sample_text().replace("board: szse_main", "board: on").replace(
        "company_name: 协鑫能源科技股份有限公司", "company_name: yes"), encoding="utf-8")
    probs = problems(pytest.raises(CaseError, load_case, path).value)
    assert "quote the text" in probs["company.board"] and "quote the text" in probs["company.company_name"]


def test_json_bom_duplicates_nan_and_depth(tmp_path):
    path = tmp_path / "case.json"
    data = load_case(GCL_SAMPLE).to_dict()
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(data, ensure_ascii=False).encode())
    assert load_case(path).policy == GCL  # a UTF-8 byte-order mark is accepted
    path.write_text('{"policy": "x", "policy": "y"}', encoding="utf-8")
    assert "'policy' appears twice" in str(pytest.raises(CaseError, load_case, path).value)
    path.write_text('{"policy": NaN}', encoding="utf-8")
    assert "NaN" in str(pytest.raises(CaseError, load_case, path).value)
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    assert "nested more than 32" in str(pytest.raises(CaseError, load_case, path).value)
    path.write_text('{"policy": ' + "9" * 5000 + "}", encoding="utf-8")
    assert "(file)" in problems(pytest.raises(CaseError, load_case, path).value)


def _csv(tmp_path, text: str, encoding="utf-8", name="batch.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


BATCH = "policy,stock_code,company_name,fiscal_year,cash_dividend,going_concern_unaffected\n" \
        f"{GCL},002015,协鑫能源,2023,\"1,234.56\",是\n"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "gb18030"])
def test_csv_encodings(tmp_path, encoding):
    df = read_table(_csv(tmp_path, BATCH, encoding))
    assert list(df.columns)[:3] == ["policy", "stock_code", "company_name"]
    assert df.iloc[0]["company_name"] == "协鑫能源" and df.iloc[0]["stock_code"] == "002015"
    assert list(df.index) == [2]  # the file's row number
    out = evaluate_batch(df)
    assert out.loc[0, "stock_code"] == "002015"


def test_csv_header_only_empty_utf16_and_binary(tmp_path):
    with pytest.raises(CaseError, match="no data rows"):
        read_table(_csv(tmp_path, "policy,stock_code,fiscal_year\n"))
    with pytest.raises(CaseError, match="empty"):
        read_table(_csv(tmp_path, ""))
    with pytest.raises(CaseError, match="UTF-16"):
        read_table(_csv(tmp_path, BATCH, "utf-16"))
    with pytest.raises(CaseError, match="NUL"):
        read_table(_csv(tmp_path, "a,b\n\x00\x01,2\n"))
    with pytest.raises(CaseError, match="';' between values"):
        read_table(_csv(tmp_path, "policy;stock_code;fiscal_year\nx;1;2\n"))


def test_csv_shape_errors_name_the_line(tmp_path):
    msg = str(pytest.raises(CaseError, read_table, _csv(tmp_path, "a,b\n1,2\n1,2,3\n")).value)
    assert "line 3" in msg and "header has 2 columns" in msg
    msg = str(pytest.raises(CaseError, read_table, _csv(tmp_path, "a,a\n1,2\n")).value)
    assert "column 'a'" in msg and "twice" in msg
    msg = str(pytest.raises(CaseError, read_table, _csv(tmp_path, "a,\n1,2\n")).value)
    assert "column B has values but no header" in msg
    wide = ",".join(f"c{i}" for i in range(u.MAX_COLUMNS + 1)) + "\n" + ",".join("1" * (u.MAX_COLUMNS + 1)) + "\n"
    assert "columns; at most" in str(pytest.raises(CaseError, read_table, _csv(tmp_path, wide)).value)


def test_the_batch_limits_are_the_documented_ones():
    """The limits a batch file is held to, as shipped (the test below patches MAX_ROWS to stay fast), are
    the ones docs/reference.md states: "64 MB, 1,000,000 rows, 500 columns and 5,000,000 cells" (Big
    files), "rows (1,000,000), columns (500)" and the YAML limits (Security: untrusted files)."""
    assert (u.MAX_TABLE_BYTES, u.MAX_ROWS, u.MAX_COLUMNS, u.MAX_TABLE_CELLS) == (64 * 2**20, 1_000_000, 500, 5_000_000)
    assert (u.MAX_YAML_ALIASES, u.MAX_YAML_NODES, u.MAX_DEPTH) == (100, 10_000, 32)
    ref = (Path(__file__).resolve().parents[1] / "docs" / "reference.md").read_text(encoding="utf-8")
    ref = " ".join(ref.split())  # the text's line breaks as spaces
    assert (f"within the limits of {u.MAX_TABLE_BYTES // 2**20} MB, {u.MAX_ROWS:,} rows, {u.MAX_COLUMNS} columns and "
            f"{u.MAX_TABLE_CELLS:,} cells") in ref
    assert f"rows ({u.MAX_ROWS:,}), columns ({u.MAX_COLUMNS})" in ref
    assert (f"YAML aliases ({u.MAX_YAML_ALIASES}), YAML nodes after expansion ({u.MAX_YAML_NODES:,}) and nesting "
            f"depth ({u.MAX_DEPTH})") in ref


def test_csv_row_limit_is_checked_before_parsing(tmp_path, monkeypatch):
    assert u.MAX_ROWS == 1_000_000  # the shipped limit (test_the_batch_limits_are_the_documented_ones); patched to stay fast
    monkeypatch.setattr(u, "MAX_ROWS", 10)
    path = _csv(tmp_path, "a,b\n" + "1,2\n" * 11)
    assert "more than 10 data rows" in str(pytest.raises(CaseError, read_table, path).value)


def test_csv_trailing_blank_rows_and_columns_are_dropped(tmp_path):
    df = read_table(_csv(tmp_path, BATCH.replace("\n", ",,\n") + ",,,,,,,\n,,,,,,,\n"))
    assert len(df) == 1 and list(df.columns)[-1] == "going_concern_unaffected"


def test_blank_rows_are_skipped_and_errors_keep_the_files_row_numbers(tmp_path):
    text = BATCH + ",,,,,\n\n" + f"{GCL},002015,协鑫能源,2022,-5,是\n"
    df = read_table(_csv(tmp_path, text))
    assert len(df) == 2
    msg = str(pytest.raises(CaseError, evaluate_batch, df.sort_values("fiscal_year"), source="b.csv").value)
    assert "row 5, cash_dividend (002015 2022)" in msg  # line 5 of the file, after two blank lines


def _sheet_zip(path: Path, sheet_xml: bytes) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<workbook/>")
        z.writestr("xl/worksheets/sheet1.xml", sheet_xml)
    return path


def test_millions_of_empty_cells_are_refused_in_well_under_a_second(tmp_path):
    cells = b"<c/>" * 5_000_000
    xml = b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1">' \
          + cells + b"</row></sheetData></worksheet>"
    path = _sheet_zip(tmp_path / "cells.xlsx", xml)
    assert path.stat().st_size < 200_000
    t = time.perf_counter()
    with pytest.raises(u.InputFileError) as e:
        u.inspect_xlsx(path, max_part=64 * 2**20, max_unpacked=64 * 2**20)
    assert time.perf_counter() - t < 0.5
    assert "cells" in str(e.value) and str(path) in str(e.value)
    t = time.perf_counter()
    with pytest.raises(CaseError, match="cells"):
        read_table(path)
    assert time.perf_counter() - t < 1


def test_prefixed_cells_are_counted_too(tmp_path):
    xml = b'<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>' \
          + b"<x:row>" + b'<x:c r="A1"/>' * 300 + b"</x:row></x:sheetData></x:worksheet>"
    path = _sheet_zip(tmp_path / "p.xlsx", xml)
    with pytest.raises(u.InputFileError, match="more than 200 cells"):
        u.inspect_xlsx(path, max_cells=200)
    assert u.inspect_xlsx(path, max_cells=300)[1] == []


def test_cells_are_counted_exactly_across_chunks(tmp_path):
    n = 250_000  # ~3 MB unpacked: several 1 MiB chunks
    xml = b"<worksheet><sheetData><row>" + b"".join(b'<c r="A%d"/>' % i for i in range(n)) + b"</row></sheetData></worksheet>"
    path = _sheet_zip(tmp_path / "n.xlsx", xml)
    assert u.inspect_xlsx(path, max_cells=n)[1] == []
    with pytest.raises(u.InputFileError, match="more than 249,999 cells"):
        u.inspect_xlsx(path, max_cells=n - 1)


def test_a_row_far_down_is_refused_before_openpyxl_pads_a_million_rows(tmp_path):
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["policy", "stock_code", "fiscal_year"])
    ws.append([GCL, "002015", 2023])
    ws.cell(1_048_576, 1, "x")
    path = tmp_path / "far.xlsx"
    wb.save(path)
    t = time.perf_counter()
    msg = str(pytest.raises(CaseError, read_table, path).value)
    assert time.perf_counter() - t < 1
    assert "a row numbered 1,048,576" in msg and str(path) in msg


def test_a_part_larger_than_its_header_says_is_refused(tmp_path):
    path = _sheet_zip(tmp_path / "liar.xlsx", b"<worksheet>" + b" " * 100_000 + b"</worksheet>")
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("xl/worksheets/sheet1.xml")
    old = info.file_size.to_bytes(4, "little")
    data = bytes(data).replace(old, (1000).to_bytes(4, "little"))
    path.write_bytes(data)
    with pytest.raises(u.InputFileError, match="damaged"):
        u.inspect_xlsx(path)


def test_external_links_are_noted(tmp_path):
    path = _sheet_zip(tmp_path / "links.xlsx", b"<worksheet/>")
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("xl/externalLinks/externalLink1.xml", "<externalLink/>")
    assert any("external links" in n for n in u.inspect_xlsx(path)[1])


def test_batch_xlsx_is_read_as_values(tmp_path):
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["policy", "stock_code", "fiscal_year", "cash_dividend", "agm_date", "going_concern_unaffected",
               "attest_board_records_kept"])
    ws.append([GCL, "002015", 2023, "1,234.56", dt.datetime(2024, 5, 20), True, None])
    ws.append([GCL, "002015", 2022.0, 1234.56, "2023-05-20", None, None])
    path = tmp_path / "batch.xlsx"
    wb.save(path)
    df = read_table(path)
    assert df.attrs["xlmodel_origin"] == "xlsx"
    out = evaluate_batch(df)
    assert sorted(out["fiscal_year"]) == [2022, 2023]
    ws.append([GCL, 2015, 2021, None, None, None, None])  # a number lost the leading zeros: restored, said
    wb.save(path)
    out = evaluate_batch(read_table(path))
    assert out["stock_code"].tolist() == ["002015"] * 3 and any("002015" in n for n in out.attrs["notes"])
    ws.append([GCL, 12345, 2020, None, None, 1, None])  # no listed code with its zeros; 1 is not yes/no
    wb.save(path)
    msg = str(pytest.raises(CaseError, evaluate_batch, read_table(path), source=str(path)).value)
    assert str(path) in msg
    assert "row 5, stock_code" in msg and "6-digit" in msg
    assert "row 5, going_concern_unaffected" in msg and "1 and 0 are not read as yes/no" in msg


# ---------------------------------------------------------------------------------------------------
# 3. one reading of every field


def _f(fid):
    return FIELDS[fid]


@pytest.mark.parametrize("origin", ["data", "yaml", "json", "csv", "xlsx", "table", "cell", "udf"])
@pytest.mark.parametrize("raw, want", [
    ("1,234.56", 1234.56), ("１２３４", 1234.0), (" 12345.5 ", 12345.5), ("+9,999.99", 9999.99), (1234.56, 1234.56),
    (1234, 1234.0), ("１，２３４．５", 1234.5),
])
def test_amounts_read_the_same_everywhere(origin, raw, want):
    assert read_field(_f("revenue"), raw, origin) == (want, None)


@pytest.mark.parametrize("raw", ["1.234,56", "12 345", "1,23", "1e5", "1.2亿", "100万", "(1,000.00)", "¥100", "=1+1",
                                 "#N/A", "1²"])
@pytest.mark.parametrize("origin", ["yaml", "csv", "cell"])
def test_ambiguous_amount_text_is_refused_everywhere(origin, raw):
    val, err = read_field(_f("revenue"), raw, origin)
    assert val is None and err.startswith("expected an amount in 元") and repr(raw) in err


def test_wan_yi_hint_shows_the_amount_in_yuan():
    _, err = read_field(_f("cash_dividend"), "1.2亿", "csv")
    assert "120,000,000.00 元" in err


@pytest.mark.parametrize("fid", ["cash_dividend", "buyback_amount", "buyback_cancelled", "stock_dividend",
                                 "capital_reserve_conversion", "interim_cash_dividend"])
def test_distribution_amounts_must_not_be_negative(fid):
    val, err = read_field(_f(fid), -0.01, "data")
    assert val is None and "≥ 0" in err
    assert read_field(_f("net_profit_attributable"), -0.01, "data") == (-0.01, None)


@pytest.mark.parametrize("raw, want", [(2021, 2021), (2021.0, 2021), ("2021", 2021), ("2021.0", 2021), ("２０２１", 2021),
                                       (np.int64(2021), 2021), (np.float64(2021.0), 2021)])
def test_fiscal_years(raw, want):
    assert read_year(raw, "csv") == (want, None)


@pytest.mark.parametrize("raw", [2021.5, 1e300, True, 1989, 2101, "FY2021", "2021.5", float("inf")])
def test_bad_fiscal_years(raw):
    y, err = read_year(raw, "data")
    assert y is None and "1990–2100" in err


@pytest.mark.parametrize("origin", ["data", "yaml", "csv", "xlsx", "cell"])
def test_stock_codes(origin):
    sc = _f("stock_code")
    assert read_field(sc, "002015", origin) == ("002015", None)
    assert read_field(sc, "００２０１５", origin) == ("002015", None)
    assert read_field(sc, "002015.SZ", origin) == ("002015", None)  # as vendors write it
    assert read_field(sc, "sz002015", origin) == ("002015", None)
    for bad in ["=1+1", "12345", "0020155", "٠٠٢٠١٥", "00201 5", "002015.SH", "2015.SZ", "SZ002015.SZ"]:
        val, err = read_field(sc, bad, origin)
        assert val is None and "6-digit stock code" in err or "002015 is listed in SZSE" in err, (bad, err)
    assert read_field(sc, 2015, origin) == ("002015", None)  # its zeros lost in a spreadsheet: restored
    assert read_field(sc, "2015", origin) == ("002015", None)
    val, err = read_field(sc, 2015.5, origin)
    assert val is None and err.startswith("证券代码应为6位数字")


@pytest.mark.parametrize("raw, want", [(True, True), (False, False), ("TRUE", True), ("False", False), ("是", True),
                                       ("否", False), ("yes", True), ("N", False), ("ＴＲＵＥ", True),
                                       (np.bool_(True), True)])
def test_booleans(raw, want):
    for origin in ("data", "csv", "cell"):
        assert read_field(_f("online_voting_offered"), raw, origin) == (want, None)


@pytest.mark.parametrize("raw", [1, 0, 1.0, "1", "0", "on", "maybe"])
def test_one_and_zero_are_not_booleans(raw):
    val, err = read_field(_f("online_voting_offered"), raw, "cell")
    assert val is None and err.startswith("expected yes/no")


def test_text_fields():
    name = _f("company_name")
    assert read_field(name, "=HYPERLINK(\"http://x\")", "csv") == ("=HYPERLINK(\"http://x\")", None)  # data, kept
    assert read_field(name, "  厚普清洁能源（集团）股份有限公司 ", "data") == ("厚普清洁能源（集团）股份有限公司", None)
    for bad in ["a\x07b", "a\nb", "a\u202eb", "a\x85b"]:
        val, err = read_field(name, bad, "data")
        assert val is None and "control character" in err
    val, err = read_field(name, "x" * (MAX_TEXT + 1), "data")
    assert val is None and "at most 200" in err and "never cut short" in err


def test_dates():
    d = _f("agm_date")
    for raw in ["2024-05-20", "2024/5/20", "2024年5月20日", "2024-05-20 00:00:00", dt.datetime(2024, 5, 20, 9),
                dt.date(2024, 5, 20)]:
        assert read_field(d, raw, "csv") == (dt.date(2024, 5, 20), None), raw
    assert read_field(d, 45432, "cell") == (dt.date(2024, 5, 20), None)  # a date serial from a spreadsheet
    assert read_field(d, 45432, "yaml")[0] is None  # not from a case file
    assert "no such day" in read_field(d, "2024-02-30", "data")[1]
    assert read_field(d, "20/05/2024", "data")[0] is None


def test_table_blanks():
    for blank in [None, float("nan"), np.nan, pd.NA, pd.NaT, "", "  "]:
        assert read_field(_f("cash_dividend"), blank, "table") == (None, None)
    assert "finite" in read_field(_f("cash_dividend"), float("nan"), "yaml")[1]  # NaN in a case file is not blank


def test_from_cell_and_read_field_agree():
    for raw in ["1,234.56", "67%", "１２３４", "1e5", "1.2亿"]:
        kind = Kind.RATIO if raw.endswith("%") else Kind.AMOUNT
        f = _f("vote_for_ratio") if kind == Kind.RATIO else _f("revenue")
        (a, err_a), (b, err_b) = read_field(f, from_cell(kind, raw), "data"), read_field(f, raw, "cell")
        assert a == b and bool(err_a) == bool(err_b)


def test_the_same_value_reads_the_same_in_yaml_json_csv_and_a_dataframe(tmp_path):
    text = f"""policy: {GCL}
evaluation_year: 2023
company: {{stock_code: "００２０１５"}}
years:
  - {{fiscal_year: "2023", cash_dividend: "1,234.56", revenue: "１２３４", online_voting_offered: "TRUE", vote_for_ratio: "67%"}}
"""
    y = tmp_path / "c.yaml"
    y.write_text(text, encoding="utf-8")
    case = load_case(y)
    j = tmp_path / "c.json"
    j.write_text(json.dumps(yaml.safe_load(text), ensure_ascii=False), encoding="utf-8")
    assert load_case(j).years == case.years == {2023: {"cash_dividend": 1234.56, "revenue": 1234.0,
                                                       "online_voting_offered": True, "vote_for_ratio": 0.67}}
    assert case.company["stock_code"] == "002015"
    csv_path = _csv(tmp_path, "policy,stock_code,fiscal_year,cash_dividend,revenue,online_voting_offered,vote_for_ratio\n"
                              f"{GCL},００２０１５,2023,\"1,234.56\",１２３４,TRUE,67%\n")
    a = evaluate_batch(read_table(csv_path))
    b = evaluate_batch(pd.DataFrame({"policy": [GCL], "stock_code": ["002015"], "fiscal_year": [2023],
                                     "cash_dividend": [1234.56], "revenue": [1234.0], "online_voting_offered": [True],
                                     "vote_for_ratio": [0.67]}))
    pd.testing.assert_frame_equal(a, b)
    rep = evaluate(case)
    assert a.loc[0, "overall_status"] == rep.overall_status


def test_boolean_columns_with_blanks_work_in_a_batch():
    df = pd.DataFrame({"policy": [GCL] * 3, "stock_code": ["000001", "000002", "000003"], "fiscal_year": [2023] * 3,
                       "going_concern_unaffected": [True, None, False],
                       "online_voting_offered": [1.0, np.nan, 0.0]})
    msg = str(pytest.raises(CaseError, evaluate_batch, df).value)
    assert "row 2, online_voting_offered (000001 2023)" in msg and "row 4, online_voting_offered" in msg
    df["online_voting_offered"] = pd.Series([True, np.nan, False], dtype=object)
    out = evaluate_batch(df)
    assert len(out) == 3


def test_batch_errors_name_row_field_and_year_all_at_once():
    df = pd.DataFrame({"policy": [GCL] * 3, "stock_code": ["002015", "=1+1", 12345.0], "fiscal_year": [2023, 2021.5, 2022],
                       "cash_dividend": ["-1", "1e308", "1.2亿"], "company_name": ["ok", "a\x07b", "x" * 201]})
    e = pytest.raises(CaseError, evaluate_batch, df, source="b.csv").value
    probs = problems(e)
    assert "expected an amount ≥ 0" in probs["row 2, cash_dividend (002015 2023)"]  # the row, field, company and year
    assert "6-digit stock code" in probs["row 3, stock_code"]
    assert "1990–2100" in probs["row 3, fiscal_year"]
    assert "012345 with its leading zeros is no listed code" in probs["row 4, stock_code"]
    assert "control character" in probs["row 3, company_name"]
    assert "at most 200" in probs["row 4, company_name (2022)"]
    assert "write amounts in 元" in probs["row 4, cash_dividend (2022)"]
    assert "exponent notation" in probs["row 3, cash_dividend"]
    assert str(e).startswith("b.csv: 批量文件有误 invalid batch file")


def test_unknown_columns_and_attest_columns_say_did_you_mean():
    df = pd.DataFrame({"policy": [GCL], "stock_code": ["002015"], "fiscal_year": [2023], "cash_divdend": [1.0],
                       "attest_board_record_kept": [True]})
    probs = problems(pytest.raises(CaseError, evaluate_batch, df).value)
    assert "did you mean 'cash_dividend'" in probs["column 'cash_divdend'"]
    assert "did you mean 'board_records_kept'" in probs["column 'attest_board_record_kept'"]


def test_unknown_field_ids_in_case_files_say_did_you_mean():
    data = sample_data()
    data["years"][2]["cash_divdend"] = 1.0
    data["company"]["stock_cod"] = "002015"
    data["evalution_year"] = 2023
    probs = problems(pytest.raises(CaseError, parse_case, data).value)
    assert "did you mean 'cash_dividend'" in probs["years[2].cash_divdend (2023)"]
    assert "did you mean 'stock_code'" in probs["company.stock_cod"]
    assert "did you mean 'evaluation_year'" in probs["evalution_year"]


def test_notes_may_name_attestations_and_misspellings_say_did_you_mean():
    data = sample_data()
    data["notes"] = {"board_records_kept": "董事会记录", "total_assets": "2023年报"}
    case = parse_case(data)
    evaluate(case)  # an attestation id is a valid notes key
    data["notes"] = {"board_record_kept": "x", "total_asset": "y"}
    case = parse_case(data)
    probs = problems(pytest.raises(CaseError, evaluate, case).value)
    assert "did you mean 'board_records_kept'" in probs["notes.board_record_kept"]
    assert "did you mean 'total_assets'" in probs["notes.total_asset"]
    assert "attestations.board_record_kept" not in probs  # not mistaken for an attestation
    known = model_for(load_plan_by_id(GCL)).attestation_ids()
    with pytest.raises(CaseError):
        check_attestations(case, known)


def test_misspelt_attestation_id_says_did_you_mean():
    data = sample_data()
    data["attestations"]["board_record_kept"] = True
    probs = problems(pytest.raises(CaseError, evaluate, parse_case(data)).value)
    assert "did you mean 'board_records_kept'" in probs["attestations.board_record_kept"]


def test_total_assets_in_wan_yuan_are_refused_unless_confirmed(capsys, tmp_path):
    """Total assets of 3,856.20 元 are no listed company's: refused (issue 20), naming the field and year, in a
    case file and a batch; ``amounts_confirmed`` lets deliberate figures through (and the warning says so)."""
    data = sample_data()
    y = data["years"][2]
    y.update(net_profit_attributable=90899.37, total_assets=3856.2, net_assets=1200.5, revenue=9538.1)
    with pytest.raises(CaseError) as e:
        parse_case(data)
    (p,) = e.value.problems
    assert p.where == "years[2].total_assets (2023)" and p.message.startswith("3,856.20 元低于 10,000,000 元")
    assert "万元" in p.message and "amounts_confirmed" in p.message
    path = tmp_path / "wan.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    code, out, err = cli(capsys, "evaluate", path)
    assert code == 2 and str(path) in err and "total_assets (2023)" in err
    data["company"]["amounts_confirmed"] = True
    case = parse_case(data)
    assert len(case.warnings) == 1 and "万元 or 亿元" in case.warnings[0] and "2023" in case.warnings[0]
    assert parse_case(sample_data()).warnings == []
    df = pd.DataFrame({"policy": [GCL, GCL], "stock_code": ["002015", "600869"], "fiscal_year": [2023, 2023],
                       "total_assets": [3856.2, 5e9], "revenue": [9538.1, 1e9]})
    with pytest.raises(CaseError) as e:
        evaluate_batch(df)
    assert [p.where for p in e.value.problems] == ["第2行 row 2, total_assets"]
    df["amounts_confirmed"] = ["是", "否"]
    res = evaluate_batch(df)
    (w,) = res.attrs["warnings"]
    assert "row 2 (002015 2023)" in w and "600869" not in w
    assert list(res["reg_amounts_plausible.status"]) == ["pass", "pass"]  # confirmed; 5e9 of assets is plausible


def test_cli_batch_prints_warnings_and_errors_name_the_file(tmp_path, capsys):
    path = _csv(tmp_path, "policy,stock_code,fiscal_year,net_profit_attributable,revenue\n"
                          f"{GCL},002015,2023,90899.37,9538.1\n")
    code, out, err = cli(capsys, "evaluate", "--batch", path, "-o", tmp_path / "out.csv")
    assert code in (0, 1) and "注意 Warning:" in err and str(path) in err
    bad = _csv(tmp_path, f"policy,stock_code,fiscal_year,cash_dividend\n{GCL},002015,2023,-5\n", name="bad.csv")
    code, out, err = cli(capsys, "evaluate", "--batch", bad, "-o", tmp_path / "out2.csv")
    assert code == 2
    clean(err)
    assert str(bad) in err and "row 2, cash_dividend (002015 2023)" in err


def test_workbook_cells_are_read_by_the_same_reader():
    from xlmodel.workbook.reader import read_value

    val, prob = read_value(Kind.AMOUNT, "cash_dividend", "-1,000", "输入!F12")
    assert val is None and prob.where == "输入!F12" and prob.message.startswith("cash_dividend: expected an amount ≥ 0")
    assert read_value(Kind.AMOUNT, "revenue", "１，２３４", "输入!F13") == (1234.0, None)
    val, prob = read_value(Kind.TEXT, "stock_code", "=1+1", "输入!E5")
    assert "6-digit stock code" in prob.message and "'=1+1'" in prob.message
    val, prob = read_value(Kind.BOOL, "board_records_kept", 1, "输入!I40")
    assert prob.message.startswith("board_records_kept: expected yes/no")


def test_field_reader_never_raises_on_odd_values():
    odd = [object(), b"bytes", [1], {"a": 1}, dt.time(1, 2), complex(1, 2), 10**400, float("-inf"), "\ud800", "\x00"]
    for f in list(FIELDS.values()) + [Field("x", "x", "x", Kind.BOOL)]:
        for v in odd:
            for origin in ("yaml", "csv", "cell"):
                val, err = read_field(f, v, origin)
                assert val is None and err, (f.id, v)


def _typed(x):
    """A loaded document with each value's type beside it (a YamlInt is not a plain int)."""
    if isinstance(x, dict):
        return {k: _typed(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_typed(v) for v in x]
    return (type(x).__name__, x)


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="this PyYAML has no libyaml")
def test_libyaml_events_load_what_pyyaml_loads_within_the_same_bounds():
    """load_yaml reads libyaml's events under PyYAML's own composer: every bundled plan and sample reads
    to the same values of the same types (YAML 1.1 integers, plain texts, dates kept as text) as PyYAML
    alone reads, and the bounds refuse the same documents."""
    root = Path(__file__).resolve().parents[1]
    files = sorted((root / "templates").glob("*.yaml")) + sorted((root / "samples").glob("*.yaml"))
    assert len(files) >= 6
    for f in files:
        for cls in (u.SafeLoader, u.PlainIntLoader):
            text = f.read_text(encoding="utf-8")
            fast, pure = u._fast(cls)(text), cls(text)
            assert fast.__class__ is not cls and _typed(fast.get_single_data()) == _typed(pure.get_single_data()), f
    odd = "a: 012\nb: 0x1F\nc: 1e3\nd: 2024-06-30\ne: '7'\nf: 1_000\n"
    assert _typed(u.load_yaml(odd, "odd.yaml")) == _typed(u.SafeLoader(odd).get_single_data())
    assert isinstance(u.load_yaml(odd, "odd.yaml")["a"], u.YamlInt) and u.load_yaml(odd, "odd.yaml")["d"] == "2024-06-30"
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{k}: &{k} [{', '.join(['*' + p] * 10)}]\n" for p, k in zip("abcdefg", "bcdefgh"))
    deep = "a: " + "[" * (u.MAX_DEPTH + 5) + "]" * (u.MAX_DEPTH + 5) + "\n"
    dup = "a: 1\nb: 2\na: 3\n"
    for text, said in ((bomb, "an alias bomb"), (deep, "nested more than"), (dup, "a")):
        with pytest.raises(XlmodelError, match=said if text is not dup else "line 3"):
            u.load_yaml(text, "hostile.yaml")
    with pytest.raises(XlmodelError, match="U\\+001B"):
        u.load_yaml("a: b\nc: \x1b[31m\n", "esc.yaml")
