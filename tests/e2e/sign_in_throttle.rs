//! The sign-in throttle under attack (docs/access.md, "Sign-in throttle"):
//! every spelling of a phone number is one login; an address a caller
//! claims counts only from a web front's token; a forwarding header only
//! from a trusted proxy, read from the right; and a courier's failures
//! never lock out the console.

use std::net::{IpAddr, Ipv4Addr};

use courier::app::v1 as apb;
use courier::internal::v1 as ipb;
use courier_identity::auth::service_token::{self, Role};
use courier_identity::sign_ins::{MAX_FAILURES_PER_ADDRESS, MAX_FAILURES_PER_LOGIN};

use crate::console_pages::{self, browser, post_from};
use crate::couriers::{PASSWORD, app_client, couriers, refusal, vehicle};
use crate::harness::TestApp;

/// Invites a courier who signs in with `phone` and joins with [`PASSWORD`].
async fn courier_with_phone(app: &TestApp, phone: &str) {
    let invited = couriers(app)
        .await
        .invite_courier(app.admin_request(ipb::InviteCourierRequest {
            workspace_id: String::new(),
            name: "Pat Phone".into(),
            phone: Some(phone.into()),
            email: None,
            vehicle: Some(vehicle("car")),
        }))
        .await
        .expect("invite")
        .into_inner();
    let token = invited.invitation_url.rsplit('/').next().expect("token").to_owned();
    app_client(app)
        .await
        .accept_invitation(apb::AcceptInvitationRequest {
            token,
            password: PASSWORD.into(),
        })
        .await
        .expect("join");
}

/// A wrong courier sign-in of `login` over gRPC claiming `address`, with
/// `token` (a service token) if any: the refusal's code.
async fn wrong_sign_in(app: &TestApp, login: &str, address: &str, token: Option<&str>) -> &'static str {
    let mut request = tonic::Request::new(apb::SignInRequest {
        login: login.into(),
        password: "not the password at all".into(),
        client_address: address.into(),
    });
    if let Some(token) = token {
        let value = format!("Bearer {token}").parse().expect("metadata");
        request.metadata_mut().insert("authorization", value);
    }
    let status = app_client(app)
        .await
        .sign_in(request)
        .await
        .expect_err("a wrong password");
    let (code, name, _) = refusal(&status);
    match name {
        "invalid_credentials" => assert_eq!(code, tonic::Code::Unauthenticated),
        "rate_limited" => assert_eq!(code, tonic::Code::ResourceExhausted),
        other => panic!("a wrong sign-in answered {other}: {status:?}"),
    }
    name
}

fn token(app: &TestApp, role: Role) -> String {
    let now = app.clock.now().timestamp();
    service_token::mint(&app.core.secrets.service_token, role, "throttle-test", now, 600).expect("token")
}

/// A wrong sign-in posted to the courier app at `base_url` with the
/// request `headers`, from the local address `from`: the answer's status.
async fn wrong_app_sign_in(base_url: &str, login: &str, from: Ipv4Addr, headers: &[(&str, &str)]) -> u16 {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .local_address(IpAddr::V4(from))
        .build()
        .expect("client");
    let form = [("login", login), ("password", "not the password at all")];
    let (status, _, _) = post_from(&http, &format!("{base_url}/courier/sign-in"), &form, headers).await;
    status
}

const HERE: Ipv4Addr = Ipv4Addr::LOCALHOST;

e2e! {
    async fn every_spelling_and_claimed_address_of_one_phone_shares_its_count(app: TestApp) {
        courier_with_phone(&app, "+49301228888").await;
        let mut answers = Vec::new();
        for k in 0..150 {
            let login = format!("+49{}30{}1228888", " ".repeat(k % 5), "-".repeat(k / 5));
            let address = format!("10.9.{}.{}", k / 5, k % 5);
            answers.push(wrong_sign_in(&app, &login, &address, None).await);
        }
        let limit = MAX_FAILURES_PER_LOGIN as usize;
        assert!(answers[..limit].iter().all(|code| *code == "invalid_credentials"), "{answers:?}");
        assert!(answers[limit..].iter().all(|code| *code == "rate_limited"), "{answers:?}");

        // The right password, spelt another way, waits for the window too.
        let status = app_client(&app)
            .await
            .sign_in(apb::SignInRequest {
                login: "+49 (30) 122-8888".into(),
                password: PASSWORD.into(),
                client_address: "10.9.99.99".into(),
            })
            .await
            .expect_err("throttled");
        assert_eq!(refusal(&status), (tonic::Code::ResourceExhausted, "rate_limited", None));
    }

    async fn a_claimed_address_counts_only_from_a_fronts_token(app: TestApp) {
        let per_address = MAX_FAILURES_PER_ADDRESS as usize;
        // A direct caller (or one with another role's token) names a new
        // address each time: ignored, all its tries come from one peer.
        let dispatch = token(&app, Role::Dispatch);
        for k in 0..per_address {
            let token = (k % 2 == 0).then_some(dispatch.as_str());
            let code = wrong_sign_in(&app, &format!("nobody{k}@example.com"), &format!("10.8.0.{k}"), token).await;
            assert_eq!(code, "invalid_credentials", "try {k}");
        }
        assert_eq!(wrong_sign_in(&app, "someone@example.com", "10.8.1.1", None).await, "rate_limited");

        // A front's token: each visitor address it names has its own count,
        // and its own peer's count is not that of its visitors.
        let front = token(&app, Role::Front);
        for k in 0..per_address {
            let code = wrong_sign_in(&app, &format!("guess{k}@example.com"), "198.51.100.2", Some(&front)).await;
            assert_eq!(code, "invalid_credentials", "try {k}");
        }
        let code = wrong_sign_in(&app, "another@example.com", "198.51.100.2", Some(&front)).await;
        assert_eq!(code, "rate_limited");
        let code = wrong_sign_in(&app, "another@example.com", "198.51.100.3", Some(&front)).await;
        assert_eq!(code, "invalid_credentials");
    }

    async fn a_forwarding_header_counts_only_from_a_trusted_proxy(app: TestApp) {
        let per_address = MAX_FAILURES_PER_ADDRESS as usize;
        // The test's front trusts no proxy: a header rotated on every try
        // is ignored, and the peer's count runs out.
        let origin = [("origin", app.base_url.as_str())];
        for k in 0..per_address {
            let forged = format!("203.0.113.{k}");
            let headers = [origin[0], ("x-forwarded-for", forged.as_str())];
            let status = wrong_app_sign_in(&app.base_url, &format!("rotating{k}@example.com"), HERE, &headers).await;
            assert_eq!(status, 401, "try {k}");
        }
        let headers = [origin[0], ("x-forwarded-for", "203.0.113.250")];
        assert_eq!(wrong_app_sign_in(&app.base_url, "last@example.com", HERE, &headers).await, 429);

        // A courier app behind a trusted proxy (this machine's loopback):
        // the rightmost untrusted hop is the visitor, whatever the visitor
        // wrote to its left.
        let front = courier::client_address::FrontArgs {
            trusted_proxies: "127.0.0.0/8".parse().expect("range"),
            service_token: Some(token(&app, Role::Front)),
            ..Default::default()
        };
        let proxied = serve_courier_app(&app, front).await;
        let origin = [("origin", proxied.as_str())];
        for k in 0..per_address {
            let forwarded = format!("10.0.0.{k}, 198.51.100.7");
            let headers = [origin[0], ("x-forwarded-for", forwarded.as_str())];
            let status = wrong_app_sign_in(&proxied, &format!("visitor{k}@example.com"), HERE, &headers).await;
            assert_eq!(status, 401, "try {k}");
        }
        let headers = [origin[0], ("x-forwarded-for", "192.0.2.1, 198.51.100.7")];
        assert_eq!(wrong_app_sign_in(&proxied, "more@example.com", HERE, &headers).await, 429);
        let headers = [origin[0], ("x-forwarded-for", "198.51.100.8")];
        assert_eq!(wrong_app_sign_in(&proxied, "more@example.com", HERE, &headers).await, 401);
    }

    async fn a_couriers_failures_do_not_lock_out_the_console(app: TestApp) {
        console_pages::user(&app, "owner@example.com", courier_identity::accounts::memberships::Role::Owner).await;
        let origin = [("origin", app.base_url.as_str())];
        for k in 0..MAX_FAILURES_PER_ADDRESS {
            let status = wrong_app_sign_in(&app.base_url, &format!("courier{k}@example.com"), HERE, &origin).await;
            assert_eq!(status, 401, "try {k}");
        }
        assert_eq!(wrong_app_sign_in(&app.base_url, "one-more@example.com", HERE, &origin).await, 429);
        // Another browser on another address is not throttled.
        let elsewhere = Ipv4Addr::new(127, 0, 0, 2);
        assert_eq!(wrong_app_sign_in(&app.base_url, "one-more@example.com", elsewhere, &origin).await, 401);

        // The console, from the same address, signs its owner in.
        let (status, location, page) =
            console_pages::sign_in_form(&app, &browser(), "owner@example.com", console_pages::PASSWORD).await;
        assert_eq!((status, location.as_str()), (303, app.url("/console").as_str()), "{page}");
    }
}

/// Serves a courier app with `front`'s settings beside the test's, calling
/// the same core; its base URL.
async fn serve_courier_app(app: &TestApp, front: courier::client_address::FrontArgs) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let state = courier_app::AppState::new(&app.grpc_url, &format!("{url}/courier"))
        .expect("app state")
        .with_front(front);
    tokio::spawn(courier_edge::serve_router(
        courier_app::standalone(state, &url),
        listener,
        Default::default(),
        &url,
        std::future::pending(),
    ));
    url
}
