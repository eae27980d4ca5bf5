//! Addresses that asked a workspace for no more messages (docs/
//! notifications.md "Opting out"): an SMS `STOP` through the provider's
//! inbound hook, or the unsubscribe link in every email, which is signed and
//! needs no sign-in. The sender asks before every send.

use std::collections::BTreeSet;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

use super::Channel;
use courier::errors::ErrorCode;
use courier_store::{CoreError, CoreResult, secrets};

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "notification_opt_outs")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub workspace_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub channel: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub address: String,
        /// `sms_stop`, `email_link` or `console`.
        pub source: String,
        pub created_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// How an address opted out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    SmsStop,
    EmailLink,
}

impl Source {
    fn as_str(self) -> &'static str {
        match self {
            Source::SmsStop => "sms_stop",
            Source::EmailLink => "email_link",
        }
    }
}

/// Records that `address` wants no more `channel` messages from
/// `workspace_id` (again: nothing changes).
pub async fn opt_out(
    db: &impl ConnectionTrait,
    workspace_id: &str,
    channel: Channel,
    address: &str,
    source: Source,
    now: i64,
) -> CoreResult<()> {
    entity::Entity::insert(entity::ActiveModel {
        workspace_id: Set(workspace_id.to_owned()),
        channel: Set(channel.as_str().to_owned()),
        address: Set(address.to_owned()),
        source: Set(source.as_str().to_owned()),
        created_at: Set(now),
    })
    .on_conflict(
        OnConflict::columns([
            entity::Column::WorkspaceId,
            entity::Column::Channel,
            entity::Column::Address,
        ])
        .do_nothing()
        .to_owned(),
    )
    .exec_without_returning(db)
    .await?;
    Ok(())
}

/// Takes back an opt-out (an SMS `START`).
pub async fn opt_in(db: &impl ConnectionTrait, workspace_id: &str, channel: Channel, address: &str) -> CoreResult<()> {
    entity::Entity::delete_many()
        .filter(entity::Column::WorkspaceId.eq(workspace_id))
        .filter(entity::Column::Channel.eq(channel.as_str()))
        .filter(entity::Column::Address.eq(address))
        .exec(db)
        .await?;
    Ok(())
}

pub async fn is_opted_out(
    db: &impl ConnectionTrait,
    workspace_id: &str,
    channel: Channel,
    address: &str,
) -> CoreResult<bool> {
    Ok(
        entity::Entity::find_by_id((workspace_id.to_owned(), channel.as_str().to_owned(), address.to_owned()))
            .one(db)
            .await?
            .is_some(),
    )
}

/// Which of `addresses` (workspace, channel, address) opted out, in one
/// read.
pub async fn among<'a>(
    db: &impl ConnectionTrait,
    addresses: impl IntoIterator<Item = (&'a str, Channel, &'a str)>,
) -> CoreResult<BTreeSet<(String, Channel, String)>> {
    let wanted: BTreeSet<(String, Channel, String)> = addresses
        .into_iter()
        .map(|(workspace_id, channel, address)| (workspace_id.to_owned(), channel, address.to_owned()))
        .collect();
    if wanted.is_empty() {
        return Ok(BTreeSet::new());
    }
    let listed: Vec<String> = wanted.iter().map(|(_, _, address)| address.clone()).collect();
    let rows = entity::Entity::find()
        .filter(courier_store::db::one_of(db.get_database_backend(), "address", &listed))
        .all(db)
        .await?;
    Ok(rows
        .into_iter()
        .filter_map(|row| Some((row.workspace_id, Channel::parse(&row.channel)?, row.address)))
        .filter(|key| wanted.contains(key))
        .collect())
}

/// Bytes of an unsubscribe link's signature.
const SIGNATURE_BYTES: usize = 16;

/// The token of the unsubscribe link for `address` at `workspace_id`:
/// both, signed, so the link needs no sign-in and cannot be made up.
pub fn unsubscribe_token(key: &[u8], workspace_id: &str, address: &str) -> String {
    let message = format!("{workspace_id}\n{address}");
    let signature = secrets::sign(key, message.as_bytes(), SIGNATURE_BYTES);
    format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(message.as_bytes()),
        URL_SAFE_NO_PAD.encode(signature)
    )
}

/// The workspace and address a token names, if it is one of ours.
pub fn read_unsubscribe_token(key: &[u8], token: &str) -> CoreResult<(String, String)> {
    let refused = || CoreError::new(ErrorCode::NotFound, "This unsubscribe link is not valid.");
    let (message, signature) = token.split_once('.').ok_or_else(refused)?;
    let message = URL_SAFE_NO_PAD.decode(message).map_err(|_| refused())?;
    let signature = URL_SAFE_NO_PAD.decode(signature).map_err(|_| refused())?;
    if !secrets::verify(key, &message, &signature, SIGNATURE_BYTES) {
        return Err(refused());
    }
    let message = String::from_utf8(message).map_err(|_| refused())?;
    let (workspace_id, address) = message.split_once('\n').ok_or_else(refused)?;
    Ok((workspace_id.to_owned(), address.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unsubscribe_token_names_its_workspace_and_address_and_cannot_be_made_up() {
        let key = b"key";
        let token = unsubscribe_token(key, "ws_1", "jana@example.com");
        assert_eq!(
            read_unsubscribe_token(key, &token).expect("a test value"),
            ("ws_1".to_owned(), "jana@example.com".to_owned())
        );
        assert!(read_unsubscribe_token(b"other", &token).is_err());
        let forged = unsubscribe_token(key, "ws_2", "jana@example.com");
        let (_, signature) = token.split_once('.').expect("a test value");
        let (message, _) = forged.split_once('.').expect("a test value");
        assert!(read_unsubscribe_token(key, &format!("{message}.{signature}")).is_err());
    }
}
