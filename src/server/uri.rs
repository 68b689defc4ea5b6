//! `file://` URIs to paths and back (percent-encoding as RFC 3986 wants it).

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::Uri;

/// The path of a `file:` URI; `None` for other schemes (untitled buffers and the like).
pub fn to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///path` or `file://host/path`: the path starts at the first slash.
    let path = &rest[rest.find('/')?..];
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let decoded = percent_decode(path)?;
    // `file:///c:/x` on Windows.
    #[cfg(windows)]
    let decoded = decoded
        .strip_prefix('/')
        .map(str::to_string)
        .unwrap_or(decoded);
    Some(PathBuf::from(decoded))
}

/// The `file:` URI of an absolute path.
pub fn from_path(path: &Path) -> Option<Uri> {
    let text = path.to_str()?.replace('\\', "/");
    let mut out = String::from("file://");
    if !text.starts_with('/') {
        out.push('/');
    }
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&out).ok()
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let path = Path::new("/tmp/my models/ünï#1.py");
        let uri = from_path(path).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/my%20models/%C3%BCn%C3%AF%231.py");
        assert_eq!(to_path(uri.as_str()).unwrap(), path);
        assert_eq!(to_path("file:///a/b%3a.py").unwrap(), Path::new("/a/b:.py"));
        assert_eq!(
            to_path("file://localhost/a.py").unwrap(),
            Path::new("/a.py")
        );
        assert!(to_path("untitled:Untitled-1").is_none());
    }
}
