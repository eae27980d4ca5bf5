//! What each gRPC method needs: the action it does (so the rule of
//! [`decide`](super::decide) that answers for it), and whether it changes
//! something (a console session's changes carry the session's CSRF token).
//! The credential a method reads follows from its action ([`Credential`]).
//! Every method of the public and internal services is here; a method
//! missing from the table reaches its handler with no caller, and the
//! handler refuses it.

use super::{Action, Permission};

/// The kind of credential a method reads from the request's metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Credential {
    /// None: whatever the request carries is ignored.
    Nothing,
    /// None, but a web front's service token (role `front`, in
    /// `authorization: Bearer`) is noted; anything else is ignored.
    Front,
    /// A public API key (`x-api-key` or `authorization: Bearer`), or a
    /// console session acting in a workspace and mode
    /// (`x-console-session`, `x-console-workspace`, `x-console-mode`, and
    /// the CSRF token on every call).
    Key,
    /// A console session (`x-console-session`).
    Session,
    /// A console session, or else a service token or the command line's
    /// token (`authorization: Bearer`).
    SessionOrService,
    /// A service token only.
    Service,
    /// A courier app session (`authorization: Bearer <courier session
    /// token>`).
    Courier,
}

/// One gRPC method's needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Method {
    /// `/package.Service/Method`.
    pub path: &'static str,
    pub action: Action,
    /// It changes something: a console session presents its CSRF token.
    pub changes: bool,
}

impl Method {
    pub fn credential(&self) -> Credential {
        match self.action {
            Action::Public => Credential::Nothing,
            Action::SignIn => Credential::Front,
            Action::UseApi | Action::Api(_) => Credential::Key,
            Action::OwnSession | Action::ReadMembers | Action::ManageMembers | Action::ManageKeys => {
                Credential::Session
            }
            Action::Dispatch => Credential::Service,
            Action::OwnWork => Credential::Courier,
            Action::ReadCouriers | Action::ManageCouriers | Action::AssignJobs | Action::PlanRoutes => {
                Credential::SessionOrService
            }
            Action::ReadNotifications | Action::ManageNotifications | Action::ReadReports => {
                Credential::SessionOrService
            }
            Action::ReadBilling
            | Action::ManageBilling
            | Action::ReadBoard
            | Action::MoveBoardOrders
            | Action::Administer => Credential::SessionOrService,
        }
    }

    /// Whether a console session calling this method must present its CSRF
    /// token: on every change, and on every call to a public service (a
    /// page acting through the API, docs/console.md).
    pub fn needs_csrf(&self) -> bool {
        self.changes || self.credential() == Credential::Key
    }
}

const fn read(path: &'static str, action: Action) -> Method {
    Method {
        path,
        action,
        changes: false,
    }
}

const fn change(path: &'static str, action: Action) -> Method {
    Method {
        path,
        action,
        changes: true,
    }
}

const DELIVERIES_READ: Action = Action::Api(Permission::DeliveriesRead);
const DELIVERIES_WRITE: Action = Action::Api(Permission::DeliveriesWrite);
const WEBHOOKS: Action = Action::Api(Permission::WebhooksManage);

/// Every method of `courier.v1` and `courier.internal.v1`, by service.
pub const METHODS: &[Method] = &[
    read("/courier.v1.VehicleTypeService/ListVehicleTypes", Action::UseApi),
    change(
        "/courier.v1.QuoteService/CreateQuote",
        Action::Api(Permission::QuotesCreate),
    ),
    change("/courier.v1.DeliveryService/CreateDelivery", DELIVERIES_WRITE),
    read("/courier.v1.DeliveryService/GetDelivery", DELIVERIES_READ),
    read("/courier.v1.DeliveryService/ListDeliveries", DELIVERIES_READ),
    change("/courier.v1.DeliveryService/CancelDelivery", DELIVERIES_WRITE),
    change("/courier.v1.DeliveryService/UpdateDelivery", DELIVERIES_WRITE),
    change("/courier.v1.DeliveryService/RedeliverDelivery", DELIVERIES_WRITE),
    change("/courier.v1.DeliveryService/BatchCreateDeliveries", DELIVERIES_WRITE),
    read(
        "/courier.v1.NotificationService/ListDeliveryNotifications",
        DELIVERIES_READ,
    ),
    read("/courier.v1.TrackingService/GetDeliveryTracking", DELIVERIES_READ),
    read("/courier.v1.TrackingService/GetProofOfDelivery", DELIVERIES_READ),
    read("/courier.v1.TrackingService/WatchDelivery", DELIVERIES_READ),
    read("/courier.v1.EventService/ListEvents", DELIVERIES_READ),
    read("/courier.v1.EventService/GetEvent", DELIVERIES_READ),
    read("/courier.v1.EventService/StreamEvents", DELIVERIES_READ),
    change("/courier.v1.WebhookService/CreateWebhookEndpoint", WEBHOOKS),
    read("/courier.v1.WebhookService/ListWebhookEndpoints", WEBHOOKS),
    change("/courier.v1.WebhookService/UpdateWebhookEndpoint", WEBHOOKS),
    change("/courier.v1.WebhookService/DeleteWebhookEndpoint", WEBHOOKS),
    change("/courier.v1.WebhookService/TestWebhookEndpoint", WEBHOOKS),
    change("/courier.v1.WebhookService/ReplayWebhookEndpoint", WEBHOOKS),
    read("/courier.v1.WebhookService/ListWebhookEndpointAttempts", WEBHOOKS),
    change(
        "/courier.v1.FleetOrderService/CreateFleetOrder",
        Action::Api(Permission::FleetOrdersCreate),
    ),
    read(
        "/courier.v1.FleetOrderService/GetFleetOrder",
        Action::Api(Permission::FleetOrdersRead),
    ),
    change(
        "/courier.v1.FleetOrderService/UpdateFleetOrder",
        Action::Api(Permission::FleetOrdersCreate),
    ),
    read("/courier.v1.PublicService/GetProofFile", Action::Public),
    read("/courier.v1.PublicService/GetCourierPhoto", Action::Public),
    read("/courier.v1.PublicService/GetPublicTracking", Action::Public),
    change("/courier.v1.PublicService/ReceiveSmsCallback", Action::Public),
    read("/courier.v1.PublicService/GetUnsubscribeLink", Action::Public),
    change("/courier.v1.PublicService/Unsubscribe", Action::Public),
    change("/courier.internal.v1.AdminService/CreateWorkspace", Action::Administer),
    read("/courier.internal.v1.AdminService/GetWorkspace", Action::Administer),
    read("/courier.internal.v1.AdminService/ListWorkspaces", Action::Administer),
    change(
        "/courier.internal.v1.AdminService/UpdateWorkspacePlan",
        Action::Administer,
    ),
    change("/courier.internal.v1.AdminService/CreateApiKey", Action::Administer),
    read("/courier.internal.v1.AdminService/ListApiKeys", Action::Administer),
    change("/courier.internal.v1.AdminService/RevokeApiKey", Action::Administer),
    read("/courier.internal.v1.AdminService/ListAuditEntries", Action::Administer),
    read(
        "/courier.internal.v1.BillingService/GetBillingState",
        Action::ReadBilling,
    ),
    change(
        "/courier.internal.v1.BillingService/UpdateBillingState",
        Action::ManageBilling,
    ),
    read(
        "/courier.internal.v1.BillingService/ListBillableDeliveries",
        Action::ReadBilling,
    ),
    change(
        "/courier.internal.v1.BillingService/CloseStatement",
        Action::ManageBilling,
    ),
    read(
        "/courier.internal.v1.BillingService/ListStatements",
        Action::ReadBilling,
    ),
    read("/courier.internal.v1.BillingService/GetStatement", Action::ReadBilling),
    change(
        "/courier.internal.v1.BillingService/MarkStatementPaid",
        Action::ManageBilling,
    ),
    change(
        "/courier.internal.v1.BillingService/VoidStatement",
        Action::ManageBilling,
    ),
    change("/courier.internal.v1.ConsoleService/SignIn", Action::SignIn),
    read("/courier.internal.v1.ConsoleService/GetSession", Action::OwnSession),
    read(
        "/courier.internal.v1.ConsoleService/ListServiceAreas",
        Action::OwnSession,
    ),
    change("/courier.internal.v1.ConsoleService/SignOut", Action::OwnSession),
    change("/courier.internal.v1.ConsoleService/ChangePassword", Action::OwnSession),
    change(
        "/courier.internal.v1.ConsoleService/CreateInvitation",
        Action::ManageMembers,
    ),
    read("/courier.internal.v1.ConsoleService/GetInvitation", Action::Public),
    change("/courier.internal.v1.ConsoleService/AcceptInvitation", Action::SignIn),
    read("/courier.internal.v1.ConsoleService/ListMembers", Action::ReadMembers),
    change(
        "/courier.internal.v1.ConsoleService/UpdateMemberRole",
        Action::ManageMembers,
    ),
    change(
        "/courier.internal.v1.ConsoleService/RemoveMember",
        Action::ManageMembers,
    ),
    read(
        "/courier.internal.v1.ConsoleService/ListWorkspaceApiKeys",
        Action::ManageKeys,
    ),
    change(
        "/courier.internal.v1.ConsoleService/CreateWorkspaceApiKey",
        Action::ManageKeys,
    ),
    change(
        "/courier.internal.v1.ConsoleService/RevokeWorkspaceApiKey",
        Action::ManageKeys,
    ),
    read("/courier.internal.v1.DispatchService/ListOpenJobs", Action::Dispatch),
    change("/courier.internal.v1.DispatchService/AcceptJob", Action::Dispatch),
    change(
        "/courier.internal.v1.DispatchService/StreamCourierLocations",
        Action::Dispatch,
    ),
    change("/courier.internal.v1.DispatchService/ArriveAtPickup", Action::Dispatch),
    change("/courier.internal.v1.DispatchService/PickUp", Action::Dispatch),
    change("/courier.internal.v1.DispatchService/StartTransit", Action::Dispatch),
    change("/courier.internal.v1.DispatchService/ArriveAtDropoff", Action::Dispatch),
    change("/courier.internal.v1.DispatchService/SubmitProof", Action::Dispatch),
    change(
        "/courier.internal.v1.DispatchService/CompleteHandover",
        Action::Dispatch,
    ),
    change("/courier.internal.v1.DispatchService/FailHandover", Action::Dispatch),
    change(
        "/courier.internal.v1.DispatchService/ReportPickupNoShow",
        Action::Dispatch,
    ),
    read(
        "/courier.internal.v1.DispatchService/ListBoardOrders",
        Action::ReadBoard,
    ),
    read("/courier.internal.v1.DispatchService/GetBoardOrder", Action::ReadBoard),
    change(
        "/courier.internal.v1.DispatchService/MoveBoardOrder",
        Action::MoveBoardOrders,
    ),
    change("/courier.internal.v1.DispatchService/AssignJob", Action::AssignJobs),
    read(
        "/courier.internal.v1.DispatchService/GetFleetSettings",
        Action::ReadBoard,
    ),
    change(
        "/courier.internal.v1.DispatchService/UpdateFleetSettings",
        Action::AssignJobs,
    ),
    read(
        "/courier.internal.v1.DispatchService/WatchDispatchMap",
        Action::ReadCouriers,
    ),
    read("/courier.internal.v1.DispatchService/RankCouriers", Action::AssignJobs),
    change("/courier.internal.v1.DispatchService/UnassignJob", Action::AssignJobs),
    change(
        "/courier.internal.v1.DispatchService/ResetDropoffPin",
        Action::AssignJobs,
    ),
    change("/courier.internal.v1.DispatchService/PlanRoutes", Action::PlanRoutes),
    read("/courier.internal.v1.DispatchService/GetPlan", Action::ReadBoard),
    change("/courier.internal.v1.DispatchService/PublishPlan", Action::AssignJobs),
    read(
        "/courier.internal.v1.NotificationSettingsService/GetNotificationSettings",
        Action::ReadNotifications,
    ),
    change(
        "/courier.internal.v1.NotificationSettingsService/UpdateNotificationSettings",
        Action::ManageNotifications,
    ),
    read(
        "/courier.internal.v1.NotificationSettingsService/PreviewNotification",
        Action::ReadNotifications,
    ),
    read(
        "/courier.internal.v1.NotificationSettingsService/ListTestMessages",
        Action::ReadNotifications,
    ),
    read(
        "/courier.internal.v1.ReportService/GetDeliveryReport",
        Action::ReadReports,
    ),
    read(
        "/courier.internal.v1.ReportService/GetCourierReport",
        Action::ReadReports,
    ),
    change(
        "/courier.internal.v1.CourierService/InviteCourier",
        Action::ManageCouriers,
    ),
    change(
        "/courier.internal.v1.CourierService/CreateCourierInvitation",
        Action::ManageCouriers,
    ),
    read("/courier.internal.v1.CourierService/ListCouriers", Action::ReadCouriers),
    read("/courier.internal.v1.CourierService/GetCourier", Action::ReadCouriers),
    change(
        "/courier.internal.v1.CourierService/UpdateCourier",
        Action::ManageCouriers,
    ),
    change(
        "/courier.internal.v1.CourierService/SuspendCourier",
        Action::ManageCouriers,
    ),
    change(
        "/courier.internal.v1.CourierService/ActivateCourier",
        Action::ManageCouriers,
    ),
    change("/courier.internal.v1.CourierService/SetShift", Action::ManageCouriers),
    read("/courier.internal.v1.CourierService/ListShifts", Action::ReadCouriers),
    change(
        "/courier.internal.v1.CourierService/DeleteShift",
        Action::ManageCouriers,
    ),
    change("/courier.internal.v1.CourierService/SetPayRule", Action::ManageCouriers),
    read("/courier.internal.v1.CourierService/ListPayRules", Action::ReadCouriers),
    read("/courier.internal.v1.CourierService/ListEarnings", Action::ReadCouriers),
    change(
        "/courier.internal.v1.CourierService/AdjustEarnings",
        Action::ManageCouriers,
    ),
    read(
        "/courier.internal.v1.CourierService/ListCourierStatements",
        Action::ReadCouriers,
    ),
    read(
        "/courier.internal.v1.CourierService/GetCourierStatement",
        Action::ReadCouriers,
    ),
    change(
        "/courier.internal.v1.CourierService/CloseCourierStatements",
        Action::Administer,
    ),
    read("/courier.app.v1.CourierAppService/GetInvitation", Action::Public),
    change("/courier.app.v1.CourierAppService/AcceptInvitation", Action::Public),
    change("/courier.app.v1.CourierAppService/SignIn", Action::SignIn),
    change("/courier.app.v1.CourierAppService/SignOut", Action::OwnWork),
    read("/courier.app.v1.CourierAppService/GetProfile", Action::OwnWork),
    change("/courier.app.v1.CourierAppService/SetAvailability", Action::OwnWork),
    change("/courier.app.v1.CourierAppService/ReportLocations", Action::OwnWork),
    read("/courier.app.v1.CourierAppService/WatchAssignments", Action::OwnWork),
    change("/courier.app.v1.CourierAppService/AcceptOffer", Action::OwnWork),
    change("/courier.app.v1.CourierAppService/DeclineOffer", Action::OwnWork),
    read("/courier.app.v1.CourierAppService/ListJobs", Action::OwnWork),
    read("/courier.app.v1.CourierAppService/GetJob", Action::OwnWork),
    read("/courier.app.v1.CourierAppService/ListEarnings", Action::OwnWork),
    read("/courier.app.v1.CourierAppService/ListStatements", Action::OwnWork),
    read("/courier.app.v1.CourierAppService/GetStatement", Action::OwnWork),
    read("/courier.app.v1.CourierAppService/GetRoute", Action::OwnWork),
    change("/courier.app.v1.CourierAppService/ChooseNextStop", Action::OwnWork),
    change("/courier.app.v1.CourierAppService/ArriveAtPickup", Action::OwnWork),
    change("/courier.app.v1.CourierAppService/PickUp", Action::OwnWork),
    change("/courier.app.v1.CourierAppService/StartTransit", Action::OwnWork),
    change("/courier.app.v1.CourierAppService/ArriveAtDropoff", Action::OwnWork),
    change("/courier.app.v1.CourierAppService/SubmitProof", Action::OwnWork),
    change("/courier.app.v1.CourierAppService/CompleteHandover", Action::OwnWork),
    change("/courier.app.v1.CourierAppService/FailHandover", Action::OwnWork),
    change("/courier.app.v1.CourierAppService/ReportPickupNoShow", Action::OwnWork),
];

/// The needs of the method at `path`; `None` for methods outside the
/// table (health, reflection, unknown paths), which read no caller.
pub fn find(path: &str) -> Option<&'static Method> {
    METHODS.iter().find(|method| method.path == path)
}

#[cfg(test)]
mod tests {
    use super::super::{Decision, Role, ServiceRole, Standing, decide};
    use super::*;

    /// The columns of the access table in docs/access.md: each a standing.
    const COLUMNS: [(&str, Standing); 12] = [
        ("none", Standing::Anonymous),
        ("API key", Standing::Key(super::super::Permissions(0))),
        ("member", Standing::Member(Role::Member)),
        ("admin", Standing::Member(Role::Admin)),
        ("owner", Standing::Member(Role::Owner)),
        ("operator", Standing::Operator),
        ("outsider", Standing::Outsider),
        ("admin service", Standing::Service(ServiceRole::Admin)),
        ("dispatch service", Standing::Service(ServiceRole::Dispatch)),
        ("billing service", Standing::Service(ServiceRole::Billing)),
        ("command line", Standing::CommandLine),
        ("courier", Standing::Courier),
    ];

    /// The access table as docs/access.md shows it: a row per method, a
    /// column per kind of caller; `✓` allowed, `403` denied, `404` the
    /// workspace hidden, `401` a credential the method does not read, and
    /// for a key the permission it must hold.
    fn table() -> String {
        let mut text = String::from("| Method |");
        for (name, _) in COLUMNS {
            text.push_str(&format!(" {name} |"));
        }
        text.push_str("\n|---|");
        text.push_str(&"---|".repeat(COLUMNS.len()));
        text.push('\n');
        for method in METHODS {
            text.push_str(&format!("| `{}` |", method.path.trim_start_matches('/')));
            for (_, standing) in COLUMNS {
                let cell = match (standing, method.action) {
                    (Standing::Key(_), Action::Api(permission)) => format!("`{}`", permission.as_str()),
                    _ => match decide(standing, method.action) {
                        Decision::Allow => "✓".to_owned(),
                        Decision::Deny(_) => "403".to_owned(),
                        Decision::Hide => "404".to_owned(),
                        Decision::NotAccepted => "401".to_owned(),
                    },
                };
                text.push_str(&format!(" {cell} |"));
            }
            text.push('\n');
        }
        text
    }

    /// docs/access.md shows the table the code decides by.
    #[test]
    fn the_documented_access_table_is_the_one_in_force() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/access.md");
        let doc = std::fs::read_to_string(path).expect("docs/access.md");
        let table = table();
        assert!(
            doc.contains(&table),
            "docs/access.md lacks the access table in force:\n{table}"
        );
    }
}
