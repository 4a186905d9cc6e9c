"""The drafted policy as a YAML file: data by ``yaml.safe_dump`` only, comments made inert.

Nothing from the plan text (or the command line) is written but as a scalar the safe
dumper quotes where needed, or inside a comment with line breaks and control characters
shown as escapes (:func:`xlmodel.inputs.sanitize.plain_text`); the caller parses the result
back and checks it equals the data (:func:`check_round_trip`).
"""

from __future__ import annotations

import yaml

from ..inputs.sanitize import plain_text

_WIDTH = 10**6  # never fold a line: a quote stays one scalar on one line


def comment(text: str) -> str:
    return "# " + plain_text(text).replace("\n", " ") if text else "#"


def _dump(data) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=_WIDTH, default_flow_style=False)


def _flow_line(key: str, value: dict) -> str:
    """``key: {a: 1, b: [x]}`` on one line, by the safe dumper."""
    text = yaml.safe_dump({key: value}, allow_unicode=True, sort_keys=False, width=_WIDTH, default_flow_style=True).strip()
    assert text.startswith("{") and text.endswith("}")
    return text[1:-1]


_SUGGESTED = ("---- 待复核的建议写法 SUGGESTED RULES for the review items above. Each is valid as it stands: to use one, delete "
              "the \"# \" before its lines (keep the two spaces), edit the values to what the text says, then run "
              "`xlmodel policies check` on this file ----")


def render(policy: dict, header: list[str], rule_comments: dict[str, str], clause_comments: dict[str, list[str]],
           suggested=()) -> str:
    """The file: header comments, then the data by the safe dumper, and under ``rules:`` the suggested rules
    of the review items, commented out so that deleting ``# `` makes each a rule of the list."""
    out = [comment(h) for h in header]
    for key, value in policy.items():
        if key == "rules":
            out.append("")
            out.append("rules:")
            last = None
            for rule in value:
                if rule["clause"] != last:
                    out.append(f"  {comment('---- ' + rule['clause'] + ' ----')}")
                    last = rule["clause"]
                for line in rule_comments.get(rule["id"], "").splitlines():
                    out.append("  " + comment(line))
                out.extend("  " + line for line in _dump([rule]).splitlines())
            if suggested:
                out.append("  " + comment(_SUGGESTED))
            for where, reason, rule in suggested:
                out.append("  " + comment(f"{where}: {reason}"))
                out.extend("  " + comment(line) for line in _dump([rule]).splitlines())
        elif key == "clauses":
            out.append("")
            out.append("clauses:")
            for cid, entry in value.items():
                for line in clause_comments.get(cid, []):
                    out.append("  " + comment(line))
                out.append("  " + _flow_line(cid, entry))
        elif key in ("settings", "major_outlay", "company", "review"):
            out.extend(_dump({key: value}).splitlines())
        else:
            out.append(_flow_line(key, value) if isinstance(value, (dict, list)) else _dump({key: value}).strip())
    return "\n".join(out) + "\n"


def check_round_trip(text: str, policy: dict) -> None:
    """The file parses (with the loader xlmodel reads policies with) to exactly the data it was made from."""
    from ..inputs.untrusted import PlainIntLoader, load_yaml

    back = load_yaml(text, "draft", quote_problem=False, loader_class=PlainIntLoader)
    if _plain(back) != _plain(policy):
        raise AssertionError("the drafted YAML does not read back as the data it was written from")


def _plain(v):
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return float(v)
    return str(v)
