"""The profit distribution announcement (利润分配方案（预案）公告, issue 50).

What a board secretary's office types each year from the annual report, read from the model: the
proposal (每10股派发现金红利 X 元（含税） on the base of the total shares less the shares in the buyback
account), the exchange's table of 现金分红方案指标 in each board's own form (本年度 / 上年度 / 上上年度), whether the
plan could trigger the low-dividend risk warning, and the sentences the announcement needs.

Every figure is a value of the model's trees (the regulatory baseline's ``reg_st_low_dividend.*`` and
``proposal.*`` calculations, :mod:`xlmodel.rules.catalogue`): nothing here recomputes a rule. Modules:
:mod:`.figures` (an evaluated case → :class:`.figures.Figures`), :mod:`.table` (the table per board),
:mod:`.sentences`, :mod:`.render` (Markdown, JSON, Word) and :mod:`xlmodel.commands.announce`
(``xlmodel announce``); :mod:`.rows` is the table as data (its
lines, labels and calculations), which the workbook's 公告 sheet reads too. The package imports nothing
itself, so that the sheet's import of :mod:`.rows` pulls in nothing else.
"""
