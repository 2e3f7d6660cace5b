#!/usr/bin/env bash
# Regenerates the Scheduler Interface Go code (si/si.pb.go, si/si_grpc.pb.go)
# from si/si.proto with the tool versions pinned in scripts/tools.env.
#
#   scripts/gen-si.sh          regenerate in place
#   scripts/gen-si.sh --check  regenerate into a temporary directory and fail,
#                              printing a diff, if the committed code differs
#
# The protoc plugins are installed with `go install` into a private GOBIN
# outside the repository (PADDOCK_TOOLS, default ${TMPDIR:-/tmp}/paddock-tools).
# protoc itself comes from the Debian packages protobuf-compiler and
# libprotobuf-dev; when missing and running as root with apt-get, they are
# installed.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=generate
case "${1:-}" in
  "") ;;
  --check) mode=check ;;
  -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
  *) echo "gen-si.sh: unknown argument '$1' (want no argument or --check)" >&2; exit 2 ;;
esac

# shellcheck source=tools.env
. scripts/tools.env

die() { echo "gen-si.sh: $*" >&2; exit 1; }

# --- protoc ---------------------------------------------------------------
# wkt_include prints the directory holding google/protobuf/descriptor.proto:
# protoc's own include directory, else /usr/include.
wkt_include() {
  local bin dir
  bin=$(command -v protoc) || return 1
  for dir in "$(dirname "$bin")/../include" /usr/include; do
    if [ -f "$dir/google/protobuf/descriptor.proto" ]; then echo "$dir"; return 0; fi
  done
  return 1
}

if ! command -v protoc >/dev/null 2>&1 || ! wkt_include >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "gen-si.sh: installing protoc (apt-get install protobuf-compiler libprotobuf-dev)" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq protobuf-compiler libprotobuf-dev >/dev/null
  fi
fi
command -v protoc >/dev/null 2>&1 ||
  die "protoc not found: install protoc ${PROTOC_VERSION} (Debian: apt-get install protobuf-compiler libprotobuf-dev)"
wkt=$(wkt_include) ||
  die "google/protobuf/descriptor.proto not found next to protoc or in /usr/include (Debian: apt-get install libprotobuf-dev)"

have=$(protoc --version | awk '{print $2}')
[ "$have" = "$PROTOC_VERSION" ] ||
  die "protoc is version ${have}, but the committed code is generated with ${PROTOC_VERSION} (scripts/tools.env)"

# --- plugins --------------------------------------------------------------
tools="${PADDOCK_TOOLS:-${TMPDIR:-/tmp}/paddock-tools}"
gobin="$tools/protoc-gen-go-${PROTOC_GEN_GO_VERSION}_grpc-${PROTOC_GEN_GO_GRPC_VERSION}"
if [ ! -x "$gobin/protoc-gen-go" ] || [ ! -x "$gobin/protoc-gen-go-grpc" ]; then
  mkdir -p "$gobin"
  echo "gen-si.sh: installing protoc plugins into $gobin" >&2
  # @version installs ignore go.mod; run outside the module all the same.
  (cd "$gobin" &&
    GOBIN="$gobin" go install "google.golang.org/protobuf/cmd/protoc-gen-go@${PROTOC_GEN_GO_VERSION}" &&
    GOBIN="$gobin" go install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@${PROTOC_GEN_GO_GRPC_VERSION}") ||
    die "could not install the protoc plugins into $gobin"
fi

# --- generate -------------------------------------------------------------
generate() { # $1: output directory
  PATH="$gobin:$PATH" protoc -I si -I "$wkt" \
    --go_out="$1" --go_opt=paths=source_relative \
    --go-grpc_out="$1" --go-grpc_opt=paths=source_relative \
    si/si.proto
}

generated=(si.pb.go si_grpc.pb.go)

if [ "$mode" = generate ]; then
  generate si
  echo "gen-si.sh: regenerated ${generated[*]/#/si/}"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
generate "$tmp"
stale=0
for f in "${generated[@]}"; do
  if [ ! -f "si/$f" ]; then
    echo "gen-si.sh: si/$f is missing" >&2
    stale=1
  elif ! diff -u "si/$f" "$tmp/$f" --label "si/$f (committed)" --label "si/$f (regenerated)"; then
    stale=1
  fi
done
if [ "$stale" != 0 ]; then
  die "generated SI code is stale: run scripts/gen-si.sh and commit si/*.pb.go"
fi
echo "gen-si.sh: generated SI code is up to date"
