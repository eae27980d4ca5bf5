//! `courier.internal.v1.CourierService`: managing couriers (docs/couriers.md
//! "Managing couriers"), and the courier and job messages the courier app
//! and dispatch share.

use courier::app::v1 as apb;
use courier::internal::v1 as ipb;
use courier::internal::v1::courier_service_server::CourierService;
use courier::time::micros_to_proto;
use tonic::{Request, Response, Status};

use super::convert::{item_out, micros, required};
use super::delivery_out::{proof_out, waypoint_out, window_out};
use super::enums::ToProto;
use super::plans_out::shift_out;
use crate::caller;
use courier_core::couriers::pay::{self, Earnings, Period};
use courier_core::couriers::shifts::{self, NewShift, Place};
use courier_core::couriers::{self, Courier, Fleet, NewCourier, Photo, ProfileChange, Vehicle, invitations};
use courier_core::jobs::{self, Job, Move, Offered, Work};
use courier_core::positions::{self, Position};
use courier_core::{Core, CoreError, CoreResult};
use courier_identity::access::{Act, Granted, act};
use courier_identity::audit;
use courier_orders::pay::earnings::{Kind, Line, Totals};
use courier_orders::pay::statements::Statement;
use courier_orders::pay::{JobPay, Rule, RuleInput, Scope};
use courier_orders::routes::{StopKind, Visit};
use courier_orders::validate::WaypointInput;
use courier_pricing::geo::GeoPoint;

pub struct CourierApi(pub Core);

impl CourierApi {
    /// Courier `courier_id` once the caller of `request` was granted `A`
    /// over their fleet (a courier the caller may not see is `not_found`).
    async fn courier<A: Act, T>(
        &self,
        request: &Request<T>,
        courier_id: &str,
    ) -> Result<(Courier, Granted<A>), Status> {
        let courier = couriers::get(&self.0.db, courier_id).await?;
        let granted = caller::grant::<A, _>(&self.0, request, courier.fleet.workspace_id(), "courier").await?;
        Ok((courier, granted))
    }

    async fn summary(&self, courier: &Courier) -> CoreResult<ipb::CourierSummary> {
        let position = positions::latest(&self.0, &courier.id).await?;
        let current = jobs::open(&self.0, courier).await?.into_iter().next();
        Ok(ipb::CourierSummary {
            courier: Some(courier_out(courier, position.as_ref())),
            current_job_id: current.as_ref().map(|job| job.work.id().to_owned()),
            current_job: current.as_ref().map(job_out),
        })
    }

    async fn set_status<T>(
        &self,
        request: Request<T>,
        courier_id: &str,
        status: couriers::Status,
    ) -> Result<apb::Courier, Status> {
        let (courier, granted) = self.courier::<act::ManageCouriers, _>(&request, courier_id).await?;
        let tx = self.0.begin().await?;
        let courier = couriers::set_status(&self.0, &tx, &courier.id, status).await?;
        let action = match status {
            couriers::Status::Suspended => "courier.suspend",
            couriers::Status::Active => "courier.activate",
        };
        granted.record(&self.0, &*tx, change(action, &courier)).await?;
        tx.commit().await?;
        Ok(courier_out(&courier, None))
    }
}

fn place_in(place: ipb::ShiftPlace) -> Place {
    Place {
        address: place.address,
        point: GeoPoint::new(place.latitude, place.longitude),
    }
}

/// The audit entry of `action` on `courier`.
fn change<'a>(action: &'a str, courier: &'a Courier) -> audit::Change<'a> {
    audit::Change {
        action,
        workspace_id: courier.fleet.workspace_id(),
        target: &courier.id,
        courier_id: Some(&courier.id),
    }
}

#[tonic::async_trait]
impl CourierService for CourierApi {
    async fn set_shift(
        &self,
        request: Request<ipb::SetShiftRequest>,
    ) -> Result<Response<ipb::SetShiftResponse>, Status> {
        let (courier, granted) = self
            .courier::<act::ManageCouriers, _>(&request, &request.get_ref().courier_id)
            .await?;
        let r = request.into_inner();
        let new = NewShift {
            day: r.day,
            starts_at: micros(r.start_time, "start_time")?
                .ok_or_else(|| CoreError::invalid("start_time", "start_time is required."))?,
            ends_at: micros(r.end_time, "end_time")?
                .ok_or_else(|| CoreError::invalid("end_time", "end_time is required."))?,
            start: place_in(required(r.start_place, "start_place")?),
            end: r.end_place.map(place_in),
            rest_minutes: r.rest_minutes,
        };
        let tx = self.0.begin().await?;
        let shift = shifts::set(&self.0, &tx, &courier, new).await?;
        granted.record(&self.0, &*tx, change("shift.set", &courier)).await?;
        tx.commit().await?;
        Ok(Response::new(ipb::SetShiftResponse {
            shift: Some(shift_out(&shift, &courier.name)),
        }))
    }

    async fn list_shifts(
        &self,
        request: Request<ipb::ListShiftsRequest>,
    ) -> Result<Response<ipb::ListShiftsResponse>, Status> {
        let fleet = Fleet::from_workspace_id(&request.get_ref().workspace_id);
        caller::grant::<act::ReadCouriers, _>(&self.0, &request, fleet.workspace_id(), "workspace").await?;
        shifts::parse_day(&request.get_ref().day, "day")?;
        let shifts = shifts::of_day(&self.0.db, &fleet, &request.get_ref().day).await?;
        let names: std::collections::HashMap<String, String> =
            couriers::get_many(&self.0.db, shifts.iter().map(|s| s.courier_id.clone()).collect())
                .await?
                .into_iter()
                .map(|c| (c.id, c.name))
                .collect();
        Ok(Response::new(ipb::ListShiftsResponse {
            shifts: shifts
                .iter()
                .map(|shift| shift_out(shift, names.get(&shift.courier_id).map_or("", String::as_str)))
                .collect(),
        }))
    }

    async fn delete_shift(
        &self,
        request: Request<ipb::DeleteShiftRequest>,
    ) -> Result<Response<ipb::DeleteShiftResponse>, Status> {
        let shift = shifts::get(&self.0.db, &request.get_ref().shift_id).await?;
        let (courier, granted) = self
            .courier::<act::ManageCouriers, _>(&request, &shift.courier_id)
            .await?;
        let tx = self.0.begin().await?;
        shifts::delete(&tx, &shift.id).await?;
        granted.record(&self.0, &*tx, change("shift.delete", &courier)).await?;
        tx.commit().await?;
        Ok(Response::new(ipb::DeleteShiftResponse {}))
    }

    async fn invite_courier(
        &self,
        request: Request<ipb::InviteCourierRequest>,
    ) -> Result<Response<ipb::InviteCourierResponse>, Status> {
        let fleet = Fleet::from_workspace_id(&request.get_ref().workspace_id);
        let granted =
            caller::grant::<act::ManageCouriers, _>(&self.0, &request, fleet.workspace_id(), "workspace").await?;
        let r = request.into_inner();
        let vehicle = vehicle_in(required(r.vehicle, "vehicle")?);
        let tx = self.0.begin().await?;
        let courier = couriers::create(
            &self.0,
            &tx,
            NewCourier {
                fleet,
                name: r.name,
                phone: r.phone,
                email: r.email,
                vehicle,
            },
        )
        .await?;
        let invitation_url = invitations::create(&self.0, &tx, &courier.id, granted.actor()).await?;
        granted
            .record(&self.0, &*tx, change("courier.invite", &courier))
            .await?;
        tx.commit().await?;
        Ok(Response::new(ipb::InviteCourierResponse {
            courier: Some(courier_out(&courier, None)),
            invitation_url,
        }))
    }

    async fn create_courier_invitation(
        &self,
        request: Request<ipb::CreateCourierInvitationRequest>,
    ) -> Result<Response<ipb::CreateCourierInvitationResponse>, Status> {
        let (courier, granted) = self
            .courier::<act::ManageCouriers, _>(&request, &request.get_ref().courier_id)
            .await?;
        let tx = self.0.begin().await?;
        let invitation_url = invitations::create(&self.0, &tx, &courier.id, granted.actor()).await?;
        granted
            .record(&self.0, &*tx, change("courier.invitation", &courier))
            .await?;
        tx.commit().await?;
        Ok(Response::new(ipb::CreateCourierInvitationResponse { invitation_url }))
    }

    async fn list_couriers(
        &self,
        request: Request<ipb::ListCouriersRequest>,
    ) -> Result<Response<ipb::ListCouriersResponse>, Status> {
        let fleet = Fleet::from_workspace_id(&request.get_ref().workspace_id);
        caller::grant::<act::ReadCouriers, _>(&self.0, &request, fleet.workspace_id(), "workspace").await?;
        let r = request.into_inner();
        let token = Some(r.page_token.as_str()).filter(|t| !t.is_empty());
        let (page, next) = couriers::list(&self.0, &fleet, r.page_size, token).await?;
        let mut summaries = Vec::with_capacity(page.len());
        for courier in &page {
            summaries.push(self.summary(courier).await?);
        }
        Ok(Response::new(ipb::ListCouriersResponse {
            couriers: summaries,
            next_page_token: next.unwrap_or_default(),
        }))
    }

    async fn get_courier(
        &self,
        request: Request<ipb::GetCourierRequest>,
    ) -> Result<Response<ipb::GetCourierResponse>, Status> {
        let (courier, _) = self
            .courier::<act::ReadCouriers, _>(&request, &request.get_ref().courier_id)
            .await?;
        let summary = self.summary(&courier).await?;
        let day_ago = self.0.clock.now_micros() - 86_400_000_000;
        let (finished, _) = jobs::finished(&self.0, &courier, 100, "").await?;
        let recent: Vec<apb::Job> = finished
            .iter()
            .filter(|job| job.assignment.ended_at.is_some_and(|at| at >= day_ago))
            .map(job_out)
            .collect();
        let trail = match &summary.current_job_id {
            Some(job_id) => positions::trail(&self.0.db, job_id).await?,
            None => Vec::new(),
        };
        Ok(Response::new(ipb::GetCourierResponse {
            courier: Some(summary),
            recent_jobs: recent,
            trail: trail.iter().map(position_out).collect(),
        }))
    }

    async fn update_courier(
        &self,
        request: Request<ipb::UpdateCourierRequest>,
    ) -> Result<Response<ipb::UpdateCourierResponse>, Status> {
        let (courier, granted) = self
            .courier::<act::ManageCouriers, _>(&request, &request.get_ref().courier_id)
            .await?;
        let r = request.into_inner();
        let photo = match (r.photo, r.photo_content_type) {
            (None, _) => None,
            (Some(content), Some(content_type)) => Some(Photo { content_type, content }),
            (Some(_), None) => {
                return Err(
                    CoreError::invalid("photo_content_type", "photo_content_type is required with a photo.").into(),
                );
            }
        };
        let profile = ProfileChange {
            name: r.name,
            phone: r.phone,
            email: r.email,
            vehicle: r.vehicle.map(vehicle_in),
            photo,
        };
        let tx = self.0.begin().await?;
        let courier = couriers::update_profile(&self.0, &tx, &courier.id, profile).await?;
        granted
            .record(&self.0, &*tx, change("courier.update", &courier))
            .await?;
        tx.commit().await?;
        Ok(Response::new(ipb::UpdateCourierResponse {
            courier: Some(courier_out(&courier, None)),
        }))
    }

    async fn suspend_courier(
        &self,
        request: Request<ipb::SuspendCourierRequest>,
    ) -> Result<Response<ipb::SuspendCourierResponse>, Status> {
        let courier_id = request.get_ref().courier_id.clone();
        let courier = self
            .set_status(request, &courier_id, couriers::Status::Suspended)
            .await?;
        Ok(Response::new(ipb::SuspendCourierResponse { courier: Some(courier) }))
    }

    async fn set_pay_rule(
        &self,
        request: Request<ipb::SetPayRuleRequest>,
    ) -> Result<Response<ipb::SetPayRuleResponse>, Status> {
        let r = request.get_ref();
        let scope = match (r.vehicle_type_id.trim(), r.fleet_id.trim()) {
            ("", "") => {
                return Err(CoreError::invalid(
                    "vehicle_type_id",
                    "Name the vehicle_type_id of a rule for the platform's couriers, or the fleet_id of a fleet's.",
                )
                .into());
            }
            (vehicle_type_id, "") => Scope::VehicleType(vehicle_type_id.to_owned()),
            ("", fleet_id) => Scope::Fleet(fleet_id.to_owned()),
            _ => {
                return Err(CoreError::invalid(
                    "fleet_id",
                    "A rule is a vehicle type's (the platform's couriers) or a fleet's, not both.",
                )
                .into());
            }
        };
        let granted = caller::grant::<act::ManageCouriers, _>(&self.0, &request, scope.fleet_id(), "workspace").await?;
        let parts = required(request.into_inner().parts, "parts")?;
        let parts = RuleInput {
            base_cents: parts.base_cents,
            per_km_cents: parts.per_km_cents,
            per_minute_cents: parts.per_minute_cents,
            waiting_per_minute_cents: parts.waiting_per_minute_cents,
            surcharge_share_percent: parts.surcharge_share_percent,
        };
        let rule = pay::set_rule(&self.0, &granted, scope, parts).await?;
        Ok(Response::new(ipb::SetPayRuleResponse {
            rule: Some(pay_rule_out(&rule)),
        }))
    }

    async fn list_pay_rules(
        &self,
        request: Request<ipb::ListPayRulesRequest>,
    ) -> Result<Response<ipb::ListPayRulesResponse>, Status> {
        let fleet = Fleet::from_workspace_id(&request.get_ref().fleet_id);
        caller::grant::<act::ReadCouriers, _>(&self.0, &request, fleet.workspace_id(), "workspace").await?;
        let rules = pay::rules_of(&self.0, &fleet).await?;
        Ok(Response::new(ipb::ListPayRulesResponse {
            rules: rules.iter().map(pay_rule_out).collect(),
        }))
    }

    async fn list_earnings(
        &self,
        request: Request<ipb::ListEarningsRequest>,
    ) -> Result<Response<ipb::ListEarningsResponse>, Status> {
        let (courier, _) = self
            .courier::<act::ReadCouriers, _>(&request, &request.get_ref().courier_id)
            .await?;
        let r = request.get_ref();
        let earnings = pay::list(&self.0, &courier, period_in(r.period)?, &r.day).await?;
        let out = earnings_out(&earnings);
        Ok(Response::new(ipb::ListEarningsResponse {
            start_time: out.start_time,
            end_time: out.end_time,
            time_zone: out.time_zone,
            lines: out.lines,
            totals: out.totals,
        }))
    }

    async fn adjust_earnings(
        &self,
        request: Request<ipb::AdjustEarningsRequest>,
    ) -> Result<Response<ipb::AdjustEarningsResponse>, Status> {
        let (courier, granted) = self
            .courier::<act::ManageCouriers, _>(&request, &request.get_ref().courier_id)
            .await?;
        let r = request.get_ref();
        let line = pay::adjust(&self.0, &granted, &courier, r.amount_cents, &r.reason).await?;
        Ok(Response::new(ipb::AdjustEarningsResponse {
            line: Some(earnings_line_out(&line)),
        }))
    }

    async fn list_courier_statements(
        &self,
        request: Request<ipb::ListCourierStatementsRequest>,
    ) -> Result<Response<ipb::ListCourierStatementsResponse>, Status> {
        let (courier, _) = self
            .courier::<act::ReadCouriers, _>(&request, &request.get_ref().courier_id)
            .await?;
        let statements = pay::statements_of(&self.0, &courier).await?;
        Ok(Response::new(ipb::ListCourierStatementsResponse {
            statements: statements
                .iter()
                .map(|s| courier_statement_out(s, self.0.catalog.home_time_zone().name()))
                .collect(),
        }))
    }

    async fn get_courier_statement(
        &self,
        request: Request<ipb::GetCourierStatementRequest>,
    ) -> Result<Response<ipb::GetCourierStatementResponse>, Status> {
        let (statement, lines, courier) = pay::statement(&self.0, &request.get_ref().statement_id).await?;
        caller::grant::<act::ReadCouriers, _>(&self.0, &request, courier.fleet.workspace_id(), "statement").await?;
        Ok(Response::new(ipb::GetCourierStatementResponse {
            statement: Some(courier_statement_out(
                &statement,
                self.0.catalog.home_time_zone().name(),
            )),
            lines: lines.iter().map(earnings_line_out).collect(),
            courier_name: courier.name,
        }))
    }

    async fn close_courier_statements(
        &self,
        request: Request<ipb::CloseCourierStatementsRequest>,
    ) -> Result<Response<ipb::CloseCourierStatementsResponse>, Status> {
        let granted = caller::grant::<act::Administer, _>(&self.0, &request, None, "workspace").await?;
        let closed = pay::close_week(&self.0, &granted, &request.get_ref().day).await?;
        Ok(Response::new(ipb::CloseCourierStatementsResponse {
            statements: closed
                .iter()
                .map(|s| courier_statement_out(s, self.0.catalog.home_time_zone().name()))
                .collect(),
        }))
    }

    async fn activate_courier(
        &self,
        request: Request<ipb::ActivateCourierRequest>,
    ) -> Result<Response<ipb::ActivateCourierResponse>, Status> {
        let courier_id = request.get_ref().courier_id.clone();
        let courier = self.set_status(request, &courier_id, couriers::Status::Active).await?;
        Ok(Response::new(ipb::ActivateCourierResponse { courier: Some(courier) }))
    }
}

fn vehicle_in(v: ipb::CourierVehicleInput) -> Vehicle {
    Vehicle {
        vehicle_type_id: v.vehicle_type_id,
        make: v.make,
        model: v.model,
        color: v.color,
        license_plate: v.license_plate,
    }
}

/// A courier as the app, managers and dispatch see them.
pub fn courier_out(c: &Courier, position: Option<&Position>) -> apb::Courier {
    apb::Courier {
        id: c.id.clone(),
        workspace_id: c.fleet.workspace_id().unwrap_or_default().to_owned(),
        name: c.name.clone(),
        phone: c.phone.clone(),
        email: c.email.clone(),
        vehicle: Some(apb::Vehicle {
            vehicle_type_id: c.vehicle.vehicle_type_id.clone(),
            make: c.vehicle.make.clone(),
            model: c.vehicle.model.clone(),
            color: c.vehicle.color.clone(),
            license_plate: c.vehicle.license_plate.clone(),
        }),
        status: match c.status {
            couriers::Status::Active => apb::CourierStatus::Active,
            couriers::Status::Suspended => apb::CourierStatus::Suspended,
        } as i32,
        availability: match c.availability {
            couriers::Availability::Online => apb::Availability::Online,
            couriers::Availability::Offline => apb::Availability::Offline,
        } as i32,
        last_position: position.map(position_out),
        joined: c.joined,
        created_at: Some(micros_to_proto(c.created_at)),
        updated_at: Some(micros_to_proto(c.updated_at)),
        has_photo: c.photo_blob_key.is_some(),
    }
}

pub fn position_out(p: &Position) -> apb::Position {
    apb::Position {
        latitude: p.latitude,
        longitude: p.longitude,
        accuracy_m: p.accuracy_m,
        heading_deg: p.heading_deg,
        speed_mps: p.speed_mps,
        recorded_at: Some(micros_to_proto(p.recorded_at)),
    }
}

/// A position as the app reports it; `param` names it in refusals.
/// `index` names the position in its report's `positions` when refused
/// (formatted only then: reports arrive by the thousand a second).
pub fn position_in(p: apb::Position, index: usize) -> CoreResult<Position> {
    let recorded_at = p
        .recorded_at
        .and_then(|ts| courier::time::from_proto(&ts))
        .ok_or_else(|| {
            CoreError::invalid(
                format!("positions.{index}.recorded_at"),
                format!("positions.{index}.recorded_at is required."),
            )
        })?;
    Ok(Position {
        latitude: p.latitude,
        longitude: p.longitude,
        accuracy_m: p.accuracy_m,
        heading_deg: p.heading_deg,
        speed_mps: p.speed_mps,
        recorded_at: recorded_at.timestamp_micros(),
    })
}

/// A pay rule version as managers read it.
fn pay_rule_out(rule: &Rule) -> ipb::PayRule {
    let parts = &rule.parts;
    ipb::PayRule {
        id: rule.id.clone(),
        vehicle_type_id: match &rule.scope {
            Scope::VehicleType(id) => id.clone(),
            Scope::Fleet(_) => String::new(),
        },
        fleet_id: rule.scope.fleet_id().unwrap_or_default().to_owned(),
        version: rule.version,
        currency: rule.currency.clone(),
        parts: Some(ipb::PayRuleParts {
            base_cents: parts.base_cents,
            per_km_cents: parts.per_km_cents,
            per_minute_cents: parts.per_minute_cents,
            waiting_per_minute_cents: parts.waiting_per_minute_cents,
            surcharge_share_percent: parts.surcharge_share_percent,
        }),
        create_time: Some(micros_to_proto(rule.created_at)),
        created_by: rule.created_by.clone(),
    }
}

/// A courier statement as its courier and managers read it, its week
/// counted in `time_zone`.
pub fn courier_statement_out(statement: &Statement, time_zone: &str) -> apb::CourierStatement {
    apb::CourierStatement {
        id: statement.id.clone(),
        courier_id: statement.courier_id.clone(),
        start_time: Some(micros_to_proto(statement.period_start)),
        end_time: Some(micros_to_proto(statement.period_end)),
        totals: Some(totals_out(&statement.currency, &statement.totals)),
        close_time: Some(micros_to_proto(statement.closed_at)),
        closed_by: statement.closed_by.clone(),
        time_zone: time_zone.to_owned(),
    }
}

fn totals_out(currency: &str, totals: &Totals) -> apb::EarningsTotals {
    apb::EarningsTotals {
        currency: currency.to_owned(),
        jobs: i32::try_from(totals.jobs).unwrap_or(i32::MAX),
        job_cents: totals.job_cents,
        waiting_cents: totals.waiting_cents,
        tip_cents: totals.tip_cents,
        adjustment_cents: totals.adjustment_cents,
        total_cents: totals.total_cents(),
    }
}

/// An earnings period as asked (unspecified: a day).
pub fn period_in(period: i32) -> CoreResult<Period> {
    match apb::EarningsPeriod::try_from(period) {
        Ok(apb::EarningsPeriod::Unspecified | apb::EarningsPeriod::Day) => Ok(Period::Day),
        Ok(apb::EarningsPeriod::Week) => Ok(Period::Week),
        Err(_) => Err(CoreError::invalid("period", "period is a day or a week.")),
    }
}

/// A courier's earnings over a period, as the app's answer.
pub fn earnings_out(earnings: &Earnings) -> apb::ListEarningsResponse {
    apb::ListEarningsResponse {
        start_time: Some(micros_to_proto(earnings.start)),
        end_time: Some(micros_to_proto(earnings.end)),
        time_zone: earnings.time_zone.name().to_owned(),
        lines: earnings.lines.iter().map(earnings_line_out).collect(),
        totals: earnings
            .totals
            .iter()
            .map(|(currency, totals)| totals_out(currency, totals))
            .collect(),
    }
}

pub fn earnings_line_out(line: &Line) -> apb::EarningsLine {
    apb::EarningsLine {
        id: line.id.clone(),
        kind: match line.kind {
            Kind::Job => apb::EarningsKind::Job,
            Kind::Waiting => apb::EarningsKind::Waiting,
            Kind::Tip => apb::EarningsKind::Tip,
            Kind::Adjustment => apb::EarningsKind::Adjustment,
        } as i32,
        job_id: line.job_id.clone(),
        currency: line.currency.clone(),
        amount_cents: line.amount_cents,
        reason: line.reason.clone(),
        earn_time: Some(micros_to_proto(line.earned_at)),
        statement_id: line.statement_id.clone(),
    }
}

fn job_pay_out(pay: &JobPay) -> apb::JobPay {
    apb::JobPay {
        currency: pay.currency.clone(),
        base_cents: pay.base_cents,
        distance_cents: pay.distance_cents,
        time_cents: pay.time_cents,
        surcharge_cents: pay.surcharge_cents,
        waiting_cents: pay.waiting_cents,
        total_cents: pay.total_cents(),
    }
}

/// A job as its courier sees it: contact phone numbers only while active.
pub fn job_out(job: &Job) -> apb::Job {
    let next_move = match job.next_move() {
        Some(Move::ArriveAtPickup) => apb::JobMove::ArriveAtPickup,
        Some(Move::PickUp) => apb::JobMove::PickUp,
        Some(Move::StartTransit) => apb::JobMove::StartTransit,
        Some(Move::ArriveAtDropoff) => apb::JobMove::ArriveAtDropoff,
        Some(Move::CompleteHandover) => apb::JobMove::CompleteHandover,
        Some(Move::FailHandover | Move::ReportPickupNoShow) | None => apb::JobMove::Unspecified,
    } as i32;
    let assignment = &job.assignment;
    apb::Job {
        next_move,
        proof: job.proof.as_ref().map(proof_out),
        pickup_proof_submitted: job.pickup_proof_submitted,
        dropoff_proof_submitted: job.dropoff_proof_submitted,
        assigned_at: Some(micros_to_proto(assignment.assigned_at)),
        ended_at: assignment.ended_at.map(micros_to_proto),
        outcome: assignment.outcome.clone(),
        pay: job.pay.as_ref().map(job_pay_out),
        earned_cents: job.earned_cents,
        ..work_out(&job.work, job.is_active())
    }
}

/// An offer as its courier sees it: the job without phone numbers (in
/// its route too).
pub fn offer_out(offered: &Offered) -> apb::Offer {
    let (offer, work) = (&offered.offer, &offered.work);
    apb::Offer {
        pay: offered.pay.as_ref().map(job_pay_out),
        id: offer.id.clone(),
        job: Some(work_out(work, false)),
        expires_at: Some(micros_to_proto(offer.expires_at)),
        distance_to_pickup_km: offer.distance_km,
        minutes_to_pickup: offer.minutes_to_pickup,
        route: offer
            .insertion
            .as_ref()
            .map(|insertion| route_out(&insertion.stops, Some(&offer.job_id))),
        added_minutes: offer.insertion.as_ref().map(|i| (i.added_seconds + 59) / 60),
    }
}

/// A courier's route; the contacts of job `unaccepted` without phone
/// numbers or emails.
pub fn route_out(stops: &[Visit], unaccepted: Option<&str>) -> apb::Route {
    apb::Route {
        stops: stops
            .iter()
            .map(|stop| {
                let mut place = waypoint_out(&stop.place);
                if unaccepted == Some(stop.job_id.as_str()) {
                    place.contact = place.contact.map(|c| courier::v1::Contact {
                        phone: String::new(),
                        email: None,
                        ..c
                    });
                }
                apb::RouteStop {
                    job_id: stop.job_id.clone(),
                    kind: match stop.kind {
                        StopKind::Pickup => apb::StopKind::Pickup,
                        StopKind::Dropoff => apb::StopKind::Dropoff,
                    } as i32,
                    place: Some(place),
                    eta: stop.eta.map(micros_to_proto),
                }
            })
            .collect(),
    }
}

/// The work of a job; contacts' phone numbers and emails only if `active`.
fn work_out(work: &Work, active: bool) -> apb::Job {
    let waypoint = |w: &WaypointInput| {
        let mut out = waypoint_out(w);
        if !active {
            out.contact = out.contact.map(|c| courier::v1::Contact {
                phone: String::new(),
                email: None,
                ..c
            });
        }
        out
    };
    let windows = work.windows();
    let mut out = apb::Job {
        id: work.id().to_owned(),
        status: work.status().to_proto() as i32,
        active,
        pickup_window: window_out(windows.pickup),
        dropoff_window: window_out(windows.dropoff),
        ..Default::default()
    };
    match work {
        Work::Delivery(d) => {
            out.kind = apb::JobKind::Delivery as i32;
            out.pickup = Some(waypoint(&d.route.pickup));
            out.dropoff = Some(waypoint(&d.route.dropoff));
            out.stops = d.route.stops.iter().map(waypoint).collect();
            out.vehicle_type_id = d.vehicle_type_id.clone();
            out.items = d.route.items.iter().flatten().map(item_out).collect();
            out.notes = d.notes.clone();
            out.proof = Some(proof_out(&d.proof));
            out.scheduled_at = d.scheduled_at.map(micros_to_proto);
            out.pickup_eta = d.pickup_eta.map(micros_to_proto);
            out.dropoff_eta = d.dropoff_eta.map(micros_to_proto);
            out.distance_km = d.distance_km;
            out.updated_at = Some(micros_to_proto(d.updated_at));
            out.return_of = d.return_of.clone();
            out.return_job_id = d.return_delivery_id.clone();
            out.tip_cents = d.tip_cents;
            out.currency = d.currency.clone().unwrap_or_default();
        }
        Work::FleetOrder(o) => {
            out.kind = apb::JobKind::FleetOrder as i32;
            out.pickup = Some(waypoint(&o.route.pickup));
            out.dropoff = Some(waypoint(&o.route.dropoff));
            out.stops = o.route.stops.iter().map(waypoint).collect();
            out.vehicle_type_id = o.vehicle_type_id.clone();
            out.items = o.route.items.iter().flatten().map(item_out).collect();
            out.notes = o.notes.clone();
            out.reference = o.reference.clone();
            out.updated_at = Some(micros_to_proto(o.updated_at));
        }
    }
    out
}
