"""Feedback texts in both languages, built from comparison and worker data."""

from __future__ import annotations

from grader.checks.compare import Mismatch
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


def raised(error: dict, fn: str, phase: str) -> Text:
    kind, msg = error.get("type", "Exception"), error.get("message", "")
    if kind == "MemoryError" or "can't allocate memory" in msg or "out of memory" in msg:
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
