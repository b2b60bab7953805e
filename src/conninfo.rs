//! A PostgreSQL server setting read the way libpq reads it: a `postgres://` URL or a
//! `key=value` string, as one list of keywords and values. `sync` connects with it; `redact`
//! shows it in messages, `cmem config`, `cmem sync status` and `cmem doctor` without its
//! password (that output gets pasted into bug reports).
//!
//! libpq's URL rules, which the client library alone does not follow: the query string's
//! `host`, `port` (and any other keyword) replace what the authority part said, so
//! `postgresql://me@localhost/cmem?host=/run/pg&port=5433` is the socket in `/run/pg` on port
//! 5433 and nothing else; hosts and ports are comma-separated lists (`h1,h2:5433`), an empty
//! port meaning the default.

/// The keywords and values of `setting`, in order, each keyword once (a later value replaces
/// an earlier one, as in libpq). Errors say what is malformed, never a value.
pub(crate) fn params(setting: &str) -> Result<Vec<(String, String)>, String> {
    let setting = setting.trim();
    let mut out: Vec<(String, String)> = Vec::new();
    let mut set = |key: &str, value: String| match out.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = value,
        None => out.push((key.to_string(), value)),
    };
    match url_rest(setting) {
        Some(rest) => {
            let url = split_url(rest, false);
            if let Some((user, password)) = url.credentials {
                if !user.is_empty() {
                    set("user", percent_decode(user));
                }
                if let Some(pw) = password {
                    set("password", percent_decode(pw));
                }
            }
            let (hosts, ports) = netloc(url.netloc)?;
            if hosts.iter().any(|h| !h.is_empty()) {
                set("host", hosts.join(","));
            }
            if ports.iter().any(|p| !p.is_empty()) {
                set("port", ports.join(","));
            }
            if let Some(db) = url.path.filter(|d| !d.is_empty()) {
                set("dbname", percent_decode(db));
            }
            for pair in url.query.unwrap_or_default().split('&') {
                if pair.is_empty() {
                    continue;
                }
                let Some((k, v)) = pair.split_once('=') else {
                    return Err(format!(
                        "the query parameter {:?} has no `=value`",
                        percent_decode(pair)
                    ));
                };
                set(&percent_decode(k), percent_decode(v));
            }
        }
        None => {
            for word in words(setting) {
                let word = word?;
                set(&word.key, word.value);
            }
        }
    }
    Ok(out)
}

/// Writes keywords and values as a `key=value` string any libpq-style parser reads back
/// (every value quoted, `'` and `\` escaped).
pub(crate) fn to_key_values(params: &[(String, String)]) -> String {
    params
        .iter()
        .map(|(k, v)| format!("{k}='{}'", v.replace('\\', "\\\\").replace('\'', "\\'")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a keyword holds a secret (`password`, and libpq's `sslpassword` for a client key).
fn secret(key: &str) -> bool {
    key.eq_ignore_ascii_case("password") || key.eq_ignore_ascii_case("sslpassword")
}

/// `setting` as written, with every password shown as `***`: `user:***@` and `password=***`
/// in a URL's query string or in a `key=value` string. It never fails: a malformed setting is
/// blanked from where a password may start rather than shown.
pub(crate) fn redact(setting: &str) -> String {
    let trimmed = setting.trim();
    match url_rest(trimmed) {
        Some(rest) => {
            let scheme = &trimmed[..trimmed.len() - rest.len()];
            let url = split_url(rest, true);
            let mut out = scheme.to_string();
            if let Some((user, password)) = url.credentials {
                out.push_str(user);
                if password.is_some() {
                    out.push_str(":***");
                }
                out.push('@');
            }
            out.push_str(url.netloc);
            if let Some(path) = url.path {
                out.push('/');
                out.push_str(path);
            }
            if let Some(query) = url.query {
                out.push('?');
                let pairs: Vec<String> = query
                    .split('&')
                    .map(|pair| match pair.split_once('=') {
                        Some((k, _)) if secret(&percent_decode(k)) => format!("{k}=***"),
                        _ => pair.to_string(),
                    })
                    .collect();
                out.push_str(&pairs.join("&"));
            }
            out
        }
        None => {
            let mut out = Vec::new();
            for word in words(trimmed) {
                match word {
                    Ok(w) if secret(&w.key) => out.push(format!("{}=***", w.key)),
                    Ok(w) => out.push(w.text.to_string()),
                    Err(_) => {
                        // What follows cannot be read: it may be a password.
                        out.push("…".to_string());
                        break;
                    }
                }
            }
            out.join(" ")
        }
    }
}

/// What follows `postgres://` or `postgresql://`; `None` for a `key=value` string.
fn url_rest(setting: &str) -> Option<&str> {
    setting
        .strip_prefix("postgresql://")
        .or_else(|| setting.strip_prefix("postgres://"))
}

/// A URL's parts as written (not decoded).
struct UrlParts<'a> {
    /// `user` and `password` when the URL has `user[:password]@`.
    credentials: Option<(&'a str, Option<&'a str>)>,
    netloc: &'a str,
    path: Option<&'a str>,
    query: Option<&'a str>,
}

/// Splits what follows the scheme. libpq takes the credentials up to the first `@` before any
/// `/`. `wide` (for redaction) takes them up to the last `@` before the query string when
/// there is one: a password holding an unescaped `/` or `@` (wrong, but typed) is then never
/// shown as a host or a path, at worst a path with an `@` is hidden too.
fn split_url(rest: &str, wide: bool) -> UrlParts<'_> {
    let libpq_at = rest
        .find(['@', '/'])
        .filter(|&i| rest.as_bytes()[i] == b'@');
    let before_query = &rest[..rest.find('?').unwrap_or(rest.len())];
    let at = if wide {
        before_query.rfind('@').or(libpq_at)
    } else {
        libpq_at
    };
    let (credentials, rest) = match at {
        Some(at) => {
            let creds = &rest[..at];
            let pair = match creds.split_once(':') {
                Some((user, password)) => (user, Some(password)),
                None => (creds, None),
            };
            (Some(pair), &rest[at + 1..])
        }
        None => (None, rest),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (rest, None),
    };
    let (netloc, path) = match rest.split_once('/') {
        Some((n, p)) => (n, Some(p)),
        None => (rest, None),
    };
    UrlParts {
        credentials,
        netloc,
        path,
        query,
    }
}

/// The hosts and ports of a URL's `host[:port],…` part, decoded; `[…]` encloses an IPv6
/// address.
fn netloc(text: &str) -> Result<(Vec<String>, Vec<String>), String> {
    let mut hosts = Vec::new();
    let mut ports = Vec::new();
    if text.is_empty() {
        return Ok((hosts, ports));
    }
    for chunk in text.split(',') {
        let (host, port) = match chunk.strip_prefix('[') {
            Some(v6) => {
                let (addr, after) = v6
                    .split_once(']')
                    .ok_or("an IPv6 host address in the URL lacks its closing `]`")?;
                let port = match after {
                    "" => "",
                    p => p
                        .strip_prefix(':')
                        .ok_or("after an IPv6 host address in the URL only `:port` may follow")?,
                };
                (addr, port)
            }
            None => chunk.split_once(':').unwrap_or((chunk, "")),
        };
        hosts.push(percent_decode(host));
        ports.push(percent_decode(port));
    }
    Ok((hosts, ports))
}

/// One `key=value` of a libpq keyword string: the keyword, the value unquoted and unescaped,
/// and the text as written.
struct Word<'a> {
    key: String,
    value: String,
    text: &'a str,
}

/// The `key = value` words of a libpq keyword string: spaces around `=` allowed, a value
/// either `'quoted'` or bare up to the next space, `\` escaping the next character in both.
fn words(s: &str) -> impl Iterator<Item = Result<Word<'_>, String>> {
    let mut at = 0;
    let mut failed = false;
    std::iter::from_fn(move || {
        if failed {
            return None;
        }
        let word = next_word(s, &mut at)?;
        failed = word.is_err();
        Some(word)
    })
}

fn next_word<'a>(s: &'a str, at: &mut usize) -> Option<Result<Word<'a>, String>> {
    let skip_ws = |i: usize| {
        i + s[i..]
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(s.len() - i)
    };
    let start = skip_ws(*at);
    if start >= s.len() {
        return None;
    }
    let key_end = start
        + s[start..]
            .find(|c: char| c.is_whitespace() || c == '=')
            .unwrap_or(s.len() - start);
    let key = &s[start..key_end];
    let eq = skip_ws(key_end);
    if !s[eq..].starts_with('=') {
        *at = s.len();
        return Some(Err(format!("{key:?} is not followed by `=value`")));
    }
    let mut i = skip_ws(eq + 1);
    let mut value = String::new();
    let mut chars = s[i..].char_indices();
    let quoted = s[i..].starts_with('\'');
    if quoted {
        chars.next();
    }
    let mut closed = !quoted;
    let mut end = s.len();
    while let Some((k, c)) = chars.next() {
        match c {
            '\\' => value.extend(chars.next().map(|(_, c)| c)),
            '\'' if quoted => {
                closed = true;
                end = i + k + 1;
                break;
            }
            c if c.is_whitespace() && !quoted => {
                end = i + k;
                break;
            }
            c => value.push(c),
        }
    }
    if !closed {
        *at = s.len();
        return Some(Err(format!("the value of {key:?} has no closing quote")));
    }
    if !quoted && value.is_empty() && end == i {
        *at = s.len();
        return Some(Err(format!(
            "{key:?} has no value (write {key}='' for none)"
        )));
    }
    i = end;
    *at = i;
    Some(Ok(Word {
        key: key.to_string(),
        value,
        text: &s[start..end],
    }))
}

/// `%XX` escapes decoded (invalid ones kept as written, invalid UTF-8 replaced).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(b) = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<'a>(p: &'a [(String, String)], key: &str) -> Option<&'a str> {
        p.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    #[test]
    fn the_query_string_replaces_the_authority() {
        let p = params("postgresql://u@localhost/cmem?host=/sock&port=5499").unwrap();
        assert_eq!(get(&p, "host"), Some("/sock"));
        assert_eq!(get(&p, "port"), Some("5499"));
        assert_eq!(get(&p, "user"), Some("u"));
        assert_eq!(get(&p, "dbname"), Some("cmem"));
        // Only what the query names is replaced.
        let p = params("postgres://localhost:6000/x?host=%2Frun%2Fpg").unwrap();
        assert_eq!(get(&p, "host"), Some("/run/pg"));
        assert_eq!(get(&p, "port"), Some("6000"));
    }

    #[test]
    fn several_hosts_and_ports() {
        let p = params("postgresql://h1,h2:5433/db").unwrap();
        assert_eq!(get(&p, "host"), Some("h1,h2"));
        assert_eq!(get(&p, "port"), Some(",5433"));
        let p = params("postgres://[::1]:5433,db.example.com/x").unwrap();
        assert_eq!(get(&p, "host"), Some("::1,db.example.com"));
        assert_eq!(get(&p, "port"), Some("5433,"));
        let p = params("host=h1,h2 port=5432,5433 dbname=x").unwrap();
        assert_eq!(get(&p, "host"), Some("h1,h2"));
        assert_eq!(get(&p, "port"), Some("5432,5433"));
        assert!(params("postgres://[::1/x").is_err());
    }

    #[test]
    fn credentials_are_decoded_and_values_unquoted() {
        let p = params("postgres://me%40corp:p%2Fw%40rd@h/d%20b").unwrap();
        assert_eq!(get(&p, "user"), Some("me@corp"));
        assert_eq!(get(&p, "password"), Some("p/w@rd"));
        assert_eq!(get(&p, "dbname"), Some("d b"));
        // As libpq: an `@` after the first `/` belongs to the database name.
        let p = params("postgres://h:5432/db@x").unwrap();
        assert_eq!(get(&p, "dbname"), Some("db@x"));
        assert_eq!(get(&p, "password"), None);
        let p = params(r"host = h  user=a\ b").unwrap();
        assert_eq!(get(&p, "host"), Some("h"));
        assert_eq!(get(&p, "user"), Some("a b"));
        assert!(params("password='open").is_err());
        assert!(params("host").is_err());
        let p = params(r"password='p w\'x' host=h").unwrap();
        assert_eq!(get(&p, "password"), Some("p w'x"));
        assert_eq!(get(&p, "host"), Some("h"));
    }

    #[test]
    fn key_values_round_trip() {
        let p = params(r"password='p w\'x\\' host=/tmp application_name=a=b").unwrap();
        assert_eq!(params(&to_key_values(&p)).unwrap(), p);
    }

    #[test]
    fn passwords_are_redacted_and_the_rest_shown() {
        for (setting, shown) in [
            ("postgres://u:hunter2@h/db", "postgres://u:***@h/db"),
            (
                "postgresql://u@h:5433/db?sslmode=require&password=hunter2&application_name=x",
                "postgresql://u@h:5433/db?sslmode=require&password=***&application_name=x",
            ),
            (
                "postgres://h/db?pass%77ord=hunter2",
                "postgres://h/db?pass%77ord=***",
            ),
            ("postgres://u:hun@ter/2@h/db", "postgres://u:***@h/db"),
            ("postgres://u:hun?ter2@h/db", "postgres://u:***@h/db"),
            (
                "postgres://u:hunter2@h/db?x=a@b",
                "postgres://u:***@h/db?x=a@b",
            ),
            (
                "host=h password=hunter2 dbname=x",
                "host=h password=*** dbname=x",
            ),
            (
                "host=h password = 'hunter2 x' dbname=x",
                "host=h password=*** dbname=x",
            ),
            ("host=h sslpassword=hunter2", "host=h sslpassword=***"),
            ("host=h password='hunter2", "host=h …"),
        ] {
            let r = redact(setting);
            assert_eq!(r, shown, "{setting}");
            assert!(!r.contains("hunter2") && !r.contains("ter2"), "{r}");
        }
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
    }
}
