//! Request logging: one line per request with method, path, status, time and headers.

use axum::http::{HeaderMap, Method, StatusCode, Uri};
use std::time::Duration;

/// The log line for one request.
pub fn request_line(method: &Method, uri: &Uri, status: StatusCode, took: Duration, headers: &HeaderMap) -> String {
    let headers: Vec<String> = headers
        .iter()
        .map(|(name, value)| format!("{name}: {}", value.to_str().unwrap_or("<binary>")))
        .collect();
    format!("{method} {uri} {} {}ms [{}]", status.as_u16(), took.as_millis(), headers.join(", "))
}
