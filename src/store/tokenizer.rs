//! `cmem`, the FTS5 tokenizer of cmem's full-text tables: the tokenizer chain named after it
//! (`tokenize = 'cmem porter unicode61 remove_diacritics 2'`) splits, folds and stems words as
//! before, and every token that holds Chinese, Japanese or Korean characters is cut where the
//! script changes: its CJK runs become overlapping bigrams (`cjk.rs`), the rest goes through the
//! chain again on its own (`tokens做` indexes `token`). In documents each CJK character is also
//! indexed at its bigram's position, so a query of one character finds it; a query asks for the
//! bigrams only, adjacent, so `连接池` matches only where those characters stand together.
//!
//! Every connection that writes or searches the tables registers it (`Store` does, when it opens
//! one): a plain `sqlite3` shell can read every table but not write the indexed ones.

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use anyhow::{Result, bail};
use rusqlite::Connection;
use rusqlite::ffi;

use super::cjk;

/// Registers `cmem` on `conn` (once per connection: FTS5 keeps every registration).
pub(crate) fn register(conn: &Connection) -> Result<()> {
    let api = super::fts5::api(conn)?;
    // SAFETY: `api` is the live FTS5 API of `conn`; FTS5 copies the tokenizer's function table,
    // and the context it keeps (`api`) lives as long as the connection.
    unsafe {
        let Some(create) = (*api).xCreateTokenizer else {
            bail!("this SQLite's FTS5 cannot register tokenizers");
        };
        let mut table = ffi::fts5_tokenizer {
            xCreate: Some(x_create),
            xDelete: Some(x_delete),
            xTokenize: Some(x_tokenize),
        };
        let rc = create(
            api,
            c"cmem".as_ptr(),
            api.cast::<c_void>(),
            &mut table,
            None,
        );
        if rc != ffi::SQLITE_OK {
            bail!("cannot register the cmem tokenizer (code {rc})");
        }
    }
    Ok(())
}

type XToken = unsafe extern "C" fn(
    ctx: *mut c_void,
    tflags: c_int,
    token: *const c_char,
    n_token: c_int,
    start: c_int,
    end: c_int,
) -> c_int;

/// An instance: the wrapped chain, twice (the second re-tokenizes the non-CJK part of a mixed
/// token while the first is still inside its own loop, which must not be re-entered).
struct Wrapper {
    chain: ffi::fts5_tokenizer,
    outer: *mut ffi::Fts5Tokenizer,
    pieces: *mut ffi::Fts5Tokenizer,
}

/// Creates an instance: the first argument names the wrapped tokenizer, the rest are its own.
unsafe extern "C" fn x_create(
    ctx: *mut c_void,
    args: *mut *const c_char,
    n_args: c_int,
    out: *mut *mut ffi::Fts5Tokenizer,
) -> c_int {
    let api = ctx.cast::<ffi::fts5_api>();
    // SAFETY: FTS5 passes the context given at registration (the API) and `n_args` arguments.
    unsafe {
        let (name, rest, n_rest) = if n_args > 0 && !args.is_null() {
            (*args, args.add(1), n_args - 1)
        } else {
            (c"unicode61".as_ptr(), ptr::null_mut(), 0)
        };
        let Some(find) = (*api).xFindTokenizer else {
            return ffi::SQLITE_ERROR;
        };
        let mut user: *mut c_void = ptr::null_mut();
        let mut chain = ffi::fts5_tokenizer {
            xCreate: None,
            xDelete: None,
            xTokenize: None,
        };
        let rc = find(api, name, &mut user, &mut chain);
        if rc != ffi::SQLITE_OK {
            return rc;
        }
        let (Some(create), Some(_)) = (chain.xCreate, chain.xTokenize) else {
            return ffi::SQLITE_ERROR;
        };
        let mut outer: *mut ffi::Fts5Tokenizer = ptr::null_mut();
        let rc = create(user, rest, n_rest, &mut outer);
        if rc != ffi::SQLITE_OK {
            return rc;
        }
        let mut pieces: *mut ffi::Fts5Tokenizer = ptr::null_mut();
        let rc = create(user, rest, n_rest, &mut pieces);
        if rc != ffi::SQLITE_OK {
            if let Some(delete) = chain.xDelete {
                delete(outer);
            }
            return rc;
        }
        let wrapper = Box::new(Wrapper {
            chain,
            outer,
            pieces,
        });
        *out = Box::into_raw(wrapper).cast::<ffi::Fts5Tokenizer>();
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_delete(tokenizer: *mut ffi::Fts5Tokenizer) {
    if tokenizer.is_null() {
        return;
    }
    // SAFETY: `tokenizer` is a `Wrapper` `x_create` boxed, deleted once by FTS5.
    unsafe {
        let wrapper = Box::from_raw(tokenizer.cast::<Wrapper>());
        if let Some(delete) = wrapper.chain.xDelete {
            delete(wrapper.outer);
            delete(wrapper.pieces);
        }
    }
}

/// What the outer loop's tokens are handed on to.
struct Forward {
    ctx: *mut c_void,
    x_token: XToken,
    query: bool,
    flags: c_int,
    wrapper: *const Wrapper,
}

unsafe extern "C" fn x_tokenize(
    tokenizer: *mut ffi::Fts5Tokenizer,
    ctx: *mut c_void,
    flags: c_int,
    text: *const c_char,
    n_text: c_int,
    x_token: Option<XToken>,
) -> c_int {
    // SAFETY: `tokenizer` is a live `Wrapper`; `forward` outlives the call that uses it.
    unsafe {
        let wrapper = tokenizer.cast::<Wrapper>();
        let (Some(tokenize), Some(x_token)) = ((*wrapper).chain.xTokenize, x_token) else {
            return ffi::SQLITE_ERROR;
        };
        let mut forward = Forward {
            ctx,
            x_token,
            query: flags & ffi::FTS5_TOKENIZE_QUERY != 0,
            flags,
            wrapper,
        };
        tokenize(
            (*wrapper).outer,
            (&mut forward as *mut Forward).cast::<c_void>(),
            flags,
            text,
            n_text,
            Some(on_token),
        )
    }
}

/// A token of the wrapped chain: passed on as it is, or cut if it holds CJK characters.
unsafe extern "C" fn on_token(
    ctx: *mut c_void,
    tflags: c_int,
    token: *const c_char,
    n_token: c_int,
    start: c_int,
    end: c_int,
) -> c_int {
    // SAFETY: `ctx` is the `Forward` of `x_tokenize`; `token` holds `n_token` bytes.
    unsafe {
        let f = &*ctx.cast::<Forward>();
        let bytes = std::slice::from_raw_parts(token.cast::<u8>(), n_token.max(0) as usize);
        if bytes.is_ascii() {
            return (f.x_token)(f.ctx, tflags, token, n_token, start, end);
        }
        // Owned: the chain's buffer behind `token` may be reused by the calls below.
        let Ok(text) = std::str::from_utf8(bytes).map(str::to_string) else {
            return (f.x_token)(f.ctx, tflags, token, n_token, start, end);
        };
        if !text.chars().any(cjk::is_cjk) {
            return (f.x_token)(f.ctx, tflags, token, n_token, start, end);
        }
        cut(f, &text, tflags, (start, end))
    }
}

/// Where a piece of a token stands in the document: exact where the token is the text as
/// written (same length), else the whole token's span.
fn span(
    token: &str,
    (start, end): (c_int, c_int),
    piece: &std::ops::Range<usize>,
) -> (c_int, c_int) {
    if (end - start) as usize == token.len() {
        (start + piece.start as c_int, start + piece.end as c_int)
    } else {
        (start, end)
    }
}

/// Emits a token holding CJK characters as its pieces.
///
/// # Safety
/// `f` must be the live `Forward` of the current tokenize call.
unsafe fn cut(f: &Forward, token: &str, tflags: c_int, at: (c_int, c_int)) -> c_int {
    let mut flags_next = tflags;
    for (is_cjk, run) in cjk::runs(token) {
        let Some(piece) = token.get(run.clone()) else {
            continue;
        };
        let rc = if is_cjk {
            // SAFETY: as for this function.
            unsafe { cjk_run(f, piece, run.start, token, flags_next, at) }
        } else {
            // SAFETY: as for this function.
            unsafe { rest(f, piece, run.start, token, at) }
        };
        if rc != ffi::SQLITE_OK {
            return rc;
        }
        flags_next = 0;
    }
    ffi::SQLITE_OK
}

/// The bigrams of a CJK run (and, in documents, each character at its bigram's position).
///
/// # Safety
/// `f` must be the live `Forward` of the current tokenize call.
unsafe fn cjk_run(
    f: &Forward,
    run: &str,
    offset: usize,
    token: &str,
    first_flags: c_int,
    at: (c_int, c_int),
) -> c_int {
    let emit = |text: &str, flags: c_int, range: std::ops::Range<usize>| -> c_int {
        let (s, e) = span(token, at, &(offset + range.start..offset + range.end));
        // SAFETY: `text` lives across the call; FTS5 copies what it keeps.
        unsafe {
            (f.x_token)(
                f.ctx,
                flags,
                text.as_ptr().cast::<c_char>(),
                text.len() as c_int,
                s,
                e,
            )
        }
    };
    let chars: Vec<std::ops::Range<usize>> = run
        .char_indices()
        .map(|(i, c)| i..i + c.len_utf8())
        .collect();
    let grams = cjk::bigrams(run);
    let last = grams.len().saturating_sub(1);
    for (k, gram) in grams.iter().enumerate() {
        let flags = if k == 0 { first_flags } else { 0 };
        let Some(text) = run.get(gram.clone()) else {
            continue;
        };
        let rc = emit(text, flags, gram.clone());
        if rc != ffi::SQLITE_OK {
            return rc;
        }
        if f.query || chars.len() < 2 {
            continue;
        }
        let mut singles = vec![k];
        if k == last {
            singles.push(k + 1);
        }
        for i in singles {
            let Some(range) = chars.get(i) else { continue };
            let Some(text) = run.get(range.clone()) else {
                continue;
            };
            let rc = emit(text, ffi::FTS5_TOKEN_COLOCATED, range.clone());
            if rc != ffi::SQLITE_OK {
                return rc;
            }
        }
    }
    ffi::SQLITE_OK
}

/// What a non-CJK piece of a mixed token passes on to.
struct Piece<'a> {
    forward: &'a Forward,
    token: &'a str,
    offset: usize,
    at: (c_int, c_int),
}

/// A non-CJK piece of a mixed token, through the chain again (`tokens` in `tokens做` → `token`).
///
/// # Safety
/// `f` must be the live `Forward` of the current tokenize call.
unsafe fn rest(f: &Forward, piece: &str, offset: usize, token: &str, at: (c_int, c_int)) -> c_int {
    let mut ctx = Piece {
        forward: f,
        token,
        offset,
        at,
    };
    // SAFETY: `wrapper` is live for the tokenize call; `pieces` is its second instance, not
    // inside a loop of its own; `ctx` outlives the call.
    unsafe {
        let wrapper = &*f.wrapper;
        let Some(tokenize) = wrapper.chain.xTokenize else {
            return ffi::SQLITE_ERROR;
        };
        tokenize(
            wrapper.pieces,
            (&mut ctx as *mut Piece).cast::<c_void>(),
            f.flags,
            piece.as_ptr().cast::<c_char>(),
            piece.len() as c_int,
            Some(on_piece_token),
        )
    }
}

unsafe extern "C" fn on_piece_token(
    ctx: *mut c_void,
    tflags: c_int,
    token: *const c_char,
    n_token: c_int,
    start: c_int,
    end: c_int,
) -> c_int {
    // SAFETY: `ctx` is the `Piece` of `rest`.
    unsafe {
        let p = &*ctx.cast::<Piece>();
        let range = p.offset + start.max(0) as usize..p.offset + end.max(0) as usize;
        let (s, e) = span(p.token, p.at, &range);
        (p.forward.x_token)(p.forward.ctx, tflags, token, n_token, s, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        conn.execute_batch(
            "CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'cmem porter unicode61 remove_diacritics 2');
             CREATE VIRTUAL TABLE v USING fts5vocab(t, instance);",
        )
        .unwrap();
        conn
    }

    fn matches(conn: &Connection, query: &str) -> Vec<i64> {
        let mut stmt = conn
            .prepare("SELECT rowid FROM t WHERE t MATCH ?1 ORDER BY rowid")
            .unwrap();
        stmt.query_map([query], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    fn add(conn: &Connection, id: i64, body: &str) {
        conn.execute("INSERT INTO t (rowid, body) VALUES (?1, ?2)", (id, body))
            .unwrap();
    }

    #[test]
    fn words_inside_unspaced_chinese_are_found() {
        let c = db();
        add(&c, 1, "高峰期下单接口经常 502，日志里是连接池耗尽。");
        add(&c, 2, "选用 pgvector做向量搜索");
        add(&c, 3, "修复连接池泄漏导致的 5xx");
        add(&c, 4, "给下单接口加了幂等键");
        assert_eq!(matches(&c, "\"耗尽\""), vec![1]);
        assert_eq!(matches(&c, "\"连接池\""), vec![1, 3]);
        assert_eq!(matches(&c, "\"向量搜索\""), vec![2]);
        assert_eq!(matches(&c, "\"pgvector\""), vec![2]);
        assert_eq!(matches(&c, "\"幂等\""), vec![4]);
        assert_eq!(matches(&c, "\"泄\""), vec![3]);
        // Adjacent only: these characters occur, but not side by side.
        assert!(matches(&c, "\"池漏\"").is_empty());
    }

    #[test]
    fn latin_words_are_folded_and_stemmed_as_before_also_next_to_cjk() {
        let c = db();
        add(&c, 1, "Refreshing tokens做缓存");
        add(&c, 2, "Café menus");
        assert_eq!(matches(&c, "\"token\""), vec![1]);
        assert_eq!(matches(&c, "\"refresh\""), vec![1]);
        assert_eq!(matches(&c, "\"cafe\""), vec![2]);
        assert_eq!(matches(&c, "\"缓存\""), vec![1]);
    }

    #[test]
    fn japanese_and_korean_runs_are_cut_too() {
        let c = db();
        add(&c, 1, "接続プールが枯渇した");
        add(&c, 2, "데이터베이스연결풀");
        assert_eq!(matches(&c, "\"プール\""), vec![1]);
        assert_eq!(matches(&c, "\"연결\""), vec![2]);
    }

    #[test]
    fn documents_index_bigrams_and_their_characters_at_one_position() {
        let c = db();
        add(&c, 1, "连接池");
        let mut stmt = c
            .prepare("SELECT term, offset FROM v ORDER BY offset, term")
            .unwrap();
        let got: Vec<(String, i64)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(
            got,
            vec![
                ("连".into(), 0),
                ("连接".into(), 0),
                ("接".into(), 1),
                ("接池".into(), 1),
                ("池".into(), 1),
            ]
        );
    }

    #[test]
    fn deleting_a_row_removes_exactly_its_tokens() {
        let c = db();
        c.execute_batch(
            "CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT);
             CREATE VIRTUAL TABLE e USING fts5(body, content = 'docs', content_rowid = 'id', tokenize = 'cmem porter unicode61 remove_diacritics 2');
             INSERT INTO docs VALUES (1, '日志里是连接池耗尽 tokens做');
             INSERT INTO e (rowid, body) SELECT id, body FROM docs;
             INSERT INTO e (e, rowid, body) VALUES ('delete', 1, '日志里是连接池耗尽 tokens做');
             INSERT INTO e (e) VALUES ('integrity-check');",
        )
        .unwrap();
        let n: i64 = c
            .query_row(
                "SELECT count(*) FROM e WHERE e MATCH '\"连接\"'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 0);
    }
}
