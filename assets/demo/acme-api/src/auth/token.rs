//! Access and refresh tokens: HS256 JWTs with a sliding refresh window.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

/// Refresh is allowed in the last fifth of a token's life, never after it expired.
pub const REFRESH_WINDOW: Duration = Duration::from_secs(15 * 60);

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct TokenClaims {
    pub sub: String,
    pub exp: u64,
    pub iat: u64,
    pub scope: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("token is malformed")]
    Malformed,
    #[error("signature does not match")]
    BadSignature,
    #[error("token expired {0:?} ago")]
    Expired(Duration),
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// Verifies the signature in constant time, then the expiry.
pub fn verify_signature(token: &str, key: &[u8]) -> Result<TokenClaims, TokenError> {
    let (signed, sig) = token.rsplit_once('.').ok_or(TokenError::Malformed)?;
    let sig = base64_url::decode(sig).map_err(|_| TokenError::Malformed)?;
    let mut mac = Hmac::<Sha256>::new_from_slice(key).map_err(|_| TokenError::Malformed)?;
    mac.update(signed.as_bytes());
    mac.verify_slice(&sig).map_err(|_| TokenError::BadSignature)?;
    let payload = signed.split('.').nth(1).ok_or(TokenError::Malformed)?;
    let claims: TokenClaims = serde_json::from_slice(
        &base64_url::decode(payload).map_err(|_| TokenError::Malformed)?,
    )
    .map_err(|_| TokenError::Malformed)?;
    let t = now();
    if claims.exp <= t {
        return Err(TokenError::Expired(Duration::from_secs(t - claims.exp)));
    }
    Ok(claims)
}

/// Whether a still-valid token may be exchanged for a fresh one.
pub fn refresh_window(claims: &TokenClaims) -> bool {
    let left = claims.exp.saturating_sub(now());
    left > 0 && Duration::from_secs(left) <= REFRESH_WINDOW
}
