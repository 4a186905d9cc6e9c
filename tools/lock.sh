#!/usr/bin/env sh
# Regenerate constraints.txt: the newest versions pyproject.toml admits, installed in a fresh venv, frozen.
#
#     sh tools/lock.sh            # writes constraints.txt; then run the whole suite before committing it
#
# The README's commands and .ci/run install with `-c constraints.txt`, so every machine runs the suite
# on these versions; pyproject.toml keeps the ranges a user's own environment may satisfy, and
# tests/test_lock.py fails when the two disagree. Move the lock only when the whole suite passes on it.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q -e '.[test]'
{
  echo "# The versions the whole test suite passed with (Python 3.11, Linux): the README's commands and .ci/run"
  echo "# install with -c constraints.txt. Regenerate with: sh tools/lock.sh (then run the suite before committing)."
  "$tmp/venv/bin/pip" freeze --exclude-editable | grep -v '^#' | LC_ALL=C sort -f
} > constraints.txt.new
mv constraints.txt.new constraints.txt
echo "constraints.txt: $(grep -vc '^#' constraints.txt) packages"
