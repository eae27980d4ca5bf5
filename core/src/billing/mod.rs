//! Invoice billing: the checks a live delivery must pass before it is created
//! (DECISIONS, in this order) and the open amount they measure.

use sea_orm::sea_query::{Expr, Func};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use crate::deliveries::entity as deliveries;
use crate::lifecycle::Status;
use crate::workspaces::Workspace;
use crate::{CoreError, CoreResult};
use courier::errors::ErrorCode;

/// Live deliveries that are priced, not cancelled and not yet invoiced.
pub async fn open_amount_cents(db: &impl ConnectionTrait, workspace_id: &str) -> CoreResult<i64> {
    let sum: Option<Option<i64>> = deliveries::Entity::find()
        .select_only()
        .column_as(
            Expr::expr(Func::cast_as(
                Func::sum(Expr::col(deliveries::Column::AmountCents)),
                "BIGINT",
            )),
            "open",
        )
        .filter(deliveries::Column::WorkspaceId.eq(workspace_id))
        .filter(deliveries::Column::Mode.eq("live"))
        .filter(deliveries::Column::Status.ne(Status::Cancelled.as_str()))
        .filter(deliveries::Column::InvoicedAt.is_null())
        .into_tuple()
        .one(db)
        .await?;
    Ok(sum.flatten().unwrap_or(0))
}

/// Billing enabled, no overdue statement, and the open amount plus this
/// delivery within the credit limit. Run inside the creating transaction, on a
/// workspace row read there.
pub async fn check_live_create(db: &impl ConnectionTrait, workspace: &Workspace, amount_cents: i64) -> CoreResult<()> {
    let billing = workspace.billing;
    if !billing.invoice_billing_enabled {
        return Err(CoreError::new(
            ErrorCode::InvoiceBillingNotEnabled,
            "The workspace is not approved for invoice billing; live deliveries cannot be created.",
        ));
    }
    if billing.statement_overdue {
        return Err(CoreError::new(
            ErrorCode::InvoiceStatementOverdue,
            "An invoice statement is overdue; settle it before creating live deliveries.",
        ));
    }
    let open = open_amount_cents(db, &workspace.id).await?;
    if open + amount_cents > billing.credit_limit_cents {
        return Err(CoreError::new(
            ErrorCode::InvoiceCreditLimitExceeded,
            format!(
                "This delivery ({amount_cents} cents) would take the open amount ({open} cents) over the credit limit ({} cents).",
                billing.credit_limit_cents
            ),
        ));
    }
    Ok(())
}
