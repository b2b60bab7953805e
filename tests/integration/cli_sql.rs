//! `cmem sql`: a person's own SQL on the memory database, with the tokenizer the indexed tables
//! need, so a row written by hand is found by search like one a hook wrote.

use crate::common::Env;

const INSERT: &str = "INSERT INTO observations (project, type, title, created_at_epoch, source) \
     VALUES ('acme-api', 'discovery', '高峰期连接池耗尽导致下单接口 502', 1700000000000, 'by-hand')";

#[test]
fn a_row_written_with_cmem_sql_is_indexed_where_a_plain_sqlite_connection_cannot_write() {
    let env = Env::new();
    // Creates the database (doctor exits 1 here: nothing is installed into Claude Code).
    env.cmd().args(["doctor", "--init"]).output().unwrap();
    // The premise: a connection without cmem's tokenizer cannot write the indexed tables.
    let plain = rusqlite::Connection::open(env.db_path()).unwrap();
    let refused = plain.execute(INSERT, []).unwrap_err().to_string();
    assert!(refused.contains("no such tokenizer: cmem"), "{refused}");
    drop(plain);

    env.run_ok(&["sql", INSERT]);
    let found = env.run_stdout(&["search", "--all-projects", "耗尽"]);
    assert!(
        found.contains("下单接口"),
        "search did not find the row:\n{found}"
    );

    let listed = env.run_stdout(&[
        "sql",
        "--header",
        "SELECT id, title, subtitle FROM observations WHERE source = 'by-hand'",
    ]);
    assert_eq!(
        listed,
        "id|title|subtitle\n1|高峰期连接池耗尽导致下单接口 502|\n"
    );
    let json = env.run_stdout(&[
        "sql",
        "--json",
        "SELECT id, subtitle, x'00ff' AS b FROM observations",
    ]);
    assert_eq!(json, "{\"id\":1,\"subtitle\":null,\"b\":\"00ff\"}\n");
}

#[test]
fn a_failing_statement_is_named_with_what_took_effect_before_it() {
    let env = Env::new();
    // Creates the database (doctor exits 1 here: nothing is installed into Claude Code).
    env.cmd().args(["doctor", "--init"]).output().unwrap();
    let out = env
        .cmd()
        .args([
            "sql",
            &format!("{INSERT}; SELECT no_such_column FROM observations"),
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("statement 2 is not valid SQL (statement 1 before it took effect)")
            && stderr.contains("no_such_column"),
        "{stderr}"
    );
    assert_eq!(env.count("observations"), 1);

    let atomic = env
        .cmd()
        .args([
            "sql",
            &format!("BEGIN; {INSERT}; INSERT INTO nowhere VALUES (1); COMMIT"),
        ])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&atomic.stderr)
            .contains("statement 3 is not valid SQL (the open transaction is rolled back"),
        "{}",
        String::from_utf8_lossy(&atomic.stderr)
    );
    assert_eq!(env.count("observations"), 1);

    let empty = env.cmd().args(["sql", "  "]).output().unwrap();
    assert!(!empty.status.success());
    assert!(String::from_utf8_lossy(&empty.stderr).contains("no SQL given"));
}

#[test]
fn without_a_database_it_says_how_one_comes_to_be_and_creates_none() {
    let env = Env::new();
    let out = env.cmd().args(["sql", "SELECT 1"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no database at"));
    assert!(!env.db_path().exists());
}
