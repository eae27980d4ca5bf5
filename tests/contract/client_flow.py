#!/usr/bin/env python3
"""Contract check: a client generated from the service's own OpenAPI document.

Generates a Python client with openapi-python-client from `GET /v1/openapi.json`
and drives a whole flow with its typed functions and models, including error
answers. A second client is generated from a copy of the document that lacks
one error code, to show that a client generated from an older document does
not fail on an error code it does not know (codes may be added within v1).

Every step runs even when an earlier one failed (unless it needs that step's
result), so one run shows every broken step; the exit status is non-zero if any
step failed.
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import importlib
import json
import os
import subprocess
import sys
import time
import traceback
import uuid
from pathlib import Path
from typing import Any, Callable

import httpx

# The code removed from the copy of the document, and how to provoke it.
UNKNOWN_CODE = "not_found"
MISSING_DELIVERY = "del_contractcheckdoesnotexist"

ALEXANDERPLATZ = ("Alexanderplatz 1, 10178 Berlin", 52.5219, 13.4132)
ORANIENSTRASSE = ("Oranienstraße 25, 10999 Berlin", 52.5010, 13.4190)
# A closed loopback port: the endpoint is registered, never reached.
WEBHOOK_URL = "http://127.0.0.1:9/courier-contract-hook"


# --- document and generation -------------------------------------------------


def drop_error_code(document: dict, code: str) -> int:
    """Removes `code` wherever an error `code` schema lists codes (`enum`,
    `examples`, `const`); returns how many places listed it."""
    removed = 0

    def visit(node: Any) -> None:
        nonlocal removed
        if isinstance(node, dict):
            code_schema = node.get("properties", {}).get("code") if isinstance(node.get("properties"), dict) else None
            if isinstance(code_schema, dict):
                for key in ("enum", "examples"):
                    values = code_schema.get(key)
                    if isinstance(values, list) and code in values:
                        values.remove(code)
                        removed += 1
                        if not values:
                            del code_schema[key]
                if code_schema.get("const") == code:
                    del code_schema["const"]
                    removed += 1
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(document)
    return removed


def generate(document: dict, work_dir: Path, package: str):
    """Generates a client package from `document` and imports it."""
    spec = work_dir / f"{package}.openapi.json"
    spec.write_text(json.dumps(document, indent=1))
    bin_dir = Path(sys.executable).parent
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")  # ruff formats the output
    result = subprocess.run(
        [
            bin_dir / "openapi-python-client",
            "generate",
            "--path",
            spec,
            "--meta",
            "none",
            "--output-path",
            work_dir / package,
            "--overwrite",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    output = (result.stdout + result.stderr).strip()
    if result.returncode != 0:
        raise RuntimeError(f"openapi-python-client failed ({result.returncode}):\n{output}")
    # The generator skips what it cannot express and says so: that is a contract problem too.
    if "warning" in output.lower() or "error" in output.lower():
        raise RuntimeError(f"openapi-python-client reported problems:\n{output}")
    if str(work_dir) not in sys.path:
        sys.path.insert(0, str(work_dir))
    return importlib.import_module(package)


# --- step runner -------------------------------------------------------------


class Flow:
    def __init__(self) -> None:
        self.failed: list[tuple[str, str]] = []
        self.passed = 0
        self.skipped: list[str] = []

    def step(self, name: str, action: Callable[[], Any], *needs: Any) -> Any:
        if any(need is None for need in needs):
            self.skipped.append(name)
            print(f"  skip  {name} (an earlier step it needs failed)", flush=True)
            return None
        started = time.monotonic()
        try:
            value = action()
        except Exception as error:  # noqa: BLE001 - every failure is reported, then the flow goes on
            detail = "".join(traceback.format_exception_only(type(error), error)).strip()
            # The innermost frame of this script or of a generated client, not of the standard library.
            frames = [
                f
                for f in traceback.extract_tb(error.__traceback__)
                if "courier_client" in f.filename or f.filename == __file__
            ]
            where = frames[-1] if frames else traceback.extract_tb(error.__traceback__)[-1]
            detail += f"\n        at {Path(where.filename).parent.name}/{Path(where.filename).name}:{where.lineno}"
            self.failed.append((name, detail))
            print(f"  FAIL  {name}: {detail}", flush=True)
            return None
        self.passed += 1
        print(f"  ok    {name} ({time.monotonic() - started:.2f}s)", flush=True)
        return value if value is not None else True


def expect(response, status: int, model: type) -> Any:
    """The parsed answer, after checking its status and its generated type."""
    assert response.status_code == status, (
        f"expected {status} {model.__name__}, got {int(response.status_code)}: {response.content[:600]!r}"
    )
    assert isinstance(response.parsed, model), (
        f"expected a {model.__name__}, the client parsed {type(response.parsed).__name__}"
    )
    return response.parsed


def expect_error(response, status: int, code: str, param: str | None = None) -> Any:
    """An error answer, parsed by the client into one of its generated models
    (whatever the document names it) with the code, message and request id."""
    assert response.status_code == status, (
        f"expected {status} {code}, got {int(response.status_code)}: {response.content[:600]!r}"
    )
    parsed = response.parsed
    package = type(parsed).__module__.split(".")[0]
    assert type(parsed).__module__.startswith(f"{package}.models.") and hasattr(parsed, "error"), (
        f"the client parsed the error body as {type(parsed).__name__}, not as a generated error model"
    )
    error = parsed.error
    assert error.code == code, f"expected code {code!r}, got {error.code!r}"
    assert isinstance(error.message, str) and error.message, "an error carries a message"
    assert error.doc_url.endswith(f"#{code}"), f"doc_url {error.doc_url!r} should point at #{code}"
    assert parsed.request_id.startswith("req_"), f"request_id {parsed.request_id!r}"
    if param is not None:
        assert error.param == param, f"expected param {param!r}, got {error.param!r}"
    return parsed


# --- the flow ----------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    work_dir = Path(args.work_dir).resolve()
    work_dir.mkdir(parents=True, exist_ok=True)
    flow = Flow()
    print(f"generated-client flow against {args.base_url}", flush=True)

    document = flow.step(
        "fetch GET /v1/openapi.json",
        lambda: httpx.get(f"{args.base_url}/v1/openapi.json", timeout=10).raise_for_status().json(),
    )
    api = flow.step("generate the client", lambda: generate(document, work_dir, "courier_client"), document)

    def generate_without_code():
        older = copy.deepcopy(document)
        removed = drop_error_code(older, UNKNOWN_CODE)
        assert removed > 0, f"the document lists the error code {UNKNOWN_CODE!r} nowhere"
        print(f"        removed {UNKNOWN_CODE!r} from {removed} code list(s)", flush=True)
        return generate(older, work_dir, "courier_client_older")

    older_api = flow.step(f"generate a client from a copy without {UNKNOWN_CODE!r}", generate_without_code, document)

    if api is not None:
        steps(flow, args, api)
    if older_api is not None:
        unknown_code(flow, args, older_api)

    print(
        f"generated-client flow: {flow.passed} passed, {len(flow.failed)} failed"
        + (f", {len(flow.skipped)} skipped" if flow.skipped else ""),
        flush=True,
    )
    for name, detail in flow.failed:
        print(f"  failed: {name}: {detail}", flush=True)
    return 1 if flow.failed or flow.skipped else 0


class Operations:
    """One tag's generated operation modules, imported on first use."""

    def __init__(self, api, group: str) -> None:
        self._prefix = f"{api.__name__}.api.{group}"

    def __getattr__(self, name: str):
        return importlib.import_module(f"{self._prefix}.{name}")


def client_for(api, base_url: str, key: str):
    client_module = importlib.import_module(f"{api.__name__}.client")
    return client_module.AuthenticatedClient(
        base_url=base_url,
        token=key,
        auth_header_name="x-api-key",
        prefix="",
        raise_on_unexpected_status=True,  # an undocumented status is a contract failure
        timeout=httpx.Timeout(15.0),
    )


def steps(flow: Flow, args: argparse.Namespace, api) -> None:
    m = importlib.import_module(f"{api.__name__}.models")
    UNSET = importlib.import_module(f"{api.__name__}.types").UNSET
    vehicle_types, quotes, deliveries, webhooks, events, fleet_orders = (
        Operations(api, group)
        for group in ("vehicle_types", "quotes", "deliveries", "webhooks", "events", "fleet_orders")
    )

    test = client_for(api, args.base_url, args.test_key)
    fleet_client = client_for(api, args.base_url, args.fleet_key)

    def address(place):
        return m.Address(address=place[0], latitude=place[1], longitude=place[2])

    def waypoint(place, contact_name):
        contact = m.ContactInput(name=contact_name, phone="+49 30 1234567")
        return m.WaypointInput(address=place[0], latitude=place[1], longitude=place[2], contact=contact)

    # Vehicle types.
    def list_vehicle_types():
        listed = expect(vehicle_types.list_vehicle_types.sync_detailed(client=test), 200, m.VehicleTypeList)
        ids = [v.id for v in listed.vehicle_types]
        assert "cargo_bike" in ids, f"vehicle types {ids}"
        assert all(isinstance(v, m.VehicleType) and v.max_weight_kg > 0 for v in listed.vehicle_types)
        return ids

    flow.step("list vehicle types", list_vehicle_types)

    # Quote.
    quote_body = m.CreateQuoteRequest(
        pickup=address(ALEXANDERPLATZ), dropoff=address(ORANIENSTRASSE), vehicle_type_id="cargo_bike"
    )

    def create_quote():
        quote = expect(quotes.create_quote.sync_detailed(client=test, body=quote_body), 201, m.Quote)
        assert quote.amount_cents > 0 and quote.currency, f"{quote.amount_cents} {quote.currency}"
        assert isinstance(quote.valid_until, dt.datetime) and quote.valid_until > quote.created_at
        return quote

    quote = flow.step("create a quote", create_quote)

    # Delivery from the quote, idempotent.
    key = f"contract-{uuid.uuid4()}"
    delivery_body = (
        m.CreateDeliveryRequest(
            pickup=waypoint(ALEXANDERPLATZ, "Ana Sender"),
            dropoff=waypoint(ORANIENSTRASSE, "Rui Receiver"),
            vehicle_type_id="cargo_bike",
            quote_id=quote.id,
            external_id=f"contract-{uuid.uuid4().hex[:12]}",
            notes="contract check",
        )
        if quote
        else None
    )

    def create_delivery():
        answer = deliveries.create_delivery.sync_detailed(client=test, body=delivery_body, idempotency_key=key)
        delivery = expect(answer, 201, m.Delivery)
        assert delivery.mode == m.Mode.TEST, delivery.mode
        assert delivery.quote_id == quote.id and delivery.amount_cents == quote.amount_cents
        assert delivery.status == m.DeliveryStatus.PENDING, delivery.status
        return answer

    first = flow.step("create a test delivery (Idempotency-Key)", create_delivery, delivery_body)
    delivery = first.parsed if first else None

    def replay():
        again = deliveries.create_delivery.sync_detailed(client=test, body=delivery_body, idempotency_key=key)
        replayed = expect(again, int(first.status_code), m.Delivery)
        assert replayed.id == delivery.id, f"replay answered another delivery: {replayed.id} != {delivery.id}"
        assert replayed.to_dict() == delivery.to_dict(), "the replay's body differs from the first answer"

    flow.step("replay the create: same answer", replay, first)

    def get_delivery():
        read = expect(deliveries.get_delivery.sync_detailed(delivery.id, client=test), 200, m.Delivery)
        assert read.id == delivery.id and read.quote_id == delivery.quote_id, f"got {read.id}"

    flow.step("get the delivery", get_delivery, delivery)

    # A second delivery, an hour ahead so that it stays cancellable.
    def create_second():
        body = m.CreateDeliveryRequest(
            pickup=waypoint(ORANIENSTRASSE, "Rui Receiver"),
            dropoff=waypoint(ALEXANDERPLATZ, "Ana Sender"),
            vehicle_type_id="cargo_bike",
            scheduled_at=dt.datetime.now(dt.timezone.utc).replace(microsecond=0) + dt.timedelta(hours=1),
        )
        answer = deliveries.create_delivery.sync_detailed(
            client=test, body=body, idempotency_key=f"contract-{uuid.uuid4()}"
        )
        return expect(answer, 201, m.Delivery)

    second = flow.step("create a second, scheduled delivery", create_second)

    def list_with_page_token():
        wanted = {d.id for d in (delivery, second)}
        seen: list[str] = []
        token, pages = UNSET, 0
        while pages < 20:
            page = expect(
                deliveries.list_deliveries.sync_detailed(client=test, limit=1, page_token=token),
                200,
                m.DeliveryList,
            )
            pages += 1
            assert len(page.deliveries) <= 1, f"limit=1 answered {len(page.deliveries)} deliveries"
            seen += [d.id for d in page.deliveries]
            if wanted <= set(seen) or page.next_page_token is None:
                break
            token = page.next_page_token
        assert pages >= 2, "a second page was never requested with next_page_token"
        assert wanted <= set(seen), f"paging with limit=1 did not reach {wanted - set(seen)} (saw {seen})"
        assert len(seen) == len(set(seen)), f"a delivery came back on two pages: {seen}"

    flow.step("list deliveries page by page (page_token)", list_with_page_token, delivery, second)

    def tracking():
        tracked = expect(
            deliveries.get_delivery_tracking.sync_detailed(delivery.id, client=test), 200, m.DeliveryTracking
        )
        assert tracked.delivery_id == delivery.id, tracked.delivery_id
        assert isinstance(tracked.status, m.DeliveryStatus)

    flow.step("get the delivery's tracking", tracking, delivery)

    def cancel():
        answer = deliveries.cancel_delivery.sync_detailed(
            second.id, client=test, body=m.CancelDeliveryRequest(reason=m.CancelReason.NO_LONGER_NEEDED)
        )
        cancelled = expect(answer, 200, m.Delivery)
        assert cancelled.status == m.DeliveryStatus.CANCELLED, cancelled.status
        assert cancelled.cancellation_reason is not None and cancelled.cancelled_at is not None

    flow.step("cancel the second delivery", cancel, second)

    # Webhook endpoint: register, list, patch, delete.
    def create_webhook():
        body = m.CreateWebhookEndpointRequest(
            url=WEBHOOK_URL, events=[m.EventType.DELIVERY_CANCELLED], description="contract check"
        )
        created = expect(
            webhooks.create_webhook_endpoint.sync_detailed(client=test, body=body), 201, m.CreatedWebhookEndpoint
        )
        assert created.secret.startswith("whsec_"), "the create answer carries the signing secret"
        assert created.url == WEBHOOK_URL and created.status == m.WebhookEndpointStatus.ACTIVE
        assert created.events == [m.EventType.DELIVERY_CANCELLED], created.events
        return created

    hook = flow.step("register a webhook endpoint", create_webhook)

    def list_webhooks():
        listed = expect(webhooks.list_webhook_endpoints.sync_detailed(client=test), 200, m.WebhookEndpointList)
        assert hook.id in [w.id for w in listed.webhooks], "the new endpoint is not listed"

    flow.step("list webhook endpoints", list_webhooks, hook)

    def patch_webhook():
        body = m.UpdateWebhookEndpointRequest(
            description="contract check, patched",
            events=[m.EventType.DELIVERY_CANCELLED, m.EventType.DELIVERY_DELIVERED],
            status=m.UpdateWebhookEndpointStatus.DISABLED,
        )
        patched = expect(
            webhooks.update_webhook_endpoint.sync_detailed(hook.id, client=test, body=body),
            200,
            m.WebhookEndpoint,
        )
        assert patched.description == "contract check, patched", patched.description
        assert patched.status == m.WebhookEndpointStatus.DISABLED, patched.status
        assert set(patched.events) == {m.EventType.DELIVERY_CANCELLED, m.EventType.DELIVERY_DELIVERED}

    flow.step("patch the webhook endpoint", patch_webhook, hook)

    def delete_webhook():
        deleted = expect(
            webhooks.delete_webhook_endpoint.sync_detailed(hook.id, client=test),
            200,
            m.DeletedWebhookEndpoint,
        )
        assert deleted.deleted is True and deleted.id == hook.id
        listed = expect(webhooks.list_webhook_endpoints.sync_detailed(client=test), 200, m.WebhookEndpointList)
        assert hook.id not in [w.id for w in listed.webhooks], "a deleted endpoint is still listed"

    flow.step("delete the webhook endpoint", delete_webhook, hook)

    # Events of the first delivery.
    def list_events():
        deadline = time.monotonic() + 10
        while True:
            page = expect(
                events.list_events.sync_detailed(client=test, delivery_id=delivery.id, limit=100),
                200,
                m.EventList,
            )
            types = [e.type_ for e in page.events]
            if m.EventType.DELIVERY_CREATED in types or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert m.EventType.DELIVERY_CREATED in types, f"no delivery.created event for the delivery: {types}"
        assert all(e.data.id == delivery.id for e in page.events), "the delivery_id filter let other events through"

    flow.step("list the delivery's events", list_events, delivery)

    # Fleet order with the fleet workspace's live key.
    order_body = m.CreateFleetOrderRequest(
        customer=m.ContactInput(name="Lea Kundin", phone="+49 30 7654321"),
        pickup=waypoint(ALEXANDERPLATZ, "Ana Sender"),
        dropoff=waypoint(ORANIENSTRASSE, "Rui Receiver"),
        vehicle_type_id="cargo_bike",
        reference="SO-contract-1",
    )

    def create_fleet_order():
        answer = fleet_orders.create_fleet_order.sync_detailed(
            client=fleet_client, body=order_body, idempotency_key=f"contract-{uuid.uuid4()}"
        )
        order = expect(answer, 201, m.FleetOrder)
        assert order.reference == "SO-contract-1", order.reference
        return order

    order = flow.step("create a fleet order (fleet key)", create_fleet_order)

    def get_fleet_order():
        read = expect(fleet_orders.get_fleet_order.sync_detailed(order.id, client=fleet_client), 200, m.FleetOrder)
        assert (read.id, read.order_id) == (order.id, order.order_id), f"{read.id} {read.order_id}"

    flow.step("read the fleet order", get_fleet_order, order)

    # Error answers, parsed into the client's error models.
    flow.step(
        "error: unknown delivery -> 404 not_found",
        lambda: expect_error(
            deliveries.get_delivery.sync_detailed(MISSING_DELIVERY, client=test),
            404,
            "not_found",
        ),
    )

    def invalid_quote():
        body = m.CreateQuoteRequest(
            pickup=m.Address(address=ALEXANDERPLATZ[0], latitude=123.0, longitude=ALEXANDERPLATZ[2]),
            dropoff=address(ORANIENSTRASSE),
            vehicle_type_id="cargo_bike",
        )
        expect_error(
            quotes.create_quote.sync_detailed(client=test, body=body),
            400,
            "invalid_request",
            param="pickup.latitude",
        )

    flow.step("error: latitude 123 -> 400 invalid_request", invalid_quote)

    flow.step(
        "error: unknown API key -> 401 invalid_api_key",
        lambda: expect_error(
            vehicle_types.list_vehicle_types.sync_detailed(
                client=client_for(api, args.base_url, "mm_test_contractcheckunknownkey000000")
            ),
            401,
            "invalid_api_key",
        ),
    )

    def reused_key():
        other = copy.deepcopy(delivery_body)
        other.notes = "another body under the same key"
        expect_error(
            deliveries.create_delivery.sync_detailed(client=test, body=other, idempotency_key=key),
            409,
            "idempotency_key_reused",
        )

    flow.step("error: same Idempotency-Key, other body -> 409 idempotency_key_reused", reused_key, first)


def unknown_code(flow: Flow, args: argparse.Namespace, older_api) -> None:
    """The older client must still parse an answer whose code it was not told of."""
    deliveries = Operations(older_api, "deliveries")
    client = client_for(older_api, args.base_url, args.test_key)
    flow.step(
        f"unknown error code: a client without {UNKNOWN_CODE!r} parses a 404 {UNKNOWN_CODE}",
        lambda: expect_error(deliveries.get_delivery.sync_detailed(MISSING_DELIVERY, client=client), 404, UNKNOWN_CODE),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True, help="the service's origin, e.g. http://127.0.0.1:8080")
    parser.add_argument("--test-key", required=True)
    parser.add_argument("--fleet-key", required=True, help="a live key of a fleet workspace with order intake")
    parser.add_argument("--work-dir", required=True, help="where the documents and generated clients go")
    return run(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
