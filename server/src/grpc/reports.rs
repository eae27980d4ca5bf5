//! `courier.internal.v1.ReportService` (docs/reports.md): decode, grant,
//! read `courier_orders::reports` (deliveries) and
//! `courier_core::couriers::hours` (courier hours), encode.

use chrono::NaiveDate;
use chrono_tz::Tz;
use courier::internal::v1 as ipb;
use courier::internal::v1::report_service_server::ReportService;
use tonic::{Request, Response, Status};

use crate::caller;
use courier_core::couriers::{Fleet, hours};
use courier_core::{Core, CoreError, CoreResult};
use courier_identity::access::act;
use courier_identity::auth::Mode;
use courier_orders::deliveries;
use courier_orders::reports::{self, CourierFigures, DeliveryFigures, Period, Range, Scope};

pub struct ReportApi(pub Core);

/// The workspace a request names; `None` (empty) for the platform's.
fn named(workspace_id: &str) -> Option<&str> {
    Some(workspace_id.trim()).filter(|id| !id.is_empty())
}

fn range_in(first: &str, last: &str) -> CoreResult<Range> {
    let day = |param: &str, text: &str| {
        text.parse::<NaiveDate>()
            .map_err(|_| CoreError::invalid(param, format!("{param} is a day, YYYY-MM-DD.")))
    };
    Range::new(day("first_day", first)?, day("last_day", last)?)
        .map_err(|message| CoreError::invalid("last_day", message))
}

fn period_in(period: i32) -> CoreResult<Period> {
    match ipb::ReportPeriod::try_from(period) {
        Ok(ipb::ReportPeriod::Unspecified | ipb::ReportPeriod::Day) => Ok(Period::Day),
        Ok(ipb::ReportPeriod::Week) => Ok(Period::Week),
        Err(_) => Err(CoreError::invalid("period", "period is a day or a week.")),
    }
}

/// The zone a report's days are on: the area's, the workspace's, else the
/// platform's.
async fn zone_of(core: &Core, workspace_id: Option<&str>, area: Option<&str>) -> CoreResult<Tz> {
    Ok(match (area, workspace_id) {
        (Some(area), _) => core.catalog.time_zone(area),
        (None, Some(workspace_id)) => deliveries::time_zone_of_workspace(core, workspace_id).await?,
        (None, None) => core.catalog.home_time_zone(),
    })
}

fn delivery_row(first_day: NaiveDate, f: &DeliveryFigures) -> ipb::DeliveryReportRow {
    let minutes = |q: Option<u32>| q.map(i64::from);
    ipb::DeliveryReportRow {
        first_day: first_day.to_string(),
        deliveries: f.deliveries as i64,
        delivered: f.delivered as i64,
        cancelled: f.cancelled as i64,
        cancellations: f
            .cancellations
            .iter()
            .map(|(reason, count)| ipb::CancellationCount {
                reason: reason.clone(),
                count: *count as i64,
            })
            .collect(),
        on_time: f.on_time as i64,
        promised: f.promised as i64,
        pickup_minutes_median: minutes(f.to_pickup.quantile(0.5)),
        pickup_minutes_p90: minutes(f.to_pickup.quantile(0.9)),
        delivery_minutes_median: minutes(f.to_delivery.quantile(0.5)),
        delivery_minutes_p90: minutes(f.to_delivery.quantile(0.9)),
    }
}

fn courier_row(first_day: NaiveDate, f: &CourierFigures) -> ipb::CourierReportRow {
    ipb::CourierReportRow {
        first_day: first_day.to_string(),
        couriers: f.couriers as i64,
        online_minutes: f.online_minutes as i64,
        busy_minutes: f.busy_minutes as i64,
        delivered: f.delivered as i64,
    }
}

#[tonic::async_trait]
impl ReportService for ReportApi {
    async fn get_delivery_report(
        &self,
        request: Request<ipb::GetDeliveryReportRequest>,
    ) -> Result<Response<ipb::GetDeliveryReportResponse>, Status> {
        let r = request.get_ref().clone();
        let workspace_id = named(&r.workspace_id);
        caller::grant::<act::ReadReports, _>(&self.0, &request, workspace_id, "workspace").await?;
        let mode = match r.mode.as_str() {
            "test" => Mode::Test,
            "live" => Mode::Live,
            _ => return Err(CoreError::invalid("mode", "mode is test or live.").into()),
        };
        let area = named(&r.service_area_id);
        if let Some(area) = area
            && self.0.catalog.service_area(area).is_none()
        {
            return Err(CoreError::invalid("service_area_id", format!("There is no service area {area:?}.")).into());
        }
        let range = range_in(&r.first_day, &r.last_day)?;
        let period = period_in(r.period)?;
        let scope = Scope {
            workspace_id,
            mode,
            service_area_id: area,
        };
        let rows = reports::deliveries(&self.0, scope, range, period).await?;
        let mut total = DeliveryFigures::default();
        for (_, figures) in &rows {
            total.merge(figures);
        }
        let zone = zone_of(&self.0, workspace_id, area).await?;
        Ok(Response::new(ipb::GetDeliveryReportResponse {
            rows: rows.iter().map(|(day, f)| delivery_row(*day, f)).collect(),
            total: Some(delivery_row(range.first, &total)),
            time_zone: zone.name().to_owned(),
        }))
    }

    async fn get_courier_report(
        &self,
        request: Request<ipb::GetCourierReportRequest>,
    ) -> Result<Response<ipb::GetCourierReportResponse>, Status> {
        let r = request.get_ref().clone();
        let workspace_id = named(&r.workspace_id);
        caller::grant::<act::ReadReports, _>(&self.0, &request, workspace_id, "workspace").await?;
        let range = range_in(&r.first_day, &r.last_day)?;
        let period = period_in(r.period)?;
        let fleet = Fleet::from_workspace_id(workspace_id.unwrap_or_default());
        let zone = zone_of(&self.0, workspace_id, None).await?;
        let rows = hours::figures(&self.0, &fleet, zone, range, period).await?;
        // The whole range: its own count (a courier online on two days is one).
        let whole = hours::figures(&self.0, &fleet, zone, range, Period::Whole).await?;
        let total = whole.first().map(|(_, f)| f.clone()).unwrap_or_default();
        Ok(Response::new(ipb::GetCourierReportResponse {
            rows: rows.iter().map(|(day, f)| courier_row(*day, f)).collect(),
            total: Some(courier_row(range.first, &total)),
            time_zone: zone.name().to_owned(),
        }))
    }
}
