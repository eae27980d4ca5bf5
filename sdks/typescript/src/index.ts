// The hand-written layer over the generated types (schema.ts, from the
// OpenAPI document by openapi-typescript) and openapi-fetch: the retry
// guidance of the contract (section 7) and webhook verification.
import createClient, { type Client } from "openapi-fetch";
import { Webhook } from "standardwebhooks";
import type { components, paths } from "./schema.js";

export type { components, paths, operations } from "./schema.js";
export type Event = components["schemas"]["Event"];

// The creates that take an Idempotency-Key: one is made for each call
// without one, and every retry of that call sends the same. A delivery's
// change (PATCH /v1/deliveries/{id}) and redelivery take one too.
const CREATE_PATHS = ["/v1/deliveries", "/v1/fleet/orders"];
const REDELIVER_PATH = /\/v1\/deliveries\/[^/]+\/redeliver$/;
const CHANGE_PATH = /\/v1\/(deliveries|fleet\/orders)\/[^/]+$/;
// A batch of creates carries a key in each item: safe to send again as it is.
const BATCH_PATH = "/v1/deliveries/batch";
// Requests that are safe to send again after a network error or a 5xx.
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const RETRIED_STATUSES = new Set([500, 502, 503, 504]);

export interface RetryOptions {
  /** Attempts in all, the first included (default 4). */
  attempts?: number;
  /** First backoff after a network error or a 5xx, doubled each time (default 500 ms). */
  backoffMs?: number;
  /** The longest wait between attempts, Retry-After included (default 30 s). */
  maxWaitMs?: number;
  /** The fetch to send with (default the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

export interface CourierOptions extends RetryOptions {
  /** The service's origin, e.g. https://api.example.com (paths carry /v1). */
  baseUrl: string;
  /** A test or live API key. */
  apiKey: string;
}

export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}

/** Seconds of a Retry-After header (or an HTTP date), in milliseconds. */
export function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get("Retry-After");
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * A fetch that follows the contract's retry guidance: creates get an
 * Idempotency-Key, reused on every retry; network errors and 5xx are retried
 * with backoff for creates and safe methods; a 429 waits Retry-After.
 */
export function retryingFetch(options: RetryOptions = {}): (request: Request) => Promise<Response> {
  const attempts = Math.max(1, options.attempts ?? 4);
  const backoffMs = options.backoffMs ?? 500;
  const maxWaitMs = options.maxWaitMs ?? 30_000;
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, maxWaitMs)));

  return async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    const guarded =
      (request.method === "POST" && (CREATE_PATHS.some((create) => path.endsWith(create)) || REDELIVER_PATH.test(path))) ||
      (request.method === "PATCH" && CHANGE_PATH.test(path));
    if (guarded && !request.headers.has("Idempotency-Key")) {
      request.headers.set("Idempotency-Key", newIdempotencyKey());
    }
    const repeatable =
      SAFE_METHODS.has(request.method) ||
      request.headers.has("Idempotency-Key") ||
      (request.method === "POST" && path.endsWith(BATCH_PATH));
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= attempts;
      const backoff = backoffMs * 2 ** (attempt - 1);
      let response: Response;
      try {
        response = await send(request.clone());
      } catch (error) {
        if (last || !repeatable) throw error;
        await sleep(backoff);
        continue;
      }
      // A 429 was not carried out, so any request may be sent again.
      if (response.status === 429 && !last) {
        await response.body?.cancel();
        await sleep(retryAfterMs(response) ?? backoff);
        continue;
      }
      if (RETRIED_STATUSES.has(response.status) && repeatable && !last) {
        await response.body?.cancel();
        await sleep(backoff);
        continue;
      }
      return response;
    }
  };
}

/** A typed client of /v1 (openapi-fetch) with the key and the retry guidance. */
export function createCourierClient(options: CourierOptions): Client<paths> {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: { "x-api-key": options.apiKey },
    fetch: retryingFetch(options),
  });
}

export type CreateDeliveryRequest = components["schemas"]["CreateDeliveryRequest"];

/** POST /v1/deliveries with an Idempotency-Key made unless given (the fetch sends the same on every retry). */
export function createDelivery(client: Client<paths>, body: CreateDeliveryRequest, idempotencyKey: string = newIdempotencyKey()) {
  return client.POST("/v1/deliveries", { body, params: { header: { "Idempotency-Key": idempotencyKey } } });
}

export type UpdateDeliveryRequest = components["schemas"]["UpdateDeliveryRequest"];

export interface UpdateDeliveryOptions {
  /** Made unless given; the fetch sends the same on every retry. */
  idempotencyKey?: string;
  /** The delivery's `updated_at` as last read: a delivery changed since answers 412 precondition_failed. */
  ifMatch?: string;
}

/** PATCH /v1/deliveries/{deliveryId}: changes notes, contacts, instructions or the dropoff window. */
export function updateDelivery(client: Client<paths>, deliveryId: string, body: UpdateDeliveryRequest, options: UpdateDeliveryOptions = {}) {
  const header: { "Idempotency-Key": string; "If-Match"?: string } = { "Idempotency-Key": options.idempotencyKey ?? newIdempotencyKey() };
  if (options.ifMatch !== undefined) header["If-Match"] = options.ifMatch;
  return client.PATCH("/v1/deliveries/{deliveryId}", { body, params: { path: { deliveryId }, header } });
}

export type RedeliverDeliveryRequest = components["schemas"]["RedeliverDeliveryRequest"];

/** POST /v1/deliveries/{deliveryId}/redeliver: books a cancelled delivery again, with an Idempotency-Key made unless given. */
export function redeliverDelivery(client: Client<paths>, deliveryId: string, body: RedeliverDeliveryRequest = {}, idempotencyKey: string = newIdempotencyKey()) {
  return client.POST("/v1/deliveries/{deliveryId}/redeliver", {
    body,
    params: { path: { deliveryId }, header: { "Idempotency-Key": idempotencyKey } },
  });
}

/**
 * Verifies a webhook per Standard Webhooks with the endpoint's `whsec_…`
 * secret and returns its event; throws `WebhookVerificationError` when the
 * signature, id or timestamp do not hold. `payload` is the raw body.
 */
export function verifyWebhook(secret: string, payload: string | Buffer, headers: Headers | Record<string, string>): Event {
  const plain = headers instanceof Headers ? Object.fromEntries(headers.entries()) : headers;
  return new Webhook(secret).verify(payload, plain) as Event;
}

export { WebhookVerificationError } from "standardwebhooks";
