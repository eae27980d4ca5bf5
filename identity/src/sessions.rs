//! Sessions of every kind of subject (docs/console.md "Sessions",
//! docs/couriers.md "A courier's life"): a random token the client keeps (a
//! cookie, `authorization: Bearer …`), of which only the SHA-256 is stored.
//! A session ends after its kind's idle time without use, at sign-out, and
//! when every session of its subject ends (a new password, a suspension).
//! Sign-in checks the password through the sign-in throttle, whatever the
//! kind.

use std::borrow::Borrow;

use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

use crate::subjects::{SessionTable, Subject, read};
use crate::{CoreError, CoreResult, Identity};
use crate::{passwords, sign_ins};
use courier::errors::ErrorCode;
use courier_store::db::WriteTransaction;
use courier_store::ids;
use courier_store::secrets::sha256_hex;

/// A session as its row holds it.
struct Stored {
    token_hash: String,
    subject_id: String,
    csrf_token: Option<String>,
    last_seen_at: i64,
}

impl Stored {
    fn from_row<T: SessionTable>(row: &T::Model) -> CoreResult<Stored> {
        Ok(Stored {
            token_hash: read(row, T::TOKEN_HASH)?,
            subject_id: read(row, T::SUBJECT_ID)?,
            csrf_token: T::CSRF_TOKEN.map(|column| read(row, column)).transpose()?,
            last_seen_at: read(row, T::LAST_SEEN_AT)?,
        })
    }
}

/// A signed-in session, as a call of its subject is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session<S> {
    pub subject: S,
    /// Every state-changing call presents it, where the kind has one.
    pub csrf_token: Option<String>,
    pub expires_at: i64,
}

/// Signs the subject of `login` in with `password`, an attempt from the
/// client `address`: the new session's token (shown once) and the session.
pub async fn sign_in<S: Subject>(
    identity: &Identity,
    login: &str,
    password: &str,
    address: &str,
) -> CoreResult<(String, Session<S>)> {
    let subject = check_password::<S>(identity, login, password, address).await?;
    subject.may_sign_in()?;
    create(identity, &identity.writer, subject).await
}

/// The subject of `login` when `password` is theirs, an attempt from the
/// client `address`. Failed attempts count towards the sign-in throttle,
/// whatever form made them (sign-in, joining by invitation); an unknown
/// login is checked against a decoy hash, so it costs as long as a wrong
/// password and gets the same answer.
pub async fn check_password<S: Subject>(
    identity: &Identity,
    login: &str,
    password: &str,
    address: &str,
) -> CoreResult<S> {
    let now = identity.clock.now_micros();
    let login = S::login(login);
    let attempt = sign_ins::Attempt::new(&S::POLICY.throttle, &login, address);
    sign_ins::check(&identity.db, &attempt, now).await?;
    let row = S::Table::find()
        .filter(S::login_column(&login).eq(login.as_str()))
        .one(&identity.db)
        .await?;
    let matches = passwords::verify(password, row.as_ref().and_then(S::password_hash)).await?;
    let Some(row) = row.filter(|_| matches) else {
        sign_ins::failed(identity, &attempt, now).await?;
        return Err(CoreError::new(
            ErrorCode::InvalidCredentials,
            S::POLICY.wrong_credentials,
        ));
    };
    sign_ins::succeeded(identity, &attempt).await?;
    Ok(S::from_row(row))
}

/// A new session of `subject`, written on `db` (the write pool, or the
/// caller's transaction): its token, shown once, and the session.
pub async fn create<S: Subject>(
    identity: &Identity,
    db: &impl ConnectionTrait,
    subject: S,
) -> CoreResult<(String, Session<S>)> {
    let now = identity.clock.now_micros();
    let token = ids::random_base62(43);
    let csrf_token = S::Sessions::CSRF_TOKEN.map(|column| (column, ids::random_base62(32)));
    let mut row = <S::Sessions as EntityTrait>::ActiveModel::default();
    row.try_set(S::Sessions::TOKEN_HASH, sha256_hex(token.as_bytes()).into())?;
    row.try_set(S::Sessions::SUBJECT_ID, subject.id().into())?;
    row.try_set(S::Sessions::CREATED_AT, now.into())?;
    row.try_set(S::Sessions::LAST_SEEN_AT, now.into())?;
    if let Some((column, csrf_token)) = &csrf_token {
        row.try_set(*column, csrf_token.as_str().into())?;
    }
    S::Sessions::insert(row).exec_without_returning(db).await?;
    let session = Session {
        subject,
        csrf_token: csrf_token.map(|(_, token)| token),
        expires_at: now + S::POLICY.idle_micros,
    };
    Ok((token, session))
}

/// The session of `token`, used now: the kind's `invalid_session` refusal
/// when it is unknown, ended or idle too long, and the subject's own when
/// they may no longer sign in (a suspended courier).
pub async fn authenticate<S: Subject>(identity: &Identity, token: &str) -> CoreResult<Session<S>> {
    let now = identity.clock.now_micros();
    let invalid = || S::POLICY.invalid_session();
    // The session and its subject in one read: every call checks them.
    let (row, subject) = S::Sessions::find()
        .filter(S::Sessions::TOKEN_HASH.eq(sha256_hex(token.as_bytes())))
        .find_also_related(S::Table::default())
        .one(&identity.db)
        .await?
        .ok_or_else(invalid)?;
    let row = Stored::from_row::<S::Sessions>(&row)?;
    if row.last_seen_at + S::POLICY.idle_micros <= now {
        delete::<S>(&identity.writer, &row.token_hash).await?;
        return Err(invalid());
    }
    let subject = S::from_row(subject.ok_or_else(invalid)?);
    subject.may_sign_in()?;
    let mut last_seen_at = row.last_seen_at;
    if now - row.last_seen_at >= S::POLICY.touch_every_micros {
        last_seen_at = now;
        S::Sessions::update_many()
            .col_expr(S::Sessions::LAST_SEEN_AT, Expr::value(now))
            .filter(S::Sessions::TOKEN_HASH.eq(row.token_hash))
            .exec(&identity.writer)
            .await?;
    }
    Ok(Session {
        subject,
        csrf_token: row.csrf_token,
        expires_at: last_seen_at + S::POLICY.idle_micros,
    })
}

/// `403 invalid_csrf_token` unless `presented` is the session's token (a
/// session without one accepts none).
pub fn check_csrf<S>(session: &Session<S>, presented: Option<&str>) -> CoreResult<()> {
    let expected = session.csrf_token.as_deref().unwrap_or_default().as_bytes();
    let matches = presented.is_some_and(|p| {
        !expected.is_empty()
            && p.len() == expected.len()
            && p.bytes().zip(expected).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    });
    if matches {
        Ok(())
    } else {
        Err(CoreError::new(
            ErrorCode::InvalidCsrfToken,
            "The form is out of date or did not come from the console; reload the page and try again.",
        ))
    }
}

/// Ends the session of `token`, with what its kind does when sessions end
/// (on the kind's handle, [`Subject::Handle`]).
pub async fn sign_out<S: Subject>(handle: &S::Handle, token: &str) -> CoreResult<()> {
    let identity: &Identity = handle.borrow();
    let tx = identity.begin().await?;
    let hash = sha256_hex(token.as_bytes());
    let row = S::Sessions::find()
        .filter(S::Sessions::TOKEN_HASH.eq(hash.as_str()))
        .one(&*tx)
        .await?;
    if let Some(row) = row {
        delete::<S>(&*tx, &hash).await?;
        S::sessions_ended(handle, &tx, &Stored::from_row::<S::Sessions>(&row)?.subject_id);
    }
    tx.commit().await
}

/// Ends every session of `subject_id` in `tx`, but the one of `keep` (the
/// session that set a new password), with what its kind does when sessions
/// end.
pub async fn end_all<S: Subject>(
    handle: &S::Handle,
    tx: &WriteTransaction,
    subject_id: &str,
    keep: Option<&str>,
) -> CoreResult<()> {
    let mut ending = S::Sessions::delete_many().filter(S::Sessions::SUBJECT_ID.eq(subject_id));
    if let Some(token) = keep {
        ending = ending.filter(S::Sessions::TOKEN_HASH.ne(sha256_hex(token.as_bytes())));
    }
    ending.exec(&**tx).await?;
    S::sessions_ended(handle, tx, subject_id);
    Ok(())
}

async fn delete<S: Subject>(db: &impl ConnectionTrait, token_hash: &str) -> CoreResult<()> {
    S::Sessions::delete_many()
        .filter(S::Sessions::TOKEN_HASH.eq(token_hash))
        .exec(db)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests;
