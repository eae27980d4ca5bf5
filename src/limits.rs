//! The rules of the public API's request fields (docs/guide.md "Limits"):
//! one source for the checks the core makes and for what the OpenAPI
//! document states, so that the two cannot drift.

/// A text length in characters (Unicode scalar values), both ends included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chars {
    pub min: usize,
    pub max: usize,
}

/// A count (of list entries, or a whole number), both ends included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    pub min: i64,
    pub max: i64,
}

/// `If-Match` on a change: `*`, or an `updated_at` as read (RFC 3339),
/// bare, quoted or weak.
pub const IF_MATCH_PATTERN: &str = r#"^(?:\*|(?:W/)?"?[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2})"?)$"#;

/// A waypoint's address.
pub const ADDRESS: Chars = Chars { min: 3, max: 500 };
/// A waypoint's handoff instructions.
pub const INSTRUCTIONS: Chars = Chars { min: 0, max: 500 };
pub const LATITUDE: (f64, f64) = (-90.0, 90.0);
pub const LONGITUDE: (f64, f64) = (-180.0, 180.0);
/// A contact's (or fleet customer's) name.
pub const CONTACT_NAME: Chars = Chars { min: 1, max: 200 };
/// A phone number in international format.
pub const PHONE: Chars = Chars { min: 5, max: 32 };
/// `+`, then at least four digits with optional spaces, dashes, dots and
/// parentheses (ECMA-262, as JSON Schema reads it).
pub const PHONE_PATTERN: &str = r"^\+(?:[ ().-]*[0-9]){4}[0-9 ().-]*$";
pub const EMAIL: Chars = Chars { min: 3, max: 254 };
/// One `@`, a local part, a domain of two or more dot-separated labels, no
/// white space.
pub const EMAIL_PATTERN: &str = r"^[^@\s]+@[^@\s.]+(?:\.[^@\s.]+)+$";
/// Deliveries in one `POST /v1/deliveries/batch`.
pub const BATCH_DELIVERIES: Count = Count { min: 1, max: 100 };
/// Stops between pickup and dropoff.
pub const STOPS: Count = Count { min: 0, max: 10 };
/// A `vehicle_type_id`: at least this many characters (an id of `GET
/// /v1/vehicle-types`; no other bound).
pub const VEHICLE_TYPE_ID_MIN: usize = 1;
/// The fields of free text, by name wherever they appear in a request: they
/// may hold tabs and line breaks (docs/guide.md "Text"); `sms` and
/// `email_body` are notification texts, `value` a form field the SMS
/// provider posted (an inbound message's body).
pub const FREE_TEXT_FIELDS: &[&str] = &[
    "address",
    "instructions",
    "notes",
    "description",
    "sms",
    "email_body",
    "value",
];
/// Every other string of a request (fields, query parameters, path ids): no
/// control character, i.e. nothing of Unicode's `Cc` (C0, DEL, C1)
/// (ECMA-262, as JSON Schema reads it).
pub const TEXT_PATTERN: &str = r"^[^\u0000-\u001f\u007f-\u009f]*$";
/// Free text: as [`TEXT_PATTERN`], with tab, line feed and carriage return.
pub const FREE_TEXT_PATTERN: &str = r"^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*$";
/// Selected extras.
pub const EXTRAS: Count = Count { min: 0, max: 20 };
/// The quantity of one selected extra.
pub const EXTRA_QUANTITY: Count = Count { min: 1, max: 99 };
/// Shipment items, when given.
pub const ITEMS: Count = Count { min: 1, max: 100 };
pub const ITEM_DESCRIPTION: Chars = Chars { min: 1, max: 200 };
pub const ITEM_QUANTITY: Count = Count { min: 1, max: 1000 };
/// An item's weight: more than 0, at most this.
pub const MAX_ITEM_WEIGHT_KG: f64 = 10_000.0;
/// An item's length, width or height: more than 0, at most this.
pub const MAX_ITEM_DIMENSION_CM: f64 = 2_000.0;
/// A delivery's `tip_cents`, in minor units of its currency.
pub const TIP_CENTS: Count = Count { min: 0, max: 100_000 };
/// A delivery's `external_id`.
pub const EXTERNAL_ID: Chars = Chars { min: 1, max: 128 };
/// A delivery's or fleet order's notes.
pub const NOTES: Chars = Chars { min: 0, max: 2000 };
/// Photos a proof-of-delivery checkpoint asks for.
pub const PROOF_PHOTOS: Count = Count { min: 1, max: 10 };
/// A fleet order's customer reference.
pub const FLEET_REFERENCE: Chars = Chars { min: 1, max: 120 };
/// A fleet order's customer time zone (an IANA name).
pub const TIME_ZONE: Chars = Chars { min: 1, max: 64 };
/// `requested_pickup_date`: `YYYY-MM-DD` (and a day the calendar has).
pub const PICKUP_DATE_PATTERN: &str = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$";
/// `requested_pickup_time`: `HH:MM`, 00:00 to 23:59.
pub const PICKUP_TIME_PATTERN: &str = r"^(?:[01][0-9]|2[0-3]):[0-5][0-9]$";
/// A webhook endpoint's URL.
pub const WEBHOOK_URL: Chars = Chars { min: 12, max: 2000 };
/// A webhook endpoint's description.
pub const WEBHOOK_DESCRIPTION: Chars = Chars { min: 0, max: 500 };
/// Event types one endpoint subscribes to (distinct; none means all).
pub const WEBHOOK_EVENTS: Count = Count { min: 0, max: 8 };
/// The `Idempotency-Key` header.
pub const IDEMPOTENCY_KEY: Chars = Chars { min: 1, max: 255 };
/// A page of a list (`limit`; gRPC `page_size`), and its default.
pub const PAGE_SIZE: Count = Count { min: 1, max: 100 };
pub const DEFAULT_PAGE_SIZE: i64 = 20;
