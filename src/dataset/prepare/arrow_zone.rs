//! The time zones an Arrow writer (pyarrow, pandas, polars) gave a Parquet
//! file's timestamp columns. Parquet itself keeps only whether instants are
//! in UTC; the zone name is in the file's `ARROW:schema` metadata: base64 of
//! an Arrow IPC message whose flatbuffer holds the schema. It is read here
//! without the `arrow` crate, every read bounds-checked: metadata that does
//! not parse gives no zones, never an error (the values do not depend on it).

use std::collections::HashMap;

use base64::Engine;

/// Arrow's `MessageHeader` union tag of a schema, and `Type` union tag of a timestamp.
const SCHEMA: u8 = 1;
const TIMESTAMP: u8 = 10;

/// A flatbuffer: positions are byte offsets into it; a read past its end is `None`.
struct Flatbuffer<'a>(&'a [u8]);

impl<'a> Flatbuffer<'a> {
    fn bytes<const N: usize>(&self, at: usize) -> Option<[u8; N]> {
        self.0.get(at..at.checked_add(N)?)?.try_into().ok()
    }

    fn u32(&self, at: usize) -> Option<usize> {
        usize::try_from(u32::from_le_bytes(self.bytes(at)?)).ok()
    }

    /// Where field `index` of the table at `table` is, if the table holds it.
    fn field(&self, table: usize, index: usize) -> Option<usize> {
        let back = i64::from(i32::from_le_bytes(self.bytes(table)?));
        let vtable = usize::try_from(i64::try_from(table).ok()? - back).ok()?;
        let size = usize::from(u16::from_le_bytes(self.bytes(vtable)?));
        let entry = 4 + 2 * index;
        if entry + 2 > size {
            return None;
        }
        let offset = usize::from(u16::from_le_bytes(self.bytes(vtable + entry)?));
        (offset != 0).then_some(table + offset)
    }

    /// What the offset at `at` points to (a table, a string, a vector).
    fn follow(&self, at: usize) -> Option<usize> {
        at.checked_add(self.u32(at)?)
    }

    /// The one-byte field `index` of `table`.
    fn byte(&self, table: usize, index: usize) -> Option<u8> {
        self.0.get(self.field(table, index)?).copied()
    }

    /// The string field `index` of `table`.
    fn string(&self, table: usize, index: usize) -> Option<&'a str> {
        let at = self.follow(self.field(table, index)?)?;
        let length = self.u32(at)?;
        std::str::from_utf8(self.0.get(at + 4..(at + 4).checked_add(length)?)?).ok()
    }

    /// The table field `index` of `table`.
    fn table(&self, table: usize, index: usize) -> Option<usize> {
        self.follow(self.field(table, index)?)
    }
}

/// Per top-level column name: the time zone of its timestamps, from the
/// value of a Parquet file's `ARROW:schema` key (empty when it has none or
/// does not parse).
pub fn zones(arrow_schema: &str) -> HashMap<String, String> {
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(arrow_schema.trim()) else {
        return HashMap::new();
    };
    // An IPC message: a continuation marker (not in the oldest format), its length, the flatbuffer.
    let message = match bytes.strip_prefix(&[0xff; 4]) {
        Some(rest) => rest.get(4..),
        None => bytes.get(4..),
    };
    message.and_then(schema_zones).unwrap_or_default().into_iter().collect()
}

/// The zones of a message's schema (`Message.header` → `Schema.fields` →
/// `Field.type` when it is a `Timestamp` with a `timezone`).
fn schema_zones(message: &[u8]) -> Option<Vec<(String, String)>> {
    let buffer = Flatbuffer(message);
    let root = buffer.follow(0)?;
    if buffer.byte(root, 1)? != SCHEMA {
        return None;
    }
    let schema = buffer.table(root, 2)?;
    let fields = buffer.table(schema, 1)?;
    let count = buffer.u32(fields)?;
    let mut zones = Vec::new();
    for i in 0..count.min(message.len() / 4) {
        let field = buffer.follow(fields + 4 + 4 * i)?;
        if buffer.byte(field, 2) != Some(TIMESTAMP) {
            continue;
        }
        let timestamp = buffer.table(field, 3)?;
        if let (Some(name), Some(zone)) = (buffer.string(field, 0), buffer.string(timestamp, 1)) {
            zones.push((name.to_string(), zone.to_string()));
        }
    }
    Some(zones)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pyarrow 26's `ARROW:schema` of a table of `a: int64`,
    /// `seen: timestamp[us, tz=Europe/Paris]` and `off: timestamp[ms, tz=+05:30]`.
    const WRITTEN: &str = concat!(
        "/////wgBAAAQAAAAAAAKAAwABgAFAAgACgAAAAABBAAMAAAACAAIAAAABAAIAAAABAAAAAMAAACgAAAAQAAAAAQAAAB8////",
        "AAABChAAAAAUAAAABAAAAAAAAAADAAAAb2ZmAMT///8AAAEABAAAAAYAAAArMDU6MzAAALT///8AAAEKEAAAACAAAAAEAAAA",
        "AAAAAAQAAABzZWVuAAAAAAgADAAGAAgACAAAAAAAAgAEAAAADAAAAEV1cm9wZS9QYXJpcwAAAAAQABQACAAGAAcADAAAABAA",
        "EAAAAAAAAQIQAAAAHAAAAAQAAAAAAAAAAQAAAGEAAAAIAAwACAAHAAgAAAAAAAABQAAAAAAAAAA=",
    );

    #[test]
    fn the_zones_an_arrow_writer_gave_are_read() {
        let zones = zones(WRITTEN);
        assert_eq!(zones.len(), 2, "{zones:?}");
        assert_eq!(zones["seen"], "Europe/Paris");
        assert_eq!(zones["off"], "+05:30");
    }

    #[test]
    fn damaged_metadata_gives_no_zones_and_never_a_panic() {
        assert!(zones("not base64!").is_empty());
        assert!(zones("").is_empty());
        let bytes = base64::engine::general_purpose::STANDARD.decode(WRITTEN).unwrap();
        for cut in 0..bytes.len() {
            let _ = zones(&base64::engine::general_purpose::STANDARD.encode(&bytes[..cut]));
        }
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..2000 {
            let mut damaged = bytes.clone();
            for _ in 0..4 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let at = (state % damaged.len() as u64) as usize;
                damaged[at] = (state >> 32) as u8;
            }
            let _ = zones(&base64::engine::general_purpose::STANDARD.encode(&damaged));
        }
    }
}
