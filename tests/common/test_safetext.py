"""Text from submissions made safe where it enters, and outputs written whole."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from grader.common import safetext


def test_clean_keeps_lines_and_shows_escapes():
    text = safetext.clean("a\x1b[32mb\udce9c\ud800\nd\r\ne\u202e")
    assert text == "a\\x1b[32mb\\xe9c\ufffd\nd\ne\\u202e"
    assert text.encode("utf-8")  # encodable: no lone surrogates left
    assert len(safetext.clean("x" * 100, limit=10)) < 20


def test_name_is_one_printable_line():
    assert safetext.name("evil\nname\x1b[31m\t") == "evil\\nname\\x1b[31m\\t"
    assert safetext.name("caf\udce9") == "caf\\xe9"
    assert safetext.name("é σ") == "é σ"


def test_scrub_reaches_every_string():
    @dataclass(frozen=True)
    class Inner:
        text: str

    @dataclass
    class Outer:
        items: list
        inner: Inner
        number: float

    got = safetext.scrub(Outer(items=["\x1b", ("\udce9",)], inner=Inner("\x07"), number=1.5))
    assert got.items == ["\\x1b", ("\\xe9",)] and got.inner.text == "\\x07" and got.number == 1.5


def test_atomic_write_leaves_the_old_file_on_failure(tmp_path):
    path = tmp_path / "out.json"
    safetext.atomic_write(path, "old\n")

    with pytest.raises(TypeError):
        safetext.atomic_write(path, 12345)  # not text: nothing written
    assert path.read_text() == "old\n"
    safetext.atomic_write(path, "new \udce9\n")  # a stray surrogate is escaped, not fatal
    assert path.read_text() == "new \\udce9\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


@pytest.mark.parametrize("plain", ["ana", "budi-2", "sigmoid-citra", "Dewi_Ayu.v2", "Ñoño"])
def test_a_plain_name_is_its_own_file_name(plain):
    assert safetext.file_name(plain) == plain


@pytest.mark.parametrize(
    "odd",
    [
        '=HYPERLINK("http://x","y")',
        "@SUM(A1)",
        "a" * 250,
        "con",
        "Aux.txt",
        "x/y",
        "..",
        "a b",
        "\udcff",
    ],
)
def test_any_other_name_gets_a_safe_unique_file_name(odd, tmp_path):
    made = safetext.file_name(odd)
    assert made != odd and len(made.encode()) <= 80
    assert safetext.FILE_NAME.match(made) and not made.startswith(".")
    (tmp_path / f"{made}.md").write_text("ok")  # a name the file system takes
    assert safetext.file_name(odd) == made  # the same every run
    assert safetext.file_name(odd + "!") != made  # and another name's differs
