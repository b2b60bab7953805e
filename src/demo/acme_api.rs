//! acme-api (Rust, an HTTP API): token refresh is built, a window-edge test finds that the
//! refresh window contradicts its contract and the code is fixed; a checkout hang is traced to
//! a lock-order deadlock in the connection pool, hot-fixed, then refactored away after a
//! decision; a bearer token in a bug report leads to redacted request logs; rotating refresh
//! tokens are planned as tasks, one of them done.

use super::script::{Project, Step, bash, edit, fails, read, resumed, session, turn, write};

pub(crate) fn project() -> Project {
    Project {
        name: "acme-api",
        files: vec![
            (
                "src/auth/jwt.rs",
                include_str!("../../assets/demo/acme-api/src/auth/jwt.rs"),
            ),
            (
                "src/db/pool.rs",
                include_str!("../../assets/demo/acme-api/src/db/pool.rs"),
            ),
            (
                "src/http/routes.rs",
                include_str!("../../assets/demo/acme-api/src/http/routes.rs"),
            ),
            (
                "src/http/log.rs",
                include_str!("../../assets/demo/acme-api/src/http/log.rs"),
            ),
        ],
        sessions: vec![
            session(
                13,
                9,
                30,
                vec![
                    turn(
                        "Clients get logged out every hour. Add token refresh: a still-valid token near the end of its life can be exchanged for a fresh one. Start in src/auth/jwt.rs, refresh_window() is already there.",
                        vec![
                            Step::Todos(&[
                                ("Add refresh() to src/auth/jwt.rs", "in_progress"),
                                ("Expose POST /auth/refresh", "pending"),
                                ("Test the refresh window edges", "pending"),
                            ]),
                            read("src/auth/jwt.rs"),
                            edit(
                                "src/auth/jwt.rs",
                                "    #[error(\"JWT expired {0:?} ago\")]\n    Expired(Duration),\n}",
                                "    #[error(\"JWT expired {0:?} ago\")]\n    Expired(Duration),\n    #[error(\"JWT is not in its refresh window\")]\n    OutsideWindow,\n}",
                            ),
                            edit(
                                "src/auth/jwt.rs",
                                "    left > 0 && Duration::from_secs(left) <= REFRESH_WINDOW\n}",
                                "    left > 0 && Duration::from_secs(left) <= REFRESH_WINDOW\n}\n\n/// Signs `claims` as an HS256 JWT.\npub fn sign(claims: &Claims, key: &[u8]) -> Result<String, JwtError> {\n    let header = base64_url::encode(r#\"{\"alg\":\"HS256\",\"typ\":\"JWT\"}\"#);\n    let body = serde_json::to_vec(claims).map_err(|_| JwtError::Malformed)?;\n    let signed = format!(\"{header}.{}\", base64_url::encode(&body));\n    let mut mac = Hmac::<Sha256>::new_from_slice(key).map_err(|_| JwtError::Malformed)?;\n    mac.update(signed.as_bytes());\n    Ok(format!(\"{signed}.{}\", base64_url::encode(&mac.finalize().into_bytes())))\n}\n\n/// Exchanges a token inside its refresh window for one that lives `ttl` from now.\npub fn refresh(claims: &Claims, key: &[u8], ttl: Duration) -> Result<String, JwtError> {\n    if !refresh_window(claims) {\n        return Err(JwtError::OutsideWindow);\n    }\n    let t = now();\n    sign(&Claims { iat: t, exp: t + ttl.as_secs(), ..claims.clone() }, key)\n}",
                            ),
                            bash(
                                "cargo test auth::jwt",
                                "Run the token tests",
                                "running 6 tests\ntest auth::jwt::tests::sign_then_verify ... ok\ntest auth::jwt::tests::refresh_inside_window ... ok\ntest auth::jwt::tests::refresh_outside_window_is_refused ... ok\ntest auth::jwt::tests::expired_is_refused ... ok\ntest auth::jwt::tests::bad_signature ... ok\ntest auth::jwt::tests::malformed ... ok\n\ntest result: ok. 6 passed; 0 failed; 0 ignored; finished in 0.02s",
                            ),
                            Step::Todos(&[
                                ("Add refresh() to src/auth/jwt.rs", "completed"),
                                ("Expose POST /auth/refresh", "in_progress"),
                                ("Test the refresh window edges", "pending"),
                            ]),
                        ],
                        "Added `refresh()` and `sign()` to src/auth/jwt.rs: a token inside its refresh window is re-signed with a new `iat` and `exp`; outside it the call fails with the new `JwtError::OutsideWindow`. `cargo test auth::jwt` passes (6 tests).\n\nNext: the POST /auth/refresh route.",
                    ),
                    turn(
                        "Good. Now the route: POST /auth/refresh, answering 401 when the token is outside the window.",
                        vec![
                            read("src/http/routes.rs"),
                            write(
                                "src/http/refresh.rs",
                                "//! POST /auth/refresh: a bearer JWT in its refresh window for a fresh one.\n\nuse axum::extract::State;\nuse axum::http::{HeaderMap, StatusCode};\nuse axum::Json;\nuse serde_json::{Value, json};\n\nuse crate::auth::jwt::{self, JwtError};\nuse crate::http::bearer;\nuse crate::AppState;\n\npub async fn handle(State(state): State<AppState>, headers: HeaderMap) -> Result<Json<Value>, (StatusCode, Json<Value>)> {\n    let deny = |code: &str| (StatusCode::UNAUTHORIZED, Json(json!({\"error\": code})));\n    let presented = bearer(&headers).ok_or_else(|| deny(\"missing_bearer\"))?;\n    let claims = jwt::verify_signature(presented, &state.key).map_err(|_| deny(\"invalid_jwt\"))?;\n    match jwt::refresh(&claims, &state.key, state.jwt_ttl) {\n        Ok(fresh) => Ok(Json(json!({\"jwt\": fresh}))),\n        Err(JwtError::OutsideWindow) => Err(deny(\"outside_refresh_window\")),\n        Err(_) => Err(deny(\"invalid_jwt\")),\n    }\n}\n",
                            ),
                            edit(
                                "src/http/routes.rs",
                                "use crate::http::{health, login, orders};",
                                "use crate::http::{health, login, orders, refresh};",
                            ),
                            edit(
                                "src/http/routes.rs",
                                "        .route(\"/auth/login\", post(login::handle))\n",
                                "        .route(\"/auth/login\", post(login::handle))\n        .route(\"/auth/refresh\", post(refresh::handle))\n",
                            ),
                            bash(
                                "cargo test http::",
                                "Run the HTTP tests",
                                "running 11 tests\ntest http::refresh::tests::fresh_token_in_window ... ok\ntest http::refresh::tests::outside_window_is_401 ... ok\ntest http::refresh::tests::garbage_token_is_401 ... ok\ntest http::orders::tests::list_is_paged ... ok\n...\ntest result: ok. 11 passed; 0 failed; 0 ignored; finished in 0.31s",
                            ),
                            Step::Todos(&[
                                ("Add refresh() to src/auth/jwt.rs", "completed"),
                                ("Expose POST /auth/refresh", "completed"),
                                ("Test the refresh window edges", "pending"),
                            ]),
                        ],
                        "POST /auth/refresh is routed in src/http/routes.rs and handled in the new src/http/refresh.rs: it verifies the bearer token, calls `jwt::refresh` and answers 401 `outside_refresh_window` when the token is not in its window. 11 HTTP tests pass.\n\nTODO: test the refresh window edges (a 1-hour token with 14 and 10 minutes left, an expired one).",
                    ),
                ],
            ),
            resumed(
                12,
                14,
                10,
                vec![
                    turn(
                        "Write the window-edge tests for refresh_window that we left open yesterday.",
                        vec![
                            read("src/auth/jwt.rs"),
                            edit(
                                "src/auth/jwt.rs",
                                "    sign(&Claims { iat: t, exp: t + ttl.as_secs(), ..claims.clone() }, key)\n}",
                                "    sign(&Claims { iat: t, exp: t + ttl.as_secs(), ..claims.clone() }, key)\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    /// Claims of a token that lives `life` seconds and has `left` of them left.\n    fn claims(life: u64, left: u64) -> Claims {\n        let t = now();\n        Claims { sub: \"u1\".into(), iat: t + left - life, exp: t + left, scope: vec![] }\n    }\n\n    #[test]\n    fn refresh_only_in_the_last_fifth_of_life() {\n        assert!(refresh_window(&claims(3600, 600)));\n        assert!(!refresh_window(&claims(3600, 840)));\n        assert!(!refresh_window(&claims(3600, 0)));\n    }\n}",
                            ),
                            fails(
                                "cargo test auth::jwt::tests::refresh_only_in_the_last_fifth_of_life",
                                "Run the new window-edge test",
                                "running 1 test\ntest auth::jwt::tests::refresh_only_in_the_last_fifth_of_life ... FAILED\n\nfailures:\n\n---- auth::jwt::tests::refresh_only_in_the_last_fifth_of_life stdout ----\nthread 'auth::jwt::tests::refresh_only_in_the_last_fifth_of_life' panicked at src/auth/jwt.rs:97:9:\nassertion failed: !refresh_window(&claims(3600, 840))\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored; finished in 0.00s",
                            ),
                        ],
                        "The new test fails: refresh_window() lets a 1-hour token refresh with 14 minutes left. REFRESH_WINDOW is a fixed 15 minutes, but the doc comment promises the last fifth of the token's life, which is 12 minutes for a 1-hour token. Shall I compute the window from `iat` and `exp`?",
                    ),
                    turn(
                        "The doc comment is the contract: fix the code, not the test.",
                        vec![
                            fails(
                                "cargo test auth::jwt",
                                "See the failure again",
                                "running 7 tests\ntest auth::jwt::tests::refresh_only_in_the_last_fifth_of_life ... FAILED\ntest auth::jwt::tests::sign_then_verify ... ok\n...\nfailures:\n    auth::jwt::tests::refresh_only_in_the_last_fifth_of_life\n\ntest result: FAILED. 6 passed; 1 failed; 0 ignored; finished in 0.02s",
                            ),
                            Step::Grep("REFRESH_WINDOW"),
                            edit(
                                "src/auth/jwt.rs",
                                "/// Refresh is allowed in the last fifth of a token's life, never after it expired.\npub const REFRESH_WINDOW: Duration = Duration::from_secs(15 * 60);\n\n",
                                "",
                            ),
                            edit(
                                "src/auth/jwt.rs",
                                "/// Whether a still-valid token may be exchanged for a fresh one.\npub fn refresh_window(claims: &Claims) -> bool {\n    let left = claims.exp.saturating_sub(now());\n    left > 0 && Duration::from_secs(left) <= REFRESH_WINDOW\n}",
                                "/// Whether a still-valid token may be exchanged for a fresh one: in the last fifth of its\n/// life, never after it expired.\npub fn refresh_window(claims: &Claims) -> bool {\n    let left = claims.exp.saturating_sub(now());\n    let life = claims.exp.saturating_sub(claims.iat);\n    left > 0 && left * 5 <= life\n}",
                            ),
                            bash(
                                "cargo test auth::jwt",
                                "Run the token tests",
                                "running 7 tests\ntest auth::jwt::tests::refresh_only_in_the_last_fifth_of_life ... ok\ntest auth::jwt::tests::sign_then_verify ... ok\n...\ntest result: ok. 7 passed; 0 failed; 0 ignored; finished in 0.02s",
                            ),
                            Step::Todos(&[
                                ("Add refresh() to src/auth/jwt.rs", "completed"),
                                ("Expose POST /auth/refresh", "completed"),
                                ("Test the refresh window edges", "completed"),
                            ]),
                        ],
                        "Fixed: refresh_window() in src/auth/jwt.rs now allows a refresh only in the last fifth of the token's life (`left * 5 <= exp - iat`), as its doc comment says, and the fixed 15-minute REFRESH_WINDOW constant is gone. `cargo test auth::jwt` passes, 7 tests.",
                    ),
                ],
            ),
            session(
                9,
                10,
                5,
                vec![
                    turn(
                        "Checkout requests hang under load since Friday; the logs show `pool exhausted after 2s` and then nothing at all. Look at src/db/pool.rs.",
                        vec![
                            read("src/db/pool.rs"),
                            write(
                                "tests/pool_contention.rs",
                                "//! acquire and release from many threads at once must never hang.\n\nuse std::thread;\nuse std::time::Duration;\n\nuse acme_api::db::pool::{Pool, PoolConfig};\n\n#[test]\nfn acquire_and_release_from_32_threads() {\n    let pool = Pool::new(PoolConfig { max_size: 4, wait: Duration::from_secs(5), ..PoolConfig::default() });\n    let workers: Vec<_> = (0..32)\n        .map(|_| {\n            let pool = pool.clone();\n            thread::spawn(move || {\n                for _ in 0..300 {\n                    let conn = pool.acquire(|| ()).expect(\"a connection within 5 s\");\n                    pool.release(conn);\n                }\n            })\n        })\n        .collect();\n    for w in workers {\n        w.join().unwrap();\n    }\n}\n",
                            ),
                            fails(
                                "timeout 60 cargo test --test pool_contention",
                                "Stress acquire/release",
                                "running 1 test\ntest acquire_and_release_from_32_threads has been running for over 60 seconds\nterminated by timeout after 60s",
                            ),
                        ],
                        "Found it: a lock-order inversion in src/db/pool.rs. acquire() holds `in_use` and then locks `idle`; release() locks `idle` first and then `in_use`. Under contention two threads wait on each other forever, which is the hang right after `pool exhausted`. The new tests/pool_contention.rs reproduces it (it times out after 60 s).\n\nNext: make release() take the locks in acquire()'s order.",
                    ),
                    turn(
                        "Fix release() the simple way for now, the hotfix goes out today.",
                        vec![
                            edit(
                                "src/db/pool.rs",
                                "        if let (Ok(mut idle), Ok(mut in_use)) = (self.idle.lock(), self.in_use.lock()) {\n            idle.push_back((conn, Instant::now()));\n            *in_use = in_use.saturating_sub(1);\n        }",
                                "        // Same order as acquire(): in_use, then idle. The other order deadlocks.\n        if let Ok(mut in_use) = self.in_use.lock() {\n            if let Ok(mut idle) = self.idle.lock() {\n                idle.push_back((conn, Instant::now()));\n            }\n            *in_use = in_use.saturating_sub(1);\n        }",
                            ),
                            bash(
                                "timeout 60 cargo test --test pool_contention",
                                "Stress acquire/release again",
                                "running 1 test\ntest acquire_and_release_from_32_threads ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; finished in 1.84s",
                            ),
                        ],
                        "Fixed: release() in src/db/pool.rs now locks `in_use` before `idle`, the order acquire() uses, so the two can no longer deadlock. tests/pool_contention.rs passes in 1.8 s (32 threads, 9,600 checkouts).\n\nTODO: two mutexes that must be taken in one order stay fragile; consider one mutex for the whole pool state.",
                    ),
                ],
            ),
            session(
                7,
                15,
                20,
                vec![
                    turn(
                        "The hotfix works, but I don't want another lock-order bug. Should the pool keep two mutexes or one? Decide, with the reason, before changing anything.",
                        vec![read("src/db/pool.rs"), Step::Grep("self.freed")],
                        "Decision: src/db/pool.rs gets one `Mutex<PoolState>` holding both the idle queue and the in-use count, instead of two mutexes with a documented lock order. Reason: `freed.wait_timeout` needs a single guard anyway, every critical section in the pool is a few instructions, and one lock makes last week's deadlock impossible rather than merely documented.\n\nNext: refactor the pool to PoolState.",
                    ),
                    turn(
                        "Do the refactor to one PoolState mutex.",
                        vec![
                            edit(
                                "src/db/pool.rs",
                                "pub struct Pool<C> {\n    config: PoolConfig,\n    idle: Mutex<VecDeque<(C, Instant)>>,\n    in_use: Mutex<usize>,\n    freed: Condvar,\n}",
                                "/// Everything the pool's lock guards: one mutex, so there is no lock order to get wrong.\nstruct PoolState<C> {\n    idle: VecDeque<(C, Instant)>,\n    in_use: usize,\n}\n\npub struct Pool<C> {\n    config: PoolConfig,\n    state: Mutex<PoolState<C>>,\n    freed: Condvar,\n}",
                            ),
                            edit(
                                "src/db/pool.rs",
                                "        Arc::new(Pool { config, idle: Mutex::new(VecDeque::new()), in_use: Mutex::new(0), freed: Condvar::new() })",
                                "        Arc::new(Pool {\n            config,\n            state: Mutex::new(PoolState { idle: VecDeque::new(), in_use: 0 }),\n            freed: Condvar::new(),\n        })",
                            ),
                            edit(
                                "src/db/pool.rs",
                                "        let mut in_use = self.in_use.lock().ok()?;\n        loop {\n            if let Some((conn, since)) = self.idle.lock().ok()?.pop_front() {\n                if since.elapsed() < self.config.idle_timeout {\n                    *in_use += 1;\n                    return Some(conn);\n                }\n                continue; // too old: drop it and look again\n            }\n            if *in_use < self.config.max_size {\n                *in_use += 1;\n                return Some(open());\n            }\n            let left = deadline.checked_duration_since(Instant::now())?;\n            in_use = self.freed.wait_timeout(in_use, left).ok()?.0;\n        }",
                                "        let mut state = self.state.lock().ok()?;\n        loop {\n            if let Some((conn, since)) = state.idle.pop_front() {\n                if since.elapsed() < self.config.idle_timeout {\n                    state.in_use += 1;\n                    return Some(conn);\n                }\n                continue; // too old: drop it and look again\n            }\n            if state.in_use < self.config.max_size {\n                state.in_use += 1;\n                return Some(open());\n            }\n            let left = deadline.checked_duration_since(Instant::now())?;\n            state = self.freed.wait_timeout(state, left).ok()?.0;\n        }",
                            ),
                            edit(
                                "src/db/pool.rs",
                                "        // Same order as acquire(): in_use, then idle. The other order deadlocks.\n        if let Ok(mut in_use) = self.in_use.lock() {\n            if let Ok(mut idle) = self.idle.lock() {\n                idle.push_back((conn, Instant::now()));\n            }\n            *in_use = in_use.saturating_sub(1);\n        }",
                                "        if let Ok(mut state) = self.state.lock() {\n            state.idle.push_back((conn, Instant::now()));\n            state.in_use = state.in_use.saturating_sub(1);\n        }",
                            ),
                            bash(
                                "cargo test db::pool",
                                "Run the pool tests, the stress test among them",
                                "running 9 tests\ntest db::pool::tests::acquire_reuses_idle ... ok\ntest db::pool::tests::stale_connections_are_dropped ... ok\ntest db::pool::tests::full_pool_waits_then_gives_up ... ok\ntest db::pool::tests::contention_32_threads ... ok\n...\ntest result: ok. 9 passed; 0 failed; 0 ignored; finished in 2.11s",
                            ),
                        ],
                        "Refactored src/db/pool.rs: `Pool` keeps its idle queue and in-use count in one `Mutex<PoolState>`, and acquire() and release() take that one lock, so there is no lock order left to break. Behaviour is unchanged: the 9 pool tests and the contention test pass (1.5 s, was 1.8 s).",
                    ),
                ],
            ),
            session(
                5,
                11,
                0,
                vec![
                    turn(
                        "QA says POST /auth/refresh returns 401 for a token right after login. Reproduce it against staging with the token from the ticket.",
                        vec![bash(
                            "curl -s -X POST https://staging.acme.dev/auth/refresh -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1NDIiLCJleHAiOjE3OTU5OTk5OTl9.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'",
                            "Call refresh on staging with the ticket's token",
                            "{\"error\":\"outside_refresh_window\"}",
                        )],
                        "Reproduced: staging answers 401 `outside_refresh_window` for a token issued 5 minutes earlier. That is by design since the refresh_window() fix: a refresh is allowed only in the last fifth of the token's life. The web client calls /auth/refresh right after login, so the bug is in the client.\n\nNote: the ticket contains a live staging bearer token; it should be revoked, and our request log prints Authorization headers.",
                    ),
                    turn(
                        "Revoke that token and make sure we never log Authorization headers again.",
                        vec![
                            bash(
                                "acmectl tokens revoke --sub u42 --env staging",
                                "Revoke the leaked staging token",
                                "revoked 3 tokens of u42 on staging",
                            ),
                            read("src/http/log.rs"),
                            edit(
                                "src/http/log.rs",
                                "        .map(|(name, value)| format!(\"{name}: {}\", value.to_str().unwrap_or(\"<binary>\")))",
                                "        .map(|(name, value)| match name.as_str() {\n            // Credentials never reach the log, whatever the log level.\n            \"authorization\" | \"cookie\" | \"set-cookie\" => format!(\"{name}: [redacted]\"),\n            _ => format!(\"{name}: {}\", value.to_str().unwrap_or(\"<binary>\")),\n        })",
                            ),
                            bash(
                                "cargo test http::log",
                                "Run the log tests",
                                "running 2 tests\ntest http::log::tests::authorization_is_redacted ... ok\ntest http::log::tests::plain_headers_are_kept ... ok\n\ntest result: ok. 2 passed; 0 failed; 0 ignored; finished in 0.00s",
                            ),
                        ],
                        "Fixed: request_line() in src/http/log.rs now logs the authorization, cookie and set-cookie headers as `[redacted]` instead of their values, so request logs no longer carry bearer tokens; a new test checks it. The ticket's staging token is revoked (`acmectl tokens revoke --sub u42`).",
                    ),
                ],
            ),
            session(
                2,
                16,
                30,
                vec![turn(
                    "Plan next week's work: rotating refresh tokens stored server-side. Make tasks for it and start with the table.",
                    vec![
                        Step::TaskCreate {
                            id: "1",
                            subject: "Add the refresh_tokens table (migration 0008)",
                        },
                        Step::TaskCreate {
                            id: "2",
                            subject: "Rotate the refresh token on every POST /auth/refresh",
                        },
                        Step::TaskCreate {
                            id: "3",
                            subject: "Revoke the whole token family when a used token comes back",
                        },
                        Step::TaskUpdate {
                            id: "1",
                            status: "in_progress",
                        },
                        Step::Glob {
                            pattern: "migrations/*.sql",
                            files: &[
                                "migrations/0005_orders.sql",
                                "migrations/0006_order_items.sql",
                                "migrations/0007_users_email_idx.sql",
                            ],
                        },
                        write(
                            "migrations/0008_refresh_tokens.sql",
                            "-- Server-side refresh tokens, one row per issued token, rotated on every refresh.\nCREATE TABLE refresh_tokens (\n    token_hash  BYTEA PRIMARY KEY,\n    family_id   UUID NOT NULL,\n    user_id     TEXT NOT NULL,\n    expires_at  TIMESTAMPTZ NOT NULL,\n    used_at     TIMESTAMPTZ,\n    revoked_at  TIMESTAMPTZ\n);\n\nCREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);\n",
                        ),
                        bash(
                            "sqlx migrate run --source migrations",
                            "Apply the migration locally",
                            "Applied 8/migrate refresh tokens (14.203ms)",
                        ),
                        Step::TaskUpdate {
                            id: "1",
                            status: "completed",
                        },
                    ],
                    "Planned rotating refresh tokens as three tasks and finished the first: migrations/0008_refresh_tokens.sql creates `refresh_tokens` (token hash, family id, expiry, used and revoked times) with an index on family_id, and it applies cleanly.\n\nNext: rotate the token on every POST /auth/refresh (task 2), then revoke the whole family when a used token comes back (task 3).",
                )],
            ),
        ],
    }
}
