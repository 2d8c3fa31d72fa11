//! A frame of the terminal UI as an SVG picture: the cells of a `TestBackend`
//! buffer with their colours and modifiers, for the README's screenshots.

use std::fmt::Write;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

/// Width and height of one cell, in pixels (a 14 px monospace font).
const CELL_W: f64 = 8.4;
const CELL_H: f64 = 18.0;
/// The terminal's own colours, where a cell keeps the default.
const BACKGROUND: &str = "#2e3440";
const FOREGROUND: &str = "#d8dee9";

/// `color` as an SVG colour; `None` for the terminal's default.
fn css(color: Color) -> Option<String> {
    let named = |hex: &str| Some(hex.to_string());
    match color {
        Color::Reset => None,
        Color::Rgb(r, g, b) => Some(format!("#{r:02x}{g:02x}{b:02x}")),
        Color::Black => named("#3b4252"),
        Color::Red | Color::LightRed => named("#bf616a"),
        Color::Green | Color::LightGreen => named("#a3be8c"),
        Color::Yellow | Color::LightYellow => named("#ebcb8b"),
        Color::Blue | Color::LightBlue => named("#81a1c1"),
        Color::Magenta | Color::LightMagenta => named("#b48ead"),
        Color::Cyan | Color::LightCyan => named("#88c0d0"),
        Color::Gray | Color::White => named("#e5e9f0"),
        Color::DarkGray => named("#4c566a"),
        Color::Indexed(i) => named(&format!("#{i:02x}{i:02x}{i:02x}")),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// One cell's look: foreground, background, bold, dim, underlined.
#[derive(Clone, PartialEq)]
struct Look {
    fg: String,
    bg: Option<String>,
    bold: bool,
    dim: bool,
    underline: bool,
}

fn look(cell: &ratatui::buffer::Cell) -> Look {
    let (mut fg, mut bg) = (css(cell.fg), css(cell.bg));
    if cell.modifier.contains(Modifier::REVERSED) {
        let (f, b) = (fg.clone(), bg.clone());
        fg = Some(b.unwrap_or_else(|| BACKGROUND.into()));
        bg = Some(f.unwrap_or_else(|| FOREGROUND.into()));
    }
    Look {
        fg: fg.unwrap_or_else(|| FOREGROUND.into()),
        bg,
        bold: cell.modifier.contains(Modifier::BOLD),
        dim: cell.modifier.contains(Modifier::DIM),
        underline: cell.modifier.contains(Modifier::UNDERLINED),
    }
}

/// The buffer as a self-contained SVG document.
pub fn buffer_svg(buffer: &Buffer) -> String {
    let area = buffer.area;
    let (width, height) = (f64::from(area.width) * CELL_W, f64::from(area.height) * CELL_H);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.1} {height:.1}\" font-family=\"'DejaVu Sans Mono', Menlo, Consolas, monospace\" \
         font-size=\"14\">\n<rect width=\"100%\" height=\"100%\" fill=\"{BACKGROUND}\"/>\n"
    );
    for y in 0..area.height {
        // Runs of cells that look alike: one background rectangle and one text each.
        let mut x = 0;
        while x < area.width {
            let first = look(&buffer[(x, y)]);
            let mut text = String::new();
            let mut end = x;
            while end < area.width && look(&buffer[(end, y)]) == first {
                text.push_str(buffer[(end, y)].symbol());
                end += 1;
            }
            let (left, top, cells) = (f64::from(x) * CELL_W, f64::from(y) * CELL_H, f64::from(end - x));
            if let Some(bg) = &first.bg {
                let _ = writeln!(
                    svg,
                    "<rect x=\"{left:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{CELL_H}\" fill=\"{bg}\"/>",
                    cells * CELL_W
                );
            }
            if !text.trim().is_empty() {
                let mut attributes = format!("fill=\"{}\"", first.fg);
                if first.bold {
                    attributes.push_str(" font-weight=\"bold\"");
                }
                if first.dim {
                    attributes.push_str(" opacity=\"0.6\"");
                }
                if first.underline {
                    attributes.push_str(" text-decoration=\"underline\"");
                }
                // Each run is stretched to its cells, so a font's own widths never shift a column.
                let _ = writeln!(
                    svg,
                    "<text x=\"{left:.1}\" y=\"{:.1}\" textLength=\"{:.1}\" lengthAdjust=\"spacingAndGlyphs\" \
                     xml:space=\"preserve\" {attributes}>{}</text>",
                    top + CELL_H * 0.75,
                    cells * CELL_W,
                    escape(&text)
                );
            }
            x = end;
        }
    }
    svg.push_str("</svg>\n");
    svg
}
