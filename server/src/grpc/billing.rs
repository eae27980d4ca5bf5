use courier::internal::v1 as pb;
use courier::internal::v1::billing_service_server::BillingService;
use courier::time::micros_to_proto;
use tonic::{Request, Response, Status};

use super::admin::{billing_out, day_count, overdue_is_output_only};
use crate::caller;
use courier_core::{Core, CoreError, CoreResult};
use courier_identity::access::{Granted, act};
use courier_identity::workspaces::{self, BillingSettings, Workspace};
use courier_orders::billing::lines;
use courier_orders::billing::lines::BillingLine;
use courier_orders::billing::statements::{self, PeriodEnd, Statement, StatementStatus};

pub struct BillingApi(pub Core);

/// The fields `UpdateBillingState` may change, as `update_mask` names them.
const SETTABLE: [&str; 4] = [
    "invoice_billing_enabled",
    "credit_limit_cents",
    "billing_day",
    "payment_terms_days",
];

pub fn statement_out(statement: &Statement, now: i64) -> pb::Statement {
    pb::Statement {
        id: statement.id.clone(),
        workspace_id: statement.workspace_id.clone(),
        status: match statement.status {
            StatementStatus::Open => pb::StatementStatus::Open,
            StatementStatus::Paid => pb::StatementStatus::Paid,
            StatementStatus::Void => pb::StatementStatus::Void,
        } as i32,
        currency: statement.currency.clone(),
        total_cents: statement.total_cents,
        delivery_count: statement.delivery_count,
        period_start: Some(micros_to_proto(statement.period_start)),
        period_end: Some(micros_to_proto(statement.period_end)),
        issued_at: Some(micros_to_proto(statement.issued_at)),
        due_at: Some(micros_to_proto(statement.due_at)),
        paid_at: statement.paid_at.map(micros_to_proto),
        voided_at: statement.voided_at.map(micros_to_proto),
        overdue: statement.is_overdue(now),
        sms_count: statement.sms_count,
        sms_cents: statement.sms_cents,
        sms_unit_cents: statement.sms_unit_cents,
        tip_count: statement.tip_count,
        tip_cents: statement.tip_cents,
    }
}

pub fn line_out(line: BillingLine) -> pb::BillableDelivery {
    pb::BillableDelivery {
        delivery_id: line.delivery_id,
        external_id: line.external_id,
        amount_cents: line.amount_cents,
        currency: line.currency,
        created_at: Some(micros_to_proto(line.created_at)),
        delivered_at: Some(micros_to_proto(line.delivered_at)),
        vehicle_type_id: line.vehicle_type_id,
        pickup_address: line.pickup_address,
        dropoff_address: line.dropoff_address,
    }
}

/// The settings an update asks for: the masked fields of `requested` over
/// `current` (every settable field when the mask is empty).
fn settings_in(
    current: &Workspace,
    requested: Option<pb::BillingState>,
    mask: Option<prost_types::FieldMask>,
) -> Result<BillingSettings, CoreError> {
    let requested = requested.ok_or_else(|| CoreError::invalid("billing", "billing is required."))?;
    if requested.statement_overdue != current.statement_overdue {
        return Err(overdue_is_output_only());
    }
    let paths = mask.map(|m| m.paths).unwrap_or_default();
    for path in &paths {
        if path == "statement_overdue" {
            return Err(overdue_is_output_only());
        }
        if !SETTABLE.contains(&path.as_str()) {
            return Err(CoreError::invalid(
                "update_mask",
                format!(
                    "update_mask names '{path}'; the billing fields that can change are {}.",
                    SETTABLE.join(", ")
                ),
            ));
        }
    }
    let changes = |field: &str| paths.is_empty() || paths.iter().any(|p| p == field);
    let mut settings = current.billing;
    if changes("invoice_billing_enabled") {
        settings.invoice_billing_enabled = requested.invoice_billing_enabled;
    }
    if changes("credit_limit_cents") {
        settings.credit_limit_cents = requested.credit_limit_cents;
    }
    if changes("billing_day") {
        settings.billing_day = day_count(
            "billing.billing_day",
            requested.billing_day,
            BillingSettings::DEFAULT_BILLING_DAY,
        )?;
    }
    if changes("payment_terms_days") {
        settings.payment_terms_days = day_count(
            "billing.payment_terms_days",
            requested.payment_terms_days,
            BillingSettings::DEFAULT_PAYMENT_TERMS_DAYS,
        )?;
    }
    Ok(settings)
}

fn token(page_token: &str) -> Option<&str> {
    (!page_token.is_empty()).then_some(page_token)
}

#[tonic::async_trait]
impl BillingService for BillingApi {
    async fn get_billing_state(
        &self,
        request: Request<pb::GetBillingStateRequest>,
    ) -> Result<Response<pb::GetBillingStateResponse>, Status> {
        let workspace_id = &request.get_ref().workspace_id;
        caller::grant::<act::ReadBilling, _>(&self.0, &request, Some(workspace_id), "workspace").await?;
        let workspace = workspaces::get(&self.0.db, workspace_id).await?;
        Ok(Response::new(pb::GetBillingStateResponse {
            billing: Some(billing_out(&workspace)),
            open_amount_cents: workspace.open_amount_cents,
            currency: self.0.catalog.currency().to_owned(),
        }))
    }

    async fn update_billing_state(
        &self,
        request: Request<pb::UpdateBillingStateRequest>,
    ) -> Result<Response<pb::UpdateBillingStateResponse>, Status> {
        let granted = self.manage(&request, &request.get_ref().workspace_id).await?;
        let r = request.into_inner();
        let current = workspaces::get(&self.0.db, &r.workspace_id).await?;
        let settings = settings_in(&current, r.billing, r.update_mask)?;
        let workspace = workspaces::update_billing(&self.0, &granted, &r.workspace_id, settings).await?;
        Ok(Response::new(pb::UpdateBillingStateResponse {
            billing: Some(billing_out(&workspace)),
            open_amount_cents: workspace.open_amount_cents,
        }))
    }

    async fn list_billable_deliveries(
        &self,
        request: Request<pb::ListBillableDeliveriesRequest>,
    ) -> Result<Response<pb::ListBillableDeliveriesResponse>, Status> {
        caller::grant::<act::ReadBilling, _>(&self.0, &request, Some(&request.get_ref().workspace_id), "workspace")
            .await?;
        let r = request.into_inner();
        workspaces::get(&self.0.db, &r.workspace_id).await?;
        let (rows, next) = lines::billable(&self.0, &r.workspace_id, r.page_size, token(&r.page_token)).await?;
        Ok(Response::new(pb::ListBillableDeliveriesResponse {
            deliveries: rows.into_iter().map(line_out).collect(),
            next_page_token: next.unwrap_or_default(),
        }))
    }

    async fn close_statement(
        &self,
        request: Request<pb::CloseStatementRequest>,
    ) -> Result<Response<pb::CloseStatementResponse>, Status> {
        let granted = self.manage(&request, &request.get_ref().workspace_id).await?;
        let workspace_id = request.into_inner().workspace_id;
        let closed = statements::close(&self.0, &workspace_id, PeriodEnd::Now(&granted)).await?;
        let now = self.0.clock.now_micros();
        Ok(Response::new(pb::CloseStatementResponse {
            statements: closed.iter().map(|s| statement_out(s, now)).collect(),
        }))
    }

    async fn list_statements(
        &self,
        request: Request<pb::ListStatementsRequest>,
    ) -> Result<Response<pb::ListStatementsResponse>, Status> {
        caller::grant::<act::ReadBilling, _>(&self.0, &request, Some(&request.get_ref().workspace_id), "workspace")
            .await?;
        let r = request.into_inner();
        let (rows, next) = statements::list(&self.0, &r.workspace_id, r.page_size, token(&r.page_token)).await?;
        let now = self.0.clock.now_micros();
        Ok(Response::new(pb::ListStatementsResponse {
            statements: rows.iter().map(|s| statement_out(s, now)).collect(),
            next_page_token: next.unwrap_or_default(),
        }))
    }

    async fn get_statement(
        &self,
        request: Request<pb::GetStatementRequest>,
    ) -> Result<Response<pb::GetStatementResponse>, Status> {
        let statement = statements::get(&self.0.db, &request.get_ref().statement_id).await?;
        // Another workspace's statement is as unknown as a missing one.
        caller::grant::<act::ReadBilling, _>(&self.0, &request, Some(&statement.workspace_id), "statement").await?;
        let r = request.into_inner();
        let (rows, next) = lines::of_statement(&self.0, &statement.id, r.page_size, token(&r.page_token)).await?;
        Ok(Response::new(pb::GetStatementResponse {
            statement: Some(statement_out(&statement, self.0.clock.now_micros())),
            deliveries: rows.into_iter().map(line_out).collect(),
            next_page_token: next.unwrap_or_default(),
        }))
    }

    async fn mark_statement_paid(
        &self,
        request: Request<pb::MarkStatementPaidRequest>,
    ) -> Result<Response<pb::MarkStatementPaidResponse>, Status> {
        let id = &request.get_ref().statement_id;
        let granted = self.manage_statement(&request, id).await?;
        let statement = statements::mark_paid(&self.0, &granted, id).await?;
        Ok(Response::new(pb::MarkStatementPaidResponse {
            statement: Some(statement_out(&statement, self.0.clock.now_micros())),
        }))
    }

    async fn void_statement(
        &self,
        request: Request<pb::VoidStatementRequest>,
    ) -> Result<Response<pb::VoidStatementResponse>, Status> {
        let id = &request.get_ref().statement_id;
        let granted = self.manage_statement(&request, id).await?;
        let statement = statements::void(&self.0, &granted, id).await?;
        Ok(Response::new(pb::VoidStatementResponse {
            statement: Some(statement_out(&statement, self.0.clock.now_micros())),
        }))
    }
}

impl BillingApi {
    /// Changes are the operators', the billing system's and the command
    /// line's (docs/access.md).
    async fn manage<T>(&self, request: &Request<T>, workspace_id: &str) -> CoreResult<Granted<act::ManageBilling>> {
        caller::grant(&self.0, request, Some(workspace_id), "workspace").await
    }

    /// [`BillingApi::manage`] for the workspace of statement `id`: another
    /// workspace's statement is as unknown as a missing one.
    async fn manage_statement<T>(&self, request: &Request<T>, id: &str) -> CoreResult<Granted<act::ManageBilling>> {
        let statement = statements::get(&self.0.db, id).await?;
        caller::grant(&self.0, request, Some(&statement.workspace_id), "statement").await
    }
}
