"""`xlmodel recalc`: a returned workbook recalculated in a real spreadsheet engine, its values saved.

The workbook came by email: it is read as every workbook is (:func:`.reader.read_workbook`: an
xlmodel workbook, within the size limits, every input readable), and handed to an engine only if
nothing in it can act outside the workbook (:func:`foreign_content`): every part and relationship
allowed by its content type and relationship type, none external (:mod:`.package_gate`: no macros,
no links to other files or URLs, no data connections or embedded objects, whatever the parts are
called), and every formula — in a cell, a conditional format, a data validation, a defined name, a
chart or a shape's text link — read by openpyxl's tokenizer and made only of functions xlmodel
writes itself (so no WEBSERVICE, HYPERLINK, RTD), references to the workbook's own sheets and names,
and constants (:mod:`.formula_gate`: no other workbook, no DDE). The engine runs with macros
disabled, link updates off and its network sent nowhere, and is killed when it outlives its time
(:mod:`.engines`) or when a signal stops the command (:func:`.recalc.stopped_by_signals`).

What the engine saved is stamped with the engine that computed it (the custom property
``xlmodel_recalculated_by``: engine and version, xlmodel's version, the time), read back and
checked exactly as ``xlmodel check`` checks (:func:`.integrity.integrity`), then moved into place
atomically, never over a file without ``force``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import re
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

from .. import __version__
from ..errors import Problem
from ..inputs.files import atomic_write, check_output
from ..workbook.formula_gate import formula_problems, functions
from ..workbook.reader import WorkbookError, read_workbook
from ..workbook.opening import MAX_ENTRIES, MAX_ENTRY, MAX_FILE, MAX_RATIO, MAX_UNPACKED

RECALCULATED_BY = "xlmodel_recalculated_by"
DEFAULT_TIMEOUT = 120.0  # seconds per workbook (plus the engine's start-up allowance)
MAX_TIMEOUT = 86400.0  #: the longest --timeout: a day a workbook


def check_timeout(seconds) -> float:
    """``--timeout`` as a number of seconds above 0 and at most :data:`MAX_TIMEOUT`, else an
    :class:`~xlmodel.errors.XlmodelError` (exit 2): NaN, infinity, 1e400, 0 and negative numbers are refused."""
    import math

    from ..errors import XlmodelError

    try:
        value = float(seconds)
    except (TypeError, ValueError, OverflowError):
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT):
        raise XlmodelError(f"--timeout: 时限须为大于 0、不超过 {MAX_TIMEOUT:g} 的秒数 expected a number of seconds above 0 "
                           f"and at most {MAX_TIMEOUT:g} (a day), got {str(seconds)[:40]!r}")
    return value

_FORMULA_TAGS = frozenset({"f", "formula", "formula1", "formula2"})
_SHEET_CT = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
_CHART_CTS = ("application/vnd.openxmlformats-officedocument.drawingml.chart+xml",
              "application/vnd.openxmlformats-officedocument.drawingml.chartshapes+xml")
_DRAWING_CT = "application/vnd.openxmlformats-officedocument.drawing+xml"


class NotHandedOn(WorkbookError):
    title = "不交给电子表格引擎计算 not handed to a spreadsheet engine"


def functions_of(formula: str) -> set[str]:
    """The functions a formula calls (upper case, without Excel's _xlfn. prefixes), read by openpyxl's tokenizer."""
    return functions(formula)


def _sheet_formulas(z: zipfile.ZipFile, part: str, name: str) -> list[tuple[str, str]]:
    from ..inputs.safexml import iterparse

    out, cell = [], None
    for event, el in iterparse(z.read(part), events=("start", "end")):
        local = el.tag.rsplit("}", 1)[-1]
        if event == "start":
            if local == "c":
                cell = el.get("r")
            continue
        if local in _FORMULA_TAGS and el.text:
            where = f"{name}!{cell}" if local == "f" and cell else f"{name} (conditional format or validation)"
            out.append((where, el.text))
        elif local == "c":
            cell = None
            el.clear()
    return out


def formula_texts(data: bytes) -> list[tuple[str, str]]:
    """(where, formula) for every formula of an .xlsx: cells (sheet!cell), conditional formats and
    data validations (sheet), charts, shapes' text links, defined names. Parts are found by their
    content type, wherever they are stored."""
    from ..inputs.safexml import fromstring
    from ..workbook.package_gate import part_types
    from .parity import _sheet_parts

    out = []
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        sheet_of = {part.lower(): name for name, part in _sheet_parts(z).items()}
        for low, (part, ctype) in sorted(part_types(z).items()):
            if ctype == _SHEET_CT:
                out += _sheet_formulas(z, part, sheet_of.get(low, part))
            elif ctype in _CHART_CTS:
                out += [(f"chart {part.rsplit('/', 1)[-1]}", el.text) for el in fromstring(z.read(part)).iter()
                        if el.tag.rsplit("}", 1)[-1] == "f" and el.text]
            elif ctype == _DRAWING_CT:
                out += [(f"drawing {part.rsplit('/', 1)[-1]}", el.get("textlink")) for el in fromstring(z.read(part)).iter()
                        if el.get("textlink")]
        for el in fromstring(z.read("xl/workbook.xml")).iter():
            if el.tag.rsplit("}", 1)[-1] == "definedName" and el.text:
                out.append((f"defined name {el.get('name')}", el.text))
    return out


def _sheets_and_names(z: zipfile.ZipFile) -> tuple[frozenset[str], frozenset[str]]:
    """The workbook's sheet names, and its defined names in upper case."""
    from ..inputs.safexml import fromstring

    root = fromstring(z.read("xl/workbook.xml"))
    sheets = {el.get("name") for el in root.iter() if el.tag.rsplit("}", 1)[-1] == "sheet" and el.get("name")}
    names = {el.get("name").upper() for el in root.iter()
             if el.tag.rsplit("}", 1)[-1] == "definedName" and el.get("name")}
    return frozenset(sheets), frozenset(names)


_FUNCTIONS: dict[tuple, tuple[frozenset[str], dict]] = {}
#: functions the engines write into a workbook themselves, harmless: Gnumeric saves print titles of
#: several areas as ERROR("…")
ENGINE_FUNCTIONS = frozenset({"ERROR"})


def xlmodel_functions(policy, year: int) -> frozenset[str]:
    """Every function xlmodel writes in a workbook of this plan and year (its UDF sheet's too)."""
    return gate_allowance(policy, year)[0]


def gate_allowance(policy, year: int) -> tuple[frozenset[str], dict[str, tuple[frozenset[str], frozenset[str]]]]:
    """(every function xlmodel writes in a workbook of this plan and year, its UDF sheet's too; each of
    its formulas that passes the gate with them, by the SHA-256 of its text, with the sheets and the
    defined names its references need: :func:`_needs`). Found in a workbook built for the purpose, once
    per plan and year in a process and kept in the user cache between runs (:mod:`..workbook.reference_cache`)."""
    from ..case import Case
    from ..evaluator import model_for
    from ..workbook import reference_cache
    from ..workbook.layout import Layout
    from ..workbook.compare import _reference_key
    from ..workbook.writer import WorkbookBuilder

    key = (policy.id, policy.version, year)
    if key not in _FUNCTIONS:
        disk = _reference_key(policy, Layout(model_for(policy), year), year)  # the plan's content, not its id
        kept = reference_cache.load_gate(disk)  # what an earlier run found (its own, checked)
        if kept is None:
            with tempfile.TemporaryDirectory(prefix="xlmodel-ref-") as d:
                ref = Path(d) / "reference.xlsx"
                WorkbookBuilder(policy, Case(policy.id, year), udf=True).write(ref)
                data = ref.read_bytes()
            texts = {text for _where, text in formula_texts(data)}
            allowed = ENGINE_FUNCTIONS | {f for text in texts for f in functions(text)}
            clean = {_text_digest(t): n for t in texts if (n := _needs(t, allowed)) is not None}
            kept = (allowed, clean)
            reference_cache.store_gate(disk, *kept)
        _FUNCTIONS[key] = kept
    return _FUNCTIONS[key]


def _text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _needs(formula: str, allowed: frozenset[str]) -> tuple[frozenset[str], frozenset[str]] | None:
    """(the sheets, the defined names in upper case) a formula's references need, when everything else
    in it passes the gate with ``allowed``; None when it does not, whatever the workbook. The formula
    then passes :func:`.formula_gate.formula_problems` in any workbook that has those sheets and names."""
    from ..workbook.formula_gate import _AREA, _ON_SHEET, _PLAIN, Token, function_name, tokens

    toks = tokens(formula)
    if toks is None:
        return None
    sheets, names = set(), set()
    for t in toks:
        if t.type == Token.FUNC:
            if t.subtype == Token.OPEN and function_name(t) not in allowed:
                return None
        elif t.type == Token.OPERAND:
            if t.subtype != Token.RANGE or _AREA.fullmatch(t.value):
                continue
            m = _ON_SHEET.fullmatch(t.value)
            if m is not None and _AREA.fullmatch(m.group(3)):
                sheets.add(m.group(1).replace("''", "'") if m.group(1) is not None else m.group(2))
            else:
                names.add(t.value.upper())
        elif t.type not in _PLAIN:
            return None
    return frozenset(sheets), frozenset(names)


def foreign_content(data: bytes, allowed: frozenset[str] | set[str], clean: dict | None = None) -> list[Problem]:
    """What in a workbook could act outside it, one problem each (empty: it may be handed to an engine):
    its parts and relationships (:func:`.package_gate.package_problems`), then every formula
    (:func:`.formula_gate.formula_problems`). ``clean``: the formulas xlmodel writes that pass with
    ``allowed`` (:func:`gate_allowance`): one of those texts passes without being read again where the
    workbook has the sheets and names it needs."""
    from ..workbook.package_gate import package_problems

    with zipfile.ZipFile(io.BytesIO(data)) as z:
        problems = package_problems(z)
        if problems:  # formulas of parts that may not go anyway are not read
            return problems
        sheets, names = _sheets_and_names(z)
    allowed = frozenset(allowed)
    clean = clean or {}
    seen: dict[str, list[str]] = {}
    for where, text in formula_texts(data):
        if text not in seen:
            need = clean.get(_text_digest(text)) if clean else None
            if need is not None and need[0] <= sheets and need[1] <= names:
                seen[text] = []
            else:
                seen[text] = formula_problems(text, allowed, sheets, names)
        problems += [Problem(where, why) for why in seen[text]]
    return problems


def stamp(data: bytes, value: str) -> bytes:
    """The .xlsx with the custom property ``xlmodel_recalculated_by`` set to ``value`` (any earlier
    one replaced); every other part as it was."""
    part = "docProps/custom.xml"
    prop = (f'<property fmtid="{{D5CDD505-2E9C-101B-9397-08002B2CF9AE}}" pid="{{pid}}" name="{RECALCULATED_BY}">'
            f"<vt:lpwstr>{escape(value)}</vt:lpwstr></property>")
    src = zipfile.ZipFile(io.BytesIO(data))
    if part in src.namelist():
        xml = src.read(part).decode("utf-8")
        xml = re.sub(r'<property\b[^>]*\bname="' + RECALCULATED_BY + r'"[^>]*>.*?</property>\s*', "", xml, flags=re.S)
        pids = [int(p) for p in re.findall(r'\bpid="([0-9]+)"', xml)]
        xml = xml.replace("</Properties>", prop.replace("{pid}", str(max(pids, default=1) + 1)) + "</Properties>")
    else:  # pragma: no cover - an xlmodel workbook has its custom properties (read_workbook needs them)
        xml = None
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = xml.encode("utf-8") if info.filename == part and xml is not None else src.read(info)
            dst.writestr(info, body, compress_type=info.compress_type)
    src.close()
    return out.getvalue()


@dataclass
class Recalculated:
    path: Path
    engine: str  # the engine and its version, as the property says
    integrity: dict
    report: object
    notes: list[str] = field(default_factory=list)

    @property
    def current(self) -> bool:
        """The engine's results are the evaluator's and the formulas xlmodel's: ``check`` trusts them."""
        return not self.integrity["formulas_changed"] and not self.integrity["cached_results_stale"]


def recalc_workbook(book, out, engine=None, *, force: bool = False, timeout: float = DEFAULT_TIMEOUT) -> Recalculated:
    """Recalculate ``book`` in ``engine`` (an adapter of :mod:`.engines`, an engine's name, or None: the
    first present) and write what it saved to ``out``. The output path, the workbook and what it holds
    are checked first: a bad input costs no engine launch, on any machine."""
    from ..errors import XlmodelError
    from ..evaluator import evaluate
    from ..inputs.untrusted import inspect_xlsx
    from ..workbook.integrity import integrity
    from ..workbook.compare import cached_differences

    timeout = check_timeout(timeout)
    out = check_output(out, force=force, suffixes=(".xlsx",))  # before any work
    read = read_workbook(book)  # an xlmodel workbook, every input readable (errors name sheet!cell)
    data, _ = inspect_xlsx(book, max_bytes=MAX_FILE, max_unpacked=MAX_UNPACKED, max_part=MAX_ENTRY,
                           max_parts=MAX_ENTRIES, max_ratio=MAX_RATIO)
    problems = foreign_content(data, *gate_allowance(read.policy, read.case.evaluation_year))
    if problems:
        problems.append(Problem("(怎么办 what to do)", "请用 `xlmodel refresh BOOK -o NEW.xlsx` 按其输入重建（xlmodel 自己的公式）"
                                                      "再重算 rebuild it from its inputs with `xlmodel refresh BOOK -o NEW.xlsx` "
                                                      "(xlmodel's own formulas), then recalc that"))
        raise NotHandedOn(str(book), problems)
    if engine is None or isinstance(engine, str):
        from .engines import engine as find

        engine = find(engine)
    adapter = engine
    # the engine's files beside the output where its folder exists (a folder the user chose: Excel for Mac
    # asks before it opens files elsewhere), else in the system's temporary folder; removed in any case
    near = out.parent if out.parent.is_dir() else None
    with tempfile.TemporaryDirectory(prefix=".xlmodel-recalc-", dir=near) as d:
        src = Path(d) / "in" / "workbook.xlsx"  # our name: the engines name outputs after their inputs
        src.parent.mkdir()
        src.write_bytes(data)
        [done] = adapter.recalculate([src], Path(d) / "out", timeout)
        label = adapter.label()
        when = dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()
        stamped = stamp(done.read_bytes(), f"{label}; xlmodel {__version__}; {when}")
        checked = Path(d) / "checked.xlsx"
        checked.write_bytes(stamped)
        try:
            after = read_workbook(checked)
        except XlmodelError as e:
            raise XlmodelError(f"{book}: {label} 保存的工作簿无法读回 the workbook {label} saved cannot be read back "
                               f"(nothing was written): {e}") from None
        rep = evaluate(after.case, after.policy, params=after.params)
        integ = integrity(after, cached_differences(after, rep))
        with atomic_write(out, force=force) as tmp:
            tmp.write_bytes(stamped)
    return Recalculated(out, label, integ, rep, list(read.notes))
