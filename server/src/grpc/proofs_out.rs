//! Proof of delivery on the wire: the domain's `proofs::Proof` as
//! `courier.v1.ProofOfDelivery`.

use courier::time::micros_to_proto;
use courier::v1 as pb;

use courier_orders::proofs::{ArtifactKind, Checkpoint, CheckpointProof, Proof, ProofLink};

pub fn proof_out(proof: Proof) -> pb::ProofOfDelivery {
    pb::ProofOfDelivery {
        delivery_id: proof.delivery_id,
        checkpoints: proof.checkpoints.into_iter().map(checkpoint_proof_out).collect(),
    }
}

fn checkpoint_proof_out(c: CheckpointProof) -> pb::ProofCheckpoint {
    pb::ProofCheckpoint {
        kind: checkpoint_out(c.checkpoint) as i32,
        recipient_name: c.person_name,
        submitted_at: Some(micros_to_proto(c.submitted_at)),
        artifacts: c.files.into_iter().map(link_out).collect(),
    }
}

fn link_out(link: ProofLink) -> pb::ProofArtifact {
    pb::ProofArtifact {
        kind: artifact_kind_out(link.kind) as i32,
        file_name: Some(link.file_name),
        content_type: Some(link.content_type),
        download_url: Some(link.download_url),
    }
}

fn checkpoint_out(checkpoint: Checkpoint) -> pb::CheckpointKind {
    match checkpoint {
        Checkpoint::Pickup => pb::CheckpointKind::Pickup,
        Checkpoint::Dropoff => pb::CheckpointKind::Dropoff,
    }
}

fn artifact_kind_out(kind: ArtifactKind) -> pb::ArtifactKind {
    match kind {
        ArtifactKind::Photo => pb::ArtifactKind::Photo,
        ArtifactKind::Signature => pb::ArtifactKind::Signature,
        ArtifactKind::SignedDeliveryNote => pb::ArtifactKind::SignedDeliveryNote,
        ArtifactKind::Document => pb::ArtifactKind::Document,
    }
}
