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
