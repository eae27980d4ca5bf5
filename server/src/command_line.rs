//! The operator's command line where its change must reach the process
//! serving the database at once: `courier-core key revoke` and
//! `courier-core courier suspend`. A SQLite database is served by one
//! process (`db::ServeLock`), which hears of no other process's commit: a
//! key revoked beside it would stay in its key cache, a suspension would
//! leave the courier's open streams there running. So the change goes
//! through that process's own gRPC service when one serves; otherwise (no
//! process serving, or PostgreSQL, whose replicas hear the commit's
//! announcement) it is made here. Either way the audit log names the OS
//! user (`cli:<user>`).

use std::net::SocketAddr;

use courier::internal::v1::admin_service_client::AdminServiceClient;
use courier::internal::v1::courier_service_client::CourierServiceClient;
use courier::internal::v1::{RevokeApiKeyRequest, SuspendCourierRequest};
use tonic::transport::Channel;

use courier_core::couriers::{self, Status};
use courier_core::{Core, CoreError, CoreResult};
use courier_identity::access::{self, act};
use courier_identity::audit;
use courier_identity::auth::service_token;
use courier_store::db;

/// How long the serving process has to answer.
const ANSWER_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

/// Revokes key `id` (its key cache forgets it at once). Returns the
/// revoked key's id.
pub async fn revoke_api_key(core: &Core, id: &str) -> CoreResult<String> {
    let Some(serving) = db::serving_process(&core.config.database_url)? else {
        let granted = access::command_line::<act::Administer>()?;
        return Ok(courier_identity::auth::api_keys::revoke(core, &granted, id).await?.id);
    };
    let (channel, request) = to_serving(
        core,
        serving,
        RevokeApiKeyRequest {
            api_key_id: id.to_owned(),
        },
    )
    .await?;
    let answer = AdminServiceClient::new(channel)
        .revoke_api_key(request)
        .await
        .map_err(refused)?;
    Ok(answer.into_inner().api_key.map_or_else(|| id.to_owned(), |key| key.id))
}

/// Suspends courier `id` (docs/couriers.md "A courier's life"): signed out
/// everywhere, their open streams ended within a second on every replica.
/// Returns the courier's id.
pub async fn suspend_courier(core: &Core, id: &str) -> CoreResult<String> {
    let Some(serving) = db::serving_process(&core.config.database_url)? else {
        let granted = access::command_line::<act::ManageCouriers>()?;
        let tx = core.begin().await?;
        let courier = couriers::set_status(core, &tx, id, Status::Suspended).await?;
        let change = audit::Change {
            action: "courier.suspend",
            workspace_id: courier.fleet.workspace_id(),
            target: &courier.id,
            courier_id: Some(&courier.id),
        };
        granted.record(core, &*tx, change).await?;
        tx.commit().await?;
        return Ok(courier.id);
    };
    let (channel, request) = to_serving(
        core,
        serving,
        SuspendCourierRequest {
            courier_id: id.to_owned(),
        },
    )
    .await?;
    let answer = CourierServiceClient::new(channel)
        .suspend_courier(request)
        .await
        .map_err(refused)?;
    Ok(answer
        .into_inner()
        .courier
        .map_or_else(|| id.to_owned(), |courier| courier.id))
}

/// A connection to the process serving at `serving`, and `message` as a
/// request signed with a short command-line token naming the OS user.
async fn to_serving<T>(core: &Core, serving: SocketAddr, message: T) -> CoreResult<(Channel, tonic::Request<T>)> {
    let unreachable = |e: &dyn std::fmt::Display| {
        CoreError::Internal(format!(
            "the core serving this database ({serving}) did not answer: {e}"
        ))
    };
    let token = service_token::mint_command_line(
        &core.secrets.service_token,
        &access::os_user(),
        core.clock.now_micros() / 1_000_000,
        60,
    )?;
    let channel = tonic::transport::Endpoint::from_shared(crate::serving::local_url(serving))
        .map_err(|e| unreachable(&e))?
        .connect_timeout(std::time::Duration::from_secs(5))
        .timeout(ANSWER_WITHIN)
        .connect()
        .await
        .map_err(|e| unreachable(&e))?;
    let mut request = tonic::Request::new(message);
    let bearer = format!("Bearer {token}")
        .parse()
        .map_err(|_| CoreError::Internal("a minted token is not a header value".into()))?;
    request.metadata_mut().insert(courier::metadata::AUTHORIZATION, bearer);
    Ok((channel, request))
}

/// The serving process's refusal, in its own words and code.
fn refused(status: tonic::Status) -> CoreError {
    let (code, param) = courier::errors::from_status(&status);
    CoreError::Rejected {
        code,
        message: status.message().to_owned(),
        param,
    }
}
