"""The PDF reader's own process: ``python -P pdfworker.py MEMORY PAGES CHARS`` < file.pdf > JSON.

:func:`xlmodel.inputs.documents.read_pdf` runs this file in a child process, so that PDFium (a native
library) parsing an untrusted PDF cannot hang, exhaust or crash xlmodel itself: the child limits
its own address space (POSIX), the parent its time. It imports nothing from xlmodel (``-P``: not
even the folder it lies in is on its path), reads the PDF from stdin and writes one JSON object:
``{"pages": [[line, …], …], "images": N}`` or ``{"error": "password" | "damaged" | "pages" |
"chars" | "page" | "missing", …}``.

Lines are put in their places on the page (:func:`page_lines`), not taken in the order the PDF
draws them: a header drawn after the body is still the page's first line.
"""

import ctypes
import json
import sys


def limit_memory(limit: int) -> None:
    try:
        import resource
    except ImportError:  # Windows: the parent's time limit only
        return
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        new = limit if soft == resource.RLIM_INFINITY else min(soft, limit)
        resource.setrlimit(resource.RLIMIT_AS, (new, hard))
    except (ValueError, OSError):
        pass


INDENT = "\u3000\u3000"


def page_lines(tp, raw) -> list[str]:
    """A text page's lines by their place on the page, top to bottom.

    PDFium's own lines (its text order within a line, its spaces), each put where its first
    character stands; lines on one baseline (a header in pieces) are one line, read left to right.
    A header or footer drawn after the body is so still the page's first or last line. Two calls
    to PDFium per line (its first character's origin and font size): a page reads in milliseconds."""
    n = raw.FPDFText_CountChars(tp)
    if n <= 0:
        return []
    buf = (ctypes.c_ushort * (n + 1))()
    raw.FPDFText_GetText(tp, 0, n, buf)
    units = bytes(buf)[: 2 * n]
    x, y = ctypes.c_double(), ctypes.c_double()
    pieces = []  # (baseline, x, font size, text) of each of PDFium's lines
    first, start = None, 0  # the line's first character (not a space), where the line starts
    for i, u in enumerate(list(buf)[:n] + [10]):
        if u == 10 or u == 13:
            if first is not None:
                raw.FPDFText_GetCharOrigin(tp, first, x, y)
                size = raw.FPDFText_GetFontSize(tp, first) or 10.0
                pieces.append((-y.value, x.value, size, _text(units, start, i)))
            first, start = None, i + 1
        elif first is None and u not in (32, 0, 2, 0xFFFE, 0xFFFF) and not 0xDC00 <= u < 0xE000:
            first = i
    pieces.sort(key=lambda p: (p[0], p[1]))
    left = min((p[1] for p in pieces if p[3]), default=0.0)
    out, base, parts, lead = [], None, [], ""
    for baseline, x0, size, text in pieces:
        if parts and abs(baseline - base) > 0.45 * size:
            out.append(lead + " ".join(parts))
            parts = []
        if not parts:
            base = baseline
            # a paragraph's first line indented by about two characters (Chinese typesetting): said with two
            # ideographic spaces, as a text file has it (a centred title or a page number stands further in)
            lead = INDENT if 1.5 * size <= x0 - left <= 3.2 * size else ""
        parts.append(text)
    if parts:
        out.append(lead + " ".join(parts))
    return out


_NOT_TEXT = dict.fromkeys(map(ord, "\x00\x02\r\n\ufffe\uffff"))


def _text(units: bytes, start: int, end: int) -> str:
    """Characters ``start`` to ``end`` (exclusive) of the page, without PDFium's markers."""
    return units[2 * start:2 * end].decode("utf-16-le", "replace").translate(_NOT_TEXT).strip()


def _images(page, raw, limit: int = 10_000) -> int:
    """Image objects drawn directly on a page (a scan's pages are one image each)."""
    count = min(raw.FPDFPage_CountObjects(page.raw), limit)
    return sum(1 for k in range(count) if raw.FPDFPageObj_GetType(raw.FPDFPage_GetObject(page.raw, k))
               == raw.FPDF_PAGEOBJ_IMAGE)


def read(data: bytes, max_pages: int, max_chars: int) -> dict:
    try:
        import pypdfium2 as pdfium
        import pypdfium2.raw as raw
    except ImportError:
        return {"error": "missing"}
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as e:
        return {"error": "password" if e.err_code == raw.FPDF_ERR_PASSWORD else "damaged"}
    n = len(pdf)
    if n > max_pages:
        return {"error": "pages", "pages": n}
    pages, images, total = [], 0, 0
    for i in range(n):
        try:
            page = pdf[i]
            tp = page.get_textpage()
            lines = page_lines(tp, raw)
            tp.close()
            if sum(len(x) for x in lines) < 20:  # (a scan: its images are counted, to say so)
                images += _images(page, raw)
            page.close()
        except pdfium.PdfiumError:
            return {"error": "page", "page": i + 1}
        total += sum(len(x) for x in lines)
        if total > max_chars:
            return {"error": "chars", "page": i + 1}
        pages.append(lines)
    return {"pages": pages, "images": images}


def main(argv: list[str]) -> int:
    memory, max_pages, max_chars = (int(a) for a in argv[:3])
    limit_memory(memory)
    sys.stdout.write(json.dumps(read(sys.stdin.buffer.read(), max_pages, max_chars)))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
