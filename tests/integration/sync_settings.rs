//! The sync server setting as every command shows it: the whole setting, never its password,
//! however the password is written; and a server connection that breaks is an error, not a
//! closed stdout. No PostgreSQL is needed: the setting points at a socket directory where none
//! listens, or at a stand-in that answers the start-up and then stops reading.

use std::io::{Read, Write};
use std::os::unix::net::UnixListener;

use crate::common::Env;

#[test]
fn no_command_shows_the_sync_password() {
    let env = Env::new();
    let dir = env.root().join("no-server");
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.display().to_string();
    let settings = [
        (
            format!(
                "postgresql://me@localhost/cmem?host={dir}&port=5999&password=hunter2&sslmode=disable"
            ),
            format!(
                "postgresql://me@localhost/cmem?host={dir}&port=5999&password=***&sslmode=disable"
            ),
        ),
        (
            format!("postgresql://me:hunter2@localhost/cmem?host={dir}&port=5999&sslmode=disable"),
            format!("postgresql://me:***@localhost/cmem?host={dir}&port=5999&sslmode=disable"),
        ),
        (
            format!("host={dir} port=5999 dbname=cmem password='hunter2 x' sslmode=disable"),
            format!("host={dir} port=5999 dbname=cmem password=*** sslmode=disable"),
        ),
        (
            format!("host={dir} port=5999 password=hunter2 dbname=cmem sslmode=disable"),
            format!("host={dir} port=5999 password=*** dbname=cmem sslmode=disable"),
        ),
    ];
    for (url, shown) in &settings {
        let run = |args: &[&str]| {
            let out = env
                .cmd()
                .env("CMEM_SYNC_URL", url)
                .env("CMEM_SYNC_PROJECTS", "*")
                .args(args)
                .output()
                .unwrap();
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                !text.contains("hunter2"),
                "cmem {args:?} with {url}:\n{text}"
            );
            (out.status.success(), text)
        };
        // The sync fails (no server) and says where it tried, on stderr, with status 1.
        let (ok, text) = run(&["sync"]);
        assert!(!ok, "{text}");
        assert!(
            text.contains("cmem: error: cannot reach the sync server") && text.contains(&dir),
            "{text}"
        );
        for args in [
            &["config"][..],
            &["doctor"],
            &["sync", "status"],
            &["sync", "status", "--offline"],
        ] {
            let (_, text) = run(args);
            assert!(text.contains(shown.as_str()), "cmem {args:?}: {text}");
        }
    }
}

/// A server that goes away mid-sync (it crashed, say) leaves the client's socket writes failing
/// with EPIPE. That is not the reader of stdout stopping: the sync must fail loudly.
#[test]
fn a_server_gone_mid_sync_is_an_error_not_a_closed_stdout() {
    let env = Env::new();
    let dir = env.root().join("sock");
    std::fs::create_dir_all(&dir).unwrap();
    let listener = UnixListener::bind(dir.join(".s.PGSQL.5998")).unwrap();
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let server = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        // The start-up message: its length, then the rest.
        let mut len = [0u8; 4];
        s.read_exact(&mut len).unwrap();
        let mut rest = vec![0u8; u32::from_be_bytes(len) as usize - 4];
        s.read_exact(&mut rest).unwrap();
        // AuthenticationOk, then ReadyForQuery (idle).
        s.write_all(&[b'R', 0, 0, 0, 8, 0, 0, 0, 0, b'Z', 0, 0, 0, 5, b'I'])
            .unwrap();
        // It stops reading but keeps the socket open: the client's next write fails with
        // EPIPE (an end of file to read would be a different error).
        s.shutdown(std::net::Shutdown::Read).unwrap();
        let _ = finished.recv();
    });
    let url = format!(
        "postgresql://me@localhost/cmem?host={}&port=5998&sslmode=disable",
        dir.display()
    );
    let out = env
        .cmd()
        .env("CMEM_SYNC_URL", &url)
        .env("CMEM_SYNC_PROJECTS", "*")
        .arg("sync")
        .output()
        .unwrap();
    done.send(()).unwrap();
    server.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("cmem: error: ") && stderr.to_lowercase().contains("broken pipe"),
        "{stderr}"
    );
}
