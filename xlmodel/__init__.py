"""xlmodel: shareholder dividend return plans (股东分红回报规划) as data, an evaluator and Excel models."""

__version__ = "0.1.0"

from .case import Case, load_case, parse_case  # noqa: E402
from .errors import CaseError, PolicyError, XlmodelError  # noqa: E402
from .evaluator import evaluate  # noqa: E402
from .policy import list_policies, load_policy  # noqa: E402


def evaluate_batch(df, policy=None):
    """Evaluate a DataFrame of company-years; see :mod:`xlmodel.batch`."""
    from .batch import evaluate_batch as _eb

    return _eb(df, policy=policy)


__all__ = ["Case", "CaseError", "PolicyError", "XlmodelError", "evaluate", "evaluate_batch",
           "list_policies", "load_case", "load_policy", "parse_case", "__version__"]
