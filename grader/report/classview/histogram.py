"""report.html's score histogram: a PNG drawn with matplotlib's Agg backend (inline as a data
URL), or inline SVG where matplotlib is not installed, (report.html adds the same counts as a table)."""

from __future__ import annotations

import io

from grader.common import safetext
from grader.outcomes.classstats import ClassStats

BAR_COLOUR, FULL_COLOUR = "#4c72b0", "#2e8b57"


def _t(text, limit: int = 2000) -> str:
    return safetext.html(text, limit)


def _bin_label(low: float, high: float) -> str:
    return "100" if low == high else f"{low:g}–{high:g}"


def histogram_png(stats: ClassStats, w: dict) -> bytes | None:
    """The score distribution as a PNG (matplotlib, Agg backend, no pyplot state), or None
    where matplotlib is not installed. Byte for byte the same for the same stats and
    matplotlib version (no timestamp, no software tag)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        return None
    labels = [_bin_label(low, high) for low, high, _ in stats.distribution]
    counts = [n for _, _, n in stats.distribution]
    colours = [FULL_COLOUR if low == high else BAR_COLOUR for low, high, _ in stats.distribution]
    fig = Figure(figsize=(8.8, 3.4), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    bars = ax.bar(range(len(counts)), counts, color=colours, width=0.85)
    ax.bar_label(bars, labels=[str(n) if n else "" for n in counts], padding=2, fontsize=9)
    ax.set_xticks(range(len(labels)), labels, fontsize=8)
    ax.set_xlabel(w["score"])
    ax.set_ylabel(w["count"])
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(0, max(counts, default=0) * 1.15 + 0.5)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def histogram_svg(stats: ClassStats, w: dict) -> str:
    """The same bars as inline SVG, for a machine without matplotlib."""
    width, height, left, bottom, top = 880, 300, 50, 50, 20
    n = len(stats.distribution)
    most = max((c for _, _, c in stats.distribution), default=0) or 1
    step = (width - left - 10) / n
    parts = [
        f'<svg viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{_t(w["hist_alt"])}" '
        'font-family="sans-serif" font-size="11">',
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - 10}" y2="{height - bottom}" '
        'stroke="#333"/>',
    ]
    for i, (low, high, count) in enumerate(stats.distribution):
        h = (height - bottom - top) * count / most
        x = left + i * step + step * 0.075
        y = height - bottom - h
        colour = FULL_COLOUR if low == high else BAR_COLOUR
        parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{step * 0.85:.1f}" height="{h:.1f}" '
            f'fill="{colour}"/>'
        )
        cx = left + (i + 0.5) * step
        if count:
            parts.append(f'<text x="{cx:.1f}" y="{y - 4:.1f}" text-anchor="middle">{count}</text>')
        parts.append(
            f'<text x="{cx:.1f}" y="{height - bottom + 16}" text-anchor="middle">'
            f"{_t(_bin_label(low, high))}</text>"
        )
    parts.append(
        f'<text x="{left + (width - left) / 2:.0f}" y="{height - 10}" text-anchor="middle">'
        f"{_t(w['score'])}</text></svg>"
    )
    return "".join(parts)
