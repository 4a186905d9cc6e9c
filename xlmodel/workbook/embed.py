"""A workbook carries its plan: the policy file and its plan text, inside the workbook.

So that ``xlmodel check`` and ``xlmodel refresh`` work where the plan is not installed (a
custom plan sent with the workbook), the writer packs the policy file's source text and its
plan text into the workbook's custom document properties:

* ``xlmodel_plan_format`` (``1``), ``xlmodel_plan_sha256`` (of the unpacked payload) and
  ``xlmodel_plan_parts`` (N);
* ``xlmodel_plan_0001`` … ``xlmodel_plan_N``: the payload (JSON: ``policy_file``, ``policy``,
  ``text_file``, ``text``), zlib-compressed and base64-encoded, in parts of at most 240
  characters (Excel keeps a text property up to 255 characters).

Properties are used rather than a sheet: the reader takes inputs from visible sheets only, and
a hidden sheet is refused; properties need no sheet and survive Excel's save.

Reading back treats the workbook as untrusted: the number of parts, their length and alphabet,
the packed and unpacked sizes are bounded (:mod:`xlmodel.inputs.untrusted` limits), the checksum must
match, the payload is parsed with the bounded JSON reader and the policy with the same safe YAML
loader and schema as a policy file (:func:`xlmodel.plans.loading.policy_from_workbook`).

Which plan a workbook is read with (:func:`workbook_plan`):

* nothing carried (a workbook of an earlier xlmodel): the installed plan, as before;
* carried, not installed here: the carried plan, and a note saying so;
* carried and installed in another version: the installed plan (``check`` says to refresh);
* carried and installed in the same version and the same: the installed plan;
* carried and installed in the same version but different: ``check`` refuses (exit 2), naming
  both and what differs; ``refresh`` (whose job is to rebuild with the installed plan) uses the
  installed plan and says what differed.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import zlib
from dataclasses import dataclass

from ..errors import AmbiguousPolicyError, PolicyError, UnknownPolicyError, XlmodelError
from ..plans.schema import Policy
from ..plans.text import policy_source
from ..plans.loading import POLICY_ID, find_plan, load_plan_by_id, policy_from_workbook
from ..inputs.untrusted import (MAX_EMBEDDED_PLAN_BYTES, MAX_EMBEDDED_PLAN_CHARS, MAX_EMBEDDED_PLAN_PARTS,
                                MAX_PLAN_TEXT_BYTES, MAX_POLICY_BYTES, load_json, shown)

FORMAT = "1"
PROP_FORMAT, PROP_SHA, PROP_PARTS = "xlmodel_plan_format", "xlmodel_plan_sha256", "xlmodel_plan_parts"
PART_PREFIX = "xlmodel_plan_"
PART_CHARS = 240  #: characters per property (Excel keeps text properties up to 255)
_B64 = re.compile(r"[A-Za-z0-9+/=]{1,255}")
_HEX = re.compile(r"[0-9a-f]{64}")


def part_name(i: int) -> str:
    return f"{PART_PREFIX}{i:04d}"


def pack(policy: Policy) -> list[tuple[str, str]]:
    """The custom properties that carry ``policy`` (its file's source and its plan text); none for a
    policy built or changed in code (it has no file to carry)."""
    payload = _payload(policy)
    if payload is None:
        return []
    packed = base64.b64encode(zlib.compress(payload, 9)).decode("ascii")
    parts = [packed[i:i + PART_CHARS] for i in range(0, len(packed), PART_CHARS)]
    if len(parts) > MAX_EMBEDDED_PLAN_PARTS:  # a policy file within MAX_POLICY_BYTES never gets here
        return []
    return ([(PROP_FORMAT, FORMAT), (PROP_SHA, hashlib.sha256(payload).hexdigest()), (PROP_PARTS, str(len(parts)))]
            + [(part_name(i + 1), p) for i, p in enumerate(parts)])


def _payload(policy: Policy) -> bytes | None:
    src = policy_source(policy, unchanged=True)  # a copy changed in code is not its file: nothing carried
    if src is None:
        return None
    return json.dumps({"policy_file": src.file_name or f"{policy.id}.yaml", "policy": src.yaml,
                       "text_file": src.text_ref, "text": src.text}, ensure_ascii=False).encode("utf-8")


def add_properties(wb, policy: Policy) -> None:
    """Write the properties of :func:`pack` into an XlsxWriter workbook (from the writer's ``_properties``)."""
    for name, value in pack(policy):
        wb.set_custom_property(name, value, "text")


@dataclass(frozen=True)
class Carried:
    """The plan a workbook carries, unpacked and checked (not yet validated as a policy)."""

    policy_file: str
    yaml: str
    text_file: str | None
    text: str | None
    sha256: str


class CarriedPlanError(XlmodelError):
    """The plan a workbook carries cannot be read (damaged, edited, or too big)."""


def unpack(props: dict[str, str], source: str) -> Carried | None:
    """The plan carried in a workbook's custom properties, or None when it carries none."""
    if PROP_PARTS not in props and PROP_SHA not in props:
        return None

    def bad(message: str) -> CarriedPlanError:
        return CarriedPlanError(f"{source}: 工作簿自带的规划无法读取 the plan the workbook carries {message}")

    if props.get(PROP_FORMAT) != FORMAT:
        raise bad(f"is in a format this xlmodel does not read ({PROP_FORMAT} {shown(props.get(PROP_FORMAT), 20)})")
    n_text, sha = props.get(PROP_PARTS, ""), props.get(PROP_SHA, "")
    if not (n_text.isascii() and n_text.isdigit() and 1 <= len(n_text) <= 5) or not 1 <= int(n_text) <= MAX_EMBEDDED_PLAN_PARTS:
        raise bad(f"has an invalid number of parts ({PROP_PARTS} {shown(n_text, 20)}; at most {MAX_EMBEDDED_PLAN_PARTS})")
    if not _HEX.fullmatch(sha):
        raise bad(f"has no valid checksum ({PROP_SHA})")
    n = int(n_text)
    chunks, total = [], 0
    for i in range(1, n + 1):
        part = props.get(part_name(i))
        if part is None:
            raise bad(f"is incomplete: the property {part_name(i)} is missing")
        if not _B64.fullmatch(part):
            raise bad(f"is damaged: the property {part_name(i)} is not a base64 text of at most 255 characters")
        total += len(part)
        if total > MAX_EMBEDDED_PLAN_CHARS:
            raise bad(f"is larger than a plan can be ({MAX_EMBEDDED_PLAN_CHARS:,} characters packed); refusing to read")
        chunks.append(part)
    try:
        packed = base64.b64decode("".join(chunks), validate=True)
        z = zlib.decompressobj()
        payload = z.decompress(packed, MAX_EMBEDDED_PLAN_BYTES)
        if z.unconsumed_tail:
            raise bad(f"unpacks to more than a plan can be ({MAX_EMBEDDED_PLAN_BYTES // 2**20} MB); refusing to read")
        if not z.eof:
            raise bad("is damaged (truncated)")
    except (binascii.Error, zlib.error, ValueError):
        raise bad("is damaged (not a packed plan)") from None
    if hashlib.sha256(payload).hexdigest() != sha:
        raise bad("does not match its checksum (damaged or edited)")
    try:
        data = load_json(payload.decode("utf-8"), source)
    except (UnicodeDecodeError, XlmodelError):
        raise bad("is damaged (not the expected contents)") from None
    keys = {"policy_file": str, "policy": str, "text_file": (str, type(None)), "text": (str, type(None))}
    if not isinstance(data, dict) or set(data) != set(keys) or not all(isinstance(data[k], t) for k, t in keys.items()):
        raise bad("is damaged (not the expected contents)")
    if len(data["policy"].encode("utf-8")) > MAX_POLICY_BYTES or \
            (data["text"] is not None and len(data["text"].encode("utf-8")) > MAX_PLAN_TEXT_BYTES):
        raise bad("is larger than a policy file or plan text can be; refusing to read")
    name = data["policy_file"]
    if len(name) > 120 or any(c in name for c in "/\\\x00"):
        raise bad("is damaged (a policy file name that is not a name)")
    return Carried(name, data["policy"], data["text_file"], data["text"], sha)


# ---- which plan -------------------------------------------------------------------------------------

def _same_text(a: str | None, b: str | None) -> bool:
    norm = (lambda t: None if t is None else "\n".join(line.rstrip() for line in t.replace("\r\n", "\n").split("\n")).strip())
    return norm(a) == norm(b)


def differences(a: Policy, b: Policy, limit: int = 5) -> list[str]:
    """Where two plans differ, as ``path: a-value / b-value`` (rules and lists of ids by id)."""
    out: list[str] = []

    def val(v) -> str:
        return shown(v, 60)

    def walk(x, y, where: str):
        if len(out) >= limit:
            return
        if isinstance(x, dict) and isinstance(y, dict):
            for k in list(x) + [k for k in y if k not in x]:
                if k not in x or k not in y:
                    out.append(f"{where}{'.' if where else ''}{k}: {'only in the workbook' if k in x else 'only installed'}")
                else:
                    walk(x[k], y[k], f"{where}{'.' if where else ''}{k}")
                if len(out) >= limit:
                    return
        elif isinstance(x, list) and isinstance(y, list) and all(isinstance(e, dict) and "id" in e for e in x + y):
            walk({e["id"]: e for e in x}, {e["id"]: e for e in y}, where)
        elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            for i, (e, f) in enumerate(zip(x, y)):
                walk(e, f, f"{where}[{i}]")
        elif x != y:
            out.append(f"{where}: workbook {val(x)}, installed {val(y)}")

    # the plan text is compared by its content, not by its file's name (``policies install`` names it texts/<id>.txt)
    walk(a.model_dump(mode="json", exclude={"text"}), b.model_dump(mode="json", exclude={"text"}), "")
    if len(out) < limit and not _same_text(policy_source(a).text if policy_source(a) else None,
                                           policy_source(b).text if policy_source(b) else None):
        out.append("the plan text")
    return out


def workbook_plan(path, props: dict[str, str], pid, *, installed_wins: bool = False) -> tuple[Policy, list[str]]:
    """The plan to read a workbook with, and notes on it (see the module docstring).

    ``pid`` is the workbook's ``xlmodel_policy`` property: an id, never a path; the carried plan
    must be that plan in the version the ``xlmodel_policy_version`` property names. ``installed_wins``
    (refresh): a carried plan that differs from the installed one of the same version is noted,
    and the installed one used; otherwise (check) that is an error naming both."""
    notes: list[str] = []
    unknown = f"{path}: 工作簿所用的规划本机未知 built for policy {shown(pid)}, which this xlmodel does not know"
    if not isinstance(pid, str) or not POLICY_ID.fullmatch(pid):
        try:
            load_plan_by_id(pid)  # says why it is not an id
        except XlmodelError as e:
            raise XlmodelError(f"{unknown} ({e})") from None
    installed = installed_err = None
    try:
        installed = load_plan_by_id(pid)  # the property names a plan by id, never a file
    except AmbiguousPolicyError as e:  # two installed files: trusted neither, nor the carried plan
        raise XlmodelError(f"{path}: 工作簿所用的规划 ID 有歧义 built for policy {pid!r}; {e}") from None
    except UnknownPolicyError as e:
        installed_err = e
    except XlmodelError as e:  # an installed file that does not load: trusted neither
        raise XlmodelError(f"{path}: 已安装的同 ID 规划无法加载 built for policy {pid!r}; the installed plan of that id does not load ({e})") from None
    try:
        carried = unpack(props, str(path))
        mine = _payload(installed) if installed is not None and carried is not None else None
        if mine is not None and hashlib.sha256(mine).hexdigest() == carried.sha256 \
                and installed.version == props.get("xlmodel_policy_version"):
            return installed, notes  # it carries the installed plan's very file: nothing to compare
        embedded = None if carried is None else policy_from_workbook(carried.yaml, carried.text, str(path),
                                                                     carried.policy_file)
    except (CarriedPlanError, PolicyError) as e:
        if installed is None:
            raise XlmodelError(f"{unknown} ({installed_err}), and {e}") from None
        notes.append(f"{e}; read with the installed plan {pid} v{installed.version}")
        return installed, notes
    if embedded is None:
        if installed is None:
            raise XlmodelError(f"{unknown} ({installed_err})") from None
        return installed, notes
    built_version = props.get("xlmodel_policy_version", "")
    if embedded.id != pid or embedded.version != built_version:
        what = (f"is {embedded.id!r}" if embedded.id != pid
                else f"is v{embedded.version}, the property xlmodel_policy_version says v{built_version}")
        if installed is None:
            raise XlmodelError(f"{path}: 工作簿自带的规划与其属性不符（工作簿被改动）built for policy {pid!r}, "
                               f"but the plan the workbook carries {what} "
                               f"(the workbook was edited); {installed_err}") from None
        notes.append(f"the plan the workbook carries {what} (the workbook was edited): it is ignored; read with the "
                     f"installed plan {pid} v{installed.version}")
        return installed, notes
    sha = carried.sha256[:12]
    if installed is None:
        notes.append(f"plan {pid} v{embedded.version} is not installed here: read with the plan the workbook carries "
                     f"({carried.policy_file}, sha256 {sha}…); `xlmodel policies install` puts your copy of it in "
                     "your plan folder")
        return embedded, notes
    if installed.version != embedded.version:
        return installed, notes  # a plan of another version: the reader says to refresh
    diff = differences(embedded, installed)
    if not diff:
        return installed, notes
    where = find_plan(pid)
    both = (f"the workbook carries plan {pid} v{embedded.version} ({carried.policy_file}, sha256 {sha}…), which differs "
            f"from the installed {pid} v{installed.version} ({where.path}, {where.folder.origin}) in "
            + "; ".join(diff))
    if installed_wins:
        notes.append(f"{both}; the new workbook is built with the installed plan")
        return installed, notes
    raise XlmodelError(f"{path}: 工作簿自带的规划与已安装的规划不同，xlmodel 两者都不默认采信 — {both}. "
                       "xlmodel trusts neither silently: a plan that changes needs a new version. "
                       "`xlmodel refresh` rebuilds the workbook with the installed plan; if the workbook's plan is the "
                       "adopted one, give it a new version and install it (`xlmodel policies install`)")
