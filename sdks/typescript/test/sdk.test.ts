// The TypeScript SDK against the running service (sdks/check.sh starts it
// and passes COURIER_SDK_BASE_URL and COURIER_SDK_TEST_KEY).
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { Webhook } from "standardwebhooks";
import { createCourierClient, createDelivery, redeliverDelivery, updateDelivery, verifyWebhook, WebhookVerificationError } from "../src/index.js";

const baseUrl = process.env.COURIER_SDK_BASE_URL ?? "";
const testKey = process.env.COURIER_SDK_TEST_KEY ?? "";
assert.ok(baseUrl && testKey, "COURIER_SDK_BASE_URL and COURIER_SDK_TEST_KEY are set");

const alexanderplatz = { address: "Alexanderplatz 1, 10178 Berlin", latitude: 52.5219, longitude: 13.4132 };
const oranienstrasse = { address: "Oranienstraße 25, 10999 Berlin", latitude: 52.501, longitude: 13.419 };
const contact = (name: string) => ({ name, phone: "+49 30 1234567" });

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function listen(server: Server): Promise<string> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

type Fault = "lost" | "busy" | "reset";

// Forwards to the service, except that the first request matching a fault is
// answered with it: "lost" forwards and answers 502 instead of the service's
// answer (a gateway that lost the reply); "reset" forwards and drops the
// connection without an answer; "busy" answers 429 with Retry-After: 1.
async function flakyProxy(faults: Map<string, Fault>) {
  const seen: { method: string; path: string; idempotencyKey: string | undefined }[] = [];
  const server = createServer(async (request, response) => {
    const method = request.method ?? "GET";
    const path = request.url ?? "/";
    const body = await readBody(request);
    const key = request.headers["idempotency-key"];
    seen.push({ method, path, idempotencyKey: typeof key === "string" ? key : undefined });
    const faultKey = `${method} ${path.split("?")[0]}`;
    const fault = faults.get(faultKey);
    faults.delete(faultKey);
    if (fault === "busy") {
      response.writeHead(429, { "Retry-After": "1" }).end();
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === "string" && !["host", "content-length", "connection"].includes(name)) headers.set(name, value);
    }
    const answer = await fetch(baseUrl + path, { method, headers, body: method === "GET" ? undefined : body.toString("utf8") });
    const text = Buffer.from(await answer.arrayBuffer());
    if (fault === "lost") {
      response.writeHead(502).end("bad gateway");
      return;
    }
    if (fault === "reset") {
      request.socket.destroy();
      return;
    }
    response.writeHead(answer.status, { "Content-Type": answer.headers.get("Content-Type") ?? "application/json" }).end(text);
  });
  return { url: await listen(server), seen, close: () => server.close() };
}

test("quote, a create retried after a 502 with the same key, get, list after a 429, cancel", async () => {
  const proxy = await flakyProxy(
    new Map<string, Fault>([
      ["POST /v1/deliveries", "lost"],
      ["GET /v1/deliveries", "busy"],
    ]),
  );
  try {
    const courier = createCourierClient({ baseUrl: proxy.url, apiKey: testKey, backoffMs: 100 });
    // An hour ahead, so that it is still cancellable at the end.
    const scheduledAt = new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_000).toISOString();
    // Delivered between 90 minutes and 3 hours from now.
    const dropoffWindow = {
      start: new Date(Date.parse(scheduledAt) + 1_800_000).toISOString(),
      end: new Date(Date.parse(scheduledAt) + 7_200_000).toISOString(),
    };
    const quote = await courier.POST("/v1/quotes", {
      body: {
        pickup: alexanderplatz,
        dropoff: oranienstrasse,
        vehicle_type_id: "cargo_bike",
        scheduled_at: scheduledAt,
        dropoff_window: dropoffWindow,
      },
    });
    assert.equal(quote.response.status, 201);
    assert.ok(quote.data && quote.data.amount_cents > 0);

    const externalId = `sdk-ts-${crypto.randomUUID().slice(0, 12)}`;
    const created = await createDelivery(courier, {
      pickup: { ...alexanderplatz, contact: contact("Ana Sender") },
      dropoff: { ...oranienstrasse, contact: contact("Rui Receiver") },
      vehicle_type_id: "cargo_bike",
      quote_id: quote.data.id,
      scheduled_at: scheduledAt,
      dropoff_window: dropoffWindow,
      external_id: externalId,
      notifications: { language: "de" },
    });
    assert.equal(created.response.status, 201, JSON.stringify(created.error));
    const delivery = created.data;
    assert.ok(delivery);
    const creates = proxy.seen.filter((s) => s.method === "POST" && s.path === "/v1/deliveries");
    assert.equal(creates.length, 2, "the create is sent again after the 502");
    assert.ok(creates[0]?.idempotencyKey, "the create carries an Idempotency-Key");
    assert.equal(creates[1]?.idempotencyKey, creates[0]?.idempotencyKey, "the retry reuses the Idempotency-Key");

    const read = await courier.GET("/v1/deliveries/{deliveryId}", { params: { path: { deliveryId: delivery.id } } });
    assert.equal(read.data?.id, delivery.id);
    const at = (text: string | null | undefined) => Date.parse(text ?? "");
    assert.equal(at(read.data?.dropoff_window?.end), at(dropoffWindow.end));
    assert.equal(at(read.data?.dropoff_eta), at(dropoffWindow.start), "planned for when the window opens");
    assert.deepEqual(read.data?.notifications, { recipient: null, sender: null, language: "de" });

    const started = Date.now();
    const listed = await courier.GET("/v1/deliveries", { params: { query: { limit: 100 } } });
    assert.equal(listed.response.status, 200);
    // 950, not 1000: a timer may fire a millisecond or two early.
    assert.ok(Date.now() - started >= 950, "the 429's Retry-After: 1 was waited");
    const mine = (listed.data?.deliveries ?? []).filter((d) => d.external_id === externalId);
    assert.deepEqual(
      mine.map((d) => d.id),
      [delivery.id],
      "the retried create made one delivery",
    );

    const changed = await updateDelivery(courier, delivery.id, { notes: "Side door." }, { ifMatch: read.data?.updated_at ?? undefined });
    assert.equal(changed.response.status, 200, JSON.stringify(changed.error));
    assert.equal(changed.data?.notes, "Side door.");

    const cancelled = await courier.POST("/v1/deliveries/{deliveryId}/cancel", {
      params: { path: { deliveryId: delivery.id } },
      body: { reason: "no_longer_needed" },
    });
    assert.equal(cancelled.data?.status, "cancelled", JSON.stringify(cancelled.error));
    // No courier ever took it: nothing was sent.
    const notifications = await courier.GET("/v1/deliveries/{deliveryId}/notifications", {
      params: { path: { deliveryId: delivery.id } },
    });
    assert.deepEqual(notifications.data, { notifications: [], next_page_token: null });

    const again = await redeliverDelivery(courier, delivery.id, { external_id: `${externalId}-again` });
    assert.equal(again.response.status, 201, JSON.stringify(again.error));
    assert.notEqual(again.data?.id, delivery.id);
    assert.equal(again.data?.status, "pending");
    assert.equal(again.data?.notes, "Side door.");
  } finally {
    proxy.close();
  }
});

test("a create retried after a dropped connection with the same key makes one delivery", async () => {
  const proxy = await flakyProxy(new Map<string, Fault>([["POST /v1/deliveries", "reset"]]));
  try {
    const courier = createCourierClient({ baseUrl: proxy.url, apiKey: testKey, backoffMs: 100 });
    const externalId = `sdk-ts-${crypto.randomUUID().slice(0, 12)}`;
    const created = await createDelivery(courier, {
      pickup: { ...alexanderplatz, contact: contact("Ana Sender") },
      dropoff: { ...oranienstrasse, contact: contact("Rui Receiver") },
      vehicle_type_id: "cargo_bike",
      external_id: externalId,
    });
    assert.equal(created.response.status, 201, JSON.stringify(created.error));
    const keys = proxy.seen.filter((s) => s.method === "POST" && s.path === "/v1/deliveries").map((s) => s.idempotencyKey);
    assert.equal(keys.length, 2, "the create is sent again after the dropped connection");
    assert.equal(keys[1], keys[0], "the retry reuses the Idempotency-Key");
    const listed = await courier.GET("/v1/deliveries", { params: { query: { limit: 100 } } });
    const mine = (listed.data?.deliveries ?? []).filter((d) => d.external_id === externalId).map((d) => d.id);
    assert.deepEqual(mine, [created.data?.id], "the retried create made one delivery");
  } finally {
    proxy.close();
  }
});

test("a webhook from the service verifies with the helper; a tampered one does not", async () => {
  const received: { headers: Record<string, string>; body: Buffer }[] = [];
  const receiver = createServer(async (request, response) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers[name] = value;
    received.push({ headers, body: await readBody(request) });
    response.writeHead(204).end();
  });
  const receiverUrl = await listen(receiver);
  try {
    const courier = createCourierClient({ baseUrl, apiKey: testKey });
    const hook = await courier.POST("/v1/webhooks", {
      body: { url: `${receiverUrl}/hooks`, events: ["delivery.status_updated"] },
    });
    assert.equal(hook.response.status, 201, JSON.stringify(hook.error));
    assert.ok(hook.data);
    const sent = await courier.POST("/v1/webhooks/{webhookId}/test", { params: { path: { webhookId: hook.data.id } } });
    assert.ok(sent.response.ok, JSON.stringify(sent.error));
    const deadline = Date.now() + 30_000;
    while (received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const delivered = received[0];
    assert.ok(delivered, "the test event reached the local endpoint");

    const payload = delivered.body.toString("utf8");
    const event = verifyWebhook(hook.data.secret, payload, delivered.headers);
    assert.equal(event.type, "delivery.status_updated");

    assert.throws(
      () => verifyWebhook(hook.data!.secret, payload.replace("delivery.status_updated", "delivery.delivered"), delivered.headers),
      WebhookVerificationError,
    );
    const otherSecret = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64")}`;
    assert.throws(() => verifyWebhook(otherSecret, payload, delivered.headers), WebhookVerificationError);
    // A payload signed with the same library and secret verifies too.
    const id = "msg_sdk_check";
    const now = new Date();
    const signature = new Webhook(hook.data.secret).sign(id, now, payload);
    const resigned = { "webhook-id": id, "webhook-timestamp": String(Math.floor(now.getTime() / 1000)), "webhook-signature": signature };
    assert.equal(verifyWebhook(hook.data.secret, payload, new Headers(resigned)).id, event.id);
  } finally {
    receiver.close();
  }
});
