"""`xlmodel recalc`: a returned workbook recalculated in a real spreadsheet engine, its values saved.

The workbook came by email: it is read as every workbook is (:func:`.reader.read_workbook`: an
xlmodel workbook, within the size limits, every input readable), and handed to an engine only if
nothing in it can act outside the workbook (:func:`foreign_content`): no macros, no links to other
files, no data connections or embedded objects, and no formula — in a cell, a conditional format,
a data validation, a defined name or a chart — with a function xlmodel does not write itself (so no
WEBSERVICE, HYPERLINK, RTD, DDE) or a reference to another workbook. The engine runs with macros
disabled and link updates off, and is killed when it outlives its time (:mod:`.engines`).

What the engine saved is stamped with the engine that computed it (the custom property
``xlmodel_recalculated_by``: engine and version, xlmodel's version, the time), read back and
checked exactly as ``xlmodel check`` checks (:func:`.integrity.integrity`), then moved into place
atomically, never over a file without ``force``.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

from .. import __version__
from ..errors import Problem
from ..io import atomic_write, check_output
from .reader import MAX_ENTRIES, MAX_ENTRY, MAX_FILE, MAX_RATIO, MAX_UNPACKED, WorkbookError, read_workbook

RECALCULATED_BY = "xlmodel_recalculated_by"
DEFAULT_TIMEOUT = 120.0  # seconds per workbook (plus the engine's start-up allowance)

#: parts that can act outside the workbook: never handed to an engine
_FOREIGN_PARTS = (
    ("xl/vbaProject.bin", "macros (VBA)"),
    ("xl/externalLinks/", "links to other workbooks"),
    ("xl/connections.xml", "data connections"),
    ("xl/queryTables/", "web or database queries"),
    ("xl/embeddings/", "embedded objects (OLE)"),
    ("xl/activeX/", "ActiveX controls"),
    ("xl/ctrlProps/", "form controls"),
    ("customUI/", "a custom ribbon (macros)"),
)
_FORMULA_TAGS = frozenset({"f", "formula", "formula1", "formula2"})
_STRING = re.compile(r'"(?:[^"]|"")*"')
_QUOTED_SHEET = re.compile(r"'(?:[^']|'')*'")
_FUNCTION = re.compile(r"(?<![A-Za-z0-9_.])((?:_xlfn\.|_xlws\.)?[A-Za-z_][A-Za-z0-9_.]*)\s*\(")


class NotHandedOn(WorkbookError):
    title = "not handed to a spreadsheet engine (不交给电子表格引擎计算)"


def functions_of(formula: str) -> set[str]:
    """The functions a formula calls (upper case, without Excel's _xlfn. prefixes)."""
    text = _QUOTED_SHEET.sub("''", _STRING.sub('""', formula))
    out = set()
    for m in _FUNCTION.finditer(text):
        name = m.group(1).upper()
        for prefix in ("_XLFN.", "_XLWS."):
            name = name.removeprefix(prefix)
        out.add(name)
    return out


def _outside(formula: str) -> str | None:
    """What in a formula reaches outside the workbook: another workbook ([1]Sheet!A1), DDE (|)."""
    text = _QUOTED_SHEET.sub("''", _STRING.sub('""', formula))
    if "[" in text:
        return "a reference to another workbook"
    if "|" in text:
        return "a DDE link"
    return None


def formula_texts(data: bytes) -> list[tuple[str, str]]:
    """(where, formula) for every formula of an .xlsx: cells (sheet!cell), conditional formats and
    data validations (sheet), charts, defined names."""
    from defusedxml.ElementTree import fromstring, iterparse

    from .parity import _sheet_parts

    out = []
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for name, part in _sheet_parts(z).items():
            if part not in z.namelist():
                continue
            cell = None
            for event, el in iterparse(z.open(part), events=("start", "end")):
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
        for part in z.namelist():
            if part.startswith("xl/charts/") and part.endswith(".xml"):
                for el in fromstring(z.read(part)).iter():
                    if el.tag.rsplit("}", 1)[-1] == "f" and el.text:
                        out.append((f"chart {part.rsplit('/', 1)[-1]}", el.text))
        for el in fromstring(z.read("xl/workbook.xml")).iter():
            if el.tag.rsplit("}", 1)[-1] == "definedName" and el.text:
                out.append((f"defined name {el.get('name')}", el.text))
    return out


_FUNCTIONS: dict[tuple, frozenset[str]] = {}
#: functions the engines write into a workbook themselves, harmless: Gnumeric saves print titles of
#: several areas as ERROR("…")
ENGINE_FUNCTIONS = frozenset({"ERROR"})


def xlmodel_functions(policy, year: int) -> frozenset[str]:
    """Every function xlmodel writes in a workbook of this plan and year (its UDF sheet's too)."""
    from ..case import Case
    from .writer import WorkbookBuilder

    key = (policy.id, policy.version, year)
    if key not in _FUNCTIONS:
        with tempfile.TemporaryDirectory(prefix="xlmodel-ref-") as d:
            ref = Path(d) / "reference.xlsx"
            WorkbookBuilder(policy, Case(policy.id, year), udf=True).write(ref)
            data = ref.read_bytes()
        _FUNCTIONS[key] = ENGINE_FUNCTIONS | {f for _where, text in formula_texts(data) for f in functions_of(text)}
    return _FUNCTIONS[key]


def foreign_content(data: bytes, allowed: frozenset[str] | set[str]) -> list[Problem]:
    """What in a workbook could act outside it, one problem each (empty: it may be handed to an engine)."""
    problems = []
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        names = z.namelist()
    for prefix, what in _FOREIGN_PARTS:
        found = [n for n in names if n == prefix or (prefix.endswith("/") and n.startswith(prefix))]
        if found:
            problems.append(Problem(found[0], f"the workbook contains {what} (工作簿含有宏、外部链接或嵌入对象)"))
    for where, text in formula_texts(data):
        unknown = sorted(functions_of(text) - allowed)
        outside = _outside(text)
        if unknown:
            problems.append(Problem(where, f"a function xlmodel does not write: {', '.join(unknown)[:120]} "
                                           "(xlmodel 不写的函数)"))
        elif outside:
            problems.append(Problem(where, f"{outside} (指向工作簿之外)"))
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
    from ..untrusted import inspect_xlsx
    from .integrity import integrity
    from .reader import cached_differences

    out = check_output(out, force=force, suffixes=(".xlsx",))  # before any work
    read = read_workbook(book)  # an xlmodel workbook, every input readable (errors name sheet!cell)
    data, _ = inspect_xlsx(book, max_bytes=MAX_FILE, max_unpacked=MAX_UNPACKED, max_part=MAX_ENTRY,
                           max_parts=MAX_ENTRIES, max_ratio=MAX_RATIO)
    problems = foreign_content(data, xlmodel_functions(read.policy, read.case.evaluation_year))
    if problems:
        problems.append(Problem("(what to do)", "rebuild it from its inputs with `xlmodel refresh BOOK -o NEW.xlsx` "
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
