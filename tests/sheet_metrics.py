"""What a modeller signing a workbook looks at, counted (issue 52 points 4–7): a test helper, and a script.

``python tests/sheet_metrics.py samples/gcl-energy-2022-2024.xlsx`` prints the figures; the tests call
:func:`measure` and assert them. Every figure is read with openpyxl from the saved file:

* ``rows`` — the rows of 计算 / 测算 with a formula in a year column (the model's rows);
* ``no_unit`` — of them, those with nothing in the unit column (D); ``no_unit_amounts`` — those formatted
  as money;
* ``id_label`` — of them, those whose Chinese label (B) is the machine id (A) or empty, or reads as an id
  (ASCII letters, dots and underscores only);
* ``general_results`` — formula cells of 计算 / 测算 / 检查 / 汇总 whose cached value is a number and whose
  format is General (a result shown as 711161180.3429999);
* ``changing`` — the rows whose formula is not the same across the year columns (R1C1 terms);
* ``params_unvalidated`` — editable (unlocked) values on 参数 with no data validation.
"""

from __future__ import annotations

import re
import sys

from openpyxl import load_workbook
from openpyxl.utils import column_index_from_string, get_column_letter

FIRST_YEAR_COL = 5  # column E (1-based)
HEADER_ROW = 5  # the year header (1-based)
_ID = re.compile(r"^[A-Za-z0-9_.]+$")
_REF = re.compile(r"(?<![$A-Za-z_])([A-Z]{1,3})(\$?\d+)")


def r1c1(formula: str, col: int) -> str:
    """Relative column references as offsets from the cell's column (absolute ones kept as written)."""
    return _REF.sub(lambda m: f"C[{column_index_from_string(m.group(1)) - col}]{m.group(2)}", formula)


def _year_cols(ws) -> list[int]:
    cols = []
    c = FIRST_YEAR_COL
    while isinstance(ws.cell(HEADER_ROW, c).value, (int, float, str)) and ws.cell(HEADER_ROW, c).value not in ("", None):
        v = ws.cell(HEADER_ROW, c).value
        if isinstance(v, str) and not v.startswith("="):
            break
        cols.append(c)
        c += 1
    return cols


def _model_rows(ws) -> dict[int, list[int]]:
    """row -> the year columns holding a formula."""
    cols = _year_cols(ws)
    out: dict[int, list[int]] = {}
    for r in range(HEADER_ROW + 1, ws.max_row + 1):
        got = [c for c in cols if isinstance(ws.cell(r, c).value, str) and ws.cell(r, c).value.startswith("=")]
        if got:
            out[r] = got
    return out


def sheet_figures(ws, values_ws) -> dict:
    rows = _model_rows(ws)
    no_unit = [r for r in rows if ws.cell(r, 4).value in (None, "")]
    amounts = [r for r in no_unit if "#,##0.00" in (ws.cell(r, rows[r][0]).number_format or "")]
    id_label = [r for r in rows if ws.cell(r, 2).value in (None, "") or ws.cell(r, 2).value == ws.cell(r, 1).value
                or _ID.match(str(ws.cell(r, 2).value))]
    changing = [r for r, cs in rows.items() if len({r1c1(ws.cell(r, c).value, c) for c in cs}) > 1]
    return {"rows": len(rows), "no_unit": len(no_unit), "no_unit_amounts": len(amounts), "id_label": len(id_label),
            "changing": len(changing), "general_results": general_results(ws, values_ws),
            "changing_rows": [(ws.cell(r, 1).value, r) for r in changing],
            "no_unit_rows": [(ws.cell(r, 1).value, r) for r in no_unit],
            "id_label_rows": [(ws.cell(r, 1).value, r) for r in id_label]}


def general_results(ws, values_ws) -> int:
    """Formula cells with a number in General format (a row whose unit is a text label, 文字 or 状态, aside:
    a part of a text formula may hold 0 there)."""
    n = 0
    for row in ws.iter_rows():
        if row and ws.cell(row[0].row, 4).value in ("文字", "状态"):
            continue
        for cell in row:
            if isinstance(cell.value, str) and cell.value.startswith("=") and cell.number_format == "General":
                v = values_ws[cell.coordinate].value
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    n += 1
    return n


def params_unvalidated(ws) -> tuple[int, int]:
    """(editable values on 参数, of them without a data validation)."""
    validated = set()
    for dv in ws.data_validations.dataValidation:
        for rg in dv.sqref.ranges:
            for r in range(rg.min_row, rg.max_row + 1):
                for c in range(rg.min_col, rg.max_col + 1):
                    validated.add(f"{get_column_letter(c)}{r}")
    editable = [c for row in ws.iter_rows(min_row=HEADER_ROW + 1, min_col=4, max_col=4) for c in row
                if c.value is not None and c.protection is not None and c.protection.locked is False]
    return len(editable), sum(1 for c in editable if c.coordinate not in validated)


def measure(path) -> dict:
    wb = load_workbook(path)
    wv = load_workbook(path, data_only=True)
    out = {}
    for sheet in ("计算", "测算"):
        out[sheet] = sheet_figures(wb[sheet], wv[sheet])
    for sheet in ("检查", "汇总"):
        out[sheet] = {"general_results": general_results(wb[sheet], wv[sheet])}
    out["参数"] = dict(zip(("editable", "unvalidated"), params_unvalidated(wb["参数"])))
    return out


def main(argv: list[str]) -> int:
    for path in argv:
        got = measure(path)
        print(path)
        for sheet, figs in got.items():
            print(" ", sheet, {k: v for k, v in figs.items() if not k.endswith("_rows")})
        if "-v" in sys.argv:
            for sheet in ("计算", "测算"):
                for k in ("changing_rows", "no_unit_rows", "id_label_rows"):
                    print(sheet, k, got[sheet][k])
    return 0


if __name__ == "__main__":
    raise SystemExit(main([a for a in sys.argv[1:] if a != "-v"]))
