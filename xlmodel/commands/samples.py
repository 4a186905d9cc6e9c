"""`xlmodel samples`: evaluate the bundled sample cases and build their workbooks."""

from __future__ import annotations

from ..errors import XlmodelError
from ..inputs.files import check_output
from ..inputs.sanitize import plain_text


def bundled_samples():
    """The sample cases that come with xlmodel: ``samples/`` beside the package in a source tree,
    else the copy an installed wheel carries (``xlmodel/samples``); None when neither has any."""
    from pathlib import Path

    package = Path(__file__).resolve().parents[1]
    for folder in (package.parent / "samples", package / "samples"):
        if folder.is_dir() and any(folder.glob("*.yaml")):
            return folder
    return None


def cmd_samples(args) -> int:
    """Evaluate every bundled sample case and build its workbook into --out (never over an
    existing file without --force)."""
    from pathlib import Path

    from ..case import load_case
    from ..errors import OutputExistsError
    from ..evaluator import evaluate
    from ..report.terminal import render_table
    import datetime as dt
    import os

    from ..workbook.builder import SAMPLES_DATE
    from ..workbook.writer import build_workbook

    if args.dir is None:
        src = bundled_samples()
        if src is None:
            package = Path(__file__).resolve().parents[1]
            raise XlmodelError(f"找不到内置样例案例 no bundled sample cases found (neither {package.parent / 'samples'} nor "
                               f"{package / 'samples'} has *.yaml files); pass --dir FOLDER")
    else:
        src = Path(args.dir)
    cases = sorted(src.glob("*.yaml"))
    if not cases:
        raise XlmodelError(f"{src} 中没有样例案例（*.yaml）no sample cases (*.yaml) in {src}")
    out = Path(args.out)
    existing = []
    for path in cases:  # every target checked before any work; all existing ones named at once
        try:
            check_output(out / f"{path.stem}.xlsx", force=args.force, suffixes=(".xlsx",))
        except OutputExistsError:
            existing.append(str(out / f"{path.stem}.xlsx"))
    if existing:
        raise OutputExistsError(f"{len(cases)} 个工作簿中已有 {len(existing)} 个存在，如要覆盖请加 --force — "
                                f"{len(existing)} of the {len(cases)} workbooks exist; pass --force to overwrite them, "
                                f"or choose another --out folder:\n" + "\n".join(f"  - {plain_text(e)}" for e in existing))
    done = []
    for path in cases:
        case = load_case(path)
        rep = evaluate(case)
        target = out / f"{path.stem}.xlsx"
        # the samples' own date on their covers (SOURCE_DATE_EPOCH's where set): a rebuilt sample is the committed one
        generated = None if os.environ.get("SOURCE_DATE_EPOCH") else dt.date.fromisoformat(SAMPLES_DATE)
        build_workbook(target, case=case, force=args.force, generated=generated)
        if args.verbose:  # each sample's full report, as before 51.5
            print(render_table(rep))
            print(f"已写入 -> {plain_text(target)}\n")
        done.append((rep, target))
    if not args.verbose:
        print("\n".join(sample_lines(done)))
    return 0


def sample_lines(done: list) -> list[str]:
    """The samples in one screen: each sample's verdict, company, year, minimum and workbook on one line, then
    where the details are (51.5: the full reports were ~350 lines)."""
    from ..rules.model import STATUS_EN, STATUS_ZH
    from ..outputs import OUTPUT
    from ..report import _fmt

    lines = [f"样例 Samples：已评估 {len(done)} 个样例案例并写出其工作簿 {len(done)} sample cases evaluated, workbooks written"]
    for rep, target in done:
        who = plain_text(f"{rep.company.get('stock_code', '')} {rep.company.get('company_name', '')}".strip())
        counts = f"不通过 {rep.fail_count} / 警告 {rep.warn_count} / 缺少输入 {rep.missing_input_count}"
        lines.append(f"  {STATUS_ZH[rep.overall_status]} {STATUS_EN[rep.overall_status]}  {who}  {rep.evaluation_year} 年"
                     f"  {counts}  {OUTPUT['min_cash_dividend'].zh} {_fmt(rep.min_cash_dividend, '元')} 元")
        lines.append(f"    -> {plain_text(target)}")
    lines.append("详情 Details：xlmodel samples -v（每个样例的完整报告 each sample's full report），"
                 "或 xlmodel check 工作簿 (or xlmodel check WORKBOOK)")
    return lines
