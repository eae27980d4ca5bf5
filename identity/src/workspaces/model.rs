//! What a workspace is, with no rule that reads or writes it: the values
//! the core holds (the key cache, a caller's standing) name these, below
//! the module's rules.

use crate::access::Permission;

/// What a workspace is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkspaceKind {
    Business,
    Fleet,
}

impl WorkspaceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            WorkspaceKind::Business => "business",
            WorkspaceKind::Fleet => "fleet",
        }
    }

    pub fn parse(text: &str) -> Option<WorkspaceKind> {
        match text {
            "business" => Some(WorkspaceKind::Business),
            "fleet" => Some(WorkspaceKind::Fleet),
            _ => None,
        }
    }

    /// The API permissions a workspace of this kind can grant: the fleet
    /// order permissions only to fleets.
    pub fn permissions(self) -> Vec<Permission> {
        Permission::ALL
            .into_iter()
            .filter(|p| self == WorkspaceKind::Fleet || !p.fleet_only())
            .collect()
    }
}

/// Plan flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Fleet workspaces only: business workspaces always have API access.
    pub api_access: bool,
    pub fleet_order_intake: bool,
    pub proof_of_delivery: bool,
    /// Discount on the route fare, in basis points (0..=10000).
    pub discount_bps: u32,
    /// Fleet workspaces only: board orders are offered to the fleet's own
    /// online drivers by automatic dispatch (docs/couriers.md).
    pub auto_dispatch: bool,
}

/// Invoice billing as the billing service sets it (docs/billing.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BillingSettings {
    pub invoice_billing_enabled: bool,
    pub credit_limit_cents: i64,
    /// The day of the month (1 to 28) on which a period closes, 00:00 UTC.
    pub billing_day: u32,
    /// Days from a statement's issue to its due date (0 to 365).
    pub payment_terms_days: u32,
}

impl BillingSettings {
    pub const DEFAULT_BILLING_DAY: u32 = 1;
    pub const DEFAULT_PAYMENT_TERMS_DAYS: u32 = 14;
}

impl Default for BillingSettings {
    fn default() -> Self {
        BillingSettings {
            invoice_billing_enabled: false,
            credit_limit_cents: 0,
            billing_day: Self::DEFAULT_BILLING_DAY,
            payment_terms_days: Self::DEFAULT_PAYMENT_TERMS_DAYS,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Workspace {
    pub id: String,
    pub name: String,
    pub kind: WorkspaceKind,
    pub plan: Plan,
    pub billing: BillingSettings,
    /// An open statement is past its due date (kept by `billing`).
    pub statement_overdue: bool,
    /// Live amount priced, not cancelled and on no statement (kept by
    /// `billing`).
    pub open_amount_cents: i64,
    pub created_at: i64,
}

impl Workspace {
    /// Whether keys of this workspace may use the public API at all.
    pub fn has_api_access(&self) -> bool {
        self.kind == WorkspaceKind::Business || self.plan.api_access
    }
}
