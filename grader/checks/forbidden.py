"""The forbidden_api kind: a static scan of the file plus the runtime trap's reports.

The scan follows imports and aliases to torch (grader.scan); the trap records forbidden calls
made while the listed functions ran during the exercise's other checks, so a call hidden from
the scan (through getattr, say) is still caught.
"""

from __future__ import annotations

from ..messages import both
from ..scan import scan
from ..yamlfile import NodeList
from .base import Kind, Verdict


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
            if not isinstance(value, NodeList) or not value or not all(
                    isinstance(v, str) for v in value):
                raise check.node.error(key, f"expected a non-empty list of names for `{key}`")
        for i, api in enumerate(check.options["apis"]):
            if not api.startswith("torch"):
                raise check.node.error("apis", f"apis[{i}] = {api!r}: name a torch API by its "
                                               "full path, e.g. torch.autograd.grad")

    def run(self, check, tree, runtime_hits: dict) -> Verdict | None:
        functions = list(check.options["functions"])
        apis = list(check.options["apis"])
        found = [f"{f.name} (baris/line {f.line}, {f.function})"
                 for f in scan(tree, functions, apis)]
        for fn, hits in sorted(runtime_hits.items()):
            if "*" in functions or fn in functions or fn.split(".")[0] in functions:
                found += [f"{api} ({fn}, runtime)" for api in sorted(hits)]
        if not found:
            return None
        reason = check.options.get("reason") or {}
        where = both("file ini", "this file") if "*" in functions else both(
            "{f}", "{f}", f=", ".join(functions))
        return Verdict("failed", both(
            "Dilarang di {w}: {found}. {r}", "Forbidden in {w}: {found}. {r_en}",
            w=where, found="; ".join(found), r=reason.get("id", ""), r_en=reason.get("en", "")))


KINDS = [ForbiddenApi()]
