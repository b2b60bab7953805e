//! `cmem tui`: a terminal browser a human steps through, layer by layer.
//!
//! Threads (bottom's pattern, no async runtime): an input thread (crossterm events), a worker
//! thread that owns the database connection and answers requests, and a signal thread; they
//! all send one `Event` enum to the UI thread, which applies every queued event and then draws
//! once. Nothing here is reachable from `cmem hook`.

pub mod actions;
pub mod app;
pub mod change;
pub mod data;
pub mod filter;
pub mod harness;
pub mod header;
pub mod highlight;
pub mod keymap;
pub mod layer;
pub mod layers;
pub mod layout;
pub mod line_edit;
pub mod nav;
pub mod overlays;
pub mod pane;
pub mod preview;
pub mod render;
pub mod scope;
pub mod status;
pub mod svg;
pub mod theme;
pub mod ui;
pub mod widgets;
pub mod worker;
pub mod wrap;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::{Context, Result};
use crossterm::event::{self as ct, Event as CtEvent};
use crossterm::{execute, terminal};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use app::{App, Effect, Options};
use data::{Reply, Request};
use layers::Ctx;

/// What `cmem tui` and `cmem demo` pass in.
pub(crate) struct Launch {
    pub db: PathBuf,
    pub project: String,
    pub project_keys: Vec<String>,
    pub theme: String,
    pub settings: crate::config::Settings,
    pub config_file: PathBuf,
}

pub(crate) enum Event {
    Key(ct::KeyEvent, Instant),
    Mouse(ct::MouseEvent),
    Resize(u16, u16),
    Reply(u64, Reply),
    Terminate,
}

pub(crate) fn run(launch: Launch) -> Result<()> {
    let theme = theme::load_for_terminal(&launch.theme)?;
    let keymap = keymap::Keymap::with_overrides(&launch.settings.tui.keys)
        .with_context(|| format!("in the config file {}", launch.config_file.display()))?;
    let tz = crate::view::time::Tz::from_setting(&launch.settings.context.timezone)?;
    let now_ms = crate::clock::now_ms();
    let store = crate::store::Store::open(&launch.db)?;
    let data_dir = launch
        .db
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let ctx = Ctx {
        tz: tz.clone(),
        now_ms,
        context: launch.settings.context.clone(),
        meaning: crate::store::meaning::Meaning::when(
            launch.settings.search.semantic,
            data_dir.clone(),
        ),
        data_dir,
    };
    let trace = Trace::from_env();

    let (tx, rx) = mpsc::channel::<Event>();
    let (req_tx, req_rx) = mpsc::channel::<(u64, Request)>();
    spawn_worker(store, ctx, req_rx, tx.clone());
    spawn_signals(tx.clone())?;

    let mut term = TerminalGuard::enter()?;
    let size = term.terminal.size()?;
    let mut app = App::new(Options {
        theme,
        keymap,
        tz,
        now_ms,
        project: launch.project,
        project_keys: launch.project_keys,
        size: (size.width, size.height),
    });
    spawn_input(tx.clone());
    flush_outbox(&mut app, &req_tx);
    term.terminal.draw(|f| ui::draw(&app, f))?;
    let mut first_full = false;

    while let Ok(first) = rx.recv() {
        let mut key_times = Vec::new();
        let mut events = vec![first];
        // Apply everything that is queued, then draw once (render coalescing).
        while let Ok(e) = rx.try_recv() {
            events.push(e);
        }
        let mut quit = false;
        for e in events {
            match e {
                Event::Key(k, at) => {
                    if k.kind != ct::KeyEventKind::Release {
                        key_times.push(at);
                        app.handle_key(k);
                    }
                }
                Event::Mouse(m) => app.handle_mouse(m),
                Event::Resize(w, h) => app.handle_resize(w, h),
                Event::Reply(t, r) => app.handle_reply(t, r),
                // A signal during a delete or scrub waits for it; a second one does not.
                Event::Terminate if app.change_ticket.is_some() && !app.quit_after_change => {
                    app.quit()
                }
                Event::Terminate => quit = true,
            }
        }
        for effect in std::mem::take(&mut app.effects) {
            match effect {
                Effect::Quit => quit = true,
                Effect::Copy(text) => osc52(&text),
                Effect::Edit(path) => {
                    if let Err(e) = term.suspend(|| edit(&path)) {
                        app.status = Some((format!("{e:#}"), true));
                    }
                }
            }
        }
        if quit {
            break;
        }
        flush_outbox(&mut app, &req_tx);
        term.terminal.draw(|f| ui::draw(&app, f))?;
        if let Some(t) = &trace {
            if !first_full && !app.top().loading && !app.top().rows.is_empty() {
                first_full = true;
                t.write(&format!("first_full_frame_unix_us {}", unix_us()));
            }
            for at in key_times {
                t.write(&format!("key_to_frame_us {}", at.elapsed().as_micros()));
            }
        }
    }
    drop(term);
    Ok(())
}

fn flush_outbox(app: &mut App, req_tx: &mpsc::Sender<(u64, Request)>) {
    for r in app.outbox.drain(..) {
        let _ = req_tx.send(r);
    }
}

fn spawn_worker(
    mut store: crate::store::Store,
    ctx: Ctx,
    rx: mpsc::Receiver<(u64, Request)>,
    tx: mpsc::Sender<Event>,
) {
    std::thread::spawn(move || {
        while let Ok(first) = rx.recv() {
            let mut batch = vec![first];
            while let Ok(more) = rx.try_recv() {
                batch.push(more);
            }
            // While the user scrolls, only the newest preview is worth fetching.
            let last_preview = batch
                .iter()
                .rposition(|(_, r)| matches!(r, Request::Preview { .. }));
            for (i, (ticket, req)) in batch.into_iter().enumerate() {
                if matches!(req, Request::Preview { .. }) && last_preview != Some(i) {
                    continue;
                }
                let reply = worker::serve(&mut store, &ctx, &req);
                if tx.send(Event::Reply(ticket, reply)).is_err() {
                    return;
                }
            }
        }
    });
}

fn spawn_input(tx: mpsc::Sender<Event>) {
    std::thread::spawn(move || {
        loop {
            let e = match ct::read() {
                Ok(e) => e,
                Err(_) => {
                    let _ = tx.send(Event::Terminate);
                    return;
                }
            };
            let ev = match e {
                CtEvent::Key(k) => Event::Key(k, Instant::now()),
                CtEvent::Mouse(m) => Event::Mouse(m),
                CtEvent::Resize(w, h) => Event::Resize(w, h),
                _ => continue,
            };
            if tx.send(ev).is_err() {
                return;
            }
        }
    });
}

fn spawn_signals(tx: mpsc::Sender<Event>) -> Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP])
        .context("cannot install the signal handlers")?;
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            let _ = tx.send(Event::Terminate);
        }
    });
    Ok(())
}

/// Raw mode, the alternate screen and mouse capture, undone on drop, on panic (the panic hook
/// restores before the message prints) and on SIGTERM/SIGINT/SIGHUP (the loop ends, the guard
/// drops).
struct TerminalGuard {
    terminal: Terminal<CrosstermBackend<std::io::Stdout>>,
}

fn restore_terminal() {
    let _ = terminal::disable_raw_mode();
    let _ = execute!(
        std::io::stdout(),
        ct::DisableMouseCapture,
        terminal::LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

impl TerminalGuard {
    fn enter() -> Result<TerminalGuard> {
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore_terminal();
            hook(info);
        }));
        take_terminal()?;
        let terminal = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
        Ok(TerminalGuard { terminal })
    }

    /// Gives the terminal back for `f` (an editor), then takes it again.
    fn suspend(&mut self, f: impl FnOnce() -> Result<()>) -> Result<()> {
        restore_terminal();
        let result = f();
        take_terminal()?;
        self.terminal.clear()?;
        result
    }
}

/// Raw mode, the alternate screen, mouse reporting, no cursor: the undo of `restore_terminal`.
fn take_terminal() -> Result<()> {
    terminal::enable_raw_mode()
        .context("cannot switch the terminal to raw mode (is stdin a terminal?)")?;
    execute!(
        std::io::stdout(),
        terminal::EnterAlternateScreen,
        ct::EnableMouseCapture,
        crossterm::cursor::Hide
    )?;
    Ok(())
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

fn edit(path: &Path) -> Result<()> {
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".into());
    let mut parts = editor.split_whitespace();
    let program = parts.next().unwrap_or("vi");
    let status = std::process::Command::new(program)
        .args(parts)
        .arg(path)
        .status()
        .with_context(|| format!("cannot run the editor {editor:?} (set $EDITOR)"))?;
    anyhow::ensure!(status.success(), "{editor} exited with {status}");
    Ok(())
}

/// Copies through the terminal (OSC 52): works over SSH and in tmux (with `set-clipboard on`).
fn osc52(text: &str) {
    let mut out = std::io::stdout();
    let _ = write!(out, "\x1b]52;c;{}\x07", base64(text.as_bytes()));
    let _ = out.flush();
}

pub(crate) fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `CMEM_TUI_TRACE=<file>`: timestamps for `scripts/bench.py tui` (first full frame,
/// key-press-to-frame latencies). Off unless set.
struct Trace(std::sync::Mutex<std::fs::File>);

impl Trace {
    fn from_env() -> Option<Trace> {
        let path = std::env::var_os("CMEM_TUI_TRACE")?;
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .ok()?;
        Some(Trace(std::sync::Mutex::new(f)))
    }

    fn write(&self, line: &str) {
        if let Ok(mut f) = self.0.lock() {
            let _ = writeln!(f, "{line}");
        }
    }
}

fn unix_us() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_matches_rfc4648() {
        assert_eq!(super::base64(b""), "");
        assert_eq!(super::base64(b"f"), "Zg==");
        assert_eq!(super::base64(b"fo"), "Zm8=");
        assert_eq!(super::base64(b"foo"), "Zm9v");
        assert_eq!(super::base64(b"foobar"), "Zm9vYmFy");
    }
}
