"""The text of a published document: a PDF's text layer, a Word .docx, or a plain text file.

Plans reach the user as the exchange's PDF announcement, sometimes as a Word file or a text
copied out of one. :func:`read_document` tells them apart by their first bytes (never by the
file name alone: a ``.pdf`` that holds text is read as text, a ``.txt`` that holds a PDF as a
PDF) and returns the text as pages of lines, as printed; what a plan text is made of them
(running headers, page numbers, broken lines) is :mod:`xlmodel.draft.source`'s business.

Every document is untrusted, and each path is bounded:

* a regular file of at most :data:`MAX_DOCUMENT_BYTES` (a text file: the plan text's limit);
* **PDF** — read by PDFium (``pypdfium2``) in a child process of its own: at most
  :data:`PDF_SECONDS` of wall-clock time and (where the system sets limits) :data:`PDF_MEMORY`
  bytes of address space, :data:`MAX_PDF_PAGES` pages and :data:`MAX_DOCUMENT_CHARS` characters
  of text. A native library parsing a hostile file can hang or crash; the child's end is then an
  error naming the file, never the end of xlmodel. A PDF that needs a password is refused; one
  that only restricts copying or printing (an owner password) is read;
* **.docx** — the zip's central directory checked before anything is unpacked (parts, sizes,
  compression ratio), the few parts read decompressed in bounded chunks, the XML parsed by
  defusedxml (no DTD, no entities) as a stream with bounded elements and depth. Automatic
  numbering (Word's 一、 （一） 1、 lists) is rendered from ``numbering.xml``, as Word shows it;
* other formats (an image, a legacy .doc, an encrypted Word file, RTF, a web page, a zip or a
  workbook) are named and refused.

Errors are :class:`~xlmodel.inputs.untrusted.InputFileError`: one line naming the file, Chinese first.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from .untrusted import InputFileError, check_zip_parts, decode_chinese_text, read_regular

MAX_DOCUMENT_BYTES = 64 * 2**20  #: a PDF or .docx on disk (a plan's PDF is 0.1–2 MB; a scan can be tens of MB)
MAX_TEXT_BYTES = 1 * 2**20  #: a plain text file (the plan text's own limit, ``untrusted.MAX_PLAN_TEXT_BYTES``)
MAX_PDF_PAGES = 500  #: a plan is 3–20 pages
MAX_DOCUMENT_CHARS = 2 * 2**20  #: characters of text taken from a PDF or .docx (a plan has ~10,000)
PDF_SECONDS = 60.0  #: wall-clock limit of the PDF reader (a 50-page plan takes well under a second)
PDF_MEMORY = 1 * 2**30  #: address space of the PDF reader's process (POSIX)
MAX_DOCX_PART = 32 * 2**20  #: word/document.xml (or numbering, styles) unpacked
MAX_DOCX_PARTS = 5000
MAX_DOCX_UNPACKED = 256 * 2**20  #: all parts as the central directory declares them
MAX_DOCX_RATIO = 200  #: unpacked / compressed, for parts over 1 MiB
MAX_XML_ELEMENTS = 4_000_000  #: elements of one XML part
MAX_XML_DEPTH = 256  #: nesting of one XML part (Word's own files nest ~15 deep)

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


@dataclass
class Document:
    """A document's text as printed: pages of lines (a .docx or a text file is one page)."""

    kind: str  # "pdf", "docx" or "text"
    pages: list[list[str]]
    encoding: str = "utf-8"  # of a text file
    notes: list[str] = field(default_factory=list)  # what the user should know (read as text although named .pdf, …)
    images: int = 0  # image objects on the pages (a PDF): a scan has images and no text
    text: str | None = None  # a text file's text as decoded (kept to tell whether anything was changed)

    @property
    def char_count(self) -> int:
        return sum(len(x.strip()) for page in self.pages for x in page)


# ---- what the file is -----------------------------------------------------------------------------

_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_IMAGES = ((b"\x89PNG\r\n\x1a\n", "PNG"), (b"\xff\xd8\xff", "JPEG"), (b"II*\x00", "TIFF"), (b"MM\x00*", "TIFF"),
           (b"GIF87a", "GIF"), (b"GIF89a", "GIF"), (b"RIFF", "WebP"))
_WHAT_TO_DO = ("请从交易所网站（巨潮资讯、上交所、深交所、北交所）下载公告的 PDF 原件，或将文件另存为 PDF、.docx 或 UTF-8 文本后再运行 "
               "xlmodel draft; download the announcement's PDF from the exchange, or save the file as PDF, .docx or "
               "UTF-8 text, and run xlmodel draft again")


def sniff(head: bytes) -> str:
    """What the first bytes of a file say it is: ``pdf``, ``zip``, ``ole``, ``rtf``, ``html``, ``image:PNG``, … or ``text``."""
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "zip"
    if head.startswith(_OLE):
        return "ole"
    for magic, name in _IMAGES:
        if head.startswith(magic) and (name != "WebP" or head[8:12] == b"WEBP"):
            return f"image:{name}"
    lead = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if lead.startswith(b"{\\rtf"):
        return "rtf"
    if lead.startswith((b"<!doctype html", b"<html", b"<?xml")) or (lead.startswith(b"<") and b"<html" in lead[:2048]):
        return "html"
    return "text"


def read_document(path: str | Path) -> Document:
    """The text of a PDF, a .docx or a text file (UTF-8 or GB18030), told apart by content."""
    source = str(path)
    data = read_regular(path, MAX_DOCUMENT_BYTES, "plan document (PDF, .docx or text)")
    kind = sniff(data[:4096])
    suffix = Path(source).suffix.lower()
    if kind == "pdf":
        doc = read_pdf(data, source)
    elif kind == "zip":
        doc = read_docx(data, source)
    elif kind == "text":
        if len(data) > MAX_TEXT_BYTES:
            raise InputFileError(source, f"文本文件超过 {MAX_TEXT_BYTES // 2**20} MB，不像一份分红回报规划 the text file is larger "
                                         f"than a plan text can be ({MAX_TEXT_BYTES // 2**20} MB); refusing to read")
        text, encoding = decode_chinese_text(data, source, expected="a plan's text (PDF, .docx or .txt)", save_as="UTF-8")
        doc = Document("text", [text.splitlines()], encoding=encoding, text=text)
    else:
        raise InputFileError(source, _refusal(kind, data))
    if suffix in (".pdf", ".docx", ".txt") and suffix[1:] != {"text": "txt"}.get(doc.kind, doc.kind):
        doc.notes.append(f"文件名是 {suffix}，内容却是 {_KIND_ZH[doc.kind]}：按内容读取 the file is named {suffix} but holds "
                         f"{_KIND_EN[doc.kind]}: read as such")
    return doc


_KIND_ZH = {"pdf": "PDF", "docx": "Word 文档（.docx）", "text": "文本"}
_KIND_EN = {"pdf": "a PDF", "docx": "a Word document (.docx)", "text": "text"}


def _refusal(kind: str, data: bytes) -> str:
    if kind.startswith("image:"):
        return (f"这是一张 {kind[6:]} 图片，不是文字：扫描件须先经文字识别（OCR）; this is a {kind[6:]} image, not text "
                f"(a scan needs OCR first). {_WHAT_TO_DO}")
    if kind == "ole":
        if "EncryptedPackage".encode("utf-16-le") in data[:1 << 20] or b"E\x00n\x00c\x00r\x00y\x00p\x00t\x00" in data:
            return (f"这是加密（设有打开密码）的 Office 文档，无法读取 an encrypted (password-protected) Office document. "
                    f"请去掉密码后另存 remove the password and save it again. {_WHAT_TO_DO}")
        return f"这是旧版 Word（.doc）或其他 Office 97-2003 文件，无法读取 a Word 97-2003 (.doc) or other legacy Office file. {_WHAT_TO_DO}"
    if kind == "rtf":
        return f"这是 RTF 文件 an RTF file. {_WHAT_TO_DO}"
    if kind == "html":
        return f"这是网页（HTML/XML）a web page (HTML/XML), not the plan's document. {_WHAT_TO_DO}"
    return f"无法识别的文件格式 not a format xlmodel reads. {_WHAT_TO_DO}"


# ---- PDF --------------------------------------------------------------------------------------------

def read_pdf(data: bytes, source: str) -> Document:
    """The text layer of a PDF, page by page, read by PDFium in a bounded child process (:mod:`.pdfworker`)."""
    from . import pdfworker

    cmd = [sys.executable, "-P", pdfworker.__file__, str(PDF_MEMORY), str(MAX_PDF_PAGES), str(MAX_DOCUMENT_CHARS)]
    try:
        p = subprocess.run(cmd, input=data, capture_output=True, timeout=PDF_SECONDS,
                           creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0))
    except subprocess.TimeoutExpired:
        raise InputFileError(source, f"PDF 在 {PDF_SECONDS:.0f} 秒内未能读完（文件可能已损坏或被刻意构造） the PDF could not be read "
                                     f"within {PDF_SECONDS:.0f} s (damaged or hostile?); refusing it") from None
    except OSError as e:
        raise InputFileError(source, f"无法启动 PDF 读取进程 cannot start the PDF reader ({e.strerror or e})") from None
    try:
        got = json.loads(p.stdout.decode("utf-8")) if p.returncode == 0 else None
    except (UnicodeDecodeError, ValueError):
        got = None
    if not isinstance(got, dict):
        why = "内存不足或读取程序崩溃 out of memory, or the reader crashed" if p.returncode else "no answer"
        raise InputFileError(source, f"PDF 无法读取（{why}；文件可能已损坏）the PDF cannot be read ({why}; damaged?)")
    error = got.get("error")
    if error:
        raise InputFileError(source, _pdf_error(error, got))
    pages = [[str(line) for line in page] for page in got.get("pages", []) if isinstance(page, list)]
    return Document("pdf", pages, images=int(got.get("images") or 0))


def _pdf_error(error: str, got: dict) -> str:
    if error == "password":
        return ("PDF 已加密，须输入密码才能打开：请用无密码的版本（交易所网站的公告原件无密码） the PDF is encrypted and needs a "
                "password to open; use a copy without one (the exchange's own file has none)")
    if error == "pages":
        return (f"PDF 有 {got.get('pages')} 页，超过 {MAX_PDF_PAGES} 页：分红回报规划只有几页，请只提供规划本身 the PDF has "
                f"{got.get('pages')} pages, more than {MAX_PDF_PAGES}; give the plan's own document")
    if error == "chars":
        return (f"PDF 的文字超过 {MAX_DOCUMENT_CHARS:,} 个字符（至第 {got.get('page')} 页），不像一份分红回报规划 the PDF holds "
                f"more text than a plan can ({MAX_DOCUMENT_CHARS:,} characters by page {got.get('page')}); refusing it")
    if error == "page":
        return f"PDF 第 {got.get('page')} 页已损坏，无法读取 page {got.get('page')} of the PDF is damaged and cannot be read"
    if error == "missing":
        return "读取 PDF 需要 pypdfium2：请重新安装 xlmodel（pip install -e .） reading a PDF needs pypdfium2: reinstall xlmodel"
    return "PDF 已损坏或不是有效的 PDF 文件 the PDF is damaged or not a valid PDF file"


# ---- .docx ------------------------------------------------------------------------------------------

def read_docx(data: bytes, source: str) -> Document:
    """The paragraphs of a Word .docx body (tables' cells too), automatic numbering rendered."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
            check_zip_parts(source, infos, max_parts=MAX_DOCX_PARTS, max_part=MAX_DOCX_PART,
                            max_unpacked=MAX_DOCX_UNPACKED, max_ratio=MAX_DOCX_RATIO)
            by_name = {i.filename: i for i in infos}
            if "word/document.xml" not in by_name:
                what = ("an Excel workbook" if "xl/workbook.xml" in by_name else
                        "an OpenDocument file (.odt/.ods)" if "content.xml" in by_name else "a zip archive")
                raise InputFileError(source, f"这不是 Word 文档（.docx），而是 {what} not a Word document (.docx) but {what}. "
                                             f"{_WHAT_TO_DO}")
            parts = {n: _read_part(source, z, by_name[n]) for n in ("word/numbering.xml", "word/styles.xml")
                     if n in by_name}
            body = _read_part(source, z, by_name["word/document.xml"])
    except zipfile.BadZipFile:
        raise InputFileError(source, "文件已损坏（不是有效的 zip / .docx） the file is damaged (not a valid zip / .docx)") from None
    except (zipfile.LargeZipFile, NotImplementedError, RuntimeError, EOFError, OSError) as e:
        raise InputFileError(source, f".docx 无法读取 cannot read the .docx ({type(e).__name__})") from None
    numbering = _Numbering(source, parts.get("word/numbering.xml"), parts.get("word/styles.xml"))
    paragraphs = _docx_paragraphs(source, body, numbering)
    return Document("docx", [paragraphs])


def _read_part(source: str, z: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """One part, decompressed in chunks, at most what its header declares (and :data:`MAX_DOCX_PART`)."""
    limit = min(info.file_size, MAX_DOCX_PART)
    chunks, size = [], 0
    try:
        with z.open(info) as f:
            while True:
                chunk = f.read(1 << 20)
                if not chunk:
                    break
                size += len(chunk)
                if size > limit:
                    raise InputFileError(source, f"文件已损坏（{info.filename} 解压后大于其声明的大小） the file is damaged "
                                                 f"({info.filename} unpacks to more than it declares); refusing to read")
                chunks.append(chunk)
    except InputFileError:
        raise
    except zipfile.BadZipFile:
        raise InputFileError(source, f"文件已损坏（{info.filename} 校验失败） the file is damaged ({info.filename} fails its "
                                     "checksum)") from None
    except Exception as e:  # zlib.error, EOFError, an encrypted member, … on a broken or hostile file
        raise InputFileError(source, f"文件已损坏 the file is damaged ({type(e).__name__} in {info.filename})") from None
    return b"".join(chunks)


def _events(source: str, data: bytes, part: str):
    """(event, element) of an XML part as a stream: no DTD, no entities, bounded elements and depth."""
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import iterparse
    from xml.etree.ElementTree import ParseError

    depth = count = 0
    try:
        for event, el in iterparse(io.BytesIO(data), events=("start", "end"), forbid_dtd=True):
            if event == "start":
                depth += 1
                count += 1
                if depth > MAX_XML_DEPTH or count > MAX_XML_ELEMENTS:
                    raise InputFileError(source, f"{part} 嵌套过深或元素过多 {part} nests too deep or has too many elements; "
                                                 "refusing to read")
            else:
                depth -= 1
            yield event, el
    except (ParseError, DefusedXmlException) as e:
        raise InputFileError(source, f"{part} 不是有效的 XML（文件已损坏） {part} is not valid XML (damaged file: "
                                     f"{type(e).__name__})") from None


class _Numbering:
    """Word's automatic numbering: (numId, level) -> the label Word prints (``一、``, ``（一）``, ``1、``)."""

    def __init__(self, source: str, numbering: bytes | None, styles: bytes | None):
        self.levels: dict[tuple[str, int], dict] = {}  # (abstractNumId, ilvl) -> {fmt, text, start}
        self.nums: dict[str, tuple[str, dict[int, int]]] = {}  # numId -> (abstractNumId, start overrides)
        self.style_num: dict[str, tuple[str, int]] = {}  # paragraph style -> (numId, ilvl)
        self.counters: dict[str, list[int | None]] = {}
        if numbering:
            self._read_numbering(source, numbering)
        if styles:
            self._read_styles(source, styles)

    def _read_numbering(self, source, data):
        abstract, lvl, num, ilvl = None, None, None, 0
        for event, el in _events(source, data, "word/numbering.xml"):
            tag = el.tag
            if event == "start":
                if tag == _W + "abstractNum":
                    abstract = el.get(_W + "abstractNumId")
                elif tag == _W + "lvl" and abstract is not None and num is None:
                    lvl = {"fmt": "decimal", "text": "", "start": 1}
                    self.levels[(abstract, _int(el.get(_W + "ilvl")))] = lvl
                elif tag == _W + "num":
                    num = el.get(_W + "numId")
                    self.nums[num] = ("", {})
                elif tag == _W + "lvlOverride" and num is not None:
                    ilvl = _int(el.get(_W + "ilvl"))
                continue
            val = el.get(_W + "val")
            if lvl is not None and tag == _W + "numFmt":
                lvl["fmt"] = val or "decimal"
            elif lvl is not None and tag == _W + "lvlText":
                lvl["text"] = val or ""
            elif lvl is not None and tag == _W + "start":
                lvl["start"] = _int(val, 1)
            elif tag == _W + "lvl":
                lvl = None
            elif tag == _W + "abstractNum":
                abstract = None
            elif num is not None and tag == _W + "abstractNumId":
                self.nums[num] = (val or "", self.nums[num][1])
            elif num is not None and tag == _W + "startOverride":
                self.nums[num][1][ilvl] = _int(val, 1)
            elif tag == _W + "num":
                num = None
            el.clear()

    def _read_styles(self, source, data):
        style, num, ilvl = None, None, 0
        for event, el in _events(source, data, "word/styles.xml"):
            tag = el.tag
            if event == "start":
                if tag == _W + "style":
                    style, num, ilvl = el.get(_W + "styleId"), None, 0
                continue
            if style is not None and tag == _W + "numId":
                num = el.get(_W + "val")
            elif style is not None and tag == _W + "ilvl":
                ilvl = _int(el.get(_W + "val"))
            elif tag == _W + "style":
                if style and num:
                    self.style_num[style] = (num, ilvl)
                style = None
                el.clear()

    def label(self, num: str | None, ilvl: int, style: str | None) -> str:
        if num is None and style in self.style_num:
            num, default = self.style_num[style]
            ilvl = ilvl if ilvl >= 0 else default
        ilvl = max(0, min(ilvl, 8))
        if not num or num == "0" or num not in self.nums:
            return ""
        abstract, overrides = self.nums[num]
        lvl = self.levels.get((abstract, ilvl))
        if lvl is None:
            return ""
        # lists of one abstract numbering go on counting (as Word counts them) unless one restarts
        counts = self.counters.setdefault(num if overrides else "abstract:" + abstract, [None] * 9)
        start = overrides.get(ilvl, lvl["start"])
        counts[ilvl] = start if counts[ilvl] is None else counts[ilvl] + 1
        for deeper in range(ilvl + 1, 9):
            counts[deeper] = None
        text = lvl["text"]
        if lvl["fmt"] in ("bullet", "none"):  # a bullet is no clause number
            return ""
        out = []
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "%" and i + 1 < len(text) and text[i + 1] in "123456789":
                k = int(text[i + 1]) - 1
                other = self.levels.get((abstract, k), lvl)
                n = counts[k] if counts[k] is not None else overrides.get(k, other["start"])
                out.append(_format_number(n, other["fmt"]))
                i += 2
                continue
            out.append(ch)
            i += 1
        return "".join(out)


def _int(v, default: int = 0) -> int:
    try:
        return int(v)
    except (TypeError, ValueError):
        return default


_CN_DIGITS = "零一二三四五六七八九"


def _chinese(n: int) -> str:
    """一 … 九十九 as plans number clauses (Word's chineseCounting); larger numbers as digits."""
    if not 0 < n < 100:
        return str(n)
    tens, ones = divmod(n, 10)
    return (("" if tens == 1 else _CN_DIGITS[tens]) + "十" if tens else "") + (_CN_DIGITS[ones] if ones else "")


def _format_number(n: int, fmt: str) -> str:
    if fmt in ("chineseCounting", "chineseCountingThousand", "chineseLegalSimplified", "ideographLegalTraditional",
               "japaneseCounting", "taiwaneseCounting", "taiwaneseCountingThousand"):
        return _chinese(n)
    if fmt == "ideographTraditional" and 0 < n <= 10:
        return "甲乙丙丁戊己庚辛壬癸"[n - 1]
    if fmt == "decimalFullWidth" or fmt == "decimalFullWidth2":
        return "".join(chr(0xFF10 + int(d)) for d in str(n))
    if fmt == "decimalEnclosedCircle" and 0 < n <= 20:
        return chr(0x245F + n)
    if fmt in ("lowerLetter", "upperLetter") and n > 0:
        s = chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)
        return s if fmt == "lowerLetter" else s.upper()
    if fmt in ("lowerRoman", "upperRoman") and 0 < n < 40:
        r = "".join(sym * c for sym, c in zip(("x", "ix", "v", "iv", "i"), _roman(n)))
        return r if fmt == "lowerRoman" else r.upper()
    if fmt == "decimalZero":
        return f"{n:02d}"
    return str(n)


def _roman(n: int) -> list[int]:
    out = []
    for v in (10, 9, 5, 4, 1):
        out.append(n // v)
        n %= v
    return out


def _docx_paragraphs(source: str, data: bytes, numbering: _Numbering) -> list[str]:
    """The body's paragraphs in order; a line break inside a paragraph starts a new line."""
    out: list[str] = []
    stack: list[list[str]] = []  # open paragraphs (a text box's paragraphs sit inside another's run)
    props: list[dict] = []
    skip = 0  # inside deleted text, field instructions or a hidden run
    chars = 0
    in_rpr = in_tabs = hidden = False  # in run properties; in a paragraph's tab stops; a hidden run
    for event, el in _events(source, data, "word/document.xml"):
        tag = el.tag
        if event == "start":
            if tag == _W + "p":
                stack.append([])
                props.append({"num": None, "ilvl": -1, "style": None})
            elif tag in (_W + "del", _W + "instrText", _W + "delText", _W + "moveFrom"):
                skip += 1
            elif tag == _W + "rPr":
                in_rpr = True
            elif tag == _W + "tabs":
                in_tabs = True
            elif tag == _W + "r":
                hidden = False
            continue
        if tag in (_W + "del", _W + "instrText", _W + "delText", _W + "moveFrom"):
            skip -= 1
        elif tag == _W + "rPr":
            in_rpr = False
        elif tag == _W + "tabs":
            in_tabs = False
        elif in_rpr and tag == _W + "vanish" and el.get(_W + "val") not in ("0", "false"):
            hidden = True
        elif not stack:
            pass
        elif tag == _W + "t" and not skip and not hidden:
            stack[-1].append(el.text or "")
            chars += len(el.text or "")
        elif tag in (_W + "tab", _W + "ptab") and not skip and not hidden and not in_rpr and not in_tabs:
            stack[-1].append(" ")
        elif tag in (_W + "br", _W + "cr") and not skip and not hidden:
            stack[-1].append("\n")
        elif tag == _W + "noBreakHyphen" and not skip:
            stack[-1].append("-")
        elif tag == _W + "numId" and props:
            props[-1]["num"] = el.get(_W + "val")
        elif tag == _W + "ilvl" and props:
            props[-1]["ilvl"] = _int(el.get(_W + "val"))
        elif tag == _W + "pStyle" and props:
            props[-1]["style"] = el.get(_W + "val")
        elif tag == _W + "p":
            pr = props.pop()
            text = "".join(stack.pop())
            label = numbering.label(pr["num"], pr["ilvl"], pr["style"]) if text.strip() else ""
            out.extend((label + text).split("\n"))
        if chars > MAX_DOCUMENT_CHARS:
            raise InputFileError(source, f".docx 的文字超过 {MAX_DOCUMENT_CHARS:,} 个字符，不像一份分红回报规划 the .docx holds "
                                         f"more text than a plan can ({MAX_DOCUMENT_CHARS:,} characters); refusing it")
        if event == "end" and tag in (_W + "p", _W + "tbl", _W + "sdt"):
            el.clear()
    return out
