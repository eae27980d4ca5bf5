use courier::v1 as pb;
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = VehicleTypeList)]
pub struct VehicleTypeListJson {
    pub vehicle_types: Vec<VehicleTypeJson>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = VehicleType)]
pub struct VehicleTypeJson {
    /// The value of `vehicle_type_id`.
    pub id: String,
    pub name: String,
    pub description: String,
    pub max_weight_kg: f64,
    pub max_length_cm: f64,
    pub max_width_cm: f64,
    pub max_height_cm: f64,
    /// The most jobs a courier with this vehicle carries at once: a
    /// delivery may share the courier with up to this many others, unless
    /// booked with `"batching": "never"`.
    pub max_jobs: i32,
    pub extras: Vec<ExtraJson>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = Extra)]
pub struct ExtraJson {
    pub id: String,
    pub name: String,
    /// Null when the extra has options, each with its own price.
    pub unit_amount_cents: Option<i64>,
    pub options: Vec<ExtraOptionJson>,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(as = ExtraOption)]
pub struct ExtraOptionJson {
    pub id: String,
    pub name: String,
    pub unit_amount_cents: i64,
}

impl From<pb::ListVehicleTypesResponse> for VehicleTypeListJson {
    fn from(r: pb::ListVehicleTypesResponse) -> Self {
        VehicleTypeListJson {
            vehicle_types: r
                .vehicle_types
                .into_iter()
                .map(|v| VehicleTypeJson {
                    id: v.id,
                    name: v.name,
                    description: v.description,
                    max_weight_kg: v.max_weight_kg,
                    max_length_cm: v.max_length_cm,
                    max_width_cm: v.max_width_cm,
                    max_height_cm: v.max_height_cm,
                    max_jobs: v.max_jobs,
                    extras: v
                        .extras
                        .into_iter()
                        .map(|e| ExtraJson {
                            id: e.id,
                            name: e.name,
                            unit_amount_cents: e.unit_amount_cents,
                            options: e
                                .options
                                .into_iter()
                                .map(|o| ExtraOptionJson {
                                    id: o.id,
                                    name: o.name,
                                    unit_amount_cents: o.unit_amount_cents,
                                })
                                .collect(),
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}
