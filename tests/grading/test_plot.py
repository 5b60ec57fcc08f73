"""--plot: a PNG of a failed elementwise function, the student's curve and torch's, named in the
report; only for checks it can draw, and skipped cleanly without matplotlib."""

from __future__ import annotations

import shutil

import pytest
from conftest import SOLUTIONS, find_check

from grader.cli.main import main
from grader.grading import plot

pytestmark = pytest.mark.usefixtures("shared_template")  # see conftest

pytest.importorskip("matplotlib")


def test_plottable_checks(exercises):
    assert plot.plottable(find_check(exercises["manual_gradient"], "df_value"))
    assert plot.plottable(find_check(exercises["custom_sigmoid"], "forward_value"))
    assert not plot.plottable(find_check(exercises["manual_gradient"], "grad_g_value"))
    assert not plot.plottable(find_check(exercises["custom_sigmoid"], "backward_vjp"))


def test_plot_writes_a_png_of_the_failed_function(tmp_path, fast, capsys):
    sub = tmp_path / "sub"
    sub.mkdir()
    shutil.copyfile(
        SOLUTIONS / "mutants" / "manual_gradient" / "missing_chain_factor.py",
        sub / "manual_gradient.py",
    )
    out = tmp_path / "plots"
    assert (
        main(
            fast
            + [
                "check",
                "manual_gradient",
                "--submission",
                str(sub),
                "--only",
                "df_value",
                "grad_g_value",
                "--plot",
                str(out),
            ]
        )
        == 1
    )
    text = capsys.readouterr().out
    png = out / "manual_gradient-df_value.png"
    assert f"Plot manual_gradient.df_value: {png}" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert [p.name for p in out.iterdir()] == [png.name]  # grad_g has two inputs: no picture


def test_no_picture_when_everything_passes(tmp_path, fast, capsys):
    out = tmp_path / "plots"
    assert (
        main(
            fast
            + [
                "check",
                "manual_gradient",
                "--submission",
                str(SOLUTIONS),
                "--only",
                "df_value",
                "--plot",
                str(out),
            ]
        )
        == 0
    )
    assert not out.exists() and "Plot" not in capsys.readouterr().out
