"""Schemathesis hooks of the contract fuzzer (loaded through schemathesis.toml)."""

from __future__ import annotations

import json
import os
import re

import jsonschema_rs
import schemathesis

# What a schema-valid request may still be refused for: facts no schema can
# state. By 400 code: where the service operates, whether a vehicle can carry
# the items, which quotes and page tokens exist, whether a webhook host
# resolves.
REFUSED_BEYOND_THE_SCHEMA = frozenset(
    {
        "quote_not_found",
        "quote_expired",
        "quote_mismatch",
        "window_not_feasible",
        "service_area_unavailable",
        "vehicle_does_not_fit",
        "invalid_page_token",
        "invalid_webhook_url",
    }
)
# By field of an `invalid_request`: the catalogue (which vehicle types,
# extras and options exist; the document does not enumerate them, so that
# adding one does not break generated clients), the time zone database
# (`customer_timezone`), the time of the request (`scheduled_at` 1 minute to
# 30 days ahead; a window's start at most 30 days ahead, its end in the
# future), how a window's ends relate (15 minutes to 12 hours apart; a pickup
# window not beside `scheduled_at`: docs/guide.md "Windows") and the key's
# mode (`test_scenario` is for test keys), and the calendar (an `If-Match`
# of the right shape that names no instant). List indexes read as `*`.
INVALID_BEYOND_THE_SCHEMA = frozenset(
    {
        "vehicle_type_id",
        "extras.*.extra_id",
        "extras.*.option_id",
        "customer_timezone",
        "scheduled_at",
        "pickup_window",
        "pickup_window.start",
        "pickup_window.end",
        "dropoff_window",
        "dropoff_window.start",
        "dropoff_window.end",
        "test_scenario",
        "If-Match",
    }
)
# Any other 400 (`invalid_request` on another field, `invalid_items`, the
# Idempotency-Key codes, a code not listed) says the request broke a rule
# the document must state, and stays a failure.

# A batch refuses an item it cannot read in that item's own result, in the
# contract's error shape, and still creates the others
# (docs/guide.md "Create in bulk"): a `200` whose broken items each
# carry an `error` is the refusal the document promises.
BATCH = "/v1/deliveries/batch"
BATCH_ITEM = "#/components/schemas/BatchDeliveryItem"

# The creates the positive phase must manage from the document alone.
CREATES = frozenset({"/v1/quotes", "/v1/deliveries", "/v1/webhooks", "/v1/fleet/orders"})


def _error(response) -> tuple[str | None, str]:
    """The answer's error code and its `param` with list indexes as `*`."""
    try:
        error = response.json()["error"]
        return error["code"], re.sub(r"\.\d+(?=\.|$)", ".*", error.get("param") or "")
    except (ValueError, KeyError, TypeError, AttributeError):
        return None, ""


def _batch_items_refused(case, response) -> bool:
    """Whether a batch's answer refuses, each in its own result, every item
    that breaks the document's item schema."""
    if case.operation.path != BATCH or response.status_code != 200:
        return False
    try:
        items = case.body["deliveries"]
        results = response.json()["results"]
    except (ValueError, KeyError, TypeError):
        return False
    if not isinstance(items, list) or len(results) != len(items):
        return False
    document = case.operation.schema.raw_schema
    item_schema = jsonschema_rs.validator_for({"$ref": BATCH_ITEM, "components": document["components"]})
    return all("error" in result for item, result in zip(items, results) if not item_schema.is_valid(item))


@schemathesis.hook
def filter_failure(context, failure, case, response) -> bool:
    """Keeps every failure except a schema-valid request refused for the
    workspace's billing state (402), a stale `If-Match` (412) or a fact
    beyond the schema (above), and a batch whose broken items were each
    refused on their own."""
    if failure.code == "ST201":  # negative_data_rejection
        return not _batch_items_refused(case, response)
    if failure.code != "ST202":  # positive_data_acceptance
        return True
    if response.status_code == 402:
        return False
    # A change's `If-Match` that is not the delivery's `updated_at`: which
    # instant is current is a fact of the delivery, not of the schema.
    if response.status_code == 412:
        return False
    if response.status_code != 400:
        return True
    code, param = _error(response)
    beyond = code in REFUSED_BEYOND_THE_SCHEMA or (code == "invalid_request" and param in INVALID_BEYOND_THE_SCHEMA)
    return not beyond


@schemathesis.hook
def after_call(context, case, response) -> None:
    """Records each create the service accepted, for run.sh's final tally."""
    tally = os.environ.get("COURIER_CONTRACT_TALLY")
    if tally and case.method.upper() == "POST" and case.operation.path in CREATES and 200 <= response.status_code < 300:
        with open(tally, "a", encoding="utf-8") as file:
            file.write(json.dumps({"path": case.operation.path, "status": response.status_code}) + "\n")
