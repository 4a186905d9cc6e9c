"""Read a filled-in xlmodel workbook back: inputs, cached results, formula integrity.

Workbooks come back from email and from other people's hands, so the file is
treated as untrusted: the zip is inspected before any XML is parsed (size,
entry count, compression ratio), XML is parsed with defusedxml (no entity
expansion), macros are never loaded or run, and every problem with an input is
reported at once with its sheet!cell and what was expected.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from openpyxl.utils.cell import column_index_from_string
from openpyxl.utils.escape import unescape

from .. import __version__
from ..case import Case, part_problems, read_field
from ..rules.consistency import CONFIRM_FIELD
from ..errors import Problem, ProblemsError, XlmodelError
from ..evaluator import model_for
from ..fields import COMPANY_FIELDS, FIELDS, YEAR_FIELDS, Field, Kind
from ..plans.schema import Policy
from ..inputs.untrusted import (MAX_WORKBOOK_CELLS, MAX_XLSX_BYTES, MAX_XLSX_PART, MAX_XLSX_PARTS, MAX_XLSX_RATIO,
                                MAX_XLSX_UNPACKED, inspect_xlsx, shown)
from ..outputs import HEADLINE as HEADLINE_OUTPUTS, OUTPUT, SUMMARY as SUMMARY_OUTPUTS
from .layout import CHECK_COL_INDEX, FIRST_YEAR_COL, HEADER_ROW, MAX_YEAR_COLUMNS, SHEETS, Layout, col_name, pname, q

# xlmodel's own workbooks are well under 1 MB unpacked; these bound what a hostile file can cost
MAX_FILE = MAX_XLSX_BYTES  # bytes on disk
MAX_UNPACKED = MAX_XLSX_UNPACKED  # bytes, all entries
MAX_ENTRY = MAX_XLSX_PART  # bytes, one entry (a sheet of an xlmodel workbook is ~0.2 MB)
MAX_NAME_CELLS = 64  # cells one defined name of ours may span
MAX_RATIO = MAX_XLSX_RATIO  # uncompressed / compressed, for entries over 1 MiB
MAX_ENTRIES = MAX_XLSX_PARTS
MAX_CELLS = MAX_WORKBOOK_CELLS  # cell elements over all sheets (an xlmodel workbook has a few thousand)



class WorkbookError(ProblemsError):
    title = "无法使用该工作簿 cannot use this workbook"


@dataclass
class WorkbookRead:
    path: Path
    case: Case
    policy: Policy
    built_with: dict[str, str]  # xlmodel_version, xlmodel_policy, xlmodel_policy_version
    cached: dict[str, object]  # out_* / chk_* as the file shows them
    notes: list[str] = field(default_factory=list)  # things the user should know (macros ignored, …)
    tampered: list[str] = field(default_factory=list)  # sheet!cell: what changed
    params: dict[str, object] = field(default_factory=dict)  # editable parameters the workbook changed: name -> value
    params_changed: list[str] = field(default_factory=list)  # the same, as sentences (value and the plan's)
    #: 测算's proposed cash dividends (拟定现金分红) of the planned years, {year: 元}: what ``xlmodel plan``
    #: takes as its ``--pay`` and ``refresh``/``fill`` carry into the new workbook
    plan_pay: dict[int, float] = field(default_factory=dict)


_VERIFIED: dict[str, bytes] = {}  # path -> the bytes _inspect_zip checked (the last file only)


def _inspect_zip(path: Path) -> list[str]:
    """Refuse what is not a sane xlsx before parsing any XML (:func:`xlmodel.inputs.untrusted.inspect_xlsx`:
    size, parts, unpacked size, compression ratio, checksums, cells per sheet); return notes.

    The bytes checked are kept for :func:`_book`, so the file is parsed as it was inspected."""
    data, notes = inspect_xlsx(path, max_bytes=MAX_FILE, max_unpacked=MAX_UNPACKED, max_part=MAX_ENTRY,
                               max_parts=MAX_ENTRIES, max_ratio=MAX_RATIO, max_cells=MAX_CELLS)
    _VERIFIED.clear()
    _VERIFIED[str(path)] = data
    return notes


def _book(path: Path):
    """(formulas, cached values) of the workbook :func:`_inspect_zip` checked, read from its XML
    (:func:`.xmlbook.read_book`: defusedxml, the values openpyxl gives, both views in one pass)."""
    if str(path) not in _VERIFIED:
        _inspect_zip(path)
    return _read_bytes(path, _VERIFIED[str(path)])


def _read_bytes(path: Path, data: bytes):
    from openpyxl.xml import DEFUSEDXML

    from .xmlbook import CellError, read_book

    if not DEFUSEDXML:  # pragma: no cover - defusedxml is a dependency
        raise XlmodelError("defusedxml is required to read workbooks safely")
    try:
        return read_book(data)
    except XlmodelError:
        raise
    except CellError as e:  # NaN, INF: named by its cell, as every value a workbook cannot hold
        from ..inputs.sanitize import plain_text

        raise XlmodelError(f"{path}: 无法读取工作簿 cannot read the workbook: {plain_text(e.where)}: 值 {plain_text(e.text)!r} 不是数字 "
                           "is not a number (NaN and INF are no numbers a workbook holds)") from None
    except Exception as e:  # defusedxml and openpyxl's part parsers raise many types for hostile or broken files
        raise XlmodelError(f"{path}: 无法读取工作簿 cannot read the workbook ({type(e).__name__}: {str(e)[:200]})") from None


_AREA = re.compile(r"^(?:'((?:[^']|'')+)'|([^'!:,()\s]+))!\$?([A-Za-z]{1,3})\$?([0-9]{1,7})(?::\$?([A-Za-z]{1,3})\$?([0-9]{1,7}))?$")
_WHOLE = re.compile(r"^(?:'(?:[^']|'')+'|[^'!]+)!(?:\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3}|\$?[0-9]+:\$?[0-9]+)$")
MAX_ROW, MAX_COL = 1_048_576, 16_384


@dataclass(frozen=True)
class Expect:
    """Where xlmodel puts a name: ``n`` cells of one row of ``sheet`` from column ``col`` (0-based).

    ``row`` (0-based) is where the layout puts it; rows may have been inserted above, so unless
    ``exact_row`` the row is free, but column A of the row must then hold ``key`` (the field or
    rule id the writer puts there)."""
    sheet: str
    col: int
    n: int
    row: int
    key: str | None = None
    exact_row: bool = False

    def ref(self, row1: int | None = None) -> str:
        r = row1 if row1 is not None else self.row + 1
        first = f"{q(self.sheet)}!${col_name(self.col)}${r}"
        return first if self.n == 1 else f"{first}:${col_name(self.col + self.n - 1)}${r}"

    def what(self, row1: int | None = None) -> str:
        return f"expected {'one cell' if self.n == 1 else f'{self.n} cells'} {self.ref(row1)}"


class NameProblem(Exception):
    """A defined name of ours exists but does not point where xlmodel put it."""

    def __init__(self, problem: Problem):
        self.problem = problem
        super().__init__(str(problem))


def _shown_ref(ref: str, limit: int = 120) -> str:
    """A reference from the file as a message shows it: one line, escapes visible, cut to ``limit``."""
    from ..inputs.sanitize import plain_text

    s = plain_text(ref) or "(empty)"
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _parse_area(ref: str) -> tuple[str, int, int, int, int]:
    """'输入'!$E$12:$I$12 -> (sheet, c0, r0, c1, r1), 1-based; ValueError(why) for anything else."""
    ref = (ref or "").strip()
    m = _AREA.match(ref)
    if not m:
        if _WHOLE.match(ref):
            raise ValueError("a whole column or row")
        if "," in ref or "~" in ref or " " in ref.split("!")[-1]:
            raise ValueError("several areas")
        if "#REF!" in ref.upper():
            raise ValueError("a deleted reference (#REF!)")
        raise ValueError("not a cell or a range of cells")
    sheet = m.group(1).replace("''", "'") if m.group(1) is not None else m.group(2)
    c0, r0 = column_index_from_string(m.group(3).upper()), int(m.group(4))
    c1, r1 = (column_index_from_string(m.group(5).upper()), int(m.group(6))) if m.group(5) else (c0, r0)
    if not (1 <= r0 <= MAX_ROW and 1 <= r1 <= MAX_ROW and 1 <= c0 <= MAX_COL and 1 <= c1 <= MAX_COL):
        raise ValueError("outside the sheet")
    if c1 < c0 or r1 < r0:
        raise ValueError("a reversed range")
    return sheet, c0, r0, c1, r1


def _cell(wb, name: str, expect: Expect | None = None):
    """The (sheet, cells) a workbook-scoped defined name points to; None when there is no such name.

    With ``expect`` the name must point exactly there (see :class:`Expect`), on the visible sheet,
    and no sheet may have a name of its own that shadows it; otherwise :class:`NameProblem` is
    raised, naming the name, where it points and what was expected. Without ``expect`` any single
    row of at most MAX_NAME_CELLS cells on a visible sheet is accepted, and None is returned for
    anything else. Cells are looked up one by one only after the shape is checked, so a name
    stretched over a whole sheet costs nothing."""
    dn = wb.defined_names.get(name) if hasattr(wb.defined_names, "get") else None
    if dn is None:
        return None
    ref = str(dn.attr_text if dn.attr_text is not None else "")

    def bad(message: str, row1: int | None = None):
        if expect is None:
            return None
        raise NameProblem(Problem(f"{name} → {_shown_ref(ref)}", f"{message}{'; ' if message else ''}{expect.what(row1)}"))

    try:
        sheet, c0, r0, c1, r1 = _parse_area(ref)
    except ValueError as why:
        return bad(str(why))
    if sheet not in wb.sheetnames:
        return bad(f"there is no sheet {shown(sheet, 60)}")
    if expect is not None and sheet != expect.sheet:
        return bad("another sheet")
    ws = wb[sheet]
    if getattr(ws, "sheet_state", "visible") != "visible":
        return bad(f"the sheet {sheet!r} is {ws.sheet_state}")
    if expect is None:
        if r1 != r0 or (c1 - c0 + 1) > MAX_NAME_CELLS:
            return None
    else:
        row1 = r0 if r0 == r1 else None
        if r1 != r0 or c0 != expect.col + 1 or c1 - c0 + 1 != expect.n:
            return bad("", row1)
        if expect.exact_row and r0 != expect.row + 1:
            return bad("", None)
        if expect.key is not None and not expect.exact_row:
            key = ws.cell(r0, 1).value
            if not (isinstance(key, str) and key.strip() == expect.key):
                return bad(f"row {r0} is the row of {key!r} (column A), not of {expect.key}", None)
        for other in wb.worksheets:
            local = getattr(other, "defined_names", None)
            if local is not None and name in local:
                raise NameProblem(Problem(f"{name} (sheet {other.title!r} only)",
                                          "a second definition for one sheet shadows the workbook's there; remove it"))
    return sheet, [ws.cell(r0, c) for c in range(c0, c1 + 1)]


def read_value(f_kind: Kind, fid: str, raw, where: str) -> tuple[object, Problem | None]:
    """A cell value -> (value or None when blank, problem). Never guesses.

    The one reading of every field (:func:`xlmodel.case.read_field`, origin "cell"), after
    openpyxl's ``_xHHHH_`` escapes are undone; the problem names the field and quotes the cell."""
    if isinstance(raw, str):
        raw = unescape(raw)
    spec = FIELDS.get(fid)
    if spec is None or spec.kind != f_kind:  # an attestation (a yes/no by rule id)
        spec = Field(fid, fid, fid, f_kind)
    val, err = read_field(spec, raw, "cell")
    if err:
        return None, Problem(where, f"{fid}: {err}")
    return val, None


def _read_year(wb, path: Path, name: str, expect: Expect, what: str) -> int:
    """A year input (the evaluation year, the first fiscal year) where xlmodel put it."""
    try:
        loc = _cell(wb, name, expect)
    except NameProblem as e:
        raise WorkbookError(str(path), [e.problem]) from None
    if loc is None:
        raise XlmodelError(f"{path}: 名称 {name} 未指向输入表的单元格（工作表被删或名称被改），请重建工作簿 — "
                           f"the name {name} does not point to a cell of the input sheet "
                           "(sheet deleted or name edited); rebuild the workbook with `xlmodel build`")
    sheet, cells = loc
    raw = cells[0].value
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or raw != int(raw) or not 1990 <= raw <= 2100:
        raise WorkbookError(str(path), [Problem(f"{sheet}!{cells[0].coordinate}", f"年度有误 {what}: expected a year such as 2024, got {raw!r}")])
    return int(raw)


def _read_count(wb, name: str) -> int | None:
    """A whole number a model constant holds (None when the name or the number is not there)."""
    loc = _cell(wb, name)
    raw = loc[1][0].value if loc and len(loc[1]) == 1 else None
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or raw != int(raw) or not 1 <= raw <= MAX_YEAR_COLUMNS:
        return None
    return int(raw)


def read_workbook(path: str | Path, check_formulas: bool = True, installed_plan_wins: bool = False) -> WorkbookRead:
    """Read a workbook back. Its plan is the installed one of its ``xlmodel_policy`` id or the one it
    carries (:func:`xlmodel.workbook.embed.workbook_plan`; ``installed_plan_wins`` for refresh)."""
    path = Path(path)
    src = _open(path, installed_plan_wins)
    wb, model = src.wb, model_for(src.policy)
    inputs = _input_sheet(wb, path)
    year, L = _timeline(wb, path, model, inputs)
    loc = _Locator(wb, src.legacy)
    found = _Inputs()
    _read_year_inputs(loc, found, inputs, L)
    found.years.setdefault(year, {})
    _read_company(loc, found, inputs, L)
    for fy, vals in found.years.items():  # what a year's values contradict, named at the cell (xlmodel.rules.consistency)
        loc.problems += [Problem(found.cell_of[(k, fy)], f"{k}: {msg} ({fy})")
                         for k, msg in part_problems(vals, bool(found.company.get(CONFIRM_FIELD)))]
    _read_attestations(loc, found, inputs, L, model)
    plan_pay = _read_proposed(wb, L, year, loc)
    dropped = _dropped_attestations(wb, set(model.attestation_ids()))
    notes_by_field = _notes(wb, found.rows, L.notes_col + 1)
    if loc.problems:
        raise WorkbookError(str(path), loc.problems)
    policy = src.policy
    case = Case(policy.id, year, found.company, {y: found.years[y] for y in sorted(found.years)}, found.attestations,
                str(path), notes_by_field)
    exact, n_cached = _named_places(L, model)
    cached, misplaced = _cached_results(wb, src.values, exact, n_cached)
    result = WorkbookRead(path, case, policy, src.built_with, cached, src.notes, plan_pay=plan_pay)
    if SHEETS["params"] in wb.sheetnames and not misplaced:
        result.params, result.params_changed, fixed = _read_params(wb[SHEETS["params"]], model, L, path)
        misplaced += fixed
    result.notes += [f"not carried: attestation {k} (no longer a rule of {policy.id})" for k in dropped]
    result.notes += loc.later
    props = src.props
    if props.get("xlmodel_recalculated_by"):  # xlmodel recalc says which engine computed the cached values
        result.notes.append(f"最近一次由 xlmodel recalc 重新计算 last recalculated by xlmodel recalc in "
                            f"{shown(props['xlmodel_recalculated_by'], 120)}")
    if src.built_with["xlmodel_policy_version"] != policy.version:
        result.notes.append(f"built with policy {src.pid} v{src.built_with['xlmodel_policy_version']}; the current "
                            f"version is v{policy.version}: run `xlmodel refresh` to rebuild it")
    elif check_formulas:
        result.tampered = misplaced + compare_formulas(wb, policy, case, L)
    return result


@dataclass
class _Source:
    """A workbook opened (:func:`_open`): its parts, values, properties, plan and what was noted."""
    wb: object
    values: object
    props: dict[str, str]
    pid: str
    policy: Policy
    notes: list[str]
    built_with: dict[str, str]
    legacy: bool  # built with another version of xlmodel or of the plan: it may lack names this one writes


def _open(path: Path, installed_plan_wins: bool) -> _Source:
    """The workbook inspected and parsed, its xlmodel properties, and its plan: the installed one of its
    ``xlmodel_policy`` id, or the one it carries (the property names a plan by id, never a file)."""
    notes = _inspect_zip(path)
    wb, values = _book(path)
    props = {p.name: str(p.value) for p in getattr(wb, "custom_doc_props", [])}
    pid = props.get("xlmodel_policy")
    if not pid or "in_evaluation_year" not in wb.defined_names:
        raise XlmodelError(f"{path}: 不是 xlmodel 生成的工作簿 not an xlmodel workbook (no xlmodel properties or in_* names); "
                           "build one with `xlmodel build`")
    from .embed import workbook_plan

    policy, plan_notes = workbook_plan(path, props, pid, installed_wins=installed_plan_wins)
    built_with = {k: props.get(k, "") for k in ("xlmodel_version", "xlmodel_policy", "xlmodel_policy_version")}
    legacy = built_with["xlmodel_version"] != __version__ or built_with["xlmodel_policy_version"] != policy.version
    return _Source(wb, values, props, pid, policy, notes + plan_notes, built_with, legacy)


def _input_sheet(wb, path: Path) -> str:
    """The input sheet's name; it must be there and visible."""
    inputs = SHEETS["inputs"]
    if inputs not in wb.sheetnames:
        raise XlmodelError(f"{path}: 缺少输入表 {inputs!r}（被删除或改名），请重建工作簿 — the input sheet {inputs!r} is missing (deleted or renamed); "
                           "rebuild the workbook with `xlmodel build`")
    if wb[inputs].sheet_state != "visible":
        raise WorkbookError(str(path), [Problem(f"sheet {inputs!r}", f"输入表被隐藏，请在 Excel 中取消隐藏 is {wb[inputs].sheet_state}: xlmodel reads the "
                                                "inputs only from the visible input sheet; unhide it in Excel")])
    return inputs


def _timeline(wb, path: Path, model, inputs: str) -> tuple[int, Layout]:
    """The evaluation year and the workbook's own timeline (a year's column never moves)."""
    year = _read_year(wb, path, "in_evaluation_year", Expect(inputs, FIRST_YEAR_COL, 1, 2), "evaluation year")
    first = _read_year(wb, path, "in_first_year", Expect(inputs, FIRST_YEAR_COL, 1, HEADER_ROW), "first fiscal year")
    span = _cell(wb, "in_net_profit_attributable")  # the timeline's width: any single row is accepted here
    n_years = len(span[1]) if span else 0
    if not 1 - model.history <= n_years <= MAX_YEAR_COLUMNS:
        raise XlmodelError(f"{path}: 名称 in_net_profit_attributable 未覆盖各年度列（被改动），请重建工作簿 — "
                           f"the name in_net_profit_attributable does not span the year columns "
                           "(edited); rebuild the workbook with `xlmodel build`")
    n_eval = _read_count(wb, "model_eval_years")
    try:
        L = Layout(model, year, first, n_years, n_eval)
    except ValueError as why:
        raise XlmodelError(f"{path}: 年度列不是 xlmodel 写出的时间轴，请重建工作簿 the year columns are not a timeline xlmodel writes ({why}); "
                           "rebuild the workbook with `xlmodel build`") from None
    if year not in L.eval_years:
        raise WorkbookError(str(path), [Problem(f"{inputs}!{col_name(FIRST_YEAR_COL)}3",
                                                f"评估年度不在本工作簿的评估年度之内 evaluation year {year} is not an evaluated year of this workbook "
                                                f"({L.eval_years[0]}–{L.eval_years[-1]}: the years before need history)")])
    return year, L


class _Locator:
    """Finds the input names where xlmodel put them, collecting the problems; a name missing from a
    workbook of another version is said (``later``), not a problem: nothing to carry."""

    def __init__(self, wb, legacy: bool):
        self.wb, self.legacy = wb, legacy
        self.problems: list[Problem] = []
        self.later: list[str] = []

    def __call__(self, name: str, expect: Expect):
        try:
            loc = _cell(self.wb, name, expect)
        except NameProblem as e:
            self.problems.append(e.problem)
            return None
        if loc is None:
            if self.legacy:
                self.later.append(f"{name}: not in this workbook (built with another version); left blank")
            else:
                self.problems.append(Problem(name, f"the defined name is missing (workbook from another tool or edited); "
                                                   f"{expect.what()}"))
        return loc


@dataclass
class _Inputs:
    """What the input sheet holds, as read: each year's values, the company, the attestations, and
    where each was (its notes cell's row; each year value's sheet!cell)."""
    years: dict[int, dict] = field(default_factory=dict)
    company: dict = field(default_factory=dict)
    attestations: dict = field(default_factory=dict)
    rows: list[tuple[str, str, int]] = field(default_factory=list)  # (notes key, sheet, row) of every input read
    cell_of: dict[tuple[str, int], str] = field(default_factory=dict)  # (field, year) -> sheet!cell


#: the key (column A) of 测算's row of proposed amounts (xlmodel/workbook/sheets/planning.py)
PROPOSED_KEY = "plan_proposed"


def _read_proposed(wb, L: Layout, year: int, locate: "_Locator") -> dict[int, float]:
    """测算's proposed amounts (拟定现金分红), read as a cash dividend is: {year: 元} of the years planned (the
    evaluation year and later); an entry in an earlier year is not read, and said. A workbook without 测算
    (built before it) proposes nothing."""
    name = SHEETS["planning"]
    if name not in wb.sheetnames:
        return {}
    ws = wb[name]
    rows = [r for r in range(1, min(ws.max_row, 10_000) + 1) if ws.cell(r, 1).value == PROPOSED_KEY]
    if len(rows) > 1:  # a copied row: which one holds the amounts cannot be told, and none is dropped unsaid
        cells = "、".join(f"{name}!A{r}" for r in rows[:5]) + ("…" if len(rows) > 5 else "")
        locate.problems.append(Problem(f"{name}!A{rows[1]}", f"拟定现金分红的行（{PROPOSED_KEY}）出现 {len(rows)} 次 {cells}，"
                                       f"无法确定按哪一行测算，请删去复制的行 — the row of proposed cash dividends appears "
                                       f"{len(rows)} times: which one to plan with cannot be told; delete the copies"))
    if len(rows) != 1:
        return {}
    out = {}
    for y in L.years:
        c = ws.cell(rows[0], L.col_of(y) + 1)
        if c.value is None or c.value == "":
            continue
        where = f"{name}!{c.coordinate}"
        val, prob = read_value(Kind.AMOUNT, "cash_dividend", c.value, where)
        if prob:
            locate.problems.append(Problem(where, f"拟定现金分红 proposed cash dividend ({y}): {prob.message}"))
        elif y < year:
            locate.later.append(f"{where}: {y} 年在评估年度 {year} 之前，拟定金额不计 the amount proposed for {y}, before "
                                f"the evaluation year, is not read")
        elif val is not None:
            out[y] = float(val)
    return out


def _read_year_inputs(locate: _Locator, found: _Inputs, inputs: str, L: Layout) -> None:
    """Each year field's row: a value per year column (the timeline: a column's year never depends on
    the evaluation year)."""
    for f in YEAR_FIELDS:
        loc = locate(f"in_{f.id}", Expect(inputs, FIRST_YEAR_COL, L.n_years, L.inputs[f.id], key=f.id))
        if loc is None:
            continue
        sheet, cells = loc
        found.rows.append((f.id, sheet, cells[0].row))
        for i, c in enumerate(cells):
            fy = L.first_year + i
            found.cell_of[(f.id, fy)] = f"{sheet}!{c.coordinate}"
            val, prob = read_value(f.kind, f.id, c.value, found.cell_of[(f.id, fy)])
            if prob:
                locate.problems.append(Problem(prob.where, f"{prob.message} ({fy})"))
            elif val is not None:
                found.years.setdefault(fy, {})[f.id] = val


def _read_one(locate: _Locator, found: _Inputs, name: str, key: str, kind: Kind, expect: Expect, into: dict) -> None:
    """One single-cell input (a company field, an attestation) into ``into``."""
    loc = locate(name, expect)
    if loc is None:
        return
    sheet, cells = loc
    found.rows.append((key, sheet, cells[0].row))
    val, prob = read_value(kind, key, cells[0].value, f"{sheet}!{cells[0].coordinate}")
    if prob:
        locate.problems.append(prob)
    elif val is not None:
        into[key] = val


def _read_company(locate: _Locator, found: _Inputs, inputs: str, L: Layout) -> None:
    for f in COMPANY_FIELDS:
        _read_one(locate, found, f"in_{f.id}", f.id, f.kind,
                  Expect(inputs, FIRST_YEAR_COL, 1, L.company[f.id], key=f.id), found.company)


def _read_attestations(locate: _Locator, found: _Inputs, inputs: str, L: Layout, model) -> None:
    for rid in model.attestation_ids():
        _read_one(locate, found, f"att_{rid}", rid, Kind.BOOL,
                  Expect(inputs, FIRST_YEAR_COL, 1, L.attest[rid], key=rid), found.attestations)


def _dropped_attestations(wb, known: set[str]) -> list[str]:
    """Attestations given for rules the plan no longer has: not carried, and said so."""
    dropped = []
    for name in sorted(wb.defined_names):
        if name.startswith("att_") and name[4:] not in known:
            loc = _cell(wb, name)
            raw = loc[1][0].value if loc else None
            if raw is not None and not (isinstance(raw, str) and not raw.strip()):
                dropped.append(name[4:])
    return dropped


def _named_places(L: Layout, model) -> tuple[list[tuple], int]:
    """Where xlmodel puts each name of a result, parameter, label and the timeline: (name, sheet,
    column or (first, last), first row, last row), 0-based; the first ``n`` are the cached results."""
    exact = [(o.name, SHEETS["summary"], 2, L.output_rows[o.id], L.output_rows[o.id]) for o in SUMMARY_OUTPUTS]
    exact += [(f"chk_{rd.spec.id}", SHEETS["checks"], CHECK_COL_INDEX["status"], L.check_rows[rd.spec.id],
               L.check_rows[rd.spec.id])
              for rd in model.rules]
    n_cached = len(exact)
    exact += [(pname(k), SHEETS["params"], 3, r0, r1) for k, (r0, r1) in L.params.items()]
    exact += [(f"lbl_{code}", SHEETS["lists"], 1, row, row) for code, (_text, row) in L.labels.items()]
    exact += [(f"list_{e}", SHEETS["lists"], 1, r0, r1) for e, (r0, r1) in L.enum_ranges.items()]
    # the timeline's names (formulas read the years and the evaluation year's column through them)
    exact += [("in_years", SHEETS["inputs"], (FIRST_YEAR_COL, L.last_col), HEADER_ROW, HEADER_ROW),
              ("calc_eval_index", SHEETS["calc"], FIRST_YEAR_COL, HEADER_ROW - 2, HEADER_ROW - 2)]
    return exact, n_cached


def _cached_results(wb, values, exact: list[tuple], n_cached: int) -> tuple[dict[str, object], list[str]]:
    """The cached value of each result where its name points where xlmodel put it; the names that
    do not (missing, or pointing elsewhere)."""
    cached: dict[str, object] = {}
    misplaced: list[str] = []
    for i, (name, sheet, col, r0, r1) in enumerate(exact):
        c0, c1 = col if isinstance(col, tuple) else (col, col)
        want = (sheet, c0 + 1, r0 + 1, c1 + 1, r1 + 1)
        dn = wb.defined_names.get(name)
        if dn is None:
            misplaced.append(f"{name}: the defined name is missing")
            continue
        try:
            got = _parse_area(str(dn.attr_text or ""))
        except ValueError as why:
            got = str(why)
        if got != want:
            where = f"{q(sheet)}!${col_name(c0)}${r0 + 1}" + (f":${col_name(c1)}${r1 + 1}" if (r1, c1) != (r0, c0) else "")
            misplaced.append(f"{name} → {_shown_ref(str(dn.attr_text or ''))}: expected {where}")
            continue
        if i < n_cached and sheet in values.sheetnames:
            v = values[sheet].cell(r0 + 1, col + 1).value
            cached[name] = None if v == "" else v
    return cached, misplaced


def _same_param(got, want) -> bool:
    """A parameter cell holds the plan's value: a number as a spreadsheet stores it, at 15 significant
    digits (LibreOffice saves 2/3 as 0.666666666666667), a choice as its text."""
    if isinstance(want, str) or isinstance(got, str):
        return got == want
    return f"{got:.15g}" == f"{want:.15g}"


def _read_params(ws, model, L: Layout, path: Path) -> tuple[dict, list[str], list[str]]:
    """The parameter sheet's values that differ from the plan's: (editable ones by name, sentences,
    fixed ones changed). A value that is not one a parameter can take is a problem naming the cell."""
    by_text = {text: code for code, (text, _row) in L.labels.items()}
    values, said, fixed, problems = {}, [], [], []
    for name, (r0, r1) in L.params.items():
        prm = model.params[name]
        plan = prm.value if isinstance(prm.value, tuple) else (prm.value,)
        got = []
        for row, want in zip(range(r0, r1 + 1), plan):
            raw, where = ws.cell(row + 1, 4).value, f"{ws.title}!D{row + 1}"
            if isinstance(want, str):
                v = by_text.get(raw.strip()) if isinstance(raw, str) else None
            else:
                v = float(raw) if isinstance(raw, (int, float)) and not isinstance(raw, bool) and math.isfinite(raw) \
                    and abs(raw) < 1e15 else None
            if v is None:
                problems.append(Problem(where, f"{pname(name)}: expected {'a choice from the list' if isinstance(want, str) else 'a number'}, "
                                               f"got {shown(raw)}"))
            got.append(v)
        if None in got or all(_same_param(g, w) for g, w in zip(got, plan)):
            continue
        value = tuple(got) if isinstance(prm.value, tuple) else got[0]
        shown_v = ", ".join(map(str, got)) if isinstance(prm.value, tuple) else f"{got[0]:g}"
        shown_p = ", ".join(map(str, plan)) if isinstance(prm.value, tuple) else f"{plan[0]:g}"
        if prm.editable:
            values[name] = value
            said.append(f"{pname(name)} = {shown_v} (the plan: {shown_p}, clause {prm.clause})")
        else:
            fixed.append(f"{pname(name)}: a fixed parameter changed to {shown_v} (it is {shown_p})")
    if problems:
        raise WorkbookError(str(path), problems)
    return values, said, fixed


def _notes(wb, rows: list[tuple[str, str, int]], notes_col: int) -> dict[str, str]:
    """The source/notes cell of each input row read ((key, sheet, row), 1-based ``notes_col``).

    Whatever the cell holds is carried, as text: a number or a date typed into it too."""
    out = {}
    for key, sheet, row in rows:
        note = wb[sheet].cell(row, notes_col).value
        if note is None:
            continue
        if isinstance(note, bool):
            text = "TRUE" if note else "FALSE"
        elif isinstance(note, float) and note.is_integer() and abs(note) < 1e15:
            text = str(int(note))
        elif isinstance(note, dt.datetime):
            text = note.date().isoformat() if note.time() == dt.time() else note.isoformat(sep=" ")
        elif isinstance(note, (dt.date, dt.time)):
            text = note.isoformat()
        else:
            text = str(note)
        if text.strip():
            out[key] = unescape(text.strip())
    return out


def _norm(formula) -> str:
    """Formula text as both Excel and LibreOffice write it back (quotes, case, spaces)."""
    s = str(formula).lstrip("=")
    s = re.sub(r"'([^'!]+)'!", r"\1!", s)
    s = s.replace("_xlfn.", "").replace(" ", "")
    return s.upper()


_CELL = re.compile(r"(?<![A-Z0-9_.!])(?:([^\W\d][\w.]*)!)?\$?([A-Z]{1,3})\$?(\d+)(?![A-Z0-9_(])")


def _row_keys(ws) -> dict[int, str]:
    """Each row of a sheet by what it holds, not where it is: the id or label in column A (else B),
    a row without one by the keyed row above it and its distance. Inserting rows moves no key."""
    keys: dict[int, str] = {}
    seen: dict[str, int] = {}
    last, gap = "top", 0
    cells = getattr(ws, "cells", None)  # an xmlbook sheet: its cells' values by (row, column), no cell objects
    if isinstance(cells, dict):
        rows = (((r, 1), (r, 2)) for r in range(1, ws.max_row + 1))
        values = ((r, (cells.get(a), cells.get(b))) for r, (a, b) in enumerate(rows, 1))
    else:
        values = ((row[0].row, tuple(c.value for c in row)) for row in ws.iter_rows(min_col=1, max_col=2))
    for r, vals in values:
        label = next((v.strip() for v in vals if isinstance(v, str) and v.strip()), None)
        if label:
            n = seen.get(label, 0)
            seen[label] = n + 1
            last, gap = (label if n == 0 else f"{label}#{n}"), 0
            keys[r] = last
        else:
            gap += 1
            keys[r] = f"{last}+{gap}"
    return keys


def _keyed(formula: str, sheet: str, keys: dict[str, dict[int, str]]) -> str:
    """A formula with every cell reference written as sheet!column[row key] (see :func:`_row_keys`)."""
    def sub(m):
        target = m.group(1) or sheet
        rows = keys.get(target)
        row = int(m.group(3))
        key = rows.get(row, f"row{row}") if rows is not None else f"row{row}"
        return f"{target}!{m.group(2)}[{key}]"
    return _CELL.sub(sub, _norm(formula))


@dataclass
class _Reference:
    """The formulas this xlmodel writes for a plan and timeline, read back as a workbook gives them:
    ((row, column, formula) of each sheet, row-major), each sheet's row keys, keyed formulas as needed."""
    sheetnames: list[str]
    formulas: dict[str, list[tuple[int, int, str]]]
    keys: dict[str, dict[int, str]]
    keyed: dict[tuple[str, int, int], str] = field(default_factory=dict)


_REFERENCES: dict[tuple, _Reference] = {}  # a folder of workbooks of a few plans builds each reference once
MAX_REFERENCES = 32


def _reference(policy: Policy, layout: Layout, year: int) -> _Reference:
    """The reference workbook for ``policy`` and ``layout``, built once per plan (its content, not its
    name: a carried or edited plan is its own key) and timeline."""
    from . import reference_cache

    key = _reference_key(policy, layout, year)
    hit = _REFERENCES.get(key)
    if hit is None:
        kept = reference_cache.load(key)  # composed by an earlier run (xlmodel.workbook.reference_cache)
        if kept is None:
            kept = _compose_reference(policy, layout, year)
            reference_cache.store(key, kept)
        hit = _Reference(*kept)
        if len(_REFERENCES) >= MAX_REFERENCES:
            _REFERENCES.pop(next(iter(_REFERENCES)))
        _REFERENCES[key] = hit
    return hit


def _reference_key(policy: Policy, layout: Layout, year: int) -> tuple:
    """What the reference is a function of, beside xlmodel's code: the plan's content and published text,
    the evaluation year and the timeline."""
    from ..plans.text import policy_source

    src = policy_source(policy)
    return (policy.model_dump_json(), src.text if src is not None else None, year, layout.first_year,
            layout.n_years, layout.n_eval)


def _compose_reference(policy: Policy, layout: Layout, year: int):
    """(sheet names, formulas of each sheet, row keys of each sheet) of the workbook this xlmodel
    builds for ``policy``, ``layout`` and ``year``, as the reader reads them back."""
    from .writer import WorkbookBuilder

    builder = WorkbookBuilder(policy, Case(policy.id, year), first_year=layout.first_year,
                              n_years=layout.n_years, n_eval=layout.n_eval)
    ref = _as_read_back(builder.compose())
    if ref is None:  # a cell whose text the file's XML could change: read it back from the file itself
        with tempfile.TemporaryDirectory(prefix="xlmodel-ref-") as d:
            ref_path = Path(d) / "reference.xlsx"
            builder.write(ref_path)
            ref, _values = _read_bytes(ref_path, ref_path.read_bytes())
    formulas = {n: [(r, c, v) for (r, c), v in sorted(ref[n].cells.items()) if isinstance(v, str) and v.startswith("=")]
                for n in ref.sheetnames}
    return list(ref.sheetnames), formulas, {n: _row_keys(ref[n]) for n in ref.sheetnames}


#: text that the .xlsx's XML might not give back as written: control characters but tab and line feed
#: (XlsxWriter writes them as _xHHHH_; a carriage return would come back a line feed), what looks like
#: such an escape (``_x``; the reader drops ``x005F_``), what XML cannot hold, XlsxWriter's rich-text marker
_NOT_PLAIN = re.compile(r"[\x00-\x08\x0b-\x1f\ud800-\udfff\ufffe\uffff]|_x|x005F|^<r>", re.IGNORECASE)


class _NotPlain(Exception):
    pass


def _as_read_back(wb):
    """The formulas view of an XlsxWriter workbook not yet saved, as :func:`.xmlbook.read_book` gives it
    back from the saved file (sheets in their order, every cell of each sheet's table: a formula as
    ``"=" + text``, a text as itself, anything else as a value that is not text) — or None when a cell
    is one whose text the file's XML could change (:data:`_NOT_PLAIN`), an array formula, a rich text or
    an error value: then the reference is read back from the saved file.

    It reads XlsxWriter's insides (``str_table``, ``ws.table`` and its cell tuples; the version pinned in
    pyproject.toml, the result proven equal to the saved file's by tests/test_xmlbook.py); should they
    change, the reference is read back from the saved file. Only what :func:`_reference` reads is needed: which cells are there (a sheet's last row), the
    formulas, and the texts of columns A and B (the row keys)."""
    from .xmlbook import XmlBook, XmlSheet

    strings = sorted(wb.str_table.string_table, key=wb.str_table.string_table.__getitem__)
    plain = _NOT_PLAIN.search
    sheets = []
    try:
        for ws in wb.worksheets():
            if ws.is_chartsheet:
                sheets.append(XmlSheet(ws.name, "visible", {}, {}, True))  # (a state is not read)
                continue
            cells = {}
            for r, row in ws.table.items():
                for c, cell in row.items():
                    kind = cell.__class__.__name__
                    if kind == "Formula":
                        value = "=" + cell.formula
                        if plain(cell.formula):
                            raise _NotPlain
                    elif kind == "String":
                        value = strings[cell.string]
                        if (c < 2 or value.startswith("=")) and plain(value):
                            raise _NotPlain
                    elif kind in ("Number", "Datetime", "Blank", "Boolean"):
                        value = 0  # not text: what the reader looks at is only whether a cell holds text
                    else:  # an array formula, a rich text, an error value
                        raise _NotPlain
                    cells[(r + 1, c + 1)] = value
            sheets.append(XmlSheet(ws.name, "visible", cells, {}))
    except (_NotPlain, AttributeError, TypeError, KeyError, IndexError):  # or XlsxWriter's insides changed: the file
        return None
    return XmlBook(sheets, {}, [])


def compare_formulas(wb, policy: Policy, case: Case, layout: Layout | None = None) -> list[str]:
    """Cells whose formula differs from what this xlmodel generates for the plan and year.

    Cells are matched by the row they belong to (the id in column A), and references are compared by
    the rows they point to, so rows inserted where the README allows leave every formula trusted.
    ``wb``: the workbook as :mod:`.xmlbook` or openpyxl reads it."""
    layout = layout or Layout(model_for(policy), case.evaluation_year)  # the default timeline
    ref = _reference(policy, layout, case.evaluation_year)
    theirs = ref.keys
    ours = {n: _row_keys(wb[n]) for n in ref.sheetnames if n in wb.sheetnames}
    # no row moved on any sheet: a formula written as xlmodel writes it is the same formula
    unmoved = all(ours.get(n) == theirs[n] for n in ref.sheetnames)
    changed = []
    for name in ref.sheetnames:  # every sheet xlmodel writes formulas on (cover, inputs' year headers, …)
        if name not in wb.sheetnames:
            changed.append(f"{name}: sheet missing")
            continue
        ws = wb[name]
        where = {k: r for r, k in ours[name].items()}
        for row, col, want in ref.formulas[name]:
            r = row if unmoved else where.get(theirs[name][row])
            cell = ws.cell(r, col) if r is not None else None
            got = cell.value if cell is not None else None
            if unmoved and got == want:
                continue
            at = f"{name}!{cell.coordinate if cell is not None else col_name(col - 1) + str(row)}"
            if not (isinstance(got, str) and got.startswith("=")):
                changed.append(f"{at}: formula replaced by {got!r}")
                continue
            keyed = ref.keyed.get((name, row, col))
            if keyed is None:
                keyed = ref.keyed[(name, row, col)] = _keyed(want, name, theirs)
            if _keyed(got, name, ours) != keyed:
                changed.append(f"{at}: {got} (expected {want})")
    return changed


def _shown(v) -> tuple[str, str]:
    """A cached or evaluated value as a user reads it: (Chinese, English)."""
    if v is None or v == "":
        return "空白", "blank"
    if isinstance(v, bool):
        return ("是", "yes") if v else ("否", "no")
    if isinstance(v, (int, float)):
        return f"{v:,.2f}", f"{v:,.2f}"
    from ..rules.model import STATUS_EN, STATUS_ZH

    en = {zh: STATUS_EN[k] for k, zh in STATUS_ZH.items()}  # a status as the workbook shows it, in Chinese
    return str(v), en.get(str(v), str(v))


def cached_differences(read: WorkbookRead, report) -> list[str]:
    """Where the workbook's own cached results differ from the evaluator's, one line each, named as the
    workbook's labels name them (the result's or the rule's title and clause: never an internal name, 51.5)."""
    from ..rules.model import STATUS_ZH

    want = {o.name: (getattr(report, o.id), o.zh, o.en) for o in HEADLINE_OUTPUTS}
    o = OUTPUT["overall_status"]
    want[o.name] = (STATUS_ZH[report.overall_status], o.zh, o.en)
    for r in report.rules:
        want[f"chk_{r.id}"] = (STATUS_ZH[r.status], f"规则状态「{r.title_zh}」〔{r.clause}〕", "rule status")
    diffs = []
    for name, (v, zh, en) in want.items():
        if name not in read.cached:
            continue
        got = read.cached[name]
        same = got == v or (isinstance(got, (int, float)) and isinstance(v, (int, float))
                            and not isinstance(got, bool) and abs(got - v) < 0.005)
        if not same:
            (gz, ge), (vz, ve) = _shown(got), _shown(v)
            diffs.append(f"{zh}：工作簿显示 {gz}，评估结果为 {vz} — {en}: the workbook shows {ge}, the evaluator gives {ve}")
    return diffs

