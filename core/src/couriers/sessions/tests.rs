//! A courier's sessions in process ([`crate::testing`]): sign-in by any
//! spelling of their phone, their week of idle time, and a suspension. The
//! mechanics they share with console users are tested in
//! `courier_identity::sessions`.

use std::time::Duration;

use courier::errors::ErrorCode;
use courier_identity::sessions::{authenticate, sign_in};

use crate::couriers::{self, Courier, Fleet, NewCourier, Status, Vehicle};
use crate::testing::TestCore;
use crate::{Core, CoreResult};

const PASSWORD: &str = "correct horse battery";
const ADDRESS: &str = "192.0.2.10";

fn code<T: std::fmt::Debug>(result: CoreResult<T>) -> ErrorCode {
    result.expect_err("refused").code()
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
