"""The rule catalogue: policy (data) -> a model of named calculations.

Each rule kind is a function from its spec to a :class:`Check` of expression
trees (``actual``, ``required``, ``passes``, the cash it requires this year).
:func:`compile_policy` wraps every check in the same status logic and the same
aggregates, and returns a :class:`Model`: an ordered set of named calculations
that the evaluator computes (numpy) and the workbook writes as formulas. Both
walk the same trees, so a rule is written once.

Calculation names: per-year series (``cash``, ``distribution``, ``retained``)
and evaluation-year scalars (``<rule>.status``, ``cond_met``, ``min_cash_dividend``…).
Parameter names: ``<owner>.<key>`` (``min_rolling.ratio``), with their clause.
"""

from __future__ import annotations

from typing import Callable

from pydantic import BaseModel

from ..plans import schema as pol
from ..plans.rule_kinds import role_of
from ..plans.loading import load_baseline
from .expr import (FY, And, Blank, C, Cmp, CountIf, EstimateRenderer, If, In, InList, Lbl, Max, Min, Missing, Node, Not,
                   Num, Or, P, PRECISION, Round2, Sum, guarded_part, hoistable, substitute)
from ..fields import FIELDS, SLOTS
from .model import (ATTEST, BOUND_EN, BOUND_ZH, CONDITION_STATUSES, Check, Derived, LABEL_TEXT, LOWER_OF, Model,
                    OUTPUTS, Param, REASONS, RuleDef, SERIES, SERIES_ZH, SHORTFALL, STAGE_KEYS, STATUSES, STATUS_EN,
                    STATUS_ZH, _OUTLAY_BASIS_EN, _OUTLAY_BASIS_ZH, _OUTLAY_MEASURE, _amount_over, _amount_over_strict,
                    _amount_short, _amount_short_strict, _magnitude, _pct, bound_kind, outlay_test_label,
                    transaction_tests)
from .conditions import (k_any_of, k_attestation, k_audit, k_compare, k_conditions_held, k_judgment, k_no_major_outlay,
                         k_positive, k_vote, k_within_months)
from .minimums import (k_cash_paid, k_cash_share, k_min_cash, k_min_cash_plan_period, k_min_cash_rolling,
                       k_min_distributions)
from .caps import k_cap, k_interim_profit_cap, k_legal_cap
from .regulatory import k_plausible, k_sale_restriction, k_st_low_dividend


def _measures_named(policy: pol.Policy) -> set[str]:
    """Every measure or basis a policy's rules name (``measure``, ``basis``, ``of``, a component's basis)."""
    out: set[str] = set()

    def visit(o):
        if isinstance(o, BaseModel):
            for k in type(o).model_fields:
                v = getattr(o, k)
                if k in ("measure", "basis", "of") and isinstance(v, str):
                    out.add(v)
                visit(v)
        elif isinstance(o, (list, tuple)):
            for v in o:
                visit(v)
    visit(policy.rules)
    return out


class _Builder:
    def __init__(self, policy: pol.Policy):
        self.m = Model(policy)
        self.p = policy
        self.low_payout_parts: list[tuple[Node, str]] = []  # set by build_low_payout (the baseline)
        #: rule id -> the any_of rule it is an alternative of
        self.groups: dict[str, str] = {m: r.id for r in policy.rules if r.kind == "any_of" for m in r.rules}

    # -- parameters and measures ------------------------------------------
    def param(self, owner: str, key: str, value, clause: str, zh: str, en: str, unit: str, editable: bool = True) -> P:
        name = f"{owner}.{key}"
        self.m.params[name] = Param(name, value, clause, zh, en, unit, editable)
        return P(name)

    def measure(self, m: str, offset: int = 0) -> Node:
        return C(m, offset) if m in SERIES else In(m, offset)

    def expand(self, node: Node, shift: int = 0) -> list[tuple[str, int]]:
        """Input cells a node reads, looking through series and derived scalars."""
        out: dict[tuple[str, int], None] = {}
        for f, o in node.fields():
            out[(f, o + shift)] = None
        for name, off in node.calcs():
            if name in self.m.series:
                for cell in self.expand(self.m.series[name], shift + (off or 0)):
                    out[cell] = None
            elif name in self.transparent:
                for cell in self.expand(self.m.scalars[name], shift):
                    out[cell] = None
        return [c for c in out if not FIELDS.get(c[0]) or not FIELDS[c[0]].default_zero]

    # -- series and derived scalars ----------------------------------------
    def precision(self) -> P:
        """The digits every amount is rounded to (2: the fen), one named cell that every ROUND reads."""
        return self.param(*PRECISION.split("."), 2, "docs/domain.md §4", "金额舍入位数（到分）",
                          "Digits amounts are rounded to (the fen)", "位", editable=False)

    def fen(self) -> P:
        """The smallest step of money (0.01 元): the shortfall of a strict comparison met with equality."""
        if "precision.fen" not in self.m.params:
            self.param("precision", "fen", 0.01, "docs/domain.md §4", "金额最小单位（分）", "Smallest money step (one fen)", "元",
                       editable=False)
        return P("precision.fen")

    def build_series(self):
        s = self.p.settings
        cash: Node = In("cash_dividend")
        if s.cash_includes_buybacks:  # every bidding/tender buyback, or only those cancelled (settings)
            cash = cash + In(s.cash_buyback_basis)
        dist: Node = In("cash_dividend")
        if s.distribution_includes_stock:
            dist = dist + In("stock_dividend")
        retained = {
            "lower": Min(In("retained_earnings_consolidated"), In("retained_earnings_parent")),
            "consolidated": In("retained_earnings_consolidated") + Num(0),
            "parent": In("retained_earnings_parent") + Num(0),
        }[s.retained_earnings_basis]
        self.m.series.update(cash=cash, distribution=dist, retained=retained,
                             cash_st=In("cash_dividend") + In("buyback_cancelled"),
                             cash_reg=In("cash_dividend") + In("buyback_amount"))
        named = _measures_named(self.p)
        for lower, (a, b) in LOWER_OF.items():
            if lower in named:  # only where a rule reads it
                # MIN of the two references: a blank one would be left out, so both are required inputs (expand)
                self.m.series[lower] = Min(In(a), In(b))
        self.transparent = {"major_outlay", "major_outlay_threshold"}
        self.build_interims()

    def build_interims(self):
        """The year's interim distributions together (several a year: DOMAIN.md §6, docs/domain.md §6.11):
        each slot's amount to the fen, then their sum. The final is the year's totals less these; the
        ratios read the year's totals, which include them."""
        sc = self.m.scalars
        sc["interims.cash"] = Round2(Sum(*[Round2(In(k.cash)) for k in SLOTS]))
        sc["interims.stock"] = Round2(Sum(*[Round2(In(k.stock)) for k in SLOTS]))
        self.transparent |= {"interims.cash", "interims.stock"}

    def interim_amount(self, k, stock: bool = True) -> Node:
        """Slot ``k``'s distribution: its cash, and its stock dividend where the plan counts stock."""
        return Round2(Round2(In(k.cash)) + Round2(In(k.stock))) if stock else Round2(In(k.cash))

    def interims_amount(self, stock: bool = True) -> Node:
        """The year's interim distributions together (cash, and stock where counted)."""
        return Round2(C("interims.cash") + C("interims.stock")) if stock else C("interims.cash")

    def per_slot(self, rid: str, slots: list[tuple], op: str) -> tuple[Node, Node, Node, Node, Node]:
        """One rule checked for every interim slot: slot k is (made, actual, bound), each on its own
        calculation rows (``<rule>.s<k>_actual`` …), with, optionally, a fourth item: where its inputs are
        needed (else always, once made). It holds where every slot made holds; it shows the
        slot with the least headroom (the first on a tie), so a fail names the interim that fails and
        its own bound. Returns (actual, required, passes, applies, missing): missing where a slot made
        lacks an input of its own (a slot not made needs none)."""
        sc = self.m.scalars
        made, margin, missing = [], [], []
        for k, (m, act, req, *rel) in enumerate(slots, 1):
            sc[f"{rid}.s{k}_made"], sc[f"{rid}.s{k}_actual"], sc[f"{rid}.s{k}_required"] = m, act, req
            self.transparent |= {f"{rid}.s{k}_made", f"{rid}.s{k}_actual", f"{rid}.s{k}_required"}
            a, r = C(f"{rid}.s{k}_actual"), C(f"{rid}.s{k}_required")
            sc[f"{rid}.s{k}_test"] = Or(Not(C(f"{rid}.s{k}_made")), Cmp(op, a, r))
            self.transparent.add(f"{rid}.s{k}_test")
            made.append(C(f"{rid}.s{k}_made"))
            margin.append(Round2(r - a) if op in ("<=", "<") else Round2(a - r))
            cells = [c for c in dict.fromkeys(self.expand(act) + self.expand(req))]
            if cells:
                missing.append(And(C(f"{rid}.s{k}_made"), *rel, Missing(tuple(cells))))
        # the slot shown: made, and no later slot made with less headroom
        picks = []
        for k in range(len(slots)):
            later = [Or(Not(made[j]), margin[k] <= margin[j]) for j in range(k + 1, len(slots))]
            picks.append(self._all([made[k]] + later))
        act, req = C(f"{rid}.s{len(slots)}_actual"), C(f"{rid}.s{len(slots)}_required")
        for k in reversed(range(len(slots) - 1)):
            sc[f"{rid}.s{k + 1}_shown"] = picks[k]
            self.transparent.add(f"{rid}.s{k + 1}_shown")
            act = If(C(f"{rid}.s{k + 1}_shown"), C(f"{rid}.s{k + 1}_actual"), act)
            req = If(C(f"{rid}.s{k + 1}_shown"), C(f"{rid}.s{k + 1}_required"), req)
        # every slot's test on one row: the rule's test reads it (decided where every slot's inputs are there)
        sc[f"{rid}.slots_hold"] = And(*[C(f"{rid}.s{k}_test") for k in range(1, len(slots) + 1)])
        self.transparent.add(f"{rid}.slots_hold")
        any_made = self._any(made)
        # with no interim made there is no bound to show (blank, as a bound whose inputs are not there)
        return act, If(any_made, req, Blank()), C(f"{rid}.slots_hold"), any_made, self._any(missing)

    def build_major_outlay(self):
        mo = self.p.major_outlay
        if mo is None:
            return
        if mo.definition == "board":
            self.m.scalars["major_outlay"] = In("major_outlay_planned")
            return
        sc = self.m.scalars
        tests = mo.tests()
        one = mo.branches is None

        def branch(i: int, t: pol.OutlayBranch, threshold: str) -> Node:
            """One test: its measure op ratio × basis (on the row ``threshold``), joined with its amount floor."""
            key = "" if one else f"b{i}_"
            where = "" if one else f"（第{i}项标准）"
            strict = "（超过）" if t.op == ">" else ""
            outlay, basis = Round2(In(t.measure)), In(t.basis)
            what, what_en = "", ""
            if t.measure != "planned_major_outlay":  # a planned transaction's own figure against its company figure
                what, what_en = _OUTLAY_MEASURE[t.measure][0], _OUTLAY_MEASURE[t.measure][1] + " as a "
            if t.absolute:  # 上述指标涉及的数据如为负值，取其绝对值计算: the figure on a row of its own
                sc[f"major_outlay.b{i}_figure"] = Round2(_magnitude(In(t.measure)))
                self.transparent.add(f"major_outlay.b{i}_figure")
                outlay, basis = C(f"major_outlay.b{i}_figure"), _magnitude(In(t.basis))
                strict += "（负值取绝对值）"
            ratio = self.param("major_outlay", f"{key}ratio", t.ratio, mo.clause,
                               f"重大支出标准{where}：{what}占{_OUTLAY_BASIS_ZH[t.basis]}比例{strict}",
                               f"Major outlay{'' if one else f' (test {i})'}: {what_en}share of latest audited "
                               f"{t.basis.replace('_', ' ')}{' (exceeds)' if t.op == '>' else ''}"
                               f"{' (absolute values)' if t.absolute else ''}", "%")
            sc[threshold] = Round2(ratio * basis)
            test: Node = Cmp(t.op, outlay, C(threshold))
            if t.floor is not None:
                word = ("超过", "exceeds") if t.floor_op == ">" else ("达到或超过", "reaches")
                floor = self.param("major_outlay", f"{key}floor", t.floor, mo.clause,
                                   f"重大支出标准{where}：{what.removesuffix('金额')}金额下限（{word[0]}）",
                                   f"Major outlay{'' if one else f' (test {i})'}: {_OUTLAY_MEASURE[t.measure][1] + ' ' if what else ''}"
                                   f"amount floor ({word[1]})", "元")
                test = (And if t.combine == "and" else Or)(test, Cmp(t.floor_op, outlay, floor))
            return test

        if one:
            sc["major_outlay"] = branch(1, tests[0], "major_outlay_threshold")
            return
        # any branch makes the outlay major (the threshold shown is the lowest branch's ratio threshold),
        # or all of them must hold (the threshold shown is the highest)
        for i, t in enumerate(tests, 1):
            sc[f"major_outlay.b{i}"] = branch(i, t, f"major_outlay.b{i}_threshold")
            self.transparent |= {f"major_outlay.b{i}", f"major_outlay.b{i}_threshold"}
        every = mo.branches_combine == "all"
        if not transaction_tests(mo):  # one measure, one threshold shown; else each test has its own row
            sc["major_outlay_threshold"] = (Max if every else Min)(*[C(f"major_outlay.b{i}_threshold") for i in range(1, len(tests) + 1)])
        sc["major_outlay"] = (And if every else Or)(*[C(f"major_outlay.b{i}") for i in range(1, len(tests) + 1)])

    # -- applicability -----------------------------------------------------
    def part(self, node: Node, reason: str) -> tuple[Node, Node | None, list, str]:
        """One part of a rule's applicability: (test, unknown-test or None, input cells read, reason if false)."""
        cells = self.expand(node)
        return node, (Missing(tuple(cells)) if cells else None), cells, reason

    def when(self, spec) -> list[tuple[Node, Node | None, list, str]]:
        """The rule's ``when`` list as parts (see :meth:`part`).

        A rule applies when every part holds. Three-valued: a part that is known
        to be false makes the rule not applicable even where another part lacks
        its inputs; only then does a missing input make the rule missing_input.
        The first part known to be false names the one reason it does not apply.
        """
        profitable = (Round2(In("net_profit_attributable")) > Num(0), "na_not_profitable")
        parts: list[tuple[Node, str]] = []
        gated: list[tuple[Node, Node | None, list, str]] = []
        for w in spec.when:
            if w == "conditions_met":
                gated.append((C("cond_met"), C("cond_unknown"), [], "na_conditions_not_met"))
            elif w == "conditions_not_met":
                gated.append((And(Not(C("cond_met")), Not(C("cond_unknown"))), C("cond_unknown"), [], "na_conditions_met"))
            elif w == "distribution_made":
                parts.append((Round2(C("distribution", 0)) > Num(0), "na_no_distribution"))
            elif w == "cash_paid":
                parts.append((Round2(In("cash_dividend")) > Num(0), "na_no_cash"))
            elif w == "interim_paid":
                parts.append((C("interims.cash") > Num(0), "na_no_interim"))
            elif w == "profitable":
                parts.append(profitable)
            elif w == "profitable_no_cash":
                parts += [profitable, (Round2(In("cash_dividend")).eq(Num(0)), "na_cash_paid")]
            elif w == "profitable_no_distribution":
                parts += [profitable, (Round2(C("distribution", 0)).eq(Num(0)), "na_distribution_made")]
            elif w == "stock_or_conversion":
                parts.append((Round2(In("stock_dividend") + In("capital_reserve_conversion")) > Num(0), "na_no_stock"))
            elif w == "low_payout":
                parts += self.low_payout_parts
        return gated + [self.part(node, reason) for node, reason in parts]

    @staticmethod
    def _all(nodes: list[Node]) -> Node | None:
        return None if not nodes else nodes[0] if len(nodes) == 1 else And(*nodes)

    @staticmethod
    def _any(nodes: list[Node]) -> Node | None:
        return None if not nodes else nodes[0] if len(nodes) == 1 else Or(*nodes)

    # -- the rules ---------------------------------------------------------
    def compile_rule(self, spec, role: str | None = None) -> RuleDef:
        check = KINDS[spec.kind](self, spec)
        role = role or role_of(spec)
        nodes = [check.actual, check.passes] + ([check.required] if check.required is not None else [])
        cells: dict[tuple[str, int], None] = {}
        for n in nodes:
            for c in self.expand(n):
                cells[c] = None
        rd = RuleDef(spec, role, check, list(cells), group=self.groups.get(spec.id) if role != "regulatory" else None)
        self.emit_rule(rd)
        return rd

    def emit_rule(self, rd: RuleDef):
        spec, ck, sc = rd.spec, rd.check, self.m.scalars
        rid = spec.id
        when_parts = self.when(spec)
        parts = list(when_parts)
        if isinstance(ck.applies, list):
            parts += list(ck.applies)
        elif ck.applies is not None:
            parts.append(self.part(ck.applies, ck.applies_reason))
        rd.app_fields = [c for _, _, cells, _ in parts for c in cells]
        if spec.binding_boards and rd.role != "condition":  # the board decides fail or warn: name it when missing
            rd.app_fields.append(("board", 0))
        # each step of the status on its own calculation row, so a modeller can audit it:
        # not applicable (a part known false) → missing input (applicability, then the test's inputs) → test
        sc[f"{rid}.test"] = ck.passes
        status: Node = If(C(f"{rid}.test"), *self.outcomes(rd))
        missing = None if ck.known else ck.missing if ck.missing is not None else \
            self._missing(rd.check_fields, ck.relevant) if rd.check_fields else None
        unknown = self._any([u for _, u, _, _ in parts if u is not None])
        decided = self._decided(rd, missing, unknown)
        if missing is not None:
            sc[f"{rid}.missing"] = missing if decided is None else And(missing, Not(C(f"{rid}.decided")))
            status = If(C(f"{rid}.missing"), Lbl("missing_input"), status)
        if unknown is not None:
            # a test that holds whatever the missing inputs: the rule passes whether it applies or not
            sc[f"{rid}.unknown"] = unknown if decided is None else \
                And(unknown, Not(And(C(f"{rid}.decided"), C(f"{rid}.test"))))
            status = If(C(f"{rid}.unknown"), Lbl("missing_input"), status)
        if parts:
            for k, (n, u, _, _) in enumerate(parts, 1):  # part k known to be false
                sc[f"{rid}.na{k}"] = Not(n) if u is None else And(Not(u), Not(n))
            sc[f"{rid}.na"] = self._any([C(f"{rid}.na{k}") for k in range(1, len(parts) + 1)])
            status = If(C(f"{rid}.na"), Lbl("not_applicable"), status)
            reason: Node = Blank()
            for k, (_, _, _, code) in reversed(list(enumerate(parts, 1))):
                reason = If(C(f"{rid}.na{k}"), Lbl(code), reason)
            sc[f"{rid}.reason"] = reason
        blank = (lambda n: n) if ck.known else (lambda n: If(C(f"{rid}.missing"), Blank(), n)) if decided is not None \
            and missing is not None else (lambda n: If(C(f"{rid}.missing"), Blank(), n)) if ck.missing is not None else \
            (lambda n: self._blank_if_missing(n, ck.relevant))
        sc[f"{rid}.actual"] = blank(ck.actual)
        if ck.required is not None:
            sc[f"{rid}.required"] = blank(ck.required)
        sc[f"{rid}.status"] = status
        ok, bad = ("met", "not_met") if rd.role == "condition" or rd.group else ("pass", "fail")
        st = C(f"{rid}.status")
        if rd.has_margin:  # headroom: how far the actual is inside its bound (negative when outside)
            a, r = C(f"{rid}.actual"), C(f"{rid}.required")
            gap = Round2(a - r) if ck.op in (">=", ">") else Round2(r - a)
            sc[f"{rid}.margin"] = If(Or(st.eq(Lbl(ok)), st.eq(Lbl(bad)), st.eq(Lbl("warn"))), gap, Blank())
        if ck.shortfall is not None:
            sc[f"{rid}.shortfall"] = If(Or(st.eq(Lbl(bad)), st.eq(Lbl("warn"))),
                                        ck.shortfall(self, C(f"{rid}.actual"), C(f"{rid}.required")),
                                        If(Or(st.eq(Lbl(ok)), st.eq(Lbl("not_applicable"))), Num(0), Blank()))
        if ck.min_cash is not None:
            when_only = self._all([n for n, _, _, _ in when_parts])
            contrib = ck.min_cash if when_only is None else If(when_only, ck.min_cash, Num(0))
            sc[f"{rid}.min_cash"] = If(C(f"{rid}.status").eq(Lbl("missing_input")), Blank(), contrib)

    def _decided(self, rd: RuleDef, missing: Node | None, unknown: Node | None) -> Node | None:
        """Where the rule's test is known whatever its missing inputs (``<rule>.decided``), or None for a test
        that is one comparison (known only when all its inputs are there, as ``<rule>.missing`` says).

        Three-valued (Kleene) logic over the test's AND / OR / NOT: ``x OR y`` is known true where one part is
        known true, ``x AND y`` known false where one part is known false, and known where every part is. A
        comparison is known where none of the input cells it reads is blank; one that reads a calculation
        whose inputs are not traced (a window, a rule's own sums) is known only where nothing the rule reads
        is missing. Written as a tree, so the workbook, the Python and the numpy programs decide alike."""
        ck = rd.check
        if ck.known or not isinstance(ck.passes, (And, Or)) or (missing is None and unknown is None):
            return None
        if ck.min_cash is not None or rd.group is not None:
            # a minimum (or an alternative of one) is decided only with every input: the cash it requires is
            # computed from them, and a minimum read with a blank as 0 would be too low (wrongly reassuring)
            return None

        def opaque(n: Node) -> bool:
            return any(nm not in self.m.series and nm not in self.transparent for nm, _ in n.calcs())

        def leaves(n: Node) -> list[Node]:
            return [x for a in n.args for x in leaves(a)] if isinstance(n, (And, Or, Not)) else [n]

        if all(opaque(n) for n in leaves(ck.passes)):  # known only where nothing is missing: the rule's own test says as much
            return None
        self.m.scalars[f"{rd.id}.incomplete"] = self._any([n for n in (missing, unknown) if n is not None])
        anything = C(f"{rd.id}.incomplete")

        def known(n: Node) -> Node:
            if isinstance(n, Not):
                return known(n.args[0])
            if isinstance(n, (And, Or)):
                ks = [known(a) for a in n.args]
                decisive = [And(k, Not(a) if isinstance(n, And) else a) for k, a in zip(ks, n.args)]
                return Or(*decisive, And(*ks))
            cells = self.expand(n)
            parts = ([Not(Missing(tuple(cells)))] if cells else []) + ([Not(anything)] if opaque(n) else [])
            return self._all(parts) or (Num(1) > Num(0))
        self.m.scalars[f"{rd.id}.decided"] = known(ck.passes)
        rd.decides = True
        return C(f"{rd.id}.decided")

    def outcomes(self, rd: RuleDef) -> tuple[Node, Node]:
        """(status when the test holds, status when it does not) for the rule's role and severity."""
        spec = rd.spec
        if rd.role == "condition" or rd.group:  # an alternative of an any_of is met or not; its group passes or fails
            return Lbl("met"), Lbl("not_met")
        if spec.severity == "warn":
            return Lbl("pass"), Lbl("warn")
        if spec.binding_boards:  # a duty on these boards, a recommendation elsewhere (DOMAIN.md §5)
            boards = self.param(spec.id, "binding_boards", tuple(spec.binding_boards), spec.clause,
                                "具有约束力的板块（其他板块为建议）", "Boards where it binds (a recommendation elsewhere)", "选项")
            board = In("board")
            self.m.scalars[f"{spec.id}.breach"] = If(Missing((("board", 0),)), Lbl("missing_input"),
                                                     If(InList(board, boards), Lbl("fail"), Lbl("warn")))
            return Lbl("pass"), C(f"{spec.id}.breach")
        return Lbl("pass"), Lbl("fail")

    @staticmethod
    def _missing(cells, relevant: Node | None = None) -> Node:
        m: Node = Missing(tuple(cells))
        return m if relevant is None else And(relevant, m)

    def _blank_if_missing(self, node: Node, relevant: Node | None = None) -> Node:
        cells = self.expand(node)
        return If(self._missing(cells, relevant), Blank(), node) if cells else node

    # -- aggregates ----------------------------------------------------------
    def build_aggregates(self):
        sc, m = self.m.scalars, self.m
        conds = [C(f"{r.id}.status") for r in m.conditions if r.group is None]
        if conds:
            sc["cond_not_met_count"] = CountIf(Lbl("not_met"), *conds)
            sc["cond_missing_count"] = CountIf(Lbl("missing_input"), *conds)
            sc["cond_met"] = And(C("cond_not_met_count").eq(Num(0)), C("cond_missing_count").eq(Num(0)))
            sc["cond_unknown"] = And(C("cond_not_met_count").eq(Num(0)), C("cond_missing_count") > Num(0))
        else:  # a plan without conditions: its minimums always apply
            sc["cond_met"] = Num(1) > Num(0)
            sc["cond_unknown"] = Num(0) > Num(1)

    def build_low_payout(self, b: pol.Baseline):
        """The low-payout test (DOMAIN.md §5) as ``when`` parts, so that the one reason it does not apply is named.

        Cash (incl. interim) counts bidding/tender buybacks, as every regulatory ratio does."""
        lp = b.low_payout
        ratio = self.param("low_payout", "ratio", lp.ratio, lp.clause, "低分红披露：现金分红占净利润比例低于",
                           "Low payout: cash below this share of net profit", "%")
        first = self.param("low_payout", "first_year", lp.first_fiscal_year, lp.clause, "低分红披露：首次适用会计年度",
                           "Low payout: first fiscal year", "年")
        self.low_payout_parts = [
            (FY(0) >= first, "na_before_first_year"),
            (Round2(In("net_profit_attributable")) > Num(0), "na_not_profitable"),
            (And(Round2(In("retained_earnings_consolidated")) > Num(0), Round2(In("retained_earnings_parent")) > Num(0)),
             "na_retained_not_positive"),
            (Round2(C("cash_reg", 0)) < Round2(ratio * In("net_profit_attributable")), "na_payout_not_low"),
        ]

    def build_outputs(self):
        sc, m = self.m.scalars, self.m
        # display units for the board page (万元, 亿元): fixed, not thresholds
        self.param("display", "wan", 10_000, "显示单位", "万元（元）", "10 thousand 元 (display)", "元", editable=False)
        self.param("display", "yi", 100_000_000, "显示单位", "亿元（元）", "100 million 元 (display)", "元", editable=False)
        reqs = [C(f"{r.id}.status") for r in m.obligations]
        for code in ("fail", "warn", "missing_input"):
            sc[f"{code}_count"] = CountIf(Lbl(code), *reqs)
        sc["overall_status"] = If(C("fail_count") > Num(0), Lbl("fail"),
                                  If(C("missing_input_count") > Num(0), Lbl("missing_input"),
                                     If(C("warn_count") > Num(0), Lbl("warn"), Lbl("pass"))))
        sc["cash_conditions_met"] = If(C("cond_unknown"), Blank(), C("cond_met"))
        mins = [r for r in m.rules if r.is_minimum and r.group is None]
        contribs = [C(f"{r.id}.min_cash") for r in mins]
        best = Max(Num(0), *contribs)
        if mins:
            best = If(CountIf(Lbl("missing_input"), *[C(f"{r.id}.status") for r in mins]) > Num(0), Blank(), best)
        sc["min_cash_dividend"] = best
        legal = [r for r in m.rules if r.spec.kind == "legal_distribution_cap"]
        # the law's cap (the lower of parent and consolidated) where the baseline has it: never above the plan's
        sc["max_distribution"] = self._blank_if_missing(
            C(f"{legal[0].id}.required") if legal else Max(Num(0), Round2(C("retained", 0))))
        st = [r for r in m.rules if r.spec.kind == "st_low_dividend"]
        if st:
            rid = st[0].id
            status = C(f"{rid}.status")
            sc["st_risk_warning"] = If(Or(status.eq(Lbl("missing_input")), Not(C(f"{rid}.in_scope"))), Blank(),
                                       status.eq(Lbl("fail")))
            sc["cash_needed_to_avoid_st"] = If(status.eq(Lbl("missing_input")), Blank(),
                                               If(status.eq(Lbl("not_applicable")), Num(0), C(f"{rid}.needed")))
        else:
            sc["st_risk_warning"] = Blank()
            sc["cash_needed_to_avoid_st"] = Num(0)
        _proposal(self)
        # model integrity flag: every rule could be evaluated
        sc["check_flag"] = If(Or(C("missing_input_count") > Num(0), C("cond_unknown")), Lbl("check"), Lbl("ok"))


def _proposal(b: _Builder) -> None:
    """The 利润分配方案公告's proposal (issue 50, docs/domain.md §6.12): 每10股派发现金红利 X 元 on the base of the
    total shares less those in the buyback account (they take no distribution), the total it gives, the year's
    total with the interim, the payout ratios, and the least amount per 10 shares, to the fen, that meets the
    cash still required of the final distribution (the plan's minimum and the risk warning's, the interim and
    counted buybacks deducted)."""
    sc = b.m.scalars
    per = b.param("announce", "per_shares", 10, "利润分配方案公告：每10股派发现金红利", "每X股派发（公告惯例）",
                  "Shares per quoted amount (the announcement's convention)", "股", editable=False)
    fen = b.fen()
    sc["proposal.base"] = Max(Num(0), In("base_share_count") - In("buyback_account_shares"))
    base = C("proposal.base")
    sc["proposal.total"] = Round2(In("cash_per_10_shares") * base / per)
    sc["proposal.year_total"] = Round2(C("proposal.total") + Round2(In("interim_cash_dividend")))
    sc["proposal.matches"] = C("proposal.year_total").eq(Round2(In("cash_dividend")))
    profit = Round2(In("net_profit_attributable"))
    sc["proposal.payout"] = If(profit > Num(0), Round2(In("cash_dividend")) / profit, Blank())
    sc["proposal.cash_with_buybacks"] = Round2(C("cash_reg", 0))  # bidding/tender buybacks count as cash
    sc["proposal.payout_with_buybacks"] = If(profit > Num(0), C("proposal.cash_with_buybacks") / profit, Blank())
    # the plan's minimum is of its cash (which may count buybacks); the warning's of this year's dividends
    plan_min = C("min_cash_dividend")
    counted = Round2(C("cash", 0) - In("cash_dividend"))
    interim = Round2(In("interim_cash_dividend"))
    # the table's 是/否: 是 when the warning is triggered, 否 when it passes or cannot apply (out of scope, with its
    # reason), 无法判断 when undecided or the amounts' unit is in doubt (never a reassuring 否 then)
    st = [r for r in b.m.rules if r.spec.kind == "st_low_dividend"]
    units = [C(f"{r.id}.status").eq(Lbl("fail")) for r in b.m.rules if r.spec.kind == "plausible_amounts"]
    if st:
        status = C(f"{st[0].id}.status")
        verdict = If(status.eq(Lbl("fail")), Lbl("yes"),
                     If(Or(status.eq(Lbl("pass")), status.eq(Lbl("not_applicable"))), Lbl("no"), Lbl("undetermined")))
        sc["announce.triggers"] = If(Or(*units), Lbl("undetermined"), verdict) if units else verdict
    # blank where either minimum is undecided (a missing input): never a minimum of 0 that reassures
    unknown = Or(plan_min.eq(Blank()), C("cash_needed_to_avoid_st").eq(Blank()))
    sc["proposal.required"] = If(unknown, Blank(), Max(Num(0), Round2(plan_min - counted - interim),
                                                       Round2(C("cash_needed_to_avoid_st") - interim)))
    req = C("proposal.required")
    guess = Round2(req * per / Max(base, Num(1)))  # (a base of no share is answered 0 below, never divided by)
    sc["proposal.min_per_10"] = If(req.eq(Blank()), Blank(), If(Or(req.eq(Num(0)), base.eq(Num(0))), Num(0),
                                   If(Round2(guess * base / per) >= req, guess, Round2(guess + fen))))


# ---- kinds -----------------------------------------------------------------
# Each takes the builder and the rule spec and returns a Check. Thresholds are
# registered as parameters with the rule's clause; none is a literal.


KINDS: dict[str, Callable[[_Builder, object], Check]] = {
    "positive": k_positive, "audit_opinion": k_audit, "judgment": k_judgment,
    "no_major_outlay": k_no_major_outlay, "compare": k_compare, "min_cash": k_min_cash,
    "min_cash_rolling": k_min_cash_rolling, "min_cash_plan_period": k_min_cash_plan_period,
    "min_distributions": k_min_distributions, "any_of": k_any_of, "cash_share": k_cash_share, "cash_paid": k_cash_paid,
    "distribution_cap": k_cap, "vote": k_vote, "within_months": k_within_months,
    "attestation": k_attestation, "st_low_dividend": k_st_low_dividend, "sale_restriction": k_sale_restriction,
    "conditions_held": k_conditions_held, "legal_distribution_cap": k_legal_cap,
    "interim_profit_cap": k_interim_profit_cap, "plausible_amounts": k_plausible,
}


#: the longest formula a modeller should have to audit (issue 11: ~250 characters)
MAX_FORMULA = 240


def split_long_formulas(m: Model, limit: int = MAX_FORMULA) -> None:
    """Move parts of any calculation whose formula would pass ``limit`` characters onto rows of their
    own (``<name>.part<k>``), largest first, until every formula fits. The same trees still compute
    in Python (a hoisted part is one more named calculation), so nothing changes but the layout."""
    est = EstimateRenderer()
    out: dict[str, Node] = {}

    def place(name: str, node: Node):
        k = 0
        while (size := len(node.render(est))) > limit:
            options = [(n, guarded_part(n, gs)) for n, gs in hoistable(node)]
            sizes = [(ln, i) for i, (_, moved) in enumerate(options) if (ln := len(moved.render(est))) < size]
            if not sizes:  # nothing that moves makes the formula shorter (a part is its whole guarded branch)
                break
            fitting = [x for x in sizes if x[0] <= limit]
            _, i = max(fitting) if fitting else max(sizes)
            k += 1
            while (part := f"{name}.part{k}") in m.scalars or part in out:  # split once already: new names
                k += 1
            place(part, options[i][1])
            node = substitute(node, options[i][0], C(part))
        out[name] = node

    for name, node in m.scalars.items():
        place(name, node)
    m.scalars = out


def compile_policy(policy: pol.Policy, baseline: pol.Baseline | None = None) -> Model:
    """The model of ``policy`` with the regulatory baseline its settings name, or ``baseline`` (a
    baseline-only screen passes the baseline's rules it screens: :func:`xlmodel.batch.prepare.screen_model`)."""
    b = _Builder(policy)
    b.precision()
    b.build_series()
    b.build_major_outlay()

    def ordered(specs):  # an any_of after the rules it reads (its minimum is theirs); an interim share after its final
        seen: set[str] = set()
        now, later = [], []
        for r in specs:
            wait = r.kind == "any_of" or getattr(r, "share_from", None) not in (None, *seen)
            (later if wait else now).append(r)
            seen.add(r.id)
        return now + later

    # conditions first: requirements read their aggregate
    for spec in ordered(policy.conditions):
        b.m.rules.append(b.compile_rule(spec))
    b.build_aggregates()
    for spec in ordered(policy.requirements):
        b.m.rules.append(b.compile_rule(spec))
    if baseline is None and policy.settings.regulatory_baseline:
        baseline = load_baseline(policy.settings.regulatory_baseline)
    if baseline is not None:
        base = b.m.baseline = baseline
        clash = {r.id for r in base.rules} & {r.id for r in policy.rules}
        if clash:
            raise ValueError(f"rule ids {sorted(clash)} are used by both {policy.id} and {base.id}")
        b.build_low_payout(base)
        for spec in base.rules:
            b.m.rules.append(b.compile_rule(spec, "regulatory"))
    b.build_outputs()
    split_long_formulas(b.m)
    return b.m
