"""Write a policy (and optionally a case) as a formula-backed .xlsx with XlsxWriter.

Every calculation and check cell is a native formula rendered from the model's
expression trees, with its value cached (computed by the evaluator on the same
inputs), so a viewer that never recalculates still shows the right numbers.

:class:`WorkbookBuilder` composes the sheets: each is a module of :mod:`xlmodel.workbook.sheets`
(its ``write(b)`` writes it from the builder's shared state, :class:`.builder.Builder`), listed in
:data:`SHEET_WRITERS`; a new sheet is a module there and an entry here.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import xlsxwriter
from xlsxwriter.exceptions import XlsxWriterException

from .. import __version__
from ..case import Case
from ..errors import XlmodelError
from ..inputs.files import atomic_write, check_output, save_xlsx
from ..plans.schema import Policy
from ..plans.loading import load_policy
from .builder import MIN_PRINT_SCALE, PAGE_WIDTH, Builder
from .checked_sheet import MAX_FORMULA, MAX_TEXT, CheckedWorksheet, text_units
from .layout import INPUT_SECTIONS, YES_NO_OUTPUTS
from .sheets import announcement, calculations, checks, cover, inputs, lists, parameters, planning, plantext, summary
from .sheets.calculations import GUARDED_ROWS
from .sheets.cover import COVER_COLS, PORTRAIT_WIDTH
from .sheets.inputs import PROMPT_TEXT, PROMPT_TITLE, UNREAD_NOTE
from .sheets.parameters import PLAN_VALUE_COL
from .sheets.summary import CHART_ROWS
from .styles import DATE, FONT, MONEY, PCT, YES_NO, Styles, row_height

__all__ = ["SHEET_WRITERS", "WorkbookBuilder", "build_workbook",
           # the names this module had before the sheets were modules of their own (their homes: see the imports)
           "CHART_ROWS", "COVER_COLS", "DATE", "FONT", "GUARDED_ROWS", "MAX_FORMULA", "MAX_TEXT", "MIN_PRINT_SCALE", "MONEY",
           "PAGE_WIDTH", "PCT", "PLAN_VALUE_COL", "PORTRAIT_WIDTH", "PROMPT_TEXT", "PROMPT_TITLE", "UNREAD_NOTE", "YES_NO",
           "YES_NO_OUTPUTS", "CheckedWorksheet", "row_height", "text_units"]

#: the sheets' writers, in the order they are written (which is not the order of the tabs, layout.SHEETS:
#: the lists and inputs first, the cover, which sums up the others, last). The order also fixes the file's
#: shared strings and formats: a new sheet goes where it writes nothing an earlier one would move.
SHEET_WRITERS = (lists.write, inputs.write, parameters.write, calculations.write, checks.write, summary.write,
                 planning.write, plantext.write, announcement.write, cover.write)


class WorkbookBuilder(Builder):
    """One workbook: the model's sheets (:data:`SHEET_WRITERS`), its properties, the UDF sheets when asked."""

    def write(self, path: Path) -> None:
        wb = self.compose(path)
        save_xlsx(wb, self.target or path)  # disk full, permissions: the target named, never the temporary file

    def compose(self, path: Path | None = None) -> xlsxwriter.Workbook:
        """Every sheet, property and validation written into an XlsxWriter workbook, not yet saved
        (:meth:`write` saves it; :func:`.compare._reference` reads the cells straight from it)."""
        wb = xlsxwriter.Workbook(str(path or "unsaved.xlsx"), {
            "strings_to_numbers": False, "strings_to_formulas": False, "strings_to_urls": False,
            "in_memory": True})  # no stray temp files
        wb.worksheet_class = CheckedWorksheet  # every sheet, the UDF sheets too: nothing truncated silently
        self._unread = {f for _, _, fids in INPUT_SECTIONS for f in fids} - self.model.read_fields()
        self._start(wb, Styles(wb))
        for write_sheet in SHEET_WRITERS:
            write_sheet(self)
        self._properties()
        if self.udf:
            from .udf_sheet import add_udf_sheets

            add_udf_sheets(self)
        self._write_validations()
        self._finish_sheets()
        return wb

    def _finish_sheets(self) -> None:
        """Every model sheet printed, without gridlines, footed and protected (no password); the cover
        first when the file opens."""
        for key, ws in self.ws.items():
            self._print_setup(ws)
            ws.hide_gridlines(2)
            ws.set_footer(f"&L{self.policy.id} v{self.policy.version}&C&A&R第 &P 页")  # numbered per sheet
            if key != "cover":
                ws.protect("", {"format_columns": True, "format_rows": True, "select_locked_cells": True,
                                "select_unlocked_cells": True})
        self.ws["cover"].protect("", {"select_locked_cells": True, "select_unlocked_cells": True})
        self.ws["cover"].activate()

    def prompt(self, fid: str) -> dict:
        """The input message of an input row (:func:`.sheets.inputs.prompt`)."""
        return inputs.prompt(self, fid)

    def _properties(self):
        p = self.policy
        self.wb.set_properties({
            "title": f"{p.title_zh} — 合规模型 {self.year}",
            "subject": f"{p.id} v{p.version}, fiscal year {self.year}",
            "author": "xlmodel", "company": self.subject.company.get("company_name", ""),
            "category": "股东分红回报规划", "keywords": f"xlmodel, {p.id}, dividend",
            "comments": f"Generated by xlmodel {__version__} from policy {p.id} v{p.version}. Formulas recalculate in Excel and LibreOffice.",
        })
        self.wb.set_custom_property("xlmodel_version", __version__)
        self.wb.set_custom_property("xlmodel_policy", p.id)
        self.wb.set_custom_property("xlmodel_policy_version", p.version)
        self.wb.set_custom_property("xlmodel_evaluation_year", str(self.year))
        from .embed import add_properties

        add_properties(self.wb, p)  # the policy file and its plan text travel with the workbook (embed.py)


def build_workbook(out: Path, policy: Policy | str | None = None, case: Case | None = None,
                   evaluation_year: int | None = None, force: bool = False, udf: bool = False,
                   plan_pay: dict[int, float] | None = None, generated: "dt.date | None" = None) -> Path:
    """Write the workbook atomically; refuse to overwrite unless ``force``. ``udf``: add the UDF sheets;
    ``plan_pay``: 测算's proposed amounts, {year: 元} (as ``xlmodel plan --pay``; a workbook read back
    carries its own, :attr:`~xlmodel.workbook.reader.WorkbookRead.plan_pay`); ``generated``: the date the
    cover prints (default: :func:`xlmodel.inputs.files.generated_on`).

    The path is checked before any work (:func:`xlmodel.inputs.files.check_output`); without ``force`` an
    existing file is never replaced, not even one that appears while the workbook is written."""
    out = check_output(out, force=force, suffixes=(".xlsx",))
    if isinstance(policy, Policy):
        pol = policy
    elif policy:
        pol = load_policy(policy)  # the command line / Python API: an id or a path
    else:
        from ..plans.loading import load_plan_by_id

        pol = load_plan_by_id(case.policy)  # a case names its plan by id, never by a path
    builder = WorkbookBuilder(pol, case, evaluation_year, udf=udf)
    builder.target = Path(out)
    builder.plan_pay = dict(plan_pay or {})
    builder.generated = generated
    with atomic_write(out, force=force) as tmp:
        try:
            builder.write(tmp)
        except XlsxWriterException as e:  # an invalid sheet name, a duplicate, …: an error, never half a file
            raise XlmodelError(f"{out}: 无法写出工作簿 cannot write the workbook ({type(e).__name__}: {e})") from None
    return out
