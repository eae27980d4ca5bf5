//! Who is calling ([`Actor`]), read once per request from its metadata by
//! [`authenticate`] (run by the server's `caller` layer, which keeps the
//! [`Caller`] in the request), and what a handler asks of it: [`grant`] for
//! an action in a workspace, [`api`] for the public API's caller
//! ([`Principal`]), [`console`] for a console session's own calls. No
//! request type is named here: the server hands over what it read.

use std::sync::Arc;

use std::net::IpAddr;

use courier::metadata;

use crate::couriers::Courier;
use crate::{Core, CoreError, CoreResult};
use courier::errors::ErrorCode;
use courier_identity::access::methods::{Credential, Method};
use courier_identity::access::{
    Act, Action, Decision, Granted, Permission, Permissions, ServiceRole, Standing, decide, refusal,
};
use courier_identity::accounts::{User, memberships};
use courier_identity::auth::service_token::{self, Holder};
use courier_identity::auth::{self, Credentials, Mode, Principal};
use courier_identity::sessions::{self, Session};
use courier_identity::workspaces;

/// Every kind of caller.
#[derive(Debug)]
pub enum Actor {
    /// No credential (the keyless methods).
    Anonymous,
    /// A public API key: its workspace, mode and permissions.
    Key(Principal),
    /// A signed-in console user; their role is their membership's in the
    /// workspace an action is about.
    User(ConsoleCaller),
    /// A console user who is one of the platform's operators.
    Operator(ConsoleCaller),
    /// An internal system with a service token: its role and subject.
    Service { role: ServiceRole, subject: String },
    /// The operator's command line (`courier-core …`), by the OS user
    /// who ran it.
    CommandLine { os_user: String },
    /// A courier signed in to the courier app; what they may touch beyond
    /// their own session is their own jobs, which `jobs` checks.
    Courier(CourierCaller),
}

/// A courier app session as a call presents it.
#[derive(Debug)]
pub struct CourierCaller {
    pub session: Session<Courier>,
    /// The session's token.
    pub token: String,
}

/// A console session as a call presents it.
#[derive(Debug)]
pub struct ConsoleCaller {
    pub session: Session<User>,
    /// The session's token.
    pub token: String,
    /// On the public services: the workspace and mode the page acts in.
    pub acting: Option<Acting>,
}

/// Where a console page acts through the public API.
#[derive(Clone, Debug)]
pub struct Acting {
    pub workspace_id: String,
    pub mode: Mode,
}

impl Actor {
    /// How the audit log and a board order's history name the actor.
    pub fn label(&self) -> String {
        match self {
            Actor::Anonymous => "anonymous".to_owned(),
            Actor::Key(principal) => format!("key:{}", principal.workspace.id),
            Actor::User(console) => format!("user:{}", console.session.subject.email),
            Actor::Operator(console) => format!("operator:{}", console.session.subject.email),
            Actor::Service { subject, .. } => format!("service:{subject}"),
            Actor::CommandLine { os_user } => format!("cli:{os_user}"),
            Actor::Courier(courier) => format!("courier:{}", courier.session.subject.id),
        }
    }

    /// Whether this actor's changes go to the audit log: the platform's
    /// (operators, service systems, the command line), not a workspace's
    /// own users' and keys'.
    fn audited(&self) -> bool {
        matches!(
            self,
            Actor::Operator(_) | Actor::Service { .. } | Actor::CommandLine { .. }
        )
    }

    /// What this actor is to `workspace_id` (`None`: an action about no
    /// one workspace).
    async fn standing(&self, core: &Core, workspace_id: Option<&str>) -> CoreResult<Standing> {
        Ok(match self {
            Actor::Anonymous => Standing::Anonymous,
            Actor::Key(principal) => Standing::Key(Permissions::of(&principal.permissions)),
            Actor::Operator(_) => Standing::Operator,
            Actor::User(console) => match workspace_id {
                Some(workspace_id) => memberships::role_of(&core.db, workspace_id, &console.session.subject.id)
                    .await?
                    .map_or(Standing::Outsider, Standing::Member),
                None => Standing::Outsider,
            },
            Actor::Service { role, .. } => Standing::Service(*role),
            Actor::CommandLine { .. } => Standing::CommandLine,
            Actor::Courier(_) => Standing::Courier,
        })
    }
}

/// The caller of one request, as the layer read it: who, and the method's
/// needs.
#[derive(Clone, Debug)]
pub struct Caller {
    pub actor: Arc<Actor>,
    pub method: &'static Method,
}

/// Reads who calls `method` from the request's `header`s: the credential
/// the method reads ([`Method::credential`]), checked (a key known and
/// usable, a session open and, where the method needs it, its CSRF token
/// presented, a service token signed and unexpired). What the caller may
/// do is asked later, of [`grant`] or [`api`].
pub async fn authenticate(core: &Core, method: &Method, header: impl Fn(&str) -> Option<String>) -> CoreResult<Actor> {
    let session = header(metadata::CONSOLE_SESSION);
    match method.credential() {
        Credential::Nothing => Ok(Actor::Anonymous),
        Credential::Front => Ok(
            match service_token::verify(&core.secrets.service_token, header(metadata::AUTHORIZATION).as_deref()) {
                Ok(Holder::Service {
                    role: ServiceRole::Front,
                    subject,
                }) => Actor::Service {
                    role: ServiceRole::Front,
                    subject,
                },
                _ => Actor::Anonymous,
            },
        ),
        Credential::Key => match session {
            Some(token) => {
                let acting = Acting {
                    workspace_id: header(metadata::CONSOLE_WORKSPACE).unwrap_or_default(),
                    mode: header(metadata::CONSOLE_MODE)
                        .as_deref()
                        .and_then(Mode::parse)
                        .ok_or_else(|| CoreError::invalid("x-console-mode", "x-console-mode must be test or live."))?,
                };
                signed_in(core, method, token, header(metadata::CSRF_TOKEN), Some(acting)).await
            }
            None => {
                let credentials = Credentials {
                    api_key: header(metadata::API_KEY),
                    authorization: header(metadata::AUTHORIZATION),
                };
                let now = core.clock.now_micros();
                let principal = auth::authenticate(&core.db, &core.writer, &core.keys, now, &credentials).await?;
                Ok(Actor::Key(principal))
            }
        },
        Credential::Session => {
            signed_in(
                core,
                method,
                session.unwrap_or_default(),
                header(metadata::CSRF_TOKEN),
                None,
            )
            .await
        }
        Credential::SessionOrService => match session {
            Some(token) => signed_in(core, method, token, header(metadata::CSRF_TOKEN), None).await,
            None => bearer(core, header(metadata::AUTHORIZATION)),
        },
        Credential::Service => bearer(core, header(metadata::AUTHORIZATION)),
        Credential::Courier => {
            let token = header(metadata::AUTHORIZATION)
                .and_then(|value| {
                    let (scheme, token) = value.trim().split_once(' ')?;
                    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_owned())
                })
                .filter(|token| !token.is_empty())
                .ok_or_else(|| {
                    CoreError::new(
                        ErrorCode::InvalidCourierSession,
                        "Sign in first: send the session token as authorization: Bearer <token>.",
                    )
                })?;
            let session = sessions::authenticate::<Courier>(core, &token).await?;
            Ok(Actor::Courier(CourierCaller { session, token }))
        }
    }
}

async fn signed_in(
    core: &Core,
    method: &Method,
    token: String,
    csrf: Option<String>,
    acting: Option<Acting>,
) -> CoreResult<Actor> {
    let session = sessions::authenticate::<User>(core, &token).await?;
    if method.needs_csrf() {
        sessions::check_csrf(&session, csrf.as_deref())?;
    }
    let operator = session.subject.operator;
    let console = ConsoleCaller { session, token, acting };
    Ok(if operator {
        Actor::Operator(console)
    } else {
        Actor::User(console)
    })
}

fn bearer(core: &Core, authorization: Option<String>) -> CoreResult<Actor> {
    Ok(
        match service_token::verify(&core.secrets.service_token, authorization.as_deref())? {
            Holder::Service { role, subject } => Actor::Service { role, subject },
            Holder::CommandLine { os_user } => Actor::CommandLine { os_user },
        },
    )
}

/// The address a sign-in attempt is counted against (docs/access.md,
/// "Sign-in throttle"): the `claimed` visitor's address when a web front (a
/// service token of role `front`) sends it, else the connection's `peer`;
/// what any other caller claims is ignored.
pub fn sign_in_address(caller: &Caller, peer: Option<IpAddr>, claimed: &str) -> CoreResult<String> {
    let caller = caller.asking(|action| action == Action::SignIn)?;
    let front = matches!(
        *caller.actor,
        Actor::Service {
            role: ServiceRole::Front,
            ..
        }
    );
    let claimed = claimed.trim();
    Ok(if front && !claimed.is_empty() {
        claimed.to_owned()
    } else {
        peer.map(|ip| ip.to_canonical().to_string()).unwrap_or_default()
    })
}

impl Caller {
    /// This caller, for a handler asking for an `action` the table gives
    /// its method; an internal error for a handler asking for another.
    fn asking(&self, action: impl Fn(Action) -> bool) -> CoreResult<&Caller> {
        if !action(self.method.action) {
            return Err(CoreError::Internal(format!(
                "{} is {:?} in the access table; its handler asked for another action",
                self.method.path, self.method.action
            )));
        }
        Ok(self)
    }
}

/// Checks that `caller` may do `A` in `workspace_id`
/// (`None`: an action about no one workspace). A caller who may not see
/// the workspace is told that `hidden` (such as "workspace" or
/// "statement") does not exist.
pub async fn grant<A: Act>(
    core: &Core,
    caller: &Caller,
    workspace_id: Option<&str>,
    hidden: &str,
) -> CoreResult<Granted<A>> {
    let caller = caller.asking(|action| action == A::ACTION)?;
    let actor = &caller.actor;
    let standing = actor.standing(core, workspace_id).await?;
    Granted::decided(standing, actor.label(), actor.audited(), workspace_id, hidden)
}

/// Whether `caller` may do `A` in `workspace_id`, for a method that only
/// shows what a page is about (no grant: nothing is done with it). Any
/// failure to tell is `false`.
pub async fn could<A: Act>(core: &Core, caller: &Caller, workspace_id: &str) -> bool {
    match caller.actor.standing(core, Some(workspace_id)).await {
        Ok(standing) => matches!(decide(standing, A::ACTION), Decision::Allow),
        Err(_) => false,
    }
}

/// The public API's `caller` as a [`Principal`] when it may use
/// `permission` (`None`: any valid caller of the workspace), after `admit`,
/// the endpoint's own checks of the caller, run before the permission's
/// (the fleet checks, docs/guide.md "Fleet orders"). No handler reaches a
/// public domain function without its [`Principal`], checked here for the
/// method's action.
pub async fn api(
    core: &Core,
    caller: &Caller,
    permission: Option<Permission>,
    admit: impl FnOnce(&Principal) -> CoreResult<()>,
) -> CoreResult<Principal> {
    let action = permission.map_or(Action::UseApi, Action::Api);
    let caller = caller.asking(|table| table == action)?;
    let actor = &caller.actor;
    let (principal, standing) = match &**actor {
        Actor::Key(principal) => (
            principal.clone(),
            Standing::Key(Permissions::of(&principal.permissions)),
        ),
        Actor::User(console) | Actor::Operator(console) => acting_principal(core, actor, console).await?,
        _ => return Err(refusal(Decision::NotAccepted, "workspace")),
    };
    admit(&principal)?;
    match decide(standing, action) {
        Decision::Allow => Ok(principal),
        decision => Err(refusal(decision, "workspace")),
    }
}

/// The public API's caller for a console session acting in a workspace and
/// mode (docs/console.md, "The console acts through the API"): it holds the
/// permissions of the workspace's kind that the table gives the user's
/// standing (owners, admins and operators all, members the read ones), so a
/// page and an API call with such a key give the same answer. A workspace
/// the user does not belong to is `not_found`, as for keys of another
/// workspace. An operator's changes through it are audited.
async fn acting_principal(core: &Core, actor: &Actor, console: &ConsoleCaller) -> CoreResult<(Principal, Standing)> {
    let acting = console
        .acting
        .as_ref()
        .ok_or_else(|| CoreError::Internal("a console call to a public service without its workspace".into()))?;
    let standing = actor.standing(core, Some(&acting.workspace_id)).await?;
    if standing == Standing::Outsider {
        return Err(CoreError::not_found("workspace"));
    }
    let workspace = workspaces::get(&core.db, &acting.workspace_id).await?;
    auth::require_api_access(&workspace)?;
    let permissions = workspace
        .kind
        .permissions()
        .into_iter()
        .filter(|p| decide(standing, Action::Api(*p)) == Decision::Allow)
        .collect();
    let principal = Principal {
        workspace,
        mode: acting.mode,
        permissions,
        audited_as: actor.audited().then(|| actor.label()),
    };
    Ok((principal, standing))
}

/// The console session of `caller`: for a session's own calls
/// (`ConsoleService`: the session, sign-out, the password; every session
/// may make them), and for who made a granted change (an invitation's
/// author).
pub fn console(caller: &Caller) -> CoreResult<&ConsoleCaller> {
    let caller = caller.asking(|action| matches!(action, Action::OwnSession | Action::ManageMembers))?;
    match &*caller.actor {
        Actor::User(console) | Actor::Operator(console) => Ok(console),
        _ => Err(CoreError::Internal("a session's call without a session".into())),
    }
}

/// The courier app session of `caller`: for a courier's own calls
/// (`CourierAppService`); what jobs they may touch, `jobs` checks.
pub fn courier(caller: &Caller) -> CoreResult<&CourierCaller> {
    let caller = caller.asking(|action| action == Action::OwnWork)?;
    match &*caller.actor {
        Actor::Courier(courier) => Ok(courier),
        _ => Err(CoreError::Internal("a courier's call without a courier session".into())),
    }
}

#[cfg(test)]
mod tests;
