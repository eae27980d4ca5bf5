//! Offers of automatic dispatch (docs/couriers.md "Automatic dispatch"): a
//! job offered to one courier at a time, open until it is accepted,
//! declined, expires or is withdrawn. Owns `courier_offers`. Two partial
//! unique indexes keep one open offer per job and per courier, whichever
//! replica offers; a courier who declined or let an offer of a job expire
//! is never offered that job again.

use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

use super::feed::{self, Entry, Reason};
use crate::routes::Visit;
use crate::{CoreError, CoreResult, Orders};
use courier_store::db::WriteTransaction;
use courier_store::ids;

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "courier_offers")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub job_id: String,
        pub courier_id: String,
        /// See [`super::OfferStatus`].
        pub status: String,
        /// Straight from the courier's position to the pickup, when offered.
        pub distance_km: f64,
        /// The routing provider's time to the pickup, when offered.
        pub minutes_to_pickup: i64,
        pub created_at: i64,
        pub expires_at: i64,
        pub answered_at: Option<i64>,
        /// For a courier holding jobs: what the job adds to their route.
        pub added_seconds: Option<i64>,
        /// And their route with it, as JSON stops.
        pub route: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OfferStatus {
    Open,
    Accepted,
    Declined,
    Expired,
    /// Taken back: the job was cancelled or assigned otherwise, or the
    /// courier went offline.
    Withdrawn,
}

impl OfferStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            OfferStatus::Open => "open",
            OfferStatus::Accepted => "accepted",
            OfferStatus::Declined => "declined",
            OfferStatus::Expired => "expired",
            OfferStatus::Withdrawn => "withdrawn",
        }
    }

    fn parse(text: &str) -> OfferStatus {
        match text {
            "accepted" => OfferStatus::Accepted,
            "declined" => OfferStatus::Declined,
            "expired" => OfferStatus::Expired,
            "withdrawn" => OfferStatus::Withdrawn,
            _ => OfferStatus::Open,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Offer {
    pub id: String,
    pub job_id: String,
    pub courier_id: String,
    pub status: OfferStatus,
    pub distance_km: f64,
    pub minutes_to_pickup: i64,
    pub created_at: i64,
    pub expires_at: i64,
    /// When it was answered, expired or withdrawn.
    pub answered_at: Option<i64>,
    /// Offered to a courier holding jobs: their route with this one.
    pub insertion: Option<Insertion>,
}

/// A job offered beside the jobs a courier holds (docs/guide.md "Several
/// jobs per courier"): their route with it inserted, and what it adds.
#[derive(Clone, Debug, PartialEq)]
pub struct Insertion {
    pub added_seconds: i64,
    pub stops: Vec<Visit>,
}

/// A new offer to make.
pub struct NewOffer {
    pub job_id: String,
    pub courier_id: String,
    pub distance_km: f64,
    pub minutes_to_pickup: i64,
    pub expires_at: i64,
    /// Beside jobs the courier holds: the route the offer proposes.
    pub route: Option<Insertion>,
}

/// Offers `new.job_id` to `new.courier_id` in `tx`; their app hears of it
/// once `tx` commits.
pub async fn create(orders: &Orders, tx: &WriteTransaction, new: NewOffer, now: i64) -> CoreResult<Offer> {
    let row = entity::ActiveModel {
        id: Set(ids::new_id("off")),
        job_id: Set(new.job_id),
        courier_id: Set(new.courier_id),
        status: Set(OfferStatus::Open.as_str().to_owned()),
        distance_km: Set(new.distance_km),
        minutes_to_pickup: Set(new.minutes_to_pickup),
        created_at: Set(now),
        expires_at: Set(new.expires_at),
        answered_at: Set(None),
        added_seconds: Set(new.route.as_ref().map(|r| r.added_seconds)),
        route: Set(match &new.route {
            Some(route) => Some(serde_json::to_string(&route.stops).map_err(|e| CoreError::Internal(e.to_string()))?),
            None => None,
        }),
    }
    .insert(&**tx)
    .await?;
    let offer = from_model(row);
    let entry = Entry::Offer {
        job_id: offer.job_id.clone(),
        offer_id: offer.id.clone(),
    };
    feed::append(orders, tx, &offer.courier_id, entry, now);
    Ok(offer)
}

pub async fn get(db: &impl ConnectionTrait, id: &str) -> CoreResult<Option<Offer>> {
    Ok(entity::Entity::find_by_id(id.to_owned()).one(db).await?.map(from_model))
}

/// An offer is open, written as the partial indexes of open offers are
/// (`courier_offers_open_job`, `courier_offers_open_courier`): neither
/// database uses a partial index for a bound parameter, and a statement
/// planned once for any status read every offer ever made.
fn is_open() -> sea_orm::sea_query::SimpleExpr {
    debug_assert_eq!(OfferStatus::Open.as_str(), "open");
    Expr::cust("\"courier_offers\".\"status\" = 'open'")
}

/// The open offer of courier `courier_id`, if any.
pub async fn open_for_courier(db: &impl ConnectionTrait, courier_id: &str) -> CoreResult<Option<Offer>> {
    Ok(entity::Entity::find()
        .filter(entity::Column::CourierId.eq(courier_id))
        .filter(is_open())
        .one(db)
        .await?
        .map(from_model))
}

/// Every open offer (a round skips their jobs and couriers).
pub async fn open(db: &impl ConnectionTrait) -> CoreResult<Vec<Offer>> {
    Ok(entity::Entity::find()
        .filter(is_open())
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect())
}

/// The offers of `job_ids` that were declined or expired: their couriers
/// are never offered those jobs again (`super::passed_over`).
pub async fn refused(db: &impl ConnectionTrait, job_ids: Vec<String>) -> CoreResult<Vec<Offer>> {
    if job_ids.is_empty() {
        return Ok(Vec::new());
    }
    Ok(entity::Entity::find()
        .filter(entity::Column::JobId.is_in(job_ids))
        .filter(entity::Column::Status.is_in([OfferStatus::Declined.as_str(), OfferStatus::Expired.as_str()]))
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect())
}

/// Ends `offer` as `status` in `tx` if it is still open (a
/// compare-and-set: an offer ends once); an expiry or a withdrawal is sent
/// to the courier's app. Whether this call ended it.
pub async fn close(
    orders: &Orders,
    tx: &WriteTransaction,
    offer: &Offer,
    status: OfferStatus,
    now: i64,
) -> CoreResult<bool> {
    let closed = entity::Entity::update_many()
        .col_expr(entity::Column::Status, Expr::value(status.as_str()))
        .col_expr(entity::Column::AnsweredAt, Expr::value(now))
        .filter(entity::Column::Id.eq(offer.id.as_str()))
        .filter(entity::Column::Status.eq(OfferStatus::Open.as_str()))
        .exec(&**tx)
        .await?
        .rows_affected
        == 1;
    if closed && status != OfferStatus::Accepted {
        orders.metrics.dispatch_offer_ended(status.as_str());
    }
    let reason = match status {
        OfferStatus::Expired => Some(Reason::OfferExpired),
        OfferStatus::Withdrawn => Some(Reason::OfferWithdrawn),
        OfferStatus::Open | OfferStatus::Accepted | OfferStatus::Declined => None,
    };
    if let (true, Some(reason)) = (closed, reason) {
        let entry = Entry::Withdrawal {
            job_id: offer.job_id.clone(),
            offer_id: Some(offer.id.clone()),
            reason,
        };
        feed::append(orders, tx, &offer.courier_id, entry, now);
    }
    Ok(closed)
}

/// Withdraws the open offer of job `job_id`, if any (the job moved on).
pub async fn withdraw_for_job(orders: &Orders, tx: &WriteTransaction, job_id: &str, now: i64) -> CoreResult<()> {
    let open = entity::Entity::find()
        .filter(entity::Column::JobId.eq(job_id))
        .filter(is_open())
        .one(&**tx)
        .await?;
    if let Some(row) = open {
        close(orders, tx, &from_model(row), OfferStatus::Withdrawn, now).await?;
    }
    Ok(())
}

/// Withdraws the open offer of courier `courier_id`, if any (they went
/// offline or were suspended).
pub async fn withdraw_for_courier(
    orders: &Orders,
    tx: &WriteTransaction,
    courier_id: &str,
    now: i64,
) -> CoreResult<()> {
    if let Some(offer) = open_for_courier(&**tx, courier_id).await? {
        close(orders, tx, &offer, OfferStatus::Withdrawn, now).await?;
    }
    Ok(())
}

fn from_model(row: entity::Model) -> Offer {
    // A route that does not read back is shown as none: the offer stands.
    let stops = row.route.as_deref().and_then(|text| serde_json::from_str(text).ok());
    Offer {
        insertion: row
            .added_seconds
            .zip(stops)
            .map(|(added_seconds, stops)| Insertion { added_seconds, stops }),
        status: OfferStatus::parse(&row.status),
        id: row.id,
        job_id: row.job_id,
        courier_id: row.courier_id,
        distance_km: row.distance_km,
        minutes_to_pickup: row.minutes_to_pickup,
        created_at: row.created_at,
        expires_at: row.expires_at,
        answered_at: row.answered_at,
    }
}
