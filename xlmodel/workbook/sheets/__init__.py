"""One module per sheet of the workbook, each with a ``write(b)`` that writes its sheet from the builder
(:class:`xlmodel.workbook.builder.Builder`: the model, case, layout, values, styles and shared helpers).

:data:`xlmodel.workbook.writer.SHEET_WRITERS` lists them in the order they are written; a new sheet is a
module here and its entry there.
"""
