use std::sync::{Arc, OnceLock};

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, header};
use axum::response::{Html, IntoResponse, Response};
use courier::errors::ErrorCode;
use utoipa_swagger_ui::{Config, SwaggerFile};

use crate::error::ApiError;
use crate::path_id::PathId;

/// `GET /v1/docs/errors`: the error catalogue that every `doc_url` points at,
/// one anchor per code.
pub async fn errors() -> Html<String> {
    let mut rows = String::new();
    for code in ErrorCode::ALL {
        rows.push_str(&format!(
            "<tr id=\"{code}\"><td><a href=\"#{code}\"><code>{code}</code></a></td><td>{status}</td><td>{doc}</td></tr>\n",
            code = code.as_str(),
            status = code.http_status(),
            doc = escape(code.description()),
        ));
    }
    Html(format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>Courier API v1 – errors</title>\
<style>body{{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}}\
td{{padding:.4rem .6rem;border-bottom:1px solid #ddd;vertical-align:top}}tr:target{{background:#fff4c2}}</style>\
</head><body><h1>Errors</h1>\
<p>Every error answers <code>{{\"error\": {{\"code\", \"message\", \"param\", \"doc_url\"}}, \"request_id\"}}</code>. \
Branch on <code>code</code>; handle unknown codes by HTTP status. Quote <code>request_id</code> to support.</p>\
<table><thead><tr><th>code</th><th>HTTP</th><th>meaning</th></tr></thead><tbody>\n{rows}</tbody></table></body></html>\n"
    ))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// `GET /v1/openapi.json`: the OpenAPI 3.1 document (see `crate::openapi`),
/// built once.
pub async fn openapi() -> Result<Response, ApiError> {
    static DOCUMENT: OnceLock<Bytes> = OnceLock::new();
    let bytes = match DOCUMENT.get() {
        Some(bytes) => bytes.clone(),
        None => {
            let bytes = crate::openapi::document()
                .and_then(|doc| serde_json::to_vec(&doc))
                .map(Bytes::from)
                .map_err(|error| {
                    tracing::error!(%error, "cannot render the OpenAPI document");
                    ApiError::new(ErrorCode::InternalError, "The API description could not be rendered.")
                })?;
            DOCUMENT.get_or_init(|| bytes).clone()
        }
    };
    Ok(([(header::CONTENT_TYPE, "application/json")], bytes).into_response())
}

/// The Swagger UI settings: the document above, and no validator badge (it
/// would send the document's URL to a third-party service).
fn swagger_config() -> Arc<Config<'static>> {
    static CONFIG: OnceLock<Arc<Config<'static>>> = OnceLock::new();
    CONFIG
        .get_or_init(|| Arc::new(Config::new(["/v1/openapi.json"]).validator_url("none")))
        .clone()
}

/// `GET /v1/docs`: the interactive reference (Swagger UI, served with all its
/// assets from this binary). The page's asset links are relative; a `<base>`
/// makes them resolve under `/v1/docs/`, with or without a trailing slash.
pub async fn reference() -> Result<Response, ApiError> {
    let file = swagger_file("index.html")?;
    let page = String::from_utf8_lossy(&file.bytes)
        .replacen("<head>", "<head>\n    <base href=\"/v1/docs/\">", 1)
        .replacen(
            "<title>Swagger UI</title>",
            "<title>Courier API v1 reference</title>",
            1,
        );
    let mut response = asset_response(page.into_bytes(), &file.content_type, file.gzpipped);
    // The browser enforces what the page promises: nothing from another origin.
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; base-uri 'self'; form-action 'none'; frame-ancestors 'none'",
        ),
    );
    Ok(response)
}

/// `GET /v1/docs/{asset}`: the reference's scripts, styles and images.
pub async fn reference_asset(PathId(asset): PathId) -> Result<Response, ApiError> {
    let file = swagger_file(&asset)?;
    Ok(asset_response(
        file.bytes.into_owned(),
        &file.content_type,
        file.gzpipped,
    ))
}

fn swagger_file(path: &str) -> Result<SwaggerFile<'static>, ApiError> {
    utoipa_swagger_ui::serve(path, swagger_config())
        .map_err(|error| {
            tracing::error!(%error, path, "cannot serve a reference asset");
            ApiError::new(ErrorCode::InternalError, "The reference asset could not be served.")
        })?
        .ok_or_else(|| ApiError::new(ErrorCode::NotFound, format!("No reference asset {path}.")))
}

fn asset_response(body: Vec<u8>, content_type: &str, gzipped: bool) -> Response {
    let mut response = Response::new(Body::from(body));
    let headers = response.headers_mut();
    if let Ok(content_type) = HeaderValue::from_str(content_type) {
        headers.insert(header::CONTENT_TYPE, content_type);
    }
    if gzipped {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    }
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}
