//! Tips (docs/couriers.md "Tips"): a business's tip on a delivery, all of
//! it the courier's who delivers it. Until the delivery is delivered the
//! tip may be set, raised, lowered or removed; once it is, only raised, for
//! 7 days. The tip the delivery has when it is delivered, and each raise
//! after, is given once: in the transaction of the delivery's move or of
//! the change, a usage charge on the business's statement (live only,
//! `billing::charges`) and a tip line in the courier's earnings
//! (`pay::earnings`), whose app hears of it on its stream.

use crate::billing::charges::{self, Charge};
use crate::deliveries::Delivery;
use crate::statuses::Status;
use crate::{CoreError, CoreResult, Orders, assignments, pay, validate};
use courier::errors::ErrorCode;
use courier::time::{format_rfc3339, from_micros};
use courier_identity::auth::Mode;
use courier_store::db::WriteTransaction;
use courier_store::ids;

/// How long after its delivery a delivery's tip may still be raised.
pub const RAISE_DAYS: i64 = 7;

const DAY: i64 = 86_400 * 1_000_000;

/// `409 not_editable` unless `delivery`'s tip may become `tip_cents` at
/// `now`: any amount within the limits until it is delivered, only more
/// for [`RAISE_DAYS`] after, never on a cancelled one.
pub fn check_change(delivery: &Delivery, tip_cents: i64, now: i64) -> CoreResult<()> {
    validate::tip_cents(tip_cents)?;
    let refused = |message: String| Err(CoreError::at(ErrorCode::NotEditable, "tip_cents", message));
    match (delivery.status, delivery.delivered_at) {
        (Status::Cancelled, _) => refused("tip_cents can no longer change: the delivery is cancelled.".into()),
        (Status::Delivered, Some(delivered_at)) if now > delivered_at + RAISE_DAYS * DAY => refused(format!(
            "tip_cents can change until {RAISE_DAYS} days after delivery; the delivery was delivered at {}.",
            format_rfc3339(from_micros(delivered_at))
        )),
        (Status::Delivered, _) if tip_cents < delivery.tip_cents => refused(format!(
            "A delivered delivery's tip can only be raised: it is {} now.",
            delivery.tip_cents
        )),
        _ => Ok(()),
    }
}

/// Gives `tip_cents` of tip on `delivery`, delivered by `courier_id` (none
/// for a test-mode delivery), at `now` in `tx`: the business's charge and
/// the courier's earnings line. Nothing for nothing.
pub async fn give(
    tx: &WriteTransaction,
    delivery: &Delivery,
    courier_id: Option<&str>,
    tip_cents: i64,
    now: i64,
) -> CoreResult<()> {
    if tip_cents <= 0 {
        return Ok(());
    }
    if let (Mode::Live, Some(currency)) = (delivery.mode, &delivery.currency) {
        let charge = Charge {
            id: ids::new_id("tip"),
            workspace_id: delivery.workspace_id.clone(),
            kind: charges::Kind::Tip,
            delivery_id: delivery.id.clone(),
            currency: currency.clone(),
            amount_cents: tip_cents,
            created_at: now,
        };
        charges::record_many(&**tx, &[charge]).await?;
    }
    if let (Some(courier_id), Some(currency)) = (courier_id, &delivery.currency) {
        let payee = pay::Payee {
            courier_id,
            job_id: &delivery.id,
        };
        pay::tip(tx, payee, currency, tip_cents, now).await?;
    }
    Ok(())
}

/// Gives the raise of delivered `delivery`'s tip from `was` to its tip now,
/// in `tx`, the change's transaction, and tells the courier who delivered
/// it. Nothing before delivery: the tip is given when it is delivered.
pub async fn raised(orders: &Orders, tx: &WriteTransaction, delivery: &Delivery, was: i64, now: i64) -> CoreResult<()> {
    if delivery.status != Status::Delivered || delivery.tip_cents <= was {
        return Ok(());
    }
    let courier = assignments::delivered_by(&**tx, &delivery.id).await?;
    let courier_id = courier.as_ref().map(|held| held.courier_id.as_str());
    give(tx, delivery, courier_id, delivery.tip_cents - was, now).await?;
    if let Some(courier_id) = courier_id {
        assignments::announce(orders, tx, courier_id, &delivery.id, now);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::billing::statements::{self, PeriodEnd};
    use crate::deliveries::{self, Change, Edit};
    use crate::testing::{self, TestOrders, advance, caller, create_delivery};
    use courier_identity::access::{Granted, act, command_line};
    use courier_identity::auth::Principal;

    fn delivery(status: Status, tip_cents: i64, delivered_at: Option<i64>) -> Delivery {
        Delivery {
            status,
            tip_cents,
            delivered_at,
            ..testing::sample_delivery()
        }
    }

    fn refused(result: CoreResult<()>) -> String {
        match result {
            Err(CoreError::Rejected { code, param, message }) => {
                assert_eq!(code, ErrorCode::NotEditable);
                assert_eq!(param.as_deref(), Some("tip_cents"));
                message
            }
            other => panic!("expected not_editable, got {other:?}"),
        }
    }

    #[test]
    fn a_tip_changes_freely_until_delivery_then_only_rises_for_seven_days() {
        let now = 1_800_000_000_000_000;
        for status in [
            Status::Pending,
            Status::CourierAssigned,
            Status::InTransit,
            Status::AtDropoff,
        ] {
            check_change(&delivery(status, 500, None), 0, now).expect("removed before delivery");
            check_change(&delivery(status, 500, None), 800, now).expect("raised before delivery");
        }
        let delivered = delivery(Status::Delivered, 500, Some(now - DAY));
        check_change(&delivered, 700, now).expect("raised after delivery");
        check_change(&delivered, 500, now).expect("the same tip");
        assert!(refused(check_change(&delivered, 300, now)).contains("only be raised"));
        let last_moment = now - RAISE_DAYS * DAY;
        check_change(&delivery(Status::Delivered, 500, Some(last_moment)), 900, now).expect("the 7th day");
        let late = delivery(Status::Delivered, 500, Some(last_moment - 1));
        assert!(refused(check_change(&late, 900, now)).contains("7 days"));
        assert!(refused(check_change(&delivery(Status::Cancelled, 0, None), 100, now)).contains("cancelled"));
    }

    #[test]
    fn a_tip_is_within_its_limits() {
        let pending = delivery(Status::Pending, 0, None);
        for cents in [-1, courier::limits::TIP_CENTS.max + 1] {
            match check_change(&pending, cents, 0) {
                Err(CoreError::Rejected { code, param, .. }) => {
                    assert_eq!((code, param.as_deref()), (ErrorCode::InvalidRequest, Some("tip_cents")));
                }
                other => panic!("{cents}: {other:?}"),
            }
        }
    }

    /// Sets `delivery_id`'s tip as a client's change does.
    async fn tip(orders: &Orders, principal: &Principal, delivery_id: &str, tip_cents: i64) -> CoreResult<()> {
        let key = courier_store::ids::random_base62(16);
        let edit = Edit {
            tip_cents: Some(tip_cents),
            ..Edit::default()
        };
        deliveries::edit(
            orders,
            principal,
            Some(&key),
            key.as_bytes(),
            "req_tip",
            delivery_id,
            edit,
        )
        .await?;
        Ok(())
    }

    /// `delivery_id` moved through every status to delivered.
    async fn delivered(orders: &Orders, delivery_id: &str) -> Delivery {
        let mut moved = deliveries::reload(&orders.db, delivery_id).await.expect("read");
        for to in [
            Status::CourierAssigned,
            Status::AtPickup,
            Status::PickedUp,
            Status::InTransit,
            Status::AtDropoff,
        ] {
            moved = advance(orders, &moved, to, Change::default()).await;
        }
        let now = orders.clock.now_micros();
        advance(
            orders,
            &moved,
            Status::Delivered,
            Change::default().delivered(&moved, now),
        )
        .await
    }

    async fn tips_charged(orders: &Orders, delivery_id: &str) -> Vec<i64> {
        charges::of_delivery(&orders.db, delivery_id)
            .await
            .expect("charges")
            .into_iter()
            .filter(|charge| charge.kind == charges::Kind::Tip.as_str())
            .map(|charge| charge.amount_cents)
            .collect()
    }

    #[tokio::test]
    async fn a_tip_is_billed_when_delivered_then_each_raise_on_the_statement() {
        let orders = TestOrders::open().await;
        let workspace = orders.workspace(None).await;
        let live = caller(&workspace, Mode::Live);
        let created = create_delivery(&orders, &live).await.expect("created");
        tip(&orders, &live, &created.id, 300).await.expect("tipped");
        tip(&orders, &live, &created.id, 100)
            .await
            .expect("lowered before delivery");
        assert!(
            tips_charged(&orders, &created.id).await.is_empty(),
            "nothing given before delivery"
        );

        let done = delivered(&orders, &created.id).await;
        assert_eq!(done.tip_cents, 100);
        assert_eq!(tips_charged(&orders, &created.id).await, [100]);
        let lower = tip(&orders, &live, &created.id, 50)
            .await
            .expect_err("lower after delivery");
        assert_eq!(lower.code(), ErrorCode::NotEditable);
        tip(&orders, &live, &created.id, 400).await.expect("raised");
        tip(&orders, &live, &created.id, 400)
            .await
            .expect("the same tip again: nothing");
        assert_eq!(tips_charged(&orders, &created.id).await, [100, 300]);

        // A test delivery's tip is shown, never billed.
        let test = create_delivery(&orders, &caller(&workspace, Mode::Test))
            .await
            .expect("created");
        tip(&orders, &caller(&workspace, Mode::Test), &test.id, 700)
            .await
            .expect("tipped");
        delivered(&orders, &test.id).await;
        assert!(tips_charged(&orders, &test.id).await.is_empty());

        orders.clock.advance(Duration::from_secs(1));
        let operator: Granted<act::ManageBilling> = command_line().expect("the command line manages billing");
        let closed = statements::close(&orders, &workspace.id, PeriodEnd::Now(&operator))
            .await
            .expect("closed");
        let statement = &closed[0];
        assert_eq!((statement.tip_count, statement.tip_cents), (2, 400));
        let amount = done.amount_cents.expect("priced");
        assert_eq!(statement.total_cents, amount + statement.sms_cents + 400);
    }
}
