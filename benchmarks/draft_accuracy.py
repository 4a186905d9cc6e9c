"""How often `xlmodel draft` drafts a plan text exactly right: the held-out texts of benchmarks/draft_heldout.

    python benchmarks/draft_accuracy.py            # the two shares, and each text's verdict
    python benchmarks/draft_accuracy.py --verbose  # and what differs, text by text
    python benchmarks/draft_accuracy.py --src DIR  # with the xlmodel of another checkout (e.g. before a change)

The texts and their hand-worked readings (expected.yaml) are two sets: h01–h16, written before the drafter
was changed for issue 22 and not used to tune it (the tests have texts of their own), and h17–h24, written
after that work, to see how it carries over to wording it was not written against. A text is

* **right** when its drafted rules — every rule but attestations without an input field — equal the
  expected ones (kind, clause, ``when``, severity, role and parameters; a ``by_year`` ratio compared
  year by year over the plan's years), its major-outlay definition equals the expected one, and every
  clause the reading says must be reviewed is marked for review (nothing read wrongly in silence);
* **right from the draft alone** when it is right and marks no other clause for review (beyond those
  the reading says may be reviewed).

Clauses listed as ``loose`` have their rules left out of the comparison.

    python benchmarks/draft_accuracy.py --corpus   # the real published texts of benchmarks/draft_corpus, per clause
    python benchmarks/draft_accuracy.py --corpus --pdf  # the same, each text printed as a PDF and read back

With ``--corpus`` each clause of each text (every clause the reading or the draft gives a rule, or that must be
reviewed) is one of: **right** (its rules equal the reading's, and it is marked for review where the reading says
it must be), **flagged** (not right, but marked for review: a reader is sent to it), **silently wrong** (a rule
the reading does not have, or a review the reading requires missing, and no mark) or **silently missed** (rules
missing and nothing else, no mark); a text the drafter refuses (an error, exit 2) has its clauses **refused**. A text
is **safe** when none of its clauses is silent.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent / "draft_heldout"
CORPUS = Path(__file__).resolve().parent / "draft_corpus"
CLASSES = ("right", "flagged", "silently wrong", "silently missed", "refused")
SETS = (("h01–h16 (written before the work)", lambda n: n <= 16), ("h17–h24 (written after it)", lambda n: n > 16))
draft_text = None  # imported in main(), from this checkout or --src


def _r(v) -> float | None:
    if v is None:
        return None
    return round(float(Fraction(str(v))), 9)


def _component(c: dict, years: list[int]) -> tuple:
    if c["type"] == "pct":
        if c.get("by_year"):
            by = {int(y): _r(v) for y, v in c["by_year"].items()}
            first = min(by)
            ratios = tuple(by[max([y for y in by if y <= fy] or [first])] for fy in years)
        else:
            ratios = tuple(_r(c["ratio"]) for _ in years)
        return ("pct", c["basis"], ratios)
    return (c["type"], _r(c["amount"]))


def canon(r: dict, years: list[int]) -> tuple:
    """A rule as compared: kind, clause, applicability, severity, role and its parameters (defaults filled)."""
    when = r.get("when", ["always"])
    when = tuple(sorted([when] if isinstance(when, str) else when))
    k = r["kind"]
    p: dict = {}
    if k == "positive":
        p = {"measure": r["measure"]}
    elif k == "compare":
        p = {"measure": r["measure"], "op": r["op"], "ratio": _r(r.get("ratio")), "of": r.get("of"),
             "amount": _r(r.get("amount"))}
    elif k == "audit_opinion":
        p = {"field": r.get("field", "audit_opinion"), "accepted": tuple(sorted(r["accepted"]))}
    elif k in ("judgment", "attestation"):
        p = {"field": r.get("field")}
    elif k == "min_cash":
        comps = tuple(sorted(_component(c, years) for c in r["components"]))
        p = {"components": comps, "measure": r.get("measure", "cash"), "raises": r.get("raises_minimum", True),
             "combine": r.get("combine", "higher_of") if len(comps) > 1 else None}
    elif k == "min_cash_rolling":
        p = {x: r.get(x, d) for x, d in (("window", None), ("mode", "last"), ("basis", "distributable_profit"),
                                          ("basis_mode", "average"), ("combine", None), ("raises_minimum", True))}
        p.update(ratio=_r(r["ratio"]), amount=_r(r.get("amount")))
    elif k == "min_cash_plan_period":
        p = {x: r.get(x, d) for x, d in (("basis", "distributable_profit"), ("basis_mode", "average"),
                                          ("raises_minimum", True))}
        p.update(ratio=_r(r["ratio"]), years=tuple(r.get("years") or ()))
    elif k == "cash_share":
        table = r.get("table")
        p = {"distribution": r.get("distribution", "year"), "share": _r(r.get("share")),
             "table": tuple(sorted((c, _r(v)) for c, v in table.items())) if table else None}
    elif k == "vote":
        p = {"ratio": _r(r["ratio"]), "op": r.get("op", ">="), "resolution": r.get("resolution", "special")}
    elif k == "within_months":
        p = {"months": r["months"]}
    elif k == "min_distributions":
        p = {"count": r["count"]}
    elif k == "distribution_cap":
        p = {"distribution": r.get("distribution", "final")}
    elif k == "any_of":
        p = {"members": len(r["rules"])}
    return (k, r["clause"], when, r.get("severity", "fail"), r.get("role"), tuple(sorted(p.items(), key=str)))


def outlay(mo: dict | None):
    if mo is None or mo == "board" or (isinstance(mo, dict) and mo.get("definition") == "board"):
        return None if mo is None else "board"
    tests = mo.get("tests") or mo.get("branches")
    if tests is None:
        tests = [{k: mo.get(k) for k in ("basis", "ratio", "floor", "floor_op", "combine")}]
        tests[0]["op"] = mo.get("ratio_op", ">=")
    norm = []
    for t in tests:
        floor = t.get("floor")
        norm.append((t["basis"], _r(t["ratio"]), t.get("op") or ">=", _r(floor),
                     (t.get("floor_op") or ">") if floor is not None else None,
                     (t.get("combine") or "and") if floor is not None else None))
    return ("formula", tuple(norm), mo.get("branches_combine", "any"))


def score(name: str, want: dict) -> tuple[bool, bool, list[str]]:
    text = (HERE / f"{name}.txt").read_text(encoding="utf-8")
    d = draft_text(text, policy_id=f"heldout-{name}")
    years = list(range(d.policy["plan_years"][0], d.policy["plan_years"][1] + 1))
    loose = set(want.get("loose") or [])
    got_rules = Counter(canon(r, years) for r in d.policy["rules"]
                        if not (r["kind"] == "attestation" and r.get("field") is None) and r["clause"] not in loose)
    want_rules = Counter(canon(r, years) for r in want.get("rules") or [] if r["clause"] not in loose)
    why = [f"missing {x}" for x in (want_rules - got_rules).elements()]
    why += [f"extra   {x}" for x in (got_rules - want_rules).elements()]
    mo_got, mo_want = outlay(d.policy.get("major_outlay")), outlay(want.get("major_outlay"))
    if mo_got != mo_want:
        why.append(f"major_outlay {mo_got} != {mo_want}")
    reviewed = set(d.review_clauses)
    must = set(want.get("review") or [])
    silent = must - reviewed
    why += [f"not reviewed {c}" for c in sorted(silent)]
    right = not why
    needless = reviewed - must - set(want.get("may_review") or []) - loose
    alone = right and not needless
    why += [f"needless review {c}: {'; '.join(r for w, r in d.reviews if w == c)[:160]}" for c in sorted(needless)]
    return right, alone, why


_CONDITION_KINDS = ("positive", "audit_opinion", "judgment", "no_major_outlay", "compare")  # policy.CONDITION_KINDS


def _compared(rules: list[dict], years: list[int]) -> Counter:
    """The rules as compared. In a plan without conditions the minimums always apply (the model's ``cond_met`` is
    true: xlmodel/catalogue.py), so ``when: conditions_met`` there is ``always`` and is compared as such."""
    if not any((r.get("role") or ("condition" if r["kind"] in _CONDITION_KINDS else "requirement")) == "condition"
               for r in rules):
        rules = [{**r, "when": [w for w in ([r["when"]] if isinstance(r.get("when"), str) else r.get("when") or [])
                                if w != "conditions_met"] or ["always"]} for r in rules]
    return Counter(canon(r, years) for r in rules if not (r["kind"] == "attestation" and r.get("field") is None))


def corpus_text(name: str, pdf: Path | None = None) -> str:
    """A corpus text as published, or (``pdf``: a folder) as read back from a PDF of it printed by the tests' PDF
    maker (tests/plan_documents.py: an announcement's header line, CID font, each line a justified paragraph)."""
    text = (CORPUS / f"{name}.txt").read_text(encoding="utf-8")
    if pdf is None:
        return text
    sys.path.insert(0, str(ROOT / "tests"))
    import plan_documents
    from xlmodel.draft.source import read_plan_source

    path = pdf / f"{name}.pdf"
    plan_documents.plan_pdf(path, text, header="证券代码：600000    证券简称：示例股份    公告编号：2025-001", layout="reflow")
    return read_plan_source(path).text


def clause_classes(name: str, want: dict, pdf: Path | None = None) -> dict[str, str]:
    """Each clause of a corpus text (that the reading or the draft gives a rule, or that must be reviewed): its class."""
    text = corpus_text(name, pdf)
    years = want.get("years")
    d = draft_text(text, policy_id=f"corpus-{name}", years=tuple(years) if years else None)
    span = list(range(d.policy["plan_years"][0], d.policy["plan_years"][1] + 1))
    got, wanted = _compared(d.policy["rules"], span), _compared(want.get("rules") or [], span)
    reviewed, must = set(d.review_clauses), set(want.get("review") or [])
    out = {}
    for cid in sorted({x[1] for x in got} | {x[1] for x in wanted} | must | reviewed):
        g = Counter({k: v for k, v in got.items() if k[1] == cid})
        w = Counter({k: v for k, v in wanted.items() if k[1] == cid})
        if g == w and (cid not in must or cid in reviewed):
            out[cid] = "right"
        elif cid in reviewed:
            out[cid] = "flagged"
        elif g - w or cid in must:
            out[cid] = "silently wrong"
        else:
            out[cid] = "silently missed"
    if outlay(d.policy.get("major_outlay")) != outlay(want.get("major_outlay")):  # flagged where what needs it is
        needs = {r["clause"] for r in want.get("rules") or [] if r["kind"] in ("no_major_outlay", "cash_share")}
        out["major_outlay"] = "flagged" if needs and all(out.get(c) == "flagged" for c in needs) else "silently wrong"
    return out


def corpus(verbose: bool, pdf: Path | None = None) -> None:
    readings = yaml.safe_load((CORPUS / "readings.yaml").read_text(encoding="utf-8"))
    total, safe = Counter(), 0
    for name, want in readings.items():
        try:
            classes = clause_classes(name, want, pdf)
        except Exception as e:  # a drafter may refuse a text (loudly): every clause of the reading is refused
            classes = {r["clause"]: "refused" for r in want.get("rules") or []} or {"(text)": "refused"}
            print(f"{name}: refused ({type(e).__name__}: {str(e)[:100]})")
        counts = Counter(classes.values())
        total += counts
        safe += not (counts["silently wrong"] or counts["silently missed"])
        print(f"{name}: " + ", ".join(f"{k} {counts[k]}" for k in CLASSES if counts[k]))
        if verbose:
            for cid, cls in classes.items():
                if cls != "right":
                    print(f"    {cid}: {cls}")
    n = sum(total.values())
    print(f"\ncorpus{' from PDF' if pdf else ''} ({len(readings)} texts, {n} clauses): " + ", ".join(f"{k} {total[k]} ({total[k] / n:.0%})" for k in CLASSES)
          + f"; safe texts {safe}/{len(readings)}")


def main(argv=None) -> int:
    global draft_text
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--verbose", action="store_true", help="say what differs, text by text")
    ap.add_argument("--src", type=Path, default=ROOT, help="the checkout whose xlmodel drafts (default: this one)")
    ap.add_argument("--corpus", action="store_true", help="score the real texts of benchmarks/draft_corpus per clause")
    ap.add_argument("--pdf", action="store_true", help="with --corpus: each text printed as a PDF and read back first "
                                                        "(reportlab and fonts-wqy-zenhei, as the tests use)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(args.src.resolve()))
    from xlmodel.draft import draft_text as fn

    draft_text = fn
    if args.corpus:
        if args.pdf:
            import tempfile

            with tempfile.TemporaryDirectory() as tmp:
                corpus(args.verbose, Path(tmp))
        else:
            corpus(args.verbose)
        return 0
    expected = yaml.safe_load((HERE / "expected.yaml").read_text(encoding="utf-8"))
    verdicts = {}
    for name, want in expected.items():
        try:
            right, alone, why = score(name, want)
        except Exception as e:  # an older drafter may fail on a text: that text is wrong
            right, alone, why = False, False, [f"{type(e).__name__}: {e}"]
        verdicts[name] = (right, alone)
        print(f"{name}: {'right' if right else 'WRONG'}{', from the draft alone' if alone else ''}")
        if args.verbose:
            for w in why:
                print(f"    {w}")
    for label, member in SETS:
        got = [v for k, v in verdicts.items() if member(int(k[1:]))]
        if not got:
            continue
        n, r, a = len(got), sum(x for x, _ in got), sum(y for _, y in got)
        print(f"\n{label}:\n  right (rules, major outlay, every needed review): {r}/{n} = {r / n:.0%}"
              f"\n  right from the draft alone (and no needless review): {a}/{n} = {a / n:.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
