//! An identity in this process for tests, without a server or the network:
//! a fresh SQLite database in a temporary directory, migrated, with the test
//! clock. This crate's unit tests open one each ([`TestIdentity::open`]).
//! Always compiled, like `courier_core::testing`.

use std::ops::Deref;

use crate::access::{act, command_line};
use crate::workspaces::{self, BillingSettings, NewWorkspace, Plan, Workspace, WorkspaceKind};
use crate::{Identity, Store};
use courier_store::clock::Clock;
use courier_store::testing::TestDirectory;

/// An [`Identity`] on a database of its own, removed with it.
pub struct TestIdentity {
    identity: Identity,
    _dir: TestDirectory,
}

impl TestIdentity {
    pub async fn open() -> TestIdentity {
        let dir = TestDirectory::new("courier-identity-test");
        let store = Store::open(dir.config(), Clock::default())
            .await
            .expect("the store opens");
        TestIdentity {
            identity: Identity::new(store),
            _dir: dir,
        }
    }

    /// [`workspace`] of this test's database, without invoice billing.
    pub async fn workspace(&self) -> Workspace {
        workspace(self, BillingSettings::default()).await
    }
}

/// A business workspace with `billing`, made as the operator's command line
/// makes one.
pub async fn workspace(identity: &Identity, billing: BillingSettings) -> Workspace {
    let new = NewWorkspace {
        name: "Test workspace".into(),
        kind: WorkspaceKind::Business,
        plan: Plan::default(),
        billing,
    };
    let granted = command_line::<act::Administer>().expect("the command line administers");
    workspaces::create(identity, &granted, new).await.expect("a workspace")
}

impl Deref for TestIdentity {
    type Target = Identity;

    fn deref(&self) -> &Identity {
        &self.identity
    }
}
