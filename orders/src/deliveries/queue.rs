//! The delivery creates waiting for their shared transaction (`super::batch`):
//! state the core holds, with no rule of its own.

use std::sync::{Mutex, MutexGuard};

use tokio::sync::oneshot;

use super::entity;
use crate::idempotency::{Idempotent, Scope};
use courier_store::CoreResult;

/// A checked and priced create with its idempotency key.
pub(crate) struct Create {
    pub scope: Scope,
    pub hash: String,
    pub request_id: String,
    /// When the request arrived.
    pub now: i64,
    pub prepared: Prepared,
}

pub(super) type Answer = CoreResult<Idempotent>;

pub(super) struct Waiting {
    pub(super) create: Create,
    pub(super) answer: oneshot::Sender<Answer>,
}

/// The creates waiting for a transaction, and whether a task is draining
/// them.
#[derive(Default)]
pub struct Queue(Mutex<QueueState>);

#[derive(Default)]
pub(super) struct QueueState {
    pub(super) waiting: Vec<Waiting>,
    pub(super) draining: bool,
}

impl Queue {
    pub(super) fn state(&self) -> MutexGuard<'_, QueueState> {
        // Every change under the lock is a push, a take or a flag: a
        // panicking holder leaves nothing half done.
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A delivery ready to be stored: checked, priced, every column decided.
pub(crate) struct Prepared {
    pub(super) row: entity::Model,
    /// Who the audit log names for this create, when its caller's changes
    /// are audited (`Principal::audited_as`).
    pub(super) audited_as: Option<String>,
}
