"""Generated Python a person can read and a debugger can show: the one way xlmodel compiles source.

The scalar and vector programs (:mod:`xlmodel.rules.compiled`), their comparison helpers and the report
assembler (:mod:`xlmodel.report`) are Python written per model. Each is compiled here:

* under a file name of its own (``<xlmodel scalar gcl-energy-2022-2024 #3>``), its text registered in
  :mod:`linecache` as attrs does for the methods it writes, so that a traceback through it, ``pdb``
  and ``inspect.getsource`` show its lines; the entry goes when the compiled function does;
* with names a reader can follow: :func:`ident` makes an identifier from a calculation's id
  (``min_rolling.status`` -> ``c_min_rolling_status``), :class:`Names` keeps them unique, and each
  line says in a comment which calculation it computes (or is a part of);
* with nothing of a plan's text in it except what :func:`ident` and :func:`comment` have made safe:
  text from a plan (an id, a label, a code) is either a string of :data:`SAFE` characters (letters,
  digits, ``_ . -``) written as its ``repr``, or a value bound in the namespace under a made-up name
  (:meth:`Names.bind`), never source; a comment is the text itself only when it is all :data:`SAFE`
  characters, else an identifier made from it.

Nothing here imports the rest of xlmodel: it is the bottom of the house.
"""

from __future__ import annotations

import itertools
import keyword
import linecache
import re
import weakref

#: the characters a plan's text may have to be written into generated source (as a string literal or
#: a comment): no quote, backslash, bracket, space or line break, nothing outside ASCII
SAFE = re.compile(r"[A-Za-z0-9_.\-]{1,120}")
_NOT_IDENT = re.compile(r"[^A-Za-z0-9]+")
_IDENT_MAX = 60

_serial = itertools.count(1)


def is_safe(text) -> bool:
    """Whether ``text`` is a str of :data:`SAFE` characters only (so its repr is plain and harmless)."""
    return isinstance(text, str) and SAFE.fullmatch(text) is not None


def ident(text: str, prefix: str) -> str:
    """A valid, plain ASCII identifier made from ``text``: ``prefix`` and the text with each run of
    anything but ASCII letters and digits as one ``_``, at most 60 characters (``prefix`` starts it,
    so the result is never a keyword, a dunder or a name a program's runtime uses)."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*_", prefix):
        raise ValueError(f"prefix {prefix!r}: letters then one underscore")
    body = _NOT_IDENT.sub("_", str(text)).strip("_")
    out = (prefix + body)[:_IDENT_MAX].rstrip("_")
    if len(out) < len(prefix):  # nothing of the text is ASCII letters or digits: the prefix alone
        out = prefix
    assert out.isidentifier() and out.isascii() and not keyword.iskeyword(out)
    return out


def shown(text: str) -> str:
    """``text`` as a comment may show it: itself when all :data:`SAFE` characters, else an identifier
    made from it (a plan's text never reaches generated source as it is, not even in a comment)."""
    return text if is_safe(text) else ident(text, "x_")


def comment(text: str, lead: str = "") -> str:
    """``  # lead text``, the text :func:`shown` (``lead`` is xlmodel's own words, never a plan's)."""
    if "\n" in lead or "\r" in lead:
        raise ValueError("a comment is one line")
    return "  # " + lead + shown(text)


class Names:
    """Unique identifiers for one generated function: :meth:`new` one made from a text (a second
    ``c_a_b`` is ``c_a_b_2``), :meth:`bind` a value the source refers to by a made-up name."""

    def __init__(self, ns: dict, reserved=()):
        self.ns = ns
        self.taken: set[str] = set(ns) | set(reserved)
        self._bound: dict[tuple, str] = {}

    def new(self, text: str, prefix: str) -> str:
        base = ident(text, prefix)
        name, k = base, 1
        while name in self.taken:
            k += 1
            name = f"{base}_{k}"
        self.taken.add(name)
        return name

    def bind(self, value, hint: str = "", prefix: str = "L_") -> str:
        """A name in the namespace holding ``value`` (the same name for an equal value of one type)."""
        key = (type(value), value)
        hit = self._bound.get(key)
        if hit is None:
            hit = self._bound[key] = self.new(hint or str(len(self._bound)), prefix)
            self.ns[hit] = value
        return hit

    def text(self, value: str, hint: str = "") -> str:
        """A string for the source: its repr when :func:`is_safe`, else a bound name."""
        if value == "" or is_safe(value):
            return repr(value)
        return self.bind(value, hint, "L_")


def _forget(filename: str) -> None:
    linecache.cache.pop(filename, None)


def filename(kind: str, label: str) -> str:
    """A file name no other generated source has: ``<xlmodel KIND LABEL #N>`` (both :func:`shown`)."""
    return f"<xlmodel {shown(str(kind))} {shown(str(label))} #{next(_serial)}>"


def compile_source(src: str, kind: str, label: str, ns: dict, entry: str):
    """``src`` compiled under a file name of its own, run in ``ns``, its text in :mod:`linecache` for as
    long as the function ``ns[entry]`` it defines lives; returns that function."""
    name = filename(kind, label)
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)  # mtime None: checkcache keeps it
    try:
        exec(compile(src, name, "exec"), ns)  # noqa: S102 - source written by xlmodel itself, from safe parts
    except BaseException:
        _forget(name)
        raise
    fn = ns[entry]
    weakref.finalize(fn, _forget, name)
    return fn


def function(name: str, args: list[str], body: list[str], indent: str = "    ") -> str:
    """``def name(args):`` and the body's lines, each indented (a line may carry its :func:`comment`)."""
    return f"def {name}({', '.join(args)}):\n" + "".join(f"{indent}{ln}\n" for ln in body)
