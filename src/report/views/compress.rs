//! Question bodies of a large report, kept compressed in the page: a chunk
//! of [`CHUNK`] bodies in a row as a JSON list of their HTML, gzip-compressed
//! and in base64 (which holds no `<`, so no text can end its script element
//! early). `templates/sections.js` opens a chunk with the browser's
//! `DecompressionStream` when one of its questions is first opened.

use std::io::Write;

use base64::Engine;
use flate2::{Compression, write::GzEncoder};

/// Question bodies per chunk.
pub const CHUNK: usize = 32;

/// `bodies` as one chunk: a JSON list, gzip-compressed, in base64.
pub fn chunk(bodies: impl Iterator<Item = String>) -> std::io::Result<String> {
    let list: Vec<String> = bodies.collect();
    let json = serde_json::to_vec(&list)?;
    let mut gzip = GzEncoder::new(Vec::with_capacity(json.len() / 4), Compression::fast());
    gzip.write_all(&json)?;
    let compressed = gzip.finish()?;
    Ok(base64::engine::general_purpose::STANDARD.encode(compressed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn a_chunk_opens_to_its_bodies_in_order() {
        let bodies = ["<div class=\"body\">one</div>".to_string(), "</script><!-- two".to_string()];
        let packed = chunk(bodies.clone().into_iter()).unwrap();
        assert!(packed.bytes().all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b)), "{packed}");
        let gzip = base64::engine::general_purpose::STANDARD.decode(&packed).unwrap();
        let mut json = String::new();
        flate2::read::GzDecoder::new(&gzip[..]).read_to_string(&mut json).unwrap();
        assert_eq!(serde_json::from_str::<Vec<String>>(&json).unwrap(), bodies);
    }
}
