//! A streaming reader for JSON files made of one large array of events (Chrome traces): the
//! input is read in chunks, a small structural scanner finds where each value ends, and each
//! event is deserialized from the buffer alone, borrowing its strings. What the format makes of
//! an event or of another top-level field is left to a [`Sink`].

use serde::Deserialize;
use serde::de::IgnoredAny;
use std::cell::Cell;
use std::io::Read;
use std::rc::Rc;

/// Bytes read from the input at a time.
const CHUNK: usize = 4 << 20;

/// What a format does with the parts of the file.
pub(super) trait Sink {
    /// One element of the events array, borrowing from the read buffer.
    type Event<'a>: Deserialize<'a>;
    /// Key of the events array in the top-level object.
    const EVENTS_KEY: &'static str;
    /// The format's name in errors, with its article.
    const FORMAT: &'static str;
    /// An element of the events array that deserialized.
    fn event(&mut self, ev: Self::Event<'_>);
    /// Another top-level field, whose value is valid JSON.
    fn field(&mut self, key: &str, value: &[u8]);
}

/// Counts the bytes handed to the JSON parser, for error offsets.
pub(super) struct Counting<R> {
    inner: R,
    count: Rc<Cell<u64>>,
}

impl<R> Counting<R> {
    pub(super) fn new(inner: R, count: Rc<Cell<u64>>) -> Self {
        Counting { inner, count }
    }
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}

/// Why the stream could not be read.
pub(super) enum Fail {
    Io(std::io::Error),
    /// The input ended inside the trace.
    Eof,
    /// Malformed JSON (or not a trace) at this offset.
    Syntax(u64, String),
}

impl From<std::io::Error> for Fail {
    fn from(e: std::io::Error) -> Self {
        Fail::Io(e)
    }
}

enum Scan {
    Done(usize),
    More,
}

/// End of the string whose body starts at `j` (just after the opening quote).
#[inline]
fn string_end(b: &[u8], mut j: usize) -> Option<usize> {
    loop {
        let k = j + memchr::memchr2(b'"', b'\\', b.get(j..)?)?;
        if b[k] == b'"' {
            return Some(k + 1);
        }
        j = k + 2;
    }
}

/// Structural bytes outside strings.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'"' as usize] = 1;
    t[b'{' as usize] = 2;
    t[b'[' as usize] = 2;
    t[b'}' as usize] = 3;
    t[b']' as usize] = 3;
    t
};

/// End (exclusive) of the JSON value starting at `i` (not whitespace). Only the structure is
/// checked here; the value's own syntax is checked when it is deserialized.
fn scan_value(b: &[u8], i: usize, eof: bool) -> Scan {
    match b[i] {
        b'"' => match string_end(b, i + 1) {
            Some(e) => Scan::Done(e),
            None => Scan::More,
        },
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match CLASS[b[j] as usize] {
                    0 => {}
                    1 => match string_end(b, j + 1) {
                        Some(e) => {
                            j = e;
                            continue;
                        }
                        None => return Scan::More,
                    },
                    2 => depth += 1,
                    _ => {
                        depth -= 1;
                        if depth == 0 {
                            return Scan::Done(j + 1);
                        }
                    }
                }
                j += 1;
            }
            Scan::More
        }
        _ => {
            let mut j = i;
            while j < b.len()
                && !matches!(
                    b[j],
                    b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t' | b':'
                )
            {
                j += 1;
            }
            if j == b.len() && !eof {
                Scan::More
            } else {
                Scan::Done(j)
            }
        }
    }
}

/// The input, read in chunks into one buffer that holds at least the value being read.
pub(super) struct Input<R> {
    r: R,
    buf: Vec<u8>,
    /// Valid bytes are `buf[..end]`; the next unread one is `buf[pos]`.
    pos: usize,
    pub(super) end: usize,
    /// Offset in the stream of `buf[0]`.
    base: u64,
    eof: bool,
}

impl<R: Read> Input<R> {
    pub(super) fn new(r: R) -> Self {
        Input {
            r,
            buf: Vec::new(),
            pos: 0,
            end: 0,
            base: 0,
            eof: false,
        }
    }

    pub(super) fn offset(&self, i: usize) -> u64 {
        self.base + i as u64
    }

    /// Read more; keeps `buf[pos..end]` (moved to the front). False at the end of the input.
    fn fill(&mut self) -> Result<bool, Fail> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.base += self.pos as u64;
            self.end -= self.pos;
            self.pos = 0;
        }
        if self.buf.len() - self.end < CHUNK / 2 {
            let want = (self.end + CHUNK).max(self.buf.len() * 2).max(CHUNK);
            self.buf.resize(want, 0);
        }
        let before = self.end;
        while self.end < self.buf.len() {
            match self.r.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => {
                    self.end += n;
                    if self.end - before >= CHUNK / 2 {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Fail::Io(e)),
            }
        }
        Ok(self.end > before)
    }

    /// Skip whitespace; the next byte, or None at the end of the input.
    fn peek(&mut self) -> Result<Option<u8>, Fail> {
        loop {
            while self.pos < self.end {
                let b = self.buf[self.pos];
                if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                    return Ok(Some(b));
                }
                self.pos += 1;
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// The next value (after whitespace) as `buf[start..end]`; does not consume it.
    fn value(&mut self) -> Result<(usize, usize), Fail> {
        if self.peek()?.is_none() {
            return Err(Fail::Eof);
        }
        loop {
            match scan_value(&self.buf[..self.end], self.pos, self.eof) {
                Scan::Done(e) => return Ok((self.pos, e)),
                Scan::More => {
                    if !self.fill()? {
                        return Err(Fail::Eof);
                    }
                }
            }
        }
    }

    fn syntax(&self, what: &str) -> Fail {
        Fail::Syntax(self.offset(self.pos), what.to_string())
    }

    /// Expect byte `c` (after whitespace) and consume it.
    fn expect(&mut self, c: u8, what: &str) -> Result<(), Fail> {
        match self.peek()? {
            Some(b) if b == c => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(self.syntax(what)),
            None => Err(Fail::Eof),
        }
    }
}

fn json_error(e: serde_json::Error, at: u64) -> Fail {
    if e.is_eof() {
        Fail::Eof
    } else {
        Fail::Syntax(at, e.to_string())
    }
}

/// Where the events array parser stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum At {
    /// Just after `[`: an event or `]`.
    Open,
    /// Just after `,`: an event.
    Comma,
    /// Just after an event: `,` or `]`.
    Event,
}

enum Step {
    /// The array ended.
    Done,
    /// The buffer ran out.
    More,
    /// Something the fast path does not decide: take one step on the byte path.
    Slow,
}

/// Events of the buffer's valid UTF-8 prefix, each deserialized in place (no separate scan):
/// returns the bytes consumed and why it stopped.
fn events_batch<S: Sink>(
    text: &str,
    bad_utf8: bool,
    at: &mut At,
    c: &mut S,
) -> Result<(usize, Step), Fail> {
    let b = text.as_bytes();
    let mut i = 0;
    loop {
        while i < b.len() && matches!(b[i], b' ' | b'\n' | b'\r' | b'\t') {
            i += 1;
        }
        if i == b.len() {
            return Ok((i, if bad_utf8 { Step::Slow } else { Step::More }));
        }
        match (*at, b[i]) {
            (At::Open | At::Event, b']') => return Ok((i + 1, Step::Done)),
            (At::Event, b',') => {
                i += 1;
                *at = At::Comma;
                continue;
            }
            (At::Event, _) | (_, b']' | b',') => return Ok((i, Step::Slow)),
            _ => {}
        }
        let mut it = serde_json::Deserializer::from_str(&text[i..]).into_iter::<S::Event<'_>>();
        match it.next() {
            Some(Ok(ev)) => {
                let n = it.byte_offset();
                if i + n == b.len() {
                    // A scalar cut by the buffer's end would parse: read on first.
                    return Ok((i, if bad_utf8 { Step::Slow } else { Step::More }));
                }
                c.event(ev);
                i += n;
                *at = At::Event;
            }
            Some(Err(e)) if e.is_eof() && !bad_utf8 => return Ok((i, Step::More)),
            _ => return Ok((i, Step::Slow)),
        }
    }
}

/// One step of the events array on the byte path (after the fast path stopped).
fn events_slow<R: Read, S: Sink>(inp: &mut Input<R>, at: &mut At, c: &mut S) -> Result<bool, Fail> {
    match (inp.peek()?, *at) {
        (None, _) => return Err(Fail::Eof),
        (Some(b']'), At::Open | At::Event) => {
            inp.pos += 1;
            return Ok(true);
        }
        (Some(b','), At::Event) => {
            inp.pos += 1;
            *at = At::Comma;
            return Ok(false);
        }
        (Some(_), At::Event) => {
            return Err(inp.syntax(&format!("expected `,` or `]` in {}", S::EVENTS_KEY)));
        }
        (Some(b']' | b','), _) => return Err(inp.syntax("expected a trace event")),
        _ => {}
    }
    let (s, e) = inp.value()?;
    match serde_json::from_slice::<S::Event<'_>>(&inp.buf[s..e]) {
        Ok(ev) => c.event(ev),
        // An event that is not an object (or has odd field types) is skipped, not fatal.
        Err(err) if err.is_data() => {}
        Err(err) => return Err(json_error(err, inp.offset(s))),
    }
    inp.pos = e;
    *at = At::Event;
    Ok(false)
}

/// The events array, from its `[`.
fn read_events<R: Read, S: Sink>(inp: &mut Input<R>, c: &mut S) -> Result<(), Fail> {
    inp.expect(b'[', "expected an array of trace events")?;
    let mut at = At::Open;
    loop {
        let (used, step) = {
            let bytes = &inp.buf[inp.pos..inp.end];
            let (text, bad) = match std::str::from_utf8(bytes) {
                Ok(t) => (t, false),
                Err(e) => (
                    std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or(""),
                    e.error_len().is_some(),
                ),
            };
            events_batch(text, bad, &mut at, c)?
        };
        inp.pos += used;
        let slow = match step {
            Step::Done => return Ok(()),
            Step::More => !inp.fill()?,
            Step::Slow => true,
        };
        if slow && events_slow(inp, &mut at, c)? {
            return Ok(());
        }
    }
}

/// The whole file: `{..., "<events key>": [...]}` or a bare array. True when events were seen.
pub(super) fn read_top<R: Read, S: Sink>(inp: &mut Input<R>, c: &mut S) -> Result<bool, Fail> {
    let mut saw = false;
    match inp.peek()? {
        None => return Err(Fail::Eof),
        Some(b'[') => {
            read_events(inp, c)?;
            saw = true;
        }
        Some(b'{') => {
            inp.pos += 1;
            let mut first = true;
            loop {
                match inp.peek()? {
                    None => return Err(Fail::Eof),
                    Some(b'}') => {
                        inp.pos += 1;
                        break;
                    }
                    Some(b',') if !first => inp.pos += 1,
                    Some(_) if !first => return Err(inp.syntax("expected `,` or `}`")),
                    Some(_) => {}
                }
                first = false;
                if inp.peek()? != Some(b'"') {
                    return Err(inp.syntax("expected a key"));
                }
                let (s, e) = inp.value()?;
                let key: String = serde_json::from_slice(&inp.buf[s..e])
                    .map_err(|err| json_error(err, inp.offset(s)))?;
                inp.pos = e;
                inp.expect(b':', "expected `:`")?;
                if key == S::EVENTS_KEY {
                    saw = true;
                    read_events(inp, c)?;
                    continue;
                }
                let (s, e) = inp.value()?;
                let v = &inp.buf[s..e];
                serde_json::from_slice::<IgnoredAny>(v)
                    .map_err(|err| json_error(err, inp.offset(s)))?;
                c.field(&key, v);
                inp.pos = e;
            }
        }
        Some(b'"') => return Err(inp.syntax(&format!("not {}: a JSON string", S::FORMAT))),
        Some(_) => {
            return Err(inp.syntax(&format!(
                "expected {} object with {}, or an array of events",
                S::FORMAT,
                S::EVENTS_KEY
            )));
        }
    }
    if inp.peek()?.is_some() {
        return Err(inp.syntax("trailing characters"));
    }
    Ok(saw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use std::borrow::Cow;

    /// Keeps what the reader hands over.
    #[derive(Default)]
    struct Keep {
        events: Vec<Value>,
        fields: Vec<(String, String)>,
    }

    impl Sink for Keep {
        type Event<'a> = Value;
        const EVENTS_KEY: &'static str = "events";
        const FORMAT: &'static str = "an event file";
        fn event(&mut self, ev: Value) {
            self.events.push(ev);
        }
        fn field(&mut self, key: &str, value: &[u8]) {
            self.fields
                .push((key.to_string(), String::from_utf8_lossy(value).into()));
        }
    }

    /// The outcome as text (`Fail` has no `Debug`), and what the sink got.
    fn read<S: Sink + Default>(text: &[u8]) -> (Result<bool, String>, S) {
        let mut inp = Input::new(text);
        let mut sink = S::default();
        let res = read_top(&mut inp, &mut sink).map_err(|f| match f {
            Fail::Io(e) => format!("io: {e}"),
            Fail::Eof => format!("eof at {}", inp.offset(inp.end)),
            Fail::Syntax(at, msg) => format!("syntax at {at}: {msg}"),
        });
        (res, sink)
    }

    #[test]
    fn nested_values_and_other_fields() {
        let text = br#"{"meta": {"a": [1, {"b": []}], "c": "}]"}, "events": [
            {"x": {"y": [[1], [2, {"z": null}]]}}, [1, [2]], {}
        ], "n": 5}"#;
        let (res, k) = read::<Keep>(text);
        assert_eq!(res, Ok(true));
        assert_eq!(k.events.len(), 3);
        assert_eq!(k.events[0]["x"]["y"][1][1]["z"], Value::Null);
        assert_eq!(k.events[1], serde_json::json!([1, [2]]));
        assert_eq!(
            k.fields,
            vec![
                ("meta".into(), r#"{"a": [1, {"b": []}], "c": "}]"}"#.into()),
                ("n".into(), "5".into()),
            ]
        );
    }

    #[test]
    fn strings_with_escapes() {
        let text = br#"[{"s": "a\"b\\"}, {"s": "\u0041]}\\\""}, "x\"]"]"#;
        let (res, k) = read::<Keep>(text);
        assert_eq!(res, Ok(true));
        assert_eq!(k.events[0]["s"], "a\"b\\");
        assert_eq!(k.events[1]["s"], "A]}\\\"");
        assert_eq!(k.events[2], "x\"]");
        // The scanner alone: a quote after an escaped backslash ends the string.
        assert!(matches!(scan_value(br#""a\\" x"#, 0, false), Scan::Done(5)));
        assert!(matches!(scan_value(br#""a\" x"#, 0, false), Scan::More));
        assert_eq!(string_end(br#"ab\"c" "#, 0), Some(6));
    }

    #[test]
    fn borrowed_events_borrow_from_the_buffer() {
        #[derive(Deserialize)]
        struct Ev<'a> {
            #[serde(borrow)]
            name: Cow<'a, str>,
        }
        #[derive(Default)]
        struct Names(Vec<(String, bool)>);
        impl Sink for Names {
            type Event<'a> = Ev<'a>;
            const EVENTS_KEY: &'static str = "events";
            const FORMAT: &'static str = "an event file";
            fn event(&mut self, ev: Ev<'_>) {
                let borrowed = matches!(ev.name, Cow::Borrowed(_));
                self.0.push((ev.name.into_owned(), borrowed));
            }
            fn field(&mut self, _: &str, _: &[u8]) {}
        }
        // Events that do not fit the type are skipped, not fatal.
        let (res, n) = read::<Names>(br#"[{"name": "a"}, 7, {"name": "b\n"}, {"other": 1}]"#);
        assert_eq!(res, Ok(true));
        assert_eq!(n.0, vec![("a".into(), true), ("b\n".into(), false)]);
    }

    #[test]
    fn truncated_input_reports_the_end() {
        let text = br#"{"events": [{"a": 1}, {"b": "unterminated"#;
        let (res, k) = read::<Keep>(text);
        assert_eq!(res, Err(format!("eof at {}", text.len())));
        assert_eq!(k.events.len(), 1);
        let (res, _) = read::<Keep>(b"  ");
        assert_eq!(res, Err("eof at 2".into()));
        let (res, _) = read::<Keep>(br#"{"events": [1, 2"#);
        assert_eq!(res, Err("eof at 16".into()));
    }

    #[test]
    fn syntax_errors_report_their_byte() {
        let (res, _) = read::<Keep>(br#"[{"a": 1} {"b": 2}]"#);
        assert_eq!(
            res,
            Err("syntax at 10: expected `,` or `]` in events".into())
        );
        let (res, _) = read::<Keep>(br#"{"events": [], "x": 1} x"#);
        assert_eq!(res, Err("syntax at 23: trailing characters".into()));
        let (res, _) = read::<Keep>(br#""events""#);
        assert_eq!(
            res,
            Err("syntax at 0: not an event file: a JSON string".into())
        );
        let (res, _) = read::<Keep>(b"7");
        assert_eq!(
            res,
            Err(
                "syntax at 0: expected an event file object with events, or an array of events"
                    .into()
            )
        );
        let (res, _) = read::<Keep>(br#"{"other": 1}"#);
        assert_eq!(res, Ok(false));
    }

    #[test]
    fn arrays_of_events_across_chunks() {
        // Over two chunks, with a multi-byte character in every event, so that reads end inside
        // events and inside characters.
        let one = r#"{"name": "op·é", "ts": 12.5, "args": {"Input Dims": [[2, 3]]}}"#;
        let n = 2 * CHUNK / one.len() + 7;
        let mut text = String::from("[");
        for i in 0..n {
            if i > 0 {
                text.push_str(",\n");
            }
            text.push_str(one);
        }
        text.push(']');
        let (res, k) = read::<Keep>(text.as_bytes());
        assert_eq!(res, Ok(true));
        assert_eq!(k.events.len(), n);
        assert!(k.events.iter().all(|e| e["name"] == "op·é"));
        let (res, k) = read::<Keep>(b"[]");
        assert_eq!(res, Ok(true));
        assert!(k.events.is_empty());
    }

    #[test]
    fn large_numbers() {
        let text = br#"{"big": 123456789012345678901234567890, "events": [
            {"u": 18446744073709551615, "i": -9223372036854775808, "f": 1.5e300}
        ]}"#;
        let (res, k) = read::<Keep>(text);
        assert_eq!(res, Ok(true));
        assert_eq!(k.fields[0].1, "123456789012345678901234567890");
        assert_eq!(k.events[0]["u"].as_u64(), Some(u64::MAX));
        assert_eq!(k.events[0]["i"].as_i64(), Some(i64::MIN));
        assert_eq!(k.events[0]["f"].as_f64(), Some(1.5e300));
        // A number cut by the buffer's end is not taken as whole until the input ends.
        assert!(matches!(scan_value(b"12", 0, false), Scan::More));
        assert!(matches!(scan_value(b"12", 0, true), Scan::Done(2)));
    }

    #[test]
    fn whitespace_anywhere() {
        let text =
            b" \r\n\t{ \"n\" :\t1 ,\n\"events\"\r\n:\n[ \t{\"a\" : [ 1 , 2 ] }\n,\r\n3 \n] } \n\t";
        let (res, k) = read::<Keep>(text);
        assert_eq!(res, Ok(true));
        assert_eq!(k.events, vec![serde_json::json!({"a": [1, 2]}), 3.into()]);
        assert_eq!(k.fields, vec![("n".into(), "1".into())]);
    }
}
