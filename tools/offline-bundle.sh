#!/usr/bin/env sh
# Build the offline bundle a CFO office's IT installs on a PC without internet (docs/offline-install.md):
# xlmodel's wheel, the wheels of every dependency at constraints.txt's versions for the target platform,
# the install scripts (tools/offline/: install.bat/install.ps1 on Windows, install.sh on Linux, both running
# install.py), constraints.txt, manifest.json, SHA256SUMS and the page as README.md, zipped:
#
#   sh tools/offline-bundle.sh                      # dist/xlmodel-offline-win64.zip: Windows x64, Python 3.12
#   sh tools/offline-bundle.sh --platform host      # dist/xlmodel-offline-linux.zip: this machine, its Python
#
# Options: --python-version X.Y (win64; default 3.12), --out DIR (default dist), --python-installer FILE (the
# python.org installer, python-X.Y.Z-amd64.exe, put in the bundle for PCs without Python), --force (replace
# an existing zip). Needs the package index (pip download) once, here; the PC needs nothing.
set -eu
cd "$(dirname "$0")/.."
platform=win64
pyver=3.12
out=dist
installer=""
force=0
while [ $# -gt 0 ]; do
  case "$1" in
    --platform) platform=$2; shift 2 ;;
    --python-version) pyver=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --python-installer) installer=$2; shift 2 ;;
    --force) force=1; shift ;;
    *) echo "offline-bundle: 未知参数 unknown argument: $1" >&2; exit 2 ;;
  esac
done
PY=${PYTHON:-python3}
case $PY in /*) ;; */*) PY="$(pwd)/$PY" ;; esac  # the steps below change folder
case $platform in
  win64) name=xlmodel-offline-win64; target="--platform win_amd64 --python-version $pyver --implementation cp --abi cp$(echo "$pyver" | tr -d .)" ;;
  host) name=xlmodel-offline-linux; pyver=$($PY -c 'import sys; print("%d.%d" % sys.version_info[:2])'); target="" ;;
  *) echo "offline-bundle: --platform win64 或 host, got $platform" >&2; exit 2 ;;
esac
mkdir -p "$out"
zip="$(cd "$out" && pwd)/$name.zip"
if [ -e "$zip" ] && [ "$force" != 1 ]; then
  echo "offline-bundle: $zip 已存在，如要替换请加 --force — exists; pass --force to replace it" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stage="$tmp/$name"
mkdir -p "$stage/wheels"
$PY -m pip wheel -q --no-deps -w "$stage/wheels" .
# every dependency as a wheel for the target (never an sdist: the PC has no compiler), at the pinned versions
# shellcheck disable=SC2086
$PY -m pip download -q --only-binary=:all: $target -c constraints.txt -d "$stage/wheels" "$stage"/wheels/xlmodel-*.whl
# what the wheels require on the target that the host's markers left out (Windows: pywin32, colorama)
for _ in 1 2 3 4 5; do
  more=$($PY tools/offline/missing_deps.py "$stage/wheels" "$platform" "$pyver")
  [ -n "$more" ] || break
  echo "$more" > "$tmp/more.txt"
  # shellcheck disable=SC2086
  $PY -m pip download -q --only-binary=:all: $target -c constraints.txt -d "$stage/wheels" -r "$tmp/more.txt"
done
if [ -n "$($PY tools/offline/missing_deps.py "$stage/wheels" "$platform" "$pyver")" ]; then
  echo "offline-bundle: 仍缺少依赖 dependencies still missing" >&2
  exit 1
fi
cp tools/offline/install.py tools/offline/install.sh tools/offline/install.ps1 tools/offline/install.bat "$stage/"
cp constraints.txt "$stage/"
cp docs/offline-install.md "$stage/README.md"
if [ -n "$installer" ]; then cp "$installer" "$stage/"; fi
version=$($PY -c 'import re; print(re.search(r"^version = \"(.+)\"", open("pyproject.toml", encoding="utf-8").read(), re.M).group(1))')
printf '{"xlmodel": "%s", "platform": "%s", "python": "%s"}\n' "$version" "$platform" "$pyver" > "$stage/manifest.json"
(cd "$stage/wheels" && $PY -c 'import hashlib, pathlib; [print(hashlib.sha256(p.read_bytes()).hexdigest(), p.name) for p in sorted(pathlib.Path(".").glob("*.whl"))]') > "$stage/SHA256SUMS"
rm -f "$zip"
(cd "$tmp" && $PY -m zipfile -c "$zip" "$name")
n=$(ls "$stage/wheels" | wc -l | tr -d ' ')
size=$($PY -c "import os, sys; print(f'{os.path.getsize(sys.argv[1]) / 2**20:.1f} MiB')" "$zip")
echo "已写入 wrote $zip: $n wheels, Python $pyver, $size"
