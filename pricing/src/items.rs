//! Shipment items: whether they can be evaluated at all, and whether a
//! vehicle type can carry them.
//!
//! The two questions have different answers for the client: items that make
//! no physical sense (zero, negative, not finite, absurdly large) are
//! `invalid_items` and must be corrected, while sensible items that are too
//! heavy or too big are `vehicle_does_not_fit` and call for a bigger vehicle.
//! The fit check is deliberately simple and slightly optimistic: each item
//! must fit the cargo space in some axis-aligned orientation, and the summed
//! weight and volume must stay within the vehicle's limits (packing is not
//! simulated).

use courier::errors::ErrorCode;
use serde::{Deserialize, Serialize};

use crate::catalog::VehicleType;
use courier::limits;
use courier_store::error::{CoreError, CoreResult};

/// Most items in one request.
pub const MAX_ITEMS: usize = limits::ITEMS.max as usize;
/// Longest item description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = limits::ITEM_DESCRIPTION.max;
/// Largest quantity of one item.
pub const MAX_ITEM_QUANTITY: i64 = limits::ITEM_QUANTITY.max;
/// Heaviest plausible single item; anything heavier is a typo, not cargo.
pub const MAX_WEIGHT_KG: f64 = limits::MAX_ITEM_WEIGHT_KG;
/// Longest plausible side of a single item (20 m).
pub const MAX_DIMENSION_CM: f64 = limits::MAX_ITEM_DIMENSION_CM;

/// One kind of goods as the client describes it (`ShipmentItem`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ItemInput {
    pub description: String,
    pub quantity: i64,
    pub weight_kg: f64,
    pub length_cm: f64,
    pub width_cm: f64,
    pub height_cm: f64,
}

impl ItemInput {
    /// Weight of all pieces of this item.
    pub fn total_weight_kg(&self) -> f64 {
        self.weight_kg * self.quantity as f64
    }

    /// Volume of all pieces of this item in cubic centimetres.
    pub fn total_volume_cm3(&self) -> f64 {
        self.length_cm * self.width_cm * self.height_cm * self.quantity as f64
    }
}

/// Checks that `items` can be evaluated: 1 to 100 entries, each with a
/// description of 1 to 200 characters (`invalid_request`), a quantity of 1 to
/// 1000 and a finite, positive, plausible weight and dimensions
/// (`invalid_items`). The first problem found is reported.
pub fn validate_items(items: &[ItemInput]) -> CoreResult<()> {
    if items.is_empty() || items.len() > MAX_ITEMS {
        return Err(CoreError::invalid(
            "items",
            format!("items must have 1 to {MAX_ITEMS} entries; got {}.", items.len()),
        ));
    }
    for (index, item) in items.iter().enumerate() {
        let at = |field: &str| format!("items.{index}.{field}");
        let chars = item.description.chars().count();
        if chars == 0 || chars > MAX_DESCRIPTION_CHARS {
            return Err(CoreError::invalid(
                at("description"),
                format!("items.{index}.description must be 1 to {MAX_DESCRIPTION_CHARS} characters; got {chars}."),
            ));
        }
        if !(1..=MAX_ITEM_QUANTITY).contains(&item.quantity) {
            return Err(CoreError::at(
                ErrorCode::InvalidItems,
                at("quantity"),
                format!(
                    "items.{index}.quantity must be 1 to {MAX_ITEM_QUANTITY}; got {}.",
                    item.quantity
                ),
            ));
        }
        for (value, field, unit, max) in [
            (item.weight_kg, "weight_kg", "kg", MAX_WEIGHT_KG),
            (item.length_cm, "length_cm", "cm", MAX_DIMENSION_CM),
            (item.width_cm, "width_cm", "cm", MAX_DIMENSION_CM),
            (item.height_cm, "height_cm", "cm", MAX_DIMENSION_CM),
        ] {
            if !(value.is_finite() && value > 0.0 && value <= max) {
                return Err(CoreError::at(
                    ErrorCode::InvalidItems,
                    at(field),
                    format!(
                        "items.{index}.{field} must be a number above 0 and at most {} {unit}; got {value}.",
                        format_number(max)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Checks that `vehicle` can carry `items` (already validated with
/// [`validate_items`]): every single item within the weight limit and
/// fitting the cargo space in some orientation (`items.N`), then the total
/// weight and the total volume within the limits (`items`). All failures are
/// `vehicle_does_not_fit`, with a message naming the limit.
pub fn check_fit(vehicle: &VehicleType, items: &[ItemInput]) -> CoreResult<()> {
    let does_not_fit = |param: String, message: String| CoreError::at(ErrorCode::VehicleDoesNotFit, param, message);
    let cargo = sorted_dimensions(vehicle.max_length_cm, vehicle.max_width_cm, vehicle.max_height_cm);
    for (index, item) in items.iter().enumerate() {
        if item.weight_kg > vehicle.max_weight_kg {
            return Err(does_not_fit(
                format!("items.{index}"),
                format!(
                    "Item {index} weighs {} kg, over the {} kg limit of {}.",
                    format_number(item.weight_kg),
                    format_number(vehicle.max_weight_kg),
                    vehicle.id
                ),
            ));
        }
        let size = sorted_dimensions(item.length_cm, item.width_cm, item.height_cm);
        if size
            .iter()
            .zip(cargo.iter())
            .any(|(item_side, cargo_side)| item_side > cargo_side)
        {
            return Err(does_not_fit(
                format!("items.{index}"),
                format!(
                    "Item {index} ({} x {} x {} cm) fits in no orientation into the {} x {} x {} cm cargo space of {}.",
                    format_number(item.length_cm),
                    format_number(item.width_cm),
                    format_number(item.height_cm),
                    format_number(vehicle.max_length_cm),
                    format_number(vehicle.max_width_cm),
                    format_number(vehicle.max_height_cm),
                    vehicle.id
                ),
            ));
        }
    }
    let total_weight: f64 = items.iter().map(ItemInput::total_weight_kg).sum();
    if total_weight > vehicle.max_weight_kg {
        return Err(does_not_fit(
            "items".to_owned(),
            format!(
                "Total weight {} kg exceeds the {} kg limit of {}.",
                format_number(total_weight),
                format_number(vehicle.max_weight_kg),
                vehicle.id
            ),
        ));
    }
    let total_volume: f64 = items.iter().map(ItemInput::total_volume_cm3).sum();
    let cargo_volume = vehicle.cargo_volume_cm3();
    if total_volume > cargo_volume {
        return Err(does_not_fit(
            "items".to_owned(),
            format!(
                "Total volume {} m³ exceeds the {} m³ cargo space of {}.",
                format_cubic_metres(total_volume),
                format_cubic_metres(cargo_volume),
                vehicle.id
            ),
        ));
    }
    Ok(())
}

fn sorted_dimensions(a: f64, b: f64, c: f64) -> [f64; 3] {
    let mut sides = [a, b, c];
    sides.sort_by(f64::total_cmp);
    sides
}

/// A number with at most two decimals and no trailing zeros (`230`, `12.5`).
fn format_number(value: f64) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Cubic centimetres as cubic metres with three decimals, so a volume just
/// over the limit never prints equal to it at typical cargo sizes.
fn format_cubic_metres(cm3: f64) -> String {
    format!("{:.3}", cm3 / 1_000_000.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;

    fn item(weight_kg: f64, length_cm: f64, width_cm: f64, height_cm: f64) -> ItemInput {
        ItemInput {
            description: "Box of documents".into(),
            quantity: 1,
            weight_kg,
            length_cm,
            width_cm,
            height_cm,
        }
    }

    fn rejected(result: CoreResult<()>) -> (ErrorCode, String, String) {
        match result {
            Err(CoreError::Rejected { code, message, param }) => (code, param.unwrap_or_default(), message),
            other => panic!("expected a rejection, got {other:?}"),
        }
    }

    fn vehicle(id: &str) -> VehicleType {
        Catalog::default_catalog()
            .vehicle_type(id)
            .expect("vehicle type")
            .clone()
    }

    #[test]
    fn item_count_limits() {
        let one = item(1.0, 10.0, 10.0, 10.0);
        assert!(validate_items(&vec![one.clone(); 1]).is_ok());
        assert!(validate_items(&vec![one.clone(); 100]).is_ok());
        let (code, param, _) = rejected(validate_items(&vec![one.clone(); 101]));
        assert_eq!((code, param.as_str()), (ErrorCode::InvalidRequest, "items"));
        let (code, param, _) = rejected(validate_items(&[]));
        assert_eq!((code, param.as_str()), (ErrorCode::InvalidRequest, "items"));
    }

    #[test]
    fn description_length_counts_characters() {
        let mut items = vec![item(1.0, 10.0, 10.0, 10.0); 3];
        // 200 multi-byte characters are fine (400 bytes).
        items[2].description = "ä".repeat(200);
        assert!(validate_items(&items).is_ok());
        items[2].description = "ä".repeat(201);
        let (code, param, _) = rejected(validate_items(&items));
        assert_eq!(
            (code, param.as_str()),
            (ErrorCode::InvalidRequest, "items.2.description")
        );
        items[2].description = String::new();
        let (code, param, _) = rejected(validate_items(&items));
        assert_eq!(
            (code, param.as_str()),
            (ErrorCode::InvalidRequest, "items.2.description")
        );
    }

    #[test]
    fn quantity_limits() {
        let mut items = vec![item(1.0, 10.0, 10.0, 10.0); 2];
        items[1].quantity = 1000;
        assert!(validate_items(&items).is_ok());
        for quantity in [1001, 0, -1] {
            items[1].quantity = quantity;
            let (code, param, _) = rejected(validate_items(&items));
            assert_eq!((code, param.as_str()), (ErrorCode::InvalidItems, "items.1.quantity"));
        }
    }

    #[test]
    fn weights_and_dimensions_must_be_sensible() {
        assert!(validate_items(&[item(10_000.0, 2000.0, 2000.0, 2000.0)]).is_ok());
        assert!(validate_items(&[item(0.001, 0.1, 0.1, 0.1)]).is_ok());
        let cases = [
            (item(0.0, 10.0, 10.0, 10.0), "items.0.weight_kg"),
            (item(-1.0, 10.0, 10.0, 10.0), "items.0.weight_kg"),
            (item(f64::NAN, 10.0, 10.0, 10.0), "items.0.weight_kg"),
            (item(f64::INFINITY, 10.0, 10.0, 10.0), "items.0.weight_kg"),
            (item(10_000.01, 10.0, 10.0, 10.0), "items.0.weight_kg"),
            (item(1.0, 0.0, 10.0, 10.0), "items.0.length_cm"),
            (item(1.0, 2000.5, 10.0, 10.0), "items.0.length_cm"),
            (item(1.0, 10.0, -3.0, 10.0), "items.0.width_cm"),
            (item(1.0, 10.0, 10.0, f64::NEG_INFINITY), "items.0.height_cm"),
        ];
        for (bad, expected) in cases {
            let (code, param, _) = rejected(validate_items(&[bad]));
            assert_eq!((code, param.as_str()), (ErrorCode::InvalidItems, expected));
        }
    }

    #[test]
    fn single_item_weight_is_checked_first() {
        let van = vehicle("small_van");
        let items = [item(10.0, 10.0, 10.0, 10.0), item(600.5, 10.0, 10.0, 10.0)];
        let (code, param, message) = rejected(check_fit(&van, &items));
        assert_eq!((code, param.as_str()), (ErrorCode::VehicleDoesNotFit, "items.1"));
        assert!(message.contains("600 kg limit of small_van"), "{message}");
        assert!(check_fit(&van, &[item(600.0, 10.0, 10.0, 10.0)]).is_ok());
    }

    #[test]
    fn total_weight_names_the_limit() {
        let van = vehicle("small_van");
        let mut heavy = item(115.0, 20.0, 20.0, 20.0);
        heavy.quantity = 2;
        let items = vec![heavy; 3]; // 690 kg
        let (code, param, message) = rejected(check_fit(&van, &items));
        assert_eq!((code, param.as_str()), (ErrorCode::VehicleDoesNotFit, "items"));
        assert_eq!(message, "Total weight 690 kg exceeds the 600 kg limit of small_van.");
    }

    #[test]
    fn orientation_is_free() {
        let bicycle = vehicle("bicycle"); // 45 x 35 x 30 cm
        // Given as 30 x 45 x 35: rotated it fits exactly.
        assert!(check_fit(&bicycle, &[item(1.0, 30.0, 45.0, 35.0)]).is_ok());
        // 46 cm long fits in no orientation.
        let items = [item(1.0, 10.0, 10.0, 10.0), item(1.0, 30.0, 46.0, 20.0)];
        let (code, param, message) = rejected(check_fit(&bicycle, &items));
        assert_eq!((code, param.as_str()), (ErrorCode::VehicleDoesNotFit, "items.1"));
        assert!(message.contains("no orientation"), "{message}");
        // Two sides over the middle cargo side do not fit either.
        let (_, param, _) = rejected(check_fit(&bicycle, &[item(1.0, 36.0, 36.0, 5.0)]));
        assert_eq!(param, "items.0");
    }

    #[test]
    fn total_volume_is_checked() {
        let cargo_bike = vehicle("cargo_bike"); // 100 x 70 x 60 = 0.42 m³
        let mut crate_item = item(1.0, 50.0, 35.0, 30.0); // 0.0525 m³
        crate_item.quantity = 8; // 0.42 m³ exactly
        assert!(check_fit(&cargo_bike, std::slice::from_ref(&crate_item)).is_ok());
        crate_item.quantity = 10;
        let (code, param, message) = rejected(check_fit(&cargo_bike, &[crate_item]));
        assert_eq!((code, param.as_str()), (ErrorCode::VehicleDoesNotFit, "items"));
        assert_eq!(
            message,
            "Total volume 0.525 m³ exceeds the 0.420 m³ cargo space of cargo_bike."
        );
    }

    #[test]
    fn items_round_trip_as_json() {
        let items = vec![item(2.5, 30.0, 20.0, 10.0)];
        let json = serde_json::to_string(&items).expect("serialize");
        let back: Vec<ItemInput> = serde_json::from_str(&json).expect("deserialize");
        assert_eq!(back, items);
    }
}
