#!/usr/bin/env sh
# xlmodel 离线安装（Linux）— the offline install on Linux: the same install.py as on Windows (README.md),
# with the Python the bundle's wheels were downloaded for (manifest.json; PYTHON=... to name one):
#
#   sh install.sh [--venv FOLDER] [--force] [--engine libreoffice|gnumeric] [-- selftest arguments]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
want=$(sed -n 's/.*"python": *"\([0-9.]*\)".*/\1/p' "$here/manifest.json")
py=${PYTHON:-}
if [ -z "$py" ]; then
  for c in "python$want" python3; do
    if command -v "$c" >/dev/null 2>&1 && [ "$("$c" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" = "$want" ]; then
      py=$c
      break
    fi
  done
fi
if [ -z "$py" ]; then
  echo "[xlmodel] 未找到 Python $want — Python $want not found (PYTHON=/path/to/python$want sh install.sh)" >&2
  exit 2
fi
exec "$py" "$here/install.py" "$@"
