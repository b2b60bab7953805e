//! A drawn frame as SVG (for `screenshots/`): one background rect per style run and one
//! `<text>` per run with a position per cell, so box drawing and wide glyphs stay on the grid.
//! `rsvg-convert` turns it into PNG.

use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

pub(crate) const CELL_W: f32 = 8.43;
pub(crate) const CELL_H: f32 = 17.0;
const FONT: &str = "'DejaVu Sans Mono', 'JetBrains Mono', monospace";

pub(crate) fn hex(c: Color, default: &str) -> String {
    match c {
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        Color::Reset => default.to_string(),
        Color::Black => "#000000".into(),
        Color::Red => "#cd3131".into(),
        Color::Green => "#0dbc79".into(),
        Color::Yellow => "#e5e510".into(),
        Color::Blue => "#2472c8".into(),
        Color::Magenta => "#bc3fbc".into(),
        Color::Cyan => "#11a8cd".into(),
        Color::Gray => "#cccccc".into(),
        Color::DarkGray => "#767676".into(),
        Color::LightRed => "#f14c4c".into(),
        Color::LightGreen => "#23d18b".into(),
        Color::LightYellow => "#f5f543".into(),
        Color::LightBlue => "#3b8eea".into(),
        Color::LightMagenta => "#d670d6".into(),
        Color::LightCyan => "#29b8db".into(),
        Color::White => "#ffffff".into(),
        Color::Indexed(i) => format!("#{0:02x}{0:02x}{0:02x}", i),
    }
}

fn escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Renders `buf`; `fg`/`bg` are the terminal's defaults for `Color::Reset`.
pub(crate) fn render(buf: &Buffer, fg: &str, bg: &str) -> String {
    let w = buf.area.width;
    let h = buf.area.height;
    let (pw, ph) = (w as f32 * CELL_W + 16.0, h as f32 * CELL_H + 16.0);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{pw:.0}" height="{ph:.0}" viewBox="0 0 {pw:.0} {ph:.0}">"#
    );
    let _ = writeln!(out, r#"<rect width="100%" height="100%" fill="{bg}"/>"#);
    let _ = writeln!(
        out,
        r#"<g font-family="{FONT}" font-size="14px" xml:space="preserve">"#
    );
    for y in 0..h {
        let ty = 8.0 + y as f32 * CELL_H;
        let mut x = 0;
        while x < w {
            let cell = &buf[(x, y)];
            let reversed = cell.modifier.contains(Modifier::REVERSED);
            let (cf, cb) = if reversed {
                (cell.bg, cell.fg)
            } else {
                (cell.fg, cell.bg)
            };
            let (cf, cb) = (
                hex(cf, if reversed { bg } else { fg }),
                hex(cb, if reversed { fg } else { bg }),
            );
            let mods = cell.modifier;
            let start = x;
            let mut text = String::new();
            let mut xs = Vec::new();
            while x < w {
                let c = &buf[(x, y)];
                let rev = c.modifier.contains(Modifier::REVERSED);
                let (f2, b2) = if rev { (c.bg, c.fg) } else { (c.fg, c.bg) };
                if hex(f2, if rev { bg } else { fg }) != cf
                    || hex(b2, if rev { fg } else { bg }) != cb
                    || c.modifier != mods
                {
                    break;
                }
                let sym = c.symbol();
                // Renderers place only a run's first glyph exactly; a glyph that may come
                // from a fallback font (wider or narrower) gets its own element.
                let ascii = sym.is_ascii();
                if !ascii && !text.is_empty() {
                    break;
                }
                text.push_str(&escape(if sym.is_empty() { " " } else { sym }));
                xs.push(format!("{:.1}", 8.0 + x as f32 * CELL_W));
                x += 1;
                if !ascii {
                    break;
                }
            }
            if cb != bg {
                let _ = writeln!(
                    out,
                    r#"<rect x="{:.1}" y="{ty:.1}" width="{:.1}" height="{CELL_H}" fill="{cb}"/>"#,
                    8.0 + start as f32 * CELL_W,
                    (x - start) as f32 * CELL_W + 0.5
                );
            }
            if !text.trim().is_empty() {
                let mut attrs = String::new();
                if mods.contains(Modifier::BOLD) {
                    attrs.push_str(r#" font-weight="bold""#);
                }
                if mods.contains(Modifier::ITALIC) {
                    attrs.push_str(r#" font-style="italic""#);
                }
                if mods.contains(Modifier::UNDERLINED) {
                    attrs.push_str(r#" text-decoration="underline""#);
                }
                if mods.contains(Modifier::DIM) {
                    attrs.push_str(r#" opacity="0.6""#);
                }
                let _ = writeln!(
                    out,
                    r#"<text x="{}" y="{:.1}" fill="{cf}"{attrs}>{text}</text>"#,
                    xs.first().map_or("0", String::as_str),
                    ty + 13.0
                );
            }
        }
    }
    out.push_str("</g>\n</svg>\n");
    out
}
