//! Usage charges (docs/billing.md "SMS notifications" and "Tips"): what a
//! workspace owes beside its deliveries' prices: one charge per live SMS a
//! provider took, at the catalogue's price when it was sent, and one per
//! tip a live delivery carried to its courier (docs/couriers.md "Tips").
//! A charge is written in the transaction that records what it charges
//! for: an SMS's where the sender's finish updated its row (its key is the
//! message's id, so a message is charged once on any number of replicas),
//! a tip's where the delivery was delivered or its tip raised after.
//! `statement_id` is empty until a statement bills the charge, as a
//! billing line's.
//!
//! Test mode is never charged, and emails are free. Charges are not in the
//! open amount: they are billed on the statement, not reserved against the
//! credit limit (docs/billing.md).

use sea_orm::sea_query::{Alias, Expr, ExprTrait, Func, OnConflict};
use sea_orm::{ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use crate::{CoreError, CoreResult};
use courier_pricing::catalog::Catalog;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "usage_charges")]
    pub struct Model {
        /// The id of what is charged: a message's (`ntf_…`).
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub workspace_id: String,
        /// What is charged ([`super::Kind`]).
        pub kind: String,
        /// The delivery the charge is for.
        pub delivery_id: String,
        pub currency: String,
        pub amount_cents: i64,
        /// When it happened (an SMS: when the provider took it).
        pub created_at: i64,
        /// The statement that billed the charge; `None` while billable.
        pub statement_id: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// What a charge is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A live SMS to a delivery's recipient or sender.
    SmsNotification,
    /// A delivery's tip, or what a raise after delivery added to it.
    Tip,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::SmsNotification => "sms_notification",
            Kind::Tip => "tip",
        }
    }
}

/// A usage charge about to be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Charge {
    pub id: String,
    pub workspace_id: String,
    pub kind: Kind,
    pub delivery_id: String,
    pub currency: String,
    pub amount_cents: i64,
    pub created_at: i64,
}

impl Charge {
    /// The charge of live SMS `message_id` about `delivery_id`, taken by its
    /// provider at `sent_at`: the catalogue's price per SMS in its currency.
    /// `None` where the catalogue prices SMS at nothing.
    pub fn sms(
        catalog: &Catalog,
        message_id: &str,
        workspace_id: &str,
        delivery_id: &str,
        sent_at: i64,
    ) -> Option<Charge> {
        let amount_cents = catalog.notification_prices().sms_cents;
        (amount_cents > 0).then(|| Charge {
            id: message_id.to_owned(),
            workspace_id: workspace_id.to_owned(),
            kind: Kind::SmsNotification,
            delivery_id: delivery_id.to_owned(),
            currency: catalog.currency().to_owned(),
            amount_cents,
            created_at: sent_at,
        })
    }
}

/// Writes `charges` in `tx`, the transaction that recorded what they
/// charge for, in one insert. A charge already written (its key taken)
/// stays as it is.
pub async fn record_many(tx: &impl ConnectionTrait, charges: &[Charge]) -> CoreResult<()> {
    if charges.is_empty() {
        return Ok(());
    }
    let rows = charges.iter().map(|charge| entity::ActiveModel {
        id: Set(charge.id.clone()),
        workspace_id: Set(charge.workspace_id.clone()),
        kind: Set(charge.kind.as_str().to_owned()),
        delivery_id: Set(charge.delivery_id.clone()),
        currency: Set(charge.currency.clone()),
        amount_cents: Set(charge.amount_cents),
        created_at: Set(charge.created_at),
        statement_id: Set(None),
    });
    entity::Entity::insert_many(rows)
        .on_conflict(OnConflict::column(entity::Column::Id).do_nothing().to_owned())
        .exec_without_returning(tx)
        .await?;
    Ok(())
}

/// The charges of `delivery_id`, oldest first.
pub async fn of_delivery(db: &impl ConnectionTrait, delivery_id: &str) -> CoreResult<Vec<entity::Model>> {
    use sea_orm::QueryOrder;
    Ok(entity::Entity::find()
        .filter(entity::Column::DeliveryId.eq(delivery_id))
        .order_by_asc(entity::Column::CreatedAt)
        .order_by_asc(entity::Column::Id)
        .all(db)
        .await?)
}

/// The billable charges of `workspace_id` made before `before`: the
/// condition of a period's close.
pub(super) fn billable_before(workspace_id: &str, before: i64) -> Condition {
    Condition::all()
        .add(entity::Column::WorkspaceId.eq(workspace_id))
        .add(entity::Column::StatementId.is_null())
        .add(entity::Column::CreatedAt.lt(before))
}

/// The currencies of the charges matching `condition`.
pub(super) async fn currencies(tx: &impl ConnectionTrait, condition: Condition) -> CoreResult<Vec<String>> {
    Ok(entity::Entity::find()
        .select_only()
        .column(entity::Column::Currency)
        .distinct()
        .filter(condition)
        .into_tuple()
        .all(tx)
        .await?)
}

/// What a statement billed of one kind of charge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Billed {
    pub count: i64,
    pub cents: i64,
    /// The amount of each, when every one had the same.
    pub unit_cents: Option<i64>,
}

/// Puts every charge of `kind` matching `condition` in `currency` on
/// `statement_id`, in `tx`; returns what it billed. A charge another close
/// billed meanwhile no longer matches (PostgreSQL re-checks a row it waited
/// for).
pub(super) async fn bill(
    tx: &impl ConnectionTrait,
    condition: Condition,
    kind: Kind,
    currency: &str,
    statement_id: &str,
) -> CoreResult<Billed> {
    let kind = kind.as_str();
    entity::Entity::update_many()
        .col_expr(entity::Column::StatementId, Expr::value(statement_id))
        .filter(condition)
        .filter(entity::Column::Currency.eq(currency))
        .filter(entity::Column::Kind.eq(kind))
        .exec(tx)
        .await?;
    // PostgreSQL sums BIGINT as NUMERIC.
    let bigint = |sum| Expr::from(Func::cast_as(sum, Alias::new("BIGINT")));
    let (count, cents, least, most): (i64, Option<i64>, Option<i64>, Option<i64>) = entity::Entity::find()
        .select_only()
        .column_as(entity::Column::Id.count(), "count")
        .column_as(bigint(Expr::col(entity::Column::AmountCents).sum()), "cents")
        .column_as(entity::Column::AmountCents.min(), "least")
        .column_as(entity::Column::AmountCents.max(), "most")
        .filter(entity::Column::StatementId.eq(statement_id))
        .filter(entity::Column::Kind.eq(kind))
        .into_tuple()
        .one(tx)
        .await?
        .ok_or_else(|| CoreError::Internal("a count answered no row".into()))?;
    Ok(Billed {
        count,
        cents: cents.unwrap_or(0),
        unit_cents: least.filter(|_| least == most),
    })
}
