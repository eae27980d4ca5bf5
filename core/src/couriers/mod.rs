//! Couriers (docs/couriers.md): the people who carry the jobs, with an
//! account, a vehicle, a status and an availability.
//!
//! - this module: the courier record (table `couriers`): invite, read,
//!   list, change, suspend and reactivate, availability, the photo;
//! - `invitations`: the links a courier joins (or resets a password) by
//!   (table `courier_invitations`);
//! - `sessions`: couriers as `courier_identity::sessions` signs them in: by phone or email,
//!   with 7-day sessions (table `courier_sessions`) that end a suspended
//!   courier's, and the wait of a stream for its session's end.
//!
//! A courier belongs to the platform (serves the live deliveries of
//! business workspaces) or to one fleet workspace (its driver: serves that
//! fleet's board orders only). Who may manage which is `access`'s rule.

pub mod hours;
pub mod invitations;
pub mod online;
pub mod pay;
pub mod sessions;
pub mod shifts;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter};

use crate::{Core, CoreError, CoreResult};
use courier::errors::ErrorCode;
use courier_identity::workspaces::{self, WorkspaceKind};
use courier_identity::{passwords, text};
use courier_orders::assignments::{self, offers};
use courier_store::db::WriteTransaction;
use courier_store::pagination::Keyset;
use courier_store::{ids, pagination, secrets};

pub mod entity {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "couriers")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        /// The fleet workspace of a driver; `None` for a platform courier.
        pub workspace_id: Option<String>,
        pub name: String,
        /// `+` and digits only, unique.
        pub phone: Option<String>,
        /// Lower case, unique.
        pub email: Option<String>,
        /// argon2id in PHC string form, once the courier joined.
        pub password_hash: Option<String>,
        pub joined_at: Option<i64>,
        pub vehicle_type_id: String,
        pub vehicle_make: Option<String>,
        pub vehicle_model: Option<String>,
        pub vehicle_color: Option<String>,
        pub vehicle_plate: Option<String>,
        pub photo_blob_key: Option<String>,
        pub photo_content_type: Option<String>,
        /// `active` or `suspended`.
        pub status: String,
        /// `offline` or `online`.
        pub availability: String,
        pub created_at: i64,
        pub updated_at: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// The longest name, make, model, colour or plate.
const MAX_TEXT: usize = 200;
/// The largest photo accepted.
const MAX_PHOTO_BYTES: usize = 2 * 1024 * 1024;

/// Whose courier this is.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Fleet {
    /// The platform's: serves live deliveries of business workspaces.
    Platform,
    /// A fleet workspace's driver: serves its board orders only.
    Workspace(String),
}

impl Fleet {
    /// From a request's workspace id: empty is the platform.
    pub fn from_workspace_id(workspace_id: &str) -> Fleet {
        match workspace_id.trim() {
            "" => Fleet::Platform,
            id => Fleet::Workspace(id.to_owned()),
        }
    }

    pub fn workspace_id(&self) -> Option<&str> {
        match self {
            Fleet::Platform => None,
            Fleet::Workspace(id) => Some(id),
        }
    }

    fn condition(&self) -> Condition {
        match self {
            Fleet::Platform => Condition::all().add(entity::Column::WorkspaceId.is_null()),
            Fleet::Workspace(id) => Condition::all().add(entity::Column::WorkspaceId.eq(id.as_str())),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Active,
    Suspended,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Suspended => "suspended",
        }
    }

    fn parse(text: &str) -> Status {
        if text == "suspended" {
            Status::Suspended
        } else {
            Status::Active
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Availability {
    Offline,
    Online,
}

impl Availability {
    pub fn as_str(self) -> &'static str {
        match self {
            Availability::Offline => "offline",
            Availability::Online => "online",
        }
    }

    fn parse(text: &str) -> Availability {
        if text == "online" {
            Availability::Online
        } else {
            Availability::Offline
        }
    }
}

/// A courier's vehicle: a catalogue vehicle type and how to recognise it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Vehicle {
    pub vehicle_type_id: String,
    pub make: Option<String>,
    pub model: Option<String>,
    pub color: Option<String>,
    pub license_plate: Option<String>,
}

/// A courier as the core knows them (never the password hash).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Courier {
    pub id: String,
    pub fleet: Fleet,
    pub name: String,
    pub phone: Option<String>,
    pub email: Option<String>,
    pub vehicle: Vehicle,
    pub status: Status,
    pub availability: Availability,
    pub joined: bool,
    /// Where the current photo is in the blob store; a new photo gets a new
    /// key, so the key also names which photo a link was made for.
    pub photo_blob_key: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl Courier {
    /// The first name, as clients and the tracking page show a courier.
    pub fn first_name(&self) -> &str {
        self.name.split_whitespace().next().unwrap_or(&self.name)
    }
}

/// A courier to invite.
#[derive(Clone, Debug)]
pub struct NewCourier {
    pub fleet: Fleet,
    pub name: String,
    pub phone: Option<String>,
    pub email: Option<String>,
    pub vehicle: Vehicle,
}

/// What a change of a courier's profile sets; `None` keeps the value.
#[derive(Clone, Debug, Default)]
pub struct ProfileChange {
    pub name: Option<String>,
    /// `Some("")` removes it.
    pub phone: Option<String>,
    /// `Some("")` removes it.
    pub email: Option<String>,
    pub vehicle: Option<Vehicle>,
    pub photo: Option<Photo>,
}

#[derive(Clone, Debug)]
pub struct Photo {
    pub content_type: String,
    pub content: Vec<u8>,
}

/// Creates the courier `new` (not yet joined: the invitation sets the
/// password) in `tx`.
pub async fn create(core: &Core, tx: &WriteTransaction, new: NewCourier) -> CoreResult<Courier> {
    if let Fleet::Workspace(id) = &new.fleet {
        let workspace = workspaces::get(tx, id).await?;
        if workspace.kind != WorkspaceKind::Fleet {
            return Err(CoreError::invalid(
                "workspace_id",
                "Drivers belong to fleet workspaces; this is a business workspace.",
            ));
        }
    }
    let name = checked_name(&new.name)?;
    let phone = new.phone.as_deref().map(normalized_phone).transpose()?;
    let email = new.email.as_deref().map(normalized_email).transpose()?;
    if phone.is_none() && email.is_none() {
        return Err(CoreError::invalid(
            "phone",
            "A courier needs a phone number or an email to sign in with.",
        ));
    }
    let vehicle = checked_vehicle(core, new.vehicle)?;
    let now = core.clock.now_micros();
    let row = entity::ActiveModel {
        id: Set(ids::new_id("cou")),
        workspace_id: Set(new.fleet.workspace_id().map(str::to_owned)),
        name: Set(name),
        phone: Set(phone),
        email: Set(email),
        password_hash: Set(None),
        joined_at: Set(None),
        vehicle_type_id: Set(vehicle.vehicle_type_id),
        vehicle_make: Set(vehicle.make),
        vehicle_model: Set(vehicle.model),
        vehicle_color: Set(vehicle.color),
        vehicle_plate: Set(vehicle.license_plate),
        photo_blob_key: Set(None),
        photo_content_type: Set(None),
        status: Set(Status::Active.as_str().to_owned()),
        availability: Set(Availability::Offline.as_str().to_owned()),
        created_at: Set(now),
        updated_at: Set(now),
    };
    let row = row.insert(&**tx).await.map_err(login_taken)?;
    Ok(from_model(row))
}

/// The courier `id`; `not_found` when unknown.
pub async fn get(db: &impl ConnectionTrait, id: &str) -> CoreResult<Courier> {
    Ok(from_model(find(db, id).await?))
}

/// The couriers of `ids` (unknown ids left out), in one read.
pub async fn get_many(db: &impl ConnectionTrait, ids: Vec<String>) -> CoreResult<Vec<Courier>> {
    Ok(entity::Entity::find()
        .filter(entity::Column::Id.is_in(ids))
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect())
}

pub(crate) async fn find(db: &impl ConnectionTrait, id: &str) -> CoreResult<entity::Model> {
    entity::Entity::find_by_id(id.to_owned())
        .one(db)
        .await?
        .ok_or_else(|| CoreError::not_found("courier"))
}

/// The couriers of `fleet`, oldest first, in keyset pages.
pub async fn list(
    core: &Core,
    fleet: &Fleet,
    page_size: i32,
    page_token: Option<&str>,
) -> CoreResult<(Vec<Courier>, Option<String>)> {
    let limit = pagination::page_size(page_size)?;
    let scope = format!("couriers:{}", fleet.workspace_id().unwrap_or("platform"));
    let (rows, next) = Keyset::<entity::Entity> {
        created_at: entity::Column::CreatedAt,
        id: entity::Column::Id,
        newest_first: false,
    }
    .page(&core.pages, &scope, fleet.condition(), limit, page_token)
    .await?;
    Ok((rows.into_iter().map(from_model).collect(), next))
}

/// The couriers of `fleet` on its dispatch map: the active ones online,
/// and any who hold a job: gone offline with it in hand, or suspended
/// before a dispatcher took it back (the job stays under way, and the
/// dispatcher must see who holds it).
pub async fn on_the_map(db: &impl ConnectionTrait, fleet: &Fleet) -> CoreResult<Vec<Courier>> {
    Ok(entity::Entity::find()
        .filter(fleet.condition())
        .filter(
            Condition::any()
                .add(
                    Condition::all()
                        .add(entity::Column::Status.eq(Status::Active.as_str()))
                        .add(entity::Column::Availability.eq(Availability::Online.as_str())),
                )
                .add(entity::Column::Id.in_subquery(assignments::holders())),
        )
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect())
}

/// The online, active couriers of `fleet` (for dispatch, which weighs the
/// jobs they hold), in one read.
pub async fn online(db: &impl ConnectionTrait, fleet: &Fleet) -> CoreResult<Vec<Courier>> {
    Ok(entity::Entity::find()
        .filter(fleet.condition())
        .filter(entity::Column::Availability.eq(Availability::Online.as_str()))
        .filter(entity::Column::Status.eq(Status::Active.as_str()))
        .all(db)
        .await?
        .into_iter()
        .map(from_model)
        .collect())
}

/// Changes what `change` sets on courier `id`, in `tx`.
pub async fn update_profile(
    core: &Core,
    tx: &WriteTransaction,
    id: &str,
    change: ProfileChange,
) -> CoreResult<Courier> {
    let current = find(&**tx, id).await?;
    let mut row = entity::ActiveModel {
        id: Set(current.id.clone()),
        updated_at: Set(core.clock.now_micros()),
        ..Default::default()
    };
    if let Some(name) = &change.name {
        row.name = Set(checked_name(name)?);
    }
    let phone = match change.phone.as_deref().map(str::trim) {
        None => current.phone.clone(),
        Some("") => None,
        Some(phone) => Some(normalized_phone(phone)?),
    };
    let email = match change.email.as_deref().map(str::trim) {
        None => current.email.clone(),
        Some("") => None,
        Some(email) => Some(normalized_email(email)?),
    };
    if phone.is_none() && email.is_none() {
        return Err(CoreError::invalid(
            "phone",
            "A courier needs a phone number or an email to sign in with.",
        ));
    }
    row.phone = Set(phone);
    row.email = Set(email);
    if let Some(vehicle) = change.vehicle {
        let vehicle = checked_vehicle(core, vehicle)?;
        row.vehicle_type_id = Set(vehicle.vehicle_type_id);
        row.vehicle_make = Set(vehicle.make);
        row.vehicle_model = Set(vehicle.model);
        row.vehicle_color = Set(vehicle.color);
        row.vehicle_plate = Set(vehicle.license_plate);
    }
    if let Some(photo) = change.photo {
        if !matches!(photo.content_type.as_str(), "image/jpeg" | "image/png") {
            return Err(CoreError::invalid(
                "photo_content_type",
                "The photo must be a JPEG or PNG.",
            ));
        }
        if photo.content.is_empty() || photo.content.len() > MAX_PHOTO_BYTES {
            return Err(CoreError::invalid("photo", "The photo must be 1 byte to 2 MiB."));
        }
        let key = format!("couriers/{}/photo-{}", current.id, ids::random_base62(32));
        core.blobs.put(&key, photo.content).await?;
        row.photo_blob_key = Set(Some(key));
        row.photo_content_type = Set(Some(photo.content_type));
    }
    Ok(from_model(row.update(&**tx).await.map_err(login_taken)?))
}

/// The courier's photo: its bytes and content type, if one is on file.
pub async fn photo(core: &Core, id: &str) -> CoreResult<Option<Photo>> {
    let row = find(&core.db, id).await?;
    let (Some(key), Some(content_type)) = (row.photo_blob_key, row.photo_content_type) else {
        return Ok(None);
    };
    Ok(core
        .blobs
        .get(&key)
        .await?
        .map(|content| Photo { content_type, content }))
}

/// The keyless link to `courier`'s current photo, as a delivery they carry
/// shows it (`courier.photo_url`); `None` without a photo.
///
/// `{public_base_url}/v1/courier-photos/{courier_id}?signature=<base64url
/// HMAC-SHA256>`: the signature (with the `download_url` secret) covers
/// the courier and the photo's blob key, so the link is unguessable, needs
/// no API key, and stops working when the photo is replaced. It does not
/// expire: deliveries and their events keep it.
pub fn photo_url(core: &Core, courier: &Courier) -> Option<String> {
    let key = courier.photo_blob_key.as_deref()?;
    let base_url = core.config.public_base_url.trim_end_matches('/');
    Some(format!(
        "{base_url}/v1/courier-photos/{}?signature={}",
        courier.id,
        photo_signature(&core.secrets.download_url, &courier.id, key)
    ))
}

/// The signature's length: a whole HMAC-SHA256.
const PHOTO_SIGNATURE_BYTES: usize = 32;

/// What a photo link's signature covers: the courier and the photo.
fn photo_link_message(courier_id: &str, blob_key: &str) -> Vec<u8> {
    format!("courier-photo\n{courier_id}\n{blob_key}").into_bytes()
}

fn photo_signature(key: &[u8], courier_id: &str, blob_key: &str) -> String {
    URL_SAFE_NO_PAD.encode(secrets::sign(
        key,
        &photo_link_message(courier_id, blob_key),
        PHOTO_SIGNATURE_BYTES,
    ))
}

/// The photo behind a [`photo_url`] link. An unknown courier, a courier
/// without a photo, a forged signature and a link to a photo since replaced
/// are all `404 not_found`, with one message, so a link reveals nothing.
pub async fn photo_by_link(core: &Core, courier_id: &str, signature: &str) -> CoreResult<Photo> {
    let invalid = || CoreError::new(ErrorCode::NotFound, "No such courier photo: the link is invalid.");
    let row = entity::Entity::find_by_id(courier_id.to_owned())
        .one(&core.db)
        .await?
        .ok_or_else(invalid)?;
    let (Some(key), Some(content_type)) = (row.photo_blob_key, row.photo_content_type) else {
        return Err(invalid());
    };
    let matches = URL_SAFE_NO_PAD.decode(signature).is_ok_and(|given| {
        secrets::verify(
            &core.secrets.download_url,
            &photo_link_message(courier_id, &key),
            &given,
            PHOTO_SIGNATURE_BYTES,
        )
    });
    if !matches {
        return Err(invalid());
    }
    let content = core.blobs.get(&key).await?.ok_or_else(|| {
        CoreError::Internal(format!(
            "the photo of courier {courier_id} is missing from the blob store"
        ))
    })?;
    Ok(Photo { content_type, content })
}

/// Suspends or reactivates courier `id` in `tx`. A suspended courier goes
/// offline, every session of theirs ends and an open offer is withdrawn.
pub async fn set_status(core: &Core, tx: &WriteTransaction, id: &str, status: Status) -> CoreResult<Courier> {
    let current = find(&**tx, id).await?;
    let mut row = entity::ActiveModel {
        id: Set(current.id.clone()),
        status: Set(status.as_str().to_owned()),
        updated_at: Set(core.clock.now_micros()),
        ..Default::default()
    };
    if status == Status::Suspended {
        row.availability = Set(Availability::Offline.as_str().to_owned());
        online::close(&**tx, &current.id, core.clock.now_micros()).await?;
        // Their open streams end at once, not at their next read.
        courier_identity::sessions::end_all::<Courier>(core, tx, &current.id, None).await?;
        offers::withdraw_for_courier(core, tx, &current.id, core.clock.now_micros()).await?;
    }
    Ok(from_model(row.update(&**tx).await?))
}

/// Sets courier `id` online or offline in `tx`; going offline withdraws an
/// open offer. A suspended courier is refused (their sessions have ended
/// anyway).
pub async fn set_availability(
    core: &Core,
    tx: &WriteTransaction,
    id: &str,
    availability: Availability,
) -> CoreResult<Courier> {
    let current = find(&**tx, id).await?;
    if Status::parse(&current.status) == Status::Suspended {
        return Err(CoreError::new(
            ErrorCode::Conflict,
            "A suspended courier cannot go online.",
        ));
    }
    if availability == Availability::Offline {
        offers::withdraw_for_courier(core, tx, &current.id, core.clock.now_micros()).await?;
    } else {
        let wake = core.dispatch_wake.clone();
        tx.after_commit(move || wake.notify_one());
    }
    let map_wake = core.map_wake.clone();
    tx.after_commit(move || {
        map_wake.wake();
    });
    let was = Availability::parse(&current.availability);
    let fleet = Fleet::from_workspace_id(current.workspace_id.as_deref().unwrap_or_default());
    online::went(&**tx, &current.id, &fleet, was, availability, core.clock.now_micros()).await?;
    let row = entity::ActiveModel {
        id: Set(current.id),
        availability: Set(availability.as_str().to_owned()),
        updated_at: Set(core.clock.now_micros()),
        ..Default::default()
    };
    Ok(from_model(row.update(&**tx).await?))
}

/// Sets the password of courier `id` (joining, or a new one by a new
/// invitation) and ends their other sessions.
pub(crate) async fn set_password(core: &Core, tx: &WriteTransaction, id: &str, password: &str) -> CoreResult<Courier> {
    let current = find(&**tx, id).await?;
    let context = [
        current.name.as_str(),
        current.email.as_deref().unwrap_or(""),
        current.phone.as_deref().unwrap_or(""),
    ];
    passwords::check(password, &context)?;
    let hash = passwords::hash(password).await?;
    let now = core.clock.now_micros();
    courier_identity::sessions::end_all::<Courier>(core, tx, id, None).await?;
    let row = entity::ActiveModel {
        id: Set(current.id),
        password_hash: Set(Some(hash)),
        joined_at: Set(Some(current.joined_at.unwrap_or(now))),
        updated_at: Set(now),
        ..Default::default()
    };
    Ok(from_model(row.update(&**tx).await?))
}

/// What a courier's `login` names, as their account is found by it and as
/// the sign-in throttle counts it (docs/access.md): an email in lower
/// case, a phone number as stored (`+` and its digits, whatever its
/// spelling), or any other text in lower case (which finds no one).
pub(crate) fn login_identity(login: &str) -> String {
    let login = login.trim();
    if text::is_phone_spelling(login) {
        return phone_digits(login);
    }
    login.to_lowercase()
}

fn checked_name(name: &str) -> CoreResult<String> {
    let name = name.trim();
    text::text_length("name", name, 1, MAX_TEXT)?;
    Ok(name.to_owned())
}

/// A phone number as stored: `+` and its digits, so that any spelling of
/// it signs in.
fn normalized_phone(phone: &str) -> CoreResult<String> {
    let phone = phone.trim();
    text::phone("phone", phone)?;
    Ok(phone_digits(phone))
}

fn phone_digits(phone: &str) -> String {
    std::iter::once('+')
        .chain(phone.chars().filter(char::is_ascii_digit))
        .collect()
}

fn normalized_email(email: &str) -> CoreResult<String> {
    let email = email.trim().to_lowercase();
    text::email("email", &email)?;
    Ok(email)
}

/// A courier's vehicle as given, its type found by id or by the
/// catalogue's name in any case ("Bicycle", "cargo bike"): a person typing
/// it into a form need not know the ids.
fn checked_vehicle(core: &Core, vehicle: Vehicle) -> CoreResult<Vehicle> {
    let typed = vehicle.vehicle_type_id.trim();
    let words = |text: &str| text.to_lowercase().replace(['_', '-'], " ");
    let wanted = words(typed);
    let found = core
        .catalog
        .vehicle_types()
        .iter()
        .find(|v| words(&v.id) == wanted || words(&v.name) == wanted);
    let Some(found) = found else {
        let known: Vec<String> = core
            .catalog
            .vehicle_types()
            .iter()
            .map(|v| format!("{} ({})", v.id, v.name))
            .collect();
        return Err(CoreError::invalid(
            "vehicle.vehicle_type_id",
            format!(
                "{typed:?} is not a vehicle type of the catalogue; one of: {}.",
                known.join(", ")
            ),
        ));
    };
    let vehicle_type_id = found.id.clone();
    let text = |param: &str, value: Option<String>| -> CoreResult<Option<String>> {
        let value = value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        if let Some(v) = &value {
            text::text_length(param, v, 1, MAX_TEXT)?;
        }
        Ok(value)
    };
    Ok(Vehicle {
        vehicle_type_id,
        make: text("vehicle.make", vehicle.make)?,
        model: text("vehicle.model", vehicle.model)?,
        color: text("vehicle.color", vehicle.color)?,
        license_plate: text("vehicle.license_plate", vehicle.license_plate)?,
    })
}

/// A phone or email already used by another courier is `409 conflict`.
fn login_taken(error: sea_orm::DbErr) -> CoreError {
    match error.sql_err() {
        Some(sea_orm::SqlErr::UniqueConstraintViolation(_)) => CoreError::new(
            ErrorCode::Conflict,
            "Another courier already signs in with this phone number or email.",
        ),
        _ => error.into(),
    }
}

pub(crate) fn from_model(row: entity::Model) -> Courier {
    Courier {
        fleet: match row.workspace_id {
            Some(id) => Fleet::Workspace(id),
            None => Fleet::Platform,
        },
        vehicle: Vehicle {
            vehicle_type_id: row.vehicle_type_id,
            make: row.vehicle_make,
            model: row.vehicle_model,
            color: row.vehicle_color,
            license_plate: row.vehicle_plate,
        },
        status: Status::parse(&row.status),
        availability: Availability::parse(&row.availability),
        joined: row.joined_at.is_some(),
        photo_blob_key: row.photo_blob_key,
        id: row.id,
        name: row.name,
        phone: row.phone,
        email: row.email,
        created_at: row.created_at,
        updated_at: row.updated_at,
    }
}

#[cfg(test)]
mod tests {
    use super::login_identity;

    #[test]
    fn every_spelling_of_a_login_names_one_identity() {
        let spellings = [
            "+49301228888",
            "+49 30 1228888",
            "  +49    30-----------------------------1228888 ",
            "+49 (30) 122.8888",
        ];
        for spelling in spellings {
            assert_eq!(login_identity(spelling), "+49301228888", "{spelling:?}");
        }
        assert_eq!(login_identity(" Kim@Example.COM "), "kim@example.com");
        // Neither: as typed, in lower case (it finds no one).
        assert_eq!(login_identity("Kim"), "kim");
        assert_eq!(login_identity("49301228888"), "49301228888");
    }
}
