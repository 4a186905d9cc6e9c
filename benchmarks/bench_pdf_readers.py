"""PDF text extraction for `xlmodel draft`: the candidate libraries on the tests' plan PDFs (issue 22).

    python benchmarks/bench_pdf_readers.py            # every reader that is installed
    python benchmarks/bench_pdf_readers.py --repeat 5

The PDFs are the ones tests/plan_documents.py makes from the three published plan texts: a CID font
not embedded (STSong-Light) with the text file's lines, a TrueType subset embedded (WenQuanYi Zen
Hei) with justified reflowed paragraphs, and one glyph at a time with the page header drawn after
the body; plus all of them in one 40-odd-page document (in the embedded font) for speed. For each reader it prints the
time to extract every page (best of ``--repeat``, in this process, without xlmodel's child
process), and what the text is worth: the same cleaning (xlmodel.draft.source.make_plan_text) on its
lines, then the Chinese characters that differ from the plan's own text (difflib), and whether the
draft made from it is the draft of the text file (every rule, quote and clause).

Readers: pypdfium2 (PDFium; what xlmodel uses: lines rebuilt from the characters' positions, as
xlmodel's reader does, and PDFium's own text order), pypdf, pdfminer.six, and poppler's pdftotext
when they are installed (`pip install pypdf pdfminer.six`; `apt-get install poppler-utils`).
"""

from __future__ import annotations

import argparse
import difflib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import plan_documents as pd  # noqa: E402

PLANS = {"far-east-2022-2024": "证券代码：600869    证券简称：远东股份    公告编号：临2022-036",
         "gcl-energy-2022-2024": "证券代码：002015    证券简称：协鑫能源    公告编号：2022-074",
         "houpu-2024-2026": "证券代码：300471    证券简称：厚普股份    公告编号：2024-018"}


def pdfium_positions(path: Path) -> list[list[str]]:
    """xlmodel's own reading (xlmodel/inputs/pdfworker.py, here in-process: no child process)."""
    from xlmodel.inputs import pdfworker

    return pdfworker.read(path.read_bytes(), 10**6, 10**9)["pages"]


def pdfium_order(path: Path) -> list[list[str]]:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    pages = []
    for page in doc:
        tp = page.get_textpage()
        pages.append(tp.get_text_range().replace("\r\n", "\n").split("\n"))
    doc.close()
    return pages


def pypdf_pages(path: Path) -> list[list[str]]:
    from pypdf import PdfReader

    return [(p.extract_text() or "").split("\n") for p in PdfReader(str(path)).pages]


def pdfminer_pages(path: Path) -> list[list[str]]:
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTTextContainer

    return ["".join(el.get_text() for el in page if isinstance(el, LTTextContainer)).split("\n")
            for page in extract_pages(str(path))]


def pdftotext_pages(path: Path) -> list[list[str]]:
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True).stdout
    return [p.split("\n") for p in out.split("\f")]


def readers() -> dict:
    found = {"pypdfium2 (positions: xlmodel)": pdfium_positions, "pypdfium2 (PDFium's order)": pdfium_order}
    for name, module, fn in (("pypdf", "pypdf", pypdf_pages), ("pdfminer.six", "pdfminer", pdfminer_pages)):
        try:
            __import__(module)
            found[name] = fn
        except ImportError:
            print(f"({name} not installed: skipped)")
    if shutil.which("pdftotext"):
        found["pdftotext (poppler)"] = pdftotext_pages
    return found


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from xlmodel.draft import draft_text
    from xlmodel.draft.source import make_plan_text

    tmp = Path(tempfile.mkdtemp())
    docs, truth = {}, {}
    fonts = ["cid"] + (["ttf"] if pd.WQY.is_file() else [])
    for pid, header in PLANS.items():
        seed = (ROOT / "templates" / "texts" / f"{pid}.txt").read_text(encoding="utf-8")
        paragraphs = make_plan_text([seed.splitlines()]).text
        truth[pid] = (paragraphs, draft_text(seed).policy)
        for font in fonts:
            for layout, text in (("lines", seed), ("reflow", paragraphs)):
                path = tmp / f"{pid}-{font}-{layout}.pdf"
                pd.plan_pdf(path, text, header=header, font=font, layout=layout)
                docs[path] = pid
        path = tmp / f"{pid}-glyphs-header-last.pdf"
        pd.plan_pdf(path, seed, header=header, layout="glyphs", header_last=True)
        docs[path] = pid
    big = tmp / "all-plans-x4.pdf"  # in the embedded font where there is one (as Word's PDFs have them)
    pages = pd.plan_pdf(big, "\n".join(truth[p][0] for p in PLANS for _ in range(4)), header=PLANS["gcl-energy-2022-2024"],
                        layout="reflow", font=fonts[-1])
    print(f"{len(docs)} plan PDFs ({', '.join(fonts)} fonts; lines, reflowed, glyph by glyph) and one of {pages} pages "
          f"({fonts[-1]} font)\n")
    print(f"{'reader':32s} {'ms/plan':>8s} {'ms big':>8s} {'Han chars wrong':>16s} {'drafts equal':>13s}")
    for name, fn in readers().items():
        times, wrong, equal, differ = [], 0, 0, []
        for path, pid in docs.items():
            best = float("inf")
            for _ in range(args.repeat):
                t = time.perf_counter()
                got = fn(path)
                best = min(best, time.perf_counter() - t)
            times.append(best)
            text = make_plan_text(got).text
            want = truth[pid][0]
            a, b = re.sub(r"\s+", "", want), re.sub(r"\s+", "", text)
            for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
                if op != "equal":
                    wrong += max(sum(1 for c in a[i1:i2] if "\u4e00" <= c <= "\u9fff"),
                                 sum(1 for c in b[j1:j2] if "\u4e00" <= c <= "\u9fff"))
            try:
                same = draft_text(text).policy == truth[pid][1]
            except Exception:  # noqa: BLE001 - a reader whose text cannot be drafted
                same = False
            equal += same
            if not same:
                differ.append(path.stem)
        t = time.perf_counter()
        for _ in range(args.repeat):
            fn(big)
        big_ms = (time.perf_counter() - t) / args.repeat * 1000
        print(f"{name:32s} {sum(times) / len(times) * 1000:8.1f} {big_ms:8.0f} {wrong:16d} {equal:>7d} / {len(docs)}")
        if differ:
            print(f"{'':32s} drafts differ: {', '.join(differ)}")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
