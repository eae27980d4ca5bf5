"""The Python SDK against the running service (sdks/check.sh starts it and
passes COURIER_SDK_BASE_URL and COURIER_SDK_TEST_KEY)."""

from __future__ import annotations

import datetime as dt
import http.server
import os
import threading
import time
import unittest
import uuid

import httpx
from courier_sdk.generated.api.deliveries import (
    cancel_delivery,
    get_delivery,
    list_deliveries,
    list_delivery_notifications,
)
from courier_sdk.generated.api.quotes import create_quote
from courier_sdk.generated.api.webhooks import create_webhook_endpoint, test_webhook_endpoint
from courier_sdk.generated.models import (
    Address,
    CancelDeliveryRequest,
    CancelReason,
    ContactInput,
    CreateDeliveryRequest,
    CreateQuoteRequest,
    CreateWebhookEndpointRequest,
    Delivery,
    DeliveryStatus,
    EventType,
    NotificationLanguage,
    NotificationList,
    NotificationPreferencesInput,
    Quote,
    RedeliverDeliveryRequest,
    TimeWindowInput,
    UpdateDeliveryRequest,
    WaypointInput,
)

import courier_sdk

BASE_URL = os.environ["COURIER_SDK_BASE_URL"]
TEST_KEY = os.environ["COURIER_SDK_TEST_KEY"]
ALEXANDERPLATZ = ("Alexanderplatz 1, 10178 Berlin", 52.5219, 13.4132)
ORANIENSTRASSE = ("Oranienstraße 25, 10999 Berlin", 52.5010, 13.4190)


class FlakyProxy:
    """Forwards to the service, except that the first request matching a
    fault is answered with it: `lost` forwards the request and answers 502
    instead of the service's answer (as a gateway that lost the reply);
    `reset` forwards and closes the connection without an answer;
    `busy` answers 429 with Retry-After: 1 without forwarding."""

    def __init__(self, faults: dict[tuple[str, str], str]) -> None:
        self.faults = dict(faults)
        self.seen: list[tuple[str, str, str | None]] = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def forward(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                proxy.seen.append((self.command, self.path, self.headers.get("Idempotency-Key")))
                fault = proxy.faults.pop((self.command, self.path.split("?")[0]), None)
                if fault == "busy":
                    self.answer(429, {"Retry-After": "1"}, b"")
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                answer = httpx.request(self.command, BASE_URL + self.path, headers=headers, content=body, timeout=15)
                if fault == "lost":
                    self.answer(502, {}, b"bad gateway")
                    return
                if fault == "reset":
                    self.close_connection = True
                    return
                keep = {k: v for k, v in answer.headers.items() if k.lower() in ("content-type", "retry-after")}
                self.answer(answer.status_code, keep, answer.content)

            def answer(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PATCH = forward

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Receiver:
    """A local webhook endpoint that keeps each request's headers and raw body."""

    def __init__(self) -> None:
        self.received: list[tuple[dict[str, str], bytes]] = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.received.append((dict(self.headers.items()), body))
                self.send_response(204)
                self.end_headers()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def address(place: tuple[str, float, float]) -> Address:
    return Address(address=place[0], latitude=place[1], longitude=place[2])


def waypoint(place: tuple[str, float, float], name: str) -> WaypointInput:
    return WaypointInput(
        address=place[0],
        latitude=place[1],
        longitude=place[2],
        contact=ContactInput(name=name, phone="+49 30 1234567"),
    )


def expect(response, status: int, model: type):
    assert response.status_code == status, f"expected {status}, got {response.status_code}: {response.content[:400]!r}"
    assert isinstance(response.parsed, model), type(response.parsed)
    return response.parsed


class SdkFlow(unittest.TestCase):
    def setUp(self) -> None:
        self.proxy = FlakyProxy({("POST", "/v1/deliveries"): "lost", ("GET", "/v1/deliveries"): "busy"})
        self.addCleanup(self.proxy.close)
        self.client = courier_sdk.client(self.proxy.url, TEST_KEY, backoff=0.1)

    def test_quote_create_retried_get_list_cancel(self) -> None:
        # An hour ahead, so that it is still cancellable at the end.
        scheduled_at = dt.datetime.now(dt.timezone.utc).replace(microsecond=0) + dt.timedelta(hours=1)
        # Delivered between 90 minutes and 3 hours from now.
        dropoff_window = TimeWindowInput(
            start=scheduled_at + dt.timedelta(minutes=30), end=scheduled_at + dt.timedelta(hours=2)
        )
        quote = expect(
            create_quote.sync_detailed(
                client=self.client,
                body=CreateQuoteRequest(
                    pickup=address(ALEXANDERPLATZ),
                    dropoff=address(ORANIENSTRASSE),
                    vehicle_type_id="cargo_bike",
                    scheduled_at=scheduled_at,
                    dropoff_window=dropoff_window,
                ),
            ),
            201,
            Quote,
        )
        self.assertGreater(quote.amount_cents, 0)

        external_id = f"sdk-py-{uuid.uuid4().hex[:12]}"
        body = CreateDeliveryRequest(
            pickup=waypoint(ALEXANDERPLATZ, "Ana Sender"),
            dropoff=waypoint(ORANIENSTRASSE, "Rui Receiver"),
            vehicle_type_id="cargo_bike",
            quote_id=quote.id,
            scheduled_at=scheduled_at,
            dropoff_window=dropoff_window,
            external_id=external_id,
            notifications=NotificationPreferencesInput(language=NotificationLanguage.DE),
        )
        delivery = expect(courier_sdk.create_delivery(self.client, body), 201, Delivery)
        creates = [seen for seen in self.proxy.seen if seen[:2] == ("POST", "/v1/deliveries")]
        self.assertEqual(len(creates), 2, "the create is sent again after the 502")
        self.assertTrue(creates[0][2], "the create carries an Idempotency-Key")
        self.assertEqual(creates[0][2], creates[1][2], "the retry reuses the Idempotency-Key")
        self.assertEqual(delivery.quote_id, quote.id)

        read = expect(get_delivery.sync_detailed(delivery.id, client=self.client), 200, Delivery)
        self.assertEqual(read.id, delivery.id)
        self.assertEqual((read.dropoff_window.start, read.dropoff_window.end), (dropoff_window.start, dropoff_window.end))
        self.assertEqual(read.dropoff_eta, dropoff_window.start, "planned for when the window opens")
        self.assertEqual(read.notifications.language, NotificationLanguage.DE)
        self.assertIsNone(read.notifications.recipient)

        started = time.monotonic()
        listed = list_deliveries.sync_detailed(client=self.client, limit=100)
        self.assertEqual(listed.status_code, 200)
        self.assertGreaterEqual(time.monotonic() - started, 1.0, "the 429's Retry-After: 1 was waited")
        mine = [d for d in listed.parsed.deliveries if d.external_id == external_id]
        self.assertEqual([d.id for d in mine], [delivery.id], "the retried create made one delivery")

        changed = expect(
            courier_sdk.update_delivery(self.client, delivery.id, UpdateDeliveryRequest(notes="Side door.")),
            200,
            Delivery,
        )
        self.assertEqual(changed.notes, "Side door.")
        changes = [seen for seen in self.proxy.seen if seen[0] == "PATCH"]
        self.assertTrue(changes and changes[0][2], "the change carries an Idempotency-Key")

        cancelled = expect(
            cancel_delivery.sync_detailed(
                delivery.id, client=self.client, body=CancelDeliveryRequest(reason=CancelReason.NO_LONGER_NEEDED)
            ),
            200,
            Delivery,
        )
        self.assertEqual(cancelled.status, DeliveryStatus.CANCELLED)
        # No courier ever took it: nothing was sent.
        sent = expect(list_delivery_notifications.sync_detailed(delivery.id, client=self.client), 200, NotificationList)
        self.assertEqual((sent.notifications, sent.next_page_token), ([], None))

        again = expect(
            courier_sdk.redeliver_delivery(
                self.client, delivery.id, RedeliverDeliveryRequest(external_id=f"{external_id}-again")
            ),
            201,
            Delivery,
        )
        self.assertNotEqual(again.id, delivery.id)
        self.assertEqual((again.status, again.notes), (DeliveryStatus.PENDING, "Side door."))
        redeliveries = [seen for seen in self.proxy.seen if seen[0] == "POST" and seen[1].endswith("/redeliver")]
        self.assertTrue(redeliveries and redeliveries[0][2], "the redelivery carries an Idempotency-Key")

    def test_create_retried_after_a_dropped_connection(self) -> None:
        proxy = FlakyProxy({("POST", "/v1/deliveries"): "reset"})
        self.addCleanup(proxy.close)
        client = courier_sdk.client(proxy.url, TEST_KEY, backoff=0.1)
        external_id = f"sdk-py-{uuid.uuid4().hex[:12]}"
        body = CreateDeliveryRequest(
            pickup=waypoint(ALEXANDERPLATZ, "Ana Sender"),
            dropoff=waypoint(ORANIENSTRASSE, "Rui Receiver"),
            vehicle_type_id="cargo_bike",
            external_id=external_id,
        )
        delivery = expect(courier_sdk.create_delivery(client, body), 201, Delivery)
        keys = [seen[2] for seen in proxy.seen if seen[:2] == ("POST", "/v1/deliveries")]
        self.assertEqual(len(keys), 2, "the create is sent again after the dropped connection")
        self.assertEqual(keys[0], keys[1], "the retry reuses the Idempotency-Key")
        listed = list_deliveries.sync_detailed(client=client, limit=100)
        mine = [d.id for d in listed.parsed.deliveries if d.external_id == external_id]
        self.assertEqual(mine, [delivery.id], "the retried create made one delivery")

    def test_webhook_from_the_service_verifies(self) -> None:
        receiver = Receiver()
        self.addCleanup(receiver.close)
        client = courier_sdk.client(BASE_URL, TEST_KEY)
        hook = create_webhook_endpoint.sync_detailed(
            client=client,
            body=CreateWebhookEndpointRequest(url=receiver.url, events=[EventType.DELIVERY_STATUS_UPDATED]),
        )
        self.assertEqual(hook.status_code, 201, hook.content)
        sent = test_webhook_endpoint.sync_detailed(hook.parsed.id, client=client)
        self.assertLess(sent.status_code, 300, sent.content)
        # The endpoint may also get the real events of deliveries the other
        # tests booked: the sample is the one marked `test`.
        def sample():
            for headers, payload in receiver.received:
                event = courier_sdk.verify_webhook(hook.parsed.secret, payload, headers)
                if event["data"].get("test") is True:
                    return headers, payload, event
            return None

        deadline = time.monotonic() + 30
        while sample() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        found = sample()
        self.assertIsNotNone(found, "the test event reached the local endpoint")
        headers, payload, event = found
        self.assertEqual(event["type"], "delivery.status_updated")

        tampered = payload.replace(b"delivery.status_updated", b"delivery.delivered")
        with self.assertRaises(courier_sdk.WebhookVerificationError):
            courier_sdk.verify_webhook(hook.parsed.secret, tampered, headers)
        with self.assertRaises(courier_sdk.WebhookVerificationError):
            courier_sdk.verify_webhook("whsec_" + "A" * 32, payload, headers)


if __name__ == "__main__":
    unittest.main()
