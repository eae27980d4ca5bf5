//! Who may do what (docs/access.md): the vocabulary of access (the public
//! API's permissions, the console's roles, the service roles), the one
//! table that answers "may a caller of this standing do this action"
//! ([`decide`]), and the proof that a caller was checked for an action
//! ([`Granted`]), which every audited domain write takes.
//!
//! This module sits below the domain modules it guards: it reads nothing.
//! Above them, `courier_core::caller` reads who is calling (an API key, a
//! console session, a courier's session, a service token) and their
//! standing in a workspace, and grants through [`Granted::decided`], the
//! only way to a grant; [`methods`] says what each gRPC method needs; the
//! server's `caller` layer reads the caller of every gRPC request once,
//! before its handler runs.

pub mod methods;

use std::marker::PhantomData;

use courier::errors::ErrorCode;
use sea_orm::ConnectionTrait;

use crate::audit;
pub use crate::auth::service_token::Role as ServiceRole;
use courier_store::{CoreError, CoreResult, Store};

/// A public API permission (docs/guide.md "Authentication").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Permission {
    QuotesCreate,
    DeliveriesRead,
    DeliveriesWrite,
    WebhooksManage,
    FleetOrdersCreate,
    FleetOrdersRead,
}

impl Permission {
    pub const ALL: [Permission; 6] = [
        Permission::QuotesCreate,
        Permission::DeliveriesRead,
        Permission::DeliveriesWrite,
        Permission::WebhooksManage,
        Permission::FleetOrdersCreate,
        Permission::FleetOrdersRead,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Permission::QuotesCreate => "quotes:create",
            Permission::DeliveriesRead => "deliveries:read",
            Permission::DeliveriesWrite => "deliveries:write",
            Permission::WebhooksManage => "webhooks:manage",
            Permission::FleetOrdersCreate => "fleet_orders:create",
            Permission::FleetOrdersRead => "fleet_orders:read",
        }
    }

    pub fn parse(text: &str) -> Option<Permission> {
        Permission::ALL.into_iter().find(|p| p.as_str() == text)
    }

    /// Offered only to keys of fleet workspaces.
    pub fn fleet_only(self) -> bool {
        matches!(self, Permission::FleetOrdersCreate | Permission::FleetOrdersRead)
    }

    /// Changes nothing: what a console member holds.
    pub fn reads_only(self) -> bool {
        matches!(self, Permission::DeliveriesRead | Permission::FleetOrdersRead)
    }
}

/// A console user's role in a workspace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Member,
    Admin,
    Owner,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Member, Role::Admin, Role::Owner];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Admin => "admin",
            Role::Member => "member",
        }
    }

    pub fn parse(text: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|role| role.as_str() == text)
    }

    /// Owners and admins manage keys, webhooks and members.
    pub fn manages(self) -> bool {
        self >= Role::Admin
    }
}

/// What a caller may be asked to do. Each gRPC method does one action
/// ([`methods::METHODS`]); the public API's actions are its permissions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Keyless: the request carries its own capability (a signed link, a
    /// tracking token, an invitation token).
    Public,
    /// A password tried (sign-in, joining with an existing account): open
    /// to anyone, throttled; a web front's service token makes the core
    /// believe the `client_address` it names.
    SignIn,
    /// Any valid key of the workspace (the vehicle types).
    UseApi,
    /// The public API behind one permission.
    Api(Permission),
    /// A signed-in console user's own session: read it, sign out, change
    /// the password.
    OwnSession,
    /// List a workspace's members.
    ReadMembers,
    /// Invite, change roles, remove members.
    ManageMembers,
    /// List, create and revoke a workspace's API keys from the console.
    ManageKeys,
    /// A workspace's billing state, billable deliveries and statements.
    ReadBilling,
    /// Change billing settings; close, pay and void statements.
    ManageBilling,
    /// A fleet's dispatch board and an order's history.
    ReadBoard,
    /// Move an order on a fleet's dispatch board.
    MoveBoardOrders,
    /// Live dispatch: open jobs, and a courier's moves on them.
    Dispatch,
    /// The back office: workspaces, plans, keys, users and the audit log.
    Administer,
    /// List and read couriers (the platform's, or a fleet's drivers).
    ReadCouriers,
    /// Invite, change, suspend and reactivate couriers.
    ManageCouriers,
    /// Give a job to a courier by hand; publish a plan.
    AssignJobs,
    /// Plan a fleet's day (a proposal: nothing changes hands).
    PlanRoutes,
    /// A workspace's notification settings and test inbox.
    ReadNotifications,
    /// Change a workspace's notification settings.
    ManageNotifications,
    /// A workspace's reports (docs/reports.md); with no workspace, the
    /// platform's.
    ReadReports,
    /// A courier's own session and jobs in the courier app.
    OwnWork,
}

/// What a caller is to the workspace an action is about: the row of the
/// access table (docs/access.md) that answers for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// No credential.
    Anonymous,
    /// An API key of the workspace holding these permissions.
    Key(Permissions),
    /// A console user who belongs to the workspace with this role.
    Member(Role),
    /// A console user who does not belong to the workspace (or, for an
    /// action about no workspace, any user who is no operator).
    Outsider,
    /// A console user who is one of the platform's operators.
    Operator,
    /// An internal system with a service token of this role.
    Service(ServiceRole),
    /// The operator's command line on the core's machine.
    CommandLine,
    /// A courier signed in to the courier app.
    Courier,
}

/// A set of [`Permission`]s, as a key holds them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Permissions(u8);

impl Permissions {
    pub fn of(permissions: &[Permission]) -> Permissions {
        Permissions(permissions.iter().fold(0, |set, p| set | Permissions::bit(*p)))
    }

    pub fn holds(self, permission: Permission) -> bool {
        self.0 & Permissions::bit(permission) != 0
    }

    fn bit(permission: Permission) -> u8 {
        let index = Permission::ALL.iter().position(|p| *p == permission).unwrap_or(0);
        1 << index
    }
}

/// The table's answer for one standing and action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Allow,
    /// `403 permission_denied`, with the reason.
    Deny(String),
    /// `404 not_found`: the workspace is not the caller's to see.
    Hide,
    /// The method does not read this kind of credential at all; the caller
    /// is refused as unauthenticated before any rule applies (docs/access.md,
    /// "Credentials").
    NotAccepted,
}

const OWNERS_AND_ADMINS: &str = "Only the workspace's owners and admins can do this.";
const OPERATORS: &str = "Only the platform's operators can do this.";

/// The access table: whether a caller of `standing` may do `action`.
/// docs/access.md shows it whole, and the end-to-end test
/// `access_table` tries every cell of that page over gRPC.
pub fn decide(standing: Standing, action: Action) -> Decision {
    use Action as A;
    use Decision::{Allow, Hide, NotAccepted};
    use Standing as S;
    let deny = |reason: &str| Decision::Deny(reason.to_owned());
    let service_needs =
        |needed: ServiceRole| Decision::Deny(format!("This service needs a {} service token.", needed.as_str()));
    // The service role of each internal action; `admin` may do them all.
    let service_role = match action {
        A::ReadBilling | A::ManageBilling => Some(ServiceRole::Billing),
        A::ReadBoard
        | A::MoveBoardOrders
        | A::Dispatch
        | A::ReadCouriers
        | A::ManageCouriers
        | A::AssignJobs
        | A::PlanRoutes => Some(ServiceRole::Dispatch),
        A::Administer | A::ReadNotifications | A::ManageNotifications | A::ReadReports => Some(ServiceRole::Admin),
        _ => None,
    };
    match (standing, action) {
        (_, A::Public | A::SignIn) => Allow,

        (S::Courier, A::OwnWork) => Allow,
        (S::Courier, _) | (_, A::OwnWork) => NotAccepted,

        (S::Key(_), A::UseApi) => Allow,
        (S::Key(held), A::Api(permission)) if held.holds(permission) => Allow,
        (S::Key(_), A::Api(permission)) => {
            Decision::Deny(format!("This API key lacks the {} permission.", permission.as_str()))
        }
        (S::Key(_), _) => NotAccepted,

        (S::Service(role), _) => match service_role {
            Some(needed) if role == needed || role == ServiceRole::Admin => Allow,
            Some(needed) => service_needs(needed),
            None => NotAccepted,
        },
        (
            S::CommandLine,
            A::Administer | A::ReadBilling | A::ManageBilling | A::ReadCouriers | A::ManageCouriers | A::PlanRoutes,
        ) => Allow,
        (S::CommandLine, _) => match service_role {
            Some(needed) => service_needs(needed),
            None => NotAccepted,
        },

        (S::Member(_) | S::Outsider | S::Operator, A::Dispatch) => NotAccepted,
        (S::Member(_) | S::Outsider | S::Operator, A::OwnSession) => Allow,
        (S::Operator, _) => Allow,
        (S::Member(_) | S::Outsider, A::Administer) => deny(OPERATORS),
        (S::Outsider, _) => Hide,
        (
            S::Member(_),
            A::UseApi | A::ReadMembers | A::ReadBilling | A::ReadBoard | A::ReadCouriers | A::ReadNotifications,
        ) => Allow,
        (S::Member(role), A::Api(permission)) if role.manages() || permission.reads_only() => Allow,
        (
            S::Member(role),
            A::ManageMembers
            | A::ManageKeys
            | A::MoveBoardOrders
            | A::ManageCouriers
            | A::AssignJobs
            | A::PlanRoutes
            | A::ManageNotifications
            | A::ReadReports,
        ) if role.manages() => Allow,
        (
            S::Member(_),
            A::Api(_)
            | A::ManageMembers
            | A::ManageKeys
            | A::MoveBoardOrders
            | A::ManageCouriers
            | A::AssignJobs
            | A::PlanRoutes
            | A::ManageNotifications
            | A::ReadReports,
        ) => deny(OWNERS_AND_ADMINS),
        (S::Member(_), A::ManageBilling) => deny(OPERATORS),

        (S::Anonymous, _) => NotAccepted,
    }
}

/// An action as a type, so that a domain write can name the action its
/// caller must have been granted ([`Granted`]).
pub trait Act {
    const ACTION: Action;
}

/// The actions of the internal services, as types.
pub mod act {
    use super::{Act, Action};

    macro_rules! acts {
        ($($name:ident),* $(,)?) => {$(
            #[derive(Debug)]
            pub struct $name;
            impl Act for $name {
                const ACTION: Action = Action::$name;
            }
        )*};
    }

    acts!(
        ReadMembers,
        ManageMembers,
        ManageKeys,
        ReadBilling,
        ManageBilling,
        ReadBoard,
        MoveBoardOrders,
        Dispatch,
        Administer,
        ReadCouriers,
        ManageCouriers,
        AssignJobs,
        PlanRoutes,
        ReadNotifications,
        ManageNotifications,
        ReadReports,
        OwnWork
    );
}

/// The actions that may create and revoke a workspace's keys: the back
/// office's and a workspace's owners' and admins'.
pub trait ManagesKeys: Act {}
impl ManagesKeys for act::Administer {}
impl ManagesKeys for act::ManageKeys {}

/// Proof that a caller was checked for action `A`: made only by
/// [`caller::grant`] (and [`caller::command_line`]) after [`decide`]
/// allowed it. A domain write that takes one acts only where it was
/// granted ([`Granted::covers`]) and writes its audit entry with it, in its
/// own transaction ([`Granted::record`]).
#[derive(Debug)]
pub struct Granted<A> {
    /// How the audit log and a board order's history name the caller.
    actor: String,
    /// The workspace the grant is for; `None`: every workspace (the back
    /// office, the command line, service systems).
    workspace_id: Option<String>,
    /// Whether this caller's changes are audited: operators', service
    /// systems' and the command line's are; a workspace's own users' are
    /// not (docs/access.md, "Audit").
    audited: bool,
    action: PhantomData<A>,
}

impl<A: Act> Granted<A> {
    /// `A` granted to a caller of `standing`, whom the audit log names
    /// `actor` (and audits when `audited`), in `workspace_id` (`None`: about
    /// no one workspace), when the table allows it ([`decide`]); else its
    /// refusal, `hidden` naming what a caller who may not see the workspace
    /// is told does not exist. The only way to a grant.
    pub fn decided(
        standing: Standing,
        actor: String,
        audited: bool,
        workspace_id: Option<&str>,
        hidden: &str,
    ) -> CoreResult<Granted<A>> {
        match decide(standing, A::ACTION) {
            Decision::Allow => Ok(Granted {
                actor,
                workspace_id: workspace_id.map(str::to_owned),
                audited,
                action: PhantomData,
            }),
            decision => Err(refusal(decision, hidden)),
        }
    }

    /// The caller, as the audit log names it (`user:<email>`,
    /// `operator:<email>`, `service:<subject>`, `cli:<os user>`).
    pub fn actor(&self) -> &str {
        &self.actor
    }

    /// `Ok` when the grant covers `workspace_id`; a domain write acting
    /// elsewhere is a bug in its caller.
    pub fn covers(&self, workspace_id: &str) -> CoreResult<()> {
        match &self.workspace_id {
            Some(granted) if granted != workspace_id => Err(CoreError::Internal(format!(
                "a grant of {:?} for {granted} used in {workspace_id}",
                A::ACTION
            ))),
            _ => Ok(()),
        }
    }

    /// Writes the audit entry of `change` on `tx`, the transaction of the
    /// change itself, when this caller's changes are audited.
    pub async fn record(&self, store: &Store, tx: &impl ConnectionTrait, change: audit::Change<'_>) -> CoreResult<()> {
        if let Some(workspace_id) = change.workspace_id {
            self.covers(workspace_id)?;
        }
        if self.audited {
            audit::record(store, tx, &self.actor, change).await?;
        }
        Ok(())
    }
}

/// The refusal of a [`Decision`] other than `Allow`; `hidden` names what a
/// caller who may not see the workspace is told does not exist.
pub fn refusal(decision: Decision, hidden: &str) -> CoreError {
    match decision {
        Decision::Allow => CoreError::Internal("an allowed action refused".into()),
        Decision::Deny(reason) => CoreError::new(ErrorCode::PermissionDenied, reason),
        Decision::Hide => CoreError::not_found(hidden),
        Decision::NotAccepted => CoreError::new(
            ErrorCode::PermissionDenied,
            "This kind of credential cannot call this method.",
        ),
    }
}

/// A grant of `A` to the command line run by the current OS user, for the
/// operator's `courier-core` commands; refused for the actions the command
/// line may not do.
pub fn command_line<A: Act>() -> CoreResult<Granted<A>> {
    Granted::decided(
        Standing::CommandLine,
        format!("cli:{}", os_user()),
        true,
        None,
        "workspace",
    )
}

/// Who runs this process, as the audit log names a command-line change:
/// the login (`USER`, `LOGNAME`), else the account of the process's user
/// id (`/etc/passwd`; containers often set no login), else `uid <n>`.
pub fn os_user() -> String {
    if let Some(login) = ["USER", "LOGNAME"]
        .into_iter()
        .find_map(|name| std::env::var(name).ok().filter(|user| !user.is_empty()))
    {
        return login;
    }
    use std::os::unix::fs::MetadataExt;
    let Ok(uid) = std::fs::metadata("/proc/self").map(|process| process.uid()) else {
        return "unknown".to_owned();
    };
    let account = std::fs::read_to_string("/etc/passwd").ok().and_then(|passwd| {
        passwd.lines().find_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            (fields.get(2) == Some(&uid.to_string().as_str())).then(|| fields[0].to_owned())
        })
    });
    account.unwrap_or_else(|| format!("uid {uid}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permission_sets_hold_what_they_were_made_of() {
        let set = Permissions::of(&[Permission::DeliveriesRead, Permission::FleetOrdersRead]);
        for permission in Permission::ALL {
            assert_eq!(set.holds(permission), permission.reads_only(), "{permission:?}");
        }
        assert!(!Permissions::default().holds(Permission::QuotesCreate));
    }

    #[test]
    fn members_read_owners_and_admins_manage_operators_do_all_but_dispatch() {
        for action in [Action::ManageKeys, Action::ManageMembers, Action::MoveBoardOrders] {
            assert!(matches!(
                decide(Standing::Member(Role::Member), action),
                Decision::Deny(_)
            ));
            assert_eq!(decide(Standing::Member(Role::Admin), action), Decision::Allow);
            assert_eq!(decide(Standing::Member(Role::Owner), action), Decision::Allow);
            assert_eq!(decide(Standing::Outsider, action), Decision::Hide);
        }
        assert_eq!(decide(Standing::Operator, Action::ManageBilling), Decision::Allow);
        assert_eq!(decide(Standing::Operator, Action::Dispatch), Decision::NotAccepted);
        assert!(matches!(
            decide(Standing::Member(Role::Owner), Action::ManageBilling),
            Decision::Deny(_)
        ));
    }

    #[test]
    fn service_roles_do_their_own_actions_and_admin_all() {
        let billing = Standing::Service(ServiceRole::Billing);
        assert_eq!(decide(billing, Action::ManageBilling), Decision::Allow);
        assert_eq!(
            decide(billing, Action::Dispatch),
            Decision::Deny("This service needs a dispatch service token.".into())
        );
        for action in [
            Action::ReadBilling,
            Action::ReadBoard,
            Action::Dispatch,
            Action::Administer,
        ] {
            assert_eq!(decide(Standing::Service(ServiceRole::Admin), action), Decision::Allow);
        }
        assert_eq!(decide(billing, Action::ReadMembers), Decision::NotAccepted);
    }
}
