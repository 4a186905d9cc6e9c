"""Plan documents made by the tests: PDFs and .docx files of a plan text, as exchanges and Word publish them.

No binary is committed: every file is written from a plan text here.

* :func:`plan_pdf` — a multi-page A4 PDF (reportlab, BSD): the announcement's header line
  (证券代码 / 证券简称 / 公告编号) on each page, optionally the company's name as a running header,
  a footer 第 N 页 共 M 页, pages that break inside a sentence. The text is laid out either as the
  text file's own lines or reflowed into justified paragraphs at the page's width (as Word prints),
  or drawn one glyph at a time (as some producers do); in a standard CID font that is not embedded
  (STSong-Light, Adobe-GB1: no font file needed) or a TrueType font embedded as a subset
  (WenQuanYi Zen Hei, Debian's fonts-wqy-zenhei: .ci/run installs it);
* :func:`scanned_pdf` — pages that are images only (no text layer), as a scanner makes them;
* :func:`plan_docx` — a .docx written as raw WordprocessingML: one paragraph per line, or
  paragraphs whose clause numbers are Word's automatic numbering (numbering.xml).
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

WQY = Path("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc")
PAGE_W, PAGE_H = 595.27, 841.89  # A4 in points
LEFT, RIGHT, TOP, BOTTOM = 72.0, 72.0, 90.0, 80.0
SIZE, LEADING = 12.0, 21.0


def _font(kind: str) -> str:
    from reportlab.pdfbase import pdfmetrics

    if kind == "cid":
        from reportlab.pdfbase.cidfonts import UnicodeCIDFont

        if "STSong-Light" not in pdfmetrics.getRegisteredFontNames():
            pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
        return "STSong-Light"
    from reportlab.pdfbase.ttfonts import TTFont

    if "WQY" not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont("WQY", str(WQY), subfontIndex=0))
    return "WQY"


def wrap(paragraph: str, font: str, size: float, width: float, indent: float = 0.0) -> list[str]:
    """A paragraph broken into lines that fit ``width``, as Word breaks it: Chinese anywhere, a run of
    Latin letters and digits (2022, 5,000, [2012]) only where it is not wider than a line."""
    import re

    from reportlab.pdfbase.pdfmetrics import stringWidth

    lines, line, room = [], "", width - indent
    for piece in re.findall(r"[A-Za-z0-9.,%\[\]]+|.", paragraph):
        if line and stringWidth(line + piece, font, size) > room:
            lines.append(line)
            line, room = "", width
        line += piece
    if line:
        lines.append(line)
    return lines


def plan_pdf(path: Path, text: str, *, header: str, running: str | None = None, font: str = "cid",
             layout: str = "lines", header_last: bool = False, encrypt=None) -> int:
    """Write ``text`` as a PDF (see the module doc); the number of pages.

    ``layout``: ``lines`` (each non-blank line of the text a printed line, its indentation kept, wrapped
    where it is wider than the page),
    ``reflow`` (each line of the text a paragraph, justified at the page's width but for its last
    line, the first line indented two characters) or ``glyphs`` (as ``lines``, every character
    placed on its own)."""
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    name = _font(font)
    width = PAGE_W - LEFT - RIGHT
    printed: list[tuple[str, float, float]] = []  # (text, x, char spacing)
    for raw in text.splitlines():
        if not raw.strip():
            continue
        if layout == "reflow":
            indent = 2 * SIZE
            wrapped = wrap(raw.strip(), name, SIZE, width, indent)
            for i, line in enumerate(wrapped):
                x = LEFT + (indent if i == 0 else 0)
                room = PAGE_W - RIGHT - x - stringWidth(line, name, SIZE)
                spacing = room / max(1, len(line) - 1) if i < len(wrapped) - 1 and room > 0 else 0.0
                printed.append((line, x, spacing))
        else:  # a line wider than the page (a text file of a paragraph a line) is wrapped
            lead = len(raw) - len(raw.lstrip(" \u3000"))
            x = LEFT + min(lead, 12) * SIZE / 2
            for i, line in enumerate(wrap(raw.strip(), name, SIZE, width, x - LEFT)):
                printed.append((line, x if i == 0 else LEFT, 0.0))
    per_page = int((PAGE_H - TOP - BOTTOM) // LEADING)
    pages = [printed[i:i + per_page] for i in range(0, len(printed), per_page)]
    c = canvas.Canvas(str(path), pagesize=(PAGE_W, PAGE_H), encrypt=encrypt, invariant=1)
    for n, page in enumerate(pages, 1):
        def furniture():
            c.setFont(name, 9)
            c.drawString(LEFT, PAGE_H - 50, header)
            if running:
                c.drawRightString(PAGE_W - RIGHT, PAGE_H - 64, running)
            c.drawCentredString(PAGE_W / 2, 40, f"第 {n} 页 共 {len(pages)} 页")
        if not (header_last and n % 2 == 0):
            furniture()
        y = PAGE_H - TOP
        for line, x, spacing in page:
            if layout == "glyphs":
                c.setFont(name, SIZE)
                for ch in line:
                    c.drawString(x, y, ch)
                    x += stringWidth(ch, name, SIZE)
            else:
                t = c.beginText(x, y)
                t.setFont(name, SIZE)
                t.setCharSpace(spacing)
                t.textOut(line)
                c.drawText(t)
            y -= LEADING
        if header_last and n % 2 == 0:
            furniture()
        c.showPage()
    c.save()
    return len(pages)


def scanned_pdf(path: Path, pages: int = 2) -> None:
    """Pages that are only images (grey bars where the lines of text were): no text layer."""
    from PIL import Image, ImageDraw
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(PAGE_W, PAGE_H), invariant=1)
    for _ in range(pages):
        img = Image.new("L", (620, 877), 255)
        d = ImageDraw.Draw(img)
        for row in range(12):
            d.rectangle((70, 90 + 50 * row, 550 - (row % 3) * 60, 110 + 50 * row), fill=60)
        buf = io.BytesIO()
        img.save(buf, "PNG")
        buf.seek(0)
        c.drawImage(ImageReader(buf), 0, 0, PAGE_W, PAGE_H)
        c.showPage()
    c.save()


# ---- .docx -------------------------------------------------------------------------------------------

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_CONTENT_TYPES = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                  '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                  '<Default Extension="xml" ContentType="application/xml"/>'
                  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
                  'wordprocessingml.document.main+xml"/>'
                  '<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.'
                  'wordprocessingml.numbering+xml"/></Types>')
_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
         '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
         '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
         'officeDocument" Target="word/document.xml"/></Relationships>')
#: Word's numbering as plans use it: 一、 > （一） > 1、 > （1）
_NUMBERING = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:numbering xmlns:w="{_W}">'
              '<w:abstractNum w:abstractNumId="0">'
              '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="chineseCounting"/><w:lvlText w:val="%1、"/></w:lvl>'
              '<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="chineseCounting"/><w:lvlText w:val="（%2）"/></w:lvl>'
              '<w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%3、"/></w:lvl>'
              '<w:lvl w:ilvl="3"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="（%4）"/></w:lvl>'
              '</w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>')


def docx_paragraph(text: str, level: int | None = None, *, split_runs: bool = True) -> str:
    """One ``w:p``: the text in runs of a few characters (Word splits runs wherever formatting or
    spell-checking changed), numbered at ``level`` (0–3) by Word's automatic numbering."""
    num = (f'<w:pPr><w:numPr><w:ilvl w:val="{level}"/><w:numId w:val="1"/></w:numPr></w:pPr>'
           if level is not None else "")
    step = 7 if split_runs else max(1, len(text))
    runs = "".join(f'<w:r><w:t xml:space="preserve">{escape(text[i:i + step])}</w:t></w:r>'
                   for i in range(0, len(text), step))
    return f"<w:p>{num}{runs}</w:p>"


def docx_bytes(body: str, *, numbering: bool = False, extra: dict[str, bytes] | None = None) -> bytes:
    doc = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{_W}"><w:body>{body}'
           '<w:sectPr/></w:body></w:document>')
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _CONTENT_TYPES)
        z.writestr("_rels/.rels", _RELS)
        z.writestr("word/document.xml", doc)
        if numbering:
            z.writestr("word/numbering.xml", _NUMBERING)
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return buf.getvalue()


def plan_docx(path: Path, text: str, *, numbered: bool = False) -> None:
    """``text`` as a .docx, one paragraph per non-blank line (the header line of the announcement as its
    first paragraph, as Word files of announcements have it). ``numbered``: the clause markers
    (一、 （一） 1、 （1）) taken off the lines and given by Word's automatic numbering instead."""
    import re

    markers = [re.compile(r"^[一二三四五六七八九十]+、"), re.compile(r"^[（(][一二三四五六七八九十]+[）)]"),
               re.compile(r"^\d{1,2}、"), re.compile(r"^[（(]\d{1,2}[）)]")]
    body = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        level = None
        if numbered:
            for lv, m in enumerate(markers):
                if m.match(line):
                    level, line = lv, m.sub("", line, count=1)
                    break
        body.append(docx_paragraph(line, level))
    path.write_bytes(docx_bytes("".join(body), numbering=numbered))
