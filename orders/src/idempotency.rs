//! Idempotent creates (deliveries, fleet orders) and delivery changes: one mechanism, atomic with
//! the work it guards.
//!
//! Keys are scoped by workspace, mode and endpoint. Inside one transaction the
//! key is claimed (a row insert), the work is done, and the answer is stored
//! on the row; a crash before the commit leaves nothing behind, and a crash
//! after it leaves the answer to replay. A concurrent request with the same
//! key waits on the claim (PostgreSQL row lock, SQLite writer lock) and then
//! replays the committed answer; if it waits too long it is told
//! `request_in_progress`. Refusals of 4xx other than 401/403/429 are stored
//! and replayed too; failures (5xx) are not, so a retry runs again.

use std::future::Future;
use std::pin::Pin;

use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseBackend, DatabaseConnection, DatabaseTransaction,
    EntityTrait, QueryFilter, Statement,
};

use courier::errors::ErrorCode;
use courier_identity::auth::Principal;
use courier_identity::modes::Mode;
use courier_store::kept_outcomes::KeptOutcome;
use courier_store::{CoreError, CoreResult, Store};

/// How long a key is remembered.
pub const RETENTION_MICROS: i64 = 24 * 3600 * 1_000_000;
const MAX_KEY_CHARS: usize = courier::limits::IDEMPOTENCY_KEY.max;
/// How long a claim on PostgreSQL waits for another request holding the
/// same key before it is `request_in_progress`.
const LOCK_TIMEOUT: &str = "SET LOCAL lock_timeout = '5s'";

/// Where a key applies.
#[derive(Clone, Debug)]
pub struct Scope {
    pub workspace_id: String,
    pub mode: Mode,
    pub endpoint: &'static str,
    pub key: String,
}

impl Scope {
    /// The scope of `principal`'s create at `endpoint` with the
    /// `Idempotency-Key` it sent ([`check_key`]).
    pub fn new(principal: &Principal, endpoint: &'static str, key: Option<&str>) -> CoreResult<Scope> {
        Ok(Scope {
            workspace_id: principal.workspace.id.clone(),
            mode: principal.mode,
            endpoint,
            key: check_key(key)?,
        })
    }
}

/// A create's answer as the transport wrote it (`Wire`), and whether it
/// was replayed from the store: the domain keeps the bytes, never reads
/// them.
#[derive(Clone, Debug, PartialEq)]
pub struct Idempotent {
    pub answer: Vec<u8>,
    pub replayed: bool,
}

/// The `Idempotency-Key` of a create: required, at most 255 characters.
pub fn check_key(key: Option<&str>) -> CoreResult<String> {
    match key {
        None | Some("") => Err(CoreError::at(
            ErrorCode::MissingIdempotencyKey,
            "Idempotency-Key",
            "The Idempotency-Key header is required on this request.",
        )),
        Some(key) if key.chars().count() > MAX_KEY_CHARS => Err(CoreError::at(
            ErrorCode::InvalidIdempotencyKey,
            "Idempotency-Key",
            format!("The Idempotency-Key header must be at most {MAX_KEY_CHARS} characters."),
        )),
        Some(key) => Ok(key.to_owned()),
    }
}

/// The hash compared between requests that share a key: SHA-256 of the
/// request in the canonical form its transport gives (the parsed request,
/// encoded: `courier_server::grpc::context::canonical`).
pub fn request_hash(canonical: &[u8]) -> String {
    courier_store::secrets::sha256_hex(canonical)
}

/// The work a key guards, run inside the claiming transaction.
pub type Work<'t> = Pin<Box<dyn Future<Output = CoreResult<Vec<u8>>> + Send + 't>>;

/// Runs `prepare` (checks and pricing, outside any transaction) and then
/// `work` (inside the transaction that claims the key), unless the key was
/// used before: then the stored answer is replayed, or `idempotency_key_reused`
/// refuses a different request.
pub async fn run<P>(
    store: &Store,
    scope: &Scope,
    hash: &str,
    request_id: &str,
    now: i64,
    prepare: impl Future<Output = CoreResult<P>> + Send,
    work: impl for<'t> FnOnce(&'t courier_store::db::WriteTransaction, P) -> Work<'t> + Send,
) -> CoreResult<Idempotent>
where
    P: Send,
{
    if let Some(stored) = lookup(&store.db, scope, now).await? {
        return replay(stored, hash);
    }
    let prepared = match prepare.await {
        Ok(prepared) => prepared,
        Err(error) => return remember_refusal(store, scope, hash, request_id, now, error).await,
    };
    run_prepared(store, scope, hash, request_id, now, prepared, work).await
}

/// [`run`] from a `prepared` request: claims the key, runs `work` and
/// stores its answer in one transaction, or answers for the request that
/// holds or held the key.
pub async fn run_prepared<P>(
    store: &Store,
    scope: &Scope,
    hash: &str,
    request_id: &str,
    now: i64,
    prepared: P,
    work: impl for<'t> FnOnce(&'t courier_store::db::WriteTransaction, P) -> Work<'t> + Send,
) -> CoreResult<Idempotent>
where
    P: Send,
{
    let tx = store.begin().await?;
    if !claim(&tx, scope, hash, now).await? {
        tx.rollback().await?;
        return answered_elsewhere(store, scope, hash, now).await;
    }
    match work(&tx, prepared).await {
        Ok(answer) => {
            let outcome = KeptOutcome {
                answer,
                request_id: request_id.to_owned(),
                ..Default::default()
            };
            keep_outcome(&tx, scope, &outcome).await?;
            tx.commit().await?;
            store.faults.after_commit()?;
            Ok(Idempotent {
                answer: outcome.answer,
                replayed: false,
            })
        }
        Err(error) => {
            tx.rollback().await?;
            remember_refusal(store, scope, hash, request_id, now, error).await
        }
    }
}

/// The answer to a create refused before its transaction (`error`): the
/// answer stored under its key if there is one, else the refusal, stored
/// when it is part of the key's answer.
pub async fn refuse(
    store: &Store,
    scope: &Scope,
    hash: &str,
    request_id: &str,
    now: i64,
    error: CoreError,
) -> CoreResult<Idempotent> {
    if let Some(stored) = lookup(&store.db, scope, now).await? {
        return replay(stored, hash);
    }
    remember_refusal(store, scope, hash, request_id, now, error).await
}

/// The answer to a request whose key another request claimed: its stored
/// answer, or `request_in_progress` while it has none.
pub async fn answered_elsewhere(store: &Store, scope: &Scope, hash: &str, now: i64) -> CoreResult<Idempotent> {
    match lookup(&store.db, scope, now).await? {
        Some(stored) => replay(stored, hash),
        None => Err(in_progress()),
    }
}

/// A key to claim together with the answer it keeps, for a create whose
/// work follows in the same transaction ([`claim_answered`]).
pub struct AnsweredClaim<'a> {
    pub scope: &'a Scope,
    pub hash: &'a str,
    pub request_id: &'a str,
    /// The create's answer as the transport wrote it.
    pub answer: &'a [u8],
}

/// Claims the keys of a batch of creates in `tx`, each with its answer
/// already stored (the batch commits all or nothing). Returns whether each
/// was claimed; a key not claimed is held or was answered by another
/// request (also one earlier in `claims`). On PostgreSQL one statement whose
/// text does not depend on the number of keys (`db::column_arrays`); on SQLite
/// one insert, however many keys. On both an expired row of a key is taken
/// over in place.
pub async fn claim_answered(
    tx: &impl ConnectionTrait,
    claims: &[AnsweredClaim<'_>],
    now: i64,
) -> CoreResult<Vec<bool>> {
    if claims.is_empty() {
        return Ok(Vec::new());
    }
    let rows: Vec<entity::ActiveModel> = claims
        .iter()
        .map(|claim| {
            let outcome = KeptOutcome {
                answer: claim.answer.to_vec(),
                request_id: claim.request_id.to_owned(),
                ..Default::default()
            };
            row(claim.scope, claim.hash, outcome.to_bytes(), now)
        })
        .collect();
    let mut inserted: std::collections::HashSet<(String, String, String, String)> =
        if tx.get_database_backend() == DatabaseBackend::Postgres {
            tx.execute_unprepared(LOCK_TIMEOUT).await?;
            let mut insert = courier_store::db::column_arrays::<entity::Entity>(rows)?;
            let sql = format!(
                "{} ON CONFLICT (workspace_id, mode, endpoint, key) DO UPDATE SET \
                 request_hash = EXCLUDED.request_hash, outcome = EXCLUDED.outcome, created_at = EXCLUDED.created_at \
                 WHERE idempotency_keys.created_at < ${} RETURNING workspace_id, mode, endpoint, key",
                insert.sql,
                insert.next_parameter()
            );
            insert.values.push((now - RETENTION_MICROS).into());
            let statement = Statement::from_sql_and_values(DatabaseBackend::Postgres, sql, insert.values);
            tx.query_all_raw(statement)
                .await?
                .iter()
                .map(|row| {
                    Ok((
                        row.try_get("", "workspace_id")?,
                        row.try_get("", "mode")?,
                        row.try_get("", "endpoint")?,
                        row.try_get("", "key")?,
                    ))
                })
                .collect::<Result<_, sea_orm::DbErr>>()?
        } else {
            // An expired row of a key is taken over in place, as on
            // PostgreSQL: no delete of expired keys whose condition names
            // every key of the batch.
            let take_over_expired = OnConflict::columns(KEY_COLUMNS)
                .update_columns([
                    entity::Column::RequestHash,
                    entity::Column::Outcome,
                    entity::Column::CreatedAt,
                ])
                .action_and_where(entity::Column::CreatedAt.lt(now - RETENTION_MICROS))
                .to_owned();
            entity::Entity::insert_many(rows)
                .on_conflict(take_over_expired)
                .exec_with_returning_keys(tx)
                .await?
                .into_iter()
                .collect()
        };
    Ok(claims
        .iter()
        .map(|claim| {
            let scope = claim.scope;
            inserted.remove(&(
                scope.workspace_id.clone(),
                scope.mode.as_str().to_owned(),
                scope.endpoint.to_owned(),
                scope.key.clone(),
            ))
        })
        .collect())
}

/// Deletes keys older than the retention; returns how many.
pub async fn purge_expired(db: &DatabaseConnection, now: i64) -> CoreResult<u64> {
    let result = entity::Entity::delete_many()
        .filter(entity::Column::CreatedAt.lt(now - RETENTION_MICROS))
        .exec(db)
        .await?;
    Ok(result.rows_affected)
}

struct StoredKey {
    hash: String,
    outcome: KeptOutcome,
}

fn in_progress() -> CoreError {
    CoreError::at(
        ErrorCode::RequestInProgress,
        "Idempotency-Key",
        "A request with this Idempotency-Key is still running; retry shortly.",
    )
}

fn key_filter(scope: &Scope) -> sea_orm::Condition {
    sea_orm::Condition::all()
        .add(entity::Column::WorkspaceId.eq(scope.workspace_id.as_str()))
        .add(entity::Column::Mode.eq(scope.mode.as_str()))
        .add(entity::Column::Endpoint.eq(scope.endpoint))
        .add(entity::Column::Key.eq(scope.key.as_str()))
}

async fn lookup(db: &impl ConnectionTrait, scope: &Scope, now: i64) -> CoreResult<Option<StoredKey>> {
    let Some(row) = entity::Entity::find().filter(key_filter(scope)).one(db).await? else {
        return Ok(None);
    };
    // A claimed row without an answer yet is invisible outside its
    // transaction, so every row seen here carries one.
    if row.created_at < now - RETENTION_MICROS {
        return Ok(None);
    }
    let outcome = KeptOutcome::from_bytes(&row.outcome)?;
    Ok(Some(StoredKey {
        hash: row.request_hash,
        outcome,
    }))
}

fn replay(stored: StoredKey, hash: &str) -> CoreResult<Idempotent> {
    if stored.hash != hash {
        return Err(CoreError::at(
            ErrorCode::IdempotencyKeyReused,
            "Idempotency-Key",
            "This Idempotency-Key was used with a different request body.",
        ));
    }
    let outcome = stored.outcome;
    if !outcome.error_code.is_empty() {
        let code = ErrorCode::parse(&outcome.error_code)
            .ok_or_else(|| CoreError::Internal(format!("unknown stored error code {}", outcome.error_code)))?;
        return Err(CoreError::Replayed {
            code,
            message: outcome.error_message,
            param: (!outcome.error_param.is_empty()).then_some(outcome.error_param),
            request_id: outcome.request_id,
        });
    }
    Ok(Idempotent {
        answer: outcome.answer,
        replayed: true,
    })
}

/// Before claiming `keys` in `tx`: their expired rows no longer count and
/// go; on PostgreSQL the claim then waits at most 5 s for a request holding
/// one of them to end (it then replays that request's answer).
async fn before_claim(tx: &impl ConnectionTrait, keys: sea_orm::Condition, now: i64) -> CoreResult<()> {
    entity::Entity::delete_many()
        .filter(keys)
        .filter(entity::Column::CreatedAt.lt(now - RETENTION_MICROS))
        .exec(tx)
        .await?;
    if tx.get_database_backend() == DatabaseBackend::Postgres {
        tx.execute_unprepared(LOCK_TIMEOUT).await?;
    }
    Ok(())
}

/// The row of `scope`'s key, created `now`.
fn row(scope: &Scope, hash: &str, outcome: Vec<u8>, now: i64) -> entity::ActiveModel {
    entity::ActiveModel {
        workspace_id: Set(scope.workspace_id.clone()),
        mode: Set(scope.mode.as_str().to_owned()),
        endpoint: Set(scope.endpoint.to_owned()),
        key: Set(scope.key.clone()),
        request_hash: Set(hash.to_owned()),
        outcome: Set(outcome),
        created_at: Set(now),
    }
}

/// The columns of a key's unique index.
const KEY_COLUMNS: [entity::Column; 4] = [
    entity::Column::WorkspaceId,
    entity::Column::Mode,
    entity::Column::Endpoint,
    entity::Column::Key,
];

/// A claim of a key already held does nothing.
fn on_key_conflict() -> OnConflict {
    OnConflict::columns(KEY_COLUMNS).do_nothing().to_owned()
}

/// Inserts the key's row; `false` if another request holds or held it.
async fn claim(tx: &DatabaseTransaction, scope: &Scope, hash: &str, now: i64) -> CoreResult<bool> {
    before_claim(tx, key_filter(scope), now).await?;
    let inserted = entity::Entity::insert(row(scope, hash, Vec::new(), now))
        .on_conflict(on_key_conflict())
        .exec_without_returning(tx)
        .await;
    match inserted {
        Ok(rows) => Ok(rows == 1),
        Err(error) if error.to_string().contains("lock timeout") => Err(in_progress()),
        Err(error) => Err(error.into()),
    }
}

async fn keep_outcome(db: &impl ConnectionTrait, scope: &Scope, outcome: &KeptOutcome) -> CoreResult<()> {
    entity::Entity::update_many()
        .col_expr(entity::Column::Outcome, Expr::value(outcome.to_bytes()))
        .filter(key_filter(scope))
        .exec(db)
        .await?;
    Ok(())
}

/// Whether a refusal is part of the key's answer (replayed on retry), or a
/// failure a retry should run again. A stale `If-Match` asks for a
/// corrected retry, usually with the same key, so it is not kept either;
/// nor is a change's new price (`CoreError::PriceChanged`, never a
/// `Rejected`), answered by the same change with `accept_amount_cents`.
fn is_stored(code: ErrorCode) -> bool {
    let status = code.http_status();
    (400..500).contains(&status)
        && !matches!(status, 401 | 403 | 429)
        && !matches!(code, ErrorCode::RequestInProgress | ErrorCode::PreconditionFailed)
}

async fn remember_refusal(
    store: &Store,
    scope: &Scope,
    hash: &str,
    request_id: &str,
    now: i64,
    error: CoreError,
) -> CoreResult<Idempotent> {
    let CoreError::Rejected { code, message, param } = &error else {
        return Err(error);
    };
    if !is_stored(*code) {
        return Err(error);
    }
    let outcome = KeptOutcome {
        answer: Vec::new(),
        error_code: code.as_str().to_owned(),
        error_message: message.clone(),
        error_param: param.clone().unwrap_or_default(),
        request_id: request_id.to_owned(),
    };
    let tx = store.begin().await?;
    if !claim(&tx, scope, hash, now).await? {
        tx.rollback().await?;
        // Another request with this key answered meanwhile: its answer wins.
        return answered_elsewhere(store, scope, hash, now).await;
    }
    keep_outcome(&tx, scope, &outcome).await?;
    tx.commit().await?;
    Err(error)
}

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "idempotency_keys")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub workspace_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub mode: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub endpoint: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub key: String,
        pub request_hash: String,
        pub outcome: Vec<u8>,
        pub created_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_rules() {
        assert_eq!(
            check_key(None).map_err(|e| e.code()).err(),
            Some(ErrorCode::MissingIdempotencyKey)
        );
        assert_eq!(
            check_key(Some("")).map_err(|e| e.code()).err(),
            Some(ErrorCode::MissingIdempotencyKey)
        );
        assert!(check_key(Some(&"k".repeat(255))).is_ok());
        assert_eq!(
            check_key(Some(&"k".repeat(256))).map_err(|e| e.code()).err(),
            Some(ErrorCode::InvalidIdempotencyKey)
        );
    }

    #[test]
    fn which_refusals_are_stored() {
        assert!(is_stored(ErrorCode::InvalidRequest));
        assert!(is_stored(ErrorCode::DuplicateExternalId));
        assert!(is_stored(ErrorCode::InvoiceCreditLimitExceeded));
        assert!(!is_stored(ErrorCode::InvalidApiKey));
        assert!(!is_stored(ErrorCode::PermissionDenied));
        assert!(!is_stored(ErrorCode::InvoiceBillingNotEnabled));
        assert!(!is_stored(ErrorCode::RateLimited));
        assert!(!is_stored(ErrorCode::RequestInProgress));
        assert!(!is_stored(ErrorCode::PreconditionFailed));
        assert!(is_stored(ErrorCode::NotEditable));
        assert!(!is_stored(ErrorCode::InternalError));
    }
}
