//! API keys of a workspace, per mode: list, create (the secret shown once,
//! on the page the creation redirects to, which a reload does not show
//! again), revoke with a confirmation. Owners and admins only (the core
//! decides).

use askama::Template;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use courier::internal::v1 as pb;

use crate::ConsoleState;
use crate::flash::Flash;
use crate::page::{Layout, ModeQuery, Refusal, Signed, field, fields, render, unconfirmed};
use crate::times::Moment;

pub(crate) struct KeyRow {
    id: String,
    label: String,
    prefix: String,
    permissions: String,
    created_at: Moment,
    expires_at: Moment,
    last_used_at: Moment,
    state: &'static str,
    revocable: bool,
}

#[derive(Template)]
#[template(path = "keys.html")]
pub(crate) struct KeysPage {
    layout: Layout,
    workspace_id: String,
    keys: Vec<KeyRow>,
    /// What a new key may hold: the workspace kind's permissions.
    permissions: Vec<String>,
    label: String,
    refusal: Option<Refusal>,
}

impl KeysPage {
    fn field_error(&self, field: &str) -> Option<&str> {
        self.refusal.as_ref().and_then(|r| r.at(field))
    }
}

pub(crate) async fn keys_view(
    state: &ConsoleState,
    signed: &Signed,
    workspace: &str,
    mode: &'static str,
    label: String,
    refusal: Option<Refusal>,
) -> Response {
    let request = signed.request(
        pb::ListWorkspaceApiKeysRequest {
            workspace_id: workspace.to_owned(),
        },
        None,
    );
    let (keys, offered) = match state.core.clone().list_workspace_api_keys(request).await {
        Ok(answer) => {
            let answer = answer.into_inner();
            (answer.api_keys, answer.offered_permissions)
        }
        Err(status) => return signed.failure(state, &status, workspace),
    };
    let wanted = if mode == "live" {
        courier::v1::Mode::Live
    } else {
        courier::v1::Mode::Test
    };
    let zone = signed.zone(Some(workspace));
    let rows = keys
        .iter()
        .filter(|key| key.mode() == wanted)
        .map(|key| KeyRow {
            id: key.id.clone(),
            label: key.label.clone(),
            prefix: key.prefix.clone(),
            permissions: key
                .permissions
                .iter()
                .map(|p| crate::labels::permission(p))
                .collect::<Vec<_>>()
                .join(", "),
            created_at: zone.day(key.created_at.as_ref(), "never"),
            expires_at: zone.day(key.expires_at.as_ref(), "never"),
            last_used_at: zone.minute(key.last_used_at.as_ref(), "never"),
            state: if key.revoked_at.is_some() { "revoked" } else { "active" },
            revocable: key.revoked_at.is_none(),
        })
        .collect();
    let mut layout = signed.layout(state, "API keys", Some(workspace), mode);
    layout.section = "keys";
    if let Some(refusal) = refusal
        .as_ref()
        .filter(|r| r.at("label").is_none() && r.at("permissions").is_none())
    {
        layout.error = Some(refusal.message.clone());
    }
    let status = if refusal.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    render(
        KeysPage {
            layout,
            workspace_id: workspace.to_owned(),
            keys: rows,
            permissions: offered,
            label,
            refusal,
        },
        status,
    )
}

pub(crate) async fn keys_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
) -> Response {
    if let Some(secret) = signed.flash.as_ref().and_then(|f| f.secret_of("key")) {
        return render(
            KeyCreatedPage {
                layout: Layout {
                    section: "keys",
                    ..signed.layout(&state, "Key created", Some(&workspace), query.mode())
                },
                workspace_id: workspace.clone(),
                secret: secret.to_owned(),
            },
            StatusCode::OK,
        );
    }
    keys_view(&state, &signed, &workspace, query.mode(), String::new(), None).await
}

#[derive(Template)]
#[template(path = "key_created.html")]
pub(crate) struct KeyCreatedPage {
    layout: Layout,
    workspace_id: String,
    secret: String,
}

pub(crate) async fn create_key(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let mode = query.mode();
    let expiry = match field(&form, "expiry") {
        "30" => pb::KeyExpiry::Days30,
        "90" => pb::KeyExpiry::Days90,
        "365" => pb::KeyExpiry::Days365,
        _ => pb::KeyExpiry::Never,
    };
    let label = field(&form, "label").to_owned();
    let message = pb::CreateWorkspaceApiKeyRequest {
        workspace_id: workspace.clone(),
        mode: if mode == "live" {
            courier::v1::Mode::Live
        } else {
            courier::v1::Mode::Test
        } as i32,
        label: label.clone(),
        permissions: form
            .iter()
            .filter(|(key, _)| key == "permission")
            .map(|(_, value)| value.clone())
            .collect(),
        expiry: expiry as i32,
    };
    let request = signed.request(message, Some(field(&form, "csrf")));
    match state.core.clone().create_workspace_api_key(request).await {
        Ok(answer) => signed.redirect_with(
            Flash::secret(
                "key",
                format!("Key “{}” created.", label.trim()),
                answer.into_inner().secret,
            ),
            &format!("{}/w/{workspace}/keys?mode={mode}", state.root),
        ),
        Err(status) if status.code() == tonic::Code::InvalidArgument => {
            keys_view(&state, &signed, &workspace, mode, label, Some(Refusal::of(&status))).await
        }
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}

pub(crate) async fn revoke_key(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, key)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let mode = query.mode();
    if let Some(refusal) = unconfirmed(&form, "revoke the key") {
        return keys_view(&state, &signed, &workspace, mode, String::new(), Some(refusal)).await;
    }
    let message = pb::RevokeWorkspaceApiKeyRequest {
        workspace_id: workspace.clone(),
        api_key_id: key,
    };
    match state
        .core
        .clone()
        .revoke_workspace_api_key(signed.request(message, Some(field(&form, "csrf"))))
        .await
    {
        Ok(_) => signed.redirect_with(
            Flash::notice("Key revoked: calls with it now fail."),
            &format!("{}/w/{workspace}/keys?mode={mode}", state.root),
        ),
        Err(status) => signed.failure(&state, &status, &workspace),
    }
}
