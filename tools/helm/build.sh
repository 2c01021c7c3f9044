#!/usr/bin/env bash
# Builds helm (helm.sh/helm/v4, the version below) from the Go module proxy into tools/helm/bin/ once, and
# prints its path. The chart's test (test/deploy/helm-chart.test.ts) lints and renders deploy/helm/leasecron
# with it. No registry this project may use ships a helm binary; the Go module proxy serves its source.
set -euo pipefail
version=v4.3.2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out="$here/bin/helm-$version"
if [[ ! -x $out ]]; then
  command -v go >/dev/null || { echo "helm: Go is not installed, so helm $version cannot be built" >&2; exit 1; }
  echo "helm: building helm $version from the Go module proxy (the first build takes a few minutes)..." >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  GOBIN="$tmp" go install "helm.sh/helm/v4/cmd/helm@$version"
  mkdir -p "$here/bin"
  mv "$tmp/helm" "$out"
fi
echo "$out"
