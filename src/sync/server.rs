//! The PostgreSQL half of sync: the server schema (versioned migrations), pushing revisions
//! and tombstones in batches, pulling by sequence, devices and grants.

use anyhow::{Context, Result, bail};
use postgres::Client;

/// Server step N brings the `cmem` schema from version N-1 to N.
const STEPS: &[&str] = &[include_str!("sql/001_server.sql")];

pub const SERVER_VERSION: i32 = STEPS.len() as i32;

/// One lock for every push: revisions commit in `seq` order (see 001_server.sql).
const PUSH_LOCK: &str = "SELECT pg_advisory_xact_lock(7432650101)";

/// The server's schema version, or 0 when `cmem sync init` never ran there.
pub fn version(client: &mut Client) -> Result<i32> {
    let exists: bool = client
        .query_one("SELECT to_regclass('cmem.meta') IS NOT NULL", &[])
        .map_err(|e| {
            let why = e.as_db_error().map(|d| d.message().to_string()).unwrap_or_else(|| e.to_string());
            anyhow::anyhow!(
                "the server refused: {why}; this role is granted no project: ask the owner of the cmem schema for `cmem sync grant ROLE PROJECT`"
            )
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
pub fn check(client: &mut Client) -> Result<()> {
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
pub fn init(client: &mut Client) -> Result<(i32, i32)> {
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
pub fn grant(client: &mut Client, role: &str, project: &str) -> Result<()> {
    let mut tx = client.transaction()?;
    tx.execute(
        "INSERT INTO cmem.grants (role, project) VALUES ($1, lower($2)) ON CONFLICT DO NOTHING",
        &[&role, &project],
    )
    .context("cannot record the grant: run this as the owner of the cmem schema (the role that ran `cmem sync init`)")?;
    let r = ident(role);
    tx.batch_execute(&format!(
        "GRANT USAGE ON SCHEMA cmem TO {r};
         GRANT SELECT ON cmem.meta TO {r};
         GRANT SELECT, INSERT, UPDATE ON cmem.rows, cmem.devices TO {r};
         GRANT USAGE ON SEQUENCE cmem.row_seq TO {r};"
    ))
    .with_context(|| {
        format!("cannot grant {role} access to the cmem schema (does the role exist?)")
    })?;
    tx.commit()?;
    Ok(())
}

/// Records this device (its name and the role it connects as).
pub fn hello(client: &mut Client, device: &str, name: &str) -> Result<()> {
    client.execute(
        "INSERT INTO cmem.devices (device, name) VALUES ($1, $2)
         ON CONFLICT (device) DO UPDATE SET name = EXCLUDED.name, role = current_user, last_seen = now()",
        &[&device, &name],
    )?;
    Ok(())
}

/// A revision to push.
pub struct Upsert {
    pub device: String,
    pub table: String,
    pub id: i64,
    pub project: String,
    pub doc: String,
    pub hash: String,
}

/// A row forgotten here: (device, table, id).
pub type Tombstone = (String, String, i64);

/// Pushes one batch in one transaction; returns how many rows the server changed. A replay
/// changes nothing: an unchanged revision has the same hash, and a tombstone is final.
pub fn push(
    client: &mut Client,
    me: &str,
    upserts: &[Upsert],
    tombstones: &[Tombstone],
) -> Result<u64> {
    let mut tx = client.transaction()?;
    tx.batch_execute(PUSH_LOCK)?;
    let mut changed = 0;
    if !upserts.is_empty() {
        let col = |f: fn(&Upsert) -> String| upserts.iter().map(f).collect::<Vec<String>>();
        let devices = col(|u| u.device.clone());
        let tables = col(|u| u.table.clone());
        let projects = col(|u| u.project.clone());
        let docs = col(|u| u.doc.clone());
        let hashes = col(|u| u.hash.clone());
        let ids: Vec<i64> = upserts.iter().map(|u| u.id).collect();
        changed += tx
            .execute(
                "INSERT INTO cmem.rows (device, tbl, local_id, project, doc, hash, writer)
                 SELECT d, t, i, p, doc::jsonb, h, $7
                 FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::text[], $6::text[])
                      AS u (d, t, i, p, doc, h)
                 ON CONFLICT (device, tbl, local_id) DO UPDATE
                 SET project = EXCLUDED.project, doc = EXCLUDED.doc, hash = EXCLUDED.hash,
                     seq = nextval('cmem.row_seq'), writer = EXCLUDED.writer,
                     written_by = current_user, written_at = now()
                 WHERE NOT cmem.rows.deleted AND cmem.rows.hash <> EXCLUDED.hash",
                &[&devices, &tables, &ids, &projects, &docs, &hashes, &me],
            )
            .map_err(refused)?;
    }
    if !tombstones.is_empty() {
        let devices: Vec<&str> = tombstones.iter().map(|t| t.0.as_str()).collect();
        let tables: Vec<&str> = tombstones.iter().map(|t| t.1.as_str()).collect();
        let ids: Vec<i64> = tombstones.iter().map(|t| t.2).collect();
        changed += tx
            .execute(
                "UPDATE cmem.rows r
                 SET deleted = true, doc = NULL, hash = '', seq = nextval('cmem.row_seq'),
                     writer = $4, written_by = current_user, written_at = now()
                 FROM unnest($1::text[], $2::text[], $3::int8[]) AS u (d, t, i)
                 WHERE r.device = u.d AND r.tbl = u.t AND r.local_id = u.i AND NOT r.deleted",
                &[&devices, &tables, &ids, &me],
            )
            .map_err(refused)?;
    }
    tx.commit().context("the server did not commit the push")?;
    Ok(changed)
}

fn refused(e: postgres::Error) -> anyhow::Error {
    let why = e
        .as_db_error()
        .map(|d| d.message().to_string())
        .unwrap_or_else(|| e.to_string());
    let hint = if why.contains("row-level security") {
        "; this role is not granted one of the shared projects: narrow [sync] projects or ask the admin for `cmem sync grant ROLE PROJECT`"
    } else {
        ""
    };
    anyhow::anyhow!("the server refused the push: {why}{hint}")
}

/// A revision pulled, with its sequence number.
pub struct Row {
    pub seq: i64,
    pub pulled: super::local::Pulled,
}

/// Revisions after `after` that other devices wrote, oldest first.
pub fn pull(client: &mut Client, me: &str, after: i64, limit: i64) -> Result<Vec<Row>> {
    let rows = client.query(
        "SELECT r.seq, r.device, r.tbl, r.local_id, r.project, r.deleted, r.doc::text, r.writer,
                COALESCE(d.name, r.writer), r.written_by::text
         FROM cmem.rows r LEFT JOIN cmem.devices d ON d.device = r.writer
         WHERE r.seq > $1 AND r.writer <> $2
         ORDER BY r.seq LIMIT $3",
        &[&after, &me, &limit],
    )?;
    Ok(rows
        .into_iter()
        .map(|r| Row {
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
            },
        })
        .collect())
}

/// How many revisions of other devices wait after `after` (for `cmem sync status`).
pub fn behind(client: &mut Client, me: &str, after: i64) -> Result<i64> {
    Ok(client
        .query_one(
            "SELECT COUNT(*) FROM cmem.rows WHERE seq > $1 AND writer <> $2",
            &[&after, &me],
        )?
        .get(0))
}
