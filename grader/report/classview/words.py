"""report.html's words in both languages (summary.md's and the page's own), its style sheet, and
how a text reaches the page: escaped, whatever it holds (a submission named `<script>` is shown
as that text)."""

from __future__ import annotations

from grader.common import safetext
from grader.report import markdown

_WORDS = {
    "id": {
        "page": "Laporan kelas",
        "exercises_rank": "Latihan, tingkat lulus terendah dulu",
        "hist_alt": "Histogram nilai kelas",
        "table": "Tabel",
        "late": "Kiriman terlambat",
        "no_deadline": "Tanpa tenggat.",
        "no_late": "Tidak ada kiriman terlambat.",
        "submission": "Kiriman",
        "details": "Keterangan",
        "similar": "Pasangan kiriman yang mirip",
        "similar_note": "Pasangan untuk dilihat sendiri, bukan temuan.",
        "no_similar": "Tidak ada pasangan yang mirip.",
        "similarity": "Kemiripan",
        "changes": "Yang berubah sejak penilaian sebelumnya",
        "no_changes": "Tidak ada kiriman yang berubah sejak penilaian sebelumnya.",
        "score_change": "Nilai",
        "since": "Sejak run",
        "flips": "Pemeriksaan yang berubah",
        "because": "Sebab",
        "no_flip": "tidak ada pemeriksaan yang berubah",
        "timing": "berkas, spesifikasi, seed dan versi sama (tergantung waktu?)",
        "absent": "tidak ada",
        "file_changed": "{ex}: berkas siswa diubah",
        "file_added": "{ex}: berkas siswa ditambahkan",
        "file_removed": "{ex}: berkas siswa dihapus",
        "spec_changed": "{ex}: spesifikasi latihan berubah",
    },
    "en": {
        "page": "Class report",
        "exercises_rank": "Exercises, lowest pass rate first",
        "hist_alt": "Histogram of the class's scores",
        "table": "Table",
        "late": "Late submissions",
        "no_deadline": "No deadline.",
        "no_late": "No late submissions.",
        "submission": "Submission",
        "details": "Details",
        "similar": "Similar pairs of submissions",
        "similar_note": "Pairs to look at yourself, not findings.",
        "no_similar": "No similar pairs.",
        "similarity": "Similarity",
        "changes": "What changed since the previous run",
        "no_changes": "No submission changed since its previous run.",
        "score_change": "Score",
        "since": "Since run",
        "flips": "Checks that flipped",
        "because": "Because",
        "no_flip": "no check flipped",
        "timing": "same files, specs, seed and versions (timing-dependent?)",
        "absent": "absent",
        "file_changed": "{ex}: the student's file was changed",
        "file_added": "{ex}: the student's file was added",
        "file_removed": "{ex}: the student's file was removed",
        "spec_changed": "{ex}: the exercise spec changed",
    },
}
LABELS = {lang: {**markdown.LABELS[lang], **words} for lang, words in _WORDS.items()}
"""summary.md's words (grader.report.markdown.LABELS) and the page's own."""

STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;
background:#f6f7f9;margin:0}
main{max-width:1100px;margin:0 auto;padding:24px 28px 48px;background:#fff}
h1{font-size:1.6em;margin:.2em 0 .4em}h2{font-size:1.2em;margin:1.6em 0 .5em;
border-bottom:1px solid #dde1e8;padding-bottom:.2em}
.lead{font-size:1.05em}.note{color:#586174;font-size:.92em}.warn{background:#fff4d6;
border-left:4px solid #e0a800;padding:.5em .8em}
table{border-collapse:collapse;width:100%;font-size:.93em}
th,td{border-bottom:1px solid #e6e9ef;padding:.35em .5em;text-align:left;vertical-align:top}
th{background:#f0f2f6;font-weight:600}.n{text-align:right;white-space:nowrap}
code{font:.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f0f2f6;
padding:0 .25em;border-radius:3px;overflow-wrap:anywhere}
.tag{font-size:.8em;color:#586174;font-style:italic}
.bar{display:inline-block;width:120px;height:.8em;background:#e6e9ef;border-radius:2px;
vertical-align:middle}.bar>span{display:block;height:100%;border-radius:2px}
figure{margin:.5em 0}figure img,figure svg{max-width:100%;height:auto}
details{margin:.4em 0}summary{cursor:pointer;color:#586174}
"""


def t(text, limit: int = 2000) -> str:
    """Any text, escaped for the page and cut at `limit` characters."""
    return safetext.html(text, limit)


def code(text, limit: int = 300) -> str:
    """Any text as escaped inline code."""
    return f"<code>{t(text, limit)}</code>"
