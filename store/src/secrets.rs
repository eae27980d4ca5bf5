//! Signing keys, derived from one master secret. When no master secret is
//! configured, one is generated on first start and stored in `settings`, so
//! every replica on the same database signs and verifies alike.

use hmac::{Hmac, KeyInit, Mac};
use sea_orm::{ActiveValue::Set, DatabaseConnection, EntityTrait, sea_query::OnConflict};
use sha2::{Digest, Sha256};

use crate::{CoreError, CoreResult};

const MASTER_SETTING: &str = "master_secret";

/// Derived signing keys, one per purpose.
#[derive(Clone)]
pub struct Secrets {
    /// HMAC key of internal service tokens (JWT, HS256).
    pub service_token: Vec<u8>,
    /// HMAC key of list page tokens.
    pub page_token: Vec<u8>,
    /// HMAC key of signed download links.
    pub download_url: Vec<u8>,
    /// HMAC key of the unsubscribe links in emails.
    pub unsubscribe_link: Vec<u8>,
}

impl Secrets {
    pub async fn load(db: &DatabaseConnection, configured: Option<&str>) -> CoreResult<Secrets> {
        let master = match configured {
            Some(secret) if !secret.is_empty() => secret.to_owned(),
            _ => stored_master(db).await?,
        };
        Ok(Secrets::derive(master.as_bytes()))
    }

    pub fn derive(master: &[u8]) -> Secrets {
        Secrets {
            service_token: derive_key(master, "service-token"),
            page_token: derive_key(master, "page-token"),
            download_url: derive_key(master, "download-url"),
            unsubscribe_link: derive_key(master, "unsubscribe-link"),
        }
    }
}

/// The SHA-256 of `bytes` in lower-case hex: how secrets the service hands
/// out once (API keys, session and invitation tokens) are stored.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// HMAC-SHA256 of `message` under `key`.
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> Vec<u8> {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes any key size");
    mac.update(message);
    mac.finalize().into_bytes().to_vec()
}

/// The first `len` bytes (at most 32) of the HMAC-SHA256 of `message`
/// under `key`: the one signature of every signed link and token the service
/// hands out (page tokens, proof-file links); [`verify`] checks it.
pub fn sign(key: &[u8], message: &[u8], len: usize) -> Vec<u8> {
    let mut signature = hmac_sha256(key, message);
    signature.truncate(len);
    signature
}

/// Whether `signature` is [`sign`]'s `len`-byte signature of `message`
/// under `key`, compared in constant time.
pub fn verify(key: &[u8], message: &[u8], signature: &[u8], len: usize) -> bool {
    let Ok(mut mac) = <Hmac<Sha256> as KeyInit>::new_from_slice(key) else {
        return false;
    };
    mac.update(message);
    signature.len() == len.min(32) && mac.verify_truncated_left(signature).is_ok()
}

fn derive_key(master: &[u8], purpose: &str) -> Vec<u8> {
    hmac_sha256(master, purpose.as_bytes())
}

async fn stored_master(db: &DatabaseConnection) -> CoreResult<String> {
    // Insert-if-absent, then read: concurrent first starts agree on one value.
    let candidate = crate::ids::random_base62(43);
    entity::Entity::insert(entity::ActiveModel {
        name: Set(MASTER_SETTING.to_owned()),
        value: Set(candidate),
    })
    .on_conflict(OnConflict::column(entity::Column::Name).do_nothing().to_owned())
    .exec_without_returning(db)
    .await?;
    entity::Entity::find_by_id(MASTER_SETTING.to_owned())
        .one(db)
        .await?
        .map(|row| row.value)
        .ok_or_else(|| CoreError::Internal("master secret missing after insert".into()))
}

/// The `settings` table: service-wide values shared by replicas.
pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "settings")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub name: String,
        pub value: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_only_whole_and_unchanged() {
        let signature = sign(b"key", b"message", 16);
        assert_eq!(signature.len(), 16);
        assert!(verify(b"key", b"message", &signature, 16));
        assert!(!verify(b"key", b"messagE", &signature, 16), "another message");
        assert!(!verify(b"other", b"message", &signature, 16), "another key");
        assert!(!verify(b"key", b"message", &signature[..8], 16), "a shorter prefix");
        let mut altered = signature.clone();
        altered[0] ^= 1;
        assert!(!verify(b"key", b"message", &altered, 16));
    }
}
