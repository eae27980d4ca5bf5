#!/usr/bin/env bash
# Black-box contract checks of the public API /v1 against a running service:
#   1. client_flow.py: a client generated from GET /v1/openapi.json drives a
#      whole flow (and must parse an error code its document did not list);
#   2. schemathesis fuzzes the API from the same document with a test, a live
#      and a fleet key (schemathesis.toml, hooks.py, fuzz_summary.py).
# The service is courier-dev on a throwaway SQLite database, in a private
# network namespace: webhook targets the fuzzer invents cannot leave the
# machine, and nothing is left behind.
#
# Usage: bash tests/contract/run.sh [BIN_DIR]   (default: target/debug of this repository)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin_dir=$(cd "${1:-$repo/target/debug}" && pwd)
venv="${XDG_CACHE_HOME:-$HOME/.cache}/courier-ci/contract-venv"
fuzz_budget=${COURIER_CONTRACT_FUZZ_SECONDS:-360}   # hard limit of each fuzzer run (they take 100 to 190 s on two cores)
# The fuzzer's seed: given, or taken from the commit, so that a commit's run
# is reproducible (CI runs again exactly what it ran) and each commit probes
# new cases.
seed=${COURIER_CONTRACT_SEED:-$(( 16#$(git -C "$repo" rev-parse --short=7 HEAD 2>/dev/null || echo 1) ))}
in_netns=${COURIER_CONTRACT_IN_NETNS:-}

for binary in courier-dev courier-core; do
    [ -x "$bin_dir/$binary" ] || { echo "contract: $bin_dir/$binary is missing (cargo build -p courier-dev -p courier-server)" >&2; exit 2; }
done

# The pinned tools, in a venv outside the tree, reinstalled when requirements.txt changes.
ensure_venv() {
    local stamp="$venv/.requirements.sha256" wanted
    wanted=$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)
    if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
        return
    fi
    echo "contract: installing the pinned tools into $venv"
    python3 -m venv --clear "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
    echo "$wanted" >"$stamp"
}

if [ -z "$in_netns" ]; then
    ensure_venv  # needs the package registry, so before leaving the network
    if unshare --net --mount true 2>/dev/null; then
        exec unshare --net --mount env COURIER_CONTRACT_IN_NETNS=1 COURIER_CONTRACT_FUZZ_SECONDS="$fuzz_budget" \
            COURIER_CONTRACT_SEED="$seed" bash "${BASH_SOURCE[0]}" "$bin_dir"
    elif [ "${COURIER_CONTRACT_HOST_NETWORK:-}" != 1 ]; then
        echo "contract: cannot create a network namespace (unshare --net needs root);" \
            "COURIER_CONTRACT_HOST_NETWORK=1 runs on the host network instead" >&2
        exit 2
    fi
fi

# Only this script's settings reach the service, and every request stays on loopback.
for name in $(compgen -e); do
    case "${name,,}" in courier_* | http_proxy | https_proxy | all_proxy) unset "$name" ;; esac
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/courier-contract.XXXXXX")
dev_pid=""
show_log=1  # the service's log is worth reading if it does not start or dies
cleanup() {
    local status=$?
    if [ -n "$dev_pid" ] && kill -0 "$dev_pid" 2>/dev/null; then
        kill -TERM "$dev_pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$dev_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$dev_pid" 2>/dev/null || true
        wait "$dev_pid" 2>/dev/null || true
    fi
    if [ "$status" -ne 0 ] && [ "$show_log" = 1 ] && [ -s "$tmp/dev.log" ]; then
        echo "--- last lines of the service's log ---"
        tail -n 40 "$tmp/dev.log"
    fi
    rm -rf "$tmp"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -n "$in_netns" ]; then
    ip link set lo up
    # No name resolves in here; the reserved example domains that a document's
    # examples use resolve to loopback, where nothing answers.
    printf '127.0.0.1 localhost example.com example.org example.net\n::1 localhost\n' >"$tmp/hosts"
    mount --bind "$tmp/hosts" /etc/hosts || echo "contract: /etc/hosts left as it is" >&2
fi

export COURIER_DATABASE_URL="sqlite://$tmp/courier.db?mode=rwc"
export COURIER_BLOB_DIR="$tmp/blobs"
export COURIER_LOG=info

# The service: port 0 everywhere (it prints the addresses it bound), fast
# simulator, loopback webhooks allowed, rate limits out of the fuzzer's way.
COURIER_HTTP_ADDR=127.0.0.1:0 COURIER_GRPC_ADDR=127.0.0.1:0 COURIER_METRICS_ADDR=127.0.0.1:0 \
    COURIER_WEBHOOK_ALLOW_INSECURE=true COURIER_SIMULATOR_STEP=200ms COURIER_SHUTDOWN_GRACE=2s \
    COURIER_RATE_LIMIT_READS_PER_SECOND=100000 COURIER_RATE_LIMIT_READ_BURST=100000 \
    COURIER_RATE_LIMIT_WRITES_PER_SECOND=100000 COURIER_RATE_LIMIT_WRITE_BURST=100000 \
    "$bin_dir/courier-dev" >"$tmp/dev.out" 2>"$tmp/dev.log" &
dev_pid=$!

# Polls the command `condition` every 0.2 s for at most `seconds`, failing early if the service died.
wait_for() {
    local what=$1 seconds=$2 condition=$3 deadline=$((SECONDS + $2))
    until "$condition"; do
        kill -0 "$dev_pid" 2>/dev/null || { echo "contract: courier-dev exited while waiting for $what" >&2; return 1; }
        [ "$SECONDS" -lt "$deadline" ] || { echo "contract: no $what within ${seconds}s" >&2; return 1; }
        sleep 0.2
    done
}

listening() { grep -qs "^Courier API listening on " "$tmp/dev.out"; }
ready() { [ "$(curl -s -o /dev/null -w "%{http_code}" "$base/readyz")" = 200 ]; }

wait_for "listening line" 120 listening
base=$(sed -n 's|^Courier API listening on \(http://[^ /]*\)/v1 .*|\1|p' "$tmp/dev.out")
test_key=$(sed -n 's/^test key: //p' "$tmp/dev.out")
live_key=$(sed -n 's/^live key: //p' "$tmp/dev.out")
if [ -z "$base" ] || [ -z "$test_key" ] || [ -z "$live_key" ]; then
    echo "contract: no address or keys in the service's output:" >&2
    cat "$tmp/dev.out" >&2
    exit 1
fi

# A fleet workspace with order intake and a live key of it (the demo workspace is a business).
workspace=$("$bin_dir/courier-core" workspace create --name "Contract Fleet" --kind fleet --api-access \
    --fleet-order-intake 2>>"$tmp/dev.log" | sed -n 's/^workspace \(wks_[^ ]*\) .*/\1/p')
fleet_key=$("$bin_dir/courier-core" key create --workspace "$workspace" --mode live --label fuzz \
    2>>"$tmp/dev.log" | grep '^mm_live_')
if [ -z "$workspace" ] || [ -z "$fleet_key" ]; then
    echo "contract: could not create the fleet workspace and key" >&2
    exit 1
fi

wait_for "ready service" 60 ready
echo "contract: courier-dev ready at $base/v1"
show_log=0

failed=()
timings=()
runs=("test:$test_key" "live:$live_key" "fleet:$fleet_key")

# A service that died takes the remaining checks with it: say so, with its exit status.
check_alive() {
    kill -0 "$dev_pid" 2>/dev/null && return 0
    local status=0
    wait "$dev_pid" || status=$?
    dev_pid=""
    show_log=1
    echo "contract: courier-dev exited (status $status${1:+, $1})" >&2
    failed+=("courier-dev exited (status $status)")
    return 1
}

# 1. The generated client's flow.
started=$SECONDS
if "$venv/bin/python" "$here/client_flow.py" --base-url "$base" --test-key "$test_key" \
    --fleet-key "$fleet_key" --work-dir "$tmp/client"; then :; else failed+=("generated-client flow"); fi
timings+=("generated-client flow: $((SECONDS - started))s")

# 2. The fuzzer, once per key; each run stops after its examples, or is stopped at the budget.
reports=()
check_alive "during the generated-client flow" || runs=()
for run in "${runs[@]}"; do
    label=${run%%:*}
    echo
    echo "=== schemathesis with the $label key ==="
    started=$SECONDS
    if (cd "$tmp" && COURIER_CONTRACT_API_KEY=${run#*:} COURIER_CONTRACT_HOOKS="$here/hooks.py" \
        COURIER_CONTRACT_TALLY="$tmp/creates.ndjson" \
        timeout --kill-after=10 "$fuzz_budget" "$venv/bin/schemathesis" --config-file "$here/schemathesis.toml" \
        run "$base/v1/openapi.json" --no-color --report ndjson --report-dir "$tmp/fuzz-$label" \
        ${seed:+--seed "$seed"}); then :; else
        status=$?
        [ "$status" -lt 124 ] || echo "contract: schemathesis ($label key) did not finish within ${fuzz_budget}s"
        failed+=("schemathesis ($label key)")
    fi
    timings+=("schemathesis ($label key): $((SECONDS - started))s")
    reports+=("$label=$tmp/fuzz-$label")
    check_alive "during schemathesis with the $label key" || break
done
echo
if [ "${#reports[@]}" -gt 0 ] && "$venv/bin/python" "$here/fuzz_summary.py" --tally "$tmp/creates.ndjson" "${reports[@]}"; then
    :
else
    failed+=("fuzzer summary")
fi

echo
joined=$(printf '%s, ' "${timings[@]}")
echo "contract timings: ${joined%, }"
checks=$((2 + ${#runs[@]}))  # the flow, each fuzzer run, the summary
if [ "${#failed[@]}" -gt 0 ]; then
    joined=$(printf '%s, ' "${failed[@]}")
    echo "contract checks failed: ${joined%, }"
    passed=$((checks > ${#failed[@]} ? checks - ${#failed[@]} : 0))
    echo "contract: $passed passed, ${#failed[@]} failed"
    exit 1
fi
echo "contract: $checks passed, 0 failed"
