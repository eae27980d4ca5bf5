//! What every console page shares: the signed-in session, the layout, the
//! core's refusals shown next to their field, and the forms' fields.

use askama::Template;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use courier::internal::v1 as pb;
use courier::metadata;

use crate::flash::Flash;
use crate::times::Zone;
use crate::{COOKIE, ConsoleState};

/// The parts of the layout every page shows.
pub(crate) struct Layout {
    pub(crate) title: String,
    pub(crate) root: String,
    pub(crate) user: Option<String>,
    /// The user is one of the platform's operators (the back office link).
    pub(crate) operator: bool,
    pub(crate) csrf: String,
    pub(crate) workspaces: Vec<WorkspaceLink>,
    pub(crate) workspace: Option<WorkspaceLink>,
    pub(crate) mode: &'static str,
    pub(crate) section: &'static str,
    pub(crate) error: Option<String>,
    /// What the last action did (`flash`), shown once.
    pub(crate) notice: Option<String>,
}

#[derive(Clone)]
pub(crate) struct WorkspaceLink {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) role: &'static str,
    pub(crate) manages: bool,
    /// A fleet workspace has a dispatch board.
    pub(crate) fleet: bool,
    pub(crate) current: bool,
}

pub(crate) use courier::errors::Refusal;
pub(crate) use courier::pages::{cookie, render};

/// The signed-in user's session, or a redirect to sign in.
#[derive(Clone)]
pub(crate) struct Signed {
    pub(crate) token: String,
    pub(crate) session: pb::ConsoleSession,
    /// What the action before this page left to say, once.
    pub(crate) flash: Option<Flash>,
}

impl Signed {
    pub(crate) async fn of(state: &ConsoleState, headers: &HeaderMap) -> Result<Signed, Response> {
        Signed::asking(state, headers, None, None).await
    }

    /// The session, or a redirect to sign in that comes back to the page
    /// `asked` for (a path of the console) once signed in.
    pub(crate) async fn asking(
        state: &ConsoleState,
        headers: &HeaderMap,
        asked: Option<&str>,
        workspace: Option<&str>,
    ) -> Result<Signed, Response> {
        let to_sign_in = || {
            let next = asked
                .map(|path| {
                    format!(
                        "?next={}",
                        url::form_urlencoded::byte_serialize(path.as_bytes()).collect::<String>()
                    )
                })
                .unwrap_or_default();
            Redirect::to(&format!("{}/sign-in{next}", state.root)).into_response()
        };
        let token = cookie(headers, COOKIE).ok_or_else(to_sign_in)?;
        let mut request = tonic::Request::new(pb::GetSessionRequest {
            workspace_id: workspace.unwrap_or_default().to_owned(),
        });
        authorize(&mut request, &token, None);
        match state.core.clone().get_session(request).await {
            Ok(answer) => Ok(Signed {
                flash: Flash::read(headers, &token),
                token,
                session: answer.into_inner().session.unwrap_or_default(),
            }),
            Err(status) if status.code() == tonic::Code::Unauthenticated => Err(to_sign_in()),
            Err(status) => Err(failure(state, &status)),
        }
    }

    /// `message` for the core on behalf of this session; `csrf` on changes.
    pub(crate) fn request<T>(&self, message: T, csrf: Option<&str>) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        authorize(&mut request, &self.token, csrf);
        request
    }

    /// `message` for a public service, acting in `workspace` with the data
    /// of `mode` on behalf of this session. The core checks the CSRF token on
    /// every such call: a form's own on a change (`csrf`), the session's on a
    /// read (`None`).
    pub(crate) fn acting<T>(&self, message: T, workspace: &str, mode: &str, csrf: Option<&str>) -> tonic::Request<T> {
        let mut request = self.request(message, Some(csrf.unwrap_or(&self.session.csrf_token)));
        let metadata = request.metadata_mut();
        for (name, value) in [(metadata::CONSOLE_WORKSPACE, workspace), (metadata::CONSOLE_MODE, mode)] {
            if let Ok(value) = value.parse() {
                metadata.insert(name, value);
            }
        }
        request
    }

    pub(crate) fn layout(
        &self,
        state: &ConsoleState,
        title: &str,
        workspace: Option<&str>,
        mode: &'static str,
    ) -> Layout {
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
                    fleet: m.workspace_kind() == pb::WorkspaceKind::Fleet,
                    current: workspace == Some(m.workspace_id.as_str()),
                }
            })
            .collect();
        Layout {
            title: title.to_owned(),
            root: state.root.clone(),
            user: self.session.user.as_ref().map(|u| u.email.clone()),
            operator,
            csrf: self.session.csrf_token.clone(),
            // An operator looking into a workspace of which they are no
            // member (support) gets its navigation too; the core allows it.
            workspace: workspaces.iter().find(|w| w.current).cloned().or_else(|| {
                workspace.filter(|_| operator).map(|id| {
                    let visiting = self.workspace(id);
                    WorkspaceLink {
                        id: id.to_owned(),
                        name: visiting.map_or_else(|| id.to_owned(), |v| v.workspace_name.clone()),
                        role: "operator",
                        manages: true,
                        fleet: visiting.is_some_and(|v| v.workspace_kind() == pb::WorkspaceKind::Fleet),
                        current: true,
                    }
                })
            }),
            workspaces,
            mode,
            section: "",
            error: None,
            notice: self
                .flash
                .as_ref()
                .map(|flash| flash.notice.clone())
                .filter(|notice| !notice.is_empty()),
        }
    }

    /// The zone the pages of `workspace` show their times in: the one the
    /// core names for the workspace (its service area's; also on an
    /// operator's support visit), or for pages of no workspace (the back
    /// office) the platform's.
    pub(crate) fn zone(&self, workspace: Option<&str>) -> Zone {
        let named = workspace
            .and_then(|id| self.workspace(id))
            .map_or(self.session.time_zone.as_str(), |m| m.time_zone.as_str());
        Zone::named(named)
    }

    /// Workspace `id` as the session names it: a membership, or the
    /// workspace an operator visits.
    fn workspace(&self, id: &str) -> Option<&pb::WorkspaceMembership> {
        self.session
            .memberships
            .iter()
            .chain(self.session.visiting.as_ref())
            .find(|m| m.workspace_id == id)
    }

    /// A `303` to `to` that says `flash` there, once.
    pub(crate) fn redirect_with(&self, flash: Flash, to: &str) -> Response {
        flash.redirect(&self.token, to)
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
        // A page asked for by link comes back after signing in; a form sent
        // without a session does not (it would be sent again).
        // The address as the browser asked for it (a router nested under
        // `/console` sees it without that prefix).
        let uri = parts
            .extensions
            .get::<axum::extract::OriginalUri>()
            .map_or(&parts.uri, |original| &original.0);
        let asked = (parts.method == axum::http::Method::GET)
            .then(|| uri.path_and_query().map(|p| p.as_str()))
            .flatten();
        Signed::asking(state, &parts.headers, asked, workspace_in(uri.path())).await
    }
}

/// The workspace a console path is about (`…/w/{workspace}/…`), if any.
fn workspace_in(path: &str) -> Option<&str> {
    let mut segments = path.split('/');
    segments.find(|segment| *segment == "w")?;
    segments.next().filter(|id| !id.is_empty())
}

pub(crate) fn authorize<T>(request: &mut tonic::Request<T>, token: &str, csrf: Option<&str>) {
    if let Ok(value) = token.parse() {
        request.metadata_mut().insert(metadata::CONSOLE_SESSION, value);
    }
    if let Some(Ok(value)) = csrf.map(str::parse) {
        request.metadata_mut().insert(metadata::CSRF_TOKEN, value);
    }
}

pub(crate) fn role_name(role: pb::MemberRole) -> &'static str {
    match role {
        pb::MemberRole::Owner => "owner",
        pb::MemberRole::Admin => "admin",
        _ => "member",
    }
}

pub(crate) fn role_in(name: &str) -> pb::MemberRole {
    match name {
        "owner" => pb::MemberRole::Owner,
        "admin" => pb::MemberRole::Admin,
        "member" => pb::MemberRole::Member,
        _ => pb::MemberRole::Unspecified,
    }
}

/// The form fields of a body, in order (a field may repeat).
pub(crate) fn fields(body: &Bytes) -> Vec<(String, String)> {
    url::form_urlencoded::parse(body).into_owned().collect()
}

pub(crate) fn field<'a>(fields: &'a [(String, String)], name: &str) -> &'a str {
    fields
        .iter()
        .find(|(key, _)| key == name)
        .map_or("", |(_, value)| value.as_str())
}

/// The one confirmation of a destructive action (docs/console.md
/// "Destructive actions"): a ticked "Yes, …" box named `confirm` in the
/// action's own form. Without it, the refusal to show at that box, and
/// nothing is done.
pub(crate) fn unconfirmed(fields: &[(String, String)], action: &str) -> Option<Refusal> {
    (field(fields, "confirm") != "yes").then(|| Refusal {
        param: Some("confirm".into()),
        message: format!("Tick \u{201c}Yes\u{201d} to {action}; nothing was done."),
    })
}

#[derive(serde::Deserialize)]
pub(crate) struct ModeQuery {
    pub(crate) mode: Option<String>,
}

impl ModeQuery {
    pub(crate) fn mode(&self) -> &'static str {
        mode_named(self.mode.as_deref())
    }
}

/// The mode a query names: `live` when it says so, `test` otherwise.
pub(crate) fn mode_named(name: Option<&str>) -> &'static str {
    if name == Some("live") { "live" } else { "test" }
}

/// A next page's token as it goes into a link, or `None` on the last page.
pub(crate) fn next_page(token: &str) -> Option<String> {
    (!token.is_empty()).then(|| url::form_urlencoded::byte_serialize(token.as_bytes()).collect())
}

#[derive(Template)]
#[template(path = "message.html")]
pub(crate) struct MessagePage {
    pub(crate) layout: Layout,
    pub(crate) message: String,
}

pub(crate) fn bare_layout(state: &ConsoleState, title: &str) -> Layout {
    Layout {
        title: title.to_owned(),
        root: state.root.clone(),
        user: None,
        operator: false,
        csrf: String::new(),
        workspaces: Vec::new(),
        workspace: None,
        mode: "test",
        section: "",
        error: None,
        notice: None,
    }
}

impl Signed {
    /// [`failure`] for a signed-in user, with the navigation of `workspace`
    /// kept, so that the user can go on from the page.
    pub(crate) fn failure(&self, state: &ConsoleState, status: &tonic::Status, workspace: &str) -> Response {
        let (http, title, message) = failure_words(status);
        let layout = self.layout(state, title, Some(workspace), "test");
        render(MessagePage { layout, message }, http)
    }
}

/// A page for a core answer the console cannot act on (the core is down, a
/// workspace is not the user's, …), with the core's words.
pub(crate) fn failure(state: &ConsoleState, status: &tonic::Status) -> Response {
    let (http, title, message) = failure_words(status);
    render(
        MessagePage {
            layout: bare_layout(state, title),
            message,
        },
        http,
    )
}

/// The HTTP status, title and message of a core answer's page.
fn failure_words(status: &tonic::Status) -> (StatusCode, &'static str, String) {
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
    (http, title, message)
}
