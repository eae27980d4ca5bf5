//! The courier core's server: the gRPC services (`courier.v1` to the edge
//! and mobile teams, `courier.internal.v1` to dispatch, billing and the back
//! office, `courier.app.v1` to couriers' apps), the one reading of who calls,
//! the background workers and the operator's command line, over the domain
//! of `courier-core`.
//!
//! Everything here is transport or scheduling: a service decodes its
//! request, calls the domain and encodes the answer; a worker calls the
//! domain on its clock. No business rule lives here.

pub mod caller;
pub mod command_line;
pub mod grpc;
pub mod serving;
pub mod workers;
