//! Reading the text files a game or scenario names (patterns, playbooks): only regular files,
//! of bounded size, read through a bounded reader.

use std::io::Read;
use std::path::Path;

/// Largest pattern or playbook file read, bytes.
pub const MAX_ASSET_BYTES: u64 = 16 << 20;

/// Reads the text file at `path` if it is a regular file of at most `max_bytes`.
///
/// The file's metadata is checked before it is opened, so a FIFO, a device (`/dev/zero`,
/// `/dev/stdin`) or a directory is refused without being opened (opening a FIFO blocks), and
/// an oversized file is refused without being read. The read itself is capped at
/// `max_bytes + 1` bytes, so a file that grows between the check and the read cannot exhaust
/// memory. The message says what is wrong without quoting the file's content.
pub fn read_text_file(path: &Path, max_bytes: u64) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > max_bytes {
        return Err(format!(
            "file is {} bytes; the limit is {max_bytes}",
            meta.len()
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > max_bytes {
        return Err(format!("file is over the limit of {max_bytes} bytes"));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

/// The message of a RON parse error without the text it quotes from the file: every
/// `` `...` `` and `"..."` span becomes `` `…` ``, so a file that is not RON at all (a key,
/// a password file) is reported by its position and the kind of error, never by its words.
pub fn ron_message_without_content(code: &ron::Error) -> String {
    let message = code.to_string();
    let mut out = String::with_capacity(message.len());
    let mut quote: Option<char> = None;
    for c in message.chars() {
        match quote {
            Some(q) if c == q => {
                out.push_str("…`");
                quote = None;
            }
            Some(_) => {}
            None if c == '`' || c == '"' => {
                out.push('`');
                quote = Some(c);
            }
            None => out.push(c),
        }
    }
    if quote.is_some() {
        out.push_str("…`");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_directories_and_oversized_files_are_refused() {
        assert!(read_text_file(Path::new("/dev/zero"), 100).is_err());
        assert!(read_text_file(Path::new("."), 100).is_err());
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        assert!(read_text_file(&manifest, 10).is_err());
        assert!(read_text_file(&manifest, MAX_ASSET_BYTES).is_ok());
    }

    #[test]
    fn parse_messages_quote_nothing_from_the_file() {
        let err = ron::from_str::<(u32, u32)>("root:x:0:0").unwrap_err();
        let m = ron_message_without_content(&err.code);
        assert!(!m.contains("root"), "{m}");
    }
}
