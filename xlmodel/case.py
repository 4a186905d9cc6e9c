"""Cases: one company, one evaluation year, the years of history (DOMAIN.md §3).

Loading checks every value against the canonical field table and reports every
problem at once, naming the field and the fiscal year.

Every reader of a value — case files (YAML, JSON), batch files (CSV, XLSX, a
DataFrame), workbook cells and worksheet-function arguments — goes through
:func:`read_field` (fiscal years through :func:`read_year`), so a value means the
same wherever it is written:

* numbers: int/float, or text in plain decimal notation with optional thousands
  separators (``1,234.56``), full-width digits (``１２３４``) and, for ratios, a
  percent sign (``67%``); scientific notation in text, 万/亿 suffixes, spaces or
  other grouping are refused with a hint, never guessed. Amounts are finite and
  below 1e15 元; distribution amounts (cash dividend, buybacks, stock dividend,
  capital reserve conversion, interim cash and stock dividends) are ≥ 0; ratios 0–1; share
  counts whole and ≥ 0. Kept at 15 significant digits, as a spreadsheet does.
* yes/no: a boolean (an Excel TRUE/FALSE cell), or the text 是/否, yes/no, true/false,
  y/n in any case. The numbers 1 and 0 are NOT yes/no: the workbook's formulas
  compare with TRUE, and a 1 typed into a yes/no cell reads as no there.
* fiscal years: whole numbers 1990–2100, as a number (2021.0 from a spreadsheet is
  2021; 2021.5 is refused) or as text ("2021", "2021.0").
* stock codes: six ASCII digits (full-width digits normalised), also as vendors write them —
  ``600519.SH``/``.SS``/``.XSHG``, ``000001.SZ``, ``SZ000001``, ``sh600519``, ``430047.BJ`` — and read
  as the six digits; an exchange suffix that contradicts the code is refused. A code whose leading
  zeros were lost (the number 2015, or the text ``2015`` from a spreadsheet) reads as ``002015``
  when it is a Shenzhen code then (``000``–``003``), stated in a note (:func:`stock_code_note`);
  anything else (``=1+1``, 1.5, ``12345``) is refused. The board follows from the code
  (:func:`board_of_code`) where the input does not say it; a stated board that contradicts the
  code is refused (:func:`board_problem`).
* fiscal years: also a year-end date (``2023-12-31``, a date cell of 31 December) and
  ``2023年``, ``2023年度``, ``2023年报``/``2023年年报``, as data terminals write the period.
* text: control characters (and bidirectional overrides) refused; company names at
  most :data:`MAX_TEXT` characters, notes :data:`MAX_NOTE`, never cut short; a
  leading ``=``, ``+``, ``-`` or ``@`` is data, kept as plain text (the workbook
  writer escapes it).
* dates: date/datetime values, or text ``YYYY-MM-DD`` (also ``YYYY/M/D``,
  ``YYYY.M.D``, ``YYYY年M月D日``); from spreadsheets also date serials.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


from .inputs.distributions import KEY as DISTRIBUTIONS
from .inputs.distributions import read_distributions
from .rules.consistency import CONFIRM_FIELD, INTERIM_PARTS, case_findings, interim_message
from .errors import CaseError, Problem
from .fields import BOARDS, COMPANY_FIELDS, FIELDS, FORECAST, YEAR_FIELDS, Field, Kind
from .plans.loading import POLICY_ID
from .inputs.untrusted import (MAX_CASE_BYTES, InputFileError, SafeLoader, decode_utf8, did_you_mean, load_json,
                               load_yaml, read_regular, shown)
from .values import board_of_code, board_problem, is_blank, read_field, read_note, read_year, stock_code_note

_Loader = SafeLoader  # the case loader (kept for callers of the old name)

#: below this (in 元), non-zero headline amounts of a listed company look like 万元 or 亿元
UNIT_WARNING_BELOW = 1e5
UNIT_FIELDS = ("net_profit_attributable", "total_assets", "net_assets", "revenue")


@dataclass
class Case:
    policy: str
    evaluation_year: int
    company: dict[str, Any] = field(default_factory=dict)
    years: dict[int, dict[str, Any]] = field(default_factory=dict)  # fiscal year -> field -> value
    attestations: dict[str, bool] = field(default_factory=dict)  # rule id -> confirmed (evaluation year)
    source: str = "<case>"
    notes: dict[str, str] = field(default_factory=dict)  # field id -> source / assumption note
    #: things worth a second look that are not errors (amounts that look like 万元); computed from the years
    warnings: list[str] = field(default=None, compare=False, repr=False)  # type: ignore[assignment]
    #: the years whose figures are forecasts (``forecast: true``), each after the evaluation year
    forecast_years: frozenset[int] = frozenset()

    def __post_init__(self):
        if self.warnings is None:
            self.warnings = unit_warnings(self.years)

    def value(self, fid: str, year: int):
        return self.years.get(year, {}).get(fid)

    def to_dict(self) -> dict:
        def enc(v):
            return v.isoformat() if isinstance(v, dt.date) else v
        out: dict[str, Any] = {"policy": self.policy, "evaluation_year": self.evaluation_year}
        if self.company:
            out["company"] = {k: enc(v) for k, v in self.company.items()}
        out["years"] = [{"fiscal_year": y, **({"forecast": True} if y in self.forecast_years else {}),
                         **{k: enc(v) for k, v in self.years[y].items()}} for y in sorted(self.years)]
        if self.attestations:
            out["attestations"] = dict(self.attestations)
        if self.notes:
            out["notes"] = dict(self.notes)
        return out


# ---- one reading of every field -------------------------------------------------------------------


# ---- stock codes and boards -------------------------------------------------------------------------


part_message = interim_message  # (kept for callers of the old name)


def part_problems(vals: dict[str, Any], confirmed: bool = False) -> list[tuple[str, str]]:
    """(field, message) for each value of one year that its other values contradict, or that no listed
    company's 元 figure could be (:mod:`xlmodel.rules.consistency`; ``confirmed``: the case's amounts_confirmed)."""
    return case_findings(vals, confirmed)


def unit_warnings(years: dict[int, dict[str, Any]]) -> list[str]:
    """A warning when a year's headline amounts all look like 万元 or 亿元 rather than 元."""
    flagged = []
    for fy in sorted(years):
        vals = {k: years[fy][k] for k in UNIT_FIELDS if isinstance(years[fy].get(k), (int, float)) and years[fy][k]}
        if vals and all(abs(v) < UNIT_WARNING_BELOW for v in vals.values()):
            flagged.append(f"{fy}: " + ", ".join(f"{k} {v:,.2f}" for k, v in vals.items()))
    if not flagged:
        return []
    return [f"amounts look like 万元 or 亿元, not 元 ({'; '.join(flagged)}): every amount is read in 元 "
            "(1.2亿 is 120000000)"]


# ---- cases ------------------------------------------------------------------------------------------

TOP_KEYS = ("policy", "evaluation_year", "company", "years", "attestations", "notes")


def parse_case(data: Any, source: str = "<case>", origin: str = "data", *, plan_optional: bool = False) -> Case:
    """Case data (a mapping, as a YAML/JSON file holds it) -> a :class:`Case`; every problem at once, in
    the order of the steps: the top-level keys, the plan, the evaluation year, the company, the years,
    the attestations, the notes. With ``plan_optional`` a case without ``policy:`` is read with the plan ""
    (screened on the regulatory baseline alone, as ``xlmodel announce`` does)."""
    probs: list[Problem] = []
    if not isinstance(data, dict):
        raise CaseError(source, [Problem("(file)", "expected a mapping with policy, evaluation_year, years")])
    for key in data:
        if key not in TOP_KEYS:
            probs.append(Problem(str(key), "unknown top-level key" + did_you_mean(key, TOP_KEYS)))
    pol = "" if plan_optional and data.get("policy") is None else _read_policy_id(data.get("policy"), probs)
    ey = _read_evaluation_year(data.get("evaluation_year"), origin, probs)
    company, said = _read_company(data.get("company") or {}, origin, probs)
    years, forecasts = _read_years(data.get("years"), origin, ey, bool(company.get(CONFIRM_FIELD)), probs)
    att = _read_attestations(data.get("attestations") or {}, origin, probs)
    notes = _read_notes(data.get("notes") or {}, origin, probs)
    if probs:
        raise CaseError(source, probs)
    return Case(pol, ey, company, years, att, source, notes, warnings=said.notes + unit_warnings(years),
                forecast_years=frozenset(forecasts))


def _read_policy_id(pol: Any, probs: list[Problem]):
    """The case's plan id, stripped (as given, with a problem, when it is not one)."""
    if pol is None or (isinstance(pol, str) and not pol.strip()):
        probs.append(Problem("policy", "required: a policy id (see `xlmodel policies`)"))
    elif not isinstance(pol, str) or not POLICY_ID.fullmatch(pol.strip()):
        probs.append(Problem("policy", "expected a policy id such as gcl-energy-2022-2024 (lowercase letters, digits "
                                       f"and hyphens; see `xlmodel policies`; a plan is named by its id, never by a "
                                       f"path), got {shown(pol)}"))
    else:
        pol = pol.strip()
    return pol


def _read_evaluation_year(ey: Any, origin: str, probs: list[Problem]):
    if ey is None:
        probs.append(Problem("evaluation_year", "required: a fiscal year such as 2024, got None"))
        return None
    ey, err = read_year(ey, origin)
    if err:
        probs.append(Problem("evaluation_year", err))
    return ey


def _read_company(comp: Any, origin: str, probs: list[Problem]) -> tuple[dict[str, Any], Said]:
    """The company's fields, and what its code and board say (:func:`company_board`)."""
    company: dict[str, Any] = {}
    if not isinstance(comp, dict):
        probs.append(Problem("company", "expected a mapping"))
        comp = {}
    company_ids = [f.id for f in COMPANY_FIELDS]
    for k, v in comp.items():
        if k not in company_ids:
            if is_blank(v, origin):
                continue
            hint = " (it is a per-year field)" if k in FIELDS else did_you_mean(k, company_ids)
            probs.append(Problem(f"company.{k}", "unknown company field" + hint))
            continue
        val, err = read_field(FIELDS[k], v, origin)
        if err:
            probs.append(Problem(f"company.{k}", err))
        elif val is not None:
            company[k] = val
    said = company_board(company, comp.get("stock_code"))
    probs += [Problem("company.board", m) for m in said.problems]
    return company, said


def _read_years(rows: Any, origin: str, ey: Any, confirmed: bool,
                probs: list[Problem]) -> tuple[dict[int, dict[str, Any]], set[int]]:
    """The fiscal years' figures (a year given twice: its first entry) and the years marked forecasts."""
    years: dict[int, dict[str, Any]] = {}
    forecasts: set[int] = set()
    if not isinstance(rows, list) or not rows:
        probs.append(Problem("years", "required: a list of fiscal years, each with fiscal_year and its figures"))
        rows = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            probs.append(Problem(f"years[{i}]", "expected a mapping of field: value"))
            continue
        raw_fy = row.get("fiscal_year")
        if raw_fy is None:
            probs.append(Problem(f"years[{i}].fiscal_year", "required: a fiscal year, got None"))
            continue
        fy, err = read_year(raw_fy, origin)
        if err:
            probs.append(Problem(f"years[{i}].fiscal_year", err))
            continue
        duplicate = fy in years
        if duplicate:
            probs.append(Problem(f"years[{i}].fiscal_year", f"{fy} appears more than once"))
        vals, forecast = _read_year_row(i, fy, row, origin, ey, probs)
        if forecast and not duplicate:
            forecasts.add(fy)
        probs += [Problem(f"years[{i}].{k} ({fy})", msg) for k, msg in part_problems(vals, confirmed)]
        if not duplicate:
            years[fy] = vals
    if ey is not None and rows and ey not in years:
        probs.append(Problem("years", f"no entry for the evaluation year {ey}"))
    return years, forecasts


def _read_year_row(i: int, fy: int, row: dict, origin: str, ey: Any, probs: list[Problem]) -> tuple[dict[str, Any], bool]:
    """One year's figures (blanks left out) and whether it is marked a forecast."""
    vals: dict[str, Any] = {}
    forecast = False
    for k, v in row.items():
        if k in ("fiscal_year", DISTRIBUTIONS):
            continue
        where = f"years[{i}].{k} ({fy})"
        if k == FORECAST.id:
            if _read_forecast(v, origin, fy, ey, where, probs):
                forecast = True
            continue
        if k not in FIELDS or not FIELDS[k].per_year:
            hint = (" (a company field: put it under company)" if k in [f.id for f in COMPANY_FIELDS]
                    else did_you_mean(k, [f.id for f in YEAR_FIELDS]))
            probs.append(Problem(where, "unknown field" + hint))
            continue
        val, err = read_field(FIELDS[k], v, origin)
        if err:
            probs.append(Problem(where, f"{err}"))
        elif val is not None:  # blank: the rule that needs it reports missing_input
            vals[k] = val
    if DISTRIBUTIONS in row:  # the year's distributions as a list: onto the same fields, read the same way
        got, found = read_distributions(row[DISTRIBUTIONS], fy, row, f"years[{i}].{DISTRIBUTIONS}",
                                        lambda f, raw: read_field(f, raw, origin))
        probs += [Problem(f"{w} ({fy})", msg) for w, msg in found]
        vals.update(got)
    return vals, forecast


def _read_attestations(raw_att: Any, origin: str, probs: list[Problem]) -> dict[str, bool]:
    att: dict[str, bool] = {}
    if not isinstance(raw_att, dict):
        probs.append(Problem("attestations", "expected a mapping of rule id: yes/no"))
        raw_att = {}
    for k, v in raw_att.items():
        if not isinstance(k, str) or not re.fullmatch(r"[a-z][a-z0-9_]{0,59}", k):
            probs.append(Problem(f"attestations.{k}", "expected a rule id (lowercase letters, digits and _)"))
            continue
        val, err = read_field(Field(k, k, k, Kind.BOOL), v, origin)
        if err:
            probs.append(Problem(f"attestations.{k}", err))
        elif val is not None:  # blank: the attestation rule reports missing_input
            att[k] = val
    return att


def _read_notes(raw_notes: Any, origin: str, probs: list[Problem]) -> dict[str, str]:
    notes: dict[str, str] = {}
    if not isinstance(raw_notes, dict):
        probs.append(Problem("notes", "expected a mapping of field id: note"))
        raw_notes = {}
    for k, v in raw_notes.items():
        # a field id or an attestation (rule) id; which rule ids the policy has is checked when evaluating
        if not isinstance(k, str) or not re.fullmatch(r"[a-z][a-z0-9_]{0,59}", k):
            probs.append(Problem(f"notes.{k}", "expected a field id or an attestation id"))
            continue
        val, err = read_note(v, origin)
        if err:
            probs.append(Problem(f"notes.{k}", err))
        elif val is not None:
            notes[k] = val
    return notes


def _read_forecast(v: Any, origin: str, fy: int, ey: Any, where: str, probs: list[Problem]) -> bool:
    """A year's ``forecast`` mark (:data:`xlmodel.fields.FORECAST`, read as every yes/no field): True for a
    forecast year; a problem where it is unreadable or marks a year not after the evaluation year."""
    val, err = read_field(FORECAST, v, origin)
    if err:
        probs.append(Problem(where, err))
        return False
    if val and isinstance(ey, int) and fy <= ey:
        probs.append(Problem(where, f"预测年度须在评估年度 {ey} 之后：{fy} 年的数字是已披露数，不能标为预测 a forecast year "
                                    f"must come after the evaluation year {ey}: the figures of {fy} are reported ones"))
        return False
    return bool(val)


@dataclass
class Said:
    """What reading a company's code and board found: notes to show, problems to refuse."""

    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def company_board(company: dict[str, Any], raw_code: Any = None) -> Said:
    """The board from the stock code where ``company`` has none (set in ``company``, with a note); a
    stated board that contradicts the code as a problem; the code read with its zeros restored as a note."""
    out = Said()
    code = company.get("stock_code")
    if code is None:
        return out
    if (note := stock_code_note(raw_code, code)) is not None:
        out.notes.append(note)
    if "board" in company:
        if (why := board_problem(code, company["board"])) is not None:
            out.problems.append(why)
    elif (implied := board_of_code(code)) is not None:
        company["board"] = implied
        out.notes.append(f"上市板块由证券代码 {code} 推定为{BOARDS[implied]} the board follows from the stock code: {implied}")
    return out


def check_attestations(case: Case, known: list[str]) -> None:
    """The case's attestations and notes against the policy's attestation ids; every problem at once."""
    known = list(known)
    probs = [Problem(f"attestations.{k}", f"not an attestation of policy {case.policy}{did_you_mean(k, known)} "
                                          f"(known: {', '.join(known)})")
             for k in case.attestations if k not in known]
    for k in case.notes:
        if k not in FIELDS and k not in known:
            probs.append(Problem(f"notes.{k}", f"not a field id nor an attestation of policy {case.policy}"
                                               + did_you_mean(k, list(FIELDS) + known)))
    if probs:
        raise CaseError(case.source, probs)


def load_case(path: str | Path, *, plan_optional: bool = False) -> Case:
    """A case file: YAML (``.yaml``/``.yml``/other) or JSON (``.json``), read within the limits of
    :mod:`xlmodel.inputs.untrusted` (``plan_optional``: see :func:`parse_case`)."""
    path = Path(path)
    source = str(path)
    try:
        text = decode_utf8(read_regular(path, MAX_CASE_BYTES, "case file"), source)
        if path.suffix.lower() == ".json":
            return parse_case(load_json(text, source), source, "json", plan_optional=plan_optional)
        data = load_yaml(text, source)
    except InputFileError as e:
        raise CaseError(source, [Problem(e.where or "(file)", e.message)]) from None
    return parse_case(data, source, "yaml", plan_optional=plan_optional)


def inputs_digest(case: Case) -> str:
    """The SHA-256 of a case's inputs (its policy id, evaluation year, company, every year's figures, forecast
    marks and attestations, as :meth:`~xlmodel.case.Case.to_dict` gives them; not its notes), as canonical JSON: the
    first 16 hex digits, which the cover prints."""
    import hashlib
    import json

    data = case.to_dict()
    data.pop("notes", None)
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
