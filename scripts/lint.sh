#!/usr/bin/env bash
# The source checks both test tiers start with (scripts/quick.sh,
# scripts/test.sh): gofmt, no merge conflict markers, go vet of the main
# module. Needs only Go.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go') || true)
if [ -n "$unformatted" ]; then
  echo "gofmt wants to rewrite:"; echo "$unformatted"; exit 1
fi

echo "== merge conflict markers"
if git rev-parse --git-dir >/dev/null 2>&1 && git grep -nE '^(<<<<<<<|>>>>>>>)( |$)' -- .; then
  echo "conflict markers left in the files above"; exit 1
fi

echo "== go vet"
go vet ./...
