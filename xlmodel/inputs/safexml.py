"""XML from files xlmodel did not write, parsed safely and fast.

defusedxml forbids what makes XML dangerous (a DTD: entity expansion, external entities), but to do
so it parses with ElementTree's pure-Python parser, several times slower than the C one. Without a
document type declaration an XML document can declare no entity at all: expat then knows only the
five predefined ones and character references, and reads no other file. So a part that is plainly
UTF-8 (or ASCII: no byte-order mark, no NUL in its first bytes, no other encoding declared) and holds
no ``<!DOCTYPE`` is parsed by ElementTree's C parser; anything else goes to defusedxml, which refuses
a DTD with its own error (:class:`defusedxml.DTDForbidden`), as before. Either way the elements and
events are ElementTree's.

Declaring an encoding is what could hide a ``<!DOCTYPE`` from a byte search (UTF-16, EBCDIC): a
part declaring any encoding but UTF-8 or ASCII takes defusedxml's path, whatever it holds.
"""

from __future__ import annotations

import io
import re

#: an XML declaration naming its encoding (in its first bytes, where XML puts it)
_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_PLAIN = {b"utf-8", b"utf8", b"us-ascii", b"ascii"}


def plain(data: bytes) -> bool:
    """``data`` is UTF-8 or ASCII XML without a document type declaration: no entity can be declared."""
    head = data[:4]
    if b"\x00" in head or head[:2] in (b"\xfe\xff", b"\xff\xfe"):  # UTF-16/32, with or without a BOM
        return False
    m = _ENCODING.match(data[3:300] if data.startswith(b"\xef\xbb\xbf") else data[:300])
    if m and m.group(1).lower() not in _PLAIN:
        return False
    return b"<!DOCTYPE" not in data


def iterparse(data: bytes, events=("end",)):
    """(event, element) as :func:`xml.etree.ElementTree.iterparse` gives them, for the bytes of a part."""
    if plain(data):
        from xml.etree.ElementTree import iterparse as fast

        return fast(io.BytesIO(data), events=events)
    from defusedxml.ElementTree import iterparse as defused

    return defused(io.BytesIO(data), events=events)


def fromstring(data: bytes):
    """The root element of a part, as :func:`xml.etree.ElementTree.fromstring` gives it."""
    if plain(data):
        from xml.etree.ElementTree import fromstring as fast

        return fast(data)
    from defusedxml.ElementTree import fromstring as defused

    return defused(data)
