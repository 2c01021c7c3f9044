#!/usr/bin/env bash
# Builds the FerretDB test server (once) into tools/ferretdb/bin/ and prints its path.
# The module pins FerretDB 1.24.2 in go.mod/go.sum; Go fetches it from the module proxy.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out="$here/bin/ferretdb-1.24.2"
if [[ ! -x $out ]]; then
  command -v go >/dev/null || { echo "ferretdb: Go is not installed; set MONGO_URL to a MongoDB server instead" >&2; exit 1; }
  echo "ferretdb: building FerretDB 1.24.2 from the Go module proxy (first build takes a few minutes)..." >&2
  (cd "$here" && go build -trimpath -o "$out.tmp" . && mv "$out.tmp" "$out")
fi
echo "$out"
