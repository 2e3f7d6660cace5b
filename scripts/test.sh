#!/usr/bin/env bash
# The project's test command (README.md): formatting, vet and the
# race-enabled test suite. Needs only Go.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go') || true)
if [ -n "$unformatted" ]; then
  echo "gofmt wants to rewrite:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== go test -race"
go test -race -count=1 ./...

echo "== compat/yunikorn-core (its own module)"
(cd compat/yunikorn-core && go vet ./... && go test -race -count=1 ./...)

# The YuniKorn Kubernetes shim's own test suite on Paddock, when its source
# is next to the checkout (K8SHIM_DIR overrides; PADDOCK_SKIP_K8SHIM=1 skips).
shim=${K8SHIM_DIR:-../shared/peers/yunikorn-k8shim}
if [ -z "${PADDOCK_SKIP_K8SHIM:-}" ] && [ -f "$shim/go.mod" ]; then
  echo "== the YuniKorn shim's suite on Paddock (scripts/k8shim-test)"
  bash scripts/k8shim-test "$shim"
else
  echo "== the YuniKorn shim's suite: skipped (PADDOCK_SKIP_K8SHIM set, or no shim source at $shim)"
fi
