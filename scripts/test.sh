#!/usr/bin/env bash
# The project's test command (README.md) and CI's (.ci/run): formatting,
# vet, the race-enabled test suite in full, a 60 s soak, the compat
# module, the browser tests and the shim's suite. Needs only Go (the
# browser tests and the shim's suite run when their inputs are there).
# scripts/quick.sh is the contributor's quick loop.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/lint.sh   # gofmt, merge conflict markers, go vet

echo "== go test -race"
go test -race -count=1 -timeout 30m ./...

echo "== a 60 s soak: goroutines, heap and RSS must not grow after warm-up (paddock-harness soak; docs/reliability.md)"
go run ./test/paddock-harness soak -duration 60s -warm-up 25s -event-ring 5000 -q

echo "== compat/yunikorn-core (its own module)"
(cd compat/yunikorn-core && go vet ./... && go test -race -count=1 ./...)

# The browser tests (e2e/webui, its own module): the YuniKorn web UI on
# Paddock when the UI build is next to the checkout (WEBUI_DIR overrides),
# and the replay's HTML report (needs chromium only). Chromium comes from
# Debian's packages when the UI build is there and it is missing
# (PADDOCK_SKIP_WEBUI=1 skips both).
webui=${WEBUI_DIR:-../shared/peers/yunikorn-web}
if [ -z "${PADDOCK_SKIP_WEBUI:-}" ]; then
  if [ -f "$webui/index.html" ] && ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium"
    (apt-get update -q >/dev/null 2>&1 || true)
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
  fi
  if [ -f "$webui/index.html" ]; then
    echo "== the YuniKorn web UI and the replay report in chromium (e2e/webui)"
    webui_abs=$(cd "$webui" && pwd)
    (cd e2e/webui && go vet ./... && WEBUI_DIR="$webui_abs" go test -count=1 ./...)
  elif command -v chromium >/dev/null 2>&1; then
    echo "== the replay report in chromium (e2e/webui; no web UI build at $webui)"
    (cd e2e/webui && go vet ./... && go test -count=1 -run TestReplayReport ./...)
  else
    echo "== browser tests: skipped (no chromium and no UI build at $webui)"
  fi
else
  echo "== browser tests: skipped (PADDOCK_SKIP_WEBUI set)"
fi

# The Kubernetes harness's own unit tests (e2e/kubernetes, its own module:
# flags, the stall guard, the chart's objects); the harness itself needs a
# control plane build and runs by hand (docs/kubernetes.md).
echo "== e2e/kubernetes unit tests"
(cd e2e/kubernetes && go vet ./... && go test -count=1 ./...)

# The YuniKorn Kubernetes shim's own test suite on Paddock, when its source
# is next to the checkout (K8SHIM_DIR overrides; PADDOCK_SKIP_K8SHIM=1 skips).
shim=${K8SHIM_DIR:-../shared/peers/yunikorn-k8shim}
if [ -z "${PADDOCK_SKIP_K8SHIM:-}" ] && [ -f "$shim/go.mod" ]; then
  echo "== the YuniKorn shim's suite on Paddock (scripts/k8shim-test)"
  bash scripts/k8shim-test "$shim"
else
  echo "== the YuniKorn shim's suite: skipped (PADDOCK_SKIP_K8SHIM set, or no shim source at $shim)"
fi
