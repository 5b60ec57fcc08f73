"""Does a folder give an answer away? Lines of solutions/ and of reference code found in the
files of a release, in any form a file holds them.

Reference code is what computes an answer in the teacher's grader: the telling lines of the
specs' scenario `reference:` functions and of each plugin's teacher.py (compared as lines, like
the keys'), and the specs' reference expressions (found anywhere inside a line, spaces aside,
unless the teacher hands the expression out on purpose: in a starter, the instructions or a
hint).

A line of an answer key, a variant or a mutant counts when it says something: it is code (not a
comment, a blank line or part of a docstring), at least MIN_CHARS characters without spaces,
and not an import, a `def`/`class` header or a decorator. Lines are compared by fingerprint():
the line's tokens without its comment, spaces removed, so a copy with other spacing or another
comment (or commented out) is the same line.

Every file is read in every form that holds text (units()): as it is; a compressed file (gzip,
zlib, bzip2, xz, zip) unpacked; a JSON file's strings (a notebook's cells, each as one text);
Python source's string literals, each decoded (escapes) and all of them joined in order; every
run of base64 or hex in any of these, decoded and unpacked again; and each line also rot13'd and
reversed. Decoding nests (base64 of gzip of base64...) up to MAX_DEPTH, and what one file
unpacks to is bounded (MAX_UNPACKED), so a crafted file cannot make the check run away.

Lines the teacher hands out on purpose do not count. The starters' code and the visible checks'
setup code are the scaffold a key fills in: a line of it never counts (`given`). The grader's
own source, the plugins' shipped code, the starters' docstrings and string literals and the
instructions share a line with a key now and then by chance (`with torch.enable_grad():` is in
both the grader and a key): such a line counts only where one file holds COPY_LINES or more of
one answer file's lines (`shared`): that is a copy, not a coincidence.
"""

from __future__ import annotations

import ast
import base64
import binascii
import bz2
import codecs
import functools
import io
import json
import lzma
import re
import tokenize
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

MIN_CHARS = 12
"""`return grad` (10) and `(g,) = grads` say nothing; `return y * (1 - y)` (14) may."""
COPY_LINES = 3
"""Lines of one answer file that the grader or the starters' text also hold, found in one file:
fewer are chance (the real course's grader shares at most one with any key), this many a copy."""
_STRUCTURE = ("import ", "from ", "def ", "async def ", "class ", "@")
MAX_DEPTH = 6
"""Decodings nested in one another (a string literal, base64, gzip, base64 again...)."""
MAX_UNPACKED = 64 * 2**20
"""Bytes that unpacking and decoding one file may produce, all of its forms together."""
MAX_PARSED = 4 * 2**20
"""The largest text parsed as Python or JSON to find its strings."""
MAX_JSON_DEPTH = 64
MIN_BLOB = 16
"""The shortest run of base64 (or hex: twice as long) that is decoded."""
_B64 = re.compile(r"(?:[A-Za-z0-9+/_-]{" + str(MIN_BLOB) + r",}={0,2}[ \t]*(?:\r?\n[ \t]*)?)+")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2}){" + str(MIN_BLOB) + ",}")
_SKIP_TOKENS = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
}


@dataclass(frozen=True)
class Leak:
    file: Path
    line: int
    text: str
    source: Path
    """The solutions/ file the line comes from."""
    form: str = ""
    """How the file holds it, when not as a plain line: "decoded: base64 > gzip", "notebook
    cell 2"..."""

    @property
    def where(self) -> str:
        """`line N`, with the form it was found in."""
        return f"line {self.line}" + (f" ({self.form})" if self.form else "")


def _docstring_lines(tree: ast.AST) -> set[int]:
    lines = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def telling_lines(path: Path) -> list[str]:
    """The lines of a Python file that say something (see the module's docstring)."""
    return telling_source(Path(path).read_text(encoding="utf-8", errors="replace"))


def telling_source(text: str) -> list[str]:
    """telling_lines of Python source given as text."""
    try:
        skip = _docstring_lines(ast.parse(text))
    except SyntaxError:  # a broken mutant still holds lines worth hiding
        skip = set()
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if (
            n in skip
            or not s
            or s.startswith("#")
            or s.startswith(_STRUCTURE)
            or len("".join(s.split())) < MIN_CHARS
        ):
            continue
        out.append(s)
    return out


def _compact(text: str) -> str:
    return "".join(text.split())


def fingerprint(line: str) -> str:
    """A line of code as lines are compared: its tokens without its comment, spaces removed (the
    line without spaces where it is not Python by itself, an unclosed bracket say)."""
    s = line.strip()
    try:
        tokens = [
            t.string
            for t in tokenize.generate_tokens(io.StringIO(s).readline)
            if t.type not in _SKIP_TOKENS
        ]
    except (tokenize.TokenError, SyntaxError):
        return _compact(s)
    return "".join("".join(tokens).split())


def fingerprints(lines) -> set[str]:
    """The fingerprints of lines (and each line without its spaces), as a given set."""
    out = set()
    for line in lines:
        compact = _compact(line)
        out.add(compact)
        if "#" in compact:  # else its fingerprint is the line without spaces
            out.add(fingerprint(line))
    out.discard("")
    return out


def stripped_lines(paths) -> set[str]:
    """The fingerprints of every line of these files, as they are."""
    return fingerprints(
        line
        for p in paths
        for line in Path(p).read_text(encoding="utf-8", errors="replace").splitlines()
    )


def held_lines(paths) -> set[str]:
    """The fingerprints of every line of these files, in every form they hold (units())."""
    return fingerprints(
        line for p in paths for unit in units(p) for line in unit.text.splitlines()
    )


def code_lines(text: str) -> list[str]:
    """The lines of Python source outside its string literals (docstrings, multi-line strings):
    what the source runs, not text it carries. None where it does not parse."""
    lines = text.splitlines()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            end = node.end_lineno or node.lineno
            if end > node.lineno:
                inside.update(range(node.lineno, end + 1))
    inside |= _docstring_lines(tree)
    return [line for n, line in enumerate(lines, start=1) if n not in inside]


def answers(solutions: Path, given: set[str]) -> dict[str, Path]:
    """Every telling line of solutions/**/*.py whose fingerprint is not in `given`, by its
    fingerprint, with its file."""
    out: dict[str, Path] = {}
    for path in sorted(Path(solutions).rglob("*.py")):
        for line in telling_lines(path):
            key = fingerprint(line)
            if key not in given and len(key) >= MIN_CHARS:
                out.setdefault(key, path)
    return out


@dataclass(frozen=True)
class Unit:
    """One text a file holds: the file itself, or a form found in it."""

    text: str
    form: str
    """"" for the file as it is; else how it was found ("decoded: base64 > gzip")."""
    line: int | None
    """The file's line the text was found at (each of its lines is reported there); None: the
    text numbers its own lines (a notebook's cell, a compressed file's content)."""


class _Budget:
    def __init__(self) -> None:
        self.left = MAX_UNPACKED

    def take(self, n: int) -> bool:
        self.left -= n
        return self.left >= 0


def _join(form: str, step: str) -> str:
    return f"{form} > {step}" if form else step


def _read_limited(decompressor, data: bytes, budget: _Budget) -> bytes | None:
    try:
        out = decompressor.decompress(data, max(budget.left, 0) + 1)
    except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError, MemoryError):
        return None
    return out if out and budget.take(len(out)) else None


def _unpack(data: bytes, budget: _Budget) -> Iterator[tuple[str, bytes]]:
    """(what, content) of a compressed blob or archive, by its magic bytes; nothing else."""
    head = data[:6]
    if head[:2] == b"\x1f\x8b":
        found = _read_limited(zlib.decompressobj(wbits=31), data, budget)
        if found:
            yield "gzip", found
    elif len(data) > 2 and data[0] == 0x78 and (data[0] * 256 + data[1]) % 31 == 0:
        found = _read_limited(zlib.decompressobj(), data, budget)
        if found:
            yield "zlib", found
    elif head[:3] == b"BZh":
        found = _read_limited(bz2.BZ2Decompressor(), data, budget)
        if found:
            yield "bzip2", found
    elif head == b"\xfd7zXZ\x00" or head[:3] == b"\x5d\x00\x00":
        found = _read_limited(lzma.LZMADecompressor(), data, budget)
        if found:
            yield "xz", found
    elif head[:4] == b"PK\x03\x04":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                for info in archive.infolist()[:1000]:
                    if info.is_dir() or budget.left <= 0:
                        continue
                    with archive.open(info) as member:
                        content = member.read(budget.left + 1)
                    if budget.take(len(content)):
                        yield f"zip member {info.filename}", content
        except (zipfile.BadZipFile, OSError, ValueError, RuntimeError, EOFError, zlib.error):
            return


def _texty(data: bytes) -> str | None:
    """Bytes as text, where they are text (UTF-8, nearly all of it printable)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(c.isprintable() or c in "\n\r\t" for c in text)
    return text if len(text) >= MIN_CHARS and printable >= 0.95 * len(text) else None


def _decoded(blob: str) -> Iterator[tuple[str, bytes]]:
    """A run of base64 or hex, decoded (each way it decodes)."""
    compact = _compact(blob)
    if _HEX.fullmatch(compact):
        yield "hex", bytes.fromhex(compact)
    body = compact.rstrip("=")
    for trim in (0, 1):
        part = body[: len(body) - trim] if trim else body
        if len(part) % 4 == 1:
            continue
        padded = part + "=" * (-len(part) % 4)
        altchars = b"-_" if ("-" in part or "_" in part) else None
        try:
            yield "base64", base64.b64decode(padded, altchars=altchars, validate=True)
        except (binascii.Error, ValueError):
            continue
        return


def _blobs(text: str) -> Iterator[tuple[int, str]]:
    """(offset, run) of every run of base64 or hex in text: a run over several lines whole, and
    each of its words on its own."""
    for match in _B64.finditer(text):
        run = match.group(0)
        yield match.start(), run
        words = run.split()
        if len(words) > 1:
            offset = match.start()
            for word in words:
                if len(word) >= MIN_BLOB:
                    yield offset + run.find(word), word


def _from_bytes(data: bytes, form: str, line: int | None, depth: int, budget: _Budget):
    """The texts of a file's bytes (depth 0) or of a decoded blob: unpacked where compressed,
    read as text where they are text."""
    if depth > MAX_DEPTH:
        return
    unpacked = False
    for what, content in _unpack(data, budget):
        unpacked = True
        yield from _from_bytes(content, _join(form, what), line, depth + 1, budget)
    if depth == 0:  # the file itself is read as text whatever it holds
        text: str | None = data.decode("utf-8", errors="replace")
    else:
        text = None if unpacked else _texty(data)
    if text is not None:
        yield from _from_text(text, form, line, depth, budget)


def _from_text(text: str, form: str, line: int | None, depth: int, budget: _Budget):
    """A text, then the texts found in it: JSON strings, string literals, decoded blobs."""
    yield Unit(text, form, line)
    if depth >= MAX_DEPTH or not budget.take(len(text)):
        return
    if len(text) <= MAX_PARSED and "\x00" not in text:
        yield from _json_units(text, form, depth, budget)
        yield from _literal_units(text, form, line, depth, budget)
    for offset, run in _blobs(text):
        where = None if line is None else line + text.count("\n", 0, offset)
        label = _join(form, "decoded")
        for what, data in _decoded(run):
            yield from _from_bytes(data, f"{label}: {what}", where, depth + 1, budget)


def _json_units(text: str, form: str, depth: int, budget: _Budget):
    """The strings of a JSON document (a notebook's cells each as one text), each numbering
    its own lines."""
    if text.lstrip()[:1] not in ("{", "["):
        return
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        yield from _json_strings(doc, _join(form, "a JSON string"), depth, budget)
        return
    for n, cell in enumerate(cells, start=1):
        if isinstance(cell, dict):
            yield from _json_strings(cell, _join(form, f"notebook cell {n}"), depth, budget)


def _json_strings(doc, form: str, depth: int, budget: _Budget):
    """Every string in doc, and every list of strings joined (a cell's lines), bounded in
    depth and count."""
    stack = [(doc, 0)]
    count = 0
    while stack and count < 200_000:
        value, level = stack.pop()
        count += 1
        if isinstance(value, str):
            if len(value) >= MIN_CHARS:
                yield from _from_text(value, form, None, depth + 1, budget)
        elif level >= MAX_JSON_DEPTH:
            continue
        elif isinstance(value, dict):
            stack.extend((v, level + 1) for v in reversed(list(value.values())))
        elif isinstance(value, list):
            if value and all(isinstance(v, str) for v in value):
                stack.append(("".join(value), level + 1))
            else:
                stack.extend((v, level + 1) for v in reversed(value))


def _literal_units(text: str, form: str, line: int | None, depth: int, budget: _Budget):
    """Python source's string literals, each decoded, and all of them joined in order."""
    if "'" not in text and '"' not in text:  # no quote, no string literal: nothing to parse
        return
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    literals = sorted(
        (
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))
        ),
        key=lambda node: (node.lineno, node.col_offset),
    )
    label = _join(form, "a string literal")
    for node in literals:
        where = node.lineno if line is None else line + node.lineno - 1
        if isinstance(node.value, bytes):
            yield from _from_bytes(node.value, label, where, depth + 1, budget)
        elif len(node.value) >= MIN_CHARS:
            yield from _from_text(node.value, label, where, depth + 1, budget)
    strings = [node for node in literals if isinstance(node.value, str)]
    if len(strings) > 1:
        first = strings[0].lineno if line is None else line + strings[0].lineno - 1
        joined = "".join(str(node.value) for node in strings)
        yield from _from_text(
            joined, _join(form, "its string literals joined"), first, depth + 1, budget
        )


CACHED = 256 * 2**10
"""Files up to this size have their units kept by content (_cached_units): a release reads the
grader's own source twice (for what a key may share with it, then for leaks), and a process
that checks several releases reads it each time."""


def units(path: Path) -> Iterator[Unit]:
    """Every text the file holds (see the module's docstring)."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return
    if len(data) <= CACHED:
        yield from _cached_units(data)
    else:
        yield from _from_bytes(data, "", 1, 0, _Budget())


@functools.lru_cache(maxsize=512)
def _cached_units(data: bytes) -> tuple[Unit, ...]:
    return tuple(_from_bytes(data, "", 1, 0, _Budget()))


def _variants(line: str) -> Iterator[str]:
    """The fingerprints a line may be found as: whole, without spaces, each side of a `#`
    (commented out, or another comment), rot13'd and reversed."""
    for text in (line, codecs.encode(line, "rot13"), line[::-1]):
        if "#" not in text:
            yield _compact(text)
            continue
        yield fingerprint(text)
        pieces = text.split("#")[:9]
        for k in range(1, len(pieces)):
            yield _compact("#".join(pieces[:k]))
            yield _compact(pieces[k])


def _places(unit: Unit) -> Iterator[tuple[int, str, str]]:
    """(line to report, the line, its form) of each line of a unit."""
    for n, text in enumerate(unit.text.splitlines(), start=1):
        if unit.line is None:
            yield n, text, unit.form
        elif unit.form:
            yield unit.line, text, unit.form
        else:
            yield unit.line + n - 1, text, ""


def scan(
    folder: Path,
    answer_lines: dict[str, Path],
    expressions: dict[str, Path] | None = None,
    shared: set[str] | frozenset[str] = frozenset(),
) -> list[Leak]:
    """Every line, in every form, of every file under folder that is an answer line (by
    fingerprint) or holds one of the reference expressions. A line in `shared` counts only
    where one file holds COPY_LINES or more such lines of one answer file."""
    found: list[Leak] = []
    for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        found += _scan_file(path, answer_lines, expressions or {}, shared)
    return found


def _scan_file(path, answer_lines, expressions, shared) -> list[Leak]:
    leaks: dict[tuple, Leak] = {}
    chance: dict[Path, dict[str, Leak]] = {}
    for unit in units(path):
        for n, line, form in _places(unit):
            if len(line) < MIN_CHARS:
                continue
            for key in _variants(line):
                source = answer_lines.get(key)
                if source is None:
                    continue
                leak = Leak(path, n, line.strip()[:200], source, form)
                if key in shared:
                    chance.setdefault(source, {}).setdefault(key, leak)
                else:
                    leaks.setdefault((key, source), leak)
                break
            if expressions:
                compact = _compact(line)
                source = next((src for e, src in expressions.items() if e in compact), None)
                if source is not None:
                    leak = Leak(path, n, line.strip()[:200], source, form)
                    leaks.setdefault((compact, source), leak)
    for lines in chance.values():
        if len(lines) >= COPY_LINES:
            for key, leak in lines.items():
                leaks.setdefault((key, leak.source), leak)
    return sorted(leaks.values(), key=lambda leak: (leak.line, leak.form))


def reference_code(exercises, teachers: list[Path], given: set[str]) -> dict[str, Path]:
    """Every telling line of the exercises' scenario references and of the teacher's modules
    (each plugin's teacher.py) whose fingerprint is not in `given`, by its fingerprint, with
    where it comes from."""
    out: dict[str, Path] = {}
    for e in exercises:
        for check in e.checks:
            source = check.options.get("reference")
            if isinstance(source, str):
                for line in telling_source(source):
                    key = fingerprint(line)
                    if key not in given and len(key) >= MIN_CHARS:
                        out.setdefault(key, e.path)
    for path in sorted(teachers):
        for line in telling_lines(path):
            key = fingerprint(line)
            if key not in given and len(key) >= MIN_CHARS:
                out.setdefault(key, path)
    return out


def reference_expressions(exercises, given_text: str) -> dict[str, Path]:
    """The exercises' reference expressions, spaces removed, that say something (MIN_CHARS)
    and that the teacher does not hand out on purpose (given_text)."""
    given = _compact(given_text)
    out: dict[str, Path] = {}
    for e in exercises:
        for ref in e.references.values():
            expr = _compact(ref.expr)
            if len(expr) >= MIN_CHARS and expr not in given:
                out.setdefault(expr, e.path)
    return out


def scan_expressions(folder: Path, expressions: dict[str, Path]) -> list[Leak]:
    """Every line, in every form, of every file under folder that holds one of the
    expressions."""
    return scan(folder, {}, expressions) if expressions else []
