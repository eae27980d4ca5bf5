use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use courier::v1::CreateQuoteRequest;

use crate::EdgeState;
use crate::context::CallContext;
use crate::dto::quotes::{CreateQuoteBody, QuoteJson};
use crate::error::ApiError;
use crate::json::JsonBody;

/// Create a quote
///
/// Prices a route for a vehicle type. The quote is valid for 5 minutes in the
/// key's mode; pass its `id` as `quote_id` to lock the price.
#[utoipa::path(
    post,
    path = "/v1/quotes",
    operation_id = "createQuote",
    tag = "Quotes",
    request_body = CreateQuoteBody,
    responses((status = 201, description = "The quote.", body = QuoteJson)),
    security(("partnerApiKey" = []), ("partnerBearer" = [])),
)]
pub async fn create(
    State(state): State<EdgeState>,
    ctx: CallContext,
    body: Result<JsonBody<CreateQuoteBody>, ApiError>,
) -> Result<(StatusCode, Json<QuoteJson>), ApiError> {
    let request = ctx.request_for(body, |JsonBody(b)| CreateQuoteRequest::try_from(b));
    let mut client = state.core.quotes.clone();
    let answer = client.create_quote(request).await?.into_inner();
    let quote = answer.quote.ok_or_else(|| {
        ApiError::new(
            courier::errors::ErrorCode::UpstreamError,
            "The core answered without a quote.",
        )
    })?;
    Ok((StatusCode::CREATED, Json(quote.into())))
}
