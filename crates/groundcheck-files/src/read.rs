//! Reading one raw-output file: decompressed when its name ends in `.gz` or `.zst`, never
//! more than one byte past the size limit (so a compression bomb costs nothing), and decoded
//! as UTF-8 with U+FFFD where it is not.

use std::fs::File;
use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};

use groundcheck_core::RawOutputFile;
use ruzstd::decoding::{FrameDecoder, StreamingDecoder};

use crate::beneath::{self, Refused};
use crate::template::FilePath;

/// What reading `file` found, and whether its bytes had to be decoded lossily. A file that
/// does not exist is looked for again with `.gz`, then `.zst`, appended (outputs compressed in
/// place after the run), unless its name already says it is compressed. Every candidate is
/// opened beneath the template's root (`beneath.rs`): one that leads outside it names no file.
pub fn read(file: &FilePath<'_>, max_bytes: usize) -> (RawOutputFile, bool) {
    let mut candidates = vec![file.below.clone()];
    if compression(&file.below) == Compression::None {
        candidates.extend([".gz", ".zst"].map(|ext| with_suffix(&file.below, ext)));
    }
    for candidate in &candidates {
        match beneath::open(file.root, candidate, file.allow_hard_links) {
            Ok(opened) => return read_open(opened, candidate, max_bytes),
            Err(Refused::Missing) => continue,
            Err(Refused::Escapes) => return (RawOutputFile::PathUnsafe, false),
            Err(Refused::Unreadable) => return (RawOutputFile::Unreadable, false),
        }
    }
    (RawOutputFile::Missing, false)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compression {
    None,
    Gzip,
    Zstd,
}

fn compression(path: &Path) -> Compression {
    match path.extension().and_then(|e| e.to_str()) {
        Some("gz") => Compression::Gzip,
        Some("zst") => Compression::Zstd,
        _ => Compression::None,
    }
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}

fn read_open(file: File, path: &Path, max_bytes: usize) -> (RawOutputFile, bool) {
    let kind = compression(path);
    // A plain file's length is its text's; a compressed one's says little (start small).
    let size_hint = match kind {
        Compression::None => file.metadata().map_or(0, |m| usize::try_from(m.len()).unwrap_or(usize::MAX)),
        Compression::Gzip | Compression::Zstd => 0,
    };
    read_source(file, kind, size_hint, max_bytes).0
}

/// What reading `source` (compressed as `kind`) found, and how many bytes were taken from
/// its decoder: never more than one past `max_bytes`.
fn read_source(
    source: impl Read,
    kind: Compression,
    size_hint: usize,
    max_bytes: usize,
) -> ((RawOutputFile, bool), u64) {
    let reader: Box<dyn Read + '_> = match kind {
        Compression::None => Box::new(source),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(io::BufReader::new(source))),
        Compression::Zstd => match ZstdFrames::new(io::BufReader::new(source)) {
            Ok(frames) => Box::new(frames),
            Err(_) => return ((RawOutputFile::Unreadable, false), 0),
        },
    };
    let mut reader = Counting { inner: reader, bytes: 0 };
    let read = read_at_most(&mut reader, max_bytes.saturating_add(1), size_hint);
    let inflated = reader.bytes;
    let bytes = match read {
        Ok(bytes) => bytes,
        Err(_) => return ((RawOutputFile::Unreadable, false), inflated),
    };
    if bytes.len() > max_bytes {
        return ((RawOutputFile::OverLimit, false), inflated);
    }
    let found = match String::from_utf8(bytes) {
        Ok(text) => (RawOutputFile::Read(text), false),
        Err(e) => (RawOutputFile::Read(String::from_utf8_lossy(e.as_bytes()).into_owned()), true),
    };
    (found, inflated)
}

/// A reader that counts the bytes read through it.
struct Counting<R> {
    inner: R,
    bytes: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
}

/// Reads up to `cap` bytes. The buffer grows by doubling but never past `cap`, so reading a
/// file that passes the limit (a compression bomb) holds at most `cap` bytes, not the twice
/// as many `read_to_end`'s doubling would reserve.
fn read_at_most(reader: impl Read, cap: usize, size_hint: usize) -> io::Result<Vec<u8>> {
    let mut reader = reader.take(u64::try_from(cap).unwrap_or(u64::MAX));
    const CHUNK: usize = 64 * 1024;
    let mut bytes: Vec<u8> = Vec::with_capacity(size_hint.saturating_add(1).max(8 * 1024).min(cap));
    loop {
        if bytes.len() == bytes.capacity() {
            if bytes.len() >= cap {
                return Ok(bytes);
            }
            let grown = bytes.capacity().saturating_mul(2).min(cap);
            bytes.reserve_exact(grown - bytes.len());
        }
        let start = bytes.len();
        bytes.resize(start + (bytes.capacity() - start).min(CHUNK), 0);
        match reader.read(&mut bytes[start..]) {
            Ok(0) => {
                bytes.truncate(start);
                return Ok(bytes);
            }
            Ok(n) => bytes.truncate(start + n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => bytes.truncate(start),
            Err(e) => return Err(e),
        }
    }
}

/// Every frame of a zstd stream in turn: `cat a.zst b.zst` is one valid file, but ruzstd's
/// decoder stops after the first frame, which would silently cut the document short.
struct ZstdFrames<R: BufRead> {
    decoder: Option<StreamingDecoder<R, FrameDecoder>>,
}

impl<R: BufRead> ZstdFrames<R> {
    fn new(source: R) -> io::Result<ZstdFrames<R>> {
        Ok(ZstdFrames { decoder: Some(StreamingDecoder::new(source).map_err(io::Error::other)?) })
    }
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(mut decoder) = self.decoder.take() else { return Ok(0) };
            let n = decoder.read(buf)?;
            if n > 0 || buf.is_empty() {
                self.decoder = Some(decoder);
                return Ok(n);
            }
            let mut source = decoder.into_inner();
            if source.fill_buf()?.is_empty() {
                return Ok(0);
            }
            self.decoder = Some(StreamingDecoder::new(source).map_err(io::Error::other)?);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// `read` of `name` beneath `root`.
    fn read(root: &Path, name: &str, max_bytes: usize) -> (RawOutputFile, bool) {
        super::read(&FilePath { root, below: PathBuf::from(name), allow_hard_links: false }, max_bytes)
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    fn zstd(bytes: &[u8]) -> Vec<u8> {
        ruzstd::encoding::compress_to_vec(bytes, ruzstd::encoding::CompressionLevel::Fastest)
    }

    #[test]
    fn plain_gzip_and_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("1.json"), "{\"a\":1}").unwrap();
        std::fs::write(dir.path().join("2.json.gz"), gzip(b"{\"b\":2}")).unwrap();
        let read = |name: &str| read(dir.path(), name, 100).0;
        assert_eq!(read("1.json"), RawOutputFile::Read("{\"a\":1}".into()));
        assert_eq!(read("2.json.gz"), RawOutputFile::Read("{\"b\":2}".into()));
        assert_eq!(read("2.json"), RawOutputFile::Read("{\"b\":2}".into()), "the compressed sibling");
        assert_eq!(read("3.json"), RawOutputFile::Missing);
        assert_eq!(read("3.json.gz"), RawOutputFile::Missing, "no sibling of a compressed name");
    }

    #[test]
    fn zstd_files_and_a_bomb_stop_one_byte_past_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        // `printf '{"z":"zstd"}' | zstd -c`
        let zst = [
            0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x61, 0x00, 0x00, 0x7b, 0x22, 0x7a, 0x22, 0x3a, 0x22, 0x7a,
            0x73, 0x74, 0x64, 0x22, 0x7d, 0xb1, 0x64, 0xfd, 0x50,
        ];
        std::fs::write(dir.path().join("z.json.zst"), zst).unwrap();
        assert_eq!(read(dir.path(), "z.json", 100).0, RawOutputFile::Read("{\"z\":\"zstd\"}".into()));
        // Two frames, `printf '{"a":' | zstd -c; printf '1}' | zstd -c`, are one document.
        let frames = [
            0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x29, 0x00, 0x00, 0x7b, 0x22, 0x61, 0x22, 0x3a, 0xbe, 0x38,
            0x83, 0x1e, 0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x11, 0x00, 0x00, 0x31, 0x7d, 0xd4, 0xd0, 0x7e,
            0xe3,
        ];
        std::fs::write(dir.path().join("two.zst"), frames).unwrap();
        assert_eq!(read(dir.path(), "two.zst", 100).0, RawOutputFile::Read("{\"a\":1}".into()));
        // 1 GiB of zeros as 1,024 gzip members of 1 MiB each: only 1 KiB and one byte are
        // ever decompressed, from the first few KiB of the 1 MB file.
        let member = gzip(&vec![0u8; 1 << 20]);
        let bomb = member.repeat(1024);
        std::fs::write(dir.path().join("bomb.gz"), &bomb).unwrap();
        assert_eq!(read(dir.path(), "bomb.gz", 1024).0, RawOutputFile::OverLimit);
        let mut file = Counting { inner: bomb.as_slice(), bytes: 0 };
        let (found, inflated) = read_source(&mut file, Compression::Gzip, 0, 1024);
        assert_eq!(found, (RawOutputFile::OverLimit, false));
        assert_eq!(inflated, 1025, "inflated");
        assert!(file.bytes <= 64 * 1024, "{} of {} compressed bytes read", file.bytes, bomb.len());
        // The same of zstd, and of a plain file.
        let zeros = vec![0u8; 1 << 20];
        for (kind, source) in [(Compression::Zstd, zstd(&zeros)), (Compression::None, zeros.clone())] {
            let mut file = Counting { inner: source.as_slice(), bytes: 0 };
            let (found, inflated) = read_source(&mut file, kind, 0, 1024);
            assert_eq!(found, (RawOutputFile::OverLimit, false), "{kind:?}");
            assert_eq!(inflated, 1025, "{kind:?}: inflated");
            assert!(file.bytes <= 64 * 1024, "{kind:?}: {} of {} bytes read", file.bytes, source.len());
        }
        // At the limit, exactly the text and the end of the stream are read.
        let text = vec![b'x'; 1024];
        let (found, inflated) = read_source(gzip(&text).as_slice(), Compression::Gzip, 0, 1024);
        assert_eq!((found, inflated), ((RawOutputFile::Read("x".repeat(1024)), false), 1024));
    }

    #[test]
    fn folders_broken_archives_and_the_size_limit() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("dir.json")).unwrap();
        std::fs::write(dir.path().join("bad.gz"), b"not gzip").unwrap();
        std::fs::write(dir.path().join("bad.zst"), b"not zstd").unwrap();
        std::fs::write(dir.path().join("ten"), b"0123456789").unwrap();
        let read = |name: &str, max| read(dir.path(), name, max).0;
        assert_eq!(read("dir.json", 100), RawOutputFile::Unreadable);
        assert_eq!(read("bad.gz", 100), RawOutputFile::Unreadable);
        assert_eq!(read("bad.zst", 100), RawOutputFile::Unreadable);
        assert_eq!(read("ten", 10), RawOutputFile::Read("0123456789".into()));
        assert_eq!(read("ten", 9), RawOutputFile::OverLimit);
    }

    #[test]
    fn bytes_that_are_not_utf8_are_replaced_and_flagged() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x"), b"caf\xe9").unwrap();
        assert_eq!(read(dir.path(), "x", 100), (RawOutputFile::Read("caf\u{fffd}".into()), true));
    }
}
