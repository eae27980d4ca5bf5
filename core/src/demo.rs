//! The demo workspace of a fresh development database: a business with
//! invoice billing enabled and a credit limit, one full-permission key per
//! mode, a console login (an operator who owns the workspace) and a
//! platform courier's login for the courier app, printed once; and a pay
//! rule for each of the catalogue's vehicle types, so that offers show
//! what they pay.

use crate::couriers::{self, Fleet, NewCourier, Vehicle};
use crate::{Core, CoreResult};
use courier_identity::access::{self, Role, act};
use courier_identity::accounts::{self, NewUser};
use courier_identity::auth::Mode;
use courier_identity::auth::api_keys::{self, KeyExpiry, NewApiKey};
use courier_identity::workspaces::{self, BillingSettings, NewWorkspace, Plan, WorkspaceKind};
use courier_orders::pay::{RuleInput, Scope};

/// Keys and login of a newly created demo workspace.
pub struct DemoKeys {
    pub workspace_id: String,
    pub test_key: String,
    pub live_key: String,
    pub login_email: String,
    pub login_password: String,
    pub courier_login: String,
    pub courier_password: String,
}

/// The demo login's email.
pub const DEMO_EMAIL: &str = "demo@example.com";
/// The demo courier's login.
pub const DEMO_COURIER_EMAIL: &str = "courier@example.com";

/// The demo's pay rule: 3.00 a job, 0.90 a km, 0.15 a minute, 0.25 a
/// minute waited past five, half the time surcharges.
const DEMO_PAY: RuleInput = RuleInput {
    base_cents: 300,
    per_km_cents: 90,
    per_minute_cents: 15,
    waiting_per_minute_cents: 25,
    surcharge_share_percent: 50,
};

/// Creates the demo workspace when the database has no workspace yet.
pub async fn bootstrap(core: &Core) -> CoreResult<Option<DemoKeys>> {
    if !workspaces::is_empty(&core.db).await? {
        return Ok(None);
    }
    // The development runner that bootstraps it is run on the command line.
    let granted = access::command_line::<act::Administer>()?;
    let workspace = workspaces::create(
        core,
        &granted,
        NewWorkspace {
            name: "Demo Business".into(),
            kind: WorkspaceKind::Business,
            plan: Plan {
                api_access: true,
                fleet_order_intake: false,
                proof_of_delivery: true,
                discount_bps: 0,
                auto_dispatch: false,
            },
            billing: BillingSettings {
                invoice_billing_enabled: true,
                credit_limit_cents: 500_000,
                ..BillingSettings::default()
            },
        },
    )
    .await?;
    let key = |mode| NewApiKey {
        workspace_id: workspace.id.clone(),
        mode,
        label: format!("demo {} key", if mode == Mode::Live { "live" } else { "test" }),
        permissions: Vec::new(),
        expiry: KeyExpiry::Never,
    };
    let (_, test_key) = api_keys::create(core, &granted, key(Mode::Test)).await?;
    let (_, live_key) = api_keys::create(core, &granted, key(Mode::Live)).await?;
    let login_password = courier_store::ids::random_base62(16);
    let login = NewUser {
        email: DEMO_EMAIL.into(),
        name: "Demo Operator".into(),
        password: login_password.clone(),
        operator: true,
    };
    let joins = Some((workspace.id.as_str(), Role::Owner));
    let operator = accounts::create_for_operator(core, &granted, login, joins).await?;
    let courier_password = courier_store::ids::random_base62(16);
    let tx = core.begin().await?;
    let courier = couriers::create(
        core,
        &tx,
        NewCourier {
            fleet: Fleet::Platform,
            name: "Dana Demo".into(),
            phone: None,
            email: Some(DEMO_COURIER_EMAIL.into()),
            vehicle: Vehicle {
                vehicle_type_id: "car".into(),
                make: Some("Volkswagen".into()),
                model: Some("ID.3".into()),
                color: Some("blue".into()),
                license_plate: Some("B-CD 1234".into()),
            },
        },
    )
    .await?;
    couriers::set_password(core, &tx, &courier.id, &courier_password).await?;
    tx.commit().await?;
    let pay = access::command_line::<act::ManageCouriers>()?;
    for vehicle in core.catalog.vehicle_types() {
        let scope = Scope::VehicleType(vehicle.id.clone());
        couriers::pay::set_rule(core, &pay, scope, DEMO_PAY).await?;
    }
    Ok(Some(DemoKeys {
        workspace_id: workspace.id,
        test_key,
        live_key,
        login_email: operator.email,
        login_password,
        courier_login: DEMO_COURIER_EMAIL.into(),
        courier_password,
    }))
}

impl DemoKeys {
    /// The lines a developer copies from the terminal.
    pub fn print(&self) {
        println!(
            "Demo workspace {} created. Its keys are shown only now:",
            self.workspace_id
        );
        println!("test key: {}", self.test_key);
        println!("live key: {}", self.live_key);
        println!("console login: {} password: {}", self.login_email, self.login_password);
        println!(
            "courier login: {} password: {}",
            self.courier_login, self.courier_password
        );
    }
}
