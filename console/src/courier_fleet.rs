//! Whose couriers a page of the console is about: a fleet's drivers or the
//! platform's couriers, where their pages are and who manages them there.
//! Below `couriers` and `courier_pay`, which both show them.

use crate::ConsoleState;
use crate::page::{Layout, Signed};

/// Whose couriers a page shows: a fleet's drivers, or the platform's
/// couriers (no workspace).
pub(crate) struct Fleet {
    pub(crate) workspace: Option<String>,
}

impl Fleet {
    /// The workspace id as `CourierService` takes it (empty: the platform).
    pub(crate) fn workspace_id(&self) -> &str {
        self.workspace.as_deref().unwrap_or("")
    }

    /// Where this fleet's courier pages are.
    pub(crate) fn base(&self, state: &ConsoleState) -> String {
        match &self.workspace {
            Some(workspace) => format!("{}/w/{workspace}/couriers", state.root),
            None => format!("{}/ops/couriers", state.root),
        }
    }

    pub(crate) fn layout(&self, state: &ConsoleState, signed: &Signed, title: &str) -> (Layout, bool) {
        let mut layout = signed.layout(state, title, self.workspace.as_deref(), "live");
        let manages = match &self.workspace {
            Some(_) => {
                layout.section = "couriers";
                layout.workspace.as_ref().is_some_and(|w| w.manages)
            }
            None => {
                layout.section = "ops";
                layout.operator
            }
        };
        (layout, manages)
    }
}
