"""Views of a whole class that look across submissions instead of at one result, and compute
what they show (unlike the reporters beside them): the class report page (page.py), grade
exports for learning management systems (lms.py), and which submissions of one exercise hold
similar code (similarity.py: copydetect's winnowed fingerprints with the starter's lines and
the course's own answers discounted, shown on a static HTML page and in summary.md lines as
pairs to look at, never as findings).
"""
