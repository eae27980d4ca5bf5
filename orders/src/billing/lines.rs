//! Billing lines: one per delivered live delivery, written in the
//! transaction that moves it to `delivered`, with what a statement shows of
//! it (a copy: a closed period never changes). `statement_id` is empty until
//! a statement bills the line; the delivery id is the table's key, so a
//! delivery is on at most one statement.

use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait};

use crate::deliveries::Delivery;
use crate::statuses::Status;
use crate::{CoreError, CoreResult, Orders};
use courier_identity::auth::Mode;
use courier_store::pagination::{self, Keyset};

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "billing_lines")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub delivery_id: String,
        pub workspace_id: String,
        /// The statement that billed the line; `None` while billable.
        pub statement_id: Option<String>,
        pub currency: String,
        pub amount_cents: i64,
        pub created_at: i64,
        pub delivered_at: i64,
        pub external_id: Option<String>,
        pub vehicle_type_id: String,
        pub pickup_address: String,
        pub dropoff_address: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// A delivered live delivery as a statement bills it.
pub type BillingLine = entity::Model;

/// Writes the billing line of `delivery`, just moved to `delivered` in `tx`.
/// Test deliveries are never billed, and a delivery without a price has
/// nothing to bill.
pub async fn record(tx: &impl ConnectionTrait, delivery: &Delivery) -> CoreResult<()> {
    if delivery.mode != Mode::Live || delivery.status != Status::Delivered {
        return Ok(());
    }
    let (Some(amount_cents), Some(currency), Some(delivered_at)) =
        (delivery.amount_cents, delivery.currency.clone(), delivery.delivered_at)
    else {
        return Ok(());
    };
    entity::ActiveModel {
        delivery_id: Set(delivery.id.clone()),
        workspace_id: Set(delivery.workspace_id.clone()),
        statement_id: Set(None),
        currency: Set(currency),
        amount_cents: Set(amount_cents),
        created_at: Set(delivery.created_at),
        delivered_at: Set(delivered_at),
        external_id: Set(delivery.external_id.clone()),
        vehicle_type_id: Set(delivery.vehicle_type_id.clone()),
        pickup_address: Set(delivery.route.pickup.address.clone()),
        dropoff_address: Set(delivery.route.dropoff.address.clone()),
    }
    .insert(tx)
    .await?;
    Ok(())
}

/// The lines of `workspace_id` that no statement billed yet, oldest
/// delivery first.
pub async fn billable(
    orders: &Orders,
    workspace_id: &str,
    page_size: i32,
    page_token: Option<&str>,
) -> CoreResult<(Vec<BillingLine>, Option<String>)> {
    let limit = pagination::page_size_of("page_size", page_size, 20, 100)?;
    let condition = Condition::all()
        .add(entity::Column::WorkspaceId.eq(workspace_id))
        .add(entity::Column::StatementId.is_null());
    by_delivery_time()
        .page(
            &orders.pages,
            &format!("billable|{workspace_id}"),
            condition,
            limit,
            page_token,
        )
        .await
}

/// The lines `statement_id` billed, oldest delivery first.
pub async fn of_statement(
    orders: &Orders,
    statement_id: &str,
    page_size: i32,
    page_token: Option<&str>,
) -> CoreResult<(Vec<BillingLine>, Option<String>)> {
    let limit = pagination::page_size_of("page_size", page_size, 1000, 1000)?;
    let condition = Condition::all().add(entity::Column::StatementId.eq(statement_id));
    by_delivery_time()
        .page(
            &orders.pages,
            &format!("statement|{statement_id}"),
            condition,
            limit,
            page_token,
        )
        .await
}

fn by_delivery_time() -> Keyset<entity::Entity> {
    Keyset {
        created_at: entity::Column::DeliveredAt,
        id: entity::Column::DeliveryId,
        newest_first: false,
    }
}

/// The billable lines of `workspace_id` delivered before `before`: the
/// condition of a period's close.
pub(super) fn billable_before(workspace_id: &str, before: i64) -> Condition {
    Condition::all()
        .add(entity::Column::WorkspaceId.eq(workspace_id))
        .add(entity::Column::StatementId.is_null())
        .add(entity::Column::DeliveredAt.lt(before))
}

/// Puts every line matching `condition` in `currency` on `statement_id`, in
/// `tx`; returns their count and total. A line another close billed
/// meanwhile no longer matches (PostgreSQL re-checks a row it waited for).
pub(super) async fn bill(
    tx: &impl ConnectionTrait,
    condition: Condition,
    currency: &str,
    statement_id: &str,
) -> CoreResult<(i64, i64)> {
    use sea_orm::sea_query::{Alias, ExprTrait, Func};
    use sea_orm::{EntityTrait, QueryFilter, QuerySelect};
    entity::Entity::update_many()
        .col_expr(entity::Column::StatementId, Expr::value(statement_id))
        .filter(condition)
        .filter(entity::Column::Currency.eq(currency))
        .exec(tx)
        .await?;
    let (count, total): (i64, Option<i64>) = entity::Entity::find()
        .select_only()
        .column_as(entity::Column::DeliveryId.count(), "count")
        // PostgreSQL sums BIGINT as NUMERIC.
        .column_as(
            Expr::from(Func::cast_as(
                Expr::col(entity::Column::AmountCents).sum(),
                Alias::new("BIGINT"),
            )),
            "total",
        )
        .filter(entity::Column::StatementId.eq(statement_id))
        .into_tuple()
        .one(tx)
        .await?
        .ok_or_else(|| CoreError::Internal("a count answered no row".into()))?;
    Ok((count, total.unwrap_or(0)))
}
