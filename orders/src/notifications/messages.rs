//! The outbox (docs/notifications.md "Sending"): one
//! `notification_messages` row per message, written in the transaction of
//! its trigger with its text rendered then, so the message says what was
//! true when it happened. A unique index over delivery, trigger, audience
//! and channel makes a second insert of the same message do nothing, on any
//! number of replicas. The sender claims due rows with a lease and a token
//! ([`claim`]) as the webhook queue does; only the token's holder records
//! the outcome ([`finish`]).

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{ArrayType, Expr, OnConflict};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, DatabaseBackend, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Statement,
};

use super::settings::{self, Settings};
use super::templates::{self, Values};
use super::{Audience, Channel, Language, MessageStatus, Trigger};
use crate::deliveries::Delivery;
use crate::{CoreError, CoreResult, Orders};
use courier_identity::access::{Granted, act};
use courier_identity::auth::Principal;
use courier_identity::modes::Mode;
use courier_store::ids;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "notification_messages")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub workspace_id: String,
        pub mode: String,
        pub delivery_id: String,
        pub trigger: String,
        pub audience: String,
        pub channel: String,
        /// The phone number or email address, whole (lists mask it).
        pub address: String,
        pub language: String,
        /// An email's subject.
        pub subject: Option<String>,
        pub body: String,
        pub status: String,
        pub attempts: i32,
        /// When the sender may take it: due, held until, or its lease's end.
        pub next_attempt_at: Option<i64>,
        pub claim_token: Option<String>,
        /// When the sender holding it claimed it: a send may be under way.
        pub claimed_at: Option<i64>,
        /// When a claim that was never recorded began ([`super::claim`]).
        pub cut_off_at: Option<i64>,
        pub provider_message_id: Option<String>,
        pub error: Option<String>,
        pub created_at: i64,
        pub sent_at: Option<i64>,
        pub updated_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod attempt {
    use sea_orm::entity::prelude::*;

    /// One try to hand a message to its provider.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "notification_attempts")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub message_id: String,
        pub attempt: i32,
        pub started_at: i64,
        pub duration_micros: i64,
        /// One of [`super::outcome`].
        pub outcome: String,
        pub provider_message_id: Option<String>,
        pub error: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// A message as lists show it and the sender sends it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub id: String,
    pub workspace_id: String,
    pub mode: Mode,
    pub delivery_id: String,
    pub trigger: Trigger,
    pub audience: Audience,
    pub channel: Channel,
    pub address: String,
    pub language: Language,
    pub subject: Option<String>,
    pub body: String,
    pub status: MessageStatus,
    pub attempts: i32,
    pub next_attempt_at: Option<i64>,
    pub claim_token: Option<String>,
    /// When a sender that claimed it before began and never recorded it
    /// (it died or lost its lease): its send may have gone out.
    pub cut_off_at: Option<i64>,
    pub provider_message_id: Option<String>,
    pub error: Option<String>,
    pub created_at: i64,
    pub sent_at: Option<i64>,
}

impl Message {
    /// The address as lists show it (`+49********12`).
    pub fn masked_address(&self) -> String {
        super::mask(self.channel, &self.address)
    }
}

fn from_model(m: entity::Model) -> CoreResult<Message> {
    let corrupt = |what: &str| CoreError::Internal(format!("notification {} has a bad {what}", m.id));
    Ok(Message {
        mode: Mode::parse(&m.mode).ok_or_else(|| corrupt("mode"))?,
        trigger: Trigger::parse(&m.trigger).ok_or_else(|| corrupt("trigger"))?,
        audience: Audience::parse(&m.audience).ok_or_else(|| corrupt("audience"))?,
        channel: Channel::parse(&m.channel).ok_or_else(|| corrupt("channel"))?,
        language: Language::parse(&m.language).ok_or_else(|| corrupt("language"))?,
        status: MessageStatus::parse(&m.status).ok_or_else(|| corrupt("status"))?,
        id: m.id,
        workspace_id: m.workspace_id,
        delivery_id: m.delivery_id,
        address: m.address,
        subject: m.subject,
        body: m.body,
        attempts: m.attempts,
        next_attempt_at: m.next_attempt_at,
        claim_token: m.claim_token,
        cut_off_at: m.cut_off_at,
        provider_message_id: m.provider_message_id,
        error: m.error,
        created_at: m.created_at,
        sent_at: m.sent_at,
    })
}

/// What the placeholders of `delivery`'s messages become.
pub fn values_of(orders: &Orders, delivery: &Delivery, business_name: &str) -> Values {
    let route = &delivery.route;
    let eta = delivery.dropoff_eta.unwrap_or_else(|| delivery.plan().dropoff_at);
    let eta = DateTime::<Utc>::from_timestamp_micros(eta)
        .map(|at| match orders.catalog.service_area(&delivery.service_area_id) {
            Some(area) => area.local_time(at).format("%H:%M").to_string(),
            None => at.format("%H:%M UTC").to_string(),
        })
        .unwrap_or_default();
    let courier_first_name = delivery
        .courier
        .as_ref()
        .and_then(|c| c.name.as_deref())
        .and_then(|name| name.split_whitespace().next())
        .unwrap_or_default()
        .to_owned();
    let contact_name =
        |w: &crate::validate::WaypointInput| w.contact.as_ref().map(|c| c.name.clone()).unwrap_or_default();
    Values(
        [
            ("business_name", business_name.to_owned()),
            ("recipient_name", contact_name(&route.dropoff)),
            ("sender_name", contact_name(&route.pickup)),
            ("courier_first_name", courier_first_name),
            ("eta", eta),
            (
                "tracking_url",
                format!(
                    "{}/t/{}",
                    orders.config.public_base_url.trim_end_matches('/'),
                    delivery.tracking_token
                ),
            ),
            ("dropoff_address", route.dropoff.address.clone()),
            ("external_id", delivery.external_id.clone().unwrap_or_default()),
        ]
        .into_iter()
        .collect(),
    )
}

/// A phone number as SMS providers take it and send it back (`+4915112345678`
/// for `+49 151 1234-5678`): the plus and the digits.
pub fn e164(phone: &str) -> String {
    phone.chars().filter(|c| *c == '+' || c.is_ascii_digit()).collect()
}

/// The messages `settings` sends for `trigger` of `delivery`, rendered:
/// one per audience the delivery allows and channel its contact has an
/// address for.
fn messages_of(
    orders: &Orders,
    settings: &Settings,
    business_name: &str,
    delivery: &Delivery,
    trigger: Trigger,
    at: i64,
) -> Vec<entity::ActiveModel> {
    let preferences = delivery.notifications;
    let language = preferences.language.unwrap_or(settings.language);
    let text = settings.text(trigger, language);
    let mut values = None;
    let mut rows = Vec::new();
    for audience in Audience::ALL {
        if !preferences.allows(audience) {
            continue;
        }
        let waypoint = match audience {
            Audience::Recipient => &delivery.route.dropoff,
            Audience::Sender => &delivery.route.pickup,
        };
        let Some(contact) = &waypoint.contact else { continue };
        for channel in Channel::ALL {
            if !settings.sends(trigger, audience, channel) {
                continue;
            }
            let address = match channel {
                Channel::Sms => Some(e164(&contact.phone)),
                Channel::Email => contact.email.clone(),
            };
            let Some(address) = address else { continue };
            let values = values.get_or_insert_with(|| values_of(orders, delivery, business_name));
            let (subject, body) = match channel {
                Channel::Sms => (None, templates::render(&text.sms, values)),
                Channel::Email => (
                    Some(templates::render(&text.email_subject, values)),
                    templates::render(&text.email_body, values),
                ),
            };
            rows.push(entity::ActiveModel {
                id: Set(ids::new_id("ntf")),
                workspace_id: Set(delivery.workspace_id.clone()),
                mode: Set(delivery.mode.as_str().to_owned()),
                delivery_id: Set(delivery.id.clone()),
                trigger: Set(trigger.as_str().to_owned()),
                audience: Set(audience.as_str().to_owned()),
                channel: Set(channel.as_str().to_owned()),
                address: Set(address),
                language: Set(language.as_str().to_owned()),
                subject: Set(subject),
                body: Set(body),
                status: Set(MessageStatus::Queued.as_str().to_owned()),
                attempts: Set(0),
                next_attempt_at: Set(Some(at)),
                claim_token: Set(None),
                claimed_at: Set(None),
                cut_off_at: Set(None),
                provider_message_id: Set(None),
                error: Set(None),
                created_at: Set(at),
                sent_at: Set(None),
                updated_at: Set(at),
            });
        }
    }
    rows
}

/// Queues the messages of each `(delivery, trigger, at)` in `tx`, the
/// transaction of the change that fired them: one read of each workspace's
/// settings and name, one insert, and nothing for a message already queued.
/// The sender of this process is woken when `tx` commits.
pub async fn enqueue(
    orders: &Orders,
    tx: &courier_store::db::WriteTransaction,
    fired: &[(&Delivery, Trigger, i64)],
) -> CoreResult<()> {
    if fired.is_empty() {
        return Ok(());
    }
    let mut rows = Vec::new();
    let mut workspaces: Vec<(String, Settings, String)> = Vec::new();
    for &(delivery, trigger, at) in fired {
        let index = match workspaces.iter().position(|(id, ..)| *id == delivery.workspace_id) {
            Some(index) => index,
            None => {
                let settings = settings::get(&**tx, &delivery.workspace_id).await?;
                let name = settings.business_name(&**tx, &delivery.workspace_id).await?;
                workspaces.push((delivery.workspace_id.clone(), settings, name));
                workspaces.len() - 1
            }
        };
        let (_, settings, name) = &workspaces[index];
        rows.extend(messages_of(orders, settings, name, delivery, trigger, at));
    }
    if rows.is_empty() {
        return Ok(());
    }
    entity::Entity::insert_many(rows)
        .on_conflict(
            OnConflict::columns([
                entity::Column::DeliveryId,
                entity::Column::Trigger,
                entity::Column::Audience,
                entity::Column::Channel,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_without_returning(&**tx)
        .await?;
    let wake = orders.notification_wake.clone();
    tx.after_commit(move || wake.notify_one());
    Ok(())
}

/// The messages of `delivery_id` in `workspace_id` and `mode`, oldest first.
pub async fn of_delivery(
    db: &impl ConnectionTrait,
    workspace_id: &str,
    mode: Mode,
    delivery_id: &str,
) -> CoreResult<Vec<Message>> {
    entity::Entity::find()
        .filter(entity::Column::DeliveryId.eq(delivery_id))
        .filter(entity::Column::WorkspaceId.eq(workspace_id))
        .filter(entity::Column::Mode.eq(mode.as_str()))
        .order_by_asc(entity::Column::CreatedAt)
        .order_by_asc(entity::Column::Id)
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect()
}

/// `GET /v1/deliveries/{id}/notifications`: the messages of one of the
/// caller's deliveries (`not_found` for any other).
pub async fn for_delivery(orders: &Orders, principal: &Principal, delivery_id: &str) -> CoreResult<Vec<Message>> {
    let delivery = crate::deliveries::get(orders, principal, delivery_id).await?;
    of_delivery(&orders.db, &delivery.workspace_id, delivery.mode, &delivery.id).await
}

/// The workspace's test inbox: its test-mode messages, newest first, at
/// most `limit`, created before `before` when given.
pub async fn test_inbox(
    orders: &Orders,
    granted: &Granted<act::ReadNotifications>,
    workspace_id: &str,
    limit: u64,
    before: Option<i64>,
) -> CoreResult<Vec<Message>> {
    granted.covers(workspace_id)?;
    let db = &orders.db;
    // The mode a literal, as in the partial index of test-mode messages
    // (migration `m20261212_000065`): no index matches a bound one.
    let mut query = entity::Entity::find()
        .filter(entity::Column::WorkspaceId.eq(workspace_id))
        .filter(Expr::cust(format!("\"mode\" = '{}'", Mode::Test.as_str())));
    if let Some(before) = before {
        query = query.filter(entity::Column::CreatedAt.lt(before));
    }
    query
        .order_by_desc(entity::Column::CreatedAt)
        .order_by_desc(entity::Column::Id)
        .limit(limit)
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect()
}

/// The newest SMS to `phone`: whose workspace an inbound `STOP` is for.
pub async fn latest_sms_to(db: &impl ConnectionTrait, phone: &str) -> CoreResult<Option<Message>> {
    entity::Entity::find()
        .filter(entity::Column::Address.eq(phone))
        .filter(entity::Column::Channel.eq(Channel::Sms.as_str()))
        .order_by_desc(entity::Column::CreatedAt)
        .one(db)
        .await?
        .map(from_model)
        .transpose()
}

/// Claims up to `limit` waiting messages due at `now`, earliest first: they
/// get `token` and are due again only at `lease_end` (a sender that dies
/// leaves them to the next one then). Returns them, in no order. The claim
/// marks a send under way (`claimed_at`), which recording the outcome
/// clears: a message claimed while still marked was held by a sender that
/// never recorded it, and gets `cut_off_at`, the earliest such claim's
/// start, until an attempt settles it. So an attempt is written once, when
/// it ends, and the claim's own write is the mark. A message
/// whose delivery has another under a live claim waits for that one to be
/// recorded: a delivery's messages reach the provider in the order they
/// were queued, whichever batch holds them (docs/notifications.md
/// "Sending"). The due rows are chosen once, in a materialized step:
/// PostgreSQL may run a `LIMIT … SKIP LOCKED` subquery of an `IN` more than
/// once, each time skipping what the last locked, and claim many times
/// `limit`; and they are found again by key (`= ANY`), not joined, which
/// PostgreSQL planned as a scan of every message ever kept. Both steps read
/// partial indexes of the messages waiting and those claimed (migration
/// `m20261211_000064`), whose conditions are written here the same.
pub async fn claim(
    db: &impl ConnectionTrait,
    limit: u64,
    now: i64,
    lease_end: i64,
    token: &str,
) -> CoreResult<Vec<Message>> {
    let backend = db.get_database_backend();
    let sql = claim_statement(backend);
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let values: [sea_orm::Value; 4] = [now.into(), limit.into(), lease_end.into(), token.into()];
    entity::Entity::find()
        .from_raw_sql(Statement::from_sql_and_values(backend, sql, values))
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect()
}

/// [`claim`]'s statement on `backend`: its parameters the time, the limit,
/// the lease's end and the token.
pub fn claim_statement(backend: DatabaseBackend) -> String {
    let (queued, held) = (MessageStatus::Queued.as_str(), MessageStatus::Held.as_str());
    // No message of the same delivery under a live claim (one still
    // claimed is due again only when its lease ends).
    let now_parameter = if backend == DatabaseBackend::Postgres {
        "$1"
    } else {
        "?1"
    };
    let unheld = format!(
        "NOT EXISTS (SELECT 1 FROM notification_messages AS held \
         WHERE held.delivery_id = m.delivery_id AND held.claim_token IS NOT NULL \
         AND held.next_attempt_at > {now_parameter})"
    );
    match backend {
        DatabaseBackend::Postgres => format!(
            "WITH due AS MATERIALIZED (SELECT id FROM notification_messages AS m \
             WHERE status IN ('{queued}', '{held}') AND next_attempt_at <= $1 AND {unheld} \
             ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED) \
             UPDATE notification_messages SET next_attempt_at = $3, claim_token = $4, \
             claimed_at = $1, cut_off_at = COALESCE(cut_off_at, claimed_at) \
             WHERE id = ANY(ARRAY(SELECT id FROM due)) RETURNING *"
        ),
        _ => format!(
            "WITH due AS MATERIALIZED (SELECT id FROM notification_messages AS m \
             WHERE status IN ('{queued}', '{held}') AND next_attempt_at <= ?1 AND {unheld} \
             ORDER BY next_attempt_at LIMIT ?2) \
             UPDATE notification_messages SET next_attempt_at = ?3, claim_token = ?4, \
             claimed_at = ?1, cut_off_at = COALESCE(cut_off_at, claimed_at) \
             FROM due WHERE notification_messages.id = due.id RETURNING *"
        ),
    }
}

/// Moves the lease of `ids`, claimed with `token`, to `lease_end`; returns
/// those this sender still holds (a message whose lease ended may have been
/// claimed by another since).
pub async fn renew(
    db: &impl ConnectionTrait,
    token: &str,
    ids: &[String],
    lease_end: i64,
) -> CoreResult<BTreeSet<String>> {
    if ids.is_empty() {
        return Ok(BTreeSet::new());
    }
    let renewed = entity::Entity::update_many()
        .col_expr(entity::Column::NextAttemptAt, Expr::value(lease_end))
        .filter(courier_store::db::one_of(db.get_database_backend(), "id", ids))
        .filter(entity::Column::ClaimToken.eq(token))
        .exec_with_returning(db)
        .await?;
    Ok(renewed.into_iter().map(|row| row.id).collect())
}

/// What became of one claimed message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Taken by the provider (or the test inbox).
    Sent { provider_message_id: String },
    /// Try again at `at`.
    Retry { at: i64, error: String },
    /// Held by quiet hours until `until`.
    Held { until: i64 },
    /// Not sent, and never will be.
    Ended {
        status: MessageStatus,
        error: Option<String>,
    },
}

/// Records `outcome` of `message` at `now`, if the sender still holds it
/// (its claim token unchanged); `attempted` when a send was tried (which
/// settles a cut-off send too). Returns whether it was recorded.
pub async fn finish(
    db: &impl ConnectionTrait,
    message: &Message,
    outcome: &Outcome,
    attempted: bool,
    now: i64,
) -> CoreResult<bool> {
    let Some(token) = &message.claim_token else {
        return Ok(false);
    };
    let finished = Finished {
        message,
        outcome,
        attempts: i32::from(attempted),
    };
    Ok(finish_many(db, token, &[finished], now).await?.contains(&message.id))
}

/// One claimed message's outcome, for [`finish_many`].
pub struct Finished<'a> {
    pub message: &'a Message,
    pub outcome: &'a Outcome,
    /// The attempts this sender made (with a cut-off one it settled): the
    /// message's count grows by them, and any makes its cut-off settled.
    pub attempts: i32,
}

/// The columns [`finish_many`] binds per message.
const FINISHED_COLUMNS: [(&str, ArrayType); 9] = [
    ("message_id", ArrayType::String),
    ("status", ArrayType::String),
    ("attempts", ArrayType::Int),
    ("provider_message_id", ArrayType::String),
    ("sent_at", ArrayType::BigInt),
    ("set_error", ArrayType::Bool),
    ("error", ArrayType::String),
    ("next_attempt_at", ArrayType::BigInt),
    ("cut_off_at", ArrayType::BigInt),
];

/// Records the outcomes of messages claimed with `token` at `now`, in one
/// statement however many, whose text does not depend on their number
/// ([`courier_store::db::bound_rows`]): prepared once per connection. Only
/// rows still claimed with `token` change; returns their ids: a message
/// claimed again by another sender since (its lease ended) is left to that
/// one.
pub async fn finish_many(
    db: &impl ConnectionTrait,
    token: &str,
    finished: &[Finished<'_>],
    now: i64,
) -> CoreResult<BTreeSet<String>> {
    if finished.is_empty() {
        return Ok(BTreeSet::new());
    }
    let backend = db.get_database_backend();
    let rows = finished.iter().map(|f| finished_row(f, now)).collect();
    let bound = courier_store::db::bound_rows(backend, &FINISHED_COLUMNS, rows)?;
    let sql = finish_sql(backend, &bound);
    let mut values = bound.values;
    values.extend([now.into(), token.into()]);
    db.query_all_raw(Statement::from_sql_and_values(backend, sql, values))
        .await?
        .iter()
        .map(|row| Ok(row.try_get::<String>("", "id")?))
        .collect()
}

/// [`finish_many`]'s statement on `backend`: its parameters the bound rows
/// ([`FINISHED_COLUMNS`]), the time and the token.
pub fn finish_statement(backend: DatabaseBackend) -> CoreResult<String> {
    let bound = courier_store::db::bound_rows(backend, &FINISHED_COLUMNS, Vec::new())?;
    Ok(finish_sql(backend, &bound))
}

fn finish_sql(backend: DatabaseBackend, bound: &courier_store::db::BoundRows) -> String {
    // `provider_message_id` and `sent_at` are kept where the outcome sets
    // none (null); `error` where `set_error` is false.
    format!(
        "UPDATE notification_messages SET status = v.status, attempts = v.attempts, \
         provider_message_id = COALESCE(v.provider_message_id, notification_messages.provider_message_id), \
         sent_at = COALESCE(v.sent_at, notification_messages.sent_at), \
         error = CASE WHEN v.set_error THEN v.error ELSE notification_messages.error END, \
         next_attempt_at = v.next_attempt_at, claim_token = NULL, claimed_at = NULL, cut_off_at = v.cut_off_at, \
         updated_at = {now} FROM {source} \
         WHERE notification_messages.id = v.message_id AND notification_messages.claim_token = {token} RETURNING id",
        now = bound.parameter(backend, 0),
        source = bound.source,
        token = bound.parameter(backend, 1),
    )
}

/// One row of [`finish_many`]'s bound rows ([`FINISHED_COLUMNS`]): a
/// message's columns after its outcome, recorded at `now`.
fn finished_row(f: &Finished<'_>, now: i64) -> Vec<sea_orm::Value> {
    let (status, provider_message_id, sent, error, next_attempt_at) = match f.outcome {
        Outcome::Sent { provider_message_id } => (
            MessageStatus::Sent,
            Some(provider_message_id.clone()),
            true,
            Some(None),
            None,
        ),
        Outcome::Retry { at, error } => (MessageStatus::Queued, None, false, Some(Some(error.clone())), Some(*at)),
        Outcome::Held { until } => (MessageStatus::Held, None, false, None, Some(*until)),
        Outcome::Ended { status, error } => (*status, None, false, Some(error.clone()), None),
    };
    let cut_off_at = f.message.cut_off_at.filter(|_| f.attempts == 0);
    vec![
        f.message.id.clone().into(),
        status.as_str().into(),
        f.message.attempts.saturating_add(f.attempts).into(),
        provider_message_id.into(),
        sent.then_some(now).into(),
        error.is_some().into(),
        error.flatten().into(),
        next_attempt_at.into(),
        cut_off_at.into(),
    ]
}

/// What became of an attempt, as its row keeps it.
pub mod outcome {
    pub const SENT: &str = "sent";
    pub const REJECTED: &str = "rejected";
    pub const UNAVAILABLE: &str = "unavailable";
    /// A sender that claimed the message stopped before it recorded what
    /// the provider did (`cut_off_at`); written by the sender that settles
    /// it, with the provider's id where the send is found to have gone out.
    pub const CUT_OFF: &str = "cut_off";
}

/// Records `made` attempts, each whole once it ended, in one insert.
pub async fn record_attempts(db: &impl ConnectionTrait, made: Vec<attempt::Model>) -> CoreResult<()> {
    let rows = made.into_iter().map(attempt::ActiveModel::from).collect();
    courier_store::db::insert_rows::<attempt::Entity>(db, rows).await
}

/// The attempts made for `message_id`, first first.
pub async fn attempts_of(db: &impl ConnectionTrait, message_id: &str) -> CoreResult<Vec<attempt::Model>> {
    Ok(attempt::Entity::find()
        .filter(attempt::Column::MessageId.eq(message_id))
        .order_by_asc(attempt::Column::Attempt)
        .all(db)
        .await?)
}

/// The provider's later word on a sent message (an SMS status callback):
/// `delivered`, or `failed` with its error. Returns whether a message of
/// ours had that id.
pub async fn provider_status(
    db: &impl ConnectionTrait,
    provider_message_id: &str,
    status: MessageStatus,
    error: Option<String>,
    now: i64,
) -> CoreResult<bool> {
    let result = entity::Entity::update_many()
        .col_expr(entity::Column::Status, Expr::value(status.as_str()))
        .col_expr(entity::Column::Error, Expr::value(error))
        .col_expr(entity::Column::UpdatedAt, Expr::value(now))
        .filter(entity::Column::ProviderMessageId.eq(provider_message_id))
        .filter(
            Condition::any()
                .add(entity::Column::Status.eq(MessageStatus::Sent.as_str()))
                .add(entity::Column::Status.eq(status.as_str())),
        )
        .exec(db)
        .await?;
    Ok(result.rows_affected > 0)
}

/// Messages waiting to be sent: the outbox's depth, for the metrics. The
/// statuses are literals, as in the partial index of waiting messages it
/// counts (bound, they made every sample scan every message ever kept).
pub async fn waiting(db: &impl ConnectionTrait) -> CoreResult<u64> {
    let (queued, held) = (MessageStatus::Queued.as_str(), MessageStatus::Held.as_str());
    let backend = db.get_database_backend();
    let sql = format!("SELECT COUNT(*) AS waiting FROM notification_messages WHERE status IN ('{queued}', '{held}')");
    let row = db.query_one_raw(Statement::from_string(backend, sql)).await?;
    let waiting = row
        .map(|row| row.try_get::<i64>("", "waiting"))
        .transpose()?
        .unwrap_or(0);
    Ok(u64::try_from(waiting).unwrap_or(0))
}
