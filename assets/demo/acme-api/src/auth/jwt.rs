//! HS256 JWTs for access and refresh, with a sliding refresh window.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

/// Refresh is allowed in the last fifth of a token's life, never after it expired.
pub const REFRESH_WINDOW: Duration = Duration::from_secs(15 * 60);

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Claims {
    pub sub: String,
    pub exp: u64,
    pub iat: u64,
    pub scope: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum JwtError {
    #[error("JWT is malformed")]
    Malformed,
    #[error("signature does not match")]
    BadSignature,
    #[error("JWT expired {0:?} ago")]
    Expired(Duration),
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// Verifies the signature in constant time, then the expiry.
pub fn verify_signature(jwt: &str, key: &[u8]) -> Result<Claims, JwtError> {
    let (signed, sig) = jwt.rsplit_once('.').ok_or(JwtError::Malformed)?;
    let sig = base64_url::decode(sig).map_err(|_| JwtError::Malformed)?;
    let mut mac = Hmac::<Sha256>::new_from_slice(key).map_err(|_| JwtError::Malformed)?;
    mac.update(signed.as_bytes());
    mac.verify_slice(&sig).map_err(|_| JwtError::BadSignature)?;
    let payload = signed.split('.').nth(1).ok_or(JwtError::Malformed)?;
    let claims: Claims = serde_json::from_slice(
        &base64_url::decode(payload).map_err(|_| JwtError::Malformed)?,
    )
    .map_err(|_| JwtError::Malformed)?;
    let t = now();
    if claims.exp <= t {
        return Err(JwtError::Expired(Duration::from_secs(t - claims.exp)));
    }
    Ok(claims)
}

/// Whether a still-valid token may be exchanged for a fresh one.
pub fn refresh_window(claims: &Claims) -> bool {
    let left = claims.exp.saturating_sub(now());
    left > 0 && Duration::from_secs(left) <= REFRESH_WINDOW
}
