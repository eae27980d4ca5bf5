//! The audit log as the back office and `courier-core audit` read it: each
//! entry with the courier it is about by name (docs/console.md, "Back
//! office and audit log"), so that "job.assign" says to whom. Names are
//! read with the page, not stored in the entry: the log says who the
//! courier is now, and a courier's rename needs no change of the log.

use std::collections::HashMap;

use crate::{Core, CoreResult, couriers};
use courier_identity::audit::{Entry, courier_of, page};

/// An entry as the log shows it: with the courier it is about.
#[derive(Clone, Debug)]
pub struct Listed {
    pub entry: Entry,
    /// The courier's id and their name now (`None` for a courier no longer
    /// known).
    pub courier: Option<(String, Option<String>)>,
}

/// The log, newest first, in keyset pages; the couriers' names read in one
/// query per page.
pub async fn list(core: &Core, page_size: i32, page_token: Option<&str>) -> CoreResult<(Vec<Listed>, Option<String>)> {
    let (entries, next) = page(core, page_size, page_token).await?;
    let mut ids: Vec<String> = entries.iter().filter_map(courier_of).map(str::to_owned).collect();
    ids.sort_unstable();
    ids.dedup();
    let names: HashMap<String, String> = if ids.is_empty() {
        HashMap::new()
    } else {
        couriers::get_many(&core.db, ids)
            .await?
            .into_iter()
            .map(|c| (c.id, c.name))
            .collect()
    };
    let listed = entries
        .into_iter()
        .map(|entry| {
            let courier = courier_of(&entry).map(|id| (id.to_owned(), names.get(id).cloned()));
            Listed { entry, courier }
        })
        .collect();
    Ok((listed, next))
}
