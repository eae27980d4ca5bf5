"""Schemathesis hooks of the contract fuzzer (loaded through schemathesis.toml)."""

from __future__ import annotations

import json
import os

import schemathesis

# 400 codes that refuse a request for facts no schema can state: where the
# service operates, whether a vehicle can carry the items, which quotes and
# page tokens exist, whether a webhook host resolves. A schema-valid request
# may meet them. Every other 400 (`invalid_request`, `invalid_items`, the
# idempotency-key codes, a code not listed here) says the request was
# malformed by a rule the document must state, and stays a failure.
REFUSALS_BEYOND_THE_SCHEMA = frozenset(
    {
        "quote_not_found",
        "quote_expired",
        "quote_mismatch",
        "service_area_unavailable",
        "vehicle_does_not_fit",
        "invalid_page_token",
        "invalid_webhook_url",
    }
)

# The creates the positive phase must manage from the document alone.
CREATES = frozenset({"/v1/quotes", "/v1/deliveries", "/v1/webhooks", "/v1/fleet/orders"})


def _error_code(response) -> str | None:
    try:
        return response.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        return None


@schemathesis.hook
def filter_failure(context, failure, case, response) -> bool:
    """Keeps every failure except a schema-valid request refused for the
    service's state (402: credit limit or overdue statement) or for a fact
    beyond the schema (see above)."""
    if failure.code != "ST202":  # positive_data_acceptance
        return True
    if response.status_code == 402:
        return False
    return not (response.status_code == 400 and _error_code(response) in REFUSALS_BEYOND_THE_SCHEMA)


@schemathesis.hook
def after_call(context, case, response) -> None:
    """Records each create the service accepted, for run.sh's final tally."""
    tally = os.environ.get("COURIER_CONTRACT_TALLY")
    if tally and case.method.upper() == "POST" and case.operation.path in CREATES and 200 <= response.status_code < 300:
        with open(tally, "a", encoding="utf-8") as file:
            file.write(json.dumps({"path": case.operation.path, "status": response.status_code}) + "\n")
