//! Connecting to the server the way libpq users expect: a `postgres://` URL or a `key=value`
//! string, `sslmode` from `disable` to `verify-full` (rustls, pure Rust), the password from the
//! URL, `PGPASSFILE` or `~/.pgpass`, and a connect timeout (5 s unless the URL sets one) so an
//! unreachable server fails fast.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use postgres::config::{Host, SslMode};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// What cmem's sessions ask of the server, so that nothing waits unbounded there: a lock held
/// by another session (`lock_timeout`), a statement (`statement_timeout`), and a session of
/// ours left inside a transaction by a partition or a killed client, which would hold the
/// push lock for every device (`idle_in_transaction_session_timeout`: cmem never idles in a
/// transaction, its statements go back to back). The lock wait is longer than the idle limit,
/// so another device's stuck push is ended before ours gives up. TCP keepalives and
/// `tcp_user_timeout` bound the server's side of a dead network. Options in the URL come
/// after these and win.
pub(crate) const SERVER_OPTIONS: &str = "-c lock_timeout=10s -c statement_timeout=15s -c idle_in_transaction_session_timeout=5s -c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3 -c tcp_user_timeout=20000";

/// libpq's `sslmode` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ssl {
    Disable,
    Prefer,
    Require,
    /// `verify-ca` and `verify-full`: the chain and the host name are checked (rustls cannot
    /// check one without the other).
    Verify,
}

/// A parsed server setting.
pub(crate) struct Target {
    pub config: postgres::Config,
    pub ssl: Ssl,
    pub root_cert: Option<PathBuf>,
}

/// What libpq takes from the environment for a setting the URL leaves out (`PGHOST`,
/// `PGUSER`, …), and its defaults: the local socket directory that holds the server's socket
/// (else localhost), the login name as the user.
fn libpq_defaults(
    params: &mut Vec<(String, String)>,
    env: impl Fn(&str) -> Option<String>,
    exists: impl Fn(&Path) -> bool,
) {
    const FROM_ENV: [(&str, &str); 9] = [
        ("host", "PGHOST"),
        ("hostaddr", "PGHOSTADDR"),
        ("port", "PGPORT"),
        ("user", "PGUSER"),
        ("dbname", "PGDATABASE"),
        ("password", "PGPASSWORD"),
        ("sslmode", "PGSSLMODE"),
        ("sslrootcert", "PGSSLROOTCERT"),
        ("connect_timeout", "PGCONNECT_TIMEOUT"),
    ];
    let has = |params: &Vec<(String, String)>, key: &str| params.iter().any(|(k, _)| k == key);
    for (key, var) in FROM_ENV {
        if !has(params, key)
            && let Some(v) = env(var).filter(|v| !v.trim().is_empty())
        {
            params.push((key.to_string(), v));
        }
    }
    if !has(params, "host") && !has(params, "hostaddr") {
        let port = params
            .iter()
            .find(|(k, _)| k == "port")
            .map_or("5432".to_string(), |(_, v)| v.clone());
        let socket_dir = ["/var/run/postgresql", "/tmp"]
            .into_iter()
            .find(|d| exists(&Path::new(d).join(format!(".s.PGSQL.{port}"))));
        params.push((
            "host".to_string(),
            socket_dir.unwrap_or("localhost").to_string(),
        ));
    }
    if !has(params, "user")
        && let Some(me) = env("USER").or_else(|| env("LOGNAME"))
    {
        params.push(("user".to_string(), me));
    }
}

/// Reads the URL or key=value string as libpq does (`crate::conninfo`: the query string's
/// `host` and `port` win over the authority, host and port lists), takes out `sslmode` and
/// `sslrootcert` (the client library knows only disable/prefer/require) and hands the rest to
/// the client library.
pub(crate) fn parse(url: &str) -> Result<Target> {
    let mut params = crate::conninfo::params(url)
        .map_err(|why| anyhow!("cannot read the server setting {}: {why}", redact(url)))?;
    libpq_defaults(&mut params, |k| std::env::var(k).ok(), |p| p.exists());
    let mut ssl = Ssl::Prefer;
    let mut root_cert = None;
    let mut rest = Vec::new();
    for (key, value) in params {
        match key.as_str() {
            "sslmode" => {
                ssl = match value.as_str() {
                    "disable" => Ssl::Disable,
                    "allow" | "prefer" => Ssl::Prefer,
                    "require" => Ssl::Require,
                    "verify-ca" | "verify-full" => Ssl::Verify,
                    other => bail!(
                        "sslmode={other:?}: use disable, prefer, require, verify-ca or verify-full"
                    ),
                }
            }
            "sslrootcert" => root_cert = Some(PathBuf::from(value)),
            _ => rest.push((key, value)),
        }
    }
    let mut config: postgres::Config = crate::conninfo::to_key_values(&rest)
        .parse()
        .with_context(|| format!("cannot read the server setting {}", redact(url)))?;
    let (hosts, ports) = (config.get_hosts().len(), config.get_ports().len());
    if ports > 1 && ports != hosts {
        bail!(
            "the server setting {} names {hosts} host(s) and {ports} ports: give one port for all, or one per host",
            redact(url)
        );
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    let options = match config.get_options() {
        Some(theirs) if !theirs.trim().is_empty() => format!("{SERVER_OPTIONS} {theirs}"),
        _ => SERVER_OPTIONS.to_string(),
    };
    config.options(&options);
    // The client's side of a dead network: probes after 10 s of silence, and unacknowledged
    // data gives up after 20 s.
    config
        .keepalives(true)
        .keepalives_idle(Duration::from_secs(10))
        .keepalives_interval(Duration::from_secs(5))
        .keepalives_retries(3)
        .tcp_user_timeout(Duration::from_secs(20));
    config.ssl_mode(match ssl {
        Ssl::Disable => SslMode::Disable,
        Ssl::Prefer => SslMode::Prefer,
        Ssl::Require | Ssl::Verify => SslMode::Require,
    });
    if config.get_password().is_none()
        && let Some(pw) = pgpass_password(&config)
    {
        config.password(pw);
    }
    Ok(Target {
        config,
        ssl,
        root_cert,
    })
}

/// The setting with any password blanked, for messages.
pub(crate) fn redact(url: &str) -> String {
    crate::conninfo::redact(url)
}

/// Each host with its port (one port serves every host; none means 5432).
fn endpoints(config: &postgres::Config) -> Vec<(&Host, u16)> {
    let ports = config.get_ports();
    config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let port = match ports {
                [] => 5432,
                [one] => *one,
                many => many.get(i).copied().unwrap_or(5432),
            };
            (h, port)
        })
        .collect()
}

/// Where the server is, for messages: `host:port` or the socket directory and port, each
/// host of a list, then the database.
pub(crate) fn describe(config: &postgres::Config) -> String {
    let hosts: Vec<String> = endpoints(config)
        .into_iter()
        .map(|(host, port)| match host {
            Host::Tcp(h) => format!("{h}:{port}"),
            Host::Unix(p) => format!("{}:{port}", p.display()),
        })
        .collect();
    let hosts = if hosts.is_empty() {
        "localhost:5432".to_string()
    } else {
        hosts.join(",")
    };
    let db = config
        .get_dbname()
        .or(config.get_user())
        .unwrap_or("postgres");
    format!("{hosts}/{db}")
}

/// The password `~/.pgpass` (or `PGPASSFILE`) gives for this user and database on the first
/// host that has one (a socket directory is `localhost` there, as in libpq).
fn pgpass_password(config: &postgres::Config) -> Option<String> {
    let file = std::env::var_os("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".pgpass")))?;
    let text = std::fs::read_to_string(file).ok()?;
    let user = config.get_user().unwrap_or_default().to_string();
    let db = config.get_dbname().unwrap_or(&user).to_string();
    let mut endpoints = endpoints(config);
    let localhost = Host::Tcp("localhost".into());
    if endpoints.is_empty() {
        endpoints.push((&localhost, 5432));
    }
    endpoints.into_iter().find_map(|(host, port)| {
        let host = match host {
            Host::Tcp(h) => h.as_str(),
            Host::Unix(_) => "localhost",
        };
        pgpass_lookup(&text, [host, &port.to_string(), &db, &user])
    })
}

/// The first line of a pgpass file matching `host:port:db:user` (`*` matches anything; `\:`
/// and `\\` escape).
fn pgpass_lookup(text: &str, want: [&str; 4]) -> Option<String> {
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut fields = Vec::new();
        let mut cur = String::new();
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => cur.extend(chars.next()),
                ':' if fields.len() < 4 => fields.push(std::mem::take(&mut cur)),
                c => cur.push(c),
            }
        }
        fields.push(cur);
        if fields.len() == 5
            && fields[..4]
                .iter()
                .zip(want)
                .all(|(f, w)| f == "*" || f == w)
        {
            return fields.pop();
        }
    }
    None
}

/// Opens a connection; the error says what to check. The whole connect, TLS and start-up
/// included, is bounded by the connect timeout: a server that accepts and never answers fails
/// as fast as one that is down.
pub(crate) fn connect(target: &Target) -> Result<postgres::Client> {
    let where_ = describe(&target.config);
    let limit = target
        .config
        .get_connect_timeout()
        .copied()
        .unwrap_or(CONNECT_TIMEOUT);
    let config = target.config.clone();
    let tls = match target.ssl {
        Ssl::Disable => None,
        _ => Some(tls(target)?),
    };
    let (send, answer) = std::sync::mpsc::channel();
    // Left behind on a time-out: the process ends soon after, with the error.
    std::thread::spawn(move || {
        let result = match tls {
            None => config.connect(postgres::NoTls),
            Some(tls) => config.connect(tls),
        };
        let _ = send.send(result);
    });
    let result = match answer.recv_timeout(limit) {
        Ok(r) => r,
        Err(_) => bail!(
            "cannot reach the sync server {where_}: no answer within {} s; is the server up and reachable (host, port, firewall)?",
            limit.as_secs_f32()
        ),
    };
    result.map_err(|e| {
        let mut why = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            why = format!("{why}: {s}");
            source = s.source();
        }
        let why = one_line(&why);
        let hint = if why.contains("timed out") || why.contains("timeout") {
            "is the server up and reachable (host, port, firewall)?"
        } else if why.contains("password") || why.contains("authentication") {
            "check the user and password (URL, PGPASSFILE or ~/.pgpass)"
        } else if why.contains("TLS") || why.contains("certificate") || why.contains("tls") {
            "check sslmode and sslrootcert"
        } else {
            "check [sync] url (or CMEM_SYNC_URL) and that the server is running"
        };
        anyhow::anyhow!("cannot reach the sync server {where_}: {why}; {hint}")
    })
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn tls(target: &Target) -> Result<tokio_postgres_rustls::MakeRustlsConnect> {
    let builder = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .context("no TLS protocol version available")?;
    let config = if target.ssl == Ssl::Verify {
        let mut roots = rustls::RootCertStore::empty();
        match &target.root_cert {
            Some(file) => {
                for cert in CertificateDer::pem_file_iter(file)
                    .with_context(|| format!("cannot read sslrootcert {}", file.display()))?
                {
                    let cert =
                        cert.with_context(|| format!("sslrootcert {} is not PEM", file.display()))?;
                    roots.add(cert).with_context(|| {
                        format!("a certificate of {} is invalid", file.display())
                    })?;
                }
            }
            None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
        }
        builder.with_root_certificates(roots).with_no_client_auth()
    } else {
        // libpq's prefer and require encrypt but do not check who answers.
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider())))
            .with_no_client_auth()
    };
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

/// Accepts any server certificate (sslmode require/prefer); signatures are still checked, so
/// the session is encrypted to whoever holds the certificate's key.
#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_url_leaves_out_comes_from_libpq_variables_and_defaults() {
        let vars = |k: &str| match k {
            "PGHOST" => Some("db.internal".to_string()),
            "PGPASSWORD" => Some("pw".to_string()),
            "USER" => Some("ada".to_string()),
            _ => None,
        };
        let mut p = crate::conninfo::params("postgres:///cmem?port=6543").unwrap();
        libpq_defaults(&mut p, vars, |_| false);
        let get = |p: &[(String, String)], k: &str| {
            p.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone())
        };
        assert_eq!(get(&p, "host").as_deref(), Some("db.internal"));
        assert_eq!(get(&p, "port").as_deref(), Some("6543"));
        assert_eq!(get(&p, "user").as_deref(), Some("ada"));
        assert_eq!(get(&p, "password").as_deref(), Some("pw"));
        // The URL wins over the variables.
        let mut p = crate::conninfo::params("postgres://bob@there/cmem").unwrap();
        libpq_defaults(&mut p, vars, |_| false);
        assert_eq!(get(&p, "host").as_deref(), Some("there"));
        assert_eq!(get(&p, "user").as_deref(), Some("bob"));
        // No host anywhere: the socket directory that holds the server's socket.
        let mut p = crate::conninfo::params("dbname=cmem").unwrap();
        libpq_defaults(
            &mut p,
            |_| None,
            |path| path == Path::new("/var/run/postgresql/.s.PGSQL.5432"),
        );
        assert_eq!(get(&p, "host").as_deref(), Some("/var/run/postgresql"));
        let mut p = crate::conninfo::params("dbname=cmem").unwrap();
        libpq_defaults(&mut p, |_| None, |_| false);
        assert_eq!(get(&p, "host").as_deref(), Some("localhost"));
    }

    #[test]
    fn sslmode_and_rootcert_are_taken_out_of_urls_and_key_value_strings() {
        let t = parse("postgres://u:pw@db.example.com:6543/cmem?sslmode=verify-full&sslrootcert=%2Ftmp%2Fca.pem&application_name=x").unwrap();
        assert_eq!(t.ssl, Ssl::Verify);
        assert_eq!(t.root_cert, Some(PathBuf::from("/tmp/ca.pem")));
        assert_eq!(describe(&t.config), "db.example.com:6543/cmem");
        assert_eq!(t.config.get_connect_timeout(), Some(&CONNECT_TIMEOUT));
        let t = parse("host=/tmp port=5433 dbname=x sslmode=disable connect_timeout=2").unwrap();
        assert_eq!(t.ssl, Ssl::Disable);
        assert_eq!(
            t.config.get_connect_timeout(),
            Some(&Duration::from_secs(2))
        );
        assert!(parse("postgres://db/x?sslmode=sometimes").is_err());
    }

    #[test]
    fn pgpass_matches_wildcards_and_escapes() {
        let text = "# comment\nother:5432:*:u:no\ndb\\:1:*:cmem:u:pa\\:ss\n";
        assert_eq!(
            pgpass_lookup(text, ["db:1", "5432", "cmem", "u"]).as_deref(),
            Some("pa:ss")
        );
        assert_eq!(pgpass_lookup(text, ["db", "5432", "cmem", "u"]), None);
    }

    #[test]
    fn query_string_host_and_port_win_as_in_libpq() {
        let t = parse("postgresql://u@localhost/cmem?host=/sock&port=5499").unwrap();
        assert_eq!(t.config.get_hosts(), &[Host::Unix(PathBuf::from("/sock"))]);
        assert_eq!(t.config.get_ports(), &[5499]);
        assert_eq!(t.config.get_user(), Some("u"));
        assert_eq!(describe(&t.config), "/sock:5499/cmem");
        let t = parse("postgres:///cmem?host=%2Frun%2Fpg").unwrap();
        assert_eq!(
            t.config.get_hosts(),
            &[Host::Unix(PathBuf::from("/run/pg"))]
        );
    }

    #[test]
    fn several_hosts_each_with_its_port() {
        let t = parse("postgresql://h1,h2:5433/db").unwrap();
        assert_eq!(
            t.config.get_hosts(),
            &[Host::Tcp("h1".into()), Host::Tcp("h2".into())]
        );
        assert_eq!(t.config.get_ports(), &[5432, 5433]);
        assert_eq!(describe(&t.config), "h1:5432,h2:5433/db");
        let t = parse("host=h1,h2 port=5432,5433 dbname=db").unwrap();
        assert_eq!(describe(&t.config), "h1:5432,h2:5433/db");
        // One port serves every host.
        let t = parse("host=h1,/tmp port=6000 dbname=db").unwrap();
        assert_eq!(describe(&t.config), "h1:6000,/tmp:6000/db");
        let e = parse("host=h1,h2,h3 port=1,2 password=hunter2")
            .err()
            .unwrap();
        let e = format!("{e:#}");
        assert!(
            e.contains("3 host(s) and 2 ports") && !e.contains("hunter2"),
            "{e}"
        );
    }

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(redact("postgres://u:secret@h/db"), "postgres://u:***@h/db");
        assert_eq!(redact("host=h password=secret"), "host=h password=***");
        assert_eq!(
            redact("postgres://u@h/db?password=secret&sslmode=require"),
            "postgres://u@h/db?password=***&sslmode=require"
        );
        // Nor does an error about the setting show it.
        for bad in [
            "postgres://u:secret@h/db?sslmode=sometimes",
            "host=h password='secret port=1",
            "postgres://u@h:notaport/db?password=secret",
        ] {
            let e = format!("{:#}", parse(bad).err().unwrap());
            assert!(!e.contains("secret"), "{e}");
        }
        let t = parse("postgres://u@h/db?password=p%20w").unwrap();
        assert_eq!(t.config.get_password(), Some(&b"p w"[..]));
    }
}
