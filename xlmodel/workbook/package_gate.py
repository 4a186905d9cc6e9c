"""Which parts of a received .xlsx may go to a spreadsheet engine: judged by content type and relationship.

A part's name says nothing (a macro project can be stored as ``xl/media/image9.bin``); what an engine
does with a part follows from the relationship that reaches it and the content type
``[Content_Types].xml`` gives it. So a workbook is handed on only if

* every relationship (in every ``.rels`` part) is internal — no ``TargetMode="External"``: no linked
  picture, hyperlink, OLE or DDE link, external workbook, whatever its type — of a type in
  :data:`RELATIONSHIPS`, and points to a part the package holds, of a content type that relationship
  allows;
* every other part has a content type in that allow-list and is reached by such a relationship
  (from ``_rels/.rels``, the package's own).

Everything else — macros (VBA), ActiveX, OLE objects, external links, data connections and queries,
pivot caches, custom ribbons, comments' VML, parts with no content type — is refused, each with the
part that holds it, as is a package with two parts of one name (letter case aside). The allow-list is
what xlmodel, LibreOffice and Gnumeric write, and what Excel adds on saving (calculation chain,
printer settings, sheet metadata, a thumbnail, its custom XML data store, the people of threaded
comments, sensitivity labels).
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from collections import Counter
from urllib.parse import unquote

from ..inputs import safexml
from ..errors import Problem

_CT_NS = "{http://schemas.openxmlformats.org/package/2006/content-types}"
_REL_NS = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_OD = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
_PKG = "http://schemas.openxmlformats.org/package/2006/relationships/"
_SML = "application/vnd.openxmlformats-officedocument.spreadsheetml."
_OFF = "application/vnd.openxmlformats-officedocument."
_IMAGES = ("image/png", "image/jpeg", "image/gif")

#: relationship type -> the content types its target may have (nothing else is handed to an engine)
RELATIONSHIPS: dict[str, tuple[str, ...]] = {
    _OD + "officeDocument": (_SML + "sheet.main+xml",),
    _PKG + "metadata/core-properties": ("application/vnd.openxmlformats-package.core-properties+xml",),
    _OD + "metadata/core-properties": ("application/vnd.openxmlformats-package.core-properties+xml",),
    _OD + "extended-properties": (_OFF + "extended-properties+xml",),
    _OD + "custom-properties": (_OFF + "custom-properties+xml",),
    _PKG + "metadata/thumbnail": _IMAGES,
    _OD + "worksheet": (_SML + "worksheet+xml",),
    _OD + "styles": (_SML + "styles+xml",),
    _OD + "theme": (_OFF + "theme+xml",),
    _OD + "sharedStrings": (_SML + "sharedStrings+xml",),
    _OD + "calcChain": (_SML + "calcChain+xml",),
    _OD + "sheetMetadata": (_SML + "sheetMetadata+xml",),
    _OD + "printerSettings": (_SML + "printerSettings",),
    _OD + "drawing": (_OFF + "drawing+xml",),
    _OD + "chart": (_OFF + "drawingml.chart+xml",),
    _OD + "chartUserShapes": (_OFF + "drawingml.chartshapes+xml",),
    "http://schemas.microsoft.com/office/2011/relationships/chartStyle": ("application/vnd.ms-office.chartstyle+xml",),
    "http://schemas.microsoft.com/office/2011/relationships/chartColorStyle": ("application/vnd.ms-office.chartcolorstyle+xml",),
    _OD + "image": _IMAGES,
    # what Excel keeps beside a workbook, inert XML: its data store, people of threaded comments, labels
    _OD + "customXml": ("application/xml",),
    _OD + "customXmlProps": (_OFF + "customXmlProperties+xml",),
    "http://schemas.microsoft.com/office/2017/10/relationships/person": ("application/vnd.ms-excel.person+xml",),
    "http://schemas.microsoft.com/office/2020/02/relationships/classificationlabels":
        ("application/vnd.ms-office.classificationlabels+xml",),
}

#: what a refused relationship or content type is, in words (the refusal does not depend on these)
_WHAT = (("vbaproject", "宏 macros (VBA)"), ("macroenabled", "宏 macros (a macro-enabled workbook)"),
         ("externallink", "外部工作簿链接 links to other workbooks"), ("oleobject", "嵌入对象 embedded objects (OLE)"),
         ("package", "嵌入对象 embedded objects (OLE)"), ("activex", "ActiveX 控件 ActiveX controls"),
         ("control", "控件 form controls"), ("connections", "数据连接 data connections"),
         ("querytable", "网页或数据库查询 web or database queries"), ("pivot", "数据透视表 pivot tables"),
         ("ui/extensibility", "自定义功能区 a custom ribbon (macros)"), ("customui", "自定义功能区 a custom ribbon (macros)"),
         ("hyperlink", "超链接 a hyperlink"), ("vml", "VML 绘图 VML drawings (comments, controls)"),
         ("comments", "批注 comments"), ("image", "图片 a picture"), ("attachedtemplate", "模板链接 a linked template"))


def _what(kind: str) -> str:
    low = kind.lower()
    return next((words for key, words in _WHAT if key in low), "")


def _content_types(z: zipfile.ZipFile) -> tuple[dict[str, str], dict[str, str]]:
    """(extension -> content type, /part name -> content type), keys in lower case (OPC compares them so)."""
    defaults, overrides = {}, {}
    for el in safexml.fromstring(z.read("[Content_Types].xml")).iter():
        if el.tag == _CT_NS + "Default":
            defaults[(el.get("Extension") or "").lower()] = (el.get("ContentType") or "").strip()
        elif el.tag == _CT_NS + "Override":
            overrides[(el.get("PartName") or "").lower()] = (el.get("ContentType") or "").strip()
    return defaults, overrides


def part_types(z: zipfile.ZipFile) -> dict[str, tuple[str, str]]:
    """{part name in lower case: (its name in the zip, its content type: "" when it has none)}, folders left out."""
    defaults, overrides = _content_types(z) if "[Content_Types].xml" in z.namelist() else ({}, {})
    out = {}
    for n in z.namelist():
        if not n.endswith("/"):
            low = n.lower()
            out[low] = (n, overrides.get("/" + low) or defaults.get(posixpath.splitext(low)[1].lstrip("."), ""))
    return out


def _source_of(rels: str) -> str | None:
    """The part a relationships part belongs to ("" for the package), None if it is not named as one."""
    folder, name = posixpath.split(rels)
    if posixpath.basename(folder) != "_rels" or not name.endswith(".rels"):
        return None
    return posixpath.join(posixpath.dirname(folder), name[:-5])


#: a target that names a scheme (http:, file:, mhtml:), a network path or a Windows path: never internal
_NOT_INTERNAL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//|\\")


def _resolve(source: str, target: str) -> str | None:
    """The part name an internal ``target`` of ``source`` points to (lower case), None if it leaves the package."""
    t = unquote(target.split("#", 1)[0])
    if _NOT_INTERNAL.search(t):
        return None
    path = t.lstrip("/") if t.startswith("/") else posixpath.join(posixpath.dirname(source), t)
    norm = posixpath.normpath(path)
    return None if norm.startswith("..") or norm in (".", "") else norm.lower()


def _relationships(z: zipfile.ZipFile, rels: str) -> list[tuple[str, str, str]]:
    """(type, target, target mode) of every relationship of a .rels part."""
    root = safexml.fromstring(z.read(rels))
    return [((el.get("Type") or "").strip(), el.get("Target") or "", (el.get("TargetMode") or "Internal").strip())
            for el in root.iter(_REL_NS + "Relationship")]


def _check_rels(z, rels: str, source: str, kind_of, problems: list[Problem]) -> list[str]:
    """The parts the relationships of ``rels`` reach; a problem for each one not allowed."""
    reached = []
    for rtype, target, mode in _relationships(z, rels):
        short = rtype.rsplit("/", 1)[-1] or "(none)"
        if mode.lower() != "internal":
            problems.append(Problem(rels, f"外部关系，引擎会去获取 an external relationship, which an engine would fetch: "
                                          f"{_what(rtype) or short} -> {_shown(target)}"))
            continue
        if rtype not in RELATIONSHIPS:
            problems.append(Problem(rels, f"不允许的关系类型 a relationship xlmodel does not hand to an engine: "
                                          f"{_what(rtype) or _shown(short)} -> {_shown(target)}"))
            continue
        part = _resolve(source, target)
        if part is None or kind_of(part) is None:
            problems.append(Problem(rels, f"关系指向工作簿之外或不存在的部件 a relationship ({short}) to a part the workbook "
                                          f"does not hold: {_shown(target)}"))
            continue
        ctype = kind_of(part)
        if ctype not in RELATIONSHIPS[rtype]:
            problems.append(Problem(rels, f"部件的内容类型与关系不符 a part whose content type its relationship ({short}) "
                                          f"does not allow: {_shown(target)} is {_what(ctype) or _shown(ctype or 'of no type')}"))
            continue
        reached.append(part)
    return reached


def _shown(text: str, limit: int = 100) -> str:
    t = "".join(c if c.isprintable() else "?" for c in text)
    return t if len(t) <= limit else t[:limit - 1] + "…"


def package_problems(z: zipfile.ZipFile) -> list[Problem]:
    """What in an .xlsx's parts or relationships could act outside it: one problem each (empty: none)."""
    if "[Content_Types].xml" not in z.namelist():
        return [Problem("[Content_Types].xml", "缺少内容类型 the package has no [Content_Types].xml")]
    types = part_types(z)
    names = {low: name for low, (name, _ct) in types.items()}

    def kind_of(part: str) -> str | None:  # a part's content type: "" when it has none, None when it is not there
        return types[part][1] if part in types else None

    problems: list[Problem] = []
    files = [n for n in z.namelist() if not n.endswith("/")]
    if len(files) != len(names):  # OPC: names compare without case; an engine might read the one not checked
        count = Counter(n.lower() for n in files)
        twice = sorted(n for n in files if count[n.lower()] > 1)
        return [Problem(twice[0], "部件名重复（不计大小写）two parts of the same name (letter case aside): "
                                  f"{', '.join(_shown(n) for n in twice[:4])}")]
    reached: set[str] = set()
    for low, name in sorted(names.items()):
        source = _source_of(low)
        if source is not None:  # every .rels part, reached or not: its part must be there
            if source and source not in names:
                problems.append(Problem(name, "关系所属的部件不存在 relationships of a part the workbook does not hold"))
            reached.update(_check_rels(z, name, source, kind_of, problems))
    allowed = {ct for cts in RELATIONSHIPS.values() for ct in cts}
    for low, name in sorted(names.items()):
        if low == "[content_types].xml" or _source_of(low) is not None:
            continue
        ctype = kind_of(low)
        if ctype not in allowed:
            problems.append(Problem(name, f"不允许的内容类型 a part xlmodel does not hand to an engine: "
                                          f"{_what(ctype) or (_shown(ctype) if ctype else 'no content type')}"))
        elif low not in reached:
            problems.append(Problem(name, "没有关系指向的部件 a part no relationship of the workbook reaches"))
    return problems
