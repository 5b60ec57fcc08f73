"""Views of a whole class that look across submissions instead of at one result, and compute
what they show (unlike the reporters beside them): the class report page (page.py, with its
sections: the students in frontpage.py, the pass rates in rates.py, the mistakes and causes the
class hit in causes.py, the pairs ranked across the course in ranking.py and pairsview.py, what
changed since the previous run in changes.py, its words in words.py), grade
exports for learning management systems (lms.py), and which submissions of one exercise hold
similar code (similarity.py: copydetect's winnowed fingerprints with the starter's lines and
the course's own answers discounted, shown on a static HTML page and in summary.md lines as
pairs to look at, never as findings).
"""
