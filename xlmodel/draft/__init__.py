"""``xlmodel draft``: a policy file drafted from a plan's published text (issue 12, part 3).

The text is split into its numbered clauses (:mod:`xlmodel.plans.clauses`), each clause is
read by recognisers for the wording plans share (:mod:`.conditions`, :mod:`.minimums`,
:mod:`.stage`, :mod:`.procedure`), and what is left is boilerplate, neutral text or a
review item (:mod:`.lexicon`). The result is a complete policy file: every clause listed
with a treatment, every rule with its quote and clause, every doubt marked
``待复核 REVIEW`` in the clause's note, in a comment and in :attr:`Drafted.reviews`.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from ..errors import XlmodelError
from . import conditions, ledger, lexicon, minimums, procedure, stage
from .assemble import clause_entries, finish, review_items, suggestions
from .emit import check_round_trip, render
from .model import REVIEW, Draft, Rule
from .numbers import cn_int, fold
from .text import load_clauses

__all__ = ["Drafted", "draft_text", "NO_TITLE", "REVIEW"]

VERSION = "0.1.0"


@dataclass
class Drafted:
    policy: dict  # the policy file's data, in file order
    yaml: str  # the file's text (data + comments)
    reviews: list[tuple[str, str]]  # (clause or field, reason): every review item, as listed
    draft: Draft = field(repr=False)
    #: (where, reason, rule): the review items that suggest a rule, the rule with its id (``todo_1`` …)
    suggestions: list[tuple[str, str, dict]] = field(default_factory=list)
    #: every sentence that carries a term, with its one end: ruled, informational or review (:mod:`.ledger`)
    sentences: list = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """No rule was recognised: the policy holds only a placeholder attestation (the command refuses it)."""
        return bool(self.draft.facts.get("placeholder"))

    @property
    def rule_count(self) -> int:
        return len(self.policy["rules"])

    @property
    def review_clauses(self) -> list[str]:
        return list(dict.fromkeys(w for w, _ in self.reviews if w in self.draft.clauses))

    def summary(self) -> str:
        """One line, Chinese then English, whose counts are those of the items listed after it."""
        n, m, k = self.rule_count, len(self.review_clauses), len(self.reviews)
        top = len([w for w, _ in self.reviews if w not in self.draft.clauses])
        s = len(self.suggestions)
        clauses = len(self.policy["clauses"])
        zh = (f"识别 {n} 条规则，{k} 项待复核（{m} 个条款" + (f"，另 {top} 项" if top else "") + "）"
              + (f"，其中 {s} 项附建议写法" if s else "") + f"；列出 {clauses} 个条款")
        en = (f"recognised {n} rule{'s' if n != 1 else ''}, {m} clause{'s need' if m != 1 else ' needs'} review"
              + (f" ({k} item{'s' if k != 1 else ''}" + (f", {top} of them not a clause's" if top else "")
                 + (f", {s} with a suggested rule" if s else "") + ")" if k else "")
              + f" — {clauses} clauses listed")
        return f"{zh} — {en}"


def draft_text(text: str, *, source: str = "plan.txt", policy_id: str | None = None, company_name: str | None = None,
               stock_code: str | None = None, board: str | None = None, years: tuple[int, int] | None = None,
               text_ref=None, notes: list[str] = ()) -> Drafted:
    """Draft a policy from a plan's text. ``text_ref`` is the policy's ``text:`` (relative to the output's
    folder), or a function of the policy id giving it, or None (no ``text:``: quotes are not checked);
    ``notes`` go into the file's header (how the text was read). A text in which nothing is recognised
    gives a placeholder attestation (:attr:`Drafted.empty`): ``xlmodel draft`` refuses to write it."""
    d = Draft(source, load_clauses(text, source))
    years = _plan_years(d, text, years)  # before the recognisers: a ratio promised for named years reads them
    _repeated_numbers(d, text)
    conditions.find_condition_lists(d)
    conditions.find_definitions(d)
    stage.find_stage_policy(d)
    minimums.find_minimums(d)
    procedure.find_procedures(d)
    lexicon.settle(d)
    finish(d)
    sentences = ledger.account(d)  # after every reader: what none reached becomes a review item
    if not d.rules:
        _placeholder(d)
    head = _head(d, text, policy_id, company_name, stock_code, board, years, text_ref)
    policy = {**head, "settings": _settings(d)}
    if d.major_outlay is not None:
        policy["major_outlay"] = d.major_outlay
    policy["rules"] = [_rule_data(r) for r in d.rules]
    suggested = suggestions(d, {r["id"] for r in policy["rules"]})  # names each in its review item
    policy["clauses"] = clause_entries(d)
    reviews = review_items(d)
    loose = [f"{REVIEW} {where}: {reason}" for where, reason in reviews if where not in d.clauses]
    if loose:  # review items of no clause: in the data too, so that the plan stays an unreviewed draft
        policy["review"] = loose
    yaml_text = render(policy, _header(d, source, reviews, notes, suggested, sentences), _rule_comments(d),
                       _clause_comments(d), suggested)
    _check_size(d, yaml_text, policy)
    return Drafted(policy, yaml_text, reviews, d, suggested, sentences)


def _check_size(d: Draft, yaml_text: str, policy: dict) -> None:
    """The file reads back as the data it was made from, within the limits a policy file is read with."""
    from ..inputs.untrusted import MAX_POLICY_BYTES, InputFileError

    why = None
    if len(yaml_text.encode("utf-8")) > MAX_POLICY_BYTES:
        why = f"{len(yaml_text.encode('utf-8')) // 1024} KB"
    else:
        try:
            check_round_trip(yaml_text, policy)
        except InputFileError as e:
            why = e.message
    if why:
        raise XlmodelError(f"{d.source}: 起草的规划将超过规划文件的大小上限 the drafted policy would be larger than a policy file may be ({why}; "
                           f"{len(d.clauses)} clauses, {len(d.rules)} rules): a plan text has a few dozen clauses")


def _repeated_numbers(d: Draft, text: str) -> None:
    """A clause number used twice (two ``一、``): the clause splitter keeps the last one only; say so."""
    from ..plans import clauses as plan_clauses

    headings = sum(1 for line in text.splitlines() for _, pat in plan_clauses._PATTERNS if pat.match(line.strip()))
    if headings > len(d.clauses) - 1:
        d.review("clauses", f"条款编号重复：{headings - len(d.clauses) + 1} 个条款与前面的编号相同，只保留了后者 clause numbers "
                            "repeat: the earlier clauses of the same number are not in the draft (nor in the loader's reading)")


def _placeholder(d: Draft) -> None:
    """A text nothing was recognised in still gives a loadable file: one attestation, marked for review."""
    for cid, c in d.clauses.items():
        own = c.text[c.body:]
        if len(own) >= 4:
            q = c.quote(c.body, min(len(c.text), c.body + 40))
            d.rules.append(Rule("attest:plan_terms_confirmed", "attestation", cid, q, duties=["plan_terms_confirmed"],
                                id="plan_terms_confirmed", titles=("规划条款已人工核对（未识别任何规则）",
                                                                   "Plan terms checked by hand (no rule recognised)")))
            d.review(cid, "未识别任何规则：此占位确认须替换为规划的规则 no rule recognised: replace this placeholder")
            d.facts["placeholder"] = True
            return
    raise XlmodelError(f"{d.source}: 没有可供起草的条款文字 no clause with text to draft from (is this a plan's text?)")


# ---- the head of the file ---------------------------------------------------------------------

_YEARS = re.compile(r"((?:19|20)\d\d)\s*年?\s*度?\s*[-－—–~～至到]\s*((?:19|20)\d\d)")
_DATE = re.compile(r"((?:19|20)\d\d|[二〇○零一二三四五六七八九]{4})\s*年\s*([\d一二三四五六七八九十]{1,3})\s*月\s*"
                   r"([\d一二三四五六七八九十]{1,3})\s*日")
_COMPANY = re.compile(r"^(.{2,40}?(?:股份有限公司|有限责任公司|有限公司))")


#: the title of a text that has none (its first line is a clause, a sentence or an article): never a body line
NO_TITLE = "股东分红回报规划（草稿：原文无标题）"


def _title(d: Draft, text: str) -> str:
    lines = []
    for raw in text.splitlines():
        line = re.sub(r"\s+", "", raw)
        if not line:
            continue
        if not lines and _body_line(line):
            return NO_TITLE
        if lines and (line.startswith(("为", "根据", "公司")) or "，" in line or "," in line or _body_line(line)):
            break  # (a clause's heading below the title, （一）利润分配政策, is no part of it)
        lines.append(line)
        if len("".join(lines)) > 60 or "规划" in line:
            break
    title = "".join(lines)[:100]
    if not title:
        return NO_TITLE
    return title if "规划" in title or "计划" in title else (title + "股东分红回报规划（草稿）")[:100]


def _body_line(line: str) -> bool:
    """A first line that is no title: a numbered clause or article, or a sentence (its punctuation says so)."""
    from ..plans import clauses as plan_clauses

    return any(pat.match(line) for _, pat in plan_clauses._PATTERNS) or bool(re.search(r"[。，,；;！？]", line))


def _plan_years(d: Draft, text: str, years: tuple[int, int] | None) -> tuple[int, int]:
    """The plan's years: as given, else as the title (or the text's opening) states them, else from this year
    (a review item). ``d.facts['plan_years']`` holds them when they were given or found."""
    found = _YEARS.search(fold(_title(d, text)).text) or _YEARS.search(fold(text[:4000]).text)
    if years is None and found and 0 <= int(found.group(2)) - int(found.group(1)) <= 10:
        years = (int(found.group(1)), int(found.group(2)))
    if years is None:
        years = (dt.date.today().year, dt.date.today().year + 2)
        d.review("plan_years", f"规划期间未能读出：按 {years[0]}–{years[1]} 起草（--years） the plan years were not found")
    else:
        d.facts["plan_years"] = years
    return years


def _head(d, text, policy_id, company_name, stock_code, board, years, text_ref) -> dict:
    title = _title(d, text)
    m = _COMPANY.match(title)
    if company_name is None and m and _one_line(m.group(1)):
        company_name = m.group(1)  # (a name a case file would refuse is not taken from the text: --company gives it)
    pid = policy_id or f"draft-{years[0]}-{years[1]}"
    head: dict = {"id": pid, "version": VERSION, "title_zh": title,
                  "title_en": f"Shareholder return plan {years[0]}–{years[1]} (drafted from the published text)"}
    if company_name and stock_code and board:
        head["company"] = {"company_name": company_name, "stock_code": stock_code, "board": board}
        d.facts["company_written"] = True
    else:
        d.facts["company_name"] = company_name
    head["plan_years"] = [years[0], years[1]]
    adopted = _adopted(text)
    if adopted:
        head["adopted"] = adopted
    head["text"] = text_ref(pid) if callable(text_ref) else text_ref
    if head["text"] is None:
        del head["text"]
    return head


def _one_line(name: str) -> bool:
    """A company name as a case file reads one: a line of text, no control characters."""
    from ..values import read_field
    from ..fields import FIELDS

    value, why = read_field(FIELDS["company_name"], name)
    return bool(value) and why is None


def _adopted(text: str) -> dt.date | None:
    tail = text[-400:]
    found = None
    for m in _DATE.finditer(tail):
        found = m
    if not found:
        return None
    y, mo, day = (cn_int(g) for g in found.groups())
    try:
        return dt.date(y, mo, day) if y and mo and day else None
    except ValueError:
        return None


def _settings(d: Draft) -> dict:
    s = {"cash_includes_buybacks": True, "retained_earnings_basis": "lower"}
    s.update({k: v for k, v in d.settings.items() if k in s or k == "cash_buyback_basis"})
    return s


def _rule_data(r: Rule) -> dict:
    out: dict = {"id": r.id, "kind": r.kind}
    out.update({k: v for k, v in r.params.items() if v is not None})
    if r.role:
        out["role"] = r.role
    if r.severity != "fail":
        out["severity"] = r.severity
    if r.when != ["always"]:
        out["when"] = r.when if len(r.when) > 1 else r.when[0]
    out.update(clause=r.clause, quote=r.quote, title_zh=r.titles[0], title_en=r.titles[1])
    notes = ([f"{REVIEW}: {r.review}"] if r.review else []) + ([r.note] if r.note else [])
    if notes:
        out["note"] = " ".join(notes)
    return out


# ---- comments ------------------------------------------------------------------------------------

def _header(d: Draft, source: str, reviews, notes=(), suggested=(), sentences=()) -> list[str]:
    n, k = len(d.rules), len(reviews)
    m = len({w for w, _ in reviews if w in d.clauses})
    lines = [f"草稿 DRAFT — drafted by `xlmodel draft` from {source}; check every rule against the text before use.",
             *notes,
             f"识别 {n} 条规则，{k} 项待复核（{m} 个条款）。Recognised {n} rules; {k} item{'s' if k != 1 else ''} need review, "
             f"in {m} clause{'s' if m != 1 else ''} (待复核 REVIEW below and in the clauses' notes).",
             _sentence_line(sentences),
             "Every clause of the text is listed under `clauses`; every rule quotes the clause it implements."]
    if not d.facts.get("company_written"):
        lines.append("company: not written (give --company, --stock-code and --board); the text names "
                     + (d.facts.get("company_name") or "no company") + ".")
    for where, reason in reviews:
        lines.append(f"  {REVIEW} {where}: {reason}")
    if suggested:
        lines.append(f"{len(suggested)} 项附建议写法：见 rules 末尾的注释 — {len(suggested)} suggested rule"
                     f"{'s' if len(suggested) != 1 else ''} at the end of rules: uncomment, edit, `xlmodel policies check`.")
    for note in d.setting_notes:
        lines.append(f"  setting {note}")
    return lines


def _sentence_line(sentences) -> str:
    """The header's count of the sentences that carry a term, by their end (:mod:`.ledger`): they add up."""
    c = ledger.counts(sentences)
    total = len(sentences)
    return (f"句子 sentences: {total} 句含数值、条件、义务或报表措辞 — 规则 ruled {c['ruled']} / 说明 informational "
            f"{c['informational']} / 待复核 review {c['review']} ({total} sentences carry a term; each ends as one)")


def _rule_comments(d: Draft) -> dict[str, str]:
    return {r.id: f"{REVIEW}: {r.review}" for r in d.rules if r.review}


def _clause_comments(d: Draft) -> dict[str, list[str]]:
    return {cid: [f"{REVIEW}: {x}" for x in reasons] for cid, reasons in d.reviews.items() if cid in d.clauses}
