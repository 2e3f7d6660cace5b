#!/usr/bin/env bash
# The project's test command (README.md): formatting, vet, generated-code
# drift and the race-enabled test suite. Installs what it needs (protoc and
# the pinned protoc plugins) on a fresh Debian machine.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go') | grep -v '\.pb\.go$' || true)
if [ -n "$unformatted" ]; then
  echo "gofmt wants to rewrite:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== generated SI code is up to date"
bash scripts/gen-si.sh --check

echo "== go test -race"
go test -race -count=1 ./...
