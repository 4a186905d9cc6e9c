"""Batch evaluation of a table of company-years: evaluation, output files, column names."""
