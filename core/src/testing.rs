//! A core in this process for tests, without a server or the network: a
//! fresh SQLite database in a temporary directory, migrated, with the test
//! clock (`Clock::advance` moves it forward). The domain modules' unit tests
//! open one each ([`TestCore::open`]) and call the modules directly, with
//! the helpers of `courier_orders::testing`; the end-to-end harness starts
//! its servers with the same settings (`courier_store::testing::config`). Always compiled: a
//! feature for it would give the workspace's test build a core of its own
//! to compile (README "Figures: building").

use std::ops::Deref;
use std::sync::Arc;

use crate::Core;
use courier_identity::workspaces::{BillingSettings, Workspace};
pub use courier_orders::testing::{TestWire, answered_id, caller, create_delivery, new_delivery, register_endpoint};
use courier_store::clock::Clock;
use courier_store::config::CoreConfig;
use courier_store::testing::TestDirectory;
pub use courier_store::testing::wait_until;

/// A [`Core`] on a database of its own, removed with it. No worker runs
/// unless the test starts it.
pub struct TestCore {
    core: Core,
    _dir: TestDirectory,
}

impl TestCore {
    pub async fn open() -> TestCore {
        TestCore::open_with(|_| {}).await
    }

    /// Like [`TestCore::open`], with the test settings adjusted by `configure`.
    pub async fn open_with(configure: impl FnOnce(&mut CoreConfig)) -> TestCore {
        let dir = TestDirectory::new("courier-core-test");
        let mut config = dir.config();
        configure(&mut config);
        let core = Core::start(config, Clock::default(), Arc::new(TestWire))
            .await
            .expect("the core opens");
        TestCore { core, _dir: dir }
    }

    /// `courier_orders::testing::workspace` of this test's database.
    pub async fn workspace(&self, billing: Option<BillingSettings>) -> Workspace {
        courier_orders::testing::workspace(self, billing).await
    }
}

impl Deref for TestCore {
    type Target = Core;

    fn deref(&self) -> &Core {
        &self.core
    }
}
