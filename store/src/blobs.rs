//! The blob store: where proof-of-delivery files live. Files are too large
//! and too many for the database, and a deployment picks where they go: a
//! local directory by default (one machine, development), or any
//! S3-compatible object store (AWS S3, MinIO, Ceph, R2) when several core
//! replicas must see the same files.
//!
//! Both implementations sit behind [`BlobStore`], an object-safe trait (boxed
//! futures), so `Store` holds one `Arc<dyn BlobStore>` chosen at start-up.
//! The S3 client signs its requests with AWS Signature Version 4, written
//! here on `hmac`/`sha2` rather than pulling in an SDK for two calls.
//!
//! Keys are chosen by the caller and must be unguessable (the proof module
//! puts random ids in them): even a store made public by mistake does not
//! give its files away.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use courier::errors::ErrorCode;
use sha2::{Digest, Sha256};

use crate::CoreError;
use crate::config::CoreConfig;
use crate::secrets::hmac_sha256;

/// A boxed future of a blob store call.
pub type BlobFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, BlobError>> + Send + 'a>>;

/// Stores and fetches whole blobs by key.
pub trait BlobStore: Send + Sync {
    /// Stores `bytes` under `key`, replacing what was there.
    fn put<'a>(&'a self, key: &'a str, bytes: Vec<u8>) -> BlobFuture<'a, ()>;

    /// The bytes under `key`; `None` when there are none.
    fn get<'a>(&'a self, key: &'a str) -> BlobFuture<'a, Option<Vec<u8>>>;
}

/// Why a blob store call failed.
#[derive(Debug, thiserror::Error)]
pub enum BlobError {
    /// The key is not of the form the stores accept (a bug of the caller).
    #[error("invalid blob key {0:?}")]
    InvalidKey(String),
    /// The configuration is incomplete or malformed.
    #[error("blob store configuration: {0}")]
    Config(String),
    #[error("blob store I/O failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("blob store request failed: {0}")]
    Request(#[from] reqwest::Error),
    /// The object store answered with an error status.
    #[error("blob store answered {status}: {body}")]
    Status { status: u16, body: String },
}

impl From<BlobError> for CoreError {
    /// Storage outages are `503 service_unavailable` (retryable); a bad key
    /// or configuration is an internal error.
    fn from(error: BlobError) -> Self {
        match error {
            BlobError::InvalidKey(_) | BlobError::Config(_) => CoreError::Internal(error.to_string()),
            other => {
                tracing::error!(error = %other, "blob store failure");
                CoreError::new(
                    ErrorCode::ServiceUnavailable,
                    "The file store is temporarily unavailable; retry with backoff.",
                )
            }
        }
    }
}

/// The store `config` asks for: S3 when an endpoint is set, else the local
/// directory.
pub fn from_config(config: &CoreConfig) -> Result<Arc<dyn BlobStore>, BlobError> {
    let s3 = &config.blob_s3;
    let Some(endpoint) = s3.endpoint.as_deref().filter(|e| !e.trim().is_empty()) else {
        return Ok(Arc::new(LocalBlobStore::new(config.blob_dir.clone())));
    };
    let required = |value: &Option<String>, variable: &str| {
        value
            .as_deref()
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| BlobError::Config(format!("{variable} is required with COURIER_BLOB_S3_ENDPOINT")))
    };
    let store = S3BlobStore::new(
        endpoint,
        required(&s3.bucket, "COURIER_BLOB_S3_BUCKET")?,
        S3Credentials {
            access_key: required(&s3.access_key, "COURIER_BLOB_S3_ACCESS_KEY")?,
            secret_key: required(&s3.secret_key, "COURIER_BLOB_S3_SECRET_KEY")?,
            region: s3
                .region
                .as_deref()
                .map(str::trim)
                .filter(|r| !r.is_empty())
                .unwrap_or("us-east-1")
                .to_owned(),
        },
    )?;
    Ok(Arc::new(store))
}

/// Checks that `key` is a relative path of safe segments
/// (`[A-Za-z0-9._-]`, no `.`/`..`), so that it maps to a file inside the
/// store's directory and to an object name that needs no escaping.
fn check_key(key: &str) -> Result<(), BlobError> {
    let safe = !key.is_empty()
        && key.len() <= 512
        && key.split('/').all(|segment| {
            !segment.is_empty()
                && segment != "."
                && segment != ".."
                && segment
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        });
    if safe {
        Ok(())
    } else {
        Err(BlobError::InvalidKey(key.to_owned()))
    }
}

/// Blobs as files under one directory (created on first write).
#[derive(Clone, Debug)]
pub struct LocalBlobStore {
    root: PathBuf,
}

impl LocalBlobStore {
    pub fn new(root: PathBuf) -> LocalBlobStore {
        LocalBlobStore { root }
    }

    fn path(&self, key: &str) -> Result<PathBuf, BlobError> {
        check_key(key)?;
        Ok(self.root.join(Path::new(key)))
    }
}

/// Runs blocking file I/O off the async workers.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> std::io::Result<T> + Send + 'static,
) -> Result<T, BlobError> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => Ok(result?),
        Err(join) => Err(BlobError::Io(std::io::Error::other(join.to_string()))),
    }
}

impl BlobStore for LocalBlobStore {
    fn put<'a>(&'a self, key: &'a str, bytes: Vec<u8>) -> BlobFuture<'a, ()> {
        Box::pin(async move {
            let path = self.path(key)?;
            // Write a temporary sibling and rename it: a reader never sees
            // half a file, and a crash leaves at most a stray temporary.
            let temporary = path.with_extension(format!("tmp-{}", crate::ids::random_base62(12)));
            blocking(move || {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                std::fs::write(&temporary, &bytes)?;
                std::fs::rename(&temporary, &path).inspect_err(|_| {
                    let _ = std::fs::remove_file(&temporary);
                })
            })
            .await
        })
    }

    fn get<'a>(&'a self, key: &'a str) -> BlobFuture<'a, Option<Vec<u8>>> {
        Box::pin(async move {
            let path = self.path(key)?;
            blocking(move || match std::fs::read(&path) {
                Ok(bytes) => Ok(Some(bytes)),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(error) => Err(error),
            })
            .await
        })
    }
}

/// Credentials and region of an S3-compatible store.
#[derive(Clone)]
pub struct S3Credentials {
    pub access_key: String,
    pub secret_key: String,
    pub region: String,
}

/// Blobs as objects of one bucket of an S3-compatible store, addressed
/// path-style (`{endpoint}/{bucket}/{key}`), which every S3-compatible
/// server understands.
#[derive(Clone)]
pub struct S3BlobStore {
    endpoint: url::Url,
    bucket: String,
    credentials: S3Credentials,
    http: reqwest::Client,
}

impl S3BlobStore {
    pub fn new(endpoint: &str, bucket: String, credentials: S3Credentials) -> Result<S3BlobStore, BlobError> {
        let endpoint = url::Url::parse(endpoint)
            .map_err(|e| BlobError::Config(format!("COURIER_BLOB_S3_ENDPOINT is not a URL: {e}")))?;
        if !matches!(endpoint.scheme(), "http" | "https") || endpoint.host_str().is_none() {
            return Err(BlobError::Config(
                "COURIER_BLOB_S3_ENDPOINT must be an http(s) URL with a host".into(),
            ));
        }
        if bucket.contains('/') {
            return Err(BlobError::Config("COURIER_BLOB_S3_BUCKET must not contain '/'".into()));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(60))
            .build()?;
        Ok(S3BlobStore {
            endpoint,
            bucket,
            credentials,
            http,
        })
    }

    /// The object's URL and its canonical (encoded) path.
    fn object(&self, key: &str) -> Result<(url::Url, String), BlobError> {
        check_key(key)?;
        let base = self.endpoint.path().trim_end_matches('/');
        let path = format!("{base}/{}/{}", uri_encode(&self.bucket, false), uri_encode(key, true));
        let mut url = self.endpoint.clone();
        url.set_path(&path);
        url.set_query(None);
        Ok((url, path))
    }

    /// The `Host` header reqwest sends for `url` (port only when not the
    /// scheme's default), which the signature covers.
    fn host(url: &url::Url) -> String {
        let host = url.host_str().unwrap_or_default();
        match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_owned(),
        }
    }

    fn signed(&self, method: reqwest::Method, key: &str, payload: &[u8]) -> Result<reqwest::RequestBuilder, BlobError> {
        let (url, path) = self.object(key)?;
        let payload_hash = hex::encode(Sha256::digest(payload));
        let amz_date = chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string();
        let host = S3BlobStore::host(&url);
        let headers = [
            ("host", host.as_str()),
            ("x-amz-content-sha256", payload_hash.as_str()),
            ("x-amz-date", amz_date.as_str()),
        ];
        let authorization = sign_v4(&SigningRequest {
            method: method.as_str(),
            canonical_uri: &path,
            query: &[],
            headers: &headers,
            payload_hash: &payload_hash,
            amz_date: &amz_date,
            region: &self.credentials.region,
            service: "s3",
            access_key: &self.credentials.access_key,
            secret_key: &self.credentials.secret_key,
        })
        .authorization;
        Ok(self
            .http
            .request(method, url)
            .header("x-amz-content-sha256", payload_hash)
            .header("x-amz-date", amz_date)
            .header("authorization", authorization))
    }

    async fn failure(response: reqwest::Response) -> BlobError {
        let status = response.status().as_u16();
        let body = response.text().await.unwrap_or_default();
        BlobError::Status {
            status,
            body: body.chars().take(300).collect(),
        }
    }
}

impl BlobStore for S3BlobStore {
    fn put<'a>(&'a self, key: &'a str, bytes: Vec<u8>) -> BlobFuture<'a, ()> {
        Box::pin(async move {
            let request = self.signed(reqwest::Method::PUT, key, &bytes)?;
            let response = request.body(bytes).send().await?;
            if response.status().is_success() {
                Ok(())
            } else {
                Err(S3BlobStore::failure(response).await)
            }
        })
    }

    fn get<'a>(&'a self, key: &'a str) -> BlobFuture<'a, Option<Vec<u8>>> {
        Box::pin(async move {
            let response = self.signed(reqwest::Method::GET, key, b"")?.send().await?;
            match response.status() {
                status if status.is_success() => Ok(Some(response.bytes().await?.to_vec())),
                reqwest::StatusCode::NOT_FOUND => Ok(None),
                _ => Err(S3BlobStore::failure(response).await),
            }
        })
    }
}

/// What AWS Signature Version 4 signs. `canonical_uri` is already
/// URI-encoded; `headers` are the headers to sign (names in any case).
pub struct SigningRequest<'a> {
    pub method: &'a str,
    pub canonical_uri: &'a str,
    pub query: &'a [(&'a str, &'a str)],
    pub headers: &'a [(&'a str, &'a str)],
    /// Hex SHA-256 of the payload (the `x-amz-content-sha256` value).
    pub payload_hash: &'a str,
    /// `YYYYMMDDTHHMMSSZ`, the `x-amz-date` value.
    pub amz_date: &'a str,
    pub region: &'a str,
    pub service: &'a str,
    pub access_key: &'a str,
    pub secret_key: &'a str,
}

/// The signature and the `Authorization` header carrying it.
#[derive(Debug, PartialEq, Eq)]
pub struct Signed {
    pub signature: String,
    pub authorization: String,
}

/// Signs `request` with AWS Signature Version 4 (header-based).
pub fn sign_v4(request: &SigningRequest<'_>) -> Signed {
    let mut headers: Vec<(String, String)> = request
        .headers
        .iter()
        .map(|(name, value)| (name.to_ascii_lowercase(), collapse_spaces(value)))
        .collect();
    headers.sort();
    let canonical_headers: String = headers.iter().map(|(n, v)| format!("{n}:{v}\n")).collect();
    let signed_headers = headers.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(";");
    let mut query: Vec<(String, String)> = request
        .query
        .iter()
        .map(|(k, v)| (uri_encode(k, false), uri_encode(v, false)))
        .collect();
    query.sort();
    let canonical_query = query
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&");
    let canonical_request = format!(
        "{}\n{}\n{}\n{}\n{}\n{}",
        request.method, request.canonical_uri, canonical_query, canonical_headers, signed_headers, request.payload_hash
    );
    let date = request.amz_date.get(..8).unwrap_or(request.amz_date);
    let scope = format!("{date}/{}/{}/aws4_request", request.region, request.service);
    let string_to_sign = format!(
        "AWS4-HMAC-SHA256\n{}\n{scope}\n{}",
        request.amz_date,
        hex::encode(Sha256::digest(canonical_request.as_bytes()))
    );
    let k_date = hmac_sha256(format!("AWS4{}", request.secret_key).as_bytes(), date.as_bytes());
    let k_region = hmac_sha256(&k_date, request.region.as_bytes());
    let k_service = hmac_sha256(&k_region, request.service.as_bytes());
    let k_signing = hmac_sha256(&k_service, b"aws4_request");
    let signature = hex::encode(hmac_sha256(&k_signing, string_to_sign.as_bytes()));
    let authorization = format!(
        "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={signed_headers}, Signature={signature}",
        request.access_key
    );
    Signed {
        signature,
        authorization,
    }
}

/// Trims a header value and collapses inner runs of spaces, as SigV4 asks.
fn collapse_spaces(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What SigV4 leaves unencoded: `A-Za-z0-9-._~`.
const SIGV4_ENCODED: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');
/// The same in paths, where `/` stays too.
const SIGV4_PATH_ENCODED: &AsciiSet = &SIGV4_ENCODED.remove(b'/');

/// SigV4 URI encoding: everything but `A-Za-z0-9-._~` (and `/` in paths)
/// as `%XX` with upper-case hex.
fn uri_encode(text: &str, keep_slash: bool) -> String {
    let set = if keep_slash { SIGV4_PATH_ENCODED } else { SIGV4_ENCODED };
    utf8_percent_encode(text, set).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The "GET Object" example of the AWS S3 Signature Version 4 documentation
    /// ("Examples: Signature Calculations in AWS Signature Version 4").
    #[test]
    fn sigv4_matches_the_aws_get_object_example() {
        let empty_hash = hex::encode(Sha256::digest(b""));
        assert_eq!(
            empty_hash,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let signed = sign_v4(&SigningRequest {
            method: "GET",
            canonical_uri: "/test.txt",
            query: &[],
            headers: &[
                ("Host", "examplebucket.s3.amazonaws.com"),
                ("Range", "bytes=0-9"),
                ("x-amz-content-sha256", &empty_hash),
                ("x-amz-date", "20130524T000000Z"),
            ],
            payload_hash: &empty_hash,
            amz_date: "20130524T000000Z",
            region: "us-east-1",
            service: "s3",
            access_key: "AKIAIOSFODNN7EXAMPLE",
            secret_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        });
        assert_eq!(
            signed.signature,
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        );
        assert_eq!(
            signed.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, \
             SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, \
             Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        );
    }

    /// The "GET Bucket Lifecycle" example of the same page: a query string.
    #[test]
    fn sigv4_signs_query_parameters() {
        let empty_hash = hex::encode(Sha256::digest(b""));
        let signed = sign_v4(&SigningRequest {
            method: "GET",
            canonical_uri: "/",
            query: &[("lifecycle", "")],
            headers: &[
                ("Host", "examplebucket.s3.amazonaws.com"),
                ("x-amz-content-sha256", &empty_hash),
                ("x-amz-date", "20130524T000000Z"),
            ],
            payload_hash: &empty_hash,
            amz_date: "20130524T000000Z",
            region: "us-east-1",
            service: "s3",
            access_key: "AKIAIOSFODNN7EXAMPLE",
            secret_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        });
        assert_eq!(
            signed.signature,
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"
        );
    }

    #[test]
    fn uri_encoding_follows_sigv4() {
        assert_eq!(uri_encode("a b/c~d", true), "a%20b/c~d");
        assert_eq!(uri_encode("a b/c", false), "a%20b%2Fc");
        assert_eq!(uri_encode("ü", false), "%C3%BC");
    }

    /// The S3 flags sit flattened inside `CoreConfig`: their ids must not
    /// clash with the core's own (`secret_key`).
    #[test]
    fn blob_flags_parse_inside_the_core_configuration() {
        use clap::{Args, FromArgMatches};
        let command = CoreConfig::augment_args(clap::Command::new("core").no_binary_name(true));
        command.clone().debug_assert();
        let matches = command
            .try_get_matches_from([
                "--secret-key",
                "master",
                "--blob-dir",
                "/srv/blobs",
                "--blob-s3-endpoint",
                "http://minio:9000",
                "--blob-s3-secret-key",
                "s3-secret",
            ])
            .expect("parses");
        let config = CoreConfig::from_arg_matches(&matches).expect("config");
        assert_eq!(config.secret_key.as_deref(), Some("master"));
        assert_eq!(config.blob_dir, PathBuf::from("/srv/blobs"));
        assert_eq!(config.blob_s3.endpoint.as_deref(), Some("http://minio:9000"));
        assert_eq!(config.blob_s3.secret_key.as_deref(), Some("s3-secret"));
        assert!(!format!("{:?}", config.blob_s3).contains("s3-secret"));
        // An endpoint without its bucket and keys is a start-up error.
        assert!(matches!(from_config(&config), Err(BlobError::Config(_))));
    }

    #[test]
    fn keys_must_be_safe_relative_paths() {
        assert!(check_key("proofs/del_1/abc.png").is_ok());
        for bad in ["", "/abs", "a//b", "../x", "a/../b", "a/./b", "a b", "a\\b", "a/"] {
            assert!(check_key(bad).is_err(), "{bad:?}");
        }
    }

    #[tokio::test]
    async fn local_store_round_trips() {
        let root = std::env::temp_dir().join(format!("courier-blobs-{}", crate::ids::random_base62(16)));
        let store: Arc<dyn BlobStore> = Arc::new(LocalBlobStore::new(root.clone()));
        assert_eq!(store.get("proofs/del_x/missing").await.expect("get"), None);
        let bytes: Vec<u8> = (0..=255).collect();
        store.put("proofs/del_x/file", bytes.clone()).await.expect("put");
        assert_eq!(store.get("proofs/del_x/file").await.expect("get"), Some(bytes));
        store
            .put("proofs/del_x/file", b"replaced".to_vec())
            .await
            .expect("put again");
        assert_eq!(
            store.get("proofs/del_x/file").await.expect("get"),
            Some(b"replaced".to_vec())
        );
        assert!(matches!(
            store.put("../escape", vec![1]).await,
            Err(BlobError::InvalidKey(_))
        ));
        let leftovers: Vec<_> = std::fs::read_dir(root.join("proofs/del_x"))
            .expect("dir")
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        assert_eq!(leftovers, ["file"], "no temporary files remain");
        let _ = std::fs::remove_dir_all(root);
    }

    /// A minimal S3 stand-in on a loopback port: checks each request's
    /// SigV4 signature and payload hash the way S3 does, and keeps objects in
    /// memory. Answers 403 to a bad signature.
    fn fake_s3(secret_key: &'static str) -> (String, std::thread::JoinHandle<usize>) {
        use std::collections::HashMap;
        use std::io::{BufRead, BufReader, Read, Write};

        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let endpoint = format!("http://{}", listener.local_addr().expect("addr"));
        let handle = std::thread::spawn(move || {
            let mut objects: HashMap<String, Vec<u8>> = HashMap::new();
            let mut served = 0;
            for stream in listener.incoming() {
                let mut stream = stream.expect("connection");
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut request_line = String::new();
                reader.read_line(&mut request_line).expect("request line");
                let mut parts = request_line.split_whitespace();
                let (method, path) = (
                    parts.next().unwrap_or("").to_owned(),
                    parts.next().unwrap_or("").to_owned(),
                );
                if method == "QUIT" {
                    return served;
                }
                let mut headers: HashMap<String, String> = HashMap::new();
                loop {
                    let mut line = String::new();
                    reader.read_line(&mut line).expect("header");
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    let (name, value) = line.split_once(':').expect("header line");
                    headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
                }
                let length: usize = headers.get("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
                let mut body = vec![0; length];
                reader.read_exact(&mut body).expect("body");
                let header = |name: &str| headers.get(name).cloned().unwrap_or_default();
                let payload_hash = header("x-amz-content-sha256");
                let amz_date = header("x-amz-date");
                let host = header("host");
                let expected = sign_v4(&SigningRequest {
                    method: &method,
                    canonical_uri: &path,
                    query: &[],
                    headers: &[
                        ("host", &host),
                        ("x-amz-content-sha256", &payload_hash),
                        ("x-amz-date", &amz_date),
                    ],
                    payload_hash: &payload_hash,
                    amz_date: &amz_date,
                    region: "eu-central-1",
                    service: "s3",
                    access_key: "AKIDTEST",
                    secret_key,
                });
                let valid = header("authorization") == expected.authorization
                    && payload_hash == hex::encode(Sha256::digest(&body));
                served += 1;
                let (status, answer) = match (valid, method.as_str()) {
                    (false, _) => (
                        "403 Forbidden",
                        b"<Error><Code>SignatureDoesNotMatch</Code></Error>".to_vec(),
                    ),
                    (true, "PUT") => {
                        objects.insert(path, body);
                        ("200 OK", Vec::new())
                    }
                    (true, "GET") => match objects.get(&path) {
                        Some(bytes) => ("200 OK", bytes.clone()),
                        None => ("404 Not Found", b"<Error><Code>NoSuchKey</Code></Error>".to_vec()),
                    },
                    _ => ("405 Method Not Allowed", Vec::new()),
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    answer.len()
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&answer);
            }
            served
        });
        (endpoint, handle)
    }

    #[tokio::test]
    async fn s3_store_round_trips_with_signed_requests() {
        let (endpoint, server) = fake_s3("right-secret");
        let credentials = |secret: &str| S3Credentials {
            access_key: "AKIDTEST".into(),
            secret_key: secret.into(),
            region: "eu-central-1".into(),
        };
        let store = S3BlobStore::new(&endpoint, "proofs".into(), credentials("right-secret")).expect("store");
        assert_eq!(store.get("proofs/del_1/missing").await.expect("get"), None);
        let bytes: Vec<u8> = (0..=255).cycle().take(70_000).collect();
        store.put("proofs/del_1/file", bytes.clone()).await.expect("put");
        assert_eq!(store.get("proofs/del_1/file").await.expect("get"), Some(bytes));

        let wrong = S3BlobStore::new(&endpoint, "proofs".into(), credentials("wrong-secret")).expect("store");
        match wrong.get("proofs/del_1/file").await {
            Err(BlobError::Status { status: 403, body }) => assert!(body.contains("SignatureDoesNotMatch")),
            other => panic!("expected 403, got {other:?}"),
        }
        let refused: CoreError = wrong.put("proofs/del_1/x", vec![1]).await.expect_err("refused").into();
        assert_eq!(refused.code(), ErrorCode::ServiceUnavailable);

        let mut quit = std::net::TcpStream::connect(endpoint.trim_start_matches("http://")).expect("connect");
        std::io::Write::write_all(&mut quit, b"QUIT / HTTP/1.1\r\n\r\n").expect("quit");
        assert_eq!(server.join().expect("server"), 5);
    }

    #[test]
    fn s3_objects_are_addressed_path_style() {
        let store = S3BlobStore::new(
            "http://minio.local:9000/base/",
            "proofs".into(),
            S3Credentials {
                access_key: "a".into(),
                secret_key: "s".into(),
                region: "us-east-1".into(),
            },
        )
        .expect("store");
        let (url, path) = store.object("proofs/del_1/x").expect("object");
        assert_eq!(url.as_str(), "http://minio.local:9000/base/proofs/proofs/del_1/x");
        assert_eq!(path, "/base/proofs/proofs/del_1/x");
        assert_eq!(S3BlobStore::host(&url), "minio.local:9000");
        let aws = url::Url::parse("https://s3.amazonaws.com/b/k").expect("url");
        assert_eq!(S3BlobStore::host(&aws), "s3.amazonaws.com");
        assert!(S3BlobStore::new("ftp://x", "b".into(), store.credentials.clone()).is_err());
    }
}
