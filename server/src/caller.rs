//! The gRPC server's one reading of who calls: before a request reaches
//! its service, the method's needs are looked up ([`methods::find`]), the
//! caller is read from the metadata and checked
//! ([`caller::authenticate`]), and put into the request's extensions; the
//! handler then asks for it through this module ([`grant`], [`api`],
//! [`console`], …), which hands the core's rules what the request carries.
//! A caller who cannot be read (no key, a revoked key, an expired session,
//! a missing CSRF token, a forged service token) is refused here, and the
//! handler never runs.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tonic::Request;
use tonic::codegen::http;

use courier::metadata;
use courier_core::caller::{self, Caller, ConsoleCaller, CourierCaller};
use courier_core::{Core, CoreError, CoreResult};
use courier_identity::access::{Act, Granted, Permission, methods};
use courier_identity::auth::Principal;

/// The layer ([`tower::Layer`]) reading the caller of every call.
#[derive(Clone)]
pub struct ReadCaller {
    core: Core,
}

impl ReadCaller {
    pub fn new(core: Core) -> ReadCaller {
        ReadCaller { core }
    }
}

impl<S> tower::Layer<S> for ReadCaller {
    type Service = ReadCallerService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        ReadCallerService {
            inner,
            core: self.core.clone(),
        }
    }
}

#[derive(Clone)]
pub struct ReadCallerService<S> {
    inner: S,
    core: Core,
}

impl<S, B, R> tower::Service<http::Request<B>> for ReadCallerService<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
    R: Default,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> Self::Future {
        let Some(method) = methods::find(request.uri().path()) else {
            return Box::pin(self.inner.call(request));
        };
        // The service that was polled ready serves this request; its clone
        // waits for the next one.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let core = self.core.clone();
        Box::pin(async move {
            let headers = request.headers();
            let header = |name: &str| {
                headers
                    .get(name)
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_owned)
            };
            match caller::authenticate(&core, method, header).await {
                Ok(actor) => {
                    request.extensions_mut().insert(Caller {
                        actor: Arc::new(actor),
                        method,
                    });
                    inner.call(request).await
                }
                Err(error) => Ok(tonic::Status::from(error).into_http()),
            }
        })
    }
}

/// The caller the layer read for `request`; an internal error for a
/// method outside the access table ([`methods::METHODS`]).
fn read<T>(request: &Request<T>) -> CoreResult<&Caller> {
    request
        .extensions()
        .get::<Caller>()
        .ok_or_else(|| CoreError::Internal("a method without an access rule was called".into()))
}

/// [`caller::grant`] for the caller of `request`.
pub async fn grant<A: Act, T>(
    core: &Core,
    request: &Request<T>,
    workspace_id: Option<&str>,
    hidden: &str,
) -> CoreResult<Granted<A>> {
    caller::grant(core, read(request)?, workspace_id, hidden).await
}

/// [`caller::could`] for the caller of `request`; `false` when none was read.
pub async fn could<A: Act, T>(core: &Core, request: &Request<T>, workspace_id: &str) -> bool {
    match read(request) {
        Ok(read) => caller::could::<A>(core, read, workspace_id).await,
        Err(_) => false,
    }
}

/// The public API's caller of `request` when it may use `permission`
/// (`None`: any valid caller of the workspace), then the refusal of a body
/// the edge could not parse.
pub async fn api<T>(core: &Core, request: &Request<T>, permission: Option<Permission>) -> CoreResult<Principal> {
    api_admitted(core, request, permission, |_| Ok(())).await
}

/// Like [`api`], with `admit`, the endpoint's own checks of the caller
/// ([`caller::api`]).
pub async fn api_admitted<T>(
    core: &Core,
    request: &Request<T>,
    permission: Option<Permission>,
    admit: impl FnOnce(&Principal) -> CoreResult<()>,
) -> CoreResult<Principal> {
    let principal = caller::api(core, read(request)?, permission, admit).await?;
    request_error(request)?;
    Ok(principal)
}

/// [`caller::console`] for the caller of `request`.
pub fn console<T>(request: &Request<T>) -> CoreResult<&ConsoleCaller> {
    caller::console(read(request)?)
}

/// [`caller::courier`] for the caller of `request`.
pub fn courier<T>(request: &Request<T>) -> CoreResult<&CourierCaller> {
    caller::courier(read(request)?)
}

/// [`caller::sign_in_address`] for `request`, whose peer is the
/// connection's.
pub fn sign_in_address<T>(request: &Request<T>, claimed: &str) -> CoreResult<String> {
    let peer = request.remote_addr().map(|peer| peer.ip());
    caller::sign_in_address(read(request)?, peer, claimed)
}

/// The refusal of a request body the edge could not parse, forwarded in
/// `x-request-error-bin`, or of its text (`grpc::request_text`); reported
/// once the caller may call the endpoint.
fn request_error<T>(request: &Request<T>) -> CoreResult<()> {
    if let Some(refusal) = request.extensions().get::<Refusal>() {
        return Err(refusal.clone().into());
    }
    let Some(value) = request.metadata().get_bin(metadata::REQUEST_ERROR) else {
        return Ok(());
    };
    let malformed = || CoreError::invalid("x-request-error-bin", "malformed x-request-error-bin");
    let bytes = value.to_bytes().map_err(|_| malformed())?;
    let (code, message, param) = courier::errors::decode_request_error(&bytes).ok_or_else(malformed)?;
    Err(CoreError::Rejected { code, message, param })
}

/// A refusal of a public API request's text, put in the request by the
/// text check (`grpc::request_text`) and reported once the caller may call
/// the method.
#[derive(Clone, Debug)]
pub struct Refusal {
    pub param: String,
    pub message: String,
}

impl From<Refusal> for CoreError {
    fn from(refusal: Refusal) -> CoreError {
        CoreError::invalid(refusal.param, refusal.message)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use prost::Message;

    use super::*;

    /// The table names exactly the methods the protos declare.
    #[test]
    fn every_method_of_every_service_is_in_the_table_once() {
        let set = prost_types::FileDescriptorSet::decode(courier::FILE_DESCRIPTOR_SET).expect("descriptor set");
        let declared: BTreeSet<String> = set
            .file
            .iter()
            .filter(|file| matches!(file.package(), "courier.v1" | "courier.internal.v1" | "courier.app.v1"))
            .flat_map(|file| {
                file.service.iter().flat_map(move |service| {
                    service
                        .method
                        .iter()
                        .map(move |method| format!("/{}.{}/{}", file.package(), service.name(), method.name()))
                })
            })
            .collect();
        let listed: Vec<&str> = methods::METHODS.iter().map(|m| m.path).collect();
        let unique: BTreeSet<String> = listed.iter().map(|p| p.to_string()).collect();
        assert_eq!(unique.len(), listed.len(), "a method listed twice");
        assert_eq!(unique, declared);
    }
}
