"""`xlmodel draft` from the documents users have (issue 22): the exchange's PDF, a Word file, a text.

* each of the three published plans, printed by the tests as a PDF (header line 证券代码 / 证券简称 /
  公告编号 on each page, footer 第 N 页 共 M 页, pages breaking inside sentences; a CID font not
  embedded and a TrueType subset embedded; the text file's own lines, reflowed justified
  paragraphs, one glyph at a time; the header drawn after the body; the company's name as a running
  header), as a .docx (one paragraph per line; clause numbers from Word's automatic numbering) and
  in traditional characters, drafts to exactly the policy its text file drafts to;
* what is not a plan text — a scan, an encrypted PDF, an announcement of something else, a text
  without numbered clauses, a text in which no rule is recognised — is an error (exit 2) saying what
  was found and what to do, and nothing is written;
* the format is told by content, not by the file name;
* the cleaning itself (headers, page numbers, broken lines, spacing, characters) on pages written
  here by hand;
* ``--company`` is one line of text, as a case file's company name (issue 21, item 5).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

import plan_documents as pd
from conftest import IN_CI
from test_draft import run_cli
from xlmodel.draft.source import make_plan_text
from xlmodel.plans.loading import load_policy_file

ROOT = Path(__file__).resolve().parent.parent
TEXTS = ROOT / "templates" / "texts"
#: plan -> (stock code, short name, announcement number, company name): the header lines of their announcements
PLANS = {
    "far-east-2022-2024": ("600869", "远东股份", "临2022-036", "远东智慧能源股份有限公司"),
    "gcl-energy-2022-2024": ("002015", "协鑫能源", "2022-074", "协鑫能源科技股份有限公司"),
    "houpu-2024-2026": ("300471", "厚普股份", "2024-018", "厚普清洁能源（集团）股份有限公司"),
}


def header(pid: str) -> str:
    code, short, number, _ = PLANS[pid]
    return f"证券代码：{code}    证券简称：{short}    公告编号：{number}"


def seed(pid: str) -> str:
    return (TEXTS / f"{pid}.txt").read_text(encoding="utf-8")


def paragraphs(pid: str) -> str:
    """The published text a paragraph to a line (the text files are broken at their PDF's line width):
    what the reflowed PDFs print, justified at their own width."""
    return make_plan_text([seed(pid).splitlines()]).text


def wqy(why: str = "the PDF embeds it") -> None:
    """The WenQuanYi Zen Hei font (fonts-wqy-zenhei): a PDF that embeds it is printed with it, and PDFium
    reads a PDF whose CID font is not embedded (STSong-Light) through a CJK font of the system's. Without
    it the test is skipped with the reason, and fails in CI (.ci/run installs it)."""
    if not pd.WQY.is_file():
        if IN_CI:
            pytest.fail(f"the WenQuanYi Zen Hei font is required in CI ({why}; apt-get install fonts-wqy-zenhei)")
        pytest.skip(f"fonts-wqy-zenhei not installed: {why}")


def draft(src: Path, folder: Path, pid: str, *extra) -> tuple[dict, str, list[str]]:
    """(the policy file's data, the plan text written beside it, the review lines) of ``xlmodel draft``."""
    out = folder / f"{pid}.yaml"
    code, err = run_cli("draft", src, "-o", out, *extra)
    assert code == 0, err
    policy = load_policy_file(out)  # every clause and quote checked against the text written beside it
    assert policy.text == f"texts/{pid}.txt"
    reviews = [line.strip() for line in err.splitlines() if "REVIEW" in line]
    return yaml.safe_load(out.read_text(encoding="utf-8")), (folder / policy.text).read_text(encoding="utf-8"), reviews


@pytest.fixture(scope="module")
def from_text(tmp_path_factory) -> dict[str, tuple[dict, str, list[str]]]:
    """Each published plan drafted from its text file (outside the output's folder: the text is copied)."""
    return {pid: draft(TEXTS / f"{pid}.txt", tmp_path_factory.mktemp(f"txt-{pid}"), pid) for pid in PLANS}


# ---- a draft from a PDF or a .docx is the draft from the text --------------------------------------------

VARIANTS = {
    "pdf-cid-lines": dict(font="cid", layout="lines"),
    "pdf-ttf-reflow": dict(font="ttf", layout="reflow"),
    "pdf-cid-glyphs-header-last-running": dict(font="cid", layout="glyphs", header_last=True, running=True),
    "pdf-ttf-reflow-running": dict(font="ttf", layout="reflow", running=True),
}


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("pid", list(PLANS))
def test_a_pdf_drafts_as_its_text(tmp_path, from_text, pid, variant):
    opts = dict(VARIANTS[variant])
    if opts["font"] == "ttf":
        wqy()
    else:  # without a CJK font PDFium places a non-embedded CID font's glyphs otherwise: lines lost or merged
        wqy("PDFium reads the PDF's STSong-Light, not embedded, through a CJK font of the system's")
    running = PLANS[pid][3] if opts.pop("running", False) else None
    src = tmp_path / "公告.pdf"
    pages = pd.plan_pdf(src, paragraphs(pid) if opts["layout"] == "reflow" else seed(pid), header=header(pid),
                        running=running, **opts)
    assert pages >= 3  # page breaks inside sentences: the texts run over several pages
    policy, text, reviews = draft(src, tmp_path / "out", pid)
    want_policy, want_text, want_reviews = from_text[pid]
    assert policy == want_policy  # every rule, quote, clause, note, title, year and date
    assert reviews == want_reviews
    # the plan text written: no page furniture, the clauses' lines as the text's own (white space aside)
    assert "证券代码" not in text and "公告编号" not in text and not re.search(r"第\s*\d+\s*页", text)
    assert _squeezed(text) == _squeezed(want_text).removesuffix(STRAY_PAGE_NUMBER.get(pid, ""))


#: the Houpu text file ends with the page number of the PDF it was copied from (a line "4"): the
#: PDF printed from it has that line at the last page's foot, where a page number is dropped
STRAY_PAGE_NUMBER = {"houpu-2024-2026": "4"}


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_what_the_pdf_reading_did_is_said(tmp_path):
    src = tmp_path / "plan.pdf"
    pages = pd.plan_pdf(src, paragraphs("gcl-energy-2022-2024"), header=header("gcl-energy-2022-2024"), layout="reflow")
    code, err = run_cli("draft", src, "-o", tmp_path / "gcl.yaml")
    assert code == 0, err
    assert f"the PDF's text layer ({pages} pages): {pages} header/footer lines removed, {pages} page numbers removed" in err
    head = (tmp_path / "gcl.yaml").read_text(encoding="utf-8").split("\nid:")[0]
    assert f"{pages} header/footer lines removed" in head  # the file's header says how its text was read


@pytest.mark.parametrize("numbered", [False, True], ids=["paragraphs", "word-numbering"])
@pytest.mark.parametrize("pid", list(PLANS))
def test_a_docx_drafts_as_its_text(tmp_path, from_text, pid, numbered):
    src = tmp_path / "plan.docx"
    pd.plan_docx(src, seed(pid), numbered=numbered)
    policy, text, reviews = draft(src, tmp_path / "out", pid)
    assert (policy, reviews) == from_text[pid][::2]
    assert _squeezed(text) == _squeezed(from_text[pid][1])


@pytest.mark.parametrize("pid", list(PLANS))
def test_traditional_characters_draft_as_simplified(tmp_path, from_text, pid):
    """A plan in traditional characters: the recognisers read it in simplified ones, and the plan text
    written (which the quotes are checked against) is the simplified one."""
    import opencc

    traditional = opencc.OpenCC("s2t").convert(paragraphs(pid))
    assert sum(a != b for a, b in zip(traditional, paragraphs(pid))) > 300  # (the seeds convert back exactly)
    src = tmp_path / "繁體.pdf"
    pd.plan_pdf(src, traditional, header=header(pid), layout="reflow")
    code, err = run_cli("draft", src, "-o", tmp_path / "out" / f"{pid}.yaml")
    assert code == 0, err
    assert "traditional characters converted to simplified" in err and "繁体字" in err
    policy = yaml.safe_load((tmp_path / "out" / f"{pid}.yaml").read_text(encoding="utf-8"))
    assert policy == from_text[pid][0]


def test_a_txt_is_kept_as_it_is_unless_it_had_page_furniture(tmp_path, from_text):
    pid = "far-east-2022-2024"
    lines = seed(pid).splitlines()
    # as copied out of a PDF: a form feed between pages, the header line and page numbers on each
    third = len(lines) // 3
    pages = [lines[:third], lines[third:2 * third], lines[2 * third:]]
    copied = "\f".join("\n".join([header(pid)] + p + [f"- {i} -"]) for i, p in enumerate(pages, 1))
    src = tmp_path / "copied.txt"
    src.write_text(copied, encoding="utf-8")
    policy, text, reviews = draft(src, tmp_path / "out", pid)
    assert (policy, reviews) == from_text[pid][::2]
    assert "证券代码" not in text and "- 2 -" not in text
    assert text == "\n".join(lines)  # its own lines otherwise, not joined


# ---- what is not a plan's text is an error, never a draft ------------------------------------------------

def _refused(tmp_path, src: Path, *words) -> str:
    out = tmp_path / "out" / "p.yaml"
    code, err = run_cli("draft", src, "-o", out)
    assert code == 2, err
    assert src.name in err and "Traceback" not in err
    for w in words:
        assert w in err, err
    assert not (tmp_path / "out").exists()  # nothing written: no policy, no text
    return err


def test_a_scanned_pdf_is_refused(tmp_path):
    src = tmp_path / "scan.pdf"
    pd.scanned_pdf(src, pages=3)
    err = _refused(tmp_path, src, "扫描件", "scanned", "OCR", "3 page(s) hold 3 image(s)")
    message = err.split(src.name, 1)[1]
    assert message.index("扫描件") < message.index("scanned")  # Chinese first


def test_an_encrypted_pdf_is_refused_a_copy_protected_one_is_read(tmp_path):
    from reportlab.lib.pdfencrypt import StandardEncryption

    text = seed("houpu-2024-2026")
    locked = tmp_path / "locked.pdf"
    pd.plan_pdf(locked, text, header=header("houpu-2024-2026"), encrypt=StandardEncryption("secret", "owner"))
    _refused(tmp_path, locked, "加密", "password")
    # the exchanges' PDFs sometimes only forbid copying (an owner password): the text layer is read
    protected = tmp_path / "protected.pdf"
    pd.plan_pdf(protected, text, header=header("houpu-2024-2026"),
                encrypt=StandardEncryption("", "owner", canPrint=0, canModify=0, canCopy=0, canAnnotate=0))
    code, err = run_cli("draft", protected, "-o", tmp_path / "ok" / "houpu-2024-2026.yaml")
    assert code == 0, err


def test_an_announcement_of_something_else_is_refused(tmp_path):
    src = tmp_path / "notice.pdf"
    notice = ("关于召开2024年第一次临时股东大会的通知\n一、会议基本情况\n（一）会议召集人：公司董事会。\n"
              "（二）会议时间：2024年5月20日14:00。\n二、会议审议事项\n1、关于选举独立董事的议案。\n")
    pd.plan_pdf(src, notice, header=header("gcl-energy-2022-2024"))
    _refused(tmp_path, src, "不像分红回报规划", "Not a plan text")


def test_a_text_numbered_in_a_style_clause_ids_cannot_cite_is_refused(tmp_path):
    # (章程 articles, 第一百五十五条, and plain paragraphs are drafted: tests/test_draft_six_classes.py)
    src = tmp_path / "dotted.txt"
    src.write_text("利润分配政策（节选）\n1. 公司每年以现金方式分配的利润不少于当年实现的可分配利润的10%。\n"
                   "2. 公司股东大会对利润分配方案作出决议后，须在两个月内完成股利派发。\n", encoding="utf-8")
    _refused(tmp_path, src, "1.", "一、 （一） 1、 （1）", "No clause numbered")


def test_a_plan_text_with_no_rule_recognised_is_refused(tmp_path):
    src = tmp_path / "thin.docx"
    src.write_bytes(pd.docx_bytes(pd.docx_paragraph("关于利润分配的说明") + pd.docx_paragraph("一、本公司将于下月召开年度股东大会。")))
    _refused(tmp_path, src, "未识别出任何规则", "no rule recognised", "nothing written")


@pytest.mark.parametrize("name, content, words", [
    ("plan.pdf", b"\x89PNG\r\n\x1a\n" + b"\x00" * 100, ("PNG", "OCR")),
    ("plan.pdf", b"%PDF-1.7\n" + bytes(range(256)) * 400, ("PDF", "damaged")),
    ("plan.docx", b"PK\x03\x04" + b"\x00" * 200, ("damaged",)),
    ("plan.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 500, (".doc", "Word 97-2003")),
    ("plan.txt", "{\\rtf1\\ansi 一、利润分配}".encode(), ("RTF",)),
    ("plan.txt", "<html><body>一、利润分配</body></html>".encode(), ("HTML",)),
])
def test_other_formats_are_named(tmp_path, name, content, words):
    src = tmp_path / name
    src.write_bytes(content)
    _refused(tmp_path, src, *words)


def test_a_workbook_or_zip_is_not_a_docx(tmp_path):
    import zipfile

    src = tmp_path / "plan.docx"
    with zipfile.ZipFile(src, "w") as z:
        z.writestr("xl/workbook.xml", "<workbook/>")
    _refused(tmp_path, src, "Excel workbook", "not a Word document")


def test_a_docx_is_read_as_word_shows_it(tmp_path):
    """Tab stops, deleted and hidden text and field codes are not text; tabs and breaks are spaces and lines;
    Word's numbering is printed at every level, deeper levels restarting under a new parent."""
    def run(text, props=""):
        return f'<w:r>{props}<w:t xml:space="preserve">{text}</w:t></w:r>'
    num = '<w:pPr><w:tabs><w:tab w:val="left" w:pos="420"/></w:tabs><w:numPr><w:ilvl w:val="{}"/><w:numId w:val="1"/></w:numPr></w:pPr>'
    body = "".join([
        f"<w:p>{run('示例股份有限公司股东分红回报规划')}</w:p>",
        f"<w:p>{num.format(0)}{run('利润分配')}</w:p>",
        f"<w:p>{num.format(1)}{run('每年')}<w:del><w:r><w:delText>至少</w:delText></w:r></w:del>{run('现金分红')}"
        f"{run('（内部批注）', '<w:rPr><w:vanish/></w:rPr>')}{run('不低于10%')}<w:r><w:tab/></w:r>{run('。')}</w:p>",
        f"<w:p>{num.format(1)}<w:r><w:fldChar w:fldCharType=\"begin\"/></w:r><w:r><w:instrText>PAGE</w:instrText></w:r>"
        f"{run('条件')}<w:r><w:br/></w:r>{run('第二行')}</w:p>",
        f"<w:p>{num.format(0)}{run('附则')}</w:p>",
        f"<w:p>{num.format(1)}{run('解释')}</w:p>",
    ])
    from xlmodel.inputs.documents import read_docx

    doc = read_docx(pd.docx_bytes(body, numbering=True), "x.docx")
    assert doc.pages == [["示例股份有限公司股东分红回报规划", "一、利润分配", "（一）每年现金分红不低于10% 。", "（二）条件",
                          "第二行", "二、附则", "（一）解释"]]
# ---- the format is the content's, not the name's ---------------------------------------------------------

def test_the_format_is_read_from_the_content(tmp_path, from_text):
    pid = "gcl-energy-2022-2024"
    pdf_as_txt = tmp_path / "plan.txt"
    pd.plan_pdf(pdf_as_txt, seed(pid), header=header(pid))
    code, err = run_cli("draft", pdf_as_txt, "-o", tmp_path / "a" / f"{pid}.yaml")
    assert code == 0, err
    assert "named .txt but holds a PDF" in err
    assert yaml.safe_load((tmp_path / "a" / f"{pid}.yaml").read_text(encoding="utf-8")) == from_text[pid][0]
    txt_as_pdf = tmp_path / "plan.pdf"
    txt_as_pdf.write_bytes((TEXTS / f"{pid}.txt").read_bytes())
    code, err = run_cli("draft", txt_as_pdf, "-o", tmp_path / "b" / f"{pid}.yaml")
    assert code == 0, err
    assert "named .pdf but holds text" in err
    docx_as_pdf = tmp_path / "word.pdf"
    pd.plan_docx(docx_as_pdf, seed(pid))
    code, err = run_cli("draft", docx_as_pdf, "-o", tmp_path / "c" / f"{pid}.yaml")
    assert code == 0 and "holds a Word document" in err, err


# ---- the cleaning, on pages written by hand --------------------------------------------------------------

def test_headers_footers_and_page_numbers_go():
    pages = [["证券代码：600000  证券简称：示例股份  公告编号：2025-001", "示例股份有限公司", "未来三年股东分红回报规划",
              "一、总则", "第 1 页 共 3 页"],
             ["示例股份有限公司", "二、利润分配", "公司每年以现金方式分配的利润", "- 2 -"],
             ["示例股份有限公司", "三、附则", "2", "本规划自股东大会审议通过之日起实施。", "3"]]
    made = make_plan_text(pages)
    # the company's name heads pages 2 and 3: gone there; on page 1 it is the title's first line: kept
    assert made.text.splitlines() == ["示例股份有限公司", "未来三年股东分红回报规划", "一、总则", "二、利润分配",
                                      "公司每年以现金方式分配的利润", "三、附则", "本规划自股东大会审议通过之日起实施。"]
    assert (made.headers, made.page_numbers) == (3, 4)  # the code line and two running names; 第1页, -2-, 2 and 3


def test_a_number_inside_a_page_is_not_a_page_number():
    pages = [["一、比例", "(一)甲", "(二)乙", "公司每年以现金方式分配的利润不少于", "30", "%。", "x", "y", "z"],
             ["二、其他", "a", "b", "c", "d"]]
    made = make_plan_text(pages, extracted=False)
    assert made.page_numbers == 0 and "\n30\n" in made.text  # not at a page's edge: kept


def test_broken_lines_are_joined_headings_and_clauses_are_not():
    full = "公司应保持利润分配政策的连续性与稳定性，在满足现金分红的条件"  # a line as wide as the page's
    pages = [["示例股份有限公司", "未来三年股东分红回报规划", "一、利润分配的条件",  # short: title lines, a heading
              full, "下，每年以现金方式分配的利润应不低于当年实现的可分配利润的10%。",  # a sentence broken at the width
              "（一）公司实施现金分红时须同时满足下列条件：",
              full, "（1）可供分配利润为正值；",  # the next line starts a clause: not joined
              full + "。", "公司当年盈利的，应当进行现金分红。",  # the line ends its sentence: not joined
              full, full, full, "下。"]]  # three printed lines of one sentence
    lines = make_plan_text(pages).text.splitlines()
    assert lines == ["示例股份有限公司", "未来三年股东分红回报规划", "一、利润分配的条件",
                     full + "下，每年以现金方式分配的利润应不低于当年实现的可分配利润的10%。",
                     "（一）公司实施现金分红时须同时满足下列条件：", full, "（1）可供分配利润为正值；",
                     full + "。", "公司当年盈利的，应当进行现金分红。", full * 3 + "下。"]


def test_where_paragraphs_are_indented_a_full_line_ending_a_sentence_goes_on():
    """A paragraph's printed line may end at the page's width on a sentence's end (。) and the paragraph go on below:
    where the paragraphs' first lines are indented (two ideographic spaces, as pdfworker says an indent), only an
    indented line, a clause's number or a heading opens a new one (issue 46: a corpus text from PDF read 第2段 for 第1段)."""
    full = "公司利润分配的形式主要包括现金、股票股利以及现金与股票股利相结合三种。"  # as wide as the page's lines
    pages = [["　　" + full, "公司优先采用现金分红的方式，当年未进行现金分红的，不得发放股票股利。",  # goes on: one paragraph
              "　　公司在符合利润分配的条件下，应当每年度进行利润分配，也可以进行中期现金",  # an indented line: a new one
              "分红。", "　　" + full, "利润分配的条件",  # a heading (short, no punctuation): never joined to it
              "　　" + full, "一、现金分红的比例"]]  # a clause's number: never joined
    assert make_plan_text(pages).text.splitlines() == [
        full + "公司优先采用现金分红的方式，当年未进行现金分红的，不得发放股票股利。",
        "公司在符合利润分配的条件下，应当每年度进行利润分配，也可以进行中期现金分红。", full, "利润分配的条件", full,
        "一、现金分红的比例"]
    # without indents (a document that does not indent its paragraphs) a line ending its sentence is not joined
    flat = [[x.lstrip("　") for x in pages[0]]]
    assert make_plan_text(flat).text.splitlines()[:2] == [full, "公司优先采用现金分红的方式，当年未进行现金分红的，不得发放股票股利。"]


def test_the_running_name_above_a_title_that_names_the_company_is_no_part_of_it():
    """Issue 46.6: the company's name printed at the top of every page, the first included, above a title that names the
    company itself (济南高新600807未来三年……规划): dropped there too, never the title's first words."""
    code = "证券代码：600807  证券简称：济南高新  公告编号：2023-001"
    pages = [[code, "济南高新发展股份有限公司", "济南高新600807未来三年（2023-2025）股东回报规划", "一、总则", "第 1 页 共 3 页"],
             [code, "济南高新发展股份有限公司", "二、利润分配", "公司每年以现金方式分配的利润", "第 2 页 共 3 页"],
             [code, "济南高新发展股份有限公司", "三、附则", "本规划自股东大会审议通过之日起实施。", "第 3 页 共 3 页"]]
    made = make_plan_text(pages)
    assert made.text.splitlines()[:2] == ["济南高新600807未来三年（2023-2025）股东回报规划", "一、总则"]
    assert made.headers == 6  # three code lines, three running names
    # a title whose first line is the company's name (the running line not repeated on page 1) keeps it
    pages[0][1:3] = ["济南高新发展股份有限公司", "未来三年（2023-2025）股东回报规划"]
    assert make_plan_text(pages).text.startswith("济南高新发展股份有限公司")


@pytest.mark.parametrize("layout", ["lines", "reflow"])
def test_a_real_texts_pdf_with_the_company_as_running_header_keeps_its_title(tmp_path, layout):
    """Issue 46.6 reproduced from a real text (benchmarks/draft_corpus/c03.txt, 济南高新's plan): printed over several
    pages with the company's full name as every page's running header, the first page's included — the draft's title
    is the text's own (it was 济南高新发展股份有限公司济南高新600807未来三年……)."""
    from xlmodel.draft import draft_text
    from xlmodel.draft.source import read_plan_source

    wqy("PDFium reads the PDF's STSong-Light, not embedded, through a CJK font of the system's")
    text = (Path(__file__).resolve().parents[1] / "benchmarks" / "draft_corpus" / "c03.txt").read_text(encoding="utf-8")
    src = tmp_path / "c03.pdf"
    assert pd.plan_pdf(src, text + text.split("\n", 1)[1] * 2, header="证券代码：600807    证券简称：济南高新    公告编号：2023-001",
                       running="济南高新发展股份有限公司", layout=layout) >= 2
    d = draft_text(read_plan_source(src).text, years=(2023, 2025))
    assert d.policy["title_zh"] == "济南高新600807未来三年（2023-2025）股东回报规划"


def test_spacing_and_characters_are_normalised():
    made = make_plan_text([["一、比例", "　　公司 每年 以现金方式分配的利润不少于 2022 年度 Net Profit 的 10%。",
                            "⼆、⽐例（Kangxi radicals, as some PDF fonts map 二 and 比）"]])
    lines = made.text.splitlines()
    assert lines[1] == "公司每年以现金方式分配的利润不少于2022年度Net Profit的10%。"  # a space between two Latin words stays
    assert lines[2].startswith("二、比例") and made.mapped == 2


def test_nothing_from_a_pdf_becomes_live_content(tmp_path):
    """Formula text and terminal escapes in a PDF's text layer stay text: in the draft, in the plan text
    written, on the screen and in the workbook built from the drafted plan."""
    from hostile_corpus import FORMULAS, formulas_of

    payloads = [p for _, p in FORMULAS if not p.startswith(("\t", "\r"))]
    text = paragraphs("gcl-energy-2022-2024").replace(
        "五、其他\n", "五、其他\n" + "".join(f"{p}\x1b[31m\u202e\n" for p in payloads), 1)
    src = tmp_path / "plan.pdf"
    pd.plan_pdf(src, text, header=header("gcl-energy-2022-2024"), font="cid", layout="reflow")
    out = tmp_path / "gcl-x.yaml"
    code, err = run_cli("draft", src, "-o", out, "--company", "协鑫能源科技股份有限公司", "--stock-code", "002015")
    assert code == 0, err
    written = out.read_text(encoding="utf-8") + (tmp_path / "texts" / "gcl-x.txt").read_text(encoding="utf-8")
    assert "\x1b" not in written + err and "\u202e" not in written + err
    assert '=HYPERLINK("http://evil","x")' in (tmp_path / "texts" / "gcl-x.txt").read_text(encoding="utf-8")
    book = tmp_path / "gcl.xlsx"
    code, err = run_cli("build", "--policy", out, "--year", "2024", "-o", book)
    assert code == 0, err
    live = [(cell, f) for cell, f in formulas_of(book) if "evil" in f or "SUM(1)" in f or "cmd|" in f]
    assert live == []


def test_a_simplified_text_is_not_converted():
    text = seed("houpu-2024-2026")
    made = make_plan_text([text.splitlines()], extracted=False)
    assert not made.traditional and made.text == text


# ---- --company is one line (issue 21, item 5) --------------------------------------------------------------

@pytest.mark.parametrize("name", ["协鑫能源\n总体结论 Overall: 通过", "协鑫能源\r总体结论", "协鑫\x1b[31m能源", "协鑫\u202e能源", "协鑫\t能源"])
def test_company_names_with_control_characters_are_refused(tmp_path, name):
    out = tmp_path / "p.yaml"
    code, err = run_cli("draft", TEXTS / "gcl-energy-2022-2024.txt", "-o", out, "--company", name, "--stock-code", "002015")
    assert code == 2 and "--company" in err and "control character" in err, err
    assert "\x1b" not in err and not out.exists()


def test_a_company_name_is_written_as_given(tmp_path):
    out = tmp_path / "p.yaml"
    code, err = run_cli("draft", TEXTS / "gcl-energy-2022-2024.txt", "-o", out, "--company", "  协鑫能源科技股份有限公司 ",
                        "--stock-code", "002015")
    assert code == 0, err
    assert load_policy_file(out).company.company_name == "协鑫能源科技股份有限公司"  # trimmed, as a case file's
