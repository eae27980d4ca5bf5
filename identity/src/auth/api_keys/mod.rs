//! API keys: `mm_live_…` / `mm_test_…` with 190 random bits. Only the SHA-256
//! of a key is stored; the full key is returned once, at creation. Expiry and
//! revocation are checked on every request, so they take effect at once on
//! every replica.

use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};

use super::Mode;
use crate::access::{Granted, ManagesKeys, Permission};
use crate::{CoreError, CoreResult, Identity, audit, workspaces};
use courier_store::cache_feed;
pub use model::{ApiKey, USE_RECORDED_EVERY_MICROS};

pub mod model;

const DAY_MICROS: i64 = 86_400_000_000;

/// How long a new key lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyExpiry {
    Never,
    Days30,
    Days90,
    Days365,
}

impl KeyExpiry {
    fn days(self) -> Option<i64> {
        match self {
            KeyExpiry::Never => None,
            KeyExpiry::Days30 => Some(30),
            KeyExpiry::Days90 => Some(90),
            KeyExpiry::Days365 => Some(365),
        }
    }
}

/// A key to create.
pub struct NewApiKey {
    pub workspace_id: String,
    pub mode: Mode,
    pub label: String,
    /// Empty: every permission the workspace kind offers.
    pub permissions: Vec<Permission>,
    pub expiry: KeyExpiry,
}

/// The mode a key's marker announces, if it has one.
pub fn mode_of_secret(secret: &str) -> Option<Mode> {
    if secret.starts_with("mm_live_") {
        Some(Mode::Live)
    } else if secret.starts_with("mm_test_") {
        Some(Mode::Test)
    } else {
        None
    }
}

/// What is stored of a key: the SHA-256 of its secret, in hex.
pub(crate) fn hash(secret: &str) -> String {
    courier_store::secrets::sha256_hex(secret.as_bytes())
}

/// Creates a key in a workspace `granted` covers, with its audit entry in
/// the same transaction; returns it with its full secret (shown once).
pub async fn create<A: ManagesKeys>(
    identity: &Identity,
    granted: &Granted<A>,
    new: NewApiKey,
) -> CoreResult<(ApiKey, String)> {
    granted.covers(&new.workspace_id)?;
    let now = identity.clock.now_micros();
    let tx = identity.begin().await?;
    let workspace = workspaces::get(&*tx, &new.workspace_id).await?;
    let label = new.label.trim();
    if label.is_empty() || label.chars().count() > 100 {
        return Err(CoreError::invalid("label", "label must be 1 to 100 characters."));
    }
    let offered = workspace.kind.permissions();
    let mut permissions = if new.permissions.is_empty() {
        offered.clone()
    } else {
        new.permissions
    };
    permissions.sort_by_key(|p| p.as_str());
    permissions.dedup();
    if let Some(p) = permissions.iter().find(|p| !offered.contains(p)) {
        return Err(CoreError::invalid(
            "permissions",
            format!("{} is offered only to keys of fleet workspaces.", p.as_str()),
        ));
    }
    let secret = format!("mm_{}_{}", new.mode.as_str(), courier_store::ids::random_base62(32));
    let model = entity::ActiveModel {
        id: Set(courier_store::ids::new_id("key")),
        workspace_id: Set(workspace.id),
        mode: Set(new.mode.as_str().to_owned()),
        label: Set(label.to_owned()),
        permissions: Set(permissions.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(" ")),
        prefix: Set(secret.chars().take(12).collect()),
        key_hash: Set(hash(&secret)),
        created_at: Set(now),
        expires_at: Set(new.expiry.days().map(|d| now + d * DAY_MICROS)),
        revoked_at: Set(None),
        last_used_at: Set(None),
    }
    .insert(&*tx)
    .await?;
    granted.record(identity, &*tx, change("api_key.create", &model)).await?;
    tx.commit().await?;
    Ok((from_model(model)?, secret))
}

/// The audit entry of a change of `key`.
fn change<'a>(action: &'a str, key: &'a entity::Model) -> audit::Change<'a> {
    audit::Change {
        action,
        workspace_id: Some(&key.workspace_id),
        target: &key.id,
        courier_id: None,
    }
}

/// The key whose secret has this [`hash`], and its workspace, in one query
/// (the key check of every public request the key cache does not answer).
pub async fn find_by_hash(
    db: &impl ConnectionTrait,
    hash: &str,
) -> CoreResult<Option<(ApiKey, workspaces::Workspace)>> {
    let found = entity::Entity::find()
        .filter(entity::Column::KeyHash.eq(hash))
        .find_also_related(workspaces::entity::Entity)
        .one(db)
        .await?;
    match found {
        Some((key, Some(workspace))) => Ok(Some((from_model(key)?, workspaces::from_model(workspace)?))),
        Some((key, None)) => Err(CoreError::Internal(format!("key {} has no workspace", key.id))),
        None => Ok(None),
    }
}

pub async fn list(db: &impl ConnectionTrait, workspace_id: &str) -> CoreResult<Vec<ApiKey>> {
    workspaces::get(db, workspace_id).await?;
    entity::Entity::find()
        .filter(entity::Column::WorkspaceId.eq(workspace_id))
        .order_by_asc(entity::Column::CreatedAt)
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect()
}

/// Writes down that key `id` was used at `now`, unless a use less than
/// [`USE_RECORDED_EVERY_MICROS`] ago is written already (by any replica).
pub async fn record_use(db: &impl ConnectionTrait, id: &str, now: i64) -> CoreResult<()> {
    entity::Entity::update_many()
        .col_expr(entity::Column::LastUsedAt, sea_orm::sea_query::Expr::value(now))
        .filter(entity::Column::Id.eq(id))
        .filter(
            sea_orm::Condition::any()
                .add(entity::Column::LastUsedAt.is_null())
                .add(entity::Column::LastUsedAt.lte(now - USE_RECORDED_EVERY_MICROS)),
        )
        .exec(db)
        .await?;
    Ok(())
}

/// Revokes key `id` of a workspace `granted` covers (another workspace's
/// key is `not_found`), with its audit entry in the same transaction;
/// revoking it again keeps the first revocation time and changes nothing.
/// This replica's key cache forgets the key once it is committed, before
/// this answers, every other replica's on the announcement (`cache_feed`).
pub async fn revoke<A: ManagesKeys>(identity: &Identity, granted: &Granted<A>, id: &str) -> CoreResult<ApiKey> {
    let tx = identity.begin().await?;
    let model = entity::Entity::find_by_id(id.to_owned())
        .one(&*tx)
        .await?
        .filter(|key| granted.covers(&key.workspace_id).is_ok())
        .ok_or_else(|| CoreError::not_found("API key"))?;
    if model.revoked_at.is_some() {
        return from_model(model);
    }
    let mut active: entity::ActiveModel = model.into();
    active.revoked_at = Set(Some(identity.clock.now_micros()));
    let revoked = active.update(&*tx).await?;
    cache_feed::announce(&*tx, cache_feed::Change::Keys).await?;
    granted
        .record(identity, &*tx, change("api_key.revoke", &revoked))
        .await?;
    tx.commit().await?;
    identity.keys.forget_all();
    from_model(revoked)
}

fn from_model(model: entity::Model) -> CoreResult<ApiKey> {
    let mode = Mode::parse(&model.mode)
        .ok_or_else(|| CoreError::Internal(format!("key {} has unknown mode {}", model.id, model.mode)))?;
    Ok(ApiKey {
        permissions: model
            .permissions
            .split_whitespace()
            .filter_map(Permission::parse)
            .collect(),
        id: model.id,
        workspace_id: model.workspace_id,
        mode,
        label: model.label,
        prefix: model.prefix,
        created_at: model.created_at,
        expires_at: model.expires_at,
        revoked_at: model.revoked_at,
        last_used_at: model.last_used_at,
    })
}

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "api_keys")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub workspace_id: String,
        pub mode: String,
        pub label: String,
        /// Space-separated permission names.
        pub permissions: String,
        pub prefix: String,
        pub key_hash: String,
        pub created_at: i64,
        pub expires_at: Option<i64>,
        pub revoked_at: Option<i64>,
        pub last_used_at: Option<i64>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {
        #[sea_orm(
            belongs_to = "crate::workspaces::entity::Entity",
            from = "Column::WorkspaceId",
            to = "crate::workspaces::entity::Column::Id"
        )]
        Workspace,
    }

    impl Related<crate::workspaces::entity::Entity> for Entity {
        fn to() -> RelationDef {
            Relation::Workspace.def()
        }
    }

    impl ActiveModelBehavior for ActiveModel {}
}
