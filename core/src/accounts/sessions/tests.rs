//! Console sessions in process ([`crate::testing`]): sign-in and its
//! throttle, idle expiry on the test clock, CSRF tokens, sign-out and
//! password changes (the caller a session acts as: `access::caller`).

use std::time::Duration;

use courier::errors::ErrorCode;

use super::*;
use crate::accounts::{self, NewUser};
use crate::testing::TestCore;

const PASSWORD: &str = "correct horse battery";
const ADDRESS: &str = "192.0.2.10";

async fn user(core: &Core, email: &str) -> User {
    let new = NewUser {
        email: email.into(),
        name: "Ada".into(),
        password: PASSWORD.into(),
        operator: false,
    };
    accounts::create_user(&core.writer, core.clock.now_micros(), new)
        .await
        .expect("user")
}

fn code<T: std::fmt::Debug>(result: CoreResult<T>) -> ErrorCode {
    result.expect_err("refused").code()
}

#[tokio::test]
async fn a_session_lasts_while_it_is_used_and_ends_after_twelve_idle_hours() {
    let core = TestCore::open().await;
    let ada = user(&core, "ada@example.com").await;
    let before = core.clock.now_micros();
    let (token, session) = sign_in(&core, " Ada@Example.com ", PASSWORD, ADDRESS)
        .await
        .expect("signed in");
    assert_eq!(session.user, ada);
    let idle_end = before + IDLE_MICROS..=core.clock.now_micros() + IDLE_MICROS;
    assert!(
        idle_end.contains(&session.expires_at),
        "{idle_end:?}: {}",
        session.expires_at
    );

    // Used after 11 hours, it lasts 12 more from then.
    core.clock.advance(Duration::from_secs(11 * 3600));
    let used = authenticate(&core, &token).await.expect("still signed in");
    assert_eq!(used.csrf_token, session.csrf_token);
    core.clock.advance(Duration::from_secs(11 * 3600));
    authenticate(&core, &token).await.expect("kept alive by use");

    core.clock.advance(Duration::from_secs(12 * 3600));
    assert_eq!(code(authenticate(&core, &token).await), ErrorCode::InvalidSession);
    assert_eq!(
        code(authenticate(&core, "not-a-token").await),
        ErrorCode::InvalidSession
    );
}

#[tokio::test]
async fn failed_sign_ins_are_throttled_per_email_until_the_window_ends() {
    let core = TestCore::open().await;
    user(&core, "ada@example.com").await;
    for _ in 0..crate::sign_ins::MAX_FAILURES_PER_LOGIN {
        let wrong = sign_in(&core, "ada@example.com", "wrong password", ADDRESS).await;
        assert_eq!(code(wrong), ErrorCode::InvalidCredentials);
    }
    // Now even the right password waits, from any address.
    let throttled = sign_in(&core, "ada@example.com", PASSWORD, "198.51.100.7").await;
    assert_eq!(code(throttled), ErrorCode::RateLimited);

    core.clock
        .advance(Duration::from_micros(crate::sign_ins::FAILURE_WINDOW_MICROS as u64));
    sign_in(&core, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("the window ended");
    // A success clears the email's count.
    let wrong = sign_in(&core, "ada@example.com", "wrong password", ADDRESS).await;
    assert_eq!(code(wrong), ErrorCode::InvalidCredentials);
    sign_in(&core, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("one failure is no throttle");
}

#[tokio::test]
async fn a_sessions_csrf_token_is_its_own() {
    let core = TestCore::open().await;
    user(&core, "ada@example.com").await;
    let (_, session) = sign_in(&core, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("signed in");
    check_csrf(&session, Some(&session.csrf_token)).expect("its own token");
    for forged in [None, Some(""), Some("x"), Some(&session.csrf_token[1..])] {
        assert_eq!(
            code(check_csrf(&session, forged)),
            ErrorCode::InvalidCsrfToken,
            "{forged:?}"
        );
    }
}

#[tokio::test]
async fn signing_out_ends_the_session_and_a_new_password_ends_the_others() {
    let core = TestCore::open().await;
    user(&core, "ada@example.com").await;
    let (laptop, session) = sign_in(&core, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("laptop");
    let (phone, _) = sign_in(&core, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("phone");
    let (tablet, _) = sign_in(&core, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("tablet");

    sign_out(&core, &tablet).await.expect("signed out");
    assert_eq!(code(authenticate(&core, &tablet).await), ErrorCode::InvalidSession);

    let wrong = change_password(&core, &session, &laptop, "not it", "a new long password").await;
    assert_eq!(code(wrong), ErrorCode::InvalidCredentials);
    authenticate(&core, &phone)
        .await
        .expect("a refused change ends nothing");
    change_password(&core, &session, &laptop, PASSWORD, "a new long password")
        .await
        .expect("changed");
    authenticate(&core, &laptop).await.expect("this session stays");
    assert_eq!(code(authenticate(&core, &phone).await), ErrorCode::InvalidSession);
    let old = sign_in(&core, "ada@example.com", PASSWORD, ADDRESS).await;
    assert_eq!(code(old), ErrorCode::InvalidCredentials);
    sign_in(&core, "ada@example.com", "a new long password", ADDRESS)
        .await
        .expect("the new password");
}
