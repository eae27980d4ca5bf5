//! Changes after booking (docs/guide.md "Change a delivery"): `PATCH
//! /v1/deliveries/{id}` sets the notes, the pickup's and dropoff's contact
//! and instructions, and the dropoff window, each while the delivery's
//! status allows it. Guarded by the idempotency key like a create; checked
//! against the `updated_at` the client last read (`If-Match`) under the
//! row's lock. Only members whose value really changes are judged and
//! written; a change that changes nothing writes nothing and records no
//! event.

use std::sync::{Arc, OnceLock};

use sea_orm::sea_query::LockType;
use sea_orm::{ConnectionTrait, DatabaseBackend, EntityTrait, QuerySelect};

use super::{Change, Delivery, entity, find, from_model, record_update, reload, update};
use crate::assignments::{self, feed};
use crate::idempotency::{self, Idempotent, Scope};
use crate::statuses::Status;
use crate::validate::{self, ContactInput};
use crate::windows::{MINUTE, Window, Windows};
use crate::{CoreError, CoreResult, Orders};
use courier::errors::ErrorCode;
use courier::time::{format_rfc3339, from_micros};
use courier_identity::auth::Principal;
use courier_identity::text;
use courier_store::db::WriteTransaction;

/// The idempotency scope's endpoint of a change.
pub const ENDPOINT: &str = "PATCH /v1/deliveries/{id}";

/// What a client asks to change; an unset member is kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Edit {
    /// `Some(None)` removes the notes.
    pub notes: Option<Option<String>>,
    pub pickup: WaypointEdit,
    pub dropoff: WaypointEdit,
    /// `Some(None)` removes the dropoff window.
    pub dropoff_window: Option<Option<Window>>,
    /// The `updated_at` the client made the change against (`If-Match`);
    /// `None` changes whatever the delivery is now.
    pub if_updated_at: Option<i64>,
}

/// What a change sets on the pickup or the dropoff.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WaypointEdit {
    /// Replaces the contact whole.
    pub contact: Option<ContactInput>,
    /// `Some(None)` removes the instructions.
    pub instructions: Option<Option<String>>,
}

impl WaypointEdit {
    fn is_empty(&self) -> bool {
        self.contact.is_none() && self.instructions.is_none()
    }
}

impl Edit {
    fn is_empty(&self) -> bool {
        self.notes.is_none() && self.pickup.is_empty() && self.dropoff.is_empty() && self.dropoff_window.is_none()
    }
}

/// A member a change may set, by when it may.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Member {
    /// Notes, contacts and instructions: until the delivery ends.
    Details,
    /// The dropoff window: until the goods are picked up.
    DropoffWindow,
}

/// Whether `member` may still change in `status`.
fn editable(member: Member, status: Status) -> bool {
    match member {
        Member::Details => !status.is_terminal(),
        Member::DropoffWindow => status.before_pickup(),
    }
}

/// A change's answer: the delivery as the transport wrote it, and the
/// members it changed (empty when it changed nothing, and on a replay,
/// whose change happened before).
#[derive(Clone, Debug, PartialEq)]
pub struct Edited {
    pub answer: Idempotent,
    pub changed_fields: Vec<String>,
}

/// `PATCH /v1/deliveries/{id}`: checks the members' own rules, then, in
/// the transaction that claims the idempotency key, the delivery's state
/// and `If-Match`, and writes the change with its `delivery.updated` event
/// (and, for a job a courier holds, a row on their feed). `canonical` is
/// the request in canonical form, without its `If-Match`.
pub async fn edit(
    orders: &Orders,
    principal: &Principal,
    idempotency_key: Option<&str>,
    canonical: &[u8],
    request_id: &str,
    id: &str,
    edit: Edit,
) -> CoreResult<Edited> {
    let scope = Scope::new(principal, ENDPOINT, idempotency_key)?;
    let now = orders.clock.now_micros();
    let changed_fields: Arc<OnceLock<Vec<String>>> = Arc::default();
    let (worker, principal_of_work, id_of_work, changed) =
        (orders.clone(), principal.clone(), id.to_owned(), changed_fields.clone());
    let answer = idempotency::run(
        orders,
        &scope,
        &idempotency::request_hash(canonical),
        request_id,
        now,
        async move { check(&edit, now).map(|()| edit) },
        move |tx, edit: Edit| {
            Box::pin(async move {
                let (answer, fields) = apply(&worker, &principal_of_work, tx, &id_of_work, &edit).await?;
                // Set once: the work runs once per call.
                let _ = changed.set(fields);
                Ok(answer)
            })
        },
    )
    .await?;
    let changed_fields = if answer.replayed {
        Vec::new()
    } else {
        changed_fields.get().cloned().unwrap_or_default()
    };
    if !changed_fields.is_empty() {
        orders.changes.publish(id);
    }
    Ok(Edited { answer, changed_fields })
}

/// The members' own rules, before any read: one member at least, texts,
/// contacts, the window's length and horizon at `now`.
fn check(edit: &Edit, now: i64) -> CoreResult<()> {
    if edit.is_empty() {
        return Err(CoreError::invalid(
            "body",
            "Send at least one member to change: notes, pickup, dropoff or dropoff_window.",
        ));
    }
    if let Some(Some(notes)) = &edit.notes {
        text::text_within("notes", notes, courier::limits::NOTES)?;
    }
    for (end, waypoint) in [("pickup", &edit.pickup), ("dropoff", &edit.dropoff)] {
        if let Some(contact) = &waypoint.contact {
            validate::contact(&format!("{end}.contact"), contact)?;
        }
        if let Some(Some(instructions)) = &waypoint.instructions {
            text::text_within(
                &format!("{end}.instructions"),
                instructions,
                courier::limits::INSTRUCTIONS,
            )?;
        }
    }
    if let Some(window) = edit.dropoff_window {
        Windows {
            pickup: None,
            dropoff: window,
        }
        .check(now, None)?;
    }
    Ok(())
}

/// The members `edit` really changes on `delivery`, as dot paths, in the
/// order the Delivery shows them, each with its rule.
fn changes(delivery: &Delivery, edit: &Edit) -> Vec<(String, Member)> {
    let mut changed = Vec::new();
    if let Some(notes) = &edit.notes
        && *notes != delivery.notes
    {
        changed.push(("notes".to_owned(), Member::Details));
    }
    let stored = [("pickup", &delivery.route.pickup), ("dropoff", &delivery.route.dropoff)];
    for ((end, waypoint), change) in stored.into_iter().zip([&edit.pickup, &edit.dropoff]) {
        if let Some(contact) = &change.contact
            && Some(contact) != waypoint.contact.as_ref()
        {
            changed.push((format!("{end}.contact"), Member::Details));
        }
        if let Some(instructions) = &change.instructions
            && *instructions != waypoint.instructions
        {
            changed.push((format!("{end}.instructions"), Member::Details));
        }
    }
    if let Some(window) = edit.dropoff_window
        && window != delivery.windows.dropoff
    {
        changed.push(("dropoff_window".to_owned(), Member::DropoffWindow));
    }
    changed
}

/// The change in `tx`: the delivery's answer as the transport writes it,
/// and the members changed.
async fn apply(
    orders: &Orders,
    principal: &Principal,
    tx: &WriteTransaction,
    id: &str,
    edit: &Edit,
) -> CoreResult<(Vec<u8>, Vec<String>)> {
    let delivery = find_for_update(tx, id)
        .await?
        .filter(|d| d.workspace_id == principal.workspace.id && d.mode == principal.mode)
        .ok_or_else(|| CoreError::not_found("delivery"))?;
    if let Some(expected) = edit.if_updated_at
        && expected != delivery.updated_at
    {
        return Err(CoreError::at(
            ErrorCode::PreconditionFailed,
            "If-Match",
            format!(
                "The delivery changed at {}, after the updated_at in If-Match; read it again and send the change again.",
                format_rfc3339(from_micros(delivery.updated_at))
            ),
        ));
    }
    let changed = changes(&delivery, edit);
    if let Some((path, _)) = changed.iter().find(|(_, member)| !editable(*member, delivery.status)) {
        return Err(CoreError::at(
            ErrorCode::NotEditable,
            path.as_str(),
            format!(
                "{path} can no longer change: the delivery is {}.",
                delivery.status.as_str()
            ),
        ));
    }
    if changed.is_empty() {
        return Ok((orders.wire.delivery(&delivery), Vec::new()));
    }
    let now = orders.clock.now_micros();
    let change = changed_columns(&delivery, edit, &changed, now)?;
    if !update(orders, tx, id, Some(delivery.status), change).await? {
        // The row is locked (PostgreSQL) or the writer is this transaction
        // (SQLite): its status cannot have moved since it was read.
        return Err(CoreError::Internal(format!("delivery {id} moved under its lock")));
    }
    let updated = reload(tx, id).await?;
    let fields: Vec<String> = changed.into_iter().map(|(path, _)| path).collect();
    record_update(orders, tx, &updated, &fields, now).await?;
    principal.audit(orders, &**tx, "delivery.update", id).await?;
    if let Some(held) = assignments::open_for_job(tx, id).await? {
        let entry = feed::Entry::Edited {
            job_id: id.to_owned(),
            changed_fields: fields.clone(),
        };
        feed::append(orders, tx, &held.courier_id, entry, now);
    }
    Ok((orders.wire.delivery(&updated), fields))
}

/// The write of the `changed` members of `edit` on `delivery` at `now`; a
/// new dropoff window must still be reachable, and moves the promise as a
/// create would have set it.
fn changed_columns(delivery: &Delivery, edit: &Edit, changed: &[(String, Member)], now: i64) -> CoreResult<Change> {
    let is_changed = |path: &str| changed.iter().any(|(p, _)| p == path);
    let mut change = Change::default().touched(now);
    if is_changed("notes") {
        change = change.notes(edit.notes.clone().flatten());
    }
    if changed
        .iter()
        .any(|(path, _)| path.starts_with("pickup.") || path.starts_with("dropoff."))
    {
        let mut route = delivery.route.clone();
        for (waypoint, waypoint_edit) in [(&mut route.pickup, &edit.pickup), (&mut route.dropoff, &edit.dropoff)] {
            if let Some(contact) = &waypoint_edit.contact {
                waypoint.contact = Some(contact.clone());
            }
            if let Some(instructions) = &waypoint_edit.instructions {
                waypoint.instructions.clone_from(instructions);
            }
        }
        change = change.route(route);
    }
    if is_changed("dropoff_window")
        && let Some(window) = edit.dropoff_window
    {
        let windows = Windows {
            pickup: delivery.windows.pickup,
            dropoff: window,
        };
        let duration = delivery.duration_min * MINUTE;
        let pickup_from = delivery.scheduled_at.or(windows.pickup.map(|w| w.start));
        windows.check_reachable(pickup_from.map_or(now, |at| at.max(now)), duration)?;
        let plan = windows.plan(delivery.created_at, delivery.scheduled_at, duration);
        change = change
            .dropoff_window(window)
            .promised_by(windows.promised_dropoff(plan.dropoff_at));
    }
    Ok(change)
}

/// Delivery `id` read in `tx` for a change: its row locked until the
/// commit on PostgreSQL (SQLite has one writer, this transaction).
async fn find_for_update(tx: &WriteTransaction, id: &str) -> CoreResult<Option<Delivery>> {
    if tx.get_database_backend() != DatabaseBackend::Postgres {
        return find(tx, id).await;
    }
    entity::Entity::find_by_id(id.to_owned())
        .lock(LockType::Update)
        .one(tx)
        .await?
        .map(from_model)
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn details_change_until_the_end_and_the_window_until_pickup() {
        for status in Status::ALL {
            assert_eq!(editable(Member::Details, status), !status.is_terminal(), "{status:?}");
            let before_pickup = matches!(status, Status::Pending | Status::CourierAssigned | Status::AtPickup);
            assert_eq!(editable(Member::DropoffWindow, status), before_pickup, "{status:?}");
        }
        assert!(editable(Member::Details, Status::AtDropoff));
        assert!(!editable(Member::Details, Status::Delivered));
        assert!(!editable(Member::Details, Status::Cancelled));
        assert!(!editable(Member::DropoffWindow, Status::PickedUp));
    }

    #[test]
    fn an_edit_names_one_member_at_least_and_checks_each() {
        let now = 1_800_000_000_000_000;
        let param = |edit: &Edit| match check(edit, now) {
            Err(CoreError::Rejected { param, .. }) => param,
            other => panic!("expected a refusal, got {other:?}"),
        };
        assert_eq!(param(&Edit::default()).as_deref(), Some("body"));
        let only_if_match = Edit {
            if_updated_at: Some(now),
            ..Edit::default()
        };
        assert_eq!(param(&only_if_match).as_deref(), Some("body"));
        let short_window = Edit {
            dropoff_window: Some(Some(Window {
                start: now + 60 * MINUTE,
                end: now + 65 * MINUTE,
            })),
            ..Edit::default()
        };
        assert_eq!(param(&short_window).as_deref(), Some("dropoff_window.end"));
        let bad_phone = Edit {
            dropoff: WaypointEdit {
                contact: Some(ContactInput {
                    name: "Rui".into(),
                    phone: "call me".into(),
                    email: None,
                }),
                instructions: None,
            },
            ..Edit::default()
        };
        assert_eq!(param(&bad_phone).as_deref(), Some("dropoff.contact.phone"));
        let cleared = Edit {
            notes: Some(None),
            dropoff_window: Some(None),
            ..Edit::default()
        };
        check(&cleared, now).expect("removals need no checks");
    }
}
