//! Sessions in process ([`crate::testing`]), of both kinds: a console
//! user's sign-in and its throttle, idle expiry on the test clock, CSRF
//! tokens, sign-out and password changes (the caller a session acts as:
//! `access::caller`); a courier's sign-in by any spelling of their phone,
//! their week of idle time, and a suspension.

use std::time::Duration;

use courier::errors::ErrorCode;

use super::*;
use crate::accounts::{self, NewUser, User};
use crate::couriers::{self, Courier, Fleet, NewCourier, Status, Vehicle};
use crate::identity::sign_ins::{FAILURE_WINDOW_MICROS, MAX_FAILURES_PER_LOGIN};
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
    let (token, session) = sign_in::<User>(&core, " Ada@Example.com ", PASSWORD, ADDRESS)
        .await
        .expect("signed in");
    assert_eq!(session.subject, ada);
    let idle = User::POLICY.idle_micros;
    let idle_end = before + idle..=core.clock.now_micros() + idle;
    assert!(
        idle_end.contains(&session.expires_at),
        "{idle_end:?}: {}",
        session.expires_at
    );

    // Used after 11 hours, it lasts 12 more from then.
    core.clock.advance(Duration::from_secs(11 * 3600));
    let used = authenticate::<User>(&core, &token).await.expect("still signed in");
    assert_eq!(used.csrf_token, session.csrf_token);
    core.clock.advance(Duration::from_secs(11 * 3600));
    authenticate::<User>(&core, &token).await.expect("kept alive by use");

    core.clock.advance(Duration::from_secs(12 * 3600));
    assert_eq!(
        code(authenticate::<User>(&core, &token).await),
        ErrorCode::InvalidSession
    );
    assert_eq!(
        code(authenticate::<User>(&core, "not-a-token").await),
        ErrorCode::InvalidSession
    );
}

#[tokio::test]
async fn failed_sign_ins_are_throttled_per_email_until_the_window_ends() {
    let core = TestCore::open().await;
    user(&core, "ada@example.com").await;
    for _ in 0..MAX_FAILURES_PER_LOGIN {
        let wrong = sign_in::<User>(&core, "ada@example.com", "wrong password", ADDRESS).await;
        assert_eq!(code(wrong), ErrorCode::InvalidCredentials);
    }
    // Now even the right password waits, from any address.
    let throttled = sign_in::<User>(&core, "ada@example.com", PASSWORD, "198.51.100.7").await;
    assert_eq!(code(throttled), ErrorCode::RateLimited);

    core.clock.advance(Duration::from_micros(FAILURE_WINDOW_MICROS as u64));
    sign_in::<User>(&core, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("the window ended");
    // A success clears the email's count.
    let wrong = sign_in::<User>(&core, "ada@example.com", "wrong password", ADDRESS).await;
    assert_eq!(code(wrong), ErrorCode::InvalidCredentials);
    sign_in::<User>(&core, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("one failure is no throttle");
}

#[tokio::test]
async fn a_sessions_csrf_token_is_its_own() {
    let core = TestCore::open().await;
    user(&core, "ada@example.com").await;
    let (_, session) = sign_in::<User>(&core, "ada@example.com", PASSWORD, ADDRESS)
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
    let core = TestCore::open().await;
    user(&core, "ada@example.com").await;
    let (laptop, session) = sign_in::<User>(&core, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("laptop");
    let (phone, _) = sign_in::<User>(&core, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("phone");
    let (tablet, _) = sign_in::<User>(&core, "ada@example.com", PASSWORD, ADDRESS)
        .await
        .expect("tablet");

    sign_out::<User>(&core, &tablet).await.expect("signed out");
    assert_eq!(
        code(authenticate::<User>(&core, &tablet).await),
        ErrorCode::InvalidSession
    );

    let wrong = accounts::sessions::change_password(&core, &session, &laptop, "not it", "a new long password").await;
    assert_eq!(code(wrong), ErrorCode::InvalidCredentials);
    authenticate::<User>(&core, &phone)
        .await
        .expect("a refused change ends nothing");
    accounts::sessions::change_password(&core, &session, &laptop, PASSWORD, "a new long password")
        .await
        .expect("changed");
    authenticate::<User>(&core, &laptop).await.expect("this session stays");
    assert_eq!(
        code(authenticate::<User>(&core, &phone).await),
        ErrorCode::InvalidSession
    );
    let old = sign_in::<User>(&core, "ada@example.com", PASSWORD, ADDRESS).await;
    assert_eq!(code(old), ErrorCode::InvalidCredentials);
    sign_in::<User>(&core, "ada@example.com", "a new long password", ADDRESS)
        .await
        .expect("the new password");
}

/// A courier of the platform with `phone`, joined with [`PASSWORD`].
async fn courier(core: &Core, phone: &str) -> Courier {
    let new = NewCourier {
        fleet: Fleet::Platform,
        name: "Kim Courier".into(),
        phone: Some(phone.into()),
        email: None,
        vehicle: Vehicle {
            vehicle_type_id: "car".into(),
            ..Vehicle::default()
        },
    };
    let tx = core.begin().await.expect("transaction");
    let courier = couriers::create(core, &tx, new).await.expect("courier");
    let joined = couriers::set_password(core, &tx, &courier.id, PASSWORD)
        .await
        .expect("password");
    tx.commit().await.expect("committed");
    joined
}

#[tokio::test]
async fn a_courier_signs_in_by_any_spelling_for_a_week_until_suspended() {
    let core = TestCore::open().await;
    let kim = courier(&core, "+49 151 1234 5678").await;
    let (token, session) = sign_in::<Courier>(&core, "+49 (151) 12345678", PASSWORD, ADDRESS)
        .await
        .expect("signed in");
    assert_eq!(session.subject.id, kim.id);
    assert_eq!(session.csrf_token, None, "the app's sessions have no CSRF token");
    let wrong = sign_in::<Courier>(&core, "+4915112345678", "wrong password", ADDRESS).await;
    assert_eq!(code(wrong), ErrorCode::InvalidCredentials);

    // Six idle days are no week; a week is.
    core.clock.advance(Duration::from_secs(6 * 24 * 3600));
    authenticate::<Courier>(&core, &token).await.expect("still signed in");
    core.clock.advance(Duration::from_secs(7 * 24 * 3600));
    assert_eq!(
        code(authenticate::<Courier>(&core, &token).await),
        ErrorCode::InvalidCourierSession
    );

    let (token, _) = sign_in::<Courier>(&core, "+4915112345678", PASSWORD, ADDRESS)
        .await
        .expect("again");
    let tx = core.begin().await.expect("transaction");
    couriers::set_status(&core, &tx, &kim.id, Status::Suspended)
        .await
        .expect("suspended");
    tx.commit().await.expect("committed");
    assert_eq!(
        code(authenticate::<Courier>(&core, &token).await),
        ErrorCode::InvalidCourierSession
    );
    let refused = sign_in::<Courier>(&core, "+4915112345678", PASSWORD, ADDRESS).await;
    assert_eq!(code(refused), ErrorCode::InvalidCourierSession, "a suspended courier");
}
