"""Opening a returned workbook within bounds: the zip's size, entries, ratio and cells checked before openpyxl
reads it, the bytes verified once per path.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from ..errors import XlmodelError
from ..plans.schema import Policy
from ..inputs.untrusted import (MAX_WORKBOOK_CELLS, MAX_XLSX_BYTES, MAX_XLSX_PART, MAX_XLSX_PARTS, MAX_XLSX_RATIO,
                                MAX_XLSX_UNPACKED, inspect_xlsx)


# xlmodel's own workbooks are well under 1 MB unpacked; these bound what a hostile file can cost
MAX_FILE = MAX_XLSX_BYTES  # bytes on disk
MAX_UNPACKED = MAX_XLSX_UNPACKED  # bytes, all entries
MAX_ENTRY = MAX_XLSX_PART  # bytes, one entry (a sheet of an xlmodel workbook is ~0.2 MB)


MAX_RATIO = MAX_XLSX_RATIO  # uncompressed / compressed, for entries over 1 MiB
MAX_ENTRIES = MAX_XLSX_PARTS
MAX_CELLS = MAX_WORKBOOK_CELLS  # cell elements over all sheets (an xlmodel workbook has a few thousand)


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
