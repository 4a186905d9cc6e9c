"""Parity: a workbook as a spreadsheet engine computed it, against xlmodel — the one comparison.

The parity tests (tests/test_parity_engines.py, the capability and timeline tests) and
``xlmodel selftest`` compare through this module, so that what CI proves on Linux and what the
user's own Excel proves on the desk are the same test:

* every cell with a value on the formula sheets, as the engine computed it, against the value
  xlmodel cached there (the evaluator's, written by :mod:`.writer`), to the fen and better
  (:func:`same`);
* every named result on 汇总 and every rule's status and figures on 检查 — whatever the layout
  places there (:data:`.layout.OUTPUTS`, the model's rules), never a list of our own — against
  :func:`xlmodel.evaluator.evaluate`;
* every evaluated year's results and statuses on 计算 against ``evaluate`` of that year.

The engines' known half-fen ROUND deviations (docs/domain.md §4, "Where the engines part") are
recognised here (:func:`half_fen`), counted and set aside for that engine only, with their
reason, under a cap (:data:`SET_ASIDE`, :func:`aside_within_cap`): never silently passed.

Values are read straight from the sheets' XML (:func:`sheet_values`, :mod:`xlmodel.inputs.safexml`), as
openpyxl's ``data_only`` read gives them, five times faster: the parity set is thousands of
workbooks.
"""

from __future__ import annotations

import dataclasses
import math
import posixpath
import zipfile
from pathlib import Path

from ..inputs import safexml
from ..workbook.layout import CHECK_COL_INDEX, OUTPUTS, SHEETS, Layout, col_name, timeline

FORMULA_SHEETS = (SHEETS["calc"], SHEETS["checks"], SHEETS["summary"], SHEETS["planning"], SHEETS["announce"], SHEETS["cover"])

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PKG = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_C, _V, _T, _SI = f"{_MAIN}c", f"{_MAIN}v", f"{_MAIN}t", f"{_MAIN}si"


# ---- reading values ---------------------------------------------------------------------------

def _iterparse(f):
    """No entity expansion, no external entities (:mod:`xlmodel.inputs.safexml`: defusedxml's rules, the C
    parser's speed where a part has no DTD)."""
    return safexml.iterparse(f.read())


def _sheet_parts(z: zipfile.ZipFile) -> dict[str, str]:
    """Sheet name -> its part in the zip."""
    rels = {}
    for _, el in _iterparse(z.open("xl/_rels/workbook.xml.rels")):
        if el.tag == f"{_PKG}Relationship":
            target = el.get("Target")
            rels[el.get("Id")] = target.lstrip("/") if target.startswith("/") else posixpath.normpath(f"xl/{target}")
    out = {}
    for _, el in _iterparse(z.open("xl/workbook.xml")):
        if el.tag == f"{_MAIN}sheet":
            out[el.get("name")] = rels[el.get(f"{_REL}id")]
    return out


def _shared(z: zipfile.ZipFile) -> list[str]:
    if "xl/sharedStrings.xml" not in z.namelist():
        return []
    return ["".join(t.text or "" for t in si.iter(_T)) for si in safexml.fromstring(z.read("xl/sharedStrings.xml")).iter(_SI)]


def sheet_values(path: str | Path, sheets: tuple[str, ...] = FORMULA_SHEETS) -> dict[tuple[str, str], object]:
    """{(sheet, "E7"): value} for every cell with a value on ``sheets``.

    Numbers as float, booleans as bool, text (shared, inline or a formula's string result) as str,
    error values as their text (``#VALUE!``); an empty text is no value. Dates stay serial numbers
    (both sides of every comparison are read here)."""
    out: dict[tuple[str, str], object] = {}
    with zipfile.ZipFile(path) as z:
        parts, shared = _sheet_parts(z), None
        for name in sheets:
            for el in safexml.fromstring(z.read(parts[name])).iter(_C):
                t, v = el.get("t", "n"), el.find(_V)
                if t == "inlineStr":
                    value = "".join(x.text or "" for x in el.iter(f"{_MAIN}t"))
                elif v is None or v.text is None:
                    value = "" if t == "str" else None
                elif t == "s":
                    shared = _shared(z) if shared is None else shared
                    value = shared[int(v.text)]
                elif t in ("str", "e"):
                    value = v.text
                elif t == "b":
                    value = v.text.strip() in ("1", "true")
                else:
                    value = float(v.text)
                if value is not None and value != "":
                    out[(name, el.get("r"))] = value
    return out


#: xlrd's cell types (xlrd.XL_CELL_*): empty, text, number, date, boolean, error, blank
_XLS_EMPTY, _XLS_TEXT, _XLS_NUMBER, _XLS_DATE, _XLS_BOOLEAN, _XLS_ERROR, _XLS_BLANK = range(7)


def xls_values(path: str | Path, sheets: tuple[str, ...] = FORMULA_SHEETS) -> dict[tuple[str, str], object]:
    """:func:`sheet_values` of an engine's .xls (BIFF8) copy, read with xlrd (a test dependency): the
    same cells, typed the same way (Gnumeric's .xls export: :func:`xlmodel.engines.recalc.recalculate_gnumeric`)."""
    import os

    import xlrd

    out: dict[tuple[str, str], object] = {}
    with open(os.devnull, "w") as quiet:  # xlrd prints what it cannot parse of a defined name's formula
        book = xlrd.open_workbook(str(path), logfile=quiet, on_demand=True)
        for name in sheets:
            if name not in book.sheet_names():
                continue
            sheet = book.sheet_by_name(name)
            for r in range(sheet.nrows):
                for c, (t, v) in enumerate(zip(sheet.row_types(r), sheet.row_values(r))):
                    if t in (_XLS_EMPTY, _XLS_BLANK) or (t == _XLS_TEXT and v == ""):
                        continue
                    value = (v if t == _XLS_TEXT else bool(v) if t == _XLS_BOOLEAN else
                             xlrd.error_text_from_code.get(v, "#N/A") if t == _XLS_ERROR else float(v))
                    out[(name, f"{col_name(c)}{r + 1}")] = value
        book.release_resources()
    return out


def engine_values(path: str | Path, sheets: tuple[str, ...] = FORMULA_SHEETS) -> dict[tuple[str, str], object]:
    """An engine's recalculated copy's values: :func:`xls_values` of a .xls, else :func:`sheet_values`."""
    return xls_values(path, sheets) if Path(path).suffix.lower() == ".xls" else sheet_values(path, sheets)


# ---- to the fen -------------------------------------------------------------------------------

def same(a, b) -> bool:
    """Equal as the parity tests require: to the fen and better — a relative 1e-9 for ratios, never
    more than 0.001 on an amount, and a few ulps where floats are that coarse (amounts near the
    1e15 limit); booleans and text exactly (a boolean is not the number 1/0)."""
    if a.__class__ is b.__class__ and a == b:  # the most of a workbook's cells: equal, of one type
        return True
    if isinstance(a, bool) or isinstance(b, bool):  # a boolean equals a boolean only (never 1/0)
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        tol = max(min(1e-9 * max(1.0, abs(a)), 0.001), 4 * math.ulp(abs(a)))
        return a == b or abs(a - b) <= tol
    return a == b


# ---- the engines' half fens (docs/domain.md §4) -------------------------------------------------

@dataclasses.dataclass(frozen=True)
class SetAside:
    """Workbooks an engine computes its own known way, set aside for it only, under a cap.

    A workbook is set aside when its differences include a ROUND (a formula cell with ``ROUND(``)
    one fen off, of an amount of at least ``from_amount``; at most ``max_share`` of the workbooks
    (and never fewer than ``floor`` allowed, for small sets) may be."""

    from_amount: float
    max_share: float
    floor: int
    reason_zh: str
    reason_en: str
    explain_zh: str = ""  #: how the engine comes to its fen, said beside each workbook set aside
    explain_en: str = ""


#: Gnumeric's ROUND can round a large amount's binary value as it is where Excel, LibreOffice and
#: xlmodel take it at 15 significant digits: 0.30 × 68,723,968,220.15 = 20,617,190,466.045 is .05
#: there and .04 in Gnumeric. LibreOffice takes the 15 digits too, except on amounts of about
#: 2×10^10 元 and more (x·100 near 2^41): 0.3 × 108,417,637,264.95 = 32,525,291,179.484997… is .48
#: there, .49 in xlmodel. Excel is the 15-digit reading itself: nothing is set aside for it.
SET_ASIDE = {
    "gnumeric": SetAside(0.0, 0.05, 3, "Gnumeric 的 ROUND 按二进制值取舍半分",
                         "Gnumeric's ROUND decides a half fen on the binary value",
                         "按15位有效数字恰为半分的金额，其二进制值可略小于半分：Gnumeric 按二进制值舍去，Excel 与 xlmodel 按15位进位",
                         "an amount exactly at a half fen to 15 significant digits can be a little below it in binary: "
                         "Gnumeric rounds the binary value down, Excel and xlmodel round the 15 digits up"),
    "libreoffice": SetAside(2e10, 0.01, 1, "LibreOffice 对 2×10^10 元以上金额的 ROUND 按二进制值取舍半分",
                            "LibreOffice's ROUND decides a half fen on the binary value of amounts ≥ 2×10^10 元",
                            "2×10^10 元以上（金额×100 接近 2^41），LibreOffice 不再先取15位有效数字：如 0.3 × 108,417,637,264.95 "
                            "按15位为 32,525,291,179.485，二进制为 32,525,291,179.484997…，LibreOffice 得 .48，Excel 与 xlmodel 得 .49",
                            "from 2×10^10 元 (the amount ×100 near 2^41) LibreOffice no longer takes 15 significant digits first: "
                            "0.3 × 108,417,637,264.95 is 32,525,291,179.485 to 15 digits and 32,525,291,179.484997… in "
                            "binary; LibreOffice gives .48, Excel and xlmodel .49"),
}


def _differing(a: dict, b: dict) -> list:
    """The cells (sheet, A1) where two workbooks' values are not :func:`same`, in order."""
    return [k for k in sorted(set(a) | set(b)) if not same(a.get(k), b.get(k))]


def half_fen(ours: Path, theirs: Path, from_amount: float = 0.0, a: dict | None = None, b: dict | None = None,
             diff: list | None = None) -> bool:
    """The workbooks differ, and one of the differences is a ROUND one fen off, of an amount of at
    least ``from_amount`` (see :data:`SET_ASIDE`). ``a``, ``b``: the two workbooks' values, when
    they are read already; ``diff``: where they differ, when that is known (:func:`_differing`)."""
    return half_fen_cell(ours, theirs, from_amount, a, b, diff) is not None


def half_fen_cell(ours: Path, theirs: Path, from_amount: float = 0.0, a: dict | None = None, b: dict | None = None,
                  diff: list | None = None) -> tuple[str, float, float] | None:
    """(sheet!cell, xlmodel's value, the engine's) of the first ROUND one fen off that :func:`half_fen`
    finds, or None."""
    import openpyxl

    a = sheet_values(ours) if a is None else a
    b = sheet_values(theirs) if b is None else b
    if not (_differing(a, b) if diff is None else diff):
        return None
    formulas = openpyxl.load_workbook(ours, read_only=False)
    for sheet, coord in a:  # a fen is within same()'s relative tolerance on large amounts: look at every ROUND
        f, x, y = formulas[sheet][coord].value, a.get((sheet, coord)), b.get((sheet, coord))
        if (isinstance(f, str) and "ROUND(" in f and isinstance(x, float) and isinstance(y, (int, float))
                and abs(abs(x - y) - 0.01) < 1e-4 and abs(x) >= from_amount):
            return f"{sheet}!{coord}", x, float(y)
    return None


def aside_cap(engine: str, total: int) -> int:
    """How many of ``total`` workbooks of one plan may be set aside for ``engine`` (:data:`SET_ASIDE`: its
    share of them, never fewer than its floor); 0 for an engine without a known deviation."""
    rule = SET_ASIDE.get(engine)
    return 0 if rule is None else max(int(rule.max_share * total + 1e-9), rule.floor)


def aside_within_cap(engine: str, aside: int, total: int) -> bool:
    """The workbooks set aside for ``engine`` are few enough (:data:`SET_ASIDE`); none for an
    engine without a known deviation."""
    return aside <= aside_cap(engine, total)


# ---- one workbook -----------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Difference:
    """One cell where the engine's value is not the expected one."""

    plan: str
    case: str  # the case's source (a synthetic case: synthetic:PLAN:SEED:INDEX, rebuildable)
    where: str  # sheet!cell
    what: str  # what the cell holds: "formula", an output, RULE.status, YEAR NAME
    engine: str
    got: object  # the engine's value
    want: object  # the expected value
    against: str  # "xlmodel" (the value xlmodel cached) or "evaluator"

    def __str__(self) -> str:
        return (f"{self.case} {self.where} ({self.what}): {self.engine} {self.got!r} vs "
                f"{self.against} {self.want!r}")


@dataclasses.dataclass
class Compared:
    """One workbook in one engine, read once: every comparison made."""

    name: str
    plan: str
    case: str
    aside: bool  # set aside: a half-fen ROUND this engine rounds its own way (SET_ASIDE)
    aside_at: tuple | None = None  # (sheet!cell, xlmodel's value, the engine's) of that ROUND
    cells: int = 0
    formula_mismatches: list = dataclasses.field(default_factory=list)
    output_mismatches: list = dataclasses.field(default_factory=list)
    year_mismatches: list = dataclasses.field(default_factory=list)
    years: int = 0

    @property
    def differences(self) -> list[Difference]:
        return self.formula_mismatches + self.output_mismatches + self.year_mismatches


def case_layout(case, policy=None) -> Layout:
    """The layout of the workbook ``build`` writes for ``case`` (its timeline)."""
    from ..evaluator import model_for

    model = model_for(policy or case.policy)
    return Layout(model, case.evaluation_year, *timeline(model, case.evaluation_year, case.years))


def compare(engine: str, case, ours: Path, theirs: Path | None, policy=None, ours_values: dict | None = None,
            theirs_values: dict | None = None) -> Compared:
    """Our workbook of ``case`` and the engine's recalculated copy, each read once: every formula
    cell against xlmodel's cached value, then the results against the evaluator. ``ours_values``:
    :func:`sheet_values` of ``ours``, when it is read already (one workbook against several engines);
    ``theirs_values``: the engine's values read another way, typed as :func:`sheet_values` types them
    (read in the engine's memory: :mod:`xlmodel.engines.in_memory`), in place
    of a copy ``theirs``."""
    a = sheet_values(ours) if ours_values is None else ours_values
    b = engine_values(theirs) if theirs_values is None else theirs_values
    rule = SET_ASIDE.get(engine)
    plan = getattr(policy, "id", None) or case.policy
    diff = _differing(a, b)
    at = half_fen_cell(ours, theirs, rule.from_amount, a, b, diff) if rule is not None and diff else None
    aside = at is not None
    out = Compared(Path(ours).name, plan, case.source, aside, at)
    if aside:
        return out
    out.cells = len(set(a) | set(b))
    out.formula_mismatches = [Difference(plan, case.source, f"{key[0]}!{key[1]}", "formula", engine, b.get(key),
                                         a.get(key), "xlmodel") for key in diff]
    layout = case_layout(case, policy)
    out.output_mismatches = outputs_and_statuses(engine, case, b, layout, policy)
    out.year_mismatches, out.years = every_year(engine, case, b, layout, policy)
    return out


def _shown(value):
    """An evaluator value as the workbook shows it: statuses in Chinese, blank as no value, a yes/no as
    1/0 (shown 是/否: no TRUE/FALSE in the workbook)."""
    from ..rules.model import STATUS_ZH

    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if value is None or value == "":
        return None
    return STATUS_ZH.get(value, value) if isinstance(value, str) else value


def outputs_and_statuses(engine: str, case, vals: dict, layout: Layout, policy=None) -> list[Difference]:
    """Every named result on 汇总 (the layout's outputs) and every rule's status and figures on 检查,
    as the engine computed them, against evaluate()."""
    from ..evaluator import evaluate

    rep = evaluate(case, policy)
    plan = rep.policy
    summary, checks = SHEETS["summary"], SHEETS["checks"]
    out = []
    for name, *_ in OUTPUTS:
        where = f"C{layout.output_rows[name] + 1}"
        got, want = vals.get((summary, where)), _shown(getattr(rep, name))
        if not same(got, want):
            out.append(Difference(plan, case.source, f"{summary}!{where}", name, engine, got, want, "evaluator"))
    for r in rep.rules:
        row = layout.check_rows[r.id] + 1
        cells = [("status", _shown(r.status))]
        if r.unit != "日期":  # a date's figures are serial numbers on the sheet
            cells += [(k, v) for k in ("actual", "required", "margin", "shortfall")
                      for v in [getattr(r, k)] if isinstance(v, (int, float)) and not isinstance(v, bool)]
        for key, want in cells:
            where = f"{col_name(CHECK_COL_INDEX[key])}{row}"
            got = vals.get((checks, where))
            if not same(got, want):
                out.append(Difference(plan, case.source, f"{checks}!{where}", f"{r.id}.{key}", engine, got, want,
                                      "evaluator"))
    return out


def every_year(engine: str, case, vals: dict, layout: Layout, policy=None) -> tuple[list[Difference], int]:
    """Every evaluated year's results (the layout's outputs on 计算) and every rule's status against
    evaluate() of that year: (differences, years). In a year other than the evaluation year the
    case's attestations are not given (they are the evaluation year's), as in the workbook."""
    from ..evaluator import evaluate

    calc = SHEETS["calc"]
    out = []
    for y in layout.eval_years:
        at = case if y == case.evaluation_year else dataclasses.replace(case, evaluation_year=y, attestations={})
        rep = evaluate(at, policy)
        want = {name: _shown(getattr(rep, name)) for name, *_ in OUTPUTS if name in layout.calc_rows}
        want |= {f"{r.id}.status": _shown(r.status) for r in rep.rules}
        for name, v in want.items():
            where = f"{col_name(layout.col_of(y))}{layout.calc_rows[name] + 1}"
            got = vals.get((calc, where))
            if not same(got, v):
                out.append(Difference(rep.policy, case.source, f"{calc}!{where}", f"{y} {name}", engine, got, v,
                                      "evaluator"))
    return out, len(layout.eval_years)
