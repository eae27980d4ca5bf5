//! The web console (DECISIONS "Console (web)", docs/console.md): server-
//! rendered pages under `/console` for workspace owners, admins and members.
//! It holds no database and no rule: every page reads and every form acts
//! through the core's `ConsoleService`, with the user's session token (an
//! HttpOnly cookie) and, on every change, the session's CSRF token from the
//! form. Templates escape what they render (askama); the only script is a
//! copy button, served from here, under a strict Content-Security-Policy.

use askama::Template;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use courier::internal::v1 as pb;
use courier::internal::v1::console_service_client::ConsoleServiceClient;
use courier::metadata;
use tonic::transport::Channel;

/// The session cookie.
const COOKIE: &str = "courier_session";
/// What the pages may load: only this origin's files; no frames.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; \
form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
/// The roles, as offered in the member forms (the least first).
const ROLES: [&str; 3] = ["member", "admin", "owner"];

/// What every request of the console shares.
#[derive(Clone)]
pub struct ConsoleState {
    core: ConsoleServiceClient<Channel>,
    /// The console's own URL (`…/console`), for links and cookies.
    root: String,
    /// Whether the console is served over HTTPS (cookies get `Secure`).
    secure: bool,
}

impl ConsoleState {
    /// `core_url`: the core's gRPC address; `root`: the console's public URL
    /// up to and including `/console`.
    pub fn new(core_url: &str, root: &str) -> Result<ConsoleState, tonic::codegen::http::uri::InvalidUri> {
        let channel = Channel::from_shared(core_url.to_owned())?.connect_lazy();
        Ok(ConsoleState {
            core: ConsoleServiceClient::new(channel),
            root: root.trim_end_matches('/').to_owned(),
            secure: root.starts_with("https://"),
        })
    }
}

/// The console's routes, to be served under `/console`.
pub fn router(state: ConsoleState) -> Router {
    Router::new()
        .route("/", get(home))
        .route("/sign-in", get(sign_in_page).post(sign_in))
        .route("/sign-out", post(sign_out))
        .route("/switch", get(switch))
        .route("/w/{workspace}/keys", get(keys_page).post(create_key))
        .route("/w/{workspace}/keys/{key}/revoke", post(revoke_key))
        .route("/w/{workspace}/members", get(members_page))
        .route("/w/{workspace}/members/invite", post(invite))
        .route("/w/{workspace}/members/{user}/role", post(change_role))
        .route("/w/{workspace}/members/{user}/remove", post(remove_member))
        .route("/invitations/{token}", get(invitation_page).post(accept_invitation))
        .route("/assets/console.css", get(stylesheet))
        .route("/assets/console.js", get(script))
        .fallback(not_found)
        .layer(axum::middleware::map_response(security_headers))
        .with_state(state)
}

async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        "content-security-policy",
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    headers.insert("referrer-policy", HeaderValue::from_static("same-origin"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The parts of the layout every page shows.
struct Layout {
    title: String,
    root: String,
    user: Option<String>,
    csrf: String,
    workspaces: Vec<WorkspaceLink>,
    workspace: Option<WorkspaceLink>,
    mode: &'static str,
    section: &'static str,
    error: Option<String>,
}

#[derive(Clone)]
struct WorkspaceLink {
    id: String,
    name: String,
    role: &'static str,
    manages: bool,
    current: bool,
}

/// A refusal of the core shown on a page: its message, and the field its
/// `param` names.
struct Refusal {
    param: Option<String>,
    message: String,
}

impl Refusal {
    fn of(status: &tonic::Status) -> Refusal {
        let (_, param) = courier::errors::from_status(status);
        Refusal {
            param,
            message: status.message().to_owned(),
        }
    }

    fn at(&self, field: &str) -> Option<&str> {
        (self.param.as_deref() == Some(field)).then_some(self.message.as_str())
    }
}

/// The signed-in user's session, or a redirect to sign in.
struct Signed {
    token: String,
    session: pb::ConsoleSession,
}

impl Signed {
    async fn of(state: &ConsoleState, headers: &HeaderMap) -> Result<Signed, Response> {
        let to_sign_in = || Redirect::to(&format!("{}/sign-in", state.root)).into_response();
        let token = cookie(headers).ok_or_else(to_sign_in)?;
        let mut request = tonic::Request::new(pb::GetSessionRequest {});
        authorize(&mut request, &token, None);
        match state.core.clone().get_session(request).await {
            Ok(answer) => Ok(Signed {
                token,
                session: answer.into_inner().session.unwrap_or_default(),
            }),
            Err(status) if status.code() == tonic::Code::Unauthenticated => Err(to_sign_in()),
            Err(status) => Err(failure(state, &status)),
        }
    }

    /// `message` for the core on behalf of this session; `csrf` on changes.
    fn request<T>(&self, message: T, csrf: Option<&str>) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        authorize(&mut request, &self.token, csrf);
        request
    }

    fn layout(&self, state: &ConsoleState, title: &str, workspace: Option<&str>, mode: &'static str) -> Layout {
        let operator = self.session.user.as_ref().is_some_and(|u| u.operator);
        let workspaces: Vec<WorkspaceLink> = self
            .session
            .memberships
            .iter()
            .map(|m| {
                let role = role_name(m.role());
                WorkspaceLink {
                    id: m.workspace_id.clone(),
                    name: m.workspace_name.clone(),
                    role,
                    manages: operator || role != "member",
                    current: workspace == Some(m.workspace_id.as_str()),
                }
            })
            .collect();
        Layout {
            title: title.to_owned(),
            root: state.root.clone(),
            user: self.session.user.as_ref().map(|u| u.email.clone()),
            csrf: self.session.csrf_token.clone(),
            workspace: workspaces.iter().find(|w| w.current).cloned(),
            workspaces,
            mode,
            section: "",
            error: None,
        }
    }
}

/// A page that needs a signed-in user takes `Signed`; without a valid
/// session the browser is sent to sign in.
impl axum::extract::FromRequestParts<ConsoleState> for Signed {
    type Rejection = Response;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &ConsoleState,
    ) -> Result<Self, Self::Rejection> {
        Signed::of(state, &parts.headers).await
    }
}

fn authorize<T>(request: &mut tonic::Request<T>, token: &str, csrf: Option<&str>) {
    if let Ok(value) = token.parse() {
        request.metadata_mut().insert(metadata::CONSOLE_SESSION, value);
    }
    if let Some(Ok(value)) = csrf.map(str::parse) {
        request.metadata_mut().insert(metadata::CSRF_TOKEN, value);
    }
}

fn cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.to_owned())
}

fn role_name(role: pb::MemberRole) -> &'static str {
    match role {
        pb::MemberRole::Owner => "owner",
        pb::MemberRole::Admin => "admin",
        _ => "member",
    }
}

fn role_in(name: &str) -> pb::MemberRole {
    match name {
        "owner" => pb::MemberRole::Owner,
        "admin" => pb::MemberRole::Admin,
        "member" => pb::MemberRole::Member,
        _ => pb::MemberRole::Unspecified,
    }
}

/// The form fields of a body, in order (a field may repeat).
fn fields(body: &Bytes) -> Vec<(String, String)> {
    url::form_urlencoded::parse(body).into_owned().collect()
}

fn field<'a>(fields: &'a [(String, String)], name: &str) -> &'a str {
    fields
        .iter()
        .find(|(key, _)| key == name)
        .map_or("", |(_, value)| value.as_str())
}

#[derive(serde::Deserialize)]
struct ModeQuery {
    mode: Option<String>,
}

impl ModeQuery {
    fn mode(&self) -> &'static str {
        if self.mode.as_deref() == Some("live") {
            "live"
        } else {
            "test"
        }
    }
}

fn render(template: impl Template, status: StatusCode) -> Response {
    match template.render() {
        Ok(html) => (status, Html(html)).into_response(),
        Err(error) => {
            tracing::error!(%error, "console page not rendered");
            (StatusCode::INTERNAL_SERVER_ERROR, "The page could not be rendered.").into_response()
        }
    }
}

#[derive(Template)]
#[template(path = "message.html")]
struct MessagePage {
    layout: Layout,
    message: String,
}

fn bare_layout(state: &ConsoleState, title: &str) -> Layout {
    Layout {
        title: title.to_owned(),
        root: state.root.clone(),
        user: None,
        csrf: String::new(),
        workspaces: Vec::new(),
        workspace: None,
        mode: "test",
        section: "",
        error: None,
    }
}

/// A page for a core answer the console cannot act on (the core is down, a
/// workspace is not the user's, …), with the core's words.
fn failure(state: &ConsoleState, status: &tonic::Status) -> Response {
    let (code, _) = courier::errors::from_status(status);
    let http = StatusCode::from_u16(code.http_status()).unwrap_or(StatusCode::BAD_GATEWAY);
    let title = match http {
        StatusCode::NOT_FOUND => "Not found",
        StatusCode::FORBIDDEN => "Not allowed",
        _ => "Something went wrong",
    };
    let message = if http.is_server_error() {
        "The service could not answer; try again in a moment.".to_owned()
    } else {
        status.message().to_owned()
    };
    render(
        MessagePage {
            layout: bare_layout(state, title),
            message,
        },
        http,
    )
}

async fn not_found(State(state): State<ConsoleState>) -> Response {
    render(
        MessagePage {
            layout: bare_layout(&state, "Not found"),
            message: "No console page has this address.".into(),
        },
        StatusCode::NOT_FOUND,
    )
}

async fn stylesheet() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        include_str!("../assets/console.css"),
    )
}

async fn script() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        include_str!("../assets/console.js"),
    )
}

#[derive(Template)]
#[template(path = "sign_in.html")]
struct SignInPage {
    layout: Layout,
    email: String,
}

async fn sign_in_page(State(state): State<ConsoleState>) -> Response {
    render(
        SignInPage {
            layout: bare_layout(&state, "Sign in"),
            email: String::new(),
        },
        StatusCode::OK,
    )
}

async fn sign_in(State(state): State<ConsoleState>, headers: HeaderMap, body: Bytes) -> Response {
    let form = fields(&body);
    let email = field(&form, "email").to_owned();
    let address = headers
        .get("x-forwarded-for")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .unwrap_or("direct")
        .trim()
        .to_owned();
    let request = pb::SignInRequest {
        email: email.clone(),
        password: field(&form, "password").to_owned(),
        client_address: address,
    };
    match state.core.clone().sign_in(request).await {
        Ok(answer) => {
            let token = answer.into_inner().session_token;
            let secure = if state.secure { "; Secure" } else { "" };
            let cookie = format!("{COOKIE}={token}; HttpOnly; SameSite=Lax; Path=/console; Max-Age=43200{secure}");
            let mut response = Redirect::to(&state.root).into_response();
            if let Ok(value) = HeaderValue::from_str(&cookie) {
                response.headers_mut().insert(header::SET_COOKIE, value);
            }
            response
        }
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::Unauthenticated | tonic::Code::ResourceExhausted | tonic::Code::InvalidArgument
            ) =>
        {
            let mut layout = bare_layout(&state, "Sign in");
            layout.error = Some(status.message().to_owned());
            let code = if status.code() == tonic::Code::ResourceExhausted {
                StatusCode::TOO_MANY_REQUESTS
            } else {
                StatusCode::UNAUTHORIZED
            };
            render(SignInPage { layout, email }, code)
        }
        Err(status) => failure(&state, &status),
    }
}

async fn sign_out(State(state): State<ConsoleState>, signed: Signed, body: Bytes) -> Response {
    let form = fields(&body);
    if let Err(status) = state
        .core
        .clone()
        .sign_out(signed.request(pb::SignOutRequest {}, Some(field(&form, "csrf"))))
        .await
    {
        return failure(&state, &status);
    }
    let mut response = Redirect::to(&format!("{}/sign-in", state.root)).into_response();
    let expired = format!("{COOKIE}=; HttpOnly; SameSite=Lax; Path=/console; Max-Age=0");
    if let Ok(value) = HeaderValue::from_str(&expired) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

#[derive(Template)]
#[template(path = "home.html")]
struct HomePage {
    layout: Layout,
}

async fn home(State(state): State<ConsoleState>, signed: Signed) -> Response {
    if let [only] = signed.session.memberships.as_slice() {
        return Redirect::to(&format!("{}/w/{}/members", state.root, only.workspace_id)).into_response();
    }
    render(
        HomePage {
            layout: signed.layout(&state, "Workspaces", None, "test"),
        },
        StatusCode::OK,
    )
}

#[derive(serde::Deserialize)]
struct SwitchQuery {
    workspace: String,
}

async fn switch(State(state): State<ConsoleState>, Query(query): Query<SwitchQuery>) -> Response {
    let workspace: String = query
        .workspace
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    Redirect::to(&format!("{}/w/{workspace}/members", state.root)).into_response()
}

struct KeyRow {
    id: String,
    label: String,
    prefix: String,
    permissions: String,
    created_at: String,
    expires_at: String,
    state: &'static str,
    revocable: bool,
}

#[derive(Template)]
#[template(path = "keys.html")]
struct KeysPage {
    layout: Layout,
    workspace_id: String,
    keys: Vec<KeyRow>,
    permissions: Vec<&'static str>,
    label: String,
    refusal: Option<Refusal>,
}

impl KeysPage {
    fn field_error(&self, field: &str) -> Option<&str> {
        self.refusal.as_ref().and_then(|r| r.at(field))
    }
}

fn day(at: Option<&prost_types::Timestamp>) -> String {
    at.and_then(courier::time::from_proto)
        .map(|at| at.format("%Y-%m-%d").to_string())
        .unwrap_or_else(|| "never".into())
}

async fn keys_view(
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
    let keys = match state.core.clone().list_workspace_api_keys(request).await {
        Ok(answer) => answer.into_inner().api_keys,
        Err(status) => return failure(state, &status),
    };
    let wanted = if mode == "live" {
        courier::v1::Mode::Live
    } else {
        courier::v1::Mode::Test
    };
    let rows = keys
        .iter()
        .filter(|key| key.mode() == wanted)
        .map(|key| KeyRow {
            id: key.id.clone(),
            label: key.label.clone(),
            prefix: key.prefix.clone(),
            permissions: key.permissions.join(", "),
            created_at: day(key.created_at.as_ref()),
            expires_at: day(key.expires_at.as_ref()),
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
            permissions: vec![
                "quotes:create",
                "deliveries:read",
                "deliveries:write",
                "webhooks:manage",
                "fleet_orders:create",
                "fleet_orders:read",
            ],
            label,
            refusal,
        },
        status,
    )
}

async fn keys_page(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    Query(query): Query<ModeQuery>,
) -> Response {
    keys_view(&state, &signed, &workspace, query.mode(), String::new(), None).await
}

#[derive(Template)]
#[template(path = "key_created.html")]
struct KeyCreatedPage {
    layout: Layout,
    workspace_id: String,
    secret: String,
}

async fn create_key(
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
        Ok(answer) => render(
            KeyCreatedPage {
                layout: signed.layout(&state, "Key created", Some(&workspace), mode),
                workspace_id: workspace,
                secret: answer.into_inner().secret,
            },
            StatusCode::OK,
        ),
        Err(status) if status.code() == tonic::Code::InvalidArgument => {
            keys_view(&state, &signed, &workspace, mode, label, Some(Refusal::of(&status))).await
        }
        Err(status) => failure(&state, &status),
    }
}

async fn revoke_key(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, key)): Path<(String, String)>,
    Query(query): Query<ModeQuery>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let mode = query.mode();
    if field(&form, "confirm") != "yes" {
        let refusal = Refusal {
            param: None,
            message: "Tick the confirmation to revoke the key.".into(),
        };
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
        Ok(_) => Redirect::to(&format!("{}/w/{workspace}/keys?mode={mode}", state.root)).into_response(),
        Err(status) => failure(&state, &status),
    }
}

struct MemberRow {
    id: String,
    name: String,
    email: String,
    role: &'static str,
    since: String,
    /// The role choices, the member's own selected.
    options: Vec<(&'static str, bool)>,
}

#[derive(Template)]
#[template(path = "members.html")]
struct MembersPage {
    layout: Layout,
    workspace_id: String,
    members: Vec<MemberRow>,
    manages: bool,
    roles: [&'static str; 3],
    invitation_link: Option<String>,
}

async fn members_view(
    state: &ConsoleState,
    signed: &Signed,
    workspace: &str,
    invitation_link: Option<String>,
    error: Option<String>,
) -> Response {
    let request = signed.request(
        pb::ListMembersRequest {
            workspace_id: workspace.to_owned(),
        },
        None,
    );
    let members = match state.core.clone().list_members(request).await {
        Ok(answer) => answer.into_inner().members,
        Err(status) => return failure(state, &status),
    };
    let mut layout = signed.layout(state, "Members", Some(workspace), "test");
    layout.section = "members";
    let status = if error.is_some() {
        StatusCode::CONFLICT
    } else {
        StatusCode::OK
    };
    layout.error = error;
    let manages = layout.workspace.as_ref().is_some_and(|w| w.manages);
    let rows = members
        .iter()
        .map(|m| {
            let user = m.user.clone().unwrap_or_default();
            let role = role_name(m.role());
            MemberRow {
                id: user.id,
                name: user.name,
                email: user.email,
                role,
                since: day(m.since.as_ref()),
                options: ROLES.iter().map(|r| (*r, *r == role)).collect(),
            }
        })
        .collect();
    render(
        MembersPage {
            layout,
            workspace_id: workspace.to_owned(),
            members: rows,
            manages,
            roles: ROLES,
            invitation_link,
        },
        status,
    )
}

async fn members_page(
    State(state): State<ConsoleState>,
    headers: HeaderMap,
    Path(workspace): Path<String>,
) -> Response {
    match Signed::of(&state, &headers).await {
        Ok(signed) => members_view(&state, &signed, &workspace, None, None).await,
        Err(response) => response,
    }
}

async fn invite(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path(workspace): Path<String>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let message = pb::CreateInvitationRequest {
        workspace_id: workspace.clone(),
        role: role_in(field(&form, "role")) as i32,
    };
    match state
        .core
        .clone()
        .create_invitation(signed.request(message, Some(field(&form, "csrf"))))
        .await
    {
        Ok(answer) => {
            let link = format!("{}/invitations/{}", state.root, answer.into_inner().token);
            members_view(&state, &signed, &workspace, Some(link), None).await
        }
        Err(status) => failure(&state, &status),
    }
}

async fn change_role(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, user)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let message = pb::UpdateMemberRoleRequest {
        workspace_id: workspace.clone(),
        user_id: user,
        role: role_in(field(&form, "role")) as i32,
    };
    let answer = state
        .core
        .clone()
        .update_member_role(signed.request(message, Some(field(&form, "csrf"))))
        .await;
    member_change_answer(&state, &signed, &workspace, answer.map(|_| ())).await
}

async fn remove_member(
    State(state): State<ConsoleState>,
    signed: Signed,
    Path((workspace, user)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    let message = pb::RemoveMemberRequest {
        workspace_id: workspace.clone(),
        user_id: user,
    };
    let answer = state
        .core
        .clone()
        .remove_member(signed.request(message, Some(field(&form, "csrf"))))
        .await;
    member_change_answer(&state, &signed, &workspace, answer.map(|_| ())).await
}

/// After a change of members: the page again, with the core's refusal
/// (the last owner) when there is one.
async fn member_change_answer(
    state: &ConsoleState,
    signed: &Signed,
    workspace: &str,
    answer: Result<(), tonic::Status>,
) -> Response {
    match answer {
        Ok(()) => Redirect::to(&format!("{}/w/{workspace}/members", state.root)).into_response(),
        Err(status) if status.code() == tonic::Code::FailedPrecondition => {
            members_view(state, signed, workspace, None, Some(status.message().to_owned())).await
        }
        Err(status) => failure(state, &status),
    }
}

#[derive(Template)]
#[template(path = "invitation.html")]
struct InvitationPage {
    layout: Layout,
    token: String,
    workspace_name: String,
    role: &'static str,
    name: String,
    email: String,
    refusal: Option<Refusal>,
}

impl InvitationPage {
    fn field_error(&self, field: &str) -> Option<&str> {
        self.refusal.as_ref().and_then(|r| r.at(field))
    }
}

async fn invitation_view(
    state: &ConsoleState,
    token: String,
    name: String,
    email: String,
    refusal: Option<Refusal>,
) -> Response {
    let request = pb::GetInvitationRequest { token: token.clone() };
    let invitation = match state.core.clone().get_invitation(request).await {
        Ok(answer) => answer.into_inner().invitation.unwrap_or_default(),
        Err(status) => return failure(state, &status),
    };
    let mut layout = bare_layout(state, "Join a workspace");
    if let Some(refusal) = refusal.as_ref().filter(|r| r.param.is_none()) {
        layout.error = Some(refusal.message.clone());
    }
    let status = if refusal.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    render(
        InvitationPage {
            layout,
            token,
            workspace_name: invitation.workspace_name.clone(),
            role: role_name(invitation.role()),
            name,
            email,
            refusal,
        },
        status,
    )
}

async fn invitation_page(State(state): State<ConsoleState>, Path(token): Path<String>) -> Response {
    invitation_view(&state, token, String::new(), String::new(), None).await
}

async fn accept_invitation(State(state): State<ConsoleState>, Path(token): Path<String>, body: Bytes) -> Response {
    let form = fields(&body);
    let (name, email) = (field(&form, "name").to_owned(), field(&form, "email").to_owned());
    let account = pb::NewAccount {
        email: email.clone(),
        name: name.clone(),
        password: field(&form, "password").to_owned(),
    };
    let request = pb::AcceptInvitationRequest {
        token: token.clone(),
        joiner: Some(pb::accept_invitation_request::Joiner::NewAccount(account)),
    };
    match state.core.clone().accept_invitation(request).await {
        Ok(_) => Redirect::to(&format!("{}/sign-in", state.root)).into_response(),
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::InvalidArgument | tonic::Code::FailedPrecondition
            ) =>
        {
            invitation_view(&state, token, name, email, Some(Refusal::of(&status))).await
        }
        Err(status) => failure(&state, &status),
    }
}
