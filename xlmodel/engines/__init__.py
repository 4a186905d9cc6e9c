"""Spreadsheet engines: recalculating workbooks in Excel, LibreOffice and Gnumeric, parity with the evaluator, the selftest."""
