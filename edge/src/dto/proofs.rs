//! Proof of delivery as the API shows it (docs/guide.md "Proof of delivery").
//! Every field is always present, `null` where unset; kinds the edge does not
//! know yet are `unknown`, as the public enums allow.

use courier::json::time_out;
use courier::names::PublicName;
use courier::v1 as pb;
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ProofArtifact)]
pub struct ProofArtifactJson {
    #[schema(value_type = pb::ArtifactKind)]
    pub kind: &'static str,
    pub file_name: Option<String>,
    pub content_type: Option<String>,
    /// Signed link, valid 15 minutes.
    pub download_url: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ProofCheckpoint)]
pub struct ProofCheckpointJson {
    #[schema(value_type = pb::CheckpointKind)]
    pub kind: &'static str,
    pub recipient_name: Option<String>,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub submitted_at: Option<String>,
    pub artifacts: Vec<ProofArtifactJson>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ProofOfDelivery)]
pub struct ProofOfDeliveryJson {
    pub delivery_id: String,
    pub checkpoints: Vec<ProofCheckpointJson>,
}

/// The public name of a kind; a value this edge does not know yet reads as
/// the unspecified kind, whose name is `unknown`.
fn kind_name<K: PublicName + TryFrom<i32> + Default>(value: i32) -> &'static str {
    K::try_from(value)
        .unwrap_or_default()
        .public_name()
        .unwrap_or("unknown")
}

impl From<pb::ProofOfDelivery> for ProofOfDeliveryJson {
    fn from(p: pb::ProofOfDelivery) -> Self {
        ProofOfDeliveryJson {
            delivery_id: p.delivery_id,
            checkpoints: p
                .checkpoints
                .into_iter()
                .map(|c| ProofCheckpointJson {
                    kind: kind_name::<pb::CheckpointKind>(c.kind),
                    recipient_name: c.recipient_name,
                    submitted_at: time_out(c.submitted_at.as_ref()),
                    artifacts: c
                        .artifacts
                        .into_iter()
                        .map(|a| ProofArtifactJson {
                            kind: kind_name::<pb::ArtifactKind>(a.kind),
                            file_name: a.file_name,
                            content_type: a.content_type,
                            download_url: a.download_url,
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}
