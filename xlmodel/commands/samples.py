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
    from ..report import render_table
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
    for path in cases:
        case = load_case(path)
        rep = evaluate(case)
        target = out / f"{path.stem}.xlsx"
        build_workbook(target, case=case, force=args.force)
        print(render_table(rep))
        print(f"已写入 -> {plain_text(target)}\n")
    return 0
