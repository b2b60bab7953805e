//! The HTTP routes of the API and the handlers behind them.

use axum::Router;
use axum::routing::{get, post};

use crate::http::{health, login, orders};
use crate::AppState;

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/health", get(health::check))
        .route("/auth/login", post(login::handle))
        .route("/orders", get(orders::list).post(orders::create))
        .route("/orders/:id", get(orders::show))
        .with_state(state)
}
