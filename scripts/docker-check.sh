#!/usr/bin/env bash
# Builds the production image (Dockerfile) and runs it the way a user would, on an engine of its own:
# /healthz answers 200, Docker's HEALTHCHECK reports healthy, the server is not root, --demo seeds
# its world, and an edit made over WebSocket is still there after `docker stop` (SIGTERM flush) and
# `docker start` on the same volume; and that it runs the Node.js major its base names with the collab
# listener on uWebSockets.js (`collab transport: uws` in its log). Prints the image's size over its
# base and the time taken.
#
#   bash scripts/docker-check.sh        (root; .ci/run calls it after the tests)
#
# The engine: Debian's docker.io (and debootstrap) are installed when missing; dockerd is started
# here in the background with its data root, exec root, pid file and socket under a temp dir, the
# vfs storage driver and no bridge or iptables (it touches nothing of the host's network or of any
# other engine), and stopped by its PID at the end. Containers use the host's network and bind
# 127.0.0.1 on free ports.
#
# The base image: when the Dockerfile's FROM (node:24-trixie-slim) cannot be pulled, as on machines
# that reach only Debian's mirror and the npm registry, a STAND-IN is built and tagged with that
# name: a Debian trixie minbase root (debootstrap, from the mirror apt uses here) with Node 24 in
# /usr/local (the official build, from the pinned npm package scripts/node24.sh installs and checks)
# and this machine's npm beside it, set up as on this machine (registry, proxies, and this
# machine's CA bundle as its cafile, so `npm ci` inside the build reaches the registry). Users pull
# the real image; the stand-in only stands in for it here.
#
# A failing step names itself, shows the tail of its log and exits 1. Only an engine that cannot
# start at all ends the check early with exit 0 and a one-line reason.
set -euo pipefail
cd "$(dirname "$0")/.."

START=$(date +%s)
TMP=$(mktemp -d /tmp/tandem-docker.XXXXXX)
SOCK="unix://$TMP/docker.sock"
IMAGE=tandem:check
NAME=tandem-check-$$
VOLUME=tandem-check-data-$$
DOCKERD_PID=
DOCKER=docker

say() { printf 'docker-check: %s\n' "$*"; }
# The client that came with the engine (Debian's docker.io): it has BuildKit built in, where a newer
# client elsewhere on PATH may want the buildx plugin for it.
docker_() { "$DOCKER" -H "$SOCK" "$@"; }

# step NAME FUNCTION [ARGS...]: runs FUNCTION with errexit on, its output into $TMP/NAME.log.
step() {
  local name=$1
  shift
  local log="$TMP/$name.log" t0=$SECONDS rc=0
  CURRENT=$name
  set +e
  (
    set -e
    "$@"
  ) >"$log" 2>&1
  rc=$?
  set -e
  if [ "$rc" -ne 0 ]; then
    say "step '$name' FAILED (exit $rc); last 40 lines of its log:"
    tail -n 40 "$log" | sed 's/^/  | /'
    exit 1
  fi
  say "$name: ok ($((SECONDS - t0)) s)$(test -s "$TMP/$name.note" && printf ' - %s' "$(cat "$TMP/$name.note")")"
}
note() { printf '%s' "$*" >"$TMP/$CURRENT.note"; }

cleanup() {
  local rc=$?
  if [ -n "$DOCKERD_PID" ] && kill -0 "$DOCKERD_PID" 2>/dev/null; then
    docker_ rm -f "$NAME" >/dev/null 2>&1 || true
    kill "$DOCKERD_PID" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$DOCKERD_PID" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$DOCKERD_PID" 2>/dev/null; then
      say "dockerd (pid $DOCKERD_PID) did not stop within 30 s of SIGTERM: killing it"
      kill -9 "$DOCKERD_PID" 2>/dev/null || true
    fi
    wait "$DOCKERD_PID" 2>/dev/null || true
  fi
  # the engine leaves its network namespace mounted under the exec root
  awk -v dir="$TMP/" 'index($2, dir) == 1 { print $2 }' /proc/mounts | sort -r | xargs -r -n1 umount 2>/dev/null || true
  rm -rf "$TMP" 2>/dev/null || say "could not remove all of $TMP"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the engine -------------------------------------------------------------------------------

install_tools() {
  local missing=()
  command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
  command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
  dockerd --version && command -v debootstrap
}

start_engine() {
  # the daemon's own output goes to its own log, shown when it fails to come up
  dockerd --storage-driver vfs --iptables=false --ip-masq=false --bridge=none \
    --data-root "$TMP/data" --exec-root "$TMP/exec" --pidfile "$TMP/dockerd.pid" -H "$SOCK" \
    >"$TMP/dockerd.log" 2>&1 &
  DOCKERD_PID=$!
  for _ in $(seq 1 120); do
    if docker_ version >/dev/null 2>&1; then
      docker_ version
      return 0
    fi
    kill -0 "$DOCKERD_PID" 2>/dev/null || break
    sleep 0.5
  done
  return 1
}

# --- the base image ---------------------------------------------------------------------------

BASE=$(awk 'toupper($1) == "FROM" { print $2; exit }' Dockerfile)
# node:<major>-<debian suite>-slim: what the stand-in is built as, and what the container must run
[[ $BASE =~ ^node:([0-9]+)-([a-z]+)-slim$ ]] || {
  say "the Dockerfile's FROM ($BASE) is not node:<major>-<suite>-slim"
  exit 1
}
NODE_MAJOR=${BASH_REMATCH[1]}
SUITE=${BASH_REMATCH[2]}

# The Debian mirror apt is configured with here (the host's own suite's main component; the
# stand-in's suite is taken from the same mirror).
debian_mirror() {
  local m
  m=$(apt-cache policy 2>/dev/null | awk '$3 ~ /^[a-z]+\/main$/ && $0 ~ /Packages/ { print $2; exit }')
  printf '%s' "${m:-http://deb.debian.org/debian}"
}

# npm's settings as this machine has them, for the build inside the image: registry, proxies and
# the CA bundle (as a file inside the image). Credentials are never copied.
npmrc() {
  echo "registry=$(npm config get registry)"
  echo "cafile=/etc/ssl/certs/ca-certificates.crt"
  local k v
  for k in proxy https-proxy noproxy; do
    v=$(npm config get "$k" 2>/dev/null || true)
    case "$v" in '' | null | undefined) ;; *) echo "$k=$v" ;; esac
  done
}

base_image() {
  if timeout 60 "$DOCKER" -H "$SOCK" pull "$BASE"; then
    note "pulled $BASE"
    return 0
  fi
  echo "cannot pull $BASE: building a stand-in"
  local root="$TMP/base" mirror node
  mirror=$(debian_mirror)
  [ "$NODE_MAJOR" = 24 ] || { echo "the stand-in carries Node 24 (scripts/node24.sh), not $NODE_MAJOR"; return 1; }
  node="$(bash scripts/node24.sh)/node"
  echo "debootstrap --variant=minbase $SUITE from $mirror"
  debootstrap --variant=minbase "$SUITE" "$root" "$mirror"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  # node:24-trixie-slim keeps node and npm in /usr/local
  install -D -m 0755 "$node" "$root/usr/local/bin/node"
  mkdir -p "$root/usr/local/lib/node_modules" "$root/usr/local/etc" "$root/etc/ssl/certs"
  cp -a "$(npm root -g)/npm" "$root/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
  npmrc >"$root/usr/local/etc/npmrc"
  cat "$root/usr/local/etc/npmrc"
  chroot "$root" /usr/local/bin/node --version
  chroot "$root" /usr/local/bin/node /usr/local/lib/node_modules/npm/bin/npm-cli.js --version
  tar --numeric-owner -C "$root" -cf - . | docker_ import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "LABEL org.opencontainers.image.description=\"stand-in for $BASE built by scripts/docker-check.sh\"" \
    --change 'CMD ["node"]' - "$BASE"
  rm -rf "$root"
  note "stand-in for $BASE: $SUITE minbase ($mirror) + node $("$node" --version)"
}

# --- the image --------------------------------------------------------------------------------

build_image() {
  local proxy_args=() v
  for v in HTTP_PROXY HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy; do
    if [ -n "${!v:-}" ]; then proxy_args+=(--build-arg "$v"); fi
  done
  # BuildKit: the classic builder starts a container for every instruction, ENV and LABEL too, and
  # on vfs each start copies the whole tree (this build took 464 s so on a loaded 2-core machine).
  DOCKER_BUILDKIT=1 docker_ build --progress plain --network host "${proxy_args[@]}" -t "$IMAGE" .
}

mib() { docker_ image inspect -f '{{.Size}}' "$1" | awk '{ printf "%.0f", $1 / 1048576 }'; }

# A loopback port nothing listens on, below the kernel's ephemeral range.
free_port() {
  node -e '
    const net = require("node:net")
    const low = 10000, high = Number(require("node:fs").readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").split(/\s+/)[0]) || 32768
    const next = () => {
      const port = low + Math.floor(Math.random() * (high - low))
      const s = net.createServer().once("error", next).listen(port, "127.0.0.1", () => s.close(() => console.log(port)))
    }
    next()'
}

# --- running it -------------------------------------------------------------------------------

COLLAB_PORT=$(free_port)
API_PORT=$(free_port)
while [ "$API_PORT" = "$COLLAB_PORT" ]; do API_PORT=$(free_port); done
MARK="docker-check $(date -u +%FT%TZ) $$"

# Waits until the container's log holds `console: ` COUNT times (once per start), or fails when it
# stops running or 120 s pass.
wait_started() {
  local count=$1
  for _ in $(seq 1 240); do
    if [ "$(docker_ logs "$NAME" 2>&1 | grep -c '^console: ')" -ge "$count" ]; then
      docker_ logs "$NAME" 2>&1 | grep -E '^(collab|api) listening|^console: '
      return 0
    fi
    if [ "$(docker_ inspect -f '{{.State.Running}}' "$NAME")" != true ]; then
      echo "the container stopped:"
      docker_ logs "$NAME" 2>&1 | tail -n 30
      return 1
    fi
    sleep 0.5
  done
  echo "no 'console:' line within 120 s:"
  docker_ logs "$NAME" 2>&1 | tail -n 30
  return 1
}

run_demo() {
  docker_ volume create "$VOLUME"
  docker_ run -d --name "$NAME" --network host -v "$VOLUME:/data" \
    -e TANDEM_HOST=127.0.0.1 -e TANDEM_COLLAB_PORT="$COLLAB_PORT" -e TANDEM_API_PORT="$API_PORT" \
    "$IMAGE" serve --demo
  wait_started 1
}

# The Node.js major the base names, and uWS carrying the collab listener (src/collab/listener/choose.ts
# logs the transport and the uWS build it loaded; `ws` here would mean no uWS binary loads in the image).
check_runtime() {
  local v line
  v=$(docker_ exec "$NAME" node --version)
  line=$(docker_ logs "$NAME" 2>&1 | grep -m1 'collab transport: ' || true)
  echo "node $v"
  echo "$line"
  [ "${v%%.*}" = "v$NODE_MAJOR" ]
  printf '%s' "$line" | grep -q 'collab transport: uws'
  note "node $v, $(printf '%s' "$line" | grep -o 'collab transport: uws[^"]*')"
}

check_healthz() {
  node -e '
    fetch(process.argv[1]).then(async (r) => {
      console.log(r.status, await r.text())
      process.exit(r.status === 200 ? 0 : 1)
    })' "http://127.0.0.1:$COLLAB_PORT/healthz"
}

# Docker runs the image's HEALTHCHECK every 15 s; healthy after the first that passes.
check_healthy() {
  local status
  for _ in $(seq 1 120); do
    status=$(docker_ inspect -f '{{.State.Health.Status}}' "$NAME")
    case "$status" in
      healthy)
        note "HEALTHCHECK: healthy"
        return 0
        ;;
      unhealthy)
        docker_ inspect -f '{{json .State.Health}}' "$NAME"
        return 1
        ;;
    esac
    sleep 0.5
  done
  echo "still '$status' after 60 s"
  docker_ inspect -f '{{json .State.Health}}' "$NAME"
  return 1
}

check_not_root() {
  local pid uid
  pid=$(docker_ inspect -f '{{.State.Pid}}' "$NAME")
  uid=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")
  docker_ exec "$NAME" id
  echo "server process $pid runs as uid $uid"
  [ "$uid" != 0 ]
  note "uid $uid ($(docker_ exec "$NAME" id -un))"
}

# The demo's key, from the log of the first start.
demo_key() { docker_ logs "$NAME" 2>&1 | awk '/^demo api key: / { print $4; exit }'; }

check_demo() {
  docker_ logs "$NAME" 2>&1 | grep -E '^demo '
  local key
  key=$(demo_key)
  [ -n "$key" ]
  node -e '
    const [api, key] = process.argv.slice(1)
    const get = (path, headers = {}) => fetch(api + path, { headers }).then(async (r) => [r.status, await r.text()])
    ;(async () => {
      const [meStatus, me] = await get("/api/v0/me", { "x-api-key": key })
      console.log("GET /api/v0/me", meStatus, me)
      const [consoleStatus, page] = await get("/")
      console.log("GET /", consoleStatus, page.length, "bytes")
      process.exit(meStatus === 200 && consoleStatus === 200 && page.includes("<html") ? 0 : 1)
    })()' "http://127.0.0.1:$API_PORT" "$key"
  note "$(docker_ logs "$NAME" 2>&1 | grep -c '^demo asset: ') demo assets, /api/v0/me and the console answer"
}

edit() {
  node --import tsx --conditions tandem-source scripts/docker-edit.ts "$1" --api "http://127.0.0.1:$API_PORT" --key "$(demo_key)" --asset demo-welcome --text "$MARK"
}

stop_start() {
  local t0=$SECONDS
  docker_ stop "$NAME"
  local code
  code=$(docker_ inspect -f '{{.State.ExitCode}}' "$NAME")
  echo "stopped in $((SECONDS - t0)) s, exit code $code"
  docker_ logs "$NAME" 2>&1 | grep -i 'shutting down' | tail -n 1
  # 0: it ended on SIGTERM by itself; 137 would be docker's SIGKILL after 10 s
  [ "$code" = 0 ]
  docker_ start "$NAME"
  wait_started 2
  note "SIGTERM exit 0 after $((SECONDS - t0)) s incl. restart"
}

step tools install_tools
DOCKER=$(command -v /usr/bin/docker || command -v docker)
# Not a step: a daemon that cannot start ends the check early (exit 0), everything else fails it.
if ! start_engine >"$TMP/engine.log" 2>&1; then
  say "step 'engine' failed: dockerd did not come up; last 40 lines of its log:"
  tail -n 40 "$TMP/dockerd.log" | sed 's/^/  | /'
  say "SKIPPED: the Docker engine cannot start on this machine, so the image was not checked"
  exit 0
fi
say "engine: ok (dockerd pid $DOCKERD_PID, vfs, $TMP)"

step base base_image
step build build_image
step run run_demo
step runtime check_runtime
step healthz check_healthz
step healthy check_healthy
step user check_not_root
step demo check_demo
step edit edit write
step restart stop_start
step persisted edit read

BASE_MIB=$(mib "$BASE")
IMAGE_MIB=$(mib "$IMAGE")
say "image $IMAGE: $IMAGE_MIB MiB, $((IMAGE_MIB - BASE_MIB)) MiB over its base ($BASE: $BASE_MIB MiB)"
say "all checks passed in $(($(date +%s) - START)) s"
