//! Which API key a request presents (docs/guide.md "Authentication"): the core
//! authenticates it, the edge rate-limits by it, both pick it the same way.

/// The key a request presents, or why it presents none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PresentedKey<'a> {
    Key(&'a str),
    /// Neither header carries anything.
    Missing,
    /// No `x-api-key`, and `Authorization` is not `Bearer <key>`.
    MalformedAuthorization,
}

/// `x-api-key` wins over `Authorization: Bearer`; blank headers count as absent.
pub fn presented_key<'a>(api_key: Option<&'a str>, authorization: Option<&'a str>) -> PresentedKey<'a> {
    if let Some(key) = api_key.map(str::trim).filter(|k| !k.is_empty()) {
        return PresentedKey::Key(key);
    }
    let Some(header) = authorization.map(str::trim).filter(|h| !h.is_empty()) else {
        return PresentedKey::Missing;
    };
    match header.split_once(' ') {
        Some((scheme, key)) if scheme.eq_ignore_ascii_case("bearer") && !key.trim().is_empty() => {
            PresentedKey::Key(key.trim())
        }
        _ => PresentedKey::MalformedAuthorization,
    }
}
