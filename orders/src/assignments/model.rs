//! Why automatic dispatch passes couriers over, with no rule that reads or
//! writes it: the dispatch map the core holds names these.

/// Why automatic dispatch passes a courier over for a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassReason {
    /// They declined its offer.
    Declined,
    /// They let its offer expire.
    Expired,
    /// A dispatcher took it back from them.
    Unassigned,
}

/// A courier automatic dispatch never offers a job again
/// (docs/couriers.md "Automatic dispatch"); a dispatcher may still give it
/// to them by hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassedOver {
    pub job_id: String,
    pub courier_id: String,
    pub reason: PassReason,
    pub at: i64,
}
