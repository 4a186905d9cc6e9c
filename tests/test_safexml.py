"""xlmodel.inputs.safexml: defusedxml's refusals kept, ElementTree's C parser where a part can declare no entity."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse as defused_iterparse

from xlmodel.inputs import safexml

SAMPLES = sorted((Path(__file__).resolve().parents[1] / "samples").glob("*.xlsx"))

LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<worksheet><c><v>&lol3;</v></c></worksheet>"""
EXTERNAL = b"""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><worksheet><v>&e;</v></worksheet>"""


def _events(it):
    return [(ev, el.tag, dict(el.attrib), el.text) for ev, el in it]


@pytest.mark.parametrize("data", [LAUGHS, EXTERNAL, LAUGHS.decode().encode("utf-16"), LAUGHS.decode().encode("utf-16-le"),
                                  b"\xef\xbb\xbf" + EXTERNAL],
                         ids=["entities", "external", "utf-16", "utf-16-no-bom", "utf-8-bom"])
def test_a_document_type_declaration_is_refused_as_defusedxml_refuses_it(data):
    assert not safexml.plain(data)
    with pytest.raises(DefusedXmlException):
        list(safexml.iterparse(data))
    with pytest.raises(DefusedXmlException):
        safexml.fromstring(data)


@pytest.mark.parametrize("encoding", ["cp037", "ISO-8859-1", "utf-16", "gbk", "UTF-7"])
def test_a_part_declaring_another_encoding_takes_defusedxmls_path(encoding, monkeypatch):
    """A byte search cannot see a DTD in another encoding (EBCDIC spells <!DOCTYPE otherwise)."""
    import defusedxml.ElementTree

    data = f'<?xml version="1.0" encoding="{encoding}"?><a>x</a>'.encode("ascii")
    assert not safexml.plain(data)
    seen = []
    monkeypatch.setattr(defusedxml.ElementTree, "fromstring", lambda d: seen.append(d) or "defused")
    assert safexml.fromstring(data) == "defused" and seen == [data]


def test_a_plain_part_is_read_by_the_c_parser():
    data = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><a b="1">数 &amp; &#x4e00;</a>'.encode()
    assert safexml.plain(data)
    assert safexml.fromstring(data).text == "数 & 一"


def test_an_undefined_entity_is_an_error_on_the_fast_path():
    data = b'<?xml version="1.0" encoding="UTF-8"?><a>&lol;</a>'
    assert safexml.plain(data)
    with pytest.raises(Exception, match="undefined entity"):
        list(safexml.iterparse(data))


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_every_part_of_a_sample_reads_as_defusedxml_reads_it(sample):
    with zipfile.ZipFile(sample) as z:
        parts = [n for n in z.namelist() if n.endswith((".xml", ".rels"))]
        assert len(parts) > 10
        for name in parts:
            data = z.read(name)
            assert safexml.plain(data), name
            want = _events(defused_iterparse(z.open(name), events=("start", "end")))
            assert _events(safexml.iterparse(data, events=("start", "end"))) == want, name
