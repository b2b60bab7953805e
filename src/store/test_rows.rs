//! Rows for unit tests of the store and what reads it: a session, an observation, a summary,
//! each with only what the test says about it.

use rusqlite::Connection;

use crate::model::{ObservationBody, SummaryBody};
use crate::store::observations::{self, NewObservation};
use crate::store::summaries::{self, NewSummary};

/// A completed session of project `p`, by its host key.
pub(crate) fn session(c: &Connection, key: &str) -> i64 {
    c.execute(
        "INSERT INTO sessions (content_session_id, project, started_at_epoch, status)
         VALUES (?1, 'p', 1, 'completed')",
        [key],
    )
    .expect("insert a session");
    c.last_insert_rowid()
}

/// An observation of project `p` with a type and a title, at time `at`.
pub(crate) fn observation(
    c: &Connection,
    session: Option<i64>,
    obs_type: &str,
    title: &str,
    at: i64,
) -> i64 {
    observations::insert(
        c,
        &NewObservation {
            session_id: session,
            project: "p".into(),
            body: ObservationBody {
                obs_type: obs_type.into(),
                title: Some(title.into()),
                ..Default::default()
            },
            created_at: at,
            source: "t".into(),
            ..Default::default()
        },
    )
    .expect("insert an observation")
    .expect("not a duplicate")
}

/// A summary of project `p` with the given body, at time `at`.
pub(crate) fn summary(c: &Connection, session: Option<i64>, body: SummaryBody, at: i64) -> i64 {
    summaries::insert(
        c,
        &NewSummary {
            session_id: session,
            project: "p".into(),
            body,
            created_at: at,
            source: "t".into(),
            ..Default::default()
        },
    )
    .expect("insert a summary")
}
