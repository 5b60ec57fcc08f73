"""Method seen where the outcome cannot show it: a scenario's counted facets (the probe's
COUNTED, grader.sandbox.probes.scenario), judged against the reference's run.

- forward_calls (of a module): the forward passes the module ran during the call. "One
  forward, two losses on the same graph" gives the same gradients as two forwards; only the
  count tells them apart. The student's count must equal the reference's.
- backward_work (of a custom Function's output): the operations its backward runs with the
  drawn ctx.needs_input_grad, and with every tensor argument needing a gradient. "Do not compute
  what is not needed" returns the same None whether or not the unneeded gradient was computed;
  only the work tells. Where the reference's backward does less work when an input needs no
  gradient, the student's must too (any amount less: sharing a product between the two
  gradients is fine; computing both and dropping one is not).
- backward_calls (of the call, observed under `result`): the backward passes the autograd
  engine ran during the call (each Tensor.backward, torch.autograd.backward or .grad is one; a
  batched grad is one for all its vectors). "Row by row, one vector-Jacobian product per row"
  gives the same Jacobian as one batched backward or a formula; only the count tells them apart.
  The student's count must equal the reference's.
"""

from __future__ import annotations

from grader.checks.base import Verdict
from grader.checks.messages import both
from grader.specs.model import Text


def judge(fn: str, got, want) -> Verdict | None:
    """The first counted facet where the student's run differs from what the rule asks, or
    None. got, want: the observations' counts (name -> count or work), as the probe sends them."""
    got = got if isinstance(got, dict) else {}
    for name, w in (want or {}).items():
        g = got.get(name)
        if isinstance(w, int) and not isinstance(w, bool):
            if g != w:
                return Verdict("failed", _calls_text(fn, name, g, w))
        elif isinstance(w, dict) and "backward_calls" in w:
            runs = g.get("backward_calls") if isinstance(g, dict) else None
            if runs != w["backward_calls"]:
                return Verdict("failed", _backwards_text(fn, runs, w["backward_calls"]))
        elif isinstance(w, dict) and _saves(w) and not _saves(g):
            return Verdict("failed", _work_text(fn, name, g))
    return None


def _saves(work) -> bool:
    """Whether a backward did less work with the drawn needs_input_grad than with every input
    needing a gradient."""
    if not isinstance(work, dict):
        return False
    ops, ops_all = work.get("ops"), work.get("ops_all")
    return isinstance(ops, int) and isinstance(ops_all, int) and ops < ops_all


def _calls_text(fn: str, name: str, got, want: int) -> Text:
    return both(
        "{fn} menjalankan forward {n} sebanyak {g} kali; seharusnya {w} kali: satu forward, "
        "lalu setiap loss dihitung dari hasil yang sama (graf yang sama, retain_graph=True "
        "pada backward pertama).",
        "{fn} ran {n}'s forward {g} time(s); expected {w}: one forward, then every loss from "
        "the same output (the same graph, retain_graph=True on the first backward).",
        fn=fn,
        n=name,
        g=got if isinstance(got, int) else "?",
        w=want,
    )


def _backwards_text(fn: str, got, want: int) -> Text:
    return both(
        "{fn} menjalankan backward {g} kali (y.backward, torch.autograd.backward atau "
        "torch.autograd.grad; grad dengan is_grads_batched=True dihitung sekali); seharusnya "
        "{w} kali: satu backward dengan gradient vector untuk setiap vector-Jacobian product "
        "yang diminta, satu per satu.",
        "{fn} ran backward {g} time(s) (y.backward, torch.autograd.backward or "
        "torch.autograd.grad; a grad with is_grads_batched=True counts once); expected {w}: "
        "one backward with a gradient vector for every vector-Jacobian product asked for, one "
        "at a time.",
        fn=fn,
        g=got if isinstance(got, int) else "?",
        w=want,
    )


def _work_text(fn: str, name: str, got) -> Text:
    if not isinstance(got, dict):
        return both(
            "{fn}: grad_fn {n} bukan backward dari autograd.Function-mu, jadi pekerjaan "
            "backward-nya tidak bisa dilihat: kembalikan hasil Function.apply.",
            "{fn}: {n}'s grad_fn is not your autograd.Function's backward, so the work its "
            "backward does cannot be seen: return the result of Function.apply.",
            fn=fn,
            n=name,
        )
    needs = ", ".join(str(bool(n)) for n in got.get("needs", []))
    return both(
        "{fn}: dengan ctx.needs_input_grad = ({needs}) backward menjalankan {g} operasi, "
        "sebanyak saat setiap input butuh gradien ({a}): gradien yang tidak diminta tetap "
        "dihitung lalu dibuang. Hitung setiap gradien hanya di dalam `if "
        "ctx.needs_input_grad[i]:` (jangan menghitung yang tidak perlu).",
        "{fn}: with ctx.needs_input_grad = ({needs}) backward ran {g} operations, as many as "
        "when every input needs a gradient ({a}): the gradient nobody asked for is still "
        "computed, then dropped. Compute each gradient only inside `if "
        "ctx.needs_input_grad[i]:` (do not compute what is not needed).",
        fn=fn,
        needs=needs,
        g=got.get("ops"),
        a=got.get("ops_all"),
    )
