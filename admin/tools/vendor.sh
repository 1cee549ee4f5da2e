#!/usr/bin/env bash
# Maintainers only: refreshes the committed third-party browser files of the
# admin. Module users never run it (they need no Node.js).
#
# It installs the exact versions that package-lock.json pins (npm ci checks
# each package's integrity hash) in a temporary folder, then copies:
#   - Trix, SortableJS, Leaflet and supercluster, served by the admin, into
#       admin/static/vendor/<name>@<version>/   and writes
#       admin/static/vendor/SHA256SUMS
#   - axe-core, for the browser tests only (never served, never embedded by
#     package admin), into
#       admin/internal/browsertest/testdata/axe-core@<version>/  with its own
#       SHA256SUMS
# Older <name>@<version> folders are removed. Files are copied unchanged, so
# their checksums match the npm tarballs'.
#
# To update: change the versions in admin/tools/package.json, run
#   (cd admin/tools && npm install --package-lock-only --ignore-scripts)
#   admin/tools/vendor.sh
# then update the versions in admin/static/vendor/README.md and the pages'
# <script>/<link> paths (and browsertest's go:embed path for axe-core), and
# run: go test ./admin/... && go test -tags browser ./admin/...
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
admin=$(dirname "$here")
static_vendor="$admin/static/vendor"
test_vendor="$admin/internal/browsertest/testdata"

command -v npm >/dev/null || { echo "vendor.sh: npm (Node.js 18+) is needed" >&2; exit 1; }
command -v sha256sum >/dev/null || { echo "vendor.sh: sha256sum (coreutils) is needed" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/package.json" "$here/package-lock.json" "$work/"
(cd "$work" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
nm="$work/node_modules"

# version PKG prints the installed version of an npm package.
version() { node -p "require(process.argv[1]).version" "$nm/$1/package.json"; }

# install ROOT NAME FROM:TO... replaces ROOT/NAME@* with ROOT/NAME@<version>
# holding each node_modules/NAME/FROM copied as TO.
install() {
  local root=$1 name=$2; shift 2
  local dest="$root/$name@$(version "$name")"
  rm -rf "$root/$name"@*
  mkdir -p "$dest"
  local pair
  for pair in "$@"; do
    mkdir -p "$(dirname "$dest/${pair##*:}")"
    cp "$nm/$name/${pair%%:*}" "$dest/${pair##*:}"
  done
  echo "vendor.sh: $dest"
}

# sums DIR writes DIR/SHA256SUMS over every file under DIR except itself and
# README.md, sorted, in `sha256sum -c` format.
sums() {
  (cd "$1" && find . -type f ! -name SHA256SUMS ! -name README.md | sed 's|^\./||' | LC_ALL=C sort |
    while read -r f; do sha256sum "$f"; done) > "$work/SHA256SUMS"
  mv "$work/SHA256SUMS" "$1/SHA256SUMS"
}

mkdir -p "$static_vendor" "$test_vendor"

# Trix bundles DOMPurify (Apache-2.0 OR MPL-2.0, we take Apache-2.0): its
# licence travels with it. The pinned dompurify is the version Trix's bundle
# names in its @license comment.
bundled=$(grep -o '@license DOMPurify [0-9.]*' "$nm/trix/dist/trix.esm.min.js" | awk '{print $3}')
if [ "$bundled" != "$(version dompurify)" ]; then
  echo "vendor.sh: trix bundles DOMPurify $bundled but package.json pins dompurify $(version dompurify): pin $bundled" >&2
  exit 1
fi
install "$static_vendor" trix \
  dist/trix.esm.min.js:trix.esm.min.js dist/trix.css:trix.css LICENSE:LICENSE \
  ../dompurify/LICENSE:LICENSE.DOMPurify
install "$static_vendor" sortablejs Sortable.min.js:Sortable.min.js LICENSE:LICENSE
install "$static_vendor" leaflet \
  dist/leaflet.js:leaflet.js dist/leaflet.css:leaflet.css LICENSE:LICENSE \
  dist/images/layers.png:images/layers.png dist/images/layers-2x.png:images/layers-2x.png \
  dist/images/marker-icon.png:images/marker-icon.png dist/images/marker-icon-2x.png:images/marker-icon-2x.png \
  dist/images/marker-shadow.png:images/marker-shadow.png
# supercluster's UMD bundle includes kdbush (ISC): its licence travels with it.
install "$static_vendor" supercluster \
  dist/supercluster.min.js:supercluster.min.js LICENSE:LICENSE ../kdbush/LICENSE:LICENSE.kdbush
sums "$static_vendor"

install "$test_vendor" axe-core axe.min.js:axe.min.js LICENSE:LICENSE LICENSE-3RD-PARTY.txt:LICENSE-3RD-PARTY.txt
sums "$test_vendor/axe-core@$(version axe-core)"

echo "vendor.sh: done; check admin/static/vendor/README.md names these versions"
