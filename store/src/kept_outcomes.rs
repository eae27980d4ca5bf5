//! The outcome an idempotency key keeps (the core's `idempotency`): the
//! create's answer as the transport wrote it, or its refusal, with the
//! first request's id. Stored as the small protobuf message its rows have
//! always held, so rows written before this module read the same.

use prost::Message;

use crate::error::{CoreError, CoreResult};

/// A key's outcome: `answer` when `error_code` is empty, else the refusal.
#[derive(Clone, PartialEq, Message)]
pub struct KeptOutcome {
    #[prost(bytes = "vec", tag = "1")]
    pub answer: Vec<u8>,
    #[prost(string, tag = "2")]
    pub error_code: String,
    #[prost(string, tag = "3")]
    pub error_message: String,
    #[prost(string, tag = "4")]
    pub error_param: String,
    /// The request id of the first request, quoted again in replayed errors.
    #[prost(string, tag = "5")]
    pub request_id: String,
}

impl KeptOutcome {
    pub fn to_bytes(&self) -> Vec<u8> {
        self.encode_to_vec()
    }

    pub fn from_bytes(bytes: &[u8]) -> CoreResult<KeptOutcome> {
        KeptOutcome::decode(bytes).map_err(|e| CoreError::Internal(format!("corrupt idempotency outcome: {e}")))
    }
}
