//! Timelines: the rows around an anchor, across observations, summaries and prompts of the
//! anchor's project, ordered by `(time, kind, id)` (what `mem_search` step 2 discloses).

use anyhow::Result;
use rusqlite::{Connection, params};

use super::{observations, prompts, summaries};
use crate::model::{IndexRow, Kind, Observation, Prompt, Summary};

const PROMPT_TITLE_CHARS: usize = 160;

pub(crate) fn observation_row(o: &Observation) -> IndexRow {
    IndexRow {
        kind: Kind::Observation,
        id: o.id,
        project: o.project.clone(),
        title: o
            .title
            .clone()
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| "Untitled".into()),
        obs_type: Some(o.obs_type.clone()),
        created_at: o.created_at,
        session_id: o.session_id,
        read_tokens: o.read_tokens(),
        work_tokens: o.discovery_tokens,
        since: None,
    }
}

pub(crate) fn summary_row(s: &Summary) -> IndexRow {
    IndexRow {
        kind: Kind::Summary,
        id: s.id,
        project: s.project.clone(),
        title: s
            .request
            .clone()
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| "Session summary".into()),
        obs_type: None,
        created_at: s.created_at,
        session_id: s.session_id,
        read_tokens: 0,
        work_tokens: s.discovery_tokens,
        since: None,
    }
}

pub(crate) fn prompt_row(p: &Prompt) -> IndexRow {
    IndexRow {
        kind: Kind::Prompt,
        id: p.id,
        project: p.project.clone(),
        title: p.text.chars().take(PROMPT_TITLE_CHARS).collect(),
        obs_type: None,
        created_at: p.created_at,
        session_id: Some(p.session_id),
        read_tokens: 0,
        work_tokens: 0,
        since: None,
    }
}

/// The row of one record, if it exists.
pub(crate) fn row(conn: &Connection, kind: Kind, id: i64) -> Result<Option<IndexRow>> {
    Ok(match kind {
        Kind::Observation => observations::by_ids(conn, &[id])?
            .first()
            .map(observation_row),
        Kind::Summary => summaries::by_ids(conn, &[id])?.first().map(summary_row),
        Kind::Prompt => prompts::by_ids(conn, &[id])?.first().map(prompt_row),
    })
}

fn order_key(r: &IndexRow) -> (i64, Kind, i64) {
    (r.created_at, r.kind, r.id)
}

/// Up to `limit` rows of `project` at or before (`older`) / after the instant `at`, from all
/// three tables; the caller trims them around the anchor.
fn neighbours(
    conn: &Connection,
    project: &str,
    at: i64,
    limit: usize,
    older: bool,
) -> Result<Vec<IndexRow>> {
    let (cmp, dir) = if older { ("<=", "DESC") } else { (">=", "ASC") };
    // `p` qualifies the project column, `t` the time and id columns (prompts join sessions).
    let sql = |columns: &str, from: &str, p: &str, t: &str| {
        format!(
            "SELECT {columns} FROM {from} WHERE {p}project = ?1 COLLATE NOCASE AND {t}created_at_epoch {cmp} ?2
         ORDER BY {t}created_at_epoch {dir}, {t}id {dir} LIMIT ?3"
        )
    };
    let args = params![project, at, limit as i64 + 1];
    let mut out = Vec::new();
    let sql_o = sql(observations::COLUMNS, "observations", "", "");
    push_rows(
        conn,
        &sql_o,
        args,
        observations::from_row,
        observation_row,
        &mut out,
    )?;
    let sql_s = sql(summaries::COLUMNS, "session_summaries", "", "");
    push_rows(
        conn,
        &sql_s,
        args,
        summaries::from_row,
        summary_row,
        &mut out,
    )?;
    let sql_p = sql(prompts::COLUMNS, prompts::FROM, "s.", "up.");
    push_rows(conn, &sql_p, args, prompts::from_row, prompt_row, &mut out)?;
    Ok(out)
}

/// Appends the index rows of what `sql` selects.
fn push_rows<T>(
    conn: &Connection,
    sql: &str,
    args: &[&dyn rusqlite::ToSql],
    from_row: fn(&rusqlite::Row) -> rusqlite::Result<T>,
    index_row: fn(&T) -> IndexRow,
    out: &mut Vec<IndexRow>,
) -> Result<()> {
    let mut stmt = conn.prepare_cached(sql)?;
    for r in stmt.query_map(args, from_row)? {
        out.push(index_row(&r?));
    }
    Ok(())
}

/// The anchor and up to `before` older and `after` newer rows of the anchor's own project,
/// oldest first. `None` when the anchor does not exist.
pub(crate) fn around(
    conn: &Connection,
    kind: Kind,
    id: i64,
    before: usize,
    after: usize,
) -> Result<Option<Vec<IndexRow>>> {
    let Some(anchor) = row(conn, kind, id)? else {
        return Ok(None);
    };
    let key = order_key(&anchor);
    let mut older: Vec<IndexRow> =
        neighbours(conn, &anchor.project, anchor.created_at, before, true)?
            .into_iter()
            .filter(|r| order_key(r) < key)
            .collect();
    older.sort_by_key(|r| std::cmp::Reverse(order_key(r)));
    older.truncate(before);
    older.reverse();
    let mut newer: Vec<IndexRow> =
        neighbours(conn, &anchor.project, anchor.created_at, after, false)?
            .into_iter()
            .filter(|r| order_key(r) > key)
            .collect();
    newer.sort_by_key(order_key);
    newer.truncate(after);
    let mut rows = older;
    rows.push(anchor);
    rows.extend(newer);
    Ok(Some(rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::SummaryBody;
    use crate::store::Store;
    use crate::store::observations::{NewObservation, insert};

    #[test]
    fn around_mixes_kinds_stays_in_project_and_orders_by_time() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        let o = |project: &str, title: &str, at: i64| {
            insert(c, &NewObservation::sample(project, "change", title, at))
                .unwrap()
                .unwrap()
        };
        let ids: Vec<i64> = (0..6)
            .map(|i| o("p", &format!("o{i}"), 100 + i * 10))
            .collect();
        o("other", "elsewhere", 125);
        crate::store::summaries::insert(
            c,
            &crate::store::summaries::NewSummary {
                project: "P".into(),
                body: SummaryBody {
                    request: Some("sum".into()),
                    ..Default::default()
                },
                created_at: 125,
                source: "t".into(),
                ..Default::default()
            },
        )
        .unwrap();
        let rows = around(c, Kind::Observation, ids[2], 2, 2).unwrap().unwrap();
        let got: Vec<String> = rows.iter().map(|r| r.kind.display_id(r.id)).collect();
        assert_eq!(
            got,
            vec![
                ids[0].to_string(),
                ids[1].to_string(),
                ids[2].to_string(),
                "S1".into(),
                ids[3].to_string()
            ]
        );
        assert!(around(c, Kind::Observation, 999, 2, 2).unwrap().is_none());
    }
}
