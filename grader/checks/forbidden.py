"""The forbidden_api kind: the runtime trap's reports plus a static scan of the file.

The trap (grader.sandbox.trap) records forbidden calls made while the listed functions ran during
the exercise's other checks, observed where torch runs them, whatever the name; the scan follows
imports and aliases to torch (grader.submissions.scan), a second net for what is written.
"""

from __future__ import annotations

import ast

from grader.checks.base import Kind, Verdict
from grader.checks.messages import both, forbidden_at_run_time, forbidden_parts
from grader.common.yamlfile import NodeList
from grader.specs.model import Text
from grader.submissions.scan import scan


class ForbiddenApi(Kind):
    name = "forbidden_api"
    OPTIONS = {"functions": list, "apis": list, "reason": object}
    static = True
    needs_function = False
    constraint = True

    def validate(self, check):
        super().validate(check)
        for key in ("functions", "apis"):
            value = check.options.get(key)
            if (
                not isinstance(value, NodeList)
                or not value
                or not all(isinstance(v, str) for v in value)
            ):
                raise check.node.error(key, f"expected a non-empty list of names for `{key}`")
        for i, api in enumerate(check.options["apis"]):
            if not api.startswith("torch"):
                raise check.node.error(
                    "apis",
                    f"apis[{i}] = {api!r}: name a torch API by its "
                    "full path, e.g. torch.autograd.grad",
                )

    def run(self, check, tree, runtime_hits: dict) -> Verdict | None:
        functions = list(check.options["functions"])
        apis = list(check.options["apis"])
        names = _enclosing(tree)
        found = []
        seen = set()  # (api, line) the scan named: the trap's report of the same call says no more
        for f in scan(tree, functions, apis):
            seen.add((f.name, f.line))
            fn = f.function if f.function != "<file>" else names(f.line)
            found.append(
                both(
                    "{a} (baris {n}, {fn})",
                    "{a} (line {n}, {fn})",
                    a=f.name,
                    n=f.line,
                    fn=fn or _MODULE,
                )
            )
        for fn, hits in sorted(runtime_hits.items()):
            if "*" in functions or fn in functions or fn.split(".")[0] in functions:
                found += [
                    forbidden_at_run_time(raw, fn)
                    for raw in sorted(hits)
                    if forbidden_parts(raw)[0::3] not in seen
                ]
        if not found:
            return None
        reason = check.options.get("reason") or {}
        where = (
            both("file ini", "this file")
            if "*" in functions
            else both("{f}", "{f}", f=", ".join(functions))
        )
        return Verdict(
            "failed",
            both(
                "Dilarang di {w}: {found}. {r}",
                "Forbidden in {w}: {found}. {r_en}",
                w=where,
                # Joined as data, never as a format string: a line of the student's file
                # (in a run-time hit) may hold braces.
                found=Text(id="; ".join(t.id for t in found), en="; ".join(t.en for t in found)),
                r=reason.get("id", ""),
                r_en=reason.get("en", ""),
            ),
        )


_MODULE = both("tingkat modul", "module level")


def _enclosing(tree):
    """line -> the dotted name of the innermost function or class around it (None at module
    level): a whole-file scan names where each hit is."""
    spans = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                spans.append((child.lineno, getattr(child, "end_lineno", child.lineno), name))
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")

    def find(line):
        inside = [s for s in spans if s[0] <= line <= s[1]]
        return max(inside, key=lambda s: s[0])[2] if inside else None

    return find


KINDS = [ForbiddenApi()]
