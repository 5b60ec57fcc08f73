# The teacher's reference code (an exercise plugin's teacher.py) must be out of reach: by import,
# through a plugin package the worker's template loaded, and by path from the grader's own files.
import os
import sys

_places = []
for name, module in list(sys.modules.items()):
    if name.startswith("grader_plugins.") and name.count(".") == 1:
        _places += [os.path.join(p, "teacher.py") for p in getattr(module, "__path__", [])]
    if name.startswith("grader") and getattr(module, "__file__", None):
        root = os.path.dirname(os.path.abspath(module.__file__))
        while root != os.path.dirname(root) and not os.path.isdir(os.path.join(root, "exercises")):
            root = os.path.dirname(root)
        _places.append(os.path.join(root, "exercises", "gradient_penalty", "plugin", "teacher.py"))
try:
    from grader_plugins.gradient_penalty import teacher  # noqa: F401
except ImportError:
    pass
else:
    raise SystemExit("imported the teacher's reference code")
for place in _places:
    if os.path.exists(place):
        exec(open(place).read())
        raise SystemExit("read the teacher's reference code at " + place)
raise FileNotFoundError("reference code not found")
