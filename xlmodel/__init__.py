"""xlmodel: shareholder dividend return plans (股东分红回报规划) as data, an evaluator and Excel models.

The names below are imported when first used (PEP 562), so that ``import xlmodel`` and the
command line's ``--help`` do not load numpy, pandas or pydantic before a command needs them.
"""

import os as _os

__version__ = "0.1.0"

# python-docx (the Word documents) brings lxml, and openpyxl switches its XML backend to lxml wherever lxml is
# installed: its reading of an untrusted workbook (bounded and defused as xlmodel/inputs/untrusted.py proves
# it on the standard library's parser) and its writing (custom properties Gnumeric then no longer reads) would
# change with a dependency of a dependency. xlmodel keeps openpyxl on the one backend it was proven on.
_os.environ.setdefault("OPENPYXL_LXML", "False")

#: public name -> module it lives in
_LAZY = {
    "Case": "case", "load_case": "case", "parse_case": "case",
    "CaseError": "errors", "PolicyError": "errors", "XlmodelError": "errors",
    "evaluate": "evaluator", "plan": "planner",
    "list_plans_or_raise": "plans.loading", "load_policy": "plans.loading",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'xlmodel' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


def evaluate_batch(df, policy=None):
    """Evaluate a DataFrame of company-years; see :mod:`xlmodel.batch.evaluate`."""
    from .batch.evaluate import evaluate_batch as _eb

    return _eb(df, policy=policy)


__all__ = ["Case", "CaseError", "PolicyError", "XlmodelError", "evaluate", "evaluate_batch",
           "list_plans_or_raise", "load_case", "load_policy", "parse_case", "plan", "__version__"]
