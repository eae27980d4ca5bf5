//! Proof of delivery (docs/guide.md "Proof of delivery"): what the courier
//! records at the pickup and the dropoff, checked against the rules stored on
//! the delivery, and read back by the client with short-lived download links.
//!
//! Owns the `proof_checkpoints` and `proof_artifacts` tables; the files go to
//! the blob store (`courier_store::blobs`), since they are too large for the
//! database. Dispatch (live) and the simulator (test, with generated sample
//! files) submit through [`submit`], in the transaction that also moves the
//! delivery, so a checkpoint is recorded exactly once: a second submission is
//! `409 conflict`, decided by a unique index even when two race.
//!
//! Download links are signed rather than authenticated, so that a client can
//! hand one to a browser or a colleague without its API key: the signature
//! (HMAC with the `download_url` secret) covers the artifact id and the
//! expiry, and a link lives 15 minutes.

pub mod artifact;
pub mod checkpoint;
pub mod sample;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use courier::errors::ErrorCode;
use sea_orm::{ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

use crate::deliveries::{self, Delivery, ProofRequirements};
use crate::{CoreError, CoreResult, Orders};
use courier_identity::auth::Principal;
use courier_store::ids;
use courier_store::secrets;

/// How long a `download_url` stays valid.
pub const LINK_VALIDITY_SECS: i64 = 15 * 60;
/// The most files one checkpoint takes.
pub const MAX_FILES: usize = 20;
/// The largest file one checkpoint takes (10 MiB).
pub const MAX_FILE_BYTES: usize = 10 * 1024 * 1024;
/// The most bytes one checkpoint takes, all files together (32 MiB).
pub const MAX_TOTAL_BYTES: usize = 32 * 1024 * 1024;
/// The longest name, barcode or file name.
const MAX_TEXT: usize = 200;

/// Where along the delivery proof is collected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checkpoint {
    Pickup,
    Dropoff,
}

impl Checkpoint {
    pub fn as_str(self) -> &'static str {
        match self {
            Checkpoint::Pickup => "pickup",
            Checkpoint::Dropoff => "dropoff",
        }
    }

    pub fn parse(text: &str) -> Option<Checkpoint> {
        match text {
            "pickup" => Some(Checkpoint::Pickup),
            "dropoff" => Some(Checkpoint::Dropoff),
            _ => None,
        }
    }
}

/// What a proof file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArtifactKind {
    Photo,
    Signature,
    SignedDeliveryNote,
    Document,
}

impl ArtifactKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ArtifactKind::Photo => "photo",
            ArtifactKind::Signature => "signature",
            ArtifactKind::SignedDeliveryNote => "signed_delivery_note",
            ArtifactKind::Document => "document",
        }
    }

    pub fn parse(text: &str) -> Option<ArtifactKind> {
        [
            ArtifactKind::Photo,
            ArtifactKind::Signature,
            ArtifactKind::SignedDeliveryNote,
            ArtifactKind::Document,
        ]
        .into_iter()
        .find(|k| k.as_str() == text)
    }
}

/// One file the courier hands in.
#[derive(Clone, Debug)]
pub struct ProofFile {
    pub kind: ArtifactKind,
    pub file_name: String,
    pub content_type: String,
    pub content: Vec<u8>,
}

/// What the courier records at one checkpoint.
#[derive(Clone, Debug)]
pub struct ProofSubmission {
    pub checkpoint: Checkpoint,
    pub files: Vec<ProofFile>,
    /// Who handed the goods over (pickup) or received them (dropoff).
    pub person_name: Option<String>,
    pub barcode: Option<String>,
    pub age_checked: bool,
    pub left_at_door: bool,
    /// The dropoff PIN the recipient told the courier (`dropoff_pin`).
    pub pin: Option<String>,
    /// The courier app's own id for this submission: a second submission
    /// with the same id is the first one sent again ([`submitted_as`]).
    pub submission_id: Option<String>,
}

/// What the delivery's rules ask at one checkpoint.
struct Needs {
    photos: u32,
    signature: bool,
    person_name: bool,
    barcode: bool,
    age_check: bool,
    leave_at_door: bool,
    /// Who signs and is named: "sender" or "recipient".
    person: &'static str,
}

fn needs(proof: &ProofRequirements, checkpoint: Checkpoint) -> Needs {
    match checkpoint {
        Checkpoint::Pickup => Needs {
            photos: proof.pickup.photos,
            signature: proof.pickup.signature,
            person_name: proof.pickup.sender_name,
            barcode: proof.pickup.barcode,
            age_check: false,
            leave_at_door: false,
            person: "sender",
        },
        Checkpoint::Dropoff => Needs {
            photos: proof.dropoff.photos,
            signature: proof.dropoff.signature,
            person_name: proof.dropoff.recipient_name,
            barcode: proof.dropoff.barcode,
            age_check: proof.dropoff.age_check,
            leave_at_door: proof.dropoff.leave_at_door,
            person: "recipient",
        },
    }
}

/// Whether the delivery's rules ask for anything at `checkpoint`, so that
/// the move past it (pick up, complete the handover) waits for its proof;
/// a dropoff PIN is entered with the dropoff proof.
pub fn required(proof: &ProofRequirements, checkpoint: Checkpoint) -> bool {
    let n = needs(proof, checkpoint);
    let pin = checkpoint == Checkpoint::Dropoff && proof.dropoff.pin;
    n.photos > 0 || n.signature || n.person_name || n.barcode || n.age_check || pin
}

/// Whether the rules ask for anything at either checkpoint.
pub fn asks_anything(proof: &ProofRequirements) -> bool {
    required(proof, Checkpoint::Pickup) || required(proof, Checkpoint::Dropoff)
}

/// The proof rules `delivery`'s courier works to: the delivery's own, or
/// none but its dropoff PIN when its workspace's plan lacks proof of
/// delivery (its client could never read the proof, so the courier is not
/// asked for it; the PIN guards the handover, not a record).
pub async fn in_force(db: &impl ConnectionTrait, delivery: &Delivery) -> CoreResult<ProofRequirements> {
    let workspace = courier_identity::workspaces::get(db, &delivery.workspace_id).await?;
    Ok(if workspace.plan.proof_of_delivery {
        delivery.proof.clone()
    } else {
        let mut rules = nothing();
        rules.dropoff.pin = delivery.proof.dropoff.pin;
        rules
    })
}

/// Rules that ask for nothing at either checkpoint.
fn nothing() -> ProofRequirements {
    let mut rules = ProofRequirements::default();
    rules.pickup.photos = 0;
    rules.dropoff.photos = 0;
    rules
}

/// Checks `submission` against the delivery's rules (see [`submit`]).
fn check(proof: &ProofRequirements, s: &ProofSubmission) -> CoreResult<()> {
    let at = s.checkpoint.as_str();
    let n = needs(proof, s.checkpoint);
    if s.left_at_door {
        if s.checkpoint == Checkpoint::Pickup {
            return Err(CoreError::invalid(
                "left_at_door",
                "left_at_door applies only at the dropoff.",
            ));
        }
        if !n.leave_at_door {
            return Err(CoreError::invalid(
                "left_at_door",
                "This delivery does not allow leaving the goods at the door (proof_of_delivery.dropoff.leave_at_door).",
            ));
        }
    }
    if s.pin.is_some() && s.checkpoint == Checkpoint::Pickup {
        return Err(CoreError::invalid("pin", "pin applies only at the dropoff."));
    }
    if s.age_checked && s.checkpoint == Checkpoint::Pickup {
        return Err(CoreError::invalid(
            "age_checked",
            "age_checked applies only at the dropoff.",
        ));
    }
    if s.files.len() > MAX_FILES {
        return Err(CoreError::invalid(
            "files",
            format!("A checkpoint takes at most {MAX_FILES} files; got {}.", s.files.len()),
        ));
    }
    for (i, file) in s.files.iter().enumerate() {
        check_file(i, file)?;
    }
    if s.files.iter().map(|f| f.content.len()).sum::<usize>() > MAX_TOTAL_BYTES {
        return Err(CoreError::invalid(
            "files",
            format!(
                "A checkpoint takes at most {} MiB of files in all.",
                MAX_TOTAL_BYTES / (1024 * 1024)
            ),
        ));
    }
    let photos = s.files.iter().filter(|f| f.kind == ArtifactKind::Photo).count();
    // Goods left at the door need a photo of where they were left.
    let required_photos = if s.left_at_door { n.photos.max(1) } else { n.photos } as usize;
    if photos < required_photos {
        let what = if s.left_at_door {
            " (including where the goods were left)"
        } else {
            ""
        };
        return Err(CoreError::invalid(
            "files",
            format!("The {at} needs at least {required_photos} photo(s){what}; got {photos}."),
        ));
    }
    let signed = s
        .files
        .iter()
        .any(|f| matches!(f.kind, ArtifactKind::Signature | ArtifactKind::SignedDeliveryNote));
    if n.signature && !s.left_at_door && !signed {
        return Err(CoreError::invalid(
            "files",
            format!(
                "The {at} needs the {}'s signature: a file of kind signature or signed_delivery_note.",
                n.person
            ),
        ));
    }
    let person_name = check_text("person_name", s.person_name.as_deref())?;
    if n.person_name && !s.left_at_door && person_name.is_none() {
        return Err(CoreError::invalid(
            "person_name",
            format!("The {at} needs the {}'s name.", n.person),
        ));
    }
    let barcode = check_text("barcode", s.barcode.as_deref())?;
    if n.barcode && barcode.is_none() {
        return Err(CoreError::invalid(
            "barcode",
            format!("The {at} needs the scanned barcode."),
        ));
    }
    if n.age_check && !s.age_checked {
        return Err(CoreError::invalid(
            "age_checked",
            "The recipient's ID must be checked: this delivery carries age-restricted goods.",
        ));
    }
    Ok(())
}

/// A name or barcode: absent, or 1 to 200 characters once trimmed, without
/// control characters. Returns the trimmed text.
fn check_text<'a>(param: &str, value: Option<&'a str>) -> CoreResult<Option<&'a str>> {
    let Some(text) = value.map(str::trim) else {
        return Ok(None);
    };
    let length = text.chars().count();
    if length == 0 || length > MAX_TEXT || text.chars().any(char::is_control) {
        return Err(CoreError::invalid(
            param,
            format!("{param} must be 1 to {MAX_TEXT} characters without control characters."),
        ));
    }
    Ok(Some(text))
}

fn check_file(i: usize, file: &ProofFile) -> CoreResult<()> {
    let name = &file.file_name;
    let length = name.chars().count();
    if name.trim().is_empty() || length > MAX_TEXT || name.chars().any(|c| c.is_control() || c == '/' || c == '\\') {
        return Err(CoreError::invalid(
            format!("files.{i}.file_name"),
            format!("file_name must be 1 to {MAX_TEXT} characters, without control characters or path separators."),
        ));
    }
    if !is_media_type(&file.content_type) {
        return Err(CoreError::invalid(
            format!("files.{i}.content_type"),
            "content_type must be a media type such as image/jpeg.",
        ));
    }
    if !FileType::may_be_declared(&file.content_type) {
        return Err(CoreError::invalid(
            format!("files.{i}.content_type"),
            format!(
                "Proof files are {}; {} is not one of them.",
                FileType::NAMES,
                file.content_type.trim()
            ),
        ));
    }
    if file.content.is_empty() {
        return Err(CoreError::invalid(format!("files.{i}.content"), "The file is empty."));
    }
    if file.content.len() > MAX_FILE_BYTES {
        return Err(CoreError::invalid(
            format!("files.{i}.content"),
            format!("A proof file is at most {} MiB.", MAX_FILE_BYTES / (1024 * 1024)),
        ));
    }
    match FileType::of(&file.content) {
        None => Err(CoreError::invalid(
            format!("files.{i}.content"),
            format!(
                "The file is not one of the proof file types ({}): its bytes are checked, whatever its content_type says.",
                FileType::NAMES
            ),
        )),
        Some(FileType::Pdf) if file.kind == ArtifactKind::Photo => Err(CoreError::invalid(
            format!("files.{i}.content"),
            "A photo must be a JPEG, PNG, WebP or HEIC image; send a PDF as a document.",
        )),
        Some(_) => Ok(()),
    }
}

/// What a proof file may be (docs/guide.md "Proof of delivery"), told by
/// its first bytes, never by the `content_type` it was declared with: a
/// file is stored and served with the media type of what it is. Nothing a
/// browser would run (HTML, SVG, script) is one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileType {
    Jpeg,
    Png,
    Webp,
    /// HEIC (HEVC-coded HEIF), as iPhones take photos.
    Heic,
    /// Other HEIF images.
    Heif,
    Pdf,
}

impl FileType {
    const ALL: [FileType; 6] = [
        FileType::Jpeg,
        FileType::Png,
        FileType::Webp,
        FileType::Heic,
        FileType::Heif,
        FileType::Pdf,
    ];

    /// The types in words, for refusals.
    pub const NAMES: &'static str = "JPEG, PNG, WebP or HEIC images, or PDF documents";

    pub fn media_type(self) -> &'static str {
        match self {
            FileType::Jpeg => "image/jpeg",
            FileType::Png => "image/png",
            FileType::Webp => "image/webp",
            FileType::Heic => "image/heic",
            FileType::Heif => "image/heif",
            FileType::Pdf => "application/pdf",
        }
    }

    /// The type of `content` by its magic bytes, if it is one of these.
    pub fn of(content: &[u8]) -> Option<FileType> {
        let at = |offset: usize, magic: &[u8]| content.get(offset..offset + magic.len()) == Some(magic);
        if at(0, b"\xff\xd8\xff") {
            Some(FileType::Jpeg)
        } else if at(0, b"\x89PNG\r\n\x1a\n") {
            Some(FileType::Png)
        } else if at(0, b"RIFF") && at(8, b"WEBP") {
            Some(FileType::Webp)
        } else if at(0, b"%PDF-") {
            Some(FileType::Pdf)
        } else if at(4, b"ftyp") {
            // An ISO media file: its major brand says which.
            match content.get(8..12)? {
                b"heic" | b"heix" | b"heim" | b"heis" | b"hevc" | b"hevx" => Some(FileType::Heic),
                b"mif1" | b"msf1" => Some(FileType::Heif),
                _ => None,
            }
        } else {
            None
        }
    }

    /// Whether a file may be declared as `content_type`: one of these
    /// types (or a common alias), or `application/octet-stream` (a sender
    /// that does not know); its bytes decide what it is.
    pub fn may_be_declared(content_type: &str) -> bool {
        let essence = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        matches!(
            essence.as_str(),
            "image/jpg" | "image/pjpeg" | "application/octet-stream"
        ) || FileType::ALL.iter().any(|t| t.media_type() == essence)
    }
}

/// `type/subtype` of RFC 6838 token characters, optionally followed by
/// `;` parameters of visible ASCII.
fn is_media_type(text: &str) -> bool {
    let token = |t: &str| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&^_.+-".contains(&b))
    };
    let (essence, parameters) = text.split_once(';').unwrap_or((text, ""));
    text.len() <= 127
        && parameters.bytes().all(|b| (0x20..0x7f).contains(&b))
        && essence.split_once('/').is_some_and(|(t, s)| token(t) && token(s))
}

/// Records the proof of `submission.checkpoint` for `delivery`.
///
/// Checks it against the rules in force ([`in_force`]): every file one of
/// the proof file types by its bytes ([`FileType`]; it is stored with the
/// media type of what it is), a photo an image; at least the required photos; a
/// `signature` (or `signed_delivery_note`) file when a signature is required,
/// unless the goods were left at the door; `person_name` when the sender's or
/// recipient's name is required (skipped when left at the door); `barcode`
/// when required; `age_checked` when the age check is required;
/// `left_at_door` only at a dropoff that allows it, and then with at least
/// one photo. Refusals are `400 invalid_request` naming the field (`files`,
/// `files.<i>.<field>`, `person_name`, `barcode`, `age_checked`,
/// `left_at_door`), or `409 conflict` when the checkpoint already has its
/// proof; nothing is written then. Otherwise the files go to the blob store
/// and the rows are written through `db`, the caller's transaction. (Files
/// of a transaction that later rolls back stay in the store, unreferenced
/// under unguessable keys.)
pub async fn submit(
    orders: &Orders,
    db: &courier_store::db::WriteTransaction,
    delivery: &Delivery,
    submission: ProofSubmission,
    now: i64,
) -> CoreResult<()> {
    let kind = submission.checkpoint;
    if is_submitted(db, &delivery.id, kind).await? {
        return Err(already_submitted(kind));
    }
    check(&in_force(db, delivery).await?, &submission)?;
    let mut artifacts = Vec::with_capacity(submission.files.len());
    for (position, file) in submission.files.into_iter().enumerate() {
        let id = ids::new_id("art");
        let blob_key = format!("proofs/{}/{}-{}", delivery.id, kind.as_str(), ids::random_base62(32));
        let size_bytes = file.content.len() as i64;
        let content_type = FileType::of(&file.content).map_or(file.content_type, |t| t.media_type().to_owned());
        orders.blobs.put(&blob_key, file.content).await?;
        artifacts.push(artifact::ActiveModel {
            id: Set(id),
            delivery_id: Set(delivery.id.clone()),
            checkpoint: Set(kind.as_str().to_owned()),
            position: Set(position as i32),
            kind: Set(file.kind.as_str().to_owned()),
            file_name: Set(file.file_name.trim().to_owned()),
            content_type: Set(content_type),
            blob_key: Set(blob_key),
            size_bytes: Set(size_bytes),
            created_at: Set(now),
        });
    }
    let row = checkpoint::ActiveModel {
        id: Set(ids::new_id("pcp")),
        delivery_id: Set(delivery.id.clone()),
        kind: Set(kind.as_str().to_owned()),
        person_name: Set(submission.person_name.map(|n| n.trim().to_owned())),
        barcode: Set(submission.barcode.map(|b| b.trim().to_owned())),
        age_checked: Set(submission.age_checked),
        left_at_door: Set(submission.left_at_door),
        submitted_at: Set(now),
        submission_id: Set(submission.submission_id),
    };
    checkpoint::Entity::insert(row)
        .exec_without_returning(db)
        .await
        .map_err(|error| match error.sql_err() {
            Some(sea_orm::SqlErr::UniqueConstraintViolation(_)) => already_submitted(kind),
            _ => error.into(),
        })?;
    if !artifacts.is_empty() {
        artifact::Entity::insert_many(artifacts)
            .exec_without_returning(db)
            .await?;
    }
    Ok(())
}

fn already_submitted(kind: Checkpoint) -> CoreError {
    CoreError::new(
        ErrorCode::Conflict,
        format!("The {} proof of this delivery was already submitted.", kind.as_str()),
    )
}

/// Whether delivery `delivery_id` has a proof recorded from the app's
/// submission `submission_id`.
pub async fn submitted_as(db: &impl ConnectionTrait, delivery_id: &str, submission_id: &str) -> CoreResult<bool> {
    Ok(checkpoint::Entity::find()
        .filter(checkpoint::Column::DeliveryId.eq(delivery_id))
        .filter(checkpoint::Column::SubmissionId.eq(submission_id))
        .one(db)
        .await?
        .is_some())
}

/// Whether the proof of `checkpoint` of delivery `delivery_id` is recorded.
pub async fn is_submitted(db: &impl ConnectionTrait, delivery_id: &str, checkpoint: Checkpoint) -> CoreResult<bool> {
    Ok(checkpoint::Entity::find()
        .filter(checkpoint::Column::DeliveryId.eq(delivery_id))
        .filter(checkpoint::Column::Kind.eq(checkpoint.as_str()))
        .one(db)
        .await?
        .is_some())
}

/// Whether the pickup's and the dropoff's proofs of delivery `delivery_id`
/// are recorded, in one read (a courier's job shows both).
pub async fn submitted_checkpoints(db: &impl ConnectionTrait, delivery_id: &str) -> CoreResult<(bool, bool)> {
    let kinds: Vec<String> = checkpoint::Entity::find()
        .select_only()
        .column(checkpoint::Column::Kind)
        .filter(checkpoint::Column::DeliveryId.eq(delivery_id))
        .into_tuple()
        .all(db)
        .await?;
    let has = |checkpoint: Checkpoint| kinds.iter().any(|kind| kind == checkpoint.as_str());
    Ok((has(Checkpoint::Pickup), has(Checkpoint::Dropoff)))
}

/// A generated submission that satisfies the delivery's rules for
/// `checkpoint` (test mode): PNG photos, a PNG signature, names, a barcode
/// and the age check, as far as the rules ask for them.
pub fn sample_submission(delivery: &Delivery, checkpoint: Checkpoint) -> ProofSubmission {
    let n = needs(&delivery.proof, checkpoint);
    let at = checkpoint.as_str();
    let name = match checkpoint {
        Checkpoint::Pickup => "Sam Sender",
        Checkpoint::Dropoff => "Robin Recipient",
    };
    let mut files: Vec<ProofFile> = (1..=n.photos.max(1))
        .map(|i| ProofFile {
            kind: ArtifactKind::Photo,
            file_name: format!("{at}-photo-{i}.png"),
            content_type: "image/png".into(),
            content: sample::photo(i + u32::from(checkpoint == Checkpoint::Dropoff) * 10),
        })
        .collect();
    if n.signature {
        files.push(ProofFile {
            kind: ArtifactKind::Signature,
            file_name: format!("{at}-signature.png"),
            content_type: "image/png".into(),
            content: sample::signature(name),
        });
    }
    let suffix: String = delivery.id.chars().rev().take(8).collect();
    ProofSubmission {
        checkpoint,
        files,
        person_name: n.person_name.then(|| name.to_owned()),
        barcode: n.barcode.then(|| format!("SAMPLE-{}", suffix.to_uppercase())),
        age_checked: n.age_check,
        left_at_door: false,
        pin: (checkpoint == Checkpoint::Dropoff)
            .then(|| delivery.dropoff_pin.clone())
            .flatten(),
        submission_id: None,
    }
}

/// A delivery's proof as its client reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Proof {
    pub delivery_id: String,
    /// Oldest first; at the same instant, the pickup first.
    pub checkpoints: Vec<CheckpointProof>,
}

/// The proof recorded at one checkpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointProof {
    pub checkpoint: Checkpoint,
    /// Who handed the goods over (pickup) or received them (dropoff).
    pub person_name: Option<String>,
    /// Unix microseconds.
    pub submitted_at: i64,
    pub files: Vec<ProofLink>,
}

/// One recorded file, behind a signed link.
#[derive(Clone, Debug, PartialEq)]
pub struct ProofLink {
    pub kind: ArtifactKind,
    pub file_name: String,
    pub content_type: String,
    /// Valid for [`LINK_VALIDITY_SECS`]; see [`download`].
    pub download_url: String,
}

/// `GET /v1/deliveries/{id}/proof-of-delivery` for `principal`: the delivery
/// (unknown or of another workspace or mode: `404 not_found`), then the plan
/// (`403 pod_not_available`), then the checkpoints oldest first (none yet:
/// `404 no_proof_of_delivery`), each file with a signed `download_url` valid
/// for 15 minutes.
pub async fn proof_of_delivery(orders: &Orders, principal: &Principal, delivery_id: &str) -> CoreResult<Proof> {
    let delivery = deliveries::get(orders, principal, delivery_id).await?;
    if !principal.workspace.plan.proof_of_delivery {
        return Err(CoreError::new(
            ErrorCode::PodNotAvailable,
            "Your workspace's plan does not include proof of delivery.",
        ));
    }
    let mut checkpoints = checkpoint::Entity::find()
        .filter(checkpoint::Column::DeliveryId.eq(delivery.id.as_str()))
        .all(&orders.db)
        .await?;
    if checkpoints.is_empty() {
        return Err(CoreError::new(
            ErrorCode::NoProofOfDelivery,
            "The courier has not submitted proof of delivery yet.",
        ));
    }
    let order = |kind: &str| u8::from(kind != Checkpoint::Pickup.as_str());
    checkpoints.sort_by_key(|c| (c.submitted_at, order(&c.kind)));
    let artifacts = artifact::Entity::find()
        .filter(artifact::Column::DeliveryId.eq(delivery.id.as_str()))
        .order_by_asc(artifact::Column::Position)
        .all(&orders.db)
        .await?;
    let expires = orders.clock.now().timestamp() + LINK_VALIDITY_SECS;
    let base_url = orders.config.public_base_url.trim_end_matches('/');
    let corrupt = |what: &str| CoreError::Internal(format!("proof of delivery {} has a corrupt {what}", delivery.id));
    let mut out = Vec::with_capacity(checkpoints.len());
    for c in checkpoints {
        let checkpoint = Checkpoint::parse(&c.kind).ok_or_else(|| corrupt("checkpoint kind"))?;
        let files = artifacts
            .iter()
            .filter(|a| a.checkpoint == c.kind)
            .map(|a| {
                Ok(ProofLink {
                    kind: ArtifactKind::parse(&a.kind).ok_or_else(|| corrupt("artifact kind"))?,
                    file_name: a.file_name.clone(),
                    content_type: a.content_type.clone(),
                    download_url: download_url(&orders.secrets.download_url, base_url, &a.id, expires),
                })
            })
            .collect::<CoreResult<Vec<_>>>()?;
        out.push(CheckpointProof {
            checkpoint,
            person_name: c.person_name,
            submitted_at: c.submitted_at,
            files,
        });
    }
    Ok(Proof {
        delivery_id: delivery.id.clone(),
        checkpoints: out,
    })
}

/// `{base_url}/v1/proof-files/{artifact_id}?expires=<unix>&signature=<hmac>`.
fn download_url(key: &[u8], base_url: &str, artifact_id: &str, expires: i64) -> String {
    format!(
        "{base_url}/v1/proof-files/{artifact_id}?expires={expires}&signature={}",
        link_signature(key, artifact_id, expires)
    )
}

/// The signature's length: a whole HMAC-SHA256.
const LINK_SIGNATURE_BYTES: usize = 32;

/// What a link's signature covers: the artifact and the expiry.
fn link_message(artifact_id: &str, expires: i64) -> Vec<u8> {
    format!("proof-file\n{artifact_id}\n{expires}").into_bytes()
}

/// Base64url (no padding) signature over the artifact id and expiry.
fn link_signature(key: &[u8], artifact_id: &str, expires: i64) -> String {
    URL_SAFE_NO_PAD.encode(secrets::sign(
        key,
        &link_message(artifact_id, expires),
        LINK_SIGNATURE_BYTES,
    ))
}

/// Whether `signature` is the link's signature, compared in constant time.
fn signature_matches(key: &[u8], artifact_id: &str, expires: i64, signature: &str) -> bool {
    URL_SAFE_NO_PAD
        .decode(signature)
        .is_ok_and(|given| secrets::verify(key, &link_message(artifact_id, expires), &given, LINK_SIGNATURE_BYTES))
}

/// A proof file as a download link delivers it.
#[derive(Clone, Debug)]
pub struct ProofDownload {
    pub content: Vec<u8>,
    pub content_type: String,
    pub file_name: String,
}

/// The file behind a signed link. A forged or altered link and an unknown
/// artifact are `404 not_found`; an expired link too, with a message saying
/// to fetch the proof of delivery again. The signature is checked first, so
/// a forged link learns nothing.
pub async fn download(orders: &Orders, artifact_id: &str, expires: i64, signature: &str) -> CoreResult<ProofDownload> {
    if !signature_matches(&orders.secrets.download_url, artifact_id, expires, signature) {
        return Err(CoreError::new(
            ErrorCode::NotFound,
            "No such proof file: the download link is invalid.",
        ));
    }
    if orders.clock.now().timestamp() > expires {
        return Err(CoreError::new(
            ErrorCode::NotFound,
            "This download link expired; fetch the proof of delivery again for a fresh link.",
        ));
    }
    let row = artifact::Entity::find_by_id(artifact_id.to_owned())
        .one(&orders.db)
        .await?
        .ok_or_else(|| CoreError::not_found("proof file"))?;
    let content = orders
        .blobs
        .get(&row.blob_key)
        .await?
        .ok_or_else(|| CoreError::Internal(format!("proof file {} is missing from the blob store", row.id)))?;
    // A file stored before types were checked by content is served as
    // bytes, never as a type a browser would render.
    let content_type = match FileType::of(&content) {
        Some(file_type) => file_type.media_type().to_owned(),
        None => "application/octet-stream".to_owned(),
    };
    Ok(ProofDownload {
        content,
        content_type,
        file_name: row.file_name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deliveries::{DropoffProof, PickupProof};

    fn rules(pickup: PickupProof, dropoff: DropoffProof) -> ProofRequirements {
        ProofRequirements { pickup, dropoff }
    }

    fn strict() -> ProofRequirements {
        rules(
            PickupProof {
                photos: 2,
                signature: true,
                sender_name: true,
                barcode: true,
            },
            DropoffProof {
                photos: 1,
                signature: true,
                recipient_name: true,
                barcode: true,
                age_check: false,
                leave_at_door: true,
                pin: false,
            },
        )
    }

    fn delivery(proof: ProofRequirements) -> Delivery {
        Delivery {
            proof,
            ..crate::testing::sample_delivery()
        }
    }

    fn file(kind: ArtifactKind) -> ProofFile {
        ProofFile {
            kind,
            file_name: "f.png".into(),
            content_type: "image/png".into(),
            content: b"\x89PNG\r\n\x1a\n 1 2 3".to_vec(),
        }
    }

    fn submission(checkpoint: Checkpoint, files: Vec<ProofFile>) -> ProofSubmission {
        ProofSubmission {
            checkpoint,
            files,
            person_name: Some("Ana".into()),
            barcode: Some("123".into()),
            age_checked: false,
            left_at_door: false,
            pin: None,
            submission_id: None,
        }
    }

    fn param(result: CoreResult<()>) -> Option<String> {
        match result {
            Err(CoreError::Rejected {
                code: ErrorCode::InvalidRequest,
                param,
                ..
            }) => param,
            other => panic!("expected invalid_request, got {other:?}"),
        }
    }

    #[test]
    fn requirements_are_enforced_with_their_param() {
        let r = strict();
        let photo = || file(ArtifactKind::Photo);
        let full = vec![photo(), photo(), file(ArtifactKind::Signature)];
        assert!(check(&r, &submission(Checkpoint::Pickup, full.clone())).is_ok());

        let one_photo = vec![photo(), file(ArtifactKind::Signature)];
        assert_eq!(
            param(check(&r, &submission(Checkpoint::Pickup, one_photo))).as_deref(),
            Some("files")
        );
        assert_eq!(
            param(check(&r, &submission(Checkpoint::Pickup, vec![photo(), photo()]))).as_deref(),
            Some("files")
        );
        let mut s = submission(Checkpoint::Pickup, full.clone());
        s.person_name = Some("   ".into());
        assert_eq!(param(check(&r, &s)).as_deref(), Some("person_name"));
        s.person_name = None;
        assert_eq!(param(check(&r, &s)).as_deref(), Some("person_name"));
        let mut s = submission(Checkpoint::Pickup, full.clone());
        s.barcode = None;
        assert_eq!(param(check(&r, &s)).as_deref(), Some("barcode"));
        let mut s = submission(Checkpoint::Pickup, full.clone());
        s.left_at_door = true;
        assert_eq!(param(check(&r, &s)).as_deref(), Some("left_at_door"));
        let mut s = submission(Checkpoint::Pickup, full);
        s.age_checked = true;
        assert_eq!(param(check(&r, &s)).as_deref(), Some("age_checked"));
    }

    #[test]
    fn left_at_door_skips_signature_and_name_but_needs_a_photo() {
        let r = strict();
        let mut s = submission(Checkpoint::Dropoff, vec![file(ArtifactKind::Photo)]);
        s.person_name = None;
        s.left_at_door = true;
        assert!(check(&r, &s).is_ok());
        s.files.clear();
        assert_eq!(param(check(&r, &s)).as_deref(), Some("files"));
        // Not allowed when the delivery does not offer it.
        let plain = ProofRequirements::default();
        let mut s = submission(Checkpoint::Dropoff, vec![file(ArtifactKind::Photo)]);
        s.left_at_door = true;
        assert_eq!(param(check(&plain, &s)).as_deref(), Some("left_at_door"));
    }

    #[test]
    fn age_check_needs_age_checked() {
        let mut r = ProofRequirements::default();
        r.dropoff.age_check = true;
        let mut s = submission(Checkpoint::Dropoff, vec![file(ArtifactKind::Photo)]);
        assert_eq!(param(check(&r, &s)).as_deref(), Some("age_checked"));
        s.age_checked = true;
        assert!(check(&r, &s).is_ok());
    }

    #[test]
    fn files_are_checked_one_by_one() {
        let r = ProofRequirements::default();
        type Spoil = fn(&mut ProofFile);
        let cases: [(Spoil, &str); 5] = [
            (|f| f.file_name = "../etc/passwd".into(), "files.1.file_name"),
            (|f| f.file_name = " ".into(), "files.1.file_name"),
            (|f| f.content_type = "png".into(), "files.1.content_type"),
            (|f| f.content.clear(), "files.1.content"),
            (|f| f.content = vec![0; MAX_FILE_BYTES + 1], "files.1.content"),
        ];
        for (spoil, expected) in cases {
            let mut bad = file(ArtifactKind::Document);
            spoil(&mut bad);
            let s = submission(Checkpoint::Pickup, vec![file(ArtifactKind::Photo), bad]);
            assert_eq!(param(check(&r, &s)).as_deref(), Some(expected));
        }
        let mut content = b"\x89PNG\r\n\x1a\n".to_vec();
        content.resize(MAX_FILE_BYTES, 0);
        let big = ProofFile {
            content,
            ..file(ArtifactKind::Photo)
        };
        let too_much = vec![big; MAX_TOTAL_BYTES / MAX_FILE_BYTES + 1];
        assert_eq!(
            param(check(&r, &submission(Checkpoint::Pickup, too_much))).as_deref(),
            Some("files")
        );
        let many = vec![file(ArtifactKind::Photo); MAX_FILES + 1];
        assert_eq!(
            param(check(&r, &submission(Checkpoint::Pickup, many))).as_deref(),
            Some("files")
        );
        assert!(is_media_type("image/svg+xml") && is_media_type("text/plain; charset=utf-8"));
        assert!(!is_media_type("image/") && !is_media_type("image/png\n"));
    }

    #[test]
    fn samples_satisfy_any_rules() {
        let mut strict_age = strict();
        strict_age.dropoff.leave_at_door = false;
        strict_age.dropoff.age_check = true;
        strict_age.pickup.photos = 10;
        for proof in [ProofRequirements::default(), strict(), strict_age, nothing()] {
            let delivery = delivery(proof.clone());
            for checkpoint in [Checkpoint::Pickup, Checkpoint::Dropoff] {
                let s = sample_submission(&delivery, checkpoint);
                check(&proof, &s).expect("sample passes");
            }
        }
    }

    #[test]
    fn file_types_are_told_by_their_bytes() {
        let cases: [(&[u8], Option<FileType>); 11] = [
            (b"\xff\xd8\xff\xe0\x00\x10JFIF", Some(FileType::Jpeg)),
            (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", Some(FileType::Png)),
            (b"RIFF\x24\0\0\0WEBPVP8 ", Some(FileType::Webp)),
            (b"\0\0\0\x18ftypheic\0\0\0\0", Some(FileType::Heic)),
            (b"\0\0\0\x18ftypmif1\0\0\0\0", Some(FileType::Heif)),
            (b"%PDF-1.7\n", Some(FileType::Pdf)),
            (b"<!doctype html><script>alert(1)</script>", None),
            (
                b"<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>",
                None,
            ),
            (b"\0\0\0\x18ftypisom\0\0\0\0", None),
            (b"\xff\xd8", None),
            (b"", None),
        ];
        for (bytes, expected) in cases {
            assert_eq!(FileType::of(bytes), expected, "{}", String::from_utf8_lossy(bytes));
        }
        for declared in [
            "image/jpeg",
            "image/JPG",
            "image/png",
            "application/pdf",
            "application/octet-stream",
            "image/heic; x=y",
        ] {
            assert!(FileType::may_be_declared(declared), "{declared}");
        }
        for declared in [
            "text/html",
            "image/svg+xml",
            "application/xhtml+xml",
            "text/plain",
            "image/gif",
        ] {
            assert!(!FileType::may_be_declared(declared), "{declared}");
        }
    }

    #[test]
    fn html_svg_and_mislabelled_files_are_refused_at_their_field() {
        let r = ProofRequirements::default();
        let with = |kind: ArtifactKind, content_type: &str, content: &[u8]| {
            let other = ProofFile {
                kind,
                file_name: "f".into(),
                content_type: content_type.into(),
                content: content.to_vec(),
            };
            submission(Checkpoint::Pickup, vec![file(ArtifactKind::Photo), other])
        };
        let html = b"<html><script>alert(document.cookie)</script></html>";
        let svg = b"<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"/>";
        let cases = [
            with(ArtifactKind::Document, "text/html", html),
            with(ArtifactKind::Signature, "image/svg+xml", svg),
        ];
        for s in cases {
            assert_eq!(param(check(&r, &s)).as_deref(), Some("files.1.content_type"));
        }
        // Declared as a proof type, the bytes still decide.
        let cases = [
            with(ArtifactKind::Document, "application/pdf", html),
            with(ArtifactKind::Signature, "image/png", svg),
            with(ArtifactKind::Photo, "application/octet-stream", b"%PDF-1.4"),
        ];
        for s in cases {
            assert_eq!(param(check(&r, &s)).as_deref(), Some("files.1.content"));
        }
        assert!(
            check(
                &r,
                &with(ArtifactKind::Document, "application/octet-stream", b"%PDF-1.4")
            )
            .is_ok()
        );
        assert!(check(&r, &with(ArtifactKind::Photo, "image/png", b"\xff\xd8\xff\xdb")).is_ok());
    }

    #[test]
    fn rules_that_ask_nothing_take_a_handover_without_files() {
        let none = nothing();
        assert!(!asks_anything(&none));
        assert!(asks_anything(&ProofRequirements::default()));
        for checkpoint in [Checkpoint::Pickup, Checkpoint::Dropoff] {
            let mut s = submission(checkpoint, Vec::new());
            s.person_name = None;
            s.barcode = None;
            assert!(check(&none, &s).is_ok());
        }
        // A dropoff PIN alone still holds the handover for its proof.
        let mut pin_only = nothing();
        pin_only.dropoff.pin = true;
        assert!(asks_anything(&pin_only) && required(&pin_only, Checkpoint::Dropoff));
        assert!(!required(&pin_only, Checkpoint::Pickup));
    }

    #[test]
    fn link_signatures_bind_id_and_expiry() {
        let key = b"k";
        let signature = link_signature(key, "art_1", 100);
        assert!(signature_matches(key, "art_1", 100, &signature));
        assert!(!signature_matches(key, "art_1", 101, &signature));
        assert!(!signature_matches(key, "art_2", 100, &signature));
        assert!(!signature_matches(b"other", "art_1", 100, &signature));
        assert!(!signature_matches(key, "art_1", 100, "not base64!"));
        assert!(!signature_matches(key, "art_1", 100, ""));
        let url = download_url(key, "https://api.example", "art_1", 100);
        assert_eq!(
            url,
            format!("https://api.example/v1/proof-files/art_1?expires=100&signature={signature}")
        );
    }
}
