"""Cases: one company, one evaluation year, the years of history (DOMAIN.md §3).

Loading checks every value against the canonical field table and reports every
problem at once, naming the field and the fiscal year.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import CaseError, Problem
from .fields import BOOL_LABELS, COMPANY_FIELDS, ENUMS, FIELDS, YEAR_FIELDS, Field, Kind

class _Loader(yaml.SafeLoader):
    """YAML without implicit dates: a date stays text and is checked (and named) like any field."""


_Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # not allowed in spreadsheet text
MAX_AMOUNT = 1e15  # 元; beyond this 15-digit spreadsheet arithmetic loses the fen
_YES = {True, "是", "yes", "true", "TRUE", "True", "Y", "y"}
_NO = {False, "否", "no", "false", "FALSE", "False", "N", "n"}


@dataclass
class Case:
    policy: str
    evaluation_year: int
    company: dict[str, Any] = field(default_factory=dict)
    years: dict[int, dict[str, Any]] = field(default_factory=dict)  # fiscal year -> field -> value
    attestations: dict[str, bool] = field(default_factory=dict)  # rule id -> confirmed (evaluation year)
    source: str = "<case>"
    notes: dict[str, str] = field(default_factory=dict)  # field id -> source / assumption note

    def value(self, fid: str, year: int):
        return self.years.get(year, {}).get(fid)

    def to_dict(self) -> dict:
        def enc(v):
            return v.isoformat() if isinstance(v, dt.date) else v
        out: dict[str, Any] = {"policy": self.policy, "evaluation_year": self.evaluation_year}
        if self.company:
            out["company"] = {k: enc(v) for k, v in self.company.items()}
        out["years"] = [{"fiscal_year": y, **{k: enc(v) for k, v in self.years[y].items()}} for y in sorted(self.years)]
        if self.attestations:
            out["attestations"] = dict(self.attestations)
        if self.notes:
            out["notes"] = dict(self.notes)
        return out


def coerce(f: Field, v: Any) -> tuple[Any, str | None]:
    """(value, None) or (None, what was expected). Shared by every reader."""
    k = f.kind
    if k in (Kind.AMOUNT, Kind.RATIO, Kind.COUNT):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            what = {Kind.AMOUNT: "an amount in 元 (a number)", Kind.RATIO: "a ratio between 0 and 1",
                    Kind.COUNT: "a whole number of shares"}[k]
            return None, f"expected {what}, got {v!r}"
        x = float(v)
        if not math.isfinite(x) or abs(x) >= MAX_AMOUNT:
            return None, f"expected a finite amount below 1e15, got {v!r}"
        if k == Kind.RATIO and not 0 <= x <= 1:
            return None, f"expected a ratio between 0 and 1 (e.g. 0.67 for 67%), got {v!r}"
        if k == Kind.COUNT and (x < 0 or x != int(x)):
            return None, f"expected a whole, non-negative number of shares, got {v!r}"
        # a spreadsheet keeps 15 significant digits: 0.1 + 0.2 is 0.3 there, and so here
        return float(f"{x:.15g}"), None
    if k == Kind.BOOL:
        if isinstance(v, str):
            v = v.strip()
        if v in _YES and not (isinstance(v, (int, float)) and not isinstance(v, bool)):
            return True, None
        if v in _NO and not (isinstance(v, (int, float)) and not isinstance(v, bool)):
            return False, None
        return None, f"expected yes/no (true/false, 是/否), got {v!r}"
    if k == Kind.ENUM:
        choices = ENUMS[f.id]
        s = v.strip() if isinstance(v, str) else v
        if s in choices:
            return s, None
        for code, zh in choices.items():
            if s == zh:
                return code, None
        opts = ", ".join(f"{c} ({z})" for c, z in choices.items())
        return None, f"expected one of {opts}; got {v!r}"
    if k == Kind.DATE:
        if isinstance(v, dt.datetime):
            return v.date(), None
        if isinstance(v, dt.date):
            return v, None
        if isinstance(v, str):
            try:
                return dt.date.fromisoformat(v.strip()), None
            except ValueError:
                pass
        return None, f"expected a date (YYYY-MM-DD), got {v!r}"
    if isinstance(v, str) and v.strip():
        if _CONTROL.search(v):
            return None, f"text contains a control character: {v!r}"
        return v.strip(), None
    return None, f"expected text, got {v!r}"


_AMOUNT_TEXT = re.compile(r"^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")
MAX_SERIAL = 2958465  # 9999-12-31


def from_cell(kind: Kind, v: Any) -> Any:
    """What a spreadsheet cell holds -> a value :func:`coerce` understands.

    Text is stripped; numbers stored as text with thousands separators and
    percentages are read (``"1,234,567.89"``, ``"67%"``); date cells and date
    serials become dates. Anything ambiguous (``"1.234,56"``, ``"1.2亿"``) is
    left as it is, so that :func:`coerce` reports it: never a guess."""
    if isinstance(v, str):
        v = v.strip()
        if kind == Kind.RATIO and v.endswith("%") and _AMOUNT_TEXT.match(v[:-1].strip()):
            return float(v[:-1].replace(",", "")) / 100
        if kind in (Kind.AMOUNT, Kind.COUNT, Kind.RATIO) and _AMOUNT_TEXT.match(v):
            return float(v.replace(",", ""))
    if kind == Kind.DATE:
        if isinstance(v, dt.datetime):
            return v.date()
        if isinstance(v, (int, float)) and not isinstance(v, bool) and 1 <= v <= MAX_SERIAL:
            from .expr import from_serial

            return from_serial(float(v))
    return v


def parse_case(data: Any, source: str = "<case>") -> Case:
    probs: list[Problem] = []
    if not isinstance(data, dict):
        raise CaseError(source, [Problem("(file)", "expected a mapping with policy, evaluation_year, years")])
    for key in data:
        if key not in ("policy", "evaluation_year", "company", "years", "attestations", "notes"):
            probs.append(Problem(key, "unknown top-level key"))
    pol = data.get("policy")
    if not isinstance(pol, str) or not pol:
        probs.append(Problem("policy", "required: a policy id (see `xlmodel policies`)"))
    ey = data.get("evaluation_year")
    if isinstance(ey, bool) or not isinstance(ey, int) or not 1990 <= ey <= 2100:
        probs.append(Problem("evaluation_year", f"required: a fiscal year such as 2024, got {ey!r}"))
        ey = None
    company: dict[str, Any] = {}
    comp = data.get("company") or {}
    if not isinstance(comp, dict):
        probs.append(Problem("company", "expected a mapping"))
        comp = {}
    company_ids = {f.id for f in COMPANY_FIELDS}
    for k, v in comp.items():
        if v is None or (isinstance(v, str) and not v.strip()):
            continue  # blank: absent
        if k not in company_ids:
            probs.append(Problem(f"company.{k}", "unknown company field" + (" (it is a per-year field)" if k in FIELDS else "")))
            continue
        if k == "stock_code" and isinstance(v, int):
            probs.append(Problem("company.stock_code", "expected the 6-digit code as quoted text, e.g. \"002015\" "
                                 f"(unquoted, leading zeros are lost), got the number {v!r}"))
            continue
        val, err = coerce(FIELDS[k], v)
        if err:
            probs.append(Problem(f"company.{k}", err))
        else:
            if k == "stock_code" and not re.fullmatch(r"\d{6}", val):
                probs.append(Problem("company.stock_code", f"expected 6 digits, got {v!r}"))
            company[k] = val
    years: dict[int, dict[str, Any]] = {}
    rows = data.get("years")
    if not isinstance(rows, list) or not rows:
        probs.append(Problem("years", "required: a list of fiscal years, each with fiscal_year and its figures"))
        rows = []
    year_ids = {f.id for f in YEAR_FIELDS}
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            probs.append(Problem(f"years[{i}]", "expected a mapping of field: value"))
            continue
        fy = row.get("fiscal_year")
        if isinstance(fy, bool) or not isinstance(fy, int):
            probs.append(Problem(f"years[{i}].fiscal_year", f"required: a fiscal year, got {fy!r}"))
            continue
        duplicate = fy in years
        if duplicate:
            probs.append(Problem(f"years[{i}].fiscal_year", f"{fy} appears more than once"))
        vals: dict[str, Any] = {}
        for k, v in row.items():
            if k == "fiscal_year":
                continue
            where = f"years[{i}].{k} ({fy})"
            if k not in year_ids:
                probs.append(Problem(where, "unknown field" + (" (a company field: put it under company)" if k in company_ids else "")))
                continue
            if v is None or (isinstance(v, str) and not v.strip()):
                continue  # blank: the rule that needs it reports missing_input
            val, err = coerce(FIELDS[k], v)
            if err:
                probs.append(Problem(where, err))
            else:
                vals[k] = val
        if not duplicate:
            years[fy] = vals
    if ey is not None and rows and ey not in years:
        probs.append(Problem("years", f"no entry for the evaluation year {ey}"))
    att: dict[str, bool] = {}
    raw_att = data.get("attestations") or {}
    if not isinstance(raw_att, dict):
        probs.append(Problem("attestations", "expected a mapping of rule id: yes/no"))
        raw_att = {}
    for k, v in raw_att.items():
        if v is None or (isinstance(v, str) and not v.strip()):
            continue  # blank: the attestation rule reports missing_input
        val, err = coerce(Field(k, k, k, Kind.BOOL), v)
        if err:
            probs.append(Problem(f"attestations.{k}", err))
        else:
            att[str(k)] = val
    notes: dict[str, str] = {}
    raw_notes = data.get("notes") or {}
    if not isinstance(raw_notes, dict):
        probs.append(Problem("notes", "expected a mapping of field id: note"))
        raw_notes = {}
    for k, v in raw_notes.items():
        if k not in FIELDS and k not in raw_att:
            probs.append(Problem(f"notes.{k}", "unknown field id"))
        elif _CONTROL.search(str(v)):
            probs.append(Problem(f"notes.{k}", f"text contains a control character: {v!r}"))
        else:
            notes[str(k)] = str(v)
    if probs:
        raise CaseError(source, probs)
    return Case(pol, ey, company, years, att, source, notes)


def check_attestations(case: Case, known: list[str]) -> None:
    unknown = [k for k in case.attestations if k not in known]
    if unknown:
        raise CaseError(case.source, [Problem(f"attestations.{k}", f"not an attestation of policy {case.policy} (known: {', '.join(known)})") for k in unknown])


def load_case(path: str | Path) -> Case:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CaseError(str(path), [Problem("(file)", str(e))]) from None
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else yaml.load(text, Loader=_Loader)  # noqa: S506
    except (yaml.YAMLError, json.JSONDecodeError, ValueError) as e:
        raise CaseError(str(path), [Problem("(file)", "not valid YAML/JSON: " + str(e).splitlines()[0])]) from None
    return parse_case(data, str(path))


def bool_label(v: bool) -> str:
    return BOOL_LABELS[bool(v)]
