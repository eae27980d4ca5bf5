use courier::internal::v1 as pb;
use courier::internal::v1::admin_service_server::AdminService;
use courier::v1::Mode as PbMode;
use tonic::{Request, Response, Status};

use crate::caller;
use courier_core::{Core, CoreError, CoreResult};
use courier_identity::access::{Granted, Permission, act};
use courier_identity::auth::Mode;
use courier_identity::auth::api_keys::{self, ApiKey, KeyExpiry, NewApiKey};
use courier_identity::workspaces::{self, BillingSettings, NewWorkspace, Plan, Workspace, WorkspaceKind};

pub struct AdminApi(pub Core);

pub fn plan_in(plan: Option<pb::Plan>) -> Result<Plan, CoreError> {
    let plan = plan.unwrap_or_default();
    Ok(Plan {
        api_access: plan.api_access,
        fleet_order_intake: plan.fleet_order_intake,
        proof_of_delivery: plan.proof_of_delivery,
        discount_bps: u32::try_from(plan.discount_bps)
            .map_err(|_| CoreError::invalid("plan.discount_bps", "discount_bps must be 0 to 10000."))?,
        auto_dispatch: plan.auto_dispatch,
    })
}

/// The billing settings of a new workspace; unset days take their
/// defaults. `statement_overdue` is the billing cycle's to set.
pub fn billing_in(billing: Option<pb::BillingState>) -> Result<BillingSettings, CoreError> {
    let billing = billing.unwrap_or_default();
    if billing.statement_overdue {
        return Err(overdue_is_output_only());
    }
    Ok(BillingSettings {
        invoice_billing_enabled: billing.invoice_billing_enabled,
        credit_limit_cents: billing.credit_limit_cents,
        billing_day: day_count(
            "billing.billing_day",
            billing.billing_day,
            BillingSettings::DEFAULT_BILLING_DAY,
        )?,
        payment_terms_days: day_count(
            "billing.payment_terms_days",
            billing.payment_terms_days,
            BillingSettings::DEFAULT_PAYMENT_TERMS_DAYS,
        )?,
    })
}

/// A day number or count of a request: `default` when unset.
pub fn day_count(field: &str, value: Option<i32>, default: u32) -> Result<u32, CoreError> {
    match value {
        None => Ok(default),
        Some(value) => {
            u32::try_from(value).map_err(|_| CoreError::invalid(field, format!("{field} must not be negative.")))
        }
    }
}

pub fn overdue_is_output_only() -> CoreError {
    CoreError::invalid(
        "billing.statement_overdue",
        "statement_overdue is output only: the billing cycle sets it while an open statement is past due.",
    )
}

pub fn billing_out(workspace: &Workspace) -> pb::BillingState {
    let billing = &workspace.billing;
    pb::BillingState {
        invoice_billing_enabled: billing.invoice_billing_enabled,
        credit_limit_cents: billing.credit_limit_cents,
        statement_overdue: workspace.statement_overdue,
        billing_day: Some(billing.billing_day as i32),
        payment_terms_days: Some(billing.payment_terms_days as i32),
    }
}

pub fn kind_out(kind: WorkspaceKind) -> pb::WorkspaceKind {
    match kind {
        WorkspaceKind::Business => pb::WorkspaceKind::Business,
        WorkspaceKind::Fleet => pb::WorkspaceKind::Fleet,
    }
}

pub fn workspace_out(w: &Workspace) -> pb::Workspace {
    pb::Workspace {
        id: w.id.clone(),
        name: w.name.clone(),
        kind: kind_out(w.kind) as i32,
        plan: Some(pb::Plan {
            api_access: w.plan.api_access,
            fleet_order_intake: w.plan.fleet_order_intake,
            proof_of_delivery: w.plan.proof_of_delivery,
            discount_bps: w.plan.discount_bps as i32,
            auto_dispatch: w.plan.auto_dispatch,
        }),
        billing: Some(billing_out(w)),
        created_at: Some(courier::time::micros_to_proto(w.created_at)),
    }
}

pub fn mode_in(mode: i32) -> Result<Mode, CoreError> {
    match PbMode::try_from(mode) {
        Ok(PbMode::Live) => Ok(Mode::Live),
        Ok(PbMode::Test) => Ok(Mode::Test),
        _ => Err(CoreError::invalid("mode", "mode must be live or test.")),
    }
}

pub fn mode_out(mode: Mode) -> PbMode {
    match mode {
        Mode::Live => PbMode::Live,
        Mode::Test => PbMode::Test,
    }
}

/// The permissions of a key request, by their public names.
pub fn permissions_in(names: &[String]) -> Result<Vec<Permission>, CoreError> {
    names
        .iter()
        .enumerate()
        .map(|(index, name)| {
            Permission::parse(name).ok_or_else(|| {
                CoreError::invalid(format!("permissions.{index}"), format!("Unknown permission '{name}'."))
            })
        })
        .collect()
}

pub fn expiry_in(expiry: i32) -> Result<KeyExpiry, CoreError> {
    match pb::KeyExpiry::try_from(expiry) {
        Ok(pb::KeyExpiry::Never) => Ok(KeyExpiry::Never),
        Ok(pb::KeyExpiry::Days30) => Ok(KeyExpiry::Days30),
        Ok(pb::KeyExpiry::Days90) => Ok(KeyExpiry::Days90),
        Ok(pb::KeyExpiry::Days365) => Ok(KeyExpiry::Days365),
        _ => Err(CoreError::invalid(
            "expiry",
            "expiry must be NEVER, DAYS_30, DAYS_90 or DAYS_365.",
        )),
    }
}

pub fn key_out(key: &ApiKey) -> pb::ApiKey {
    pb::ApiKey {
        id: key.id.clone(),
        workspace_id: key.workspace_id.clone(),
        mode: mode_out(key.mode) as i32,
        label: key.label.clone(),
        permissions: key.permissions.iter().map(|p| p.as_str().to_owned()).collect(),
        prefix: key.prefix.clone(),
        created_at: Some(courier::time::micros_to_proto(key.created_at)),
        expires_at: key.expires_at.map(courier::time::micros_to_proto),
        revoked_at: key.revoked_at.map(courier::time::micros_to_proto),
        last_used_at: key.last_used_at.map(courier::time::micros_to_proto),
    }
}

#[tonic::async_trait]
impl AdminService for AdminApi {
    async fn create_workspace(
        &self,
        request: Request<pb::CreateWorkspaceRequest>,
    ) -> Result<Response<pb::CreateWorkspaceResponse>, Status> {
        let granted = self.granted(&request).await?;
        let r = request.into_inner();
        let kind = match pb::WorkspaceKind::try_from(r.kind) {
            Ok(pb::WorkspaceKind::Business) => WorkspaceKind::Business,
            Ok(pb::WorkspaceKind::Fleet) => WorkspaceKind::Fleet,
            _ => return Err(workspaces::unknown_kind().into()),
        };
        let new = NewWorkspace {
            name: r.name,
            kind,
            plan: plan_in(r.plan)?,
            billing: billing_in(r.billing)?,
        };
        let workspace = workspaces::create(&self.0, &granted, new).await?;
        Ok(Response::new(pb::CreateWorkspaceResponse {
            workspace: Some(workspace_out(&workspace)),
        }))
    }

    async fn get_workspace(
        &self,
        request: Request<pb::GetWorkspaceRequest>,
    ) -> Result<Response<pb::GetWorkspaceResponse>, Status> {
        self.granted(&request).await?;
        let workspace = workspaces::get(&self.0.db, &request.into_inner().workspace_id).await?;
        Ok(Response::new(pb::GetWorkspaceResponse {
            workspace: Some(workspace_out(&workspace)),
        }))
    }

    async fn list_workspaces(
        &self,
        request: Request<pb::ListWorkspacesRequest>,
    ) -> Result<Response<pb::ListWorkspacesResponse>, Status> {
        self.granted(&request).await?;
        let list = workspaces::list(&self.0.db).await?;
        Ok(Response::new(pb::ListWorkspacesResponse {
            workspaces: list.iter().map(workspace_out).collect(),
        }))
    }

    async fn update_workspace_plan(
        &self,
        request: Request<pb::UpdateWorkspacePlanRequest>,
    ) -> Result<Response<pb::UpdateWorkspacePlanResponse>, Status> {
        let granted = self.granted(&request).await?;
        let r = request.into_inner();
        let workspace = workspaces::update_plan(&self.0, &granted, &r.workspace_id, plan_in(r.plan)?).await?;
        Ok(Response::new(pb::UpdateWorkspacePlanResponse {
            workspace: Some(workspace_out(&workspace)),
        }))
    }

    async fn create_api_key(
        &self,
        request: Request<pb::CreateApiKeyRequest>,
    ) -> Result<Response<pb::CreateApiKeyResponse>, Status> {
        let granted = self.granted(&request).await?;
        let r = request.into_inner();
        let new = NewApiKey {
            workspace_id: r.workspace_id,
            mode: mode_in(r.mode)?,
            label: r.label,
            permissions: permissions_in(&r.permissions)?,
            expiry: expiry_in(r.expiry)?,
        };
        let (key, secret) = api_keys::create(&self.0, &granted, new).await?;
        Ok(Response::new(pb::CreateApiKeyResponse {
            api_key: Some(key_out(&key)),
            secret,
        }))
    }

    async fn list_api_keys(
        &self,
        request: Request<pb::ListApiKeysRequest>,
    ) -> Result<Response<pb::ListApiKeysResponse>, Status> {
        self.granted(&request).await?;
        let keys = api_keys::list(&self.0.db, &request.into_inner().workspace_id).await?;
        Ok(Response::new(pb::ListApiKeysResponse {
            api_keys: keys.iter().map(key_out).collect(),
        }))
    }

    async fn revoke_api_key(
        &self,
        request: Request<pb::RevokeApiKeyRequest>,
    ) -> Result<Response<pb::RevokeApiKeyResponse>, Status> {
        let granted = self.granted(&request).await?;
        let key = api_keys::revoke(&self.0, &granted, &request.into_inner().api_key_id).await?;
        Ok(Response::new(pb::RevokeApiKeyResponse {
            api_key: Some(key_out(&key)),
        }))
    }

    async fn list_audit_entries(
        &self,
        request: Request<pb::ListAuditEntriesRequest>,
    ) -> Result<Response<pb::ListAuditEntriesResponse>, Status> {
        self.granted(&request).await?;
        let r = request.into_inner();
        let (entries, next) = courier_core::audit_log::list(&self.0, r.page_size, Some(&r.page_token)).await?;
        Ok(Response::new(pb::ListAuditEntriesResponse {
            entries: entries
                .into_iter()
                .map(|courier_core::audit_log::Listed { entry: e, courier }| {
                    let (courier_id, courier_name) = courier.unzip();
                    pb::AuditEntry {
                        id: e.id,
                        create_time: Some(courier::time::micros_to_proto(e.created_at)),
                        actor: e.actor,
                        action: e.action,
                        workspace_id: e.workspace_id,
                        target: e.target,
                        courier_id,
                        courier_name: courier_name.flatten(),
                    }
                })
                .collect(),
            next_page_token: next.unwrap_or_default(),
        }))
    }
}

impl AdminApi {
    /// The back office's caller: an operator signed in to the console, the
    /// admin service system, or the command line (docs/access.md).
    async fn granted<T>(&self, request: &Request<T>) -> CoreResult<Granted<act::Administer>> {
        caller::grant(&self.0, request, None, "workspace").await
    }
}
