//! The delivery creates waiting for their shared transaction (`super::batch`):
//! state the core holds, with no rule of its own.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use tokio::sync::oneshot;

use super::{Delivery, entity};
use crate::events::NewEvent;
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

/// The creates waiting for a transaction, and how many tasks are draining
/// them.
#[derive(Default)]
pub struct Queue(Mutex<QueueState>);

#[derive(Default)]
pub(super) struct QueueState {
    /// Each request's creates, in arrival order: a request's creates are
    /// stored in one transaction (a batch's credit is reserved in its
    /// items' order).
    pub(super) waiting: VecDeque<Vec<Waiting>>,
    /// Tasks draining the queue, each committing one group at a time.
    pub(super) draining: usize,
}

impl Queue {
    pub(super) fn state(&self) -> MutexGuard<'_, QueueState> {
        // Every change under the lock is a push, a take or a count: a
        // panicking holder leaves nothing half done.
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A delivery ready to be stored: checked, priced, every column decided,
/// and everything the shared transaction writes or answers already made from
/// it in the request, side by side, leaving the few drains of a process
/// only their writes (BENCHMARKS.md, "Creates in batches").
pub(crate) struct Prepared {
    pub(super) row: entity::Model,
    /// The row as the domain reads it.
    pub(super) delivery: Delivery,
    /// The create's answer on the wire.
    pub(super) answer: Vec<u8>,
    /// Its `delivery.created` event.
    pub(super) created: NewEvent,
    /// Who the audit log names for this create, when its caller's changes
    /// are audited (`Principal::audited_as`).
    pub(super) audited_as: Option<String>,
}
