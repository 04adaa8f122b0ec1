//! Byte spans into a source text and the line table that turns them into line:column.

/// A half-open byte range `[start, end)` into the (preprocessed) source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// Makes a span; offsets are clamped to `u32` (sources over 4 GiB are rejected earlier).
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The text this span covers.
    pub fn text(self, src: &str) -> &str {
        src.get(self.start as usize..self.end as usize)
            .unwrap_or("")
    }
}

/// Line starts of a text, for byte offset → 1-based (line, column) look-ups.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(src: &str) -> LineIndex {
        let mut starts = vec![0u32];
        starts.extend(
            src.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        LineIndex { starts }
    }

    /// Number of lines (a text ending in a newline has an empty last line).
    pub fn count(&self) -> usize {
        self.starts.len()
    }

    /// 1-based line and 1-based column (in bytes) of an offset.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        (line as u32 + 1, offset - self.starts[line] + 1)
    }

    /// The byte range of a 1-based line, without its newline.
    pub fn line_span(&self, line: u32, src: &str) -> Span {
        let i = (line.max(1) - 1) as usize;
        let start = self.starts.get(i).copied().unwrap_or(src.len() as u32);
        let mut end = self
            .starts
            .get(i + 1)
            .map(|&s| s - 1)
            .unwrap_or(src.len() as u32);
        if end > start && src.as_bytes().get(end as usize - 1) == Some(&b'\r') {
            end -= 1;
        }
        Span { start, end }
    }
}
