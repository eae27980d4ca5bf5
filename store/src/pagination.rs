//! Keyset pages of a list ([`Keyset::page`]) with opaque, signed page tokens.
//!
//! A token carries the position after the last item of a page (its creation
//! time and id) and an HMAC over that position and the list's scope: the
//! workspace, the key mode, the list and every filter. A token altered, forged,
//! or presented with other filters or another mode fails the check and is
//! `invalid_page_token`. Keyset positions never repeat or skip an item while
//! new items are created (newest first, they sort before the position;
//! oldest first, they come on later pages).

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sea_orm::sea_query::ValueType;
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, DbErr, EntityTrait, ModelTrait, Order, QueryFilter, QueryOrder,
    QuerySelect, QueryTrait, Select, Statement,
};

use crate::db::Reader;
use crate::secrets;
use crate::shared_reads::SharedReads;
use crate::{CoreError, CoreResult};
use courier::errors::ErrorCode;

/// One page of a list, with the token of the next (`None` on the last).
pub struct Page<T> {
    pub items: Vec<T>,
    pub next_page_token: Option<String>,
}

/// The positions read for one page, shared by the requests that asked for
/// it at once.
pub type Positions = Arc<Vec<Cursor>>;

/// The list position after an item: its time (creation, or another time
/// the list is ordered by) and id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    created_at: i64,
    id: String,
}

const MAC_BYTES: usize = 16;

/// Page size of the public lists (gRPC `page_size`, REST `limit`): 1 to
/// 100, default 20.
pub fn page_size(requested: i32) -> CoreResult<u64> {
    let limits = courier::limits::PAGE_SIZE;
    page_size_of(
        "page_size",
        requested,
        courier::limits::DEFAULT_PAGE_SIZE as u64,
        limits.max as u64,
    )
}

/// The page size of a public list, whose `optional page_size` is the
/// REST `limit`: unset is the default; a number given must be 1 to the
/// maximum, 0 included (REST refuses `limit=0`).
pub fn requested_page_size(requested: Option<i32>) -> CoreResult<u64> {
    match requested {
        None => page_size(0),
        Some(size) if size > 0 => page_size(size),
        Some(_) => Err(out_of_range("page_size", courier::limits::PAGE_SIZE.max as u64)),
    }
}

/// Page size named `field` (gRPC `page_size`): 1 to `max`, `default`
/// when 0 (unset).
pub fn page_size_of(field: &str, requested: i32, default: u64, max: u64) -> CoreResult<u64> {
    match <u64 as TryFrom<i32>>::try_from(requested) {
        Ok(0) => Ok(default),
        Ok(size) if size <= max => Ok(size),
        _ => Err(out_of_range(field, max)),
    }
}

fn out_of_range(field: &str, max: u64) -> CoreError {
    CoreError::invalid(field, format!("{field} must be a whole number from 1 to {max}."))
}

/// What reading a page takes: the read pool, the key that signs page
/// tokens, and the page reads under way (one read for identical requests,
/// `shared_reads`).
#[derive(Clone)]
pub struct Pages {
    pub db: Reader,
    pub token_key: Arc<[u8]>,
    pub reads: Arc<SharedReads<Positions>>,
}

/// A list of `E` read in pages by position: creation time, then id.
pub struct Keyset<E: EntityTrait> {
    pub created_at: E::Column,
    pub id: E::Column,
    /// Newest first (the public lists) or oldest first (dispatch boards).
    pub newest_first: bool,
}

impl<E: EntityTrait> Keyset<E> {
    /// The rows matching `condition` after `page_token`'s position, at most
    /// `limit` of them (from [`page_size`] or [`page_size_of`]), and the
    /// next page's token when more follow. `scope` names the list, its owner and its filters,
    /// so that a token is good for that list only.
    pub async fn page(
        &self,
        pages: &Pages,
        scope: &str,
        condition: Condition,
        limit: u64,
        page_token: Option<&str>,
    ) -> CoreResult<(Vec<E::Model>, Option<String>)> {
        let rows = self
            .select(pages, scope, condition, limit, page_token)?
            .all(&pages.db)
            .await?;
        let positions = rows
            .iter()
            .map(|row| self.position(row))
            .collect::<CoreResult<Vec<_>>>()?;
        let next_page_token = next_token(pages, scope, &positions, limit);
        Ok((rows.into_iter().take(limit as usize).collect(), next_page_token))
    }

    /// Like [`Keyset::page`], the ids alone, in order: read from the keyset
    /// index without the rows (an index-only scan where the index holds the
    /// filter's columns), for callers that have the rows in memory. The
    /// same page asked for at once by several requests is read once for
    /// them (`shared_reads`): the statement and its values are the key.
    pub async fn page_ids(
        &self,
        pages: &Pages,
        scope: &str,
        condition: Condition,
        limit: u64,
        page_token: Option<&str>,
    ) -> CoreResult<(Vec<String>, Option<String>)> {
        let statement = self
            .select(pages, scope, condition, limit, page_token)?
            .select_only()
            .column(self.created_at)
            .column(self.id)
            .build(pages.db.get_database_backend());
        let key = format!("{}\u{0}{:?}", statement.sql, statement.values);
        let db = pages.db.clone();
        let positions = pages
            .reads
            .read(key, move || read_positions(db.clone(), statement.clone()))
            .await?;
        let next_page_token = next_token(pages, scope, &positions, limit);
        Ok((
            positions.iter().take(limit as usize).map(|p| p.id.clone()).collect(),
            next_page_token,
        ))
    }

    /// The rows past position (`created_at`, `id`) in this list's order.
    pub fn past(&self, created_at: i64, id: &str) -> Condition {
        let (time, id) = if self.newest_first {
            (self.created_at.lt(created_at), self.id.lt(id))
        } else {
            (self.created_at.gt(created_at), self.id.gt(id))
        };
        Condition::any()
            .add(time)
            .add(Condition::all().add(self.created_at.eq(created_at)).add(id))
    }

    /// The query of one page: `condition` after the token's position, in
    /// order, one row more than `limit` to tell whether more follow.
    fn select(
        &self,
        pages: &Pages,
        scope: &str,
        mut condition: Condition,
        limit: u64,
        page_token: Option<&str>,
    ) -> CoreResult<Select<E>> {
        if let Some(token) = page_token.filter(|t| !t.is_empty()) {
            let cursor = decode(&pages.token_key, scope, token)?;
            condition = condition.add(self.past(cursor.created_at, &cursor.id));
        }
        let order = if self.newest_first { Order::Desc } else { Order::Asc };
        Ok(E::find()
            .filter(condition)
            .order_by(self.created_at, order.clone())
            .order_by(self.id, order)
            .limit(limit + 1))
    }

    /// The position after `row`, read from its keyset columns.
    fn position(&self, row: &E::Model) -> CoreResult<Cursor> {
        let mistyped = |column: &str| CoreError::Internal(format!("keyset column {column} is not of its type"));
        Ok(Cursor {
            created_at: <i64 as ValueType>::try_from(row.get(self.created_at)).map_err(|_| mistyped("created_at"))?,
            id: <String as ValueType>::try_from(row.get(self.id)).map_err(|_| mistyped("id"))?,
        })
    }
}

/// The positions a page's statement reads: creation time, then id.
async fn read_positions(db: Reader, statement: Statement) -> CoreResult<Positions> {
    let rows = db.query_all_raw(statement).await?;
    let positions = rows
        .iter()
        .map(|row| {
            Ok(Cursor {
                created_at: row.try_get_by_index(0)?,
                id: row.try_get_by_index(1)?,
            })
        })
        .collect::<Result<Vec<_>, DbErr>>()?;
    Ok(Arc::new(positions))
}

/// The next page's token: the position of the page's last row, when a row
/// beyond `limit` was read.
fn next_token(pages: &Pages, scope: &str, positions: &[Cursor], limit: u64) -> Option<String> {
    if positions.len() as u64 <= limit {
        return None;
    }
    let last = positions.get(usize::try_from(limit).ok()?.checked_sub(1)?)?;
    Some(encode(&pages.token_key, scope, last))
}

fn encode(key: &[u8], scope: &str, cursor: &Cursor) -> String {
    let mut payload = cursor.created_at.to_be_bytes().to_vec();
    payload.extend_from_slice(cursor.id.as_bytes());
    let signature = secrets::sign(key, &signed(scope, &payload), MAC_BYTES);
    format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(&payload),
        URL_SAFE_NO_PAD.encode(signature)
    )
}

fn decode(key: &[u8], scope: &str, token: &str) -> CoreResult<Cursor> {
    let invalid = || {
        CoreError::at(
            ErrorCode::InvalidPageToken,
            "page_token",
            "page_token is not valid for this list: pass next_page_token unchanged, with the same filters and key mode.",
        )
    };
    let (payload, signature) = token.split_once('.').ok_or_else(invalid)?;
    let payload = URL_SAFE_NO_PAD.decode(payload).map_err(|_| invalid())?;
    let signature = URL_SAFE_NO_PAD.decode(signature).map_err(|_| invalid())?;
    if !secrets::verify(key, &signed(scope, &payload), &signature, MAC_BYTES) || payload.len() < 8 {
        return Err(invalid());
    }
    let (time, id) = payload.split_at(8);
    let created_at = i64::from_be_bytes(time.try_into().map_err(|_| invalid())?);
    let id = String::from_utf8(id.to_vec()).map_err(|_| invalid())?;
    Ok(Cursor { created_at, id })
}

/// What a page token's signature covers: the list's scope, then the cursor.
fn signed(scope: &str, payload: &[u8]) -> Vec<u8> {
    let mut message = scope.as_bytes().to_vec();
    message.push(0);
    message.extend_from_slice(payload);
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_bind_their_scope() {
        let cursor = Cursor {
            created_at: 1_795_000_000_000_000,
            id: "del_abc".into(),
        };
        let token = encode(b"key", "wks|test|status=pending", &cursor);
        assert_eq!(decode(b"key", "wks|test|status=pending", &token).ok(), Some(cursor));
        assert!(decode(b"key", "wks|live|status=pending", &token).is_err());
        assert!(decode(b"key", "wks|test|status=delivered", &token).is_err());
        assert!(decode(b"other", "wks|test|status=pending", &token).is_err());
        let mut tampered = token.clone();
        tampered.replace_range(0..1, if token.starts_with('A') { "B" } else { "A" });
        assert!(decode(b"key", "wks|test|status=pending", &tampered).is_err());
        assert!(decode(b"key", "wks|test|status=pending", "garbage").is_err());
    }

    #[test]
    fn page_sizes() {
        assert_eq!(page_size(0).ok(), Some(20));
        assert_eq!(page_size(100).ok(), Some(100));
        assert!(page_size(101).is_err());
        assert!(page_size(-1).is_err());
    }
}
