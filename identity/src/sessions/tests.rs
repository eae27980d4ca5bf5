//! Sessions in process ([`crate::testing`]), of a console user: sign-in and
//! its throttle, idle expiry on the test clock, CSRF tokens, sign-out and
//! password changes. A courier's are tested with couriers
//! (`courier_core::couriers::sessions`).

use std::time::Duration;

use courier::errors::ErrorCode;

use super::*;
use crate::accounts::{self, NewUser, User};
use crate::sign_ins::{FAILURE_WINDOW_MICROS, MAX_FAILURES_PER_LOGIN};
use crate::testing::TestIdentity;

const PASSWORD: &str = "correct horse battery";
const ADDRESS: &str = "192.0.2.10";

async fn user(identity: &Identity, email: &str) -> User {
    let new = NewUser {
        email: email.into(),
        name: "Ada".into(),
        password: PASSWORD.into(),
        operator: false,
    };
    accounts::create_user(&identity.writer, identity.clock.now_micros(), new)
        .await
        .expect("user")
}

fn code<T: std::fmt::Debug>(result: CoreResult<T>) -> ErrorCode {
    result.expect_err("refused").code()
}

#[tokio::test]
async fn a_session_lasts_while_it_is_used_and_ends_after_twelve_idle_hours() {
    let identity = TestIdentity::open().await;
    let ada = user(&identity, "ada@example.com").await;
    let before = identity.clock.now_micros();
    let (token, session) = sign_in::<User>(&identity, " Ada@Example.com ", PASSWORD, ADDRESS)
        .await
        .expect("signed in");
    assert_eq!(session.subject, ada);
    let idle = User::POLICY.idle_micros;
    let idle_end = before + idle..=identity.clock.now_micros() + idle;
    assert!(
        idle_end.contains(&session.expires_at),
        "{idle_end:?}: {}",
        session.expires_at
    );

    // Used after 11 hours, it lasts 12 more from then.
    identity.clock.advance(Duration::from_secs(11 * 3600));
    let used = authenticate::<User>(&identity, &token).await.expect("still signed in");
    assert_eq!(used.csrf_token, session.csrf_token);
    identity.clock.advance(Duration::from_secs(11 * 3600));
    authenticate::<User>(&identity, &token)
        .await
        .expect("kept alive by use");

    identity.clock.advance(Duration::from_secs(12 * 3600));
    assert_eq!(
        code(authenticate::<User>(&identity, &token).await),
        ErrorCode::InvalidSession
    );
    assert_eq!(
        code(authenticate::<User>(&identity, "not-a-token").await),
        ErrorCode::InvalidSession
    );
}

#[tokio::test]
async fn failed_sign_ins_are_throttled_per_email_until_the_window_ends() {
    let identity = TestIdentity::open().await;
    user(&identity, "ada@example.com").await;
    for _ in 0..MAX_FAILURES_PER_LOGIN {
        let wrong = sign_in::<User>(&identity, "ada@example.com", "wrong password", ADDRESS).await;
        assert_eq!(code(wrong), ErrorCode::InvalidCredentials);
    }
    // Now even the right password waits, from any address.
    let throttled = sign_in::<User>(&identity, "ada@example.com", PASSWORD, "198.51.100.7").await;
    assert_eq!(code(throttled), ErrorCode::RateLimited);

    identity
        .clock
        .advance(Duration::from_micros(FAILURE_WINDOW_MICROS as u64));
    sign_in::<User>(&identity, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("the window ended");
    // A success clears the email's count.
    let wrong = sign_in::<User>(&identity, "ada@example.com", "wrong password", ADDRESS).await;
    assert_eq!(code(wrong), ErrorCode::InvalidCredentials);
    sign_in::<User>(&identity, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("one failure is no throttle");
}

#[tokio::test]
async fn a_sessions_csrf_token_is_its_own() {
    let identity = TestIdentity::open().await;
    user(&identity, "ada@example.com").await;
    let (_, session) = sign_in::<User>(&identity, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("signed in");
    let own = session.csrf_token.clone().expect("a console session has one");
    check_csrf(&session, Some(&own)).expect("its own token");
    for forged in [None, Some(""), Some("x"), Some(&own[1..])] {
        assert_eq!(
            code(check_csrf(&session, forged)),
            ErrorCode::InvalidCsrfToken,
            "{forged:?}"
        );
    }
}

#[tokio::test]
async fn signing_out_ends_the_session_and_a_new_password_ends_the_others() {
    let identity = TestIdentity::open().await;
    user(&identity, "ada@example.com").await;
    let (laptop, session) = sign_in::<User>(&identity, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("laptop");
    let (phone, _) = sign_in::<User>(&identity, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("phone");
    let (tablet, _) = sign_in::<User>(&identity, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("tablet");

    sign_out::<User>(&identity, &tablet).await.expect("signed out");
    assert_eq!(
        code(authenticate::<User>(&identity, &tablet).await),
        ErrorCode::InvalidSession
    );

    let wrong =
        accounts::sessions::change_password(&identity, &session, &laptop, "not it", "a new long password").await;
    assert_eq!(code(wrong), ErrorCode::InvalidCredentials);
    authenticate::<User>(&identity, &phone)
        .await
        .expect("a refused change ends nothing");
    accounts::sessions::change_password(&identity, &session, &laptop, PASSWORD, "a new long password")
        .await
        .expect("changed");
    authenticate::<User>(&identity, &laptop)
        .await
        .expect("this session stays");
    assert_eq!(
        code(authenticate::<User>(&identity, &phone).await),
        ErrorCode::InvalidSession
    );
    let old = sign_in::<User>(&identity, "ada@example.com", PASSWORD, ADDRESS).await;
    assert_eq!(code(old), ErrorCode::InvalidCredentials);
    sign_in::<User>(&identity, "ada@example.com", "a new long password", ADDRESS)
        .await
        .expect("the new password");
}
