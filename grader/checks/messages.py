"""Feedback texts in both languages, built from comparison and worker data."""

from __future__ import annotations

from collections import Counter

import torch

from grader.checks.compare import Mismatch
from grader.common import textform
from grader.common.wire import Opaque, TensorFacts
from grader.specs.model import Text


def both(id: str, en: str, **params) -> Text:
    """Format a text in both languages; Text parameters contribute their own language."""

    def pick(lang):
        return {k: v.get(lang) if isinstance(v, Text) else v for k, v in params.items()}

    return Text(id=id.format(**pick("id")), en=en.format(**pick("en")))


def _num(x) -> str:
    if isinstance(x, float):
        return f"{x:.10g}"
    return str(x)


def _idx(index) -> str:
    return "[" + ", ".join(map(str, index)) + "]" if index else ""


def mismatch(m: Mismatch, fn: str) -> Text:
    where = f"{fn}(...) → {m.where}" if m.where != "result" else f"{fn}(...)"
    if m.kind == "type":
        return both(
            "{w} mengembalikan {got}, seharusnya {want} biasa (bukan subclass).",
            "{w} returned {got}; expected a plain {want} (not a subclass).",
            w=where,
            got=m.got,
            want=m.want,
        )
    if m.kind == "structure":
        return both(
            "{w}: struktur hasil {got}, seharusnya {want}.",
            "{w}: the result is {got}; expected {want}.",
            w=where,
            got=m.got,
            want=m.want,
        )
    if m.kind == "items":
        return items(where, m.got, m.want)
    if m.kind == "shape":
        return both(
            "{w}: shape {got}, seharusnya {want}.",
            "{w}: shape {got}; expected {want}.",
            w=where,
            got=list(m.got),
            want=list(m.want),
        )
    if m.kind == "dtype":
        return both(
            "{w}: dtype {got}, seharusnya {want} (sama dengan input).",
            "{w}: dtype {got}; expected {want} (the input's dtype).",
            w=where,
            got=m.got,
            want=m.want,
        )
    at = f"{m.where}{_idx(m.index)}"
    if m.kind == "nonfinite":
        return both(
            "{w}: nilai tidak hingga (NaN/inf) di {at}: hasilmu {got}, torch {want} "
            "({n} dari {t} elemen).",
            "{w}: non-finite value (NaN/inf) at {at}: yours {got}, torch {want} "
            "({n} of {t} elements).",
            w=where,
            at=at,
            got=_num(m.got),
            want=_num(m.want),
            n=m.count,
            t=m.total,
        )
    return both(
        "{w}: nilai berbeda dari autograd. Elemen terburuk {at}: hasilmu {got}, torch {want}; "
        "galat absolut {ae}, galat relatif {re} (toleransi: rtol={rtol:g}, atol={atol:g}); "
        "{n} dari {t} elemen berbeda.{p}",
        "{w}: values differ from autograd. Worst element {at}: yours {got}, torch {want}; "
        "abs error {ae}, rel error {re} (tolerance: rtol={rtol:g}, atol={atol:g}); "
        "{n} of {t} elements differ.{p}",
        w=where,
        at=at,
        got=_num(m.got),
        want=_num(m.want),
        ae=f"{m.abs_err:.3g}",
        re=f"{m.rel_err:.3g}",
        rtol=m.rtol,
        atol=m.atol,
        n=m.count,
        t=m.total,
        p=_precision_note(m),
    )


# Relative errors this small in a float64 result are the size of float32 rounding.
FLOAT32_LIKE = 1e-5


def _precision_note(m: Mismatch) -> Text:
    """Named only when the result has float32's mark (every value a float32 number)."""
    if (
        m.dtype != "float64"
        or m.rel_err is None
        or not 0 < m.rel_err <= FLOAT32_LIKE
        or not m.float32_values
    ):
        return Text(id="", en="")
    return Text(
        id=" Galat sekecil ini seukuran pembulatan float32: apakah ada bagian yang dihitung "
        "dalam float32 (misalnya .float(), atau tensor baru tanpa dtype=x.dtype)?",
        en=" An error this small is the size of float32 rounding: is part of it computed in "
        "float32 (.float(), say, or a new tensor made without dtype=x.dtype)?",
    )


LEAF_IN_PLACE = "a leaf Variable that requires grad is being used in an in-place operation"
"""torch's RuntimeError for an in-place change of a leaf tensor that requires grad."""


def raised_hint(error: dict) -> Text | None:
    """A hint for an exception whose cause torch's own message leaves unsaid (None: none)."""
    if LEAF_IN_PLACE in str(error.get("message", "")):
        return both(
            "Operasi in-place (x += ..., x.mul_(...), x[i] = ...) mengubah tensor leaf yang "
            "requires_grad: autograd melarangnya, karena graf masih membutuhkan nilai aslinya. "
            "Pembaruan parameter dilakukan di dalam `with torch.no_grad():`; di tempat lain, "
            "hitung tensor baru alih-alih mengubah yang ada.",
            "An in-place operation (x += ..., x.mul_(...), x[i] = ...) changed a leaf tensor "
            "that requires grad: autograd forbids it, since the graph still needs its original "
            "value. Parameter updates belong inside `with torch.no_grad():`; elsewhere, compute "
            "a new tensor instead of changing the one you have.",
        )
    return None


def raised(error: dict, fn: str, phase: str) -> Text:
    kind, msg = error.get("type", "Exception"), error.get("message", "")
    # The worker's own limit only: an "out of memory" the code raises itself (an exercise's
    # simulated memory model, a GPU's) is reported with its own message below.
    if kind == "MemoryError" or "can't allocate memory" in msg:
        if error.get("peak_bytes"):
            return both(
                "{fn} kehabisan memori: prosesnya sudah memakai {n} saat menyentuh batas per "
                "worker (daftar atau tensor yang terus bertambah?).",
                "{fn} ran out of memory: its process had grown to {n} when it hit the "
                "per-worker limit (a list or tensor that keeps growing?).",
                fn=fn,
                n=textform.size(error["peak_bytes"]),
            )
        return both(
            "{fn} kehabisan memori (batas per worker).",
            "{fn} ran out of memory (the per-worker limit).",
            fn=fn,
        )
    if "File too large" in msg:
        return both(
            "{fn} mencetak melebihi batas keluaran (output_cap di config.yaml).",
            "{fn} printed more than the output limit (output_cap in config.yaml).",
            fn=fn,
        )
    if phase == "backward":
        return both(
            "backward melalui {fn} gagal: {k}: {m}",
            "backward through {fn} failed: {k}: {m}",
            fn=fn,
            k=kind,
            m=msg,
        )
    return both("{fn} melempar {k}: {m}", "{fn} raised {k}: {m}", fn=fn, k=kind, m=msg)


def forbidden_parts(raw: str) -> tuple[str, str, str, int, str]:
    """A forbidden call as the worker's trap reports it (grader.sandbox.trap.SEP):
    (api, how, the name it ran under, line of the student's file or 0, that line's text).
    how: name (a trapped function), op (a torch operation), leaf (a tensor that requires grad
    was made), engine (autograd's engine ran a backward pass). A plain name is a name."""
    parts = str(raw).split(" | ", 4)
    if len(parts) < 5:
        return str(raw), "name", str(raw), 0, ""
    api, how, name, line, source = parts
    return api, how, name, int(line) if line.isdigit() else 0, source


def forbidden_api(raw: str) -> str:
    """The API a forbidden call reached (what a cause and a report's grouping name)."""
    return forbidden_parts(raw)[0]


def _called(raw: str) -> Text:
    """What ran, under which name, on which line of the student's file."""
    api, how, name, line, source = forbidden_parts(raw)
    at = both(", baris {n}: `{s}`", ", line {n}: `{s}`", n=line, s=source) if line else None
    at = at or Text(id="", en="")
    if how == "engine":
        return both(
            "{api} (mesin autograd menjalankan backward{at})",
            "{api} (autograd's engine ran a backward pass{at})",
            api=api,
            at=at,
        )
    if how == "leaf":
        return both(
            "{api} ({name} membuat tensor yang requires_grad{at})",
            "{api} ({name} made a tensor that requires grad{at})",
            api=api,
            name=name,
            at=at,
        )
    if name and name != api:
        return both(
            "{api} (sebagai {name}{at})", "{api} (as {name}{at})", api=api, name=name, at=at
        )
    if line:
        return both(
            "{api} (baris {n}: `{s}`)", "{api} (line {n}: `{s}`)", api=api, n=line, s=source
        )
    return both("{api}", "{api}", api=api)


def forbidden(api: str, fn: str) -> Text:
    """A forbidden call's verdict; api: the worker's report of it (see forbidden_parts)."""
    return both(
        "{fn} memanggil {api}, yang dilarang di latihan ini.",
        "{fn} called {api}, which this exercise forbids.",
        fn=fn,
        api=_called(api),
    )


def forbidden_at_run_time(raw: str, fn: str) -> Text:
    """One forbidden call the runtime trap saw, as the forbidden_api check lists it."""
    return both("{a} ({fn}, saat dijalankan)", "{a} ({fn}, at run time)", a=_called(raw), fn=fn)


def tampered(names) -> Text:
    joined = ", ".join(names)
    return both(
        "File-mu mengganti fungsi torch ({n}); grader tidak mengizinkannya.",
        "Your file replaces torch functions ({n}); the grader does not allow that.",
        n=joined,
    )


def missing_file(f: str, d: str, near: list[str]) -> Text:
    """No file of the exercise's name; `near` are names that look like a slip for it."""
    if not near:
        return both(
            "File {f} tidak ditemukan di {d}. Simpan jawabanmu dengan nama {f}.",
            "File {f} not found in {d}. Save your answer as {f}.",
            f=f,
            d=d,
        )
    return both(
        "File {f} tidak ditemukan di {d}, tetapi ada {n}. Ganti namanya menjadi tepat "
        "{f} (huruf kecil, garis bawah, berakhiran .py).",
        "File {f} not found in {d}, but there is {n}. Rename it to exactly {f} "
        "(lowercase, underscores, ending in .py).",
        f=f,
        d=d,
        n=", ".join(near),
    )


def undecodable(f: str, line, encoding, reason: str) -> Text:
    """A file Python cannot decode (submission.SourceError)."""
    where = {"id": f"{f}, baris {line}" if line else f, "en": f"{f}, line {line}" if line else f}
    enc = encoding or "?"
    return Text(
        id=f"{where['id']}: tidak bisa dibaca sebagai {enc} ({reason}). Simpan file sebagai "
        "UTF-8 (di editormu: Save with Encoding / Simpan dengan pengodean UTF-8).",
        en=f"{where['en']}: cannot be decoded as {enc} ({reason}). Save the file as UTF-8 "
        "(in your editor: Save with Encoding, UTF-8).",
    )


def overloaded(fn: str, limit: float) -> Text:
    """A call ran past its limit while starved of CPU by other processes, in two fresh workers
    (grader/sandbox/starvation.py): the machine's fault, not the student's."""
    return both(
        "Komputer penilai terlalu sibuk: {fn} melewati batas {t:g} detik per panggilan "
        "sambil lebih lama menunggu CPU daripada berjalan, dua kali. Ini bukan "
        "salahmu; jalankan penilaian lagi saat komputer tidak sibuk.",
        "The grading machine was overloaded: {fn} ran past the limit of {t:g} s per "
        "call while it waited for a CPU longer than it ran, twice. This is not your "
        "fault; run the grader again when the machine is less busy.",
        fn=fn,
        t=limit,
    )


# Structures a check compares (lists, tuples, dicts): both values, or where they part.

SHOWN = 160
"""Characters one value quoted in a message may take; a longer one is cut (…), and a message
about a longer structure names the first item that differs instead of both values."""


def shown(v, limit: int = SHOWN) -> str:
    """A compared value as short Python-like text, safe to print: strings go through repr (which
    escapes control characters, lone surrogates and bidirectional overrides), tensors show their
    shape, values the worker could not send their type; cut to `limit` characters."""
    text = _render(v, limit, 0)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _render(v, budget: int, depth: int) -> str:
    if isinstance(v, TensorFacts):
        return f"tensor(shape={list(v.data.shape)})"
    if isinstance(v, torch.Tensor):
        return f"tensor(shape={list(v.shape)})"
    if isinstance(v, Opaque):
        return f"<{v.type_name}>"
    if isinstance(v, str):
        return repr(v[:budget]) + ("…" if len(v) > budget else "")
    if v is None or isinstance(v, (bool, int, float)):
        return repr(v)
    if isinstance(v, (list, tuple, dict)):
        if depth > 8:
            return "…"
        brackets = {list: "[]", tuple: "()", dict: "{}"}[_shape(v)]
        opening, closing = brackets[0], brackets[1]
        parts: list[str] = []
        used = 0
        for item in v.items() if isinstance(v, dict) else v:
            if used > budget:
                parts.append("…")
                break
            if isinstance(v, dict):
                part = (
                    f"{_render(item[0], budget, depth + 1)}: {_render(item[1], budget, depth + 1)}"
                )
            else:
                part = _render(item, budget, depth + 1)
            parts.append(part)
            used += len(part) + 2
        body = ", ".join(parts) + ("," if isinstance(v, tuple) and len(v) == 1 else "")
        return opening + body + closing
    return f"<{type(v).__name__}>"


def _shape(v) -> type:
    return dict if isinstance(v, dict) else tuple if isinstance(v, tuple) else list


def exact(v) -> bool:
    """Plain, and without floats: values that equal each other exactly or not at all."""
    if isinstance(v, (list, tuple)):
        return all(exact(x) for x in v)
    if isinstance(v, dict):
        return all(exact(x) for x in v.values())
    return v is None or isinstance(v, (bool, int, str))


def _hashable(v):
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(_hashable(x) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple((k, _hashable(x)) for k, x in v.items()))
    return v


def _times(n: int) -> Text:
    if n == 1:
        return Text(id="1 kali", en="once")
    return both("{n} kali", "{n} times", n=n)


def _listed(values: list) -> str:
    """Items for a sentence, cut after a few."""
    head = ", ".join(shown(v, 60) for v in values[:6])
    return head + (f", … ({len(values) - 6} more)" if len(values) > 6 else "")


def _counts(got: list, want: list) -> list[Text]:
    """What is missing and what is extra, item by item (items that compare exactly only)."""
    g = Counter(_hashable(x) for x in got)
    w = Counter(_hashable(x) for x in want)
    first = {}
    for x in list(want) + list(got):
        first.setdefault(_hashable(x), x)
    out = []
    missing = [first[k] for k in w if g[k] == 0]
    extra = [first[k] for k in g if w[k] == 0]
    fewer = [(first[k], g[k], w[k]) for k in w if 0 < g[k] < w[k]]
    more = [(first[k], g[k], w[k]) for k in g if g[k] > w[k] > 0]
    if missing:
        out.append(both("Tidak ada: {x}.", "Missing: {x}.", x=_listed(missing)))
    if extra:
        out.append(both("Berlebih: {x}.", "Extra: {x}.", x=_listed(extra)))
    for x, n, m in (more + fewer)[:6]:
        out.append(
            both(
                "{x} muncul {n}, seharusnya {m}.",
                "{x} appears {n}; expected {m}.",
                x=shown(x, 60),
                n=_times(n),
                m=_times(m),
            )
        )
    if more and len(w) == sum(w.values()):
        out.append(
            both(
                "Hasilmu mengulang item, sedangkan yang diharapkan memuat setiap item tepat "
                "sekali (tanpa duplikat).",
                "Yours repeats items, while the expected value holds each item exactly once (no "
                "duplicates).",
            )
        )
    if not (missing or extra or more or fewer) and list(got) != list(want):
        order = (
            both("; yang diharapkan terurut", "; the expected ones are sorted")
            if _is_sorted(want)
            else Text(id="", en="")
        )
        out.append(
            both(
                "Itemnya sama, tetapi urutannya lain{s}.",
                "The same items, in another order{s}.",
                s=order,
            )
        )
    return out


def _is_sorted(v: list) -> bool:
    try:
        return list(v) == sorted(v)
    except TypeError:
        return False


def _first_difference(got, want, same) -> object:
    """The index (a key, for dicts) of the first item that differs, or None."""
    if isinstance(want, dict):
        for k in want:
            if k in got and not same(got[k], want[k]):
                return k
        return None
    for i in range(max(len(got), len(want))):
        if i >= len(got) or i >= len(want) or not same(got[i], want[i]):
            return i
    return None


def _at(key) -> str:
    return f"[{key!r}]" if isinstance(key, str) else f"[{key}]"


def _item(v, key) -> Text:
    if isinstance(v, dict):
        if key not in v:
            return Text(id="(tidak ada)", en="(none)")
        return Text(id=shown(v[key], 60), en=shown(v[key], 60))
    if key >= len(v):
        return Text(id="(tidak ada: list berakhir)", en="(none: the list ends)")
    return Text(id=shown(v[key], 60), en=shown(v[key], 60))


def items(label: str | Text, got, want, *, first=None, detail: Text | None = None) -> Text:
    """Two structures (list, tuple, dict) that differ in size, keys or an item, for a message
    that begins with `label` ("fn: result"): both values when they are short, else their sizes
    and the first item that differs (index, both items); and, where the items compare exactly,
    what is missing and what is extra (an item repeated, another order). `first`: the index or
    key of the first item that differs, as the caller's comparison found it (with its
    tolerances); `detail`: the caller's own sentence about that item (a value error with its
    tolerance), said instead of the plain one."""
    label = label if isinstance(label, Text) else Text(id=label, en=label)
    g, w = shown(got), shown(want)
    brief = len(g) < SHOWN and len(w) < SHOWN
    if brief:
        parts = [both("{l} = {g}, seharusnya {w}.", "{l} = {g}; expected {w}.", l=label, g=g, w=w)]
    else:
        parts = [
            both(
                "{l} berbeda dari yang diharapkan.", "{l} differs from what is expected.", l=label
            )
        ]
    is_dict = isinstance(want, dict)
    if not isinstance(got, (list, tuple, dict)) or isinstance(got, dict) != is_dict:
        if not brief:
            parts.append(both("Hasilmu: {g}.", "Yours: {g}.", g=g))
        parts.append(
            both(
                "Seharusnya {k} berisi {n} item.",
                "Expected {k} of {n} items.",
                k=Text(id="dict", en="a dict") if is_dict else Text(id="list", en="a list"),
                n=len(want),
            )
        )
        return _join(parts)
    if is_dict:
        missing = [k for k in want if k not in got]
        extra = [k for k in got if k not in want]
        if missing:
            parts.append(
                both("Kunci yang tidak ada: {k}.", "Missing key(s): {k}.", k=_listed(missing))
            )
        if extra:
            parts.append(both("Kunci berlebih: {k}.", "Extra key(s): {k}.", k=_listed(extra)))
    elif len(got) != len(want):
        parts.append(
            both(
                "Hasilmu berisi {g} item, seharusnya {w}.",
                "Yours has {g} item{s}; expected {w}.",
                g=len(got),
                w=len(want),
                s="" if len(got) == 1 else "s",
            )
        )
    exactly = exact(got) and exact(want)
    if first is None and exactly:
        first = _first_difference(got, want, lambda a, b: _hashable(a) == _hashable(b))
    if detail is not None:
        parts.append(detail)
    elif first is not None and not (brief and len(got) != len(want)):
        if not is_dict or first in got:
            parts.append(
                both(
                    "Item pertama yang berbeda, {at}: hasilmu {g}, seharusnya {w}.",
                    "First difference at {at}: yours {g}, expected {w}.",
                    at=_at(first),
                    g=_item(got, first),
                    w=_item(want, first),
                )
            )
    if exactly and not is_dict:
        parts += _counts(list(got), list(want))
    return _join(parts)


def _join(parts: list[Text]) -> Text:
    return Text(id=" ".join(p.id for p in parts), en=" ".join(p.en for p in parts))
