//! Pay rules (docs/couriers.md "Pay"): what a job pays, per vehicle type
//! for the platform's couriers (set by operators) and per fleet for its
//! drivers (set by its owners and admins). Owns `courier_pay_rules`. A
//! rule is never changed: setting one adds the scope's next version, so a
//! change applies to offers made from then on and a job keeps the version
//! it was offered under (`courier_job_pay.rule_id`). The unique index on
//! (scope, version) keeps two replicas from both adding one version.

use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};

use crate::{CoreError, CoreResult, Orders};
use courier::errors::ErrorCode;
use courier_store::db::WriteTransaction;
use courier_store::ids;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "courier_pay_rules")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        /// [`super::Scope::key`].
        pub scope: String,
        pub version: i32,
        pub currency: String,
        pub base_cents: i64,
        pub per_km_cents: i64,
        pub per_minute_cents: i64,
        pub waiting_per_minute_cents: i64,
        pub surcharge_share_percent: i32,
        pub created_at: i64,
        /// Who set it, as the audit log names actors.
        pub created_by: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// The most any part of a rule may be, in minor units (10,000.00).
pub const MAX_CENTS: i64 = 1_000_000;

/// Whose pay a rule sets.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The platform's couriers driving this vehicle type.
    VehicleType(String),
    /// Every driver of this fleet workspace.
    Fleet(String),
}

impl Scope {
    /// As stored: `vehicle_type:<id>` or `fleet:<workspace id>`.
    pub fn key(&self) -> String {
        match self {
            Scope::VehicleType(id) => format!("vehicle_type:{id}"),
            Scope::Fleet(workspace_id) => format!("fleet:{workspace_id}"),
        }
    }

    fn parse(key: &str) -> Option<Scope> {
        match key.split_once(':')? {
            ("vehicle_type", id) => Some(Scope::VehicleType(id.to_owned())),
            ("fleet", id) => Some(Scope::Fleet(id.to_owned())),
            _ => None,
        }
    }

    /// The fleet workspace whose drivers it pays; `None` for the platform.
    pub fn fleet_id(&self) -> Option<&str> {
        match self {
            Scope::VehicleType(_) => None,
            Scope::Fleet(workspace_id) => Some(workspace_id),
        }
    }
}

/// The parts of a rule, as set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuleInput {
    /// Paid for every job.
    pub base_cents: i64,
    /// Per kilometre of the job's route.
    pub per_km_cents: i64,
    /// Per minute of the job's route.
    pub per_minute_cents: i64,
    /// Per minute waited at the pickup past the free minutes
    /// ([`super::FREE_WAITING_MINUTES`]).
    pub waiting_per_minute_cents: i64,
    /// The courier's share of the time surcharges the business paid, 0 to 100.
    pub surcharge_share_percent: i32,
}

impl RuleInput {
    /// `invalid_request` naming the first part out of its range.
    fn validate(&self) -> CoreResult<()> {
        for (param, cents) in [
            ("base_cents", self.base_cents),
            ("per_km_cents", self.per_km_cents),
            ("per_minute_cents", self.per_minute_cents),
            ("waiting_per_minute_cents", self.waiting_per_minute_cents),
        ] {
            if !(0..=MAX_CENTS).contains(&cents) {
                return Err(CoreError::invalid(
                    param,
                    format!("{param} must be between 0 and {MAX_CENTS}, in minor units of the currency."),
                ));
            }
        }
        if !(0..=100).contains(&self.surcharge_share_percent) {
            return Err(CoreError::invalid(
                "surcharge_share_percent",
                "surcharge_share_percent must be between 0 and 100.",
            ));
        }
        Ok(())
    }
}

/// One version of a scope's rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// `cpr_…`
    pub id: String,
    pub scope: Scope,
    pub version: i32,
    pub currency: String,
    pub parts: RuleInput,
    pub created_at: i64,
    pub created_by: String,
}

/// Sets `scope`'s rule to `input` in `tx`, as its next version, in the
/// catalogue's currency; `by` names the caller. A platform rule names a
/// vehicle type of the catalogue. Two callers adding a version at once:
/// the second is `409 conflict`, to try again.
pub async fn set(
    orders: &Orders,
    tx: &WriteTransaction,
    scope: Scope,
    input: RuleInput,
    by: &str,
    now: i64,
) -> CoreResult<Rule> {
    input.validate()?;
    if let Scope::VehicleType(id) = &scope
        && orders.catalog.vehicle_type(id).is_none()
    {
        return Err(CoreError::invalid(
            "vehicle_type_id",
            format!("There is no vehicle type {id:?}."),
        ));
    }
    let version = current(&**tx, &scope).await?.map_or(1, |rule| rule.version + 1);
    let row = entity::ActiveModel {
        id: Set(ids::new_id("cpr")),
        scope: Set(scope.key()),
        version: Set(version),
        currency: Set(orders.catalog.currency().to_owned()),
        base_cents: Set(input.base_cents),
        per_km_cents: Set(input.per_km_cents),
        per_minute_cents: Set(input.per_minute_cents),
        waiting_per_minute_cents: Set(input.waiting_per_minute_cents),
        surcharge_share_percent: Set(input.surcharge_share_percent),
        created_at: Set(now),
        created_by: Set(by.to_owned()),
    }
    .insert(&**tx)
    .await
    .map_err(|error| match error.sql_err() {
        Some(sea_orm::SqlErr::UniqueConstraintViolation(_)) => CoreError::new(
            ErrorCode::Conflict,
            "The pay rule was changed meanwhile; read it again and retry.",
        ),
        _ => error.into(),
    })?;
    from_model(row)
}

/// The rule in force for `scope`: its latest version.
pub async fn current(db: &impl ConnectionTrait, scope: &Scope) -> CoreResult<Option<Rule>> {
    entity::Entity::find()
        .filter(entity::Column::Scope.eq(scope.key()))
        .order_by_desc(entity::Column::Version)
        .one(db)
        .await?
        .map(from_model)
        .transpose()
}

/// Rule version `id`.
pub async fn get(db: &impl ConnectionTrait, id: &str) -> CoreResult<Option<Rule>> {
    entity::Entity::find_by_id(id.to_owned())
        .one(db)
        .await?
        .map(from_model)
        .transpose()
}

/// Every version of the rules of the platform (`fleet_id` `None`: one
/// scope per vehicle type) or of one fleet, by scope, newest version first.
pub async fn history(db: &impl ConnectionTrait, fleet_id: Option<&str>) -> CoreResult<Vec<Rule>> {
    let scopes = match fleet_id {
        None => entity::Column::Scope.starts_with("vehicle_type:"),
        Some(fleet_id) => entity::Column::Scope.eq(Scope::Fleet(fleet_id.to_owned()).key()),
    };
    entity::Entity::find()
        .filter(scopes)
        .order_by_asc(entity::Column::Scope)
        .order_by_desc(entity::Column::Version)
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect()
}

fn from_model(row: entity::Model) -> CoreResult<Rule> {
    let scope = Scope::parse(&row.scope)
        .ok_or_else(|| CoreError::Internal(format!("pay rule {} has scope {:?}", row.id, row.scope)))?;
    Ok(Rule {
        id: row.id,
        scope,
        version: row.version,
        currency: row.currency,
        parts: RuleInput {
            base_cents: row.base_cents,
            per_km_cents: row.per_km_cents,
            per_minute_cents: row.per_minute_cents,
            waiting_per_minute_cents: row.waiting_per_minute_cents,
            surcharge_share_percent: row.surcharge_share_percent,
        },
        created_at: row.created_at,
        created_by: row.created_by,
    })
}
