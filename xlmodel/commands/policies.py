"""`xlmodel policies`: list the plans, show one's rules, check a policy file, install one in the user's plan folder."""

from __future__ import annotations

import sys

from ..errors import EXIT_INPUT, EXIT_OK
from . import error_text


def cmd_policies(args) -> int:
    if args.action in ("check", "install"):
        return _policies_check_install(args)
    if args.action == "show":
        from ..rules.catalogue import compile_policy  # (numpy: only where the rules are compiled)
        from ..errors import XlmodelError
        from ..plans.text import plan_clauses, policy_source
        from ..plans.loading import POLICY_ID, find_plan, load_policy
        from ..inputs.sanitize import plain_text as t  # every text from the plan file: no terminal control, no forged line

        if not args.id:
            raise XlmodelError("policies show 需要规划 ID policies show needs a policy id")
        p = load_policy(args.id)
        m = compile_policy(p)
        print(f"{t(p.id)} v{t(p.version)}  {t(p.title_zh)}\n{t(p.title_en)}\n规划期 plan years {p.plan_years[0]}–{p.plan_years[1]}")
        src = policy_source(p)
        origin = find_plan(args.id).origin if POLICY_ID.fullmatch(args.id) else f"file: {src.path if src else args.id}"
        print(f"来源 Source: {t(origin)}")
        if src is not None and src.text_path is not None:
            print(f"规划原文 Plan text: {t(src.text_path)} ({len(plan_clauses(p))} clauses)")
        print()
        if p.major_outlay:
            mo = p.major_outlay
            print(f"重大支出 Major outlay [{t(mo.clause)}]: {mo.definition}{mo.summary()}")
        for rd in m.rules:
            s = rd.spec
            tag = "条件 condition" if rd.role == "condition" else ("警告 warn" if s.severity == "warn" else "要求 requirement")
            print(f"\n[{t(s.clause)}] {s.id}  ({s.kind}; {tag}; when: {', '.join(s.when)})")
            print(f"  {t(s.title_zh)}\n  {t(s.title_en)}\n  {'依据 Basis' if rd.role == 'regulatory' else '原文 Text'}: “{t(s.quote)}”")
        print("\n参数 Parameters:")
        for prm in m.params.values():
            v = prm.value
            shown = (", ".join(v) if isinstance(v, tuple) else f"{v:.2%}" if prm.unit == "%"
                     else f"{int(v)}" if prm.unit in ("年", "月") else f"{v:,.2f}")
            print(f"  {prm.name} = {t(shown)} {prm.unit if prm.unit not in ('%', '选项') else ''}  [{t(prm.clause)}] {t(prm.zh)}")
        counts: dict[str, int] = {}
        for c in p.clauses.values():
            counts[c.treatment] = counts.get(c.treatment, 0) + 1
        print(f"\n条款 Clauses: {len(p.clauses)} — " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        return EXIT_OK
    return _list_policies()


def _list_policies() -> int:
    """One line per plan (errors on stderr) and the plan folders; from the cache while no plan, plan
    text or xlmodel file has changed (:mod:`xlmodel.caches.listing_cache`)."""
    from ..caches import listing_cache

    hit = listing_cache.cached()
    if hit is None:
        print_ = listing_cache.fingerprint()
        out, err, code = _listing_lines()
        listing_cache.store(out, err, code, print_)
    else:
        from ..inputs.sanitize import plain_text  # the cache is a file: printed as plain text whatever it holds

        out, err, code = [plain_text(x) for x in hit[0]], ["\n".join(map(plain_text, x.split("\n"))) for x in hit[1]], hit[2]
    for line in out:
        print(line)
    for line in err:
        print(line, file=sys.stderr)
    return code


def _listing_lines() -> tuple[list[str], list[str], int]:
    from ..plan_install import folders_line, list_plans_with_errors
    from ..inputs.sanitize import plain_text

    out, err, worst = [], [], EXIT_OK
    for item in list_plans_with_errors():
        p = item.policy
        if p is None:
            err.append(error_text(item.error))
            worst = EXIT_INPUT
            continue
        company = p.company.company_name if p.company else ""
        origin = item.files[0].origin
        out.append(plain_text(f"{p.id:<28} v{p.version:<8} {p.plan_years[0]}–{p.plan_years[1]}  {len(p.rules):>3} rules  "
                              f"{company}" + ("" if origin == "bundled" else f"  [{origin}]")))  # one line, inert
    err.append(plain_text(folders_line()))
    return out, err, worst


def _policies_check_install(args) -> int:
    from ..errors import XlmodelError
    """`policies check FILE`: every problem of one policy file at once; `policies install FILE`:
    the same check, then a copy in the user's plan folder."""
    from ..plan_install import check_policy_file, install_policy_file
    from ..plans.text import plan_clauses, policy_source
    from ..plans.loading import load_policy_file
    from ..inputs.sanitize import plain_text  # file names and a plan's version: one line each, inert

    if not args.id:
        raise XlmodelError(f"policies {args.action} 需要规划文件 policies {args.action} needs a policy FILE")
    if args.action == "install":
        target, text, wrote = install_policy_file(args.id, force=args.force)
        p = load_policy_file(target)
        what = "已安装 installed" if wrote else "已安装过，内容相同 already installed, the same"
        print(plain_text(f"{what}: {p.id} v{p.version} -> {target}" + (f" (plan text {text})" if text else "")))
        print(f"案例、批量行或工作簿现可用其 ID 引用 a case, batch row or workbook now names it by its id: policy: {p.id}")
        given = load_policy_file(args.id).text
        if text is not None and given != p.text:
            print(plain_text(f"注意 Note: 规划原文安装为 {p.text}，为该规划独有 — the plan text is installed as {p.text}, "
                             f"its own (the file names {given}; the installed copy's `text:` names {p.text})"),
                  file=sys.stderr)
        return EXIT_OK
    checked = check_policy_file(args.id)
    p, m = checked.policy, checked.model
    text = (f"; 规划原文 plan text {policy_source(p).text_path} ({len(plan_clauses(p))} clauses, every quote found)" if p.text
            else "; 无规划原文（未核对引文）no plan text (quotes not checked)")
    print(plain_text(f"{args.id}: 规划文件有效 valid policy {p.id} v{p.version} — {len(p.rules)} rules, {len(m.params)} parameters"
                     f"{text}" + (f"; with the regulatory baseline {m.baseline.id}" if m.baseline else "")))
    for note in checked.notes:
        print(f"注意 Note: {plain_text(note)}", file=sys.stderr)
    return EXIT_OK
