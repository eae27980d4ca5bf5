use axum::response::Html;
use courier::errors::ErrorCode;

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
