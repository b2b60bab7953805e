//! The PostgreSQL half of sync: the server schema (versioned migrations), pushing revisions
//! and tombstones in batches, pulling by sequence, devices and grants.

use anyhow::{Context, Result, bail};
use postgres::Client;

/// Server step N brings the `cmem` schema from version N-1 to N.
const STEPS: &[&str] = &[
    include_str!("sql/001_server.sql"),
    include_str!("sql/002_authority.sql"),
    include_str!("sql/003_scrubs.sql"),
    include_str!("sql/004_unproven_tombstones.sql"),
];

pub(crate) const SERVER_VERSION: i32 = STEPS.len() as i32;

/// The server's schema version, or 0 when `cmem sync init` never ran there.
pub(crate) fn version(client: &mut Client) -> Result<i32> {
    let exists: bool = client
        .query_one("SELECT to_regclass('cmem.meta') IS NOT NULL", &[])
        .map_err(|e| match e.as_db_error() {
            Some(d) => anyhow::anyhow!(
                "the server refused: {}; this role is granted no project: ask the owner of the cmem schema for `cmem sync grant ROLE PROJECT`",
                d.message()
            ),
            // Not a refusal: the connection broke (the server went away). Its cause stays in
            // the chain for the message.
            None => anyhow::Error::new(e).context(
                "the connection to the sync server broke while checking its cmem schema; run `cmem sync` again when the server is back",
            ),
        })?
        .get(0);
    if !exists {
        return Ok(0);
    }
    let row = client
        .query_one("SELECT COALESCE(MAX(version), 0) FROM cmem.meta", &[])
        .context("cannot read the server's cmem schema version (is this role granted a project? `cmem sync grant`)")?;
    Ok(row.get(0))
}

/// Fails unless the server's schema is the one this cmem speaks.
pub(crate) fn check(client: &mut Client) -> Result<()> {
    match version(client)? {
        0 => bail!(
            "the server has no cmem schema this role can see: run `cmem sync init` once (as a role that may create schemas), or ask its owner for `cmem sync grant ROLE PROJECT`"
        ),
        v if v < SERVER_VERSION => bail!(
            "the server's cmem schema is version {v}, this cmem needs {SERVER_VERSION}: run `cmem sync init` to upgrade it"
        ),
        v if v > SERVER_VERSION => bail!(
            "the server's cmem schema is version {v}, newer than this cmem understands ({SERVER_VERSION}): upgrade cmem"
        ),
        _ => Ok(()),
    }
}

/// Creates or upgrades the schema; returns (version before, version after).
pub(crate) fn init(client: &mut Client) -> Result<(i32, i32)> {
    let mut tx = client.transaction()?;
    tx.batch_execute(
        "SELECT pg_advisory_xact_lock(7432650100);
         CREATE SCHEMA IF NOT EXISTS cmem;
         CREATE TABLE IF NOT EXISTS cmem.meta (version integer NOT NULL, at timestamptz NOT NULL DEFAULT now());",
    )
    .context("cannot create the cmem schema: `cmem sync init` needs a role that may create schemas in this database")?;
    let before: i32 = tx
        .query_one("SELECT COALESCE(MAX(version), 0) FROM cmem.meta", &[])?
        .get(0);
    if before > SERVER_VERSION {
        bail!(
            "the server's cmem schema is version {before}, newer than this cmem understands ({SERVER_VERSION}): upgrade cmem"
        );
    }
    for (i, step) in STEPS.iter().enumerate().skip(before as usize) {
        tx.batch_execute(step)
            .with_context(|| format!("server migration {} failed", i + 1))?;
        tx.execute(
            "INSERT INTO cmem.meta (version) VALUES ($1)",
            &[&(i as i32 + 1)],
        )?;
    }
    tx.commit().context("cannot commit the server schema")?;
    Ok((before, SERVER_VERSION))
}

fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Lets `role` read and write the rows of `project` (`*`: every project).
pub(crate) fn grant(client: &mut Client, role: &str, project: &str) -> Result<()> {
    let mut tx = client.transaction()?;
    tx.execute(
        "INSERT INTO cmem.grants (role, project) VALUES ($1, lower($2)) ON CONFLICT DO NOTHING",
        &[&role, &project],
    )
    .context("cannot record the grant: run this as the owner of the cmem schema (the role that ran `cmem sync init`)")?;
    let r = ident(role);
    tx.batch_execute(&format!(
        "GRANT USAGE ON SCHEMA cmem TO {r};
         GRANT SELECT ON cmem.meta, cmem.rows, cmem.devices, cmem.scrubs TO {r};"
    ))
    .with_context(|| {
        format!("cannot grant {role} access to the cmem schema (does the role exist?)")
    })?;
    tx.commit()?;
    Ok(())
}

/// Registers this device to the role that connects (or refreshes its name); fails when the
/// device id belongs to another role.
pub(crate) fn hello(client: &mut Client, device: &str, name: &str) -> Result<()> {
    let row = client.query_one(
        "SELECT cmem.hello($1, $2)::text, session_user::text",
        &[&device, &name],
    )?;
    let (owner, me): (String, String) = (row.get(0), row.get(1));
    if owner != me {
        bail!(
            "this data dir's device id {device} is registered on the server to role {owner}, not {me}: sync as {owner}, or change [sync] url back"
        );
    }
    Ok(())
}

/// A revision to push.
#[derive(Clone)]
pub(crate) struct Upsert {
    pub device: String,
    pub table: String,
    pub id: i64,
    pub project: String,
    pub doc: String,
    pub hash: String,
    /// The server revision this one was based on (`None`: no check).
    pub base: Option<i64>,
}

/// A row forgotten here: (device, table, id).
pub(crate) type Tombstone = (String, String, i64);

/// What the server did with one pushed revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Stored as this revision number.
    Written(i64),
    /// The server already holds this document, as this revision.
    Same(i64),
    /// Forgotten on the server: a tombstone is final.
    Gone,
    /// The row moved on to this revision since the one the push was based on.
    Conflict(i64),
    /// Not allowed, and why (a project not granted, another device's row).
    Refused(String),
}

impl Outcome {
    fn parse(text: &str) -> Outcome {
        let rev = |r: &str| r.parse().unwrap_or(0);
        if let Some(r) = text.strip_prefix("written:") {
            Outcome::Written(rev(r))
        } else if let Some(r) = text.strip_prefix("conflict:") {
            Outcome::Conflict(rev(r))
        } else if let Some(r) = text.strip_prefix("same:") {
            Outcome::Same(rev(r))
        } else if text == "gone" {
            Outcome::Gone
        } else {
            Outcome::Refused(text.strip_prefix("refused: ").unwrap_or(text).to_string())
        }
    }
}

/// What one pushed batch did: an outcome per upsert (in order) and the tombstones the server
/// took.
pub(crate) struct Pushed {
    pub outcomes: Vec<Outcome>,
    pub tombstones: u64,
}

/// Pushes one batch in one transaction through the server's push functions, which decide
/// row by row what this role may write. A replay changes nothing: an unchanged revision has
/// the same hash, and a tombstone is final.
pub(crate) fn push(
    client: &mut Client,
    me: &str,
    upserts: &[Upsert],
    tombstones: &[Tombstone],
) -> Result<Pushed> {
    let mut tx = client
        .transaction()
        .map_err(|e| explain("cannot start a push", e))?;
    let mut outcomes = Vec::with_capacity(upserts.len());
    if !upserts.is_empty() {
        let col = |f: fn(&Upsert) -> &str| upserts.iter().map(f).collect::<Vec<&str>>();
        let devices = col(|u| &u.device);
        let tables = col(|u| &u.table);
        let projects = col(|u| &u.project);
        let docs = col(|u| &u.doc);
        let hashes = col(|u| &u.hash);
        let ids: Vec<i64> = upserts.iter().map(|u| u.id).collect();
        let bases: Vec<Option<i64>> = upserts.iter().map(|u| u.base).collect();
        let rows = tx
            .query(
                "SELECT k, outcome FROM cmem.push_rows($1, $2, $3, $4, $5, $6, $7, $8)",
                &[
                    &me, &devices, &tables, &ids, &projects, &docs, &hashes, &bases,
                ],
            )
            .map_err(refused)?;
        outcomes = vec![Outcome::Refused("no answer from the server".into()); upserts.len()];
        for r in rows {
            let k: i32 = r.get(0);
            let text: String = r.get(1);
            if let Some(slot) = usize::try_from(k - 1)
                .ok()
                .and_then(|k| outcomes.get_mut(k))
            {
                *slot = Outcome::parse(&text);
            }
        }
    }
    let mut taken = 0;
    if !tombstones.is_empty() {
        let devices: Vec<&str> = tombstones.iter().map(|t| t.0.as_str()).collect();
        let tables: Vec<&str> = tombstones.iter().map(|t| t.1.as_str()).collect();
        let ids: Vec<i64> = tombstones.iter().map(|t| t.2).collect();
        let n: i64 = tx
            .query_one(
                "SELECT cmem.push_tombstones($1, $2, $3, $4)",
                &[&me, &devices, &tables, &ids],
            )
            .map_err(refused)?
            .get(0);
        taken = n.max(0) as u64;
    }
    tx.commit()
        .map_err(|e| explain("the server did not commit the push", e))?;
    Ok(Pushed {
        outcomes,
        tombstones: taken,
    })
}

fn refused(e: postgres::Error) -> anyhow::Error {
    explain("the server refused the push", e)
}

/// A server error in one line that says what to do.
pub(crate) fn explain(what: &str, e: postgres::Error) -> anyhow::Error {
    let why = match e.as_db_error() {
        Some(d) => d.message().to_string(),
        None => {
            let mut why = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                why = format!("{why}: {s}");
                source = s.source();
            }
            why
        }
    };
    let hint = if why.contains("lock timeout") {
        "; another session holds a lock on the cmem tables (another device's push, or a transaction of an admin's): try again shortly (the server ends a stuck push within seconds)"
    } else if why.contains("statement timeout") {
        "; one batch took the server longer than 15 s: check its load, or sync in smaller batches (CMEM_SYNC_BATCH)"
    } else if why.contains("row-level security") || why.contains("not granted") {
        "; this role is not granted one of the shared projects: narrow [sync] projects or ask the admin for `cmem sync grant ROLE PROJECT`"
    } else if e.is_closed() || e.as_db_error().is_none() {
        "; the connection to the sync server was lost: run `cmem sync` again when it is back (nothing is lost)"
    } else {
        ""
    };
    anyhow::anyhow!(
        "{what}: {}{hint}",
        why.split_whitespace().collect::<Vec<_>>().join(" ")
    )
}

/// A scrub made on some device, as the server keeps it.
pub(crate) struct Scrub {
    pub seq: i64,
    pub fingerprint: String,
    pub replacement: String,
    pub device: String,
    pub role: String,
}

/// Sends this device's scrubs (fingerprint, replacement); returns how many were new there.
pub(crate) fn push_scrubs(
    client: &mut Client,
    me: &str,
    scrubs: &[(String, String)],
) -> Result<u64> {
    let f: Vec<&str> = scrubs.iter().map(|s| s.0.as_str()).collect();
    let r: Vec<&str> = scrubs.iter().map(|s| s.1.as_str()).collect();
    let n: i64 = client
        .query_one("SELECT cmem.push_scrubs($1, $2, $3)", &[&me, &f, &r])
        .map_err(|e| explain("the server refused the scrubs", e))?
        .get(0);
    Ok(n.max(0) as u64)
}

/// Scrubs recorded after `after`, oldest first.
pub(crate) fn pull_scrubs(client: &mut Client, after: i64) -> Result<Vec<Scrub>> {
    let rows = client
        .query(
            "SELECT seq, fingerprint, replacement, device, written_by::text FROM cmem.scrubs
             WHERE seq > $1 ORDER BY seq LIMIT 1000",
            &[&after],
        )
        .map_err(|e| explain("the server did not give the scrubs", e))?;
    Ok(rows
        .iter()
        .map(|r| Scrub {
            seq: r.get(0),
            fingerprint: r.get(1),
            replacement: r.get(2),
            device: r.get(3),
            role: r.get(4),
        })
        .collect())
}

/// Which of `projects` the role `who` may see.
pub(crate) fn visible_to(
    client: &mut Client,
    projects: &[String],
    who: &str,
) -> Result<Vec<String>> {
    let rows = client
        .query(
            "SELECT cmem.visible_to($1, $2::text::name)",
            &[&projects, &who],
        )
        .map_err(|e| explain("cannot ask the server what a role may see", e))?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// The newest sequence number the server handed out.
pub(crate) fn last_seq(client: &mut Client) -> Result<i64> {
    Ok(client
        .query_one("SELECT cmem.last_seq()", &[])
        .map_err(|e| explain("cannot read the server's sequence", e))?
        .get(0))
}

/// A revision pulled, with its sequence number.
pub(crate) struct Row {
    pub seq: i64,
    pub pulled: super::local::Pulled,
}

/// The columns `pulled` reads, from `cmem.rows r` joined with `cmem.devices d`.
const PULLED: &str =
    "r.seq, r.device, r.tbl, r.local_id, r.project, r.deleted, r.doc::text, r.writer,
     COALESCE(d.name, r.writer), r.written_by::text, r.rev, r.unproven";

fn pulled(r: &postgres::Row) -> Row {
    Row {
        seq: r.get(0),
        pulled: super::local::Pulled {
            device: r.get(1),
            table: r.get(2),
            remote_id: r.get(3),
            project: r.get(4),
            deleted: r.get(5),
            doc: r.get(6),
            writer: r.get(7),
            writer_name: r.get(8),
            writer_role: r.get(9),
            rev: r.get(10),
            seq: r.get(0),
            unproven: r.get(11),
        },
    }
}

/// Revisions after `after` that other devices wrote, oldest first.
pub(crate) fn pull(client: &mut Client, me: &str, after: i64, limit: i64) -> Result<Vec<Row>> {
    let rows = client
        .query(
            &format!(
                "SELECT {PULLED} FROM cmem.rows r LEFT JOIN cmem.devices d ON d.device = r.writer
                 WHERE r.seq > $1 AND r.writer <> $2 ORDER BY r.seq LIMIT $3"
            ),
            &[&after, &me, &limit],
        )
        .map_err(|e| explain("the server did not give the rows to pull", e))?;
    Ok(rows.iter().map(pulled).collect())
}

/// The server's current revision of rows of `table`, by global identity (a push found them
/// changed since its base).
pub(crate) fn fetch(
    client: &mut Client,
    table: &str,
    keys: &[(String, i64)],
) -> Result<Vec<super::local::Pulled>> {
    let devices: Vec<&str> = keys.iter().map(|k| k.0.as_str()).collect();
    let ids: Vec<i64> = keys.iter().map(|k| k.1).collect();
    let rows = client
        .query(
            &format!(
                "SELECT {PULLED} FROM cmem.rows r LEFT JOIN cmem.devices d ON d.device = r.writer
                 JOIN unnest($2::text[], $3::bigint[]) AS k (device, id)
                   ON r.device = k.device AND r.local_id = k.id
                 WHERE r.tbl = $1 ORDER BY r.seq"
            ),
            &[&table, &devices, &ids],
        )
        .map_err(|e| explain("the server did not give the rows changed elsewhere", e))?;
    Ok(rows.iter().map(|r| pulled(r).pulled).collect())
}

/// How many revisions of other devices wait after `after` (for `cmem sync status`).
pub(crate) fn behind(client: &mut Client, me: &str, after: i64) -> Result<i64> {
    Ok(client
        .query_one(
            "SELECT COUNT(*) FROM cmem.rows WHERE seq > $1 AND writer <> $2",
            &[&after, &me],
        )
        .map_err(|e| explain("cannot count the rows to pull", e))?
        .get(0))
}
