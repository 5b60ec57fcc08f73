"""What a student's code printed, cut to their own lines (grader.common.ownlines)."""

from __future__ import annotations

from grader.common.ownlines import output

SCRATCH = "/tmp/grader-x1y2/scratch"
TORCH = "/home/s/.venv/lib/python3.11/site-packages/torch/autograd/graph.py"

ANOMALY = f"""{TORCH}:979: UserWarning: Error detected in MulBackward0. Traceback of forward call that caused the error:
  File "/work/grader/sandbox/template.py", line 150, in main
    serve(request)
  File "/work/grader/sandbox/worker.py", line 90, in serve
    reply = probe(call)
  File "/work/exercises/nan_debugging/plugin/probes.py", line 40, in anomaly
    out = fn(*inputs)
  File "{SCRATCH}/nan_debugging.py", line 12, in log_softmax
    return torch.log(torch.exp(x) / torch.exp(x).sum(-1, keepdim=True))
 (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:122.)
  return Variable._execution_engine.run_backward(  # Calls into the C++ engine
"""  # noqa: E501


def test_anomaly_modes_warning_keeps_the_students_frame_only():
    got = output("before\n" + ANOMALY + "after\n", SCRATCH)
    assert got.splitlines() == [
        "before",
        "UserWarning: Error detected in MulBackward0. Traceback of forward call that caused "
        "the error:",
        '  File "nan_debugging.py", line 12, in log_softmax',
        "    return torch.log(torch.exp(x) / torch.exp(x).sum(-1, keepdim=True))",
        "after",
    ]


def test_a_repeated_warning_is_shown_once():
    got = output(ANOMALY + "middle\n" + ANOMALY + ANOMALY, SCRATCH)
    assert got.count("Error detected in MulBackward0") == 1
    assert got.count('File "nan_debugging.py"') == 1
    assert "middle" in got
    for word in ("grader", "plugin", "site-packages", ".cpp", "/tmp", "run_backward"):
        assert word not in got


def test_a_warning_at_the_students_line_names_it():
    text = f"{SCRATCH}/helpers/util.py:3: RuntimeWarning: overflow\n  y = x ** 400\n"
    assert output(text, SCRATCH).splitlines() == [
        "helpers/util.py:3: RuntimeWarning: overflow",
        "  y = x ** 400",
    ]


def test_a_traceback_the_student_printed_keeps_their_frames():
    text = (
        "Traceback (most recent call last):\n"
        '  File "/work/grader/sandbox/worker.py", line 90, in serve\n'
        "    reply = probe(call)\n"
        f'  File "{SCRATCH}/manual_gradient.py", line 7, in df\n'
        "    return 1 / x\n"
        "ZeroDivisionError: division by zero\n"
    )
    assert output(text, SCRATCH).splitlines() == [
        "Traceback (most recent call last):",
        '  File "manual_gradient.py", line 7, in df',
        "    return 1 / x",
        "ZeroDivisionError: division by zero",
    ]


def test_plain_output_stays_and_other_paths_are_shortened():
    text = f"loss 0.5 and/or 1/2\nsaved to {SCRATCH}/out.txt\nread /usr/share/data/x.csv\n"
    assert output(text, SCRATCH).splitlines() == [
        "loss 0.5 and/or 1/2",
        "saved to out.txt",
        "read x.csv",
    ]


def test_torchs_note_at_the_end_of_a_warnings_own_line_goes_too():
    """A warning whose text runs over several lines ends its last line with the note (the
    .grad of a non-leaf, a leak warning): the note goes, the text stays."""
    text = (
        f"{SCRATCH}/vector_backward.py:9: UserWarning: The .grad attribute of a Tensor that is "
        "not a leaf Tensor is being accessed.\n"
        "Its .grad attribute won't be populated during autograd.backward(). See "
        "github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at "
        "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)\n"
        "  return x.grad\n"
        f"{TORCH}:5: UserWarning: one line only (Triggered internally at "
        "/__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)\n"
    )
    got = output(text, SCRATCH)
    assert "Triggered internally" not in got
    assert "__w/pytorch" not in got and "TensorBody" not in got and "engine.cpp" not in got
    assert "for more information." in got
    assert "UserWarning: one line only" in got
