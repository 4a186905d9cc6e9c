"""The PDF reader's own process: ``python -P pdfworker.py MEMORY PAGES CHARS`` < file.pdf > JSON.

:func:`xlmodel.documents.read_pdf` runs this file in a child process, so that PDFium (a native
library) parsing an untrusted PDF cannot hang, exhaust or crash xlmodel itself: the child limits
its own address space (POSIX), the parent its time. It imports nothing from xlmodel (``-P``: not
even the folder it lies in is on its path), reads the PDF from stdin and writes one JSON object:
``{"pages": [[line, …], …], "images": N}`` or ``{"error": "password" | "damaged" | "pages" |
"chars" | "page" | "missing", …}``.

Lines are rebuilt from the characters' places on the page (:func:`page_lines`), not taken in
the order the PDF draws them: a header drawn after the body is still the page's first line, and
a line drawn glyph by glyph is one line.
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


def page_lines(tp, raw) -> list[str]:
    """A text page's characters by their place: grouped into lines by baseline (top to bottom),
    each line read left to right, a space where a gap is wider than 0.3 em."""
    x, y = ctypes.c_double(), ctypes.c_double()
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    chars = []
    n = raw.FPDFText_CountChars(tp)
    i = 0
    while i < n:
        u = raw.FPDFText_GetUnicode(tp, i)
        step = 1
        if raw.FPDFText_IsGenerated(tp, i) == 1 or u in (0, 2, 10, 13, 0xFFFE, 0xFFFF):
            i += 1
            continue
        c = chr(u)
        if 0xD800 <= u < 0xDC00 and i + 1 < n:
            low = raw.FPDFText_GetUnicode(tp, i + 1)
            if 0xDC00 <= low < 0xE000:
                c, step = chr(0x10000 + ((u - 0xD800) << 10) + low - 0xDC00), 2
        raw.FPDFText_GetCharOrigin(tp, i, x, y)
        raw.FPDFText_GetCharBox(tp, i, left, right, bottom, top)
        size = raw.FPDFText_GetFontSize(tp, i) or 10.0
        chars.append((-round(y.value, 1), x.value, max(right.value, x.value), size, c))
        i += step
    chars.sort(key=lambda t: (t[0], t[1]))
    lines, line, base = [], [], None
    for ch in chars:
        if line and abs(ch[0] - base) > 0.45 * ch[3]:
            lines.append(line)
            line = []
        if not line:
            base = ch[0]
        line.append(ch)
    if line:
        lines.append(line)
    text = []
    for line in lines:
        line.sort(key=lambda t: t[1])
        s, edge = [], None
        for _, x0, x1, size, c in line:
            if edge is not None and x0 - edge > 0.3 * size and c != " " and s and s[-1] != " ":
                s.append(" ")
            s.append(c)
            edge = x0 if c == " " else x1
        text.append("".join(s))
    return text


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
            images += sum(1 for _ in page.get_objects(filter=[raw.FPDF_PAGEOBJ_IMAGE], max_depth=2))
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
