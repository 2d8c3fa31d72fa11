//! How a CSV file is written: its character encoding (a byte-order mark,
//! UTF-8, a detected legacy encoding or the one `--encoding` names) and its
//! delimiter (comma, semicolon, tab or pipe, sniffed from the first records).

use std::io::{BufReader, Read};
use std::path::Path;

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{DecoderResult, Encoding, UTF_8, UTF_16BE, UTF_16LE};
use encoding_rs_io::DecodeReaderBytesBuilder;

/// Delimiters sniffed, in order of preference when several fit.
pub const DELIMITERS: [u8; 4] = [b',', b';', b'\t', b'|'];
/// Decoded bytes read to sniff the delimiter.
const SNIFF_BYTES: usize = 64 * 1024;
/// Records compared when sniffing.
const SNIFF_RECORDS: usize = 100;
const CHUNK: usize = 64 * 1024;

/// Why the encoding or layout of a file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// Reading failed.
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    /// `--encoding` named no encoding.
    #[error("unknown encoding {0:?} for --encoding (try utf-8, latin1, windows-1252, utf-16le)")]
    UnknownEncoding(String),
    /// Not UTF-8, and no legacy encoding reads it cleanly.
    #[error("cannot tell the file's encoding (it is not UTF-8); name it with --encoding, e.g. --encoding latin1")]
    Undecidable,
}

/// How to turn the file's bytes into UTF-8 text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoded {
    /// UTF-8 already; skip this many bytes (a byte-order mark).
    Utf8 {
        /// Bytes of the byte-order mark.
        skip: usize,
    },
    /// Decode from this encoding (a byte-order mark is dropped).
    Decoded(&'static Encoding),
}

impl Encoded {
    /// The encoding's name, as `--encoding` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Utf8 { .. } => UTF_8.name(),
            Self::Decoded(e) => e.name(),
        }
    }
}

/// The encoding and delimiter of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Its encoding.
    pub encoded: Encoded,
    /// Its delimiter.
    pub delimiter: u8,
}

/// The file's text as UTF-8.
pub fn text_reader(path: &Path, encoded: Encoded) -> std::io::Result<Box<dyn Read>> {
    let mut file = std::fs::File::open(path)?;
    Ok(match encoded {
        Encoded::Utf8 { skip } => {
            std::io::copy(&mut (&mut file).take(skip as u64), &mut std::io::sink())?;
            Box::new(file)
        }
        Encoded::Decoded(encoding) => {
            Box::new(DecodeReaderBytesBuilder::new().encoding(Some(encoding)).strip_bom(true).build(file))
        }
    })
}

/// The file's encoding: `label` if given, else its byte-order mark, else
/// UTF-8 if every byte is, else the legacy encoding chardetng guesses, if it
/// decodes the whole file without errors or control characters.
pub fn encoding(path: &Path, label: Option<&str>) -> Result<Encoded, SourceError> {
    let mut start = [0u8; 3];
    let mut file = std::fs::File::open(path)?;
    let n = read_full(&mut file, &mut start)?;
    let found_bom = Encoding::for_bom(&start[..n]);
    if let Some(label) = label {
        let encoding =
            Encoding::for_label(label.trim().as_bytes()).ok_or_else(|| SourceError::UnknownEncoding(label.into()))?;
        return Ok(match found_bom {
            Some((e, skip)) if e == UTF_8 && encoding == UTF_8 => Encoded::Utf8 { skip },
            _ if encoding == UTF_8 => Encoded::Utf8 { skip: 0 },
            _ => Encoded::Decoded(encoding),
        });
    }
    match found_bom {
        Some((e, skip)) if e == UTF_8 => return Ok(Encoded::Utf8 { skip }),
        Some((e, _)) if e == UTF_16LE || e == UTF_16BE => return Ok(Encoded::Decoded(e)),
        _ => {}
    }
    if is_clean_utf8(path)? {
        return Ok(Encoded::Utf8 { skip: 0 });
    }
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    let mut reader = BufReader::with_capacity(CHUNK, std::fs::File::open(path)?);
    let mut buffer = vec![0u8; CHUNK];
    loop {
        let n = reader.read(&mut buffer)?;
        detector.feed(&buffer[..n], n == 0);
        if n == 0 {
            break;
        }
    }
    let guess = detector.guess(None, Utf8Detection::Deny);
    if decodes_cleanly(path, guess)? { Ok(Encoded::Decoded(guess)) } else { Err(SourceError::Undecidable) }
}

fn read_full(reader: &mut impl Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// Whether a character rules a guessed legacy encoding out: binary data
/// decodes into control characters.
fn is_suspect(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// Whether the whole file is UTF-8 without NUL characters (streamed in
/// chunks, a split character carried over to the next one).
fn is_clean_utf8(path: &Path) -> std::io::Result<bool> {
    let mut reader = std::fs::File::open(path)?;
    let mut buffer = vec![0u8; CHUNK + 4];
    let mut carried = 0;
    loop {
        let n = reader.read(&mut buffer[carried..CHUNK + carried])?;
        let filled = carried + n;
        if buffer[carried..filled].contains(&0) {
            return Ok(false);
        }
        let valid = Encoding::utf8_valid_up_to(&buffer[..filled]);
        carried = filled - valid;
        if n == 0 || carried > 3 {
            return Ok(carried == 0);
        }
        buffer.copy_within(valid..filled, 0);
    }
}

/// Whether `encoding` decodes the whole file without errors or control characters.
fn decodes_cleanly(path: &Path, encoding: &'static Encoding) -> std::io::Result<bool> {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut reader = BufReader::with_capacity(CHUNK, std::fs::File::open(path)?);
    let mut buffer = vec![0u8; CHUNK];
    let mut out = String::with_capacity(CHUNK * 3 + 16);
    loop {
        let n = reader.read(&mut buffer)?;
        let last = n == 0;
        let mut input = &buffer[..n];
        loop {
            out.clear();
            let (result, read) = decoder.decode_to_string_without_replacement(input, &mut out, last);
            if out.chars().any(is_suspect) {
                return Ok(false);
            }
            input = &input[read..];
            match result {
                DecoderResult::InputEmpty => break,
                DecoderResult::OutputFull => {}
                DecoderResult::Malformed(..) => return Ok(false),
            }
        }
        if last {
            return Ok(true);
        }
    }
}

/// The delimiter that splits the first records (but shorter ones at the
/// start, a title) into the same number (more than one) of fields, the most fields first, then in [`DELIMITERS`] order;
/// a comma when none does.
pub fn delimiter(path: &Path, encoded: Encoded) -> std::io::Result<u8> {
    let mut prefix = Vec::with_capacity(SNIFF_BYTES);
    text_reader(path, encoded)?.take(SNIFF_BYTES as u64 + 1).read_to_end(&mut prefix)?;
    let truncated = prefix.len() > SNIFF_BYTES;
    prefix.truncate(SNIFF_BYTES);
    let mut best: Option<(usize, u8)> = None;
    for delimiter in DELIMITERS {
        let mut reader =
            csv::ReaderBuilder::new().delimiter(delimiter).has_headers(false).flexible(true).from_reader(&prefix[..]);
        let mut counts: Vec<usize> =
            reader.byte_records().take(SNIFF_RECORDS + 1).map_while(Result::ok).map(|r| r.len()).collect();
        if truncated && counts.len() > 1 {
            counts.pop();
        }
        // A title above the header may be a shorter record (`JAMES LOGAN` alone).
        let Some(&fields) = counts.last() else { continue };
        let counts: Vec<usize> = counts.into_iter().skip_while(|&c| c < fields).collect();
        if fields > 1 && counts.iter().all(|&c| c == fields) && best.is_none_or(|(most, _)| fields > most) {
            best = Some((fields, delimiter));
        }
    }
    Ok(best.map_or(b',', |(_, d)| d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(bytes: &[u8]) -> Result<Encoded, SourceError> {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), bytes).unwrap();
        encoding(file.path(), None)
    }

    #[test]
    fn utf8_with_odd_characters_stays_utf8() {
        assert_eq!(encoded("a,b\n\u{fffd},\x0c\n".as_bytes()).unwrap(), Encoded::Utf8 { skip: 0 });
        assert_eq!(encoded(b"\xef\xbb\xbfa;b\n1;2\n").unwrap(), Encoded::Utf8 { skip: 3 });
        assert_eq!(encoded(b"a,b\n\xe9t\xe9,1\n").unwrap().name(), "windows-1252");
        assert!(matches!(encoded(b"a,b\n\x01\xff\x02\x00,1\n"), Err(SourceError::Undecidable)));
    }

    #[test]
    fn delimiters_are_sniffed() {
        let sniff = |text: &str| {
            let file = tempfile::NamedTempFile::new().unwrap();
            std::fs::write(file.path(), text).unwrap();
            char::from(delimiter(file.path(), Encoded::Utf8 { skip: 0 }).unwrap())
        };
        assert_eq!(sniff("a;b;c\n1,5;2;3\n"), ';');
        assert_eq!(sniff("a,b\n\"x;y\",2\n"), ',');
        assert_eq!(sniff("a\tb\n1\t2\n"), '\t');
        assert_eq!(sniff("a|b\n\"line\nbreak\"|2\n"), '|');
        assert_eq!(sniff("only\n1\n"), ',');
        assert_eq!(
            sniff("A title\nwins;name\n3;Ann\n"),
            ';',
            "a title row of one field is not a record like the others"
        );
        assert_eq!(sniff("a,b\n1,2\n3\n"), ',', "ragged rows fall back to a comma (and fail later with the line)");
    }
}
