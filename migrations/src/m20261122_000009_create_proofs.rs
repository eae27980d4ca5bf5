use sea_orm_migration::prelude::*;

/// Proof of delivery: what the courier recorded at each checkpoint (pickup,
/// dropoff) and the files it handed in. The files themselves live in the blob
/// store; `proof_artifacts.blob_key` points at them.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(ProofCheckpoints::Table)
                    .col(ColumnDef::new(ProofCheckpoints::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(ProofCheckpoints::DeliveryId).string().not_null())
                    .col(ColumnDef::new(ProofCheckpoints::Kind).string().not_null())
                    .col(ColumnDef::new(ProofCheckpoints::PersonName).string().null())
                    .col(ColumnDef::new(ProofCheckpoints::Barcode).string().null())
                    .col(ColumnDef::new(ProofCheckpoints::AgeChecked).boolean().not_null())
                    .col(ColumnDef::new(ProofCheckpoints::LeftAtDoor).boolean().not_null())
                    .col(ColumnDef::new(ProofCheckpoints::SubmittedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        // One submission per checkpoint: a second one loses the race here.
        manager
            .create_index(
                Index::create()
                    .name("proof_checkpoints_delivery_kind")
                    .table(ProofCheckpoints::Table)
                    .col(ProofCheckpoints::DeliveryId)
                    .col(ProofCheckpoints::Kind)
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(ProofArtifacts::Table)
                    .col(ColumnDef::new(ProofArtifacts::Id).string().not_null().primary_key())
                    .col(ColumnDef::new(ProofArtifacts::DeliveryId).string().not_null())
                    .col(ColumnDef::new(ProofArtifacts::Checkpoint).string().not_null())
                    .col(ColumnDef::new(ProofArtifacts::Position).integer().not_null())
                    .col(ColumnDef::new(ProofArtifacts::Kind).string().not_null())
                    .col(ColumnDef::new(ProofArtifacts::FileName).string().not_null())
                    .col(ColumnDef::new(ProofArtifacts::ContentType).string().not_null())
                    .col(ColumnDef::new(ProofArtifacts::BlobKey).string().not_null())
                    .col(ColumnDef::new(ProofArtifacts::SizeBytes).big_integer().not_null())
                    .col(ColumnDef::new(ProofArtifacts::CreatedAt).big_integer().not_null())
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("proof_artifacts_delivery")
                    .table(ProofArtifacts::Table)
                    .col(ProofArtifacts::DeliveryId)
                    .col(ProofArtifacts::Checkpoint)
                    .col(ProofArtifacts::Position)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(ProofArtifacts::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(ProofCheckpoints::Table).to_owned())
            .await
    }
}

#[derive(DeriveIden)]
enum ProofCheckpoints {
    Table,
    Id,
    DeliveryId,
    /// `pickup` or `dropoff`.
    Kind,
    /// Who handed the goods over (pickup) or received them (dropoff).
    PersonName,
    Barcode,
    AgeChecked,
    LeftAtDoor,
    SubmittedAt,
}

#[derive(DeriveIden)]
enum ProofArtifacts {
    Table,
    Id,
    DeliveryId,
    /// The checkpoint kind the file belongs to.
    Checkpoint,
    /// Order within the checkpoint, as submitted.
    Position,
    /// `photo`, `signature`, `signed_delivery_note` or `document`.
    Kind,
    FileName,
    ContentType,
    /// Where the bytes are in the blob store (unguessable).
    BlobKey,
    SizeBytes,
    CreatedAt,
}
