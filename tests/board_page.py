"""The board-page pictures of the docs: the 汇总 sheet of the GCL sample as LibreOffice prints it (its two
board pages: the results, then the dividend path and its chart; docs/board-page.png) and the first page of
its cover (docs/cover-page.png), regenerated from the current plans and samples.

    .venv/bin/python tests/board_page.py

builds the GCL sample's workbook (dated as the samples are), prints it to PDF in LibreOffice (one launch),
renders the pages and writes the pictures with the fingerprint of what they show (every value, number
format, fill and conditional format of 汇总 and 封面) in a text chunk: tests/test_print.py fails when the
current build's fingerprint differs, naming this command. Pages are told by their footer (``<plan> v<version> <sheet>
第 <page> 页``, each sheet numbered from 1: writer.py)."""

from __future__ import annotations

import hashlib
import json
import re
import struct
import sys
import tempfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PICTURE = ROOT / "docs" / "board-page.png"
COVER_PICTURE = ROOT / "docs" / "cover-page.png"
SAMPLE = ROOT / "samples" / "gcl-energy-2022-2024.yaml"
KEY = "xlmodel-board-page"
COMMAND = ".venv/bin/python tests/board_page.py"
FOOTER = re.compile(r"^\S+ v\S+ (\S+) 第 ?(\d+) ?页$")
FOOTER_JOINED = re.compile(r" v\d+(?:\.\d+)*(\D+?) ?第 ?\d+ ?页")


def page_sheets(pdf: Path) -> list[str]:
    """The sheet each page of a workbook's PDF prints (from its footer); '' where none is found."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        out = []
        for i in range(len(doc)):
            text = doc[i].get_textpage().get_text_range()
            hits = [m.group(1) for m in map(FOOTER.match, (x.strip() for x in text.splitlines())) if m]
            if not hits:  # a page whose text comes out a character a line (PDFium's order): the footer joined
                hits = FOOTER_JOINED.findall(text.replace("\r", "").replace("\n", ""))
            out.append(hits[0] if hits else "")
        return out
    finally:
        doc.close()


def page_text(pdf: Path, pages: list[int]) -> str:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        return "\n".join(doc[i].get_textpage().get_text_range() for i in pages)
    finally:
        doc.close()


def fingerprint(workbook: Path) -> str:
    """What the 汇总 and 封面 sheets show: each cell's cached value, number format, fill and weight, and
    their conditional formats (the status colours)."""
    import openpyxl

    from xlmodel.workbook.layout import SHEETS

    wb = openpyxl.load_workbook(workbook, data_only=True)
    shown = []
    for key in ("summary", "cover"):
        ws = wb[SHEETS[key]]
        cells = [(c.coordinate, repr(c.value), c.number_format, str(c.fill.fgColor.rgb), bool(c.font.b))
                 for row in ws.iter_rows() for c in row if c.value is not None]
        cf = sorted(f"{rng.sqref}:{r.formula}" for rng in ws.conditional_formatting for r in rng.rules)
        shown.append([cells, cf])
    return hashlib.sha256(json.dumps(shown, ensure_ascii=False).encode()).hexdigest()[:16]


def build(folder: Path) -> Path:
    import datetime as dt

    from xlmodel.case import load_case
    from xlmodel.workbook.builder import SAMPLES_DATE
    from xlmodel.workbook.writer import build_workbook

    return build_workbook(folder / "gcl-energy-2022-2024.xlsx", case=load_case(SAMPLE),
                          generated=dt.date.fromisoformat(SAMPLES_DATE))


def picture_fingerprint(path: Path = PICTURE) -> str | None:
    """The fingerprint a picture was made from (its text chunk), or None."""
    data = path.read_bytes()
    i = 8
    while i < len(data):
        n, kind = struct.unpack(">I4s", data[i:i + 8])
        if kind == b"tEXt":
            key, _, value = data[i + 8:i + 8 + n].partition(b"\0")
            if key.decode() == KEY:
                return value.decode()
        i += 12 + n
    return None


def _png(rgb, text: str) -> bytes:
    """An RGB array as PNG, with the fingerprint in a tEXt chunk."""
    h, w, _ = rgb.shape

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    raw = b"".join(b"\0" + rgb[y].tobytes() for y in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"tEXt", KEY.encode() + b"\0" + text.encode()) + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


def main() -> int:
    import numpy as np
    import pypdfium2 as pdfium

    from xlmodel.workbook.layout import SHEETS
    from xlmodel.engines.recalc import export_pdf

    def picture(doc, pages: list[int]):
        """The pages one above the other, each cropped to its ink."""
        parts = []
        for page in pages:
            rgb = np.array(doc[page].render(scale=1.6, rev_byteorder=True).to_numpy())[:, :, :3]
            ink = np.argwhere(rgb.min(axis=2) < 250)
            (y0, x0), (y1, x1) = ink.min(axis=0), ink.max(axis=0)
            pad = 12
            parts.append(rgb[max(0, y0 - pad):y1 + pad, max(0, x0 - pad):x1 + pad])
        width = max(p.shape[1] for p in parts)
        parts = [np.pad(p, ((0, 0), (0, width - p.shape[1]), (0, 0)), constant_values=255) for p in parts]
        return np.ascontiguousarray(np.concatenate(parts))

    with tempfile.TemporaryDirectory() as tmp:
        book = build(Path(tmp))
        (pdf,) = export_pdf([book], Path(tmp) / "pdf")
        sheets = page_sheets(pdf)
        summary = [i for i, s in enumerate(sheets) if s == SHEETS["summary"]][:2]  # the board's two pages
        doc = pdfium.PdfDocument(str(pdf))
        try:
            pictures = {PICTURE: picture(doc, summary), COVER_PICTURE: picture(doc, [sheets.index(SHEETS["cover"])])}
        finally:
            doc.close()
        made_from = fingerprint(book)
        for path, rgb in pictures.items():
            path.write_bytes(_png(rgb, made_from))
            print(f"wrote {path.relative_to(ROOT)} ({rgb.shape[1]}×{rgb.shape[0]})")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
