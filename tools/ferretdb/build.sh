#!/usr/bin/env bash
# Builds the FerretDB test server (once per version of this module's sources) into tools/ferretdb/bin/
# and prints its path. The module pins FerretDB 1.24.2 in go.mod/go.sum; Go fetches it from the module
# proxy. The binary's name carries a hash of main.go, go.mod and go.sum, so a change to the wrapper (its
# flags) builds a new binary instead of running a stale one left in bin/.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sources=$(cat "$here/main.go" "$here/go.mod" "$here/go.sum" | sha256sum | cut -c1-12)
out="$here/bin/ferretdb-1.24.2-$sources"
if [[ ! -x $out ]]; then
  command -v go >/dev/null || { echo "ferretdb: Go is not installed; set MONGO_URL to a MongoDB server instead" >&2; exit 1; }
  echo "ferretdb: building FerretDB 1.24.2 from the Go module proxy (first build takes a few minutes)..." >&2
  mkdir -p "$here/bin"
  (cd "$here" && go build -trimpath -o "$out.tmp.$$" . && mv "$out.tmp.$$" "$out")
fi
echo "$out"
