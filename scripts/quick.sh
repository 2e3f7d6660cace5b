#!/usr/bin/env bash
# The quick test tier, a contributor's loop before each commit: gofmt, no
# merge conflict markers, go vet, and the main module's unit and scenario
# tests in short mode (go test -short), without the race detector. Under
# 3 minutes on 2 cores with a warm build cache.
#
#   bash scripts/quick.sh [go test flags, e.g. -run Preempt or -race]
#
# What it leaves to the full tier (scripts/test.sh, which CI runs): the
# race detector; the four tests short mode skips, each saying why (the
# 16 s soak with an injected leak, the two SIGKILL-restart runs, the replay
# paced in real time); the random-operation runs of internal/core/partition
# at 1,000 seeds (here PADDOCK_SEEDS=100, the fewest that still exercise
# gang preemption, with margin); the 60 s soak; the compat module; the
# browser tests; and the YuniKorn shim's suite.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/lint.sh

echo "== go test -short"
PADDOCK_SEEDS=${PADDOCK_SEEDS:-100} go test -short -count=1 "$@" ./...
