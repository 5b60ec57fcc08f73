#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder's image; the files of the
# zip are in /autograder/source. Built by `python -m grader gradescope autograder.zip`.
set -euo pipefail
apt-get update
apt-get install -y --no-install-recommends python3 python3-pip python3-venv
python3 -m venv /autograder/venv
# The CPU build of torch; the default index would download the much larger CUDA build.
/autograder/venv/bin/pip install --extra-index-url https://download.pytorch.org/whl/cpu \
    -r /autograder/source/requirements.txt
