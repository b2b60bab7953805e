//! The sync server setting as every command shows it: the whole setting, never its password,
//! however the password is written. No server is needed: the setting points at a socket
//! directory where none listens, so the commands that connect fail and print their errors too.

mod common;

use common::Env;

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
