#!/usr/bin/env bash
# Set up everything the tests need on this machine, as the README's test command and .ci/run do:
#
#     bash tools/setup-tests.sh && .venv/bin/python -m pytest
#
# - the venv (.venv) with xlmodel and its test dependencies at the versions of constraints.txt (the ones
#   the whole suite passed with; tests/test_lock.py holds them to pyproject.toml's ranges);
# - the two spreadsheet engines the parity tests recalculate in (LibreOffice Calc, Gnumeric), their Python
#   bindings (LibreOffice's script provider runs the reader inside soffice; Gnumeric's introspection
#   bindings, for Debian's Python) and a CJK TrueType font the tests embed in the plan PDFs they print
#   (tests/plan_documents.py): Debian packages, installed as root (or with sudo without a password).
#
# Where a package cannot be installed (no apt-get, not root), it says what is missing and the tests that
# need it skip with the reason; in CI (CI set) that is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

gnm='import gi; gi.require_version("Gnm", "1.12"); from gi.repository import Gnm'
need=()
command -v soffice >/dev/null 2>&1 || need+=(libreoffice-calc-nogui)
command -v ssconvert >/dev/null 2>&1 || need+=(gnumeric)
[ -f /usr/share/fonts/truetype/wqy/wqy-zenhei.ttc ] || need+=(fonts-wqy-zenhei)
[ -f /usr/lib/libreoffice/program/pythonscript.py ] || need+=(libreoffice-script-provider-python)
/usr/bin/python3 -c "$gnm" >/dev/null 2>&1 || need+=(python3-gi gir1.2-gnumeric)

as_root=
if [ "$(id -u)" = 0 ]; then as_root=" "; elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then as_root="sudo -n"; fi
apt_job=
if [ ${#need[@]} -gt 0 ]; then
  if [ -n "$as_root" ] && command -v apt-get >/dev/null 2>&1; then
    # installed while the venv is made (about a minute on a fresh machine, beside pip's half minute)
    ( export DEBIAN_FRONTEND=noninteractive
      $as_root apt-get update -qq && $as_root apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null ) &
    apt_job=$!
  else
    echo "缺少 missing: ${need[*]} — 需要它们的测试将跳过并说明原因 the tests that need them skip with the reason" \
         "(as root: apt-get install --no-install-recommends ${need[*]})" >&2
    [ -z "${CI:-}" ] || exit 1
  fi
fi

python3 -m venv .venv
.venv/bin/pip install -q -c constraints.txt -e '.[test]'
if [ -n "$apt_job" ]; then
  wait "$apt_job"  # its failure stops the set-up (set -e)
fi
# what the tests will find
if command -v soffice >/dev/null 2>&1; then soffice --version; fi
if command -v ssconvert >/dev/null 2>&1; then ssconvert --version | sed -n 1p; fi
if /usr/bin/python3 -c "$gnm" >/dev/null 2>&1; then /usr/bin/python3 -c "$gnm; print('gir1.2-gnumeric', Gnm._version)"; fi
