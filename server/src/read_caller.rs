//! The gRPC server's one reading of who calls: before a request reaches
//! its service, the method's needs are looked up ([`methods::find`]), the
//! caller is read from the metadata and checked
//! ([`caller::authenticate`]), and put into the request's extensions for
//! the handler ([`caller::grant`], [`caller::api`], [`caller::console`]).
//! A caller who cannot be read (no key, a revoked key, an expired session,
//! a missing CSRF token, a forged service token) is refused here, and the
//! handler never runs.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tonic::codegen::http;

use courier_core::Core;
use courier_core::access::caller::{self, Caller};
use courier_core::access::methods;

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
