"""Issue 26.2: the reference formulas of ``xlmodel check`` kept in the user's cache folder
(xlmodel/workbook/reference_cache.py), and never a reference that is stale, damaged or not what
xlmodel writes.

* What a later run reads from the cache is exactly what composing the reference gives (every plan's
  sample), and a run that reads it still finds a formula changed in the file.
* A cache file that is not JSON, of another digest or layout, with a value of the wrong type, a link,
  or too large is ignored: the reference is composed afresh and the file replaced.
* The digest changes with the plan, the timeline and xlmodel's code (a file two folders down too);
  ``XLMODEL_NO_CACHE=1`` keeps nothing; at most ``MAX_FILES`` references are kept.
* Issue 48: a reference is used only from the user's own private folder and when its MAC checks under
  the user's key (item 7: a formula edited in the cache is found in the workbook all the same); pruning
  removes only files xlmodel wrote, never through a link (item 6); the digest changes with the
  regulatory baseline's content (item 9). The damaged files below are sealed with the user's key (as
  if xlmodel had written them): what the MAC lets through is still checked.
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from pathlib import Path

import pytest

from xlmodel import evaluator
from xlmodel.caches import user_cache
from xlmodel.evaluator import model_for
from xlmodel.workbook import reader, reference_cache
from xlmodel.workbook.compare import _REFERENCES, _compose_reference, _reference_key
from xlmodel.workbook.layout import SHEETS, Layout
from xlmodel.workbook.reader import read_workbook
from xlmodel.workbook.writer import WorkbookBuilder

REPO = Path(__file__).resolve().parents[1]
SAMPLES = sorted((REPO / "samples").glob("*.xlsx"))
GCL = REPO / "samples" / "gcl-energy-2022-2024.xlsx"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty user cache folder of this test's own, nothing of the reference kept in the process."""
    monkeypatch.setenv("XLMODEL_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.delenv("XLMODEL_NO_CACHE", raising=False)
    _REFERENCES.clear()
    yield tmp_path / "cfg" / "cache" / "references"
    _REFERENCES.clear()


@pytest.fixture
def composes(monkeypatch):
    """The number of reference workbooks composed (a build of the workbook itself counts too)."""
    calls = []
    compose = WorkbookBuilder.compose

    def counting(self, path=None):
        calls.append(path)
        return compose(self, path)

    monkeypatch.setattr(WorkbookBuilder, "compose", counting)
    return calls


def _key(path: Path):
    read = read_workbook(path, check_formulas=False)
    layout = Layout(model_for(read.policy), read.case.evaluation_year)
    return read.policy, layout, read.case.evaluation_year


def _tampered(src: Path, dst: Path) -> tuple[Path, str]:
    """A copy of ``src`` with one ROUND of 计算 made ROUNDDOWN (its cached value left as it was)."""
    part = f"xl/worksheets/sheet{list(SHEETS).index('calc') + 1}.xml"
    cell = {}

    def edit(xml: bytes) -> bytes:
        text = xml.decode("utf-8")
        m = re.search(r'<c r="([A-Z]+[0-9]+)"[^>]*><f>ROUND\(', text)
        cell["at"] = m.group(1)
        return (text[:m.end() - 6] + "ROUNDDOWN(" + text[m.end():]).encode("utf-8")

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            zout.writestr(info.filename, edit(data) if info.filename == part else data)
    return dst, f"{SHEETS['calc']}!{cell['at']}:"


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_the_reference_kept_is_the_one_composed(cache, composes, sample):
    assert read_workbook(sample).tampered == []
    assert len(composes) == 1 and len(list(cache.glob("*.json"))) == 1
    policy, layout, year = _key(sample)
    key = _reference_key(policy, layout, year)
    kept = reference_cache.load(key)
    names, formulas, keys = _compose_reference(policy, layout, year)
    assert kept == (names, formulas, keys)
    assert sum(map(len, formulas.values())) > 100  # the formulas of the model, not an empty shell
    _REFERENCES.clear()  # as a new process
    assert read_workbook(sample).tampered == [] and len(composes) == 2  # the one just composed by hand, no other


def test_a_run_that_reads_the_cache_still_finds_a_changed_formula(cache, tmp_path, monkeypatch):
    assert read_workbook(GCL).tampered == []  # composes and keeps the reference
    _REFERENCES.clear()

    def refuse(self, path=None):
        raise AssertionError("composed although kept")

    monkeypatch.setattr(WorkbookBuilder, "compose", refuse)
    bad, where = _tampered(GCL, tmp_path / "tampered.xlsx")
    tampered = read_workbook(bad).tampered
    assert len(tampered) == 1 and tampered[0].startswith(where), tampered
    assert read_workbook(GCL).tampered == []


def _opened(path: Path) -> dict | None:
    """A reference file's content, its MAC checked under the user's key (None: it does not check)."""
    content = user_cache.opened(user_cache.cache_key(), f"references/{path.name}", path.read_bytes())
    return None if content is None else json.loads(content)


def _seal(path: Path, content) -> None:
    """``path`` holds ``content`` (a dict as JSON, or bytes), sealed under the user's key as xlmodel seals."""
    data = content if isinstance(content, bytes) else json.dumps(content).encode("ascii")
    path.write_bytes(user_cache.sealed(user_cache.cache_key(), f"references/{path.name}", data))


def _valid_file(cache: Path) -> tuple[Path, dict]:
    read_workbook(GCL)
    (path,) = cache.glob("*.json")
    _REFERENCES.clear()
    return path, _opened(path)


def _first_sheet_with_formulas(data: dict) -> str:
    return next(n for n in data["sheetnames"] if data["formulas"][n])


DAMAGE = {
    "not_json": lambda p, d: _seal(p, b"\x00not json"),
    "empty": lambda p, d: p.write_bytes(b""),
    "another_digest": lambda p, d: _seal(p, {**d, "digest": "0" * 64}),
    "another_format": lambda p, d: _seal(p, {**d, "format": 0}),
    "a_list": lambda p, d: _seal(p, [d]),
    "formula_without_equals": lambda p, d: _seal(p,
        {**d, "formulas": {**d["formulas"], (s := _first_sheet_with_formulas(d)): [[1, 1, "1+1"]] + d["formulas"][s]}}),
    "row_as_text": lambda p, d: _seal(p,
        {**d, "formulas": {**d["formulas"], (s := _first_sheet_with_formulas(d)): [["1", 1, "=1"]]}}),
    "key_not_text": lambda p, d: _seal(p, {**d, "keys": {**d["keys"], d["sheetnames"][0]: [[1, 7]]}}),
    "a_sheet_fewer": lambda p, d: _seal(p, {**d, "sheetnames": d["sheetnames"][1:]}),
    "unsealed": lambda p, d: p.write_text(json.dumps(d)),  # the very reference, as an xlmodel before issue 48 kept it
    "sealed_with_another_key": lambda p, d: p.write_bytes(user_cache.sealed(bytes(32), f"references/{p.name}",
                                                                            json.dumps(d).encode("ascii"))),
    "another_files_seal": lambda p, d: p.write_bytes(user_cache.sealed(user_cache.cache_key(), "references/" + "0" * 64
                                                                       + ".json", json.dumps(d).encode("ascii"))),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_cache_file_is_ignored_and_replaced(cache, composes, damage):
    path, data = _valid_file(cache)
    DAMAGE[damage](path, data)
    composes.clear()
    assert read_workbook(GCL).tampered == []
    assert len(composes) == 1  # composed afresh
    assert _opened(path) == data  # and kept again as xlmodel writes it


def test_a_link_or_a_file_too_large_is_not_read(cache, composes, tmp_path, monkeypatch):
    path, data = _valid_file(cache)
    elsewhere = tmp_path / "elsewhere.json"
    path.rename(elsewhere)
    path.symlink_to(elsewhere)  # the very reference, but through a link: not read
    composes.clear()
    assert read_workbook(GCL).tampered == [] and len(composes) == 1
    assert not path.is_symlink()  # replaced by a file of its own
    _REFERENCES.clear()
    monkeypatch.setattr(reference_cache, "MAX_FILE_BYTES", len(json.dumps(data, separators=(",", ":"))) - 1)
    assert read_workbook(GCL).tampered == [] and len(composes) == 2  # too large to read (and to keep)


def test_the_digest_changes_with_the_plan_and_the_timeline(cache):
    """A reference is kept per plan content and timeline: a plan of other content never reads another's."""
    policy, layout, year = _key(GCL)
    other = policy.model_copy(update={"rules": policy.rules[:-1]})
    a = reference_cache._digest(_reference_key(policy, layout, year))
    b = reference_cache._digest(_reference_key(other, layout, year))
    wider = Layout(layout.model, year, layout.first_year - 1, layout.n_years + 1, layout.n_eval)
    c = reference_cache._digest(_reference_key(policy, wider, year))
    assert len({a, b, c}) == 3


def test_the_digest_changes_with_xlmodels_code(tmp_path, monkeypatch):
    code = tmp_path / "xlmodel"
    (code / "workbook" / "sheets").mkdir(parents=True)
    leaf = code / "workbook" / "sheets" / "cover.py"
    leaf.write_text("X = 1\n")
    monkeypatch.setattr(reference_cache, "PACKAGE", code)
    reference_cache._code_fingerprint.cache_clear()
    try:
        before = reference_cache._digest(("k",))
        leaf.write_text("X = 22\n")  # a sheet's module, two folders down
        reference_cache._code_fingerprint.cache_clear()
        after = reference_cache._digest(("k",))
        assert before != after
        (code / "__pycache__").mkdir()  # compiled copies are not the code
        (code / "__pycache__" / "x.pyc").write_bytes(b"")
        reference_cache._code_fingerprint.cache_clear()
        assert reference_cache._digest(("k",)) == after
    finally:
        reference_cache._code_fingerprint.cache_clear()


def test_no_cache_keeps_nothing(cache, composes, monkeypatch):
    monkeypatch.setenv("XLMODEL_NO_CACHE", "1")
    assert read_workbook(GCL).tampered == []
    _REFERENCES.clear()
    assert read_workbook(GCL).tampered == []
    assert len(composes) == 2 and not cache.exists()


def test_at_most_max_files_are_kept(cache, monkeypatch):
    monkeypatch.setattr(reference_cache, "MAX_FILES", 2)
    ref = (["s"], {"s": [(1, 1, "=1")]}, {"s": {1: "top"}})
    for i in range(3):
        reference_cache.store((f"plan {i}",), ref)
        path = cache / f"{reference_cache._digest((f'plan {i}',))}.json"
        os.utime(path, ns=(10**18 + i, 10**18 + i))  # in order, whatever the clock's resolution
    kept = sorted(p.name for p in cache.glob("*.json"))
    assert len(kept) == 2 and f"{reference_cache._digest(('plan 0',))}.json" not in kept
    assert reference_cache.load(("plan 2",)) == ref and reference_cache.load(("plan 0",)) is None


# ---- issue 48, item 7: a poisoned cache never hides a changed formula ------------------------------------

def _poisoned(data: dict, where: str) -> dict:
    """``data`` with the formula at ``where`` (``计算!E17:``) made ROUNDDOWN, as :func:`_tampered` makes the
    workbook's: a reference that agrees with the tampered workbook."""
    sheet, cell = where.rstrip(":").split("!")
    col = sum((ord(ch) - 64) * 26 ** i for i, ch in enumerate(reversed(re.match(r"[A-Z]+", cell).group())))
    row = int(re.search(r"[0-9]+", cell).group())
    cells = [list(x) for x in data["formulas"][sheet]]
    (hit,) = [x for x in cells if x[:2] == [row, col]]
    assert hit[2].startswith("=ROUND(")
    hit[2] = "=ROUNDDOWN(" + hit[2][len("=ROUND("):]
    return {**data, "formulas": {**data["formulas"], sheet: cells}}


@pytest.mark.parametrize("how", ["edited_under_the_old_seal", "unsealed", "sealed_in_a_folder_others_may_write",
                                 "sealed_in_a_folder_of_another_users"])
def test_a_formula_edited_in_the_cache_is_still_found_in_the_workbook(cache, composes, tmp_path, how):
    """The workbook has one ROUND made ROUNDDOWN and so has the cached reference; the reference is not used
    (its MAC does not check, or the folder is not the user's own and private): composed afresh, the change found."""
    if how == "sealed_in_a_folder_of_another_users" and (os.name == "nt" or os.geteuid() != 0):
        pytest.skip("only root can give a folder to another user")
    path, data = _valid_file(cache)
    bad, where = _tampered(GCL, tmp_path / "tampered.xlsx")
    poisoned = json.dumps(_poisoned(data, where)).encode("ascii")
    if how == "edited_under_the_old_seal":
        path.write_bytes(path.read_bytes().split(b"\n", 1)[0] + b"\n" + poisoned)
    elif how == "unsealed":
        path.write_bytes(poisoned)
    else:  # sealed under the user's very key: the folder's mode or owner alone decides
        _seal(path, poisoned)
        if how == "sealed_in_a_folder_others_may_write":
            cache.chmod(0o777)
        else:
            os.chown(cache, 4321, 4321)
    composes.clear()
    tampered = read_workbook(bad).tampered
    assert len(tampered) == 1 and tampered[0].startswith(where), tampered
    assert len(composes) == 1  # the reference composed afresh


def test_a_poisoned_reference_in_a_cache_folder_made_by_another_user_is_never_read(tmp_path, monkeypatch):
    """A shared XDG_CACHE_HOME where the xlmodel folder was made by someone else, writable by all: the reference
    there is never read, and nothing is written there."""
    shared = tmp_path / "shared"
    (shared / "xlmodel" / "references").mkdir(parents=True)
    for d in (shared, shared / "xlmodel", shared / "xlmodel" / "references"):
        d.chmod(0o777)
    monkeypatch.delenv("XLMODEL_CONFIG_HOME", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("XLMODEL_NO_CACHE", raising=False)
    _REFERENCES.clear()
    try:
        assert user_cache.cache_folder() == shared / "xlmodel"
        assert user_cache.open_cache("references", create=True) is None
        assert read_workbook(GCL).tampered == []
        assert list((shared / "xlmodel" / "references").iterdir()) == []  # nothing kept there
    finally:
        _REFERENCES.clear()


# ---- issue 48, item 6: pruning removes only what xlmodel wrote, never through a link ---------------------

def _user_files(folder: Path, n: int = 80, names=lambda i: f"user{i}.json") -> dict[str, bytes]:
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for i in range(n):
        p = folder / names(i)
        p.write_bytes(f'{{"mine": {i}}}'.encode("ascii"))
        os.utime(p, ns=(10**15 + i, 10**15 + i))  # older than anything xlmodel keeps
        out[p.name] = p.read_bytes()
    return out


def _store_three(monkeypatch) -> None:
    monkeypatch.setattr(reference_cache, "MAX_FILES", 2)
    ref = (["s"], {"s": [(1, 1, "=1")]}, {"s": {1: "top"}})
    for i in range(3):
        reference_cache.store((f"plan {i}",), ref)


@pytest.mark.skipif(os.name == "nt", reason="POSIX links")
@pytest.mark.parametrize("link", ["references", "cache"])
def test_a_linked_cache_folder_is_never_pruned(cache, monkeypatch, tmp_path, link):
    """The cache folder (or its references folder) a link to a folder of 80 of the user's *.json files:
    not one removed or changed, nothing written there."""
    mine = tmp_path / "mine"
    files = _user_files(mine)
    linked = cache if link == "references" else cache.parent  # cfg/cache/references, or cfg/cache
    linked.parent.mkdir(parents=True, exist_ok=True)
    linked.symlink_to(mine, target_is_directory=True)
    _store_three(monkeypatch)
    assert read_workbook(GCL).tampered == []
    assert {p.name: p.read_bytes() for p in mine.iterdir()} == files


def test_pruning_removes_only_the_files_xlmodel_wrote(cache, monkeypatch):
    """In the user's own private folder: 80 files of the user's, some named as xlmodel names its files (a
    digest), are never removed; of xlmodel's three, the oldest is."""
    files = _user_files(cache, names=lambda i: f"{i:064x}.json" if i % 2 else f"user{i}.json")
    cache.chmod(0o700)
    _store_three(monkeypatch)
    kept = {p.name: p.read_bytes() for p in cache.iterdir()}
    assert {n: kept[n] for n in files} == files
    ours = sorted(set(kept) - set(files))
    assert len(ours) == 2 and f"{reference_cache._digest(('plan 0',))}.json" not in ours


# ---- issue 48, item 9: the regulatory baseline is part of the digest ------------------------------------

def test_an_edited_baseline_gives_another_digest_even_with_its_size_and_times_kept(tmp_path, monkeypatch):
    """A baseline file edited in place (a source or editable install), its size and modification time kept
    (a copy tool that keeps times, as xcopy and ``cp -p`` do), on a file system whose stat shows nothing else
    of the edit (Windows' st_ctime is the creation time; some network shares report none): the digest
    changes all the same, the baselines being taken by their content, so the reference is composed with
    the new baseline's formulas."""
    import xlmodel.plans.loading
    from xlmodel.plans.loading import BASELINES, _load_baseline_cached

    baselines = tmp_path / "baseline"
    baselines.mkdir()
    src = BASELINES / "cn-regulatory-baseline-2024.yaml"
    copy = baselines / src.name
    copy.write_bytes(src.read_bytes())
    monkeypatch.setattr(xlmodel.plans.loading, "BASELINES", baselines)
    real_stats = reference_cache.stats
    monkeypatch.setattr(reference_cache, "stats", lambda folder, *a: [("stat shows no edit",)] if folder == baselines
                        else real_stats(folder, *a))
    reference_cache._code_fingerprint.cache_clear()
    try:
        before = reference_cache._digest(("k",))
        st = copy.stat()
        text = copy.read_bytes()
        assert b"id: reg_distribution_cap" in text
        copy.write_bytes(text.replace(b"id: reg_distribution_cap", b"id: reg_distribution_cax"))  # one byte
        os.utime(copy, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert copy.stat().st_size == st.st_size and copy.stat().st_mtime_ns == st.st_mtime_ns
        reference_cache._code_fingerprint.cache_clear()
        after = reference_cache._digest(("k",))
        assert after != before
        copy.write_bytes(text)  # back as it was: the content decides
        reference_cache._code_fingerprint.cache_clear()
        assert reference_cache._digest(("k",)) == before
    finally:
        reference_cache._code_fingerprint.cache_clear()


def test_the_reference_follows_an_edited_baseline(cache, composes, tmp_path, monkeypatch):
    """End to end: the GCL sample checked (its reference kept), then the baseline's distribution-cap rule
    renamed: the next check (a new process's) composes the reference afresh, with the new baseline's rows
    (the rule's row under its new name), and keeps that one."""
    import xlmodel.plans.loading
    from xlmodel.plans.loading import BASELINES, _load_baseline_cached

    baselines = tmp_path / "baseline"
    baselines.mkdir()
    src = BASELINES / "cn-regulatory-baseline-2024.yaml"
    (baselines / src.name).write_bytes(src.read_bytes())
    monkeypatch.setattr(xlmodel.plans.loading, "BASELINES", baselines)
    reference_cache._code_fingerprint.cache_clear()
    try:
        assert read_workbook(GCL).tampered == [] and len(composes) == 1
        key = _reference_key(*_key(GCL))
        old = reference_cache.load(key)
        assert any("reg_distribution_cap" in k for rows in old[2].values() for k in rows.values())
        text = (baselines / src.name).read_text(encoding="utf-8")
        (baselines / src.name).write_text(text.replace("id: reg_distribution_cap", "id: reg_distribution_limit"),
                                          encoding="utf-8")
        _load_baseline_cached.cache_clear()
        reference_cache._code_fingerprint.cache_clear()
        _REFERENCES.clear()  # as a new process: nothing remembered of the old baseline
        evaluator._MODELS.clear()
        composes.clear()
        read_workbook(GCL)
        assert len(composes) == 1, "the old baseline's reference was used"
        new = reference_cache.load(key)
        assert new is not None and new != old
        assert not any("reg_distribution_cap" in k for rows in new[2].values() for k in rows.values())
        assert any("reg_distribution_limit" in k for rows in new[2].values() for k in rows.values())
    finally:
        _load_baseline_cached.cache_clear()
        reference_cache._code_fingerprint.cache_clear()
        evaluator._MODELS.clear()


# ---- issue 53: the recalc gate's function set, kept beside the references ------------------------

@pytest.fixture
def gate(cache, monkeypatch):
    """(the gates' cache folder, the workbooks built to find a plan's functions); nothing kept in the process."""
    from xlmodel.engines import drive

    built = []
    write = WorkbookBuilder.write

    def counting(self, path):
        built.append(path)
        return write(self, path)

    monkeypatch.setattr(WorkbookBuilder, "write", counting)
    monkeypatch.setattr(drive, "_FUNCTIONS", {})
    return cache.parent / "gates", built


def _functions():
    from xlmodel.engines import drive

    read = read_workbook(GCL, check_formulas=False)
    drive._FUNCTIONS.clear()  # as a new process
    return drive.xlmodel_functions(read.policy, read.case.evaluation_year)


def test_the_gates_function_set_kept_is_the_one_composed(gate):
    folder, built = gate
    composed = _functions()
    assert len(built) == 1 and len(list(folder.glob("*.json"))) == 1
    # the model's own functions (ROUND for every amount to the fen, IF for each rule's status), Gnumeric's
    # ERROR, the UDF sheet's XLM_ functions; nothing that reaches outside the workbook
    assert {"ROUND", "IF", "ERROR", "XLM_MIN_CASH"} <= composed
    assert not composed & {"WEBSERVICE", "HYPERLINK", "RTD", "CALL", "REGISTER.ID"}
    assert _functions() == composed and len(built) == 1  # read from the cache: no workbook built
    from xlmodel.engines import drive

    read = read_workbook(GCL, check_formulas=False)
    kept = drive.gate_allowance(read.policy, read.case.evaluation_year)
    drive._FUNCTIONS.clear()
    assert reference_cache.load_gate(_reference_key(read.policy, Layout(model_for(read.policy), 2023), 2023)) == kept


GATE_DAMAGE = {
    "a_foreign_function": lambda d: {**d, "functions": d["functions"] + ["WEBSERVICE("]},
    "a_formula_not_a_digest": lambda d: {**d, "clean": {**d["clean"], "WEBSERVICE(1)": [[], []]}},
    "a_need_not_text": lambda d: {**d, "clean": {**d["clean"], "0" * 64: [[1], []]}},
    "no_formulas": lambda d: {k: v for k, v in d.items() if k != "clean"},
    "lower_case": lambda d: {**d, "functions": [n.lower() for n in d["functions"]]},
    "a_number": lambda d: {**d, "functions": d["functions"] + [7]},
    "another_digest": lambda d: {**d, "digest": "0" * 64},
    "another_format": lambda d: {**d, "format": 0},
    "a_list": lambda d: [d],
}


@pytest.mark.parametrize("damage", GATE_DAMAGE)
def test_a_damaged_function_set_is_ignored_and_composed_again(gate, damage):
    folder, built = gate
    composed = _functions()
    (path,) = folder.glob("*.json")
    name = f"gates/{path.name}"
    data = json.loads(user_cache.opened(user_cache.cache_key(), name, path.read_bytes()))
    path.write_bytes(user_cache.sealed(user_cache.cache_key(), name, json.dumps(GATE_DAMAGE[damage](data)).encode("ascii")))
    assert _functions() == composed and len(built) == 2  # composed afresh, the file's names never used
    assert json.loads(user_cache.opened(user_cache.cache_key(), name, path.read_bytes())) == data  # and kept again

