"""Read a filled-in xlmodel workbook back: inputs, cached results, formula integrity.

Workbooks come back from email and from other people's hands, so the file is
treated as untrusted: the zip is inspected before any XML is parsed (size,
entry count, compression ratio), XML is parsed with defusedxml (no entity
expansion), macros are never loaded or run, and every problem with an input is
reported at once with its sheet!cell and what was expected.
"""

from __future__ import annotations

import re
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from openpyxl.utils.escape import unescape

from ..case import Case, coerce, from_cell
from ..errors import Problem, ProblemsError, XlmodelError
from ..evaluator import model_for
from ..fields import COMPANY_FIELDS, FIELDS, YEAR_FIELDS, Kind
from ..policy import Policy, load_policy
from .layout import OUTPUTS

# xlmodel's own workbooks are well under 1 MB unpacked; these bound what a hostile file can cost
MAX_FILE = 20 * 2**20  # bytes on disk
MAX_UNPACKED = 40 * 2**20  # bytes, all entries
MAX_ENTRY = 8 * 2**20  # bytes, one entry (a sheet of an xlmodel workbook is ~0.2 MB)
MAX_NAME_CELLS = 64  # cells one defined name of ours may span
MAX_RATIO = 200  # uncompressed / compressed, for entries over 1 MiB
MAX_ENTRIES = 5000



class WorkbookError(ProblemsError):
    title = "cannot use this workbook"


@dataclass
class WorkbookRead:
    path: Path
    case: Case
    policy: Policy
    built_with: dict[str, str]  # xlmodel_version, xlmodel_policy, xlmodel_policy_version
    cached: dict[str, object]  # out_* / chk_* as the file shows them
    notes: list[str] = field(default_factory=list)  # things the user should know (macros ignored, …)
    tampered: list[str] = field(default_factory=list)  # sheet!cell: what changed


def _inspect_zip(path: Path) -> list[str]:
    """Refuse what is not a sane xlsx before parsing any XML; return notes."""
    notes = []
    if not path.is_file():
        raise XlmodelError(f"{path}: no such file")
    size = path.stat().st_size
    if size > MAX_FILE:
        raise XlmodelError(f"{path}: {size / 2**20:.0f} MB is larger than an xlmodel workbook can be ({MAX_FILE // 2**20} MB)")
    if not zipfile.is_zipfile(path):
        raise XlmodelError(f"{path}: not an Excel workbook (.xlsx is a zip file; this is not one)")
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            if len(infos) > MAX_ENTRIES:
                raise XlmodelError(f"{path}: {len(infos)} parts in the file; refusing to read")
            total = 0
            for i in infos:
                total += i.file_size
                if i.file_size > MAX_ENTRY or total > MAX_UNPACKED:
                    raise XlmodelError(f"{path}: part {i.filename} unpacks to {i.file_size / 2**20:.0f} MB; refusing to read")
                if i.file_size > 2**20 and i.compress_size and i.file_size / i.compress_size > MAX_RATIO:
                    raise XlmodelError(f"{path}: part {i.filename} is compressed {i.file_size // i.compress_size}:1 "
                                       "(a zip bomb?); refusing to read")
            names = {i.filename for i in infos}
            if "xl/workbook.xml" not in names:
                raise XlmodelError(f"{path}: not an Excel workbook (no xl/workbook.xml)")
            if "xl/vbaProject.bin" in names:
                notes.append("the file contains macros (VBA); they were ignored and never run")
            try:
                bad = z.testzip()
            except Exception as e:  # zlib.error, EOFError, … on corrupt compressed data
                raise XlmodelError(f"{path}: the file is damaged ({type(e).__name__}: {e})") from None
            if bad:
                raise XlmodelError(f"{path}: the file is damaged (part {bad} fails its checksum)")
    except zipfile.BadZipFile as e:
        raise XlmodelError(f"{path}: damaged zip file ({e})") from None
    return notes


def _load(path: Path, data_only: bool):
    import openpyxl
    from openpyxl.xml import DEFUSEDXML

    if not DEFUSEDXML:  # pragma: no cover - defusedxml is a dependency
        raise XlmodelError("defusedxml is required to read workbooks safely")
    try:
        return openpyxl.load_workbook(path, data_only=data_only, keep_vba=False, keep_links=False)
    except XlmodelError:
        raise
    except Exception as e:  # openpyxl and defusedxml raise many types for hostile or broken files
        raise XlmodelError(f"{path}: cannot read the workbook ({type(e).__name__}: {str(e)[:200]})") from None


def _cell(wb, name: str):
    """The (sheet, cells) a workbook-scoped defined name points to, or None.

    Only a single row of a few cells is accepted: a name stretched over a whole
    sheet would otherwise make openpyxl create billions of cells."""
    from openpyxl.utils.cell import range_boundaries

    if name not in wb.defined_names:
        return None
    try:
        dests = list(wb.defined_names[name].destinations)
    except Exception:  # a constant or an expression, not a cell reference
        return None
    if len(dests) != 1 or dests[0][0] not in wb.sheetnames:
        return None
    sheet, ref = dests[0]
    try:
        c0, r0, c1, r1 = range_boundaries(ref.replace("$", ""))
    except (ValueError, TypeError):
        return None
    if r1 != r0 or (c1 - c0 + 1) > MAX_NAME_CELLS:
        return None
    ws = wb[sheet]
    cells = ws[ref.replace("$", "")]
    if not isinstance(cells, tuple):
        return sheet, [cells]
    flat = [c for row in cells for c in (row if isinstance(row, tuple) else (row,))]
    return sheet, flat


def read_value(f_kind: Kind, fid: str, raw, where: str) -> tuple[object, Problem | None]:
    """A cell value -> (value or None when blank, problem). Never guesses."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None, None
    v = from_cell(f_kind, raw)
    if f_kind == Kind.TEXT and isinstance(v, (int, float)) and not isinstance(v, bool):
        return None, Problem(where, f"{fid}: expected text, got the number {raw!r} (enter it as text, keeping leading zeros)")
    if isinstance(v, str):
        v = unescape(v)
    spec = FIELDS.get(fid) or FIELDS["online_voting_offered"]
    val, err = coerce(spec, v)
    if err:
        unit = {Kind.AMOUNT: "an amount in 元", Kind.RATIO: "a ratio between 0 and 1 (or a percentage)",
                Kind.COUNT: "a whole number of shares", Kind.BOOL: "是 or 否", Kind.DATE: "a date",
                Kind.ENUM: "a choice from the list", Kind.TEXT: "text"}[f_kind]
        return None, Problem(where, f"{fid}: expected {unit}, got {raw!r}")
    return val, None


def read_workbook(path: str | Path, check_formulas: bool = True) -> WorkbookRead:
    path = Path(path)
    notes = _inspect_zip(path)
    wb = _load(path, data_only=False)
    values = _load(path, data_only=True)
    props = {p.name: str(p.value) for p in getattr(wb, "custom_doc_props", [])}
    pid = props.get("xlmodel_policy")
    if not pid or "in_evaluation_year" not in wb.defined_names:
        raise XlmodelError(f"{path}: not an xlmodel workbook (no xlmodel properties or in_* names); "
                           "build one with `xlmodel build`")
    try:
        policy = load_policy(pid)
    except XlmodelError as e:
        raise XlmodelError(f"{path}: built for policy {pid!r}, which this xlmodel does not know ({e})") from None
    problems: list[Problem] = []
    loc = _cell(wb, "in_evaluation_year")
    if loc is None:
        raise XlmodelError(f"{path}: the name in_evaluation_year does not point to a cell of the input sheet "
                           "(sheet deleted or name edited); rebuild the workbook with `xlmodel build`")
    ysheet, ycells = loc
    yraw = ycells[0].value
    if isinstance(yraw, bool) or not isinstance(yraw, (int, float)) or yraw != int(yraw) or not 1990 <= yraw <= 2100:
        raise WorkbookError(str(path), [Problem(f"{ysheet}!{ycells[0].coordinate}", f"evaluation year: expected a year such as 2024, got {yraw!r}")])
    year = int(yraw)
    years: dict[int, dict] = {}
    for f in YEAR_FIELDS:
        loc = _cell(wb, f"in_{f.id}")
        if loc is None:
            problems.append(Problem(f"in_{f.id}", "the defined name is missing (workbook from another tool or edited)"))
            continue
        sheet, cells = loc
        n = len(cells)
        for i, c in enumerate(cells):
            fy = year - (n - 1 - i)
            val, prob = read_value(f.kind, f.id, c.value, f"{sheet}!{c.coordinate}")
            if prob:
                problems.append(Problem(prob.where, f"{prob.message} ({fy})"))
            elif val is not None:
                years.setdefault(fy, {})[f.id] = val
    years.setdefault(year, {})
    company = {}
    for f in COMPANY_FIELDS:
        loc = _cell(wb, f"in_{f.id}")
        if loc is None:
            continue
        sheet, cells = loc
        val, prob = read_value(f.kind, f.id, cells[0].value, f"{sheet}!{cells[0].coordinate}")
        if prob:
            problems.append(prob)
        elif val is not None:
            company[f.id] = val
    attestations = {}
    for name in wb.defined_names:
        if name.startswith("att_"):
            sheet, cells = _cell(wb, name) or (None, [None])
            if cells[0] is None:
                continue
            val, prob = read_value(Kind.BOOL, name[4:], cells[0].value, f"{sheet}!{cells[0].coordinate}")
            if prob:
                problems.append(prob)
            elif val is not None:
                attestations[name[4:]] = val
    notes_by_field = _notes(wb)
    if problems:
        raise WorkbookError(str(path), problems)
    known = set(model_for(policy).attestation_ids())
    dropped = sorted(k for k in attestations if k not in known)
    for k in dropped:
        del attestations[k]
        notes_by_field.pop(k, None)
    case = Case(policy.id, year, company, {y: years[y] for y in sorted(years)}, attestations, str(path), notes_by_field)
    cached = {}
    for name in list(wb.defined_names):
        if name.startswith(("out_", "chk_")):
            loc = _cell(values, name)
            if loc:
                v = loc[1][0].value
                cached[name] = None if v == "" else v
    built = {k: props.get(k, "") for k in ("xlmodel_version", "xlmodel_policy", "xlmodel_policy_version")}
    result = WorkbookRead(path, case, policy, built, cached, notes)
    result.notes += [f"not carried: attestation {k} (no longer a rule of {policy.id})" for k in dropped]
    if built["xlmodel_policy_version"] != policy.version:
        result.notes.append(f"built with policy {pid} v{built['xlmodel_policy_version']}; the current version is "
                            f"v{policy.version}: run `xlmodel refresh` to rebuild it")
    elif check_formulas:
        result.tampered = compare_formulas(wb, policy, case)
    return result


def _notes(wb) -> dict[str, str]:
    """The source/notes column beside each input row (the column after the last year)."""
    out = {}
    names = [(f.id, f"in_{f.id}") for f in YEAR_FIELDS + COMPANY_FIELDS]
    names += [(n[4:], n) for n in wb.defined_names if n.startswith("att_")]
    notes_col = None
    if (loc := _cell(wb, "in_cash_dividend")) is not None:
        notes_col = loc[1][-1].column + 1
    for key, name in names:
        loc = _cell(wb, name)
        if loc and notes_col:
            sheet, cells = loc
            note = wb[sheet].cell(cells[0].row, notes_col).value
            if isinstance(note, str) and note.strip():
                out[key] = unescape(note.strip())
    return out


def _norm(formula) -> str:
    """Formula text as both Excel and LibreOffice write it back (quotes, case, spaces)."""
    s = str(formula).lstrip("=")
    s = re.sub(r"'([^'!]+)'!", r"\1!", s)
    s = s.replace("_xlfn.", "").replace(" ", "")
    return s.upper()


def compare_formulas(wb, policy: Policy, case: Case) -> list[str]:
    """Cells whose formula differs from what this xlmodel generates for the plan and year."""
    from .writer import WorkbookBuilder

    with tempfile.TemporaryDirectory(prefix="xlmodel-ref-") as d:
        ref_path = Path(d) / "reference.xlsx"
        WorkbookBuilder(policy, Case(policy.id, case.evaluation_year)).write(ref_path)
        ref = _load(ref_path, data_only=False)
    changed = []
    for name in ref.sheetnames:  # every sheet xlmodel writes formulas on (cover, inputs' year headers, …)
        if name not in wb.sheetnames:
            changed.append(f"{name}: sheet missing")
            continue
        ws, rs = wb[name], ref[name]
        for row in rs.iter_rows():
            for c in row:
                want = c.value
                if not (isinstance(want, str) and want.startswith("=")):
                    continue
                got = ws[c.coordinate].value
                if not (isinstance(got, str) and got.startswith("=")):
                    changed.append(f"{name}!{c.coordinate}: formula replaced by {got!r}")
                elif _norm(got) != _norm(want):
                    changed.append(f"{name}!{c.coordinate}: {got} (expected {want})")
    return changed


def cached_differences(read: WorkbookRead, report) -> list[str]:
    """Where the workbook's own cached results differ from the evaluator's."""
    from ..catalogue import STATUS_ZH

    want = {out: getattr(report, name) for name, out, *_ in OUTPUTS}
    want["out_overall_status"] = STATUS_ZH[report.overall_status]
    for r in report.rules:
        want[f"chk_{r.id}"] = STATUS_ZH[r.status]
    diffs = []
    for name, v in want.items():
        if name not in read.cached:
            continue
        got = read.cached[name]
        same = got == v or (isinstance(got, (int, float)) and isinstance(v, (int, float))
                            and not isinstance(got, bool) and abs(got - v) < 0.005)
        if not same:
            diffs.append(f"{name}: workbook shows {got!r}, evaluator gives {v!r}")
    return diffs

