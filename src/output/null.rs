//! The null sink: counts files and bytes, writes nothing.

use crate::output::{Sink, StreamedFile, WriteStats};
use std::io;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Discards every file, counting them.
#[derive(Debug, Default)]
pub struct NullSink {
    files: AtomicUsize,
    bytes: AtomicU64,
}

impl Sink for NullSink {
    fn begin(&mut self) -> io::Result<()> {
        self.abort();
        Ok(())
    }

    fn put(&self, _path: &str, bytes: Vec<u8>) -> io::Result<()> {
        self.files.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    /// Counts the bytes as they are written; holds none.
    fn put_streamed(&self, _path: &str, write: &mut StreamedFile) -> io::Result<()> {
        let bytes = count(write)?;
        self.files.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
        Ok(())
    }

    fn commit(&mut self) -> io::Result<WriteStats> {
        Ok(WriteStats {
            files: std::mem::take(self.files.get_mut()),
            bytes: std::mem::take(self.bytes.get_mut()),
            ..WriteStats::default()
        })
    }

    fn abort(&mut self) {
        *self.files.get_mut() = 0;
        *self.bytes.get_mut() = 0;
    }
}

/// How many bytes `write` writes, holding none of them.
pub fn count(write: &mut StreamedFile) -> io::Result<u64> {
    let mut counter = ByteCounter(0);
    write(&mut counter)?;
    Ok(counter.0)
}

/// An [`io::Write`] that only counts the bytes written to it.
struct ByteCounter(u64);

impl io::Write for ByteCounter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 += bytes.len() as u64;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
