//! Proof of delivery as the API shows it (contract 2.7). Every field is
//! always present, `null` where unset; kinds the edge does not know yet are
//! `unknown`, as the contract's enums allow.

use courier::json::time_out;
use courier::v1 as pb;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct ProofArtifactJson {
    pub kind: &'static str,
    pub file_name: Option<String>,
    pub content_type: Option<String>,
    /// Signed link, valid 15 minutes.
    pub download_url: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct ProofCheckpointJson {
    pub kind: &'static str,
    pub recipient_name: Option<String>,
    pub submitted_at: Option<String>,
    pub artifacts: Vec<ProofArtifactJson>,
}

#[derive(Debug, Serialize)]
pub struct ProofOfDeliveryJson {
    pub delivery_id: String,
    pub checkpoints: Vec<ProofCheckpointJson>,
}

fn checkpoint_kind(value: i32) -> &'static str {
    match pb::CheckpointKind::try_from(value) {
        Ok(pb::CheckpointKind::Pickup) => "pickup",
        Ok(pb::CheckpointKind::Dropoff) => "dropoff",
        _ => "unknown",
    }
}

fn artifact_kind(value: i32) -> &'static str {
    match pb::ArtifactKind::try_from(value) {
        Ok(pb::ArtifactKind::Photo) => "photo",
        Ok(pb::ArtifactKind::Signature) => "signature",
        Ok(pb::ArtifactKind::SignedDeliveryNote) => "signed_delivery_note",
        Ok(pb::ArtifactKind::Document) => "document",
        _ => "unknown",
    }
}

impl From<pb::ProofOfDelivery> for ProofOfDeliveryJson {
    fn from(p: pb::ProofOfDelivery) -> Self {
        ProofOfDeliveryJson {
            delivery_id: p.delivery_id,
            checkpoints: p
                .checkpoints
                .into_iter()
                .map(|c| ProofCheckpointJson {
                    kind: checkpoint_kind(c.kind),
                    recipient_name: c.recipient_name,
                    submitted_at: time_out(c.submitted_at.as_ref()),
                    artifacts: c
                        .artifacts
                        .into_iter()
                        .map(|a| ProofArtifactJson {
                            kind: artifact_kind(a.kind),
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
