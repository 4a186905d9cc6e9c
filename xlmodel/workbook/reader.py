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
from dataclasses import dataclass, field
from pathlib import Path

from openpyxl.utils.cell import column_index_from_string
from openpyxl.utils.escape import unescape

from ..case import Case, part_problems
from ..values import read_field
from ..rules.consistency import CONFIRM_FIELD
from ..errors import Problem, ProblemsError, XlmodelError
from ..evaluator import model_for
from ..fields import COMPANY_FIELDS, FIELDS, YEAR_FIELDS, Field, Kind
from ..plans.schema import Policy
from ..inputs.untrusted import shown
from ..outputs import SUMMARY as SUMMARY_OUTPUTS
from .layout import CHECK_COL_INDEX, FIRST_YEAR_COL, HEADER_ROW, MAX_YEAR_COLUMNS, SHEETS, Layout, col_name, pname, q
from .opening import _open
from .compare import compare_formulas

MAX_NAME_CELLS = 64  # cells one defined name of ours may span


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

    The one reading of every field (:func:`xlmodel.values.read_field`, origin "cell"), after
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
