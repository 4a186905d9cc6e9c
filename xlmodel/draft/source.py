"""The plan text a draft is made from: a PDF, a .docx or a text file, as the plan reads.

:func:`read_plan_source` reads the document (:mod:`xlmodel.inputs.documents`) and makes the plan's text of it:

* **running headers and footers** go — the announcement's line 证券代码：… 证券简称：… 公告编号：…
  wherever it stands, page numbers (第 1 页 共 5 页, - 3 -, 3/5, and a bare number at a page's
  edge), a short line repeated at the top or bottom of most pages (a company name as the page header;
  on the first page only where the page repeats it, as a title does, or where the title below it
  names the company itself), and the announcement's standard 本公司及董事会全体成员保证… statement
  above the title;
* **broken lines are joined** (a PDF's or a .docx's): a line that runs to the width of the page's
  lines and does not end a sentence (。！？；：) is joined with the next, unless the next starts a
  clause (一、 （一） 1、 （1） 第X条 1.): headings, titles, signatures and the last lines of
  paragraphs are short and stay lines of their own. Where paragraphs open with a two-character
  indent (:data:`xlmodel.pdfworker.INDENT`, a .docx's 　　), an indented line opens a paragraph and a
  full line that ends a sentence goes on into body text below it that is not indented;
* **spacing and characters**: spaces next to Chinese characters (a PDF's justification and the
  space between 2022 and 年) go, Kangxi radicals and compatibility ideographs some PDF fonts map
  to (⼀ U+2F00 for 一) become the characters they stand for, control characters go (no plan has
  them; a terminal escape does); full-width punctuation stays as
  published (the recognisers fold it, :func:`xlmodel.draft.numbers.fold`);
* **traditional characters** become simplified (OpenCC's ``t2s``) when the text is written in
  them, so that the recognisers read the words they know.

The text made is the text the policy stores (``texts/<id>.txt`` beside the policy): its quotes are
cut from it. A text file is kept exactly as it is unless a line was removed or a character
converted. What is not a plan text — a scan without a text layer, a text layer that does not
decode, a document without the words of a dividend plan or without numbered clauses — is an
error that says what was found and what to do, never a draft.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from ..plans import clauses as plan_clauses
from ..inputs.documents import Document, read_document
from ..inputs.untrusted import MAX_PLAN_TEXT_BYTES, InputFileError

#: a clause starts a line with one of these (xlmodel.plans.clauses's four, and 第X条 / 1. that plans also use)
CLAUSE_START = re.compile(r"^(?:[一二三四五六七八九十]+[、.．]|[（(][一二三四五六七八九十]+[）)]|\d{1,2}[、]|[（(]\d{1,2}[）)]"
                          r"|\d{1,2}[.．](?!\d)|第[一二三四五六七八九十百零〇\d]+[条章节款]|[①-⑳])")
_SENTENCE_END = re.compile(r"[。！？!?；;：:][”’）)」』】》\"']*$")
_HEADER = re.compile(r"^(?:[AaBbHh]\s*股\s*)?(?:证\s*券|股\s*票|债\s*券|转\s*债)\s*(?:代\s*码|简\s*称)\s*[:：]"
                     r"|^公\s*告\s*编\s*号\s*[:：]")
_PAGE_NUMBER = re.compile(r"^(?:第\s*\d{1,4}\s*页\s*(?:[,，/、]?\s*共\s*\d{1,4}\s*页)?|共\s*\d{1,4}\s*页\s*[,，]?\s*第\s*\d{1,4}\s*页"
                          r"|[-–—－]\s*\d{1,4}\s*[-–—－]|\d{1,4}\s*/\s*\d{1,4}|(?i:page)\s*\d{1,4}(?:\s*(?i:of)\s*\d{1,4})?)$")
_BARE_NUMBER = re.compile(r"^\d{1,4}$")
_STATEMENT = re.compile(r"^本公司(?:及|和)?(?:董事会|全体董事|董事会全体成员|董事、监事、高级管理人员).{0,20}保证.{0,60}"
                        r"(?:真实|准确|完整).{0,60}遗漏[。.]?$")
#: characters of Chinese text: ideographs, CJK punctuation, full-width forms, the quotes and dashes Chinese uses
_CJK = r"\u2e80-\u2fdf\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef“”‘’—…·"
_SPACE_NEAR_CJK = re.compile(rf"[ \t\u00a0\u3000]+(?=[{_CJK}])|(?<=[{_CJK}])[ \t\u00a0\u3000]+")
#: never a plan's text: PDFium's markers, zero-width and soft-hyphen characters
_DROP = dict.fromkeys(map(ord, "\ufffe\uffff\u0002\u200b\ufeff\u00ad"))
#: control characters and bidirectional overrides: no plan has them, a forged one does (terminal escapes)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: a dividend plan's own words: a text with none of them is not one
_VOCABULARY = ("分红", "利润分配", "股利", "股东回报", "派息", "现金分配", "分配利润")


@dataclass
class PlanSource:
    """A plan's text as the draft reads and the policy stores it."""

    text: str
    kind: str  # "pdf", "docx" or "text"
    pages: int
    encoding: str = "utf-8"
    changed: bool = True  # differs from the file's own text (a text file kept as it is: False)
    notes: list[str] = field(default_factory=list)
    headers: int = 0  # running header/footer lines removed
    page_numbers: int = 0
    joined: int = 0  # line breaks inside a sentence removed
    mapped: int = 0  # characters mapped (Kangxi radicals, compatibility ideographs) or dropped (control characters)
    traditional: bool = False

    def describe(self, name: str = "") -> str:
        """What was read (from the file ``name``) and done, for the draft's header and the command's output."""
        what = {"pdf": f"PDF 文字层 the PDF's text layer ({self.pages} page{'s' if self.pages != 1 else ''})",
                "docx": "Word 文档 the Word document (.docx)", "text": "文本 the text file"}[self.kind]
        done = []
        if self.headers:
            done.append(f"{self.headers} header/footer line{'s' if self.headers != 1 else ''} removed")
        if self.page_numbers:
            done.append(f"{self.page_numbers} page number{'s' if self.page_numbers != 1 else ''} removed")
        if self.joined:
            done.append(f"{self.joined} broken line{'s' if self.joined != 1 else ''} joined")
        if self.traditional:
            done.append("traditional characters converted to simplified (OpenCC t2s)")
        return f"read {name + ', ' if name else ''}{what}" + (": " + ", ".join(done) if done else "")


def read_plan_source(path: str | Path) -> PlanSource:
    """The plan text of a PDF, a .docx or a text file (see the module doc); an error if it is not one."""
    source = str(path)
    doc = read_document(path)
    if doc.kind == "text":
        pages = [p.splitlines() for p in (doc.text or "").split("\f")]
    else:
        pages = doc.pages
    _check_text_layer(doc, source)
    out = make_plan_text(pages, extracted=doc.kind != "text")
    out.kind, out.encoding, out.notes = doc.kind, doc.encoding, list(doc.notes)
    if doc.kind == "text" and not (out.headers or out.page_numbers or out.traditional or out.mapped):
        out.text, out.changed = doc.text or "", False
    if len(out.text.encode("utf-8")) > MAX_PLAN_TEXT_BYTES:
        raise InputFileError(source, f"规划文本超过 {MAX_PLAN_TEXT_BYTES // 2**20} MB，不像一份分红回报规划（只有几页） the text is "
                                     f"larger than a plan text can be ({MAX_PLAN_TEXT_BYTES // 2**20} MB): a plan is a few pages")
    check_plan_text(out.text, source)
    if out.traditional:
        out.notes.append("规划文本为繁体字，已转换为简体（OpenCC t2s）；保存的规划文本为转换后的文本 the plan is written in "
                         "traditional characters: converted to simplified (OpenCC t2s); the plan text saved is the "
                         "converted one")
    return out


# ---- the text of the pages --------------------------------------------------------------------------

def make_plan_text(pages: list[list[str]], *, extracted: bool = True) -> PlanSource:
    """The plan text of pages of lines: headers, footers and page numbers removed; for ``extracted``
    text (a PDF's, a .docx's) spacing normalised and broken lines joined."""
    made = PlanSource("", "text", len(pages))
    pages = [[_characters(line, made) for line in page] for page in pages]
    if extracted:
        pages = [[_spacing(line) for line in page] for page in pages]  # (a paragraph's indent kept as PARAGRAPH)
    lines = _strip_running_lines(pages, made)
    if extracted:
        lines = _join(lines, made)
        lines = _drop_statement(lines, made)
    text = "\n".join(lines) + "\n" if extracted else "\n".join(lines)
    converted = _to_simplified(text)
    if converted is not None:
        text, made.traditional = converted, True
    made.text = text
    return made


def _characters(line: str, made: PlanSource) -> str:
    line = line.translate(_DROP)
    if _CONTROL.search(line):
        line, n = _CONTROL.subn("", line)
        made.mapped += n
    if not any("\u2e80" <= c <= "\u2fdf" or "\uf900" <= c <= "\ufaff" for c in line):
        return line
    out = []
    for c in line:
        if "\u2e80" <= c <= "\u2fdf" or "\uf900" <= c <= "\ufaff":
            n = unicodedata.normalize("NFKC", c)
            if len(n) == 1 and n != c:
                made.mapped += 1
                c = n
        out.append(c)
    return "".join(out)


#: a line that opens a paragraph: indented two characters on the page (pdfworker.INDENT, a .docx's 　　), kept from the
#: spacing to the joining of lines, which never joins it to the line before (a private-use mark, never in the text made)
PARAGRAPH = "\ue000"


def _spacing(line: str) -> str:
    mark = PARAGRAPH if line.lstrip(" \t").startswith("\u3000\u3000") and line.strip() else ""
    line = _SPACE_NEAR_CJK.sub("", line.strip())
    return mark + re.sub(r"[ \t\u00a0\u3000]{2,}", " ", line)


def _key(line: str) -> str:
    """A line as compared between pages: no white space, a number it starts or ends with (a page's) as #."""
    s = _WHITE.sub("", line).lstrip(PARAGRAPH)
    lead = _DIGITS.match(s)  # anchored at the start, and at the end on the reversed line: linear (a `\d+$` search
    a = lead.end() if lead else 0  # restarts at every digit of a run: a 1 MiB run of digits took minutes)
    if a == len(s):
        return "#" if s else s
    trail = _DIGITS.match(s[::-1])
    b = trail.end() if trail else 0
    return ("#" if a else "") + s[a:len(s) - b] + ("#" if b else "")


_WHITE, _DIGITS = re.compile(r"\s+"), re.compile(r"\d+")


def _strip_running_lines(pages: list[list[str]], made: PlanSource) -> list[str]:
    """The pages' lines in order, without header/footer lines and page numbers; blank lines kept for text."""
    edges = [_edge_indexes(page) for page in pages]
    repeated = _repeated(pages, edges)
    out: list[str] = []
    kept_once: set[str] = set()
    for n, (page, edge) in enumerate(zip(pages, edges)):
        first_page_keys = [_key(page[i]) for i in sorted(edge)[:4]] if n == 0 else []
        for i, line in enumerate(page):
            s = line.strip().lstrip(PARAGRAPH)  # (an indented page number is a page number)
            if not s:
                out.append(line)
                continue
            if _HEADER.match(s):
                made.headers += 1
                continue
            if _PAGE_NUMBER.match(s) or (len(pages) > 1 and i in edge and _BARE_NUMBER.match(s)):
                made.page_numbers += 1
                continue
            k = _key(s)
            if i in edge and (k, edge[i]) in repeated:
                # on the first page a running line is the company's name as the title: kept, and only its
                # first occurrence dropped where the page repeats it (the running header above the title), or
                # where the title below it names the company itself (济南高新600807未来三年……规划)
                if n > 0 or (k not in kept_once and (sum(1 for x in first_page_keys if k in x) > 1
                                                     or _title_names_company(k, page[i + 1:]))):
                    made.headers += 1
                    kept_once.add(k)
                    continue
            out.append(line)
    return out


def _title_names_company(running: str, below: list[str]) -> bool:
    """The first line below a running line on the first page opens with the company's name (its first two characters,
    as a short name has them, or a full name ……有限公司) and names a plan: a title of its own, the running line above
    it no part of it."""
    line = next((_key(x) for x in below if x.strip(" \t\n" + PARAGRAPH)), "")
    opens = len(running) >= 4 and (line[:2] == running[:2] or "有限公司" in line[:30])
    return opens and bool(re.search(r"规划|分红|利润分配|股东回报|章程", line))


def _edge_indexes(page: list[str]) -> dict[int, str]:
    """The first three and last three non-blank lines of a page: index -> "top" or "bottom"."""
    filled = [i for i, x in enumerate(page) if x.strip()]
    return {**{i: "bottom" for i in filled[-3:]}, **{i: "top" for i in filled[:3]}}


def _repeated(pages: list[list[str]], edges: list[dict[int, str]]) -> set[str]:
    """Short lines at the same edge (top or bottom) of most pages — at least three, or every page of a
    shorter document: running headers and footers."""
    if len(pages) < 2:
        return set()
    seen: dict[tuple[str, str], int] = {}
    for page, edge in zip(pages, edges):
        for k in {(_key(page[i]), side) for i, side in edge.items()}:
            if 2 <= len(k[0]) <= 40:
                seen[k] = seen.get(k, 0) + 1
    need = min(len(pages), max(3, (len(pages) + 1) // 2))
    return {k for k, c in seen.items() if c >= need}


def width(line: str) -> int:
    """A line's printed width in half-ems: a Chinese character (or full-width form) 2, others 1."""
    return sum(2 if unicodedata.east_asian_width(c) in "WFA" else 1 for c in line)


def _join(lines: list[str], made: PlanSource) -> list[str]:
    """Lines broken inside a sentence joined (see the module doc); blank lines dropped."""
    lines = [x.strip() for x in lines if x.strip(" \t\n" + PARAGRAPH)]
    opens = [x.startswith(PARAGRAPH) for x in lines]
    lines = [x.lstrip(PARAGRAPH) for x in lines]
    widths = sorted(width(x) + 4 * o for x, o in zip(lines, opens))
    if not widths:
        return []
    full = 0.8 * widths[int(0.8 * (len(widths) - 1))]  # most lines of a PDF run to the page's width
    # where the paragraphs' first lines are indented, a full line that ends a sentence goes on unless the next
    # line opens a paragraph (an indent, a clause's number): the paragraph's end may fall at the line's end
    indents = sum(opens) >= 2
    out: list[str] = []
    last = ""  # the last printed line of out[-1]
    for line, opened in zip(lines, opens):
        if out and not opened and _continues(out[-1], last, line, full, indents):
            prev = out[-1]
            glue = " " if prev[-1:].isascii() and prev[-1:].isalpha() and line[:1].isascii() and line[:1].isalpha() else ""
            out[-1] = prev + glue + line
            made.joined += 1
        else:
            out.append(line)
        last = line
    return out


def _continues(prev: str, last: str, line: str, full: float, indents: bool = False) -> bool:
    """``line`` goes on the sentence ``prev`` broke off: its last line ran to the page's width without ending it (or,
    ``indents``: ending a sentence, where a paragraph's first line is indented and ``line`` is not)."""
    if CLAUSE_START.match(line) or width(last) < full:
        return False
    if _SENTENCE_END.search(prev):  # body text goes on (a full line, a sentence); a heading or a title does not
        return indents and (width(line) >= full or bool(_SENTENCE_END.search(line)) or bool(re.search(r"[，,]", line)))
    return True


def _drop_statement(lines: list[str], made: PlanSource) -> list[str]:
    """The announcement's 本公司及董事会全体成员保证… statement, in its first lines, is not the plan's."""
    for i, line in enumerate(lines[:6]):
        if _STATEMENT.match(line):
            made.headers += 1
            return lines[:i] + lines[i + 1:]
    return lines


_CONVERTER = None


def _to_simplified(text: str) -> str | None:
    """The text in simplified characters if it is written in traditional ones, else None.

    Traditional: at least 10 of its ideographs, and 3% of them, are ones OpenCC's ``t2s`` changes
    (a simplified text has none; a name in traditional characters quoted in one is too few)."""
    global _CONVERTER
    han = [c for c in text if "\u4e00" <= c <= "\u9fff"]
    if len(han) < 10:
        return None
    try:
        if _CONVERTER is None:
            import opencc

            _CONVERTER = opencc.OpenCC("t2s")
    except ImportError:  # pragma: no cover - opencc is a dependency
        return None
    changes = {c: _CONVERTER.convert(c) != c for c in set(han)}
    changed = sum(1 for c in han if changes[c])
    return _CONVERTER.convert(text) if changed >= 10 and changed >= 0.03 * len(han) else None


# ---- is it a plan text? -----------------------------------------------------------------------------

_TODO_ZH = "请确认这是公司公告的《股东分红回报规划》全文（可从交易所网站下载公告的 PDF 原件）"
_TODO_EN = "check that this is the company's published shareholder return plan (股东分红回报规划) in full (the PDF on the exchange's website)"


def _check_text_layer(doc: Document, source: str) -> None:
    """A PDF without a text layer (a scan) or with one that does not decode is not read as a plan."""
    if doc.kind != "pdf":
        return
    chars = [c for page in doc.pages for line in page for c in line if not c.isspace()]
    han = sum(1 for c in chars if "\u4e00" <= c <= "\u9fff")
    n = len(doc.pages)
    if han < 20 and doc.images:
        raise InputFileError(source, f"这是扫描件：PDF 的 {n} 页只有图像（{doc.images} 幅），没有文字层（{len(chars)} 个字符），无法读取。"
                                     "请下载交易所网站的文字版 PDF，或先用文字识别（OCR）软件转换、核对后另存为 UTF-8 .txt 再运行 "
                                     f"xlmodel draft。A scanned PDF: its {n} page(s) hold {doc.images} image(s) and no text "
                                     f"layer ({len(chars)} characters). Download the text PDF from the exchange, or OCR it, "
                                     "check the text and save it as UTF-8 .txt, then run xlmodel draft again")
    if han < 20:
        raise InputFileError(source, f"PDF 没有可读的文字（{n} 页，{len(chars)} 个字符，其中汉字 {han} 个）。{_TODO_ZH}。"
                                     f"The PDF has no readable text ({n} page(s), {len(chars)} characters, {han} Chinese): "
                                     f"{_TODO_EN}")
    bad = sum(1 for c in chars if "\ue000" <= c <= "\uf8ff" or c == "\ufffd" or unicodedata.category(c) == "Cc")
    if bad > 0.05 * len(chars):
        raise InputFileError(source, f"PDF 的文字层无法解码：{len(chars)} 个字符中 {bad} 个是私用区或无法识别的字符（字体缺少 Unicode "
                                     "映射）。请另找文字版 PDF，或从 PDF 阅读器复制文字、核对后另存为 UTF-8 .txt。The PDF's text "
                                     f"layer does not decode: {bad} of {len(chars)} characters are private-use or unknown "
                                     "(its fonts lack a Unicode map). Find another PDF of the plan, or save a checked copy of "
                                     "its text as UTF-8 .txt")


def check_plan_text(text: str, source: str) -> None:
    """A plan text speaks of dividends and numbers its clauses (一、 （一） 1、 （1））; else an error saying what was found."""
    if not text.strip():
        raise InputFileError(source, "文件中没有文字，没有可起草的条款 the file holds no text: no clause to draft from")
    han = sum(1 for c in text if "\u4e00" <= c <= "\u9fff")
    if not any(w in text for w in _VOCABULARY):
        raise InputFileError(source, f"这不像分红回报规划：{han} 个汉字中没有“分红”“利润分配”“股利”等词语。{_TODO_ZH}。"
                                     f"Not a plan text: {han} Chinese characters and none of the words of a dividend "
                                     f"plan (分红, 利润分配, 股利): {_TODO_EN}")
    # the styles a clause id is made of (xlmodel.plans.clauses); a text with none is read paragraph by paragraph,
    # unless its clauses are numbered in a way the clause ids cannot cite (第一节 …)
    if not any(pat.match(line.strip()) for line in text.splitlines() for _, pat in plan_clauses._PATTERNS) and \
            any(CLAUSE_START.match(line.strip()) for line in text.splitlines()):
        other = list(dict.fromkeys(m.group() for line in text.splitlines() if (m := CLAUSE_START.match(line.strip()))))[:3]
        zh = f"（条款编号为 {' '.join(other)} 等）" if other else ""
        en = f" (its clauses are numbered {' '.join(other)} …)" if other else ""
        raise InputFileError(source, f"没有按 一、 （一） 1、 （1） 编号的条款{zh}：xlmodel 按这四种编号识别条款，并为每条规则注明出处。"
                                     "请将规划文本另存为 UTF-8 .txt，把条款编号改为这四种之一，再运行 xlmodel draft。No clause "
                                     f"numbered 一、 （一） 1、 （1）{en}: xlmodel cites every rule by these numbers. Save the "
                                     "text as UTF-8 .txt with its clauses numbered so, and run xlmodel draft again")
