//! Signing in and out, and joining by an invitation link.

use askama::Template;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use courier::app::v1 as apb;

use crate::AppState;
use crate::answers::{SignInPage, failure, stale_form};
use crate::page::{Layout, MessagePage, Refusal, bare_layout, is_refusal, render};
use crate::signed::{Signed, clear_cookie, set_session_cookie};

pub(crate) async fn sign_in_page(State(state): State<AppState>) -> Response {
    render(
        SignInPage {
            layout: bare_layout(&state, "Sign in"),
            login: String::new(),
        },
        StatusCode::OK,
    )
}

#[derive(serde::Deserialize)]
pub(crate) struct SignInForm {
    #[serde(default)]
    login: String,
    #[serde(default)]
    password: String,
}

pub(crate) async fn sign_in(
    State(state): State<AppState>,
    peer: Option<courier::client_address::Peer>,
    headers: HeaderMap,
    axum::Form(form): axum::Form<SignInForm>,
) -> Response {
    let request = apb::SignInRequest {
        login: form.login.clone(),
        password: form.password,
        client_address: state.front.client_address(peer, &headers),
    };
    match state.core.clone().sign_in(state.front.sign_in(request)).await {
        Ok(answer) => {
            let mut response = Redirect::to(&format!("{}/", state.root)).into_response();
            set_session_cookie(&state, &mut response, &answer.into_inner().session_token);
            response
        }
        Err(status) => match courier::errors::sign_in_refused(&status) {
            Some(code) => {
                let mut layout = bare_layout(&state, "Sign in");
                layout.error = Some(status.message().to_owned());
                let code = StatusCode::from_u16(code).unwrap_or(StatusCode::UNAUTHORIZED);
                render(
                    SignInPage {
                        layout,
                        login: form.login,
                    },
                    code,
                )
            }
            None => failure(&state, &status),
        },
    }
}

#[derive(serde::Deserialize)]
pub(crate) struct CsrfForm {
    #[serde(default)]
    csrf: String,
}

pub(crate) async fn sign_out(
    State(state): State<AppState>,
    signed: Signed,
    axum::Form(form): axum::Form<CsrfForm>,
) -> Response {
    if !signed.sent(&form.csrf) {
        return stale_form(&state);
    }
    match state
        .core
        .clone()
        .sign_out(signed.request(apb::SignOutRequest {}))
        .await
    {
        // Already ended: signed out all the same.
        Ok(_) => {}
        Err(status) if status.code() == tonic::Code::Unauthenticated => {}
        Err(status) => return failure(&state, &status),
    }
    let mut response = Redirect::to(&format!("{}/sign-in", state.root)).into_response();
    clear_cookie(&state, &mut response);
    response
}

#[derive(Template)]
#[template(path = "join.html")]
pub(crate) struct JoinPage {
    layout: Layout,
    token: String,
    name: String,
    fleet_name: String,
    login: String,
    refusal: Option<Refusal>,
}

async fn join_view(state: &AppState, token: String, refusal: Option<Refusal>) -> Response {
    let request = apb::GetInvitationRequest { token: token.clone() };
    let invitation = match state.core.clone().get_invitation(request).await {
        Ok(answer) => answer.into_inner(),
        Err(status) if status.code() == tonic::Code::NotFound => {
            return render(
                MessagePage {
                    layout: bare_layout(state, "Invitation not valid"),
                    message: status.message().to_owned(),
                },
                StatusCode::NOT_FOUND,
            );
        }
        Err(status) => return failure(state, &status),
    };
    let status = if refusal.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    render(
        JoinPage {
            layout: bare_layout(state, "Join"),
            token,
            name: invitation.name,
            fleet_name: invitation.fleet_name,
            login: invitation.email.or(invitation.phone).unwrap_or_default(),
            refusal,
        },
        status,
    )
}

pub(crate) async fn join_page(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    join_view(&state, token, None).await
}

#[derive(serde::Deserialize)]
pub(crate) struct JoinForm {
    #[serde(default)]
    password: String,
}

pub(crate) async fn join(
    State(state): State<AppState>,
    Path(token): Path<String>,
    axum::Form(form): axum::Form<JoinForm>,
) -> Response {
    let request = apb::AcceptInvitationRequest {
        token: token.clone(),
        password: form.password,
    };
    match state.core.clone().accept_invitation(request).await {
        Ok(answer) => {
            let mut response = Redirect::to(&format!("{}/", state.root)).into_response();
            set_session_cookie(&state, &mut response, &answer.into_inner().session_token);
            response
        }
        // A weak password, or a link used or expired meanwhile: the page
        // again, with the core's words.
        Err(status) if is_refusal(&status) || status.code() == tonic::Code::NotFound => {
            join_view(&state, token, Some(Refusal::of(&status))).await
        }
        Err(status) => failure(&state, &status),
    }
}
