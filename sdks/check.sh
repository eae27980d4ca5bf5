#!/usr/bin/env bash
# The SDKs (sdks/typescript, sdks/python) against the service's OpenAPI document:
#   1. starts courier-dev on a throwaway SQLite database and free ports, fetches
#      GET /v1/openapi.json and regenerates both SDKs from it with the pinned
#      generators; without --write, fails when the committed code differs
#      (the SDKs were not regenerated after the API changed); with --write,
#      replaces the committed code;
#   2. unless --no-tests: `tsc --noEmit`, then each SDK's own tests against the
#      running service (sdks/typescript/test, sdks/python/tests).
# The tools live outside the tree, reinstalled when their pins change.
#
# Usage: bash sdks/check.sh [--write] [--no-tests] [BIN_DIR]   (default BIN_DIR: target/debug)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/courier-ci"
write=0 tests=1 bin_arg=""
for arg in "$@"; do
    case "$arg" in
        --write) write=1 ;;
        --no-tests) tests=0 ;;
        -*) echo "usage: bash sdks/check.sh [--write] [--no-tests] [BIN_DIR]" >&2; exit 2 ;;
        *) bin_arg=$arg ;;
    esac
done
bin_dir=$(cd "${bin_arg:-$repo/target/debug}" && pwd)
[ -x "$bin_dir/courier-dev" ] || { echo "sdks: $bin_dir/courier-dev is missing (cargo build -p courier-dev)" >&2; exit 2; }

# npm packages of sdks/typescript (generator, compiler, runtime), by the lock's hash.
node_dir="$cache/sdk-node-$(cat "$here/typescript/package-lock.json" | sha256sum | cut -c1-12)"
if [ ! -x "$node_dir/node_modules/.bin/tsc" ]; then
    echo "sdks: installing the pinned npm packages into $node_dir"
    mkdir -p "$node_dir"
    cp "$here/typescript/package.json" "$here/typescript/package-lock.json" "$node_dir/"
    npm ci --prefix "$node_dir" --no-fund --no-audit --silent
fi
# Python: generator, formatter and runtime, by the requirements' hash.
venv="$cache/sdk-venv-$(sha256sum "$here/python/requirements-dev.txt" | cut -c1-12)"
if [ ! -x "$venv/bin/python" ]; then
    echo "sdks: installing the pinned Python packages into $venv"
    python3 -m venv --clear "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/python/requirements-dev.txt"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/courier-sdks.XXXXXX")
dev_pid=""
cleanup() {
    local status=$?
    if [ -n "$dev_pid" ] && kill -0 "$dev_pid" 2>/dev/null; then
        kill -TERM "$dev_pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$dev_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$dev_pid" 2>/dev/null || true
        wait "$dev_pid" 2>/dev/null || true
    fi
    if [ "$status" -ne 0 ] && [ -s "$tmp/dev.log" ]; then
        echo "--- last lines of the service's log ---"
        tail -n 30 "$tmp/dev.log"
    fi
    rm -rf "$tmp"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Only this script's settings reach the service.
for name in $(compgen -e); do
    case "${name,,}" in courier_* | http_proxy | https_proxy | all_proxy) unset "$name" ;; esac
done
COURIER_DATABASE_URL="sqlite://$tmp/courier.db?mode=rwc" COURIER_BLOB_DIR="$tmp/blobs" COURIER_LOG=info \
    COURIER_HTTP_ADDR=127.0.0.1:0 COURIER_GRPC_ADDR=127.0.0.1:0 COURIER_METRICS_ADDR=127.0.0.1:0 \
    COURIER_WEBHOOK_ALLOW_INSECURE=true COURIER_SIMULATOR_STEP=200ms COURIER_SHUTDOWN_GRACE=2s \
    "$bin_dir/courier-dev" >"$tmp/dev.out" 2>"$tmp/dev.log" &
dev_pid=$!

deadline=$((SECONDS + 120))
until grep -qs "^Courier API listening on " "$tmp/dev.out" &&
    [ "$(curl -s -o /dev/null -w "%{http_code}" "$(sed -n 's|^Courier API listening on \(http://[^ /]*\)/v1 .*|\1|p' "$tmp/dev.out")/readyz")" = 200 ]; do
    kill -0 "$dev_pid" 2>/dev/null || { echo "sdks: courier-dev exited while starting" >&2; exit 1; }
    [ "$SECONDS" -lt "$deadline" ] || { echo "sdks: courier-dev not ready within 120s" >&2; exit 1; }
    sleep 0.2
done
base=$(sed -n 's|^Courier API listening on \(http://[^ /]*\)/v1 .*|\1|p' "$tmp/dev.out")
test_key=$(sed -n 's/^test key: //p' "$tmp/dev.out")
live_key=$(sed -n 's/^live key: //p' "$tmp/dev.out")
[ -n "$test_key" ] && [ -n "$live_key" ] || { echo "sdks: no keys in the service's output" >&2; exit 1; }

# 1. Regenerate from the served document.
fresh="$tmp/fresh"
mkdir -p "$fresh/typescript/src" "$fresh/python/courier_sdk"
curl -sf "$base/v1/openapi.json" | "$venv/bin/python" -m json.tool --indent 2 >"$fresh/openapi.json"
"$node_dir/node_modules/.bin/openapi-typescript" "$fresh/openapi.json" \
    --output "$fresh/typescript/src/schema.ts" --silent >/dev/null
generator_output=$(cd "$fresh/python" && PATH="$venv/bin:$PATH" "$venv/bin/openapi-python-client" generate \
    --path "$fresh/openapi.json" --config "$here/python/generator.yml" --meta none \
    --output-path "$fresh/python/courier_sdk/generated" --overwrite 2>&1) ||
    { echo "$generator_output" >&2; echo "sdks: openapi-python-client failed" >&2; exit 1; }
if grep -qi "warning\|error" <<<"$generator_output"; then
    echo "$generator_output" >&2
    echo "sdks: openapi-python-client reported problems with the document" >&2
    exit 1
fi

generated=(openapi.json typescript/src/schema.ts python/courier_sdk/generated)
if [ "$write" = 1 ]; then
    rm -rf "$here/python/courier_sdk/generated"
    for path in "${generated[@]}"; do cp -r "$fresh/$path" "$here/$path"; done
    echo "sdks: regenerated ${generated[*]} (under sdks/)"
else
    stale=0
    for path in "${generated[@]}"; do
        diff -r -u -x __pycache__ -x .ruff_cache "$here/$path" "$fresh/$path" >"$tmp/generated.diff" 2>&1 || {
            stale=1
            echo "sdks: sdks/$path does not match the service's OpenAPI document:" >&2
            head -n 40 "$tmp/generated.diff" >&2
        }
    done
    if [ "$stale" = 1 ]; then
        echo "sdks: the committed SDKs are stale; regenerate with: bash sdks/check.sh --write" >&2
        exit 1
    fi
    echo "sdks: the committed SDKs match the service's OpenAPI document"
fi
[ "$tests" = 1 ] || exit 0

# 2. Type check, then each SDK's tests against the running service.
export COURIER_SDK_BASE_URL="$base" COURIER_SDK_TEST_KEY="$test_key" COURIER_SDK_LIVE_KEY="$live_key"
ts="$tmp/ts"
mkdir -p "$ts"
cp -r "$here/typescript/src" "$here/typescript/test" "$here/typescript/tsconfig.json" "$ts/"
ln -s "$node_dir/node_modules" "$ts/node_modules"
(cd "$ts" && node_modules/.bin/tsc -p tsconfig.json --noEmit && node_modules/.bin/tsc -p tsconfig.json --outDir build)
echo "sdks: tsc --noEmit passed"
node --test "$ts/build/test/"
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$here/python" "$venv/bin/python" -m unittest discover -s "$here/python/tests" -t "$here/python" -v
echo "sdks: both SDKs' tests passed"
