use courier::v1 as pb;
use courier::v1::vehicle_type_service_server::VehicleTypeService;
use tonic::{Request, Response, Status};

use crate::caller;
use courier_core::Core;

pub struct VehicleTypeApi(pub Core);

#[tonic::async_trait]
impl VehicleTypeService for VehicleTypeApi {
    async fn list_vehicle_types(
        &self,
        request: Request<pb::ListVehicleTypesRequest>,
    ) -> Result<Response<pb::ListVehicleTypesResponse>, Status> {
        caller::api(&self.0, &request, None).await?;
        let catalog = &self.0.catalog;
        let vehicle_types = catalog
            .vehicle_types()
            .iter()
            .map(|v| pb::VehicleType {
                id: v.id.clone(),
                name: v.name.clone(),
                description: v.description.clone(),
                max_weight_kg: v.max_weight_kg,
                max_length_cm: v.max_length_cm,
                max_width_cm: v.max_width_cm,
                max_height_cm: v.max_height_cm,
                max_jobs: i32::try_from(v.max_jobs).unwrap_or(i32::MAX),
                extras: catalog
                    .extras_of(v)
                    .into_iter()
                    .map(|e| pb::Extra {
                        id: e.id.clone(),
                        name: e.name.clone(),
                        unit_amount_cents: e.unit_amount_cents,
                        options: e
                            .options
                            .iter()
                            .map(|o| pb::ExtraOption {
                                id: o.id.clone(),
                                name: o.name.clone(),
                                unit_amount_cents: o.unit_amount_cents,
                            })
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        Ok(Response::new(pb::ListVehicleTypesResponse { vehicle_types }))
    }
}
