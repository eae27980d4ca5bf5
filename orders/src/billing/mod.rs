//! Invoice billing (docs/billing.md): the checks a live delivery must pass
//! before it is created (in the order of docs/guide.md "Billing and credit"),
//! the open amount they measure, and the billing cycle that moves delivered
//! deliveries onto statements.
//!
//! The open amount (live, priced, not cancelled, on no statement) is a
//! running total on the workspace row, written only here: reserved by the
//! creating transaction, released when the delivery is cancelled and when a
//! statement bills it. The reservation is one conditional update, so
//! concurrent creates on any replica cannot both use the last credit, and
//! the row lock it takes is held only from that statement to the commit.
//!
//! - `lines`: the billing line of every delivered live delivery (table
//!   `billing_lines`), written in the transaction that delivers it.
//! - `charges`: usage charges (table `usage_charges`), one per live SMS a
//!   provider took, written in the transaction that records it as sent;
//!   billed on statements, never in the open amount.
//! - `statements`: statements (table `statements`): close a period, list,
//!   read, pay, void, and the overdue flag.
//! - `cycle`: billing periods and the worker that closes them on each
//!   workspace's billing day and flags overdue statements.

pub mod charges;
pub mod cycle;
pub mod lines;
pub mod statements;

#[cfg(test)]
mod tests;

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

use crate::{CoreError, CoreResult};
use courier::errors::ErrorCode;
use courier_identity::workspaces::{self, entity as workspaces_table};

/// Reserves `amount_cents` of the workspace's credit for a live delivery
/// being created in `tx`: billing enabled, no overdue statement, and the
/// open amount plus this delivery within the credit limit.
pub async fn reserve_credit(tx: &impl ConnectionTrait, workspace_id: &str, amount_cents: i64) -> CoreResult<()> {
    use workspaces_table::Column;
    let reserved = workspaces_table::Entity::update_many()
        .col_expr(
            Column::OpenAmountCents,
            Expr::col(Column::OpenAmountCents).add(amount_cents),
        )
        .filter(Column::Id.eq(workspace_id))
        .filter(Column::InvoiceBillingEnabled.eq(true))
        .filter(Column::StatementOverdue.eq(false))
        .filter(
            Expr::col(Column::OpenAmountCents)
                .add(amount_cents)
                .lte(Expr::col(Column::CreditLimitCents)),
        )
        .exec(tx)
        .await?;
    if reserved.rows_affected == 1 {
        return Ok(());
    }
    Err(refusal(tx, workspace_id, amount_cents).await?)
}

/// Gives back the credit of a live delivery that is cancelled in `tx`, or
/// of the deliveries a statement bills.
pub async fn release_credit(tx: &impl ConnectionTrait, workspace_id: &str, amount_cents: i64) -> CoreResult<()> {
    use workspaces_table::Column;
    workspaces_table::Entity::update_many()
        .col_expr(
            Column::OpenAmountCents,
            Expr::col(Column::OpenAmountCents).sub(amount_cents),
        )
        .filter(Column::Id.eq(workspace_id))
        .exec(tx)
        .await?;
    Ok(())
}

/// Sets the workspace's overdue flag (`statements` decides it).
async fn set_overdue(tx: &impl ConnectionTrait, workspace_id: &str, overdue: bool) -> CoreResult<()> {
    use workspaces_table::Column;
    workspaces_table::Entity::update_many()
        .col_expr(Column::StatementOverdue, Expr::value(overdue))
        .filter(Column::Id.eq(workspace_id))
        .exec(tx)
        .await?;
    Ok(())
}

/// Why a reservation was refused, checked in the order of docs/guide.md
/// "Billing and credit".
async fn refusal(db: &impl ConnectionTrait, workspace_id: &str, amount_cents: i64) -> CoreResult<CoreError> {
    let workspace = workspaces::get(db, workspace_id).await?;
    let billing = workspace.billing;
    if !billing.invoice_billing_enabled {
        return Ok(CoreError::new(
            ErrorCode::InvoiceBillingNotEnabled,
            "The workspace is not approved for invoice billing; live deliveries cannot be created.",
        ));
    }
    if workspace.statement_overdue {
        return Ok(CoreError::new(
            ErrorCode::InvoiceStatementOverdue,
            "An invoice statement is overdue; settle it before creating live deliveries.",
        ));
    }
    Ok(CoreError::new(
        ErrorCode::InvoiceCreditLimitExceeded,
        format!(
            "This delivery ({amount_cents} cents) would take the open amount ({} cents) over the credit limit ({} cents).",
            workspace.open_amount_cents, billing.credit_limit_cents
        ),
    ))
}
