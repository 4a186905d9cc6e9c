"""The report as terminal text: the table (wide or compact), the timeline by year, widths of CJK text, wrapping
and colour.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..rules import catalogue as cat
from ..outputs import OUTPUT as _O, PART as _P
from ..inputs.sanitize import plain_text
from . import Report, UNREVIEWED, _ROLE_TAG, _amount_line, _bound, _fmt, _with_draft_note


def _width(s: str) -> int:
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in s)


def _pad(s: str, w: int) -> str:
    return s + " " * max(0, w - _width(s))


def _company_line(rep: Report) -> str:
    """The company, labelled: a name from the input never begins a line (nor a pasted cell: '=…')."""
    name = f"{plain_text(rep.company.get('company_name', ''))} {plain_text(rep.company.get('stock_code', ''))}".strip()
    return f"公司 Company: {name}" if name else ""


def _company_fit(rep: Report, w: int) -> str:
    """The company line in ``w`` columns: one line, the name cut (…) before the stock code."""
    line = _company_line(rep)
    if _width(line) <= w:
        return line
    name = plain_text(rep.company.get("company_name", ""))
    code = plain_text(rep.company.get("stock_code", ""))
    label = "公司 Company: "
    if name and code and _width(code) <= 20:
        return f"{label}{_truncate(name, w - _width(label) - 1 - _width(code))} {code}"
    return _truncate(line, w)


#: the header's warning when the units check fails: the amounts beneath it rest on figures that may be 万元
UNITS_SUSPECT_ZH = "注意：金额疑似以万元或亿元填写，以下金额按元计算，可能相差一万倍（见 reg_amounts_plausible）"
UNITS_SUSPECT_EN = "Note: amounts look like 万元 or 亿元; the figures below are computed as 元 and may be 10,000× off"


def _header_segments(rep: Report) -> list[list[tuple[str, str]]]:
    """The header lines after the company, each a list of (separator, segment)."""
    st = cat.STATUS_ZH
    cond = rep.cash_conditions_met
    zh, en = rep.st_verdict()
    return [
        [("", f"规划 Plan: {plain_text(rep.policy)} (v{plain_text(rep.policy_version)})"),
         ("    ", f"会计年度 Fiscal year: {rep.evaluation_year}")]
        + ([(" ", plain_text(rep.period_note()))] if rep.period_note() else []),
        [("", f"{_O['overall_status'].short}: {st[rep.overall_status]} {rep.overall_status}")]
        + ([(" ", UNREVIEWED)] if not rep.plan_reviewed else [])
        + [("    ", f"{_O['fail_count'].short}: {rep.fail_count}  {_O['warn_count'].short}: {rep.warn_count}  "
                      f"{_O['missing_input_count'].short}: {rep.missing_input_count}")],
        *([[("", UNITS_SUSPECT_ZH), (" | ", UNITS_SUSPECT_EN)]] if rep.units_suspect else []),
        [("", f"{_O['cash_conditions_met'].short}: {'—' if cond is None else ('是 yes' if cond else '否 no')}")],
        [("", _amount_line("min_cash_dividend", rep.min_cash_dividend))]
        + ([("  ", f"（{plain_text(rep.min_cash_note_zh)}）")] if rep.min_cash_note_zh else []),
        [("", _amount_line("max_distribution", rep.max_distribution))],
        [("", f"{_O['st_risk_warning'].short}: {zh}"), (" | ", en),
         ("    ", _amount_line("cash_needed_to_avoid_st", rep.cash_needed_to_avoid_st))],
    ]


def _paint_overall(lines: list[str], rep: Report, color: bool) -> list[str]:
    word = f"{cat.STATUS_ZH[rep.overall_status]} {rep.overall_status}"
    label = _O["overall_status"].short
    lead = f"{label}: {word}"
    return [ln.replace(lead, f"{label}: {paint(word, rep.overall_status, color)}", 1)
            if color and ln.startswith(lead) else ln for ln in lines]


def render_table(rep: Report, *, width: int | None = None, wide: bool = False, color: bool | None = None,
                 preface: Sequence[tuple[str, str]] = ()) -> str:
    """The report as text for a terminal.

    By default a compact table within ``width`` display columns (default: the terminal's,
    :func:`terminal_width`; never below :data:`MIN_WIDTH`): per rule a line with its status, title
    and clause (wrapped), the short columns beneath (actual, bound with its kind, margin,
    shortfall), and for a rule that does not pass its explanations, wrapped. ``wide``: the full
    table, one line per rule, never wrapped. ``color`` (default :func:`color_enabled`) colours the
    status words. ``preface``: (zh, en) lines of our own wording shown first (``xlmodel check``
    puts the workbook's integrity there); text from a file in them is made plain."""
    color = color_enabled() if color is None else color
    preface = _with_draft_note(rep, preface)
    if wide:
        return _render_wide(rep, color, preface)
    w = max(MIN_WIDTH, width or terminal_width())
    lines: list[str] = []
    for zh, en in preface:  # continuation lines are marked: text quoted from a file never begins one
        lines += _fit([("", plain_text(zh)), (" | ", plain_text(en))], w, cont="  ↪ ")
    lines.append(_company_fit(rep, w) if _company_line(rep) else "")  # one line: a name cannot push lines
    for segments in _header_segments(rep):
        lines += _fit(segments, w)
    lines.append("")
    return "\n".join(_paint_overall(lines, rep, color) + _compact_rules(rep, w, color))


def _compact_rules(rep: Report, w: int, color: bool) -> list[str]:
    st = cat.STATUS_ZH
    indent = 4
    cols = [(_P["actual"].heading, [_fmt(r.actual, r.unit) for r in rep.rules]),
            (_P["bound"].heading, [_bound(r) for r in rep.rules]),
            (_P["margin"].heading, [_fmt(r.margin, r.unit) if r.margin is not None else "" for r in rep.rules]),
            (_P["shortfall"].heading, [_fmt(r.shortfall, r.unit) if r.shortfall else "" for r in rep.rules])]
    widths = [max(_width(x) for x in [h, *cells]) for h, cells in cols]
    bands: list[list[int]] = [[]]  # columns that do not fit beside the others continue on a line below
    used = indent
    for i, cw in enumerate(widths):
        if bands[-1] and used + 2 + cw > w:
            bands.append([])
            used = indent
        used += cw + (2 if bands[-1] else 0)
        bands[-1].append(i)

    def band_lines(cells: list[str]) -> list[str]:
        return [(" " * indent + "  ".join(_pad(cells[i], widths[i]) for i in band)).rstrip()
                for band in bands if any(cells[i] not in ("", "—") for i in band)]

    head = [f"{_P['status'].heading}  {_P['rule'].heading} 〔{_P['clause'].heading}〕"] + [
        (" " * indent + "  ".join(_pad(cols[i][0], widths[i]) for i in band)).rstrip() for band in bands]
    lines = head + ["-" * min(w, max(_width(x) for x in head))]
    for k, r in enumerate(rep.rules):
        status = f"{st[r.status]} {r.status}"
        title = f"{_ROLE_TAG.get(r.role, '')}{plain_text(r.title_zh)}"
        first, *rest = _wrap(title, w, first=status + "  ", cont=" " * indent, tail=f"〔{plain_text(r.clause)}〕")
        lines += [paint(status, r.status, color) + first[len(status):], *rest]
        lines += band_lines([c[1][k] for c in cols])
        if r.status not in ("pass", "met"):
            lines += _wrap(plain_text(r.explanation_zh), w, first=" " * indent + "↳ ", cont=" " * (indent + 2))
            lines += _wrap(plain_text(r.explanation_en), w, first=" " * (indent + 2), cont=" " * (indent + 2))
    return lines


def _render_wide(rep: Report, color: bool, preface: Sequence[tuple[str, str]]) -> str:
    """The full table: one line per rule and per header line, never wrapped (``--wide``)."""
    st = cat.STATUS_ZH
    lines = [f"{plain_text(zh)} | {plain_text(en)}" for zh, en in preface]
    lines.append(_company_line(rep))
    lines += ["".join(sep + text for sep, text in segments) for segments in _header_segments(rep)]
    lines = _paint_overall(lines, rep, color) + [""]
    head = [_P[k].heading for k in ("rule", "clause", "status", "actual", "bound", "margin", "shortfall")]
    rows = []
    for r in rep.rules:
        rows.append([
            f"{_ROLE_TAG.get(r.role, '')}{plain_text(r.title_zh)}",
            plain_text(r.clause), f"{st[r.status]} {r.status}",
            _fmt(r.actual, r.unit), _bound(r), _fmt(r.margin, r.unit) if r.margin is not None else "",
            _fmt(r.shortfall, r.unit) if r.shortfall else "",
        ])
    widths = [max(_width(x) for x in col) for col in zip(head, *rows)]
    lines.append("  ".join(_pad(h, w) for h, w in zip(head, widths)))
    lines.append("  ".join("-" * w for w in widths))
    for row, r in zip(rows, rep.rules):
        cells = [_pad(c, w) for c, w in zip(row, widths)]
        cells[2] = paint(row[2], r.status, color) + cells[2][len(row[2]):]
        lines.append("  ".join(cells))
        if r.status not in ("pass", "met"):
            lines.append(f"    ↳ {plain_text(r.explanation_zh)} | {plain_text(r.explanation_en)}")
    return "\n".join(lines)


#: the width when the terminal's is unknown (output to a file or a pipe, COLUMNS unset)
DEFAULT_WIDTH = 100
#: the narrowest layout: a narrower terminal gets lines of this width
MIN_WIDTH = 40
#: ANSI colours of the status words (not_applicable stays plain)
STATUS_COLORS = {"fail": "31", "warn": "33", "pass": "32", "met": "36", "not_met": "34", "missing_input": "35"}
_CLOSE = frozenset("，。、；：！？）》」』〕】”’,.;:!?)]}%")  # no line begins with these
_OPEN = frozenset("（《「『〔【“‘([{")  # no line ends with these
_SOFT = frozenset("，。、；：！？）》」』〕】")  # a line preferably breaks after these (or at a space)


def terminal_width() -> int:
    """The terminal's width in columns (``COLUMNS`` first); :data:`DEFAULT_WIDTH` when unknown."""
    import shutil

    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns or DEFAULT_WIDTH


def color_enabled(stream=None) -> bool:
    """Colour only on a terminal (``stream``, default stdout), and not with ``NO_COLOR`` set
    (https://no-color.org) or ``TERM=dumb``."""
    import os
    import sys

    stream = sys.stdout if stream is None else stream
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or closed
        return False
    return bool(tty) and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def paint(text: str, status: str, color: bool) -> str:
    """``text`` in the colour of ``status`` (:data:`STATUS_COLORS`) when ``color``."""
    code = STATUS_COLORS.get(status) if color else None
    return f"\x1b[{code}m{text}\x1b[0m" if code else text


def _truncate(s: str, w: int) -> str:
    """``s`` cut to ``w`` display columns, ending in … when cut."""
    if _width(s) <= w:
        return s
    out, used = "", 0
    for ch in s:
        if used + _width(ch) > w - 1:
            break
        out += ch
        used += _width(ch)
    return out + "…"


def _fit(segments: list[tuple[str, str]], w: int, cont: str = "    ") -> list[str]:
    """A header line if it fits in ``w``; else each segment on its own line(s), the later ones after ``cont``."""
    joined = "".join(sep + text for sep, text in segments)
    if _width(joined) <= w:
        return [joined]
    out: list[str] = []
    for i, (_sep, text) in enumerate(segments):
        out += _wrap(text, w, first=cont if i else "", cont=cont)
    return out


def _atoms(text: str) -> list[str]:
    """``text`` in pieces a line never breaks inside: a space, one CJK character, a run of other
    characters; closing punctuation stays with what precedes it, opening with what follows."""
    atoms: list[str] = []
    for ch in text:
        if atoms:
            prev = atoms[-1]
            glue = (ch in _CLOSE and prev != " ") or (prev[-1] in _OPEN and ch != " ")
            run = ch != " " and prev[-1] != " " and _width(ch) == 1 and _width(prev[-1]) == 1
            if glue or run:
                atoms[-1] += ch
                continue
        atoms.append(ch)
    return atoms


def _wrap(text: str, w: int, first: str = "", cont: str = "", tail: str = "") -> list[str]:
    """``text`` in lines of at most ``w`` display columns (East Asian wide characters count 2), the
    first line after ``first``, the others after ``cont``; ``tail`` follows after a space, on one
    line where it fits one.

    Lines break at spaces and between CJK characters, preferably at a space or after CJK
    punctuation in the second half of the line, never inside a number or word that fits a line."""
    atoms = _atoms(text)
    if tail:
        atoms += [" "] + ([tail] if _width(tail) <= max(2, w - _width(cont)) else _atoms(tail))
    lines: list[str] = []
    cur: list[str] = []
    prefix = first

    def room() -> int:
        return max(2, w - _width(prefix))

    def emit(parts: list[str]) -> None:
        nonlocal prefix
        lines.append((prefix + "".join(parts)).rstrip())
        prefix = cont

    def width_of(parts: list[str]) -> int:
        return sum(_width(p) for p in parts)

    for atom in atoms:
        if atom == " " and not cur:
            continue
        if width_of(cur) + _width(atom) <= room():
            cur.append(atom)
            continue
        if atom == " ":
            emit(cur)
            cur = []
            continue
        soft = [i for i, a in enumerate(cur) if a == " " or a[-1] in _SOFT]
        if soft and width_of(cur[: soft[-1] + 1]) >= room() // 2:
            emit(cur[: soft[-1] + 1])
            cur = cur[soft[-1] + 1:]
            while cur and cur[0] == " ":
                cur.pop(0)
        elif cur:
            emit(cur)
            cur = []
        if cur and width_of(cur) + _width(atom) > room():
            emit(cur)
            cur = []
        while _width(atom) > room():  # a word longer than a line is cut
            piece = ""
            for ch in atom:
                if piece and _width(piece + ch) > room():
                    break
                piece += ch
            emit([piece])
            atom = atom[len(piece):]
        cur.append(atom)
    if cur or not lines:
        emit(cur)
    return lines


def render_by_year(reports: Sequence[Report], evaluation_year: int, forecast_years=frozenset()) -> str:
    """The plan's timeline, one line per year: the result, the minimum cash dividend, the cap and the
    counts, as the workbook's year columns show them (the evaluation year marked ◀, forecast years 预测)."""
    if not reports:
        return ""
    first = reports[0]
    lo, hi = first.plan_years or (first.evaluation_year, reports[-1].evaluation_year)
    heads = ("年度 FY", "结论 Result", _O["min_cash_dividend"].heading, _O["max_distribution"].heading, "不通过/警告/缺少")
    rows = []
    for rep in reports:
        mark = " ◀" if rep.evaluation_year == evaluation_year else ("" if lo <= rep.evaluation_year <= hi else " *")
        mark += " 预测" if rep.evaluation_year in forecast_years else ""
        verdict = f"{cat.STATUS_ZH[rep.overall_status]} {rep.overall_status}" + ("（未复核草稿 draft）" if not rep.plan_reviewed else "")
        rows.append((f"{rep.evaluation_year}{mark}", verdict,
                     _fmt(rep.min_cash_dividend, "元"), _fmt(rep.max_distribution, "元"),
                     f"{rep.fail_count} / {rep.warn_count} / {rep.missing_input_count}"))
    widths = [max(_width(r[i]) for r in rows + [heads]) for i in range(len(heads))]
    lines = [f"逐年结果 By year (plan {lo}–{hi}; ◀ the evaluation year; * outside the plan period; "
             + ("预测 forecast figures; " if forecast_years else "") + "other years without the evaluation year's attestations)"]
    for r in [heads] + rows:
        lines.append("  ".join(_pad(c, w) for c, w in zip(r, widths)).rstrip())
    return "\n".join(lines)
