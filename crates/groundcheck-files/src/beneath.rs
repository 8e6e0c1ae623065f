//! Opening a raw-output file strictly beneath its template's root folder.
//!
//! Anyone who can write into the session folders (the agent, any of its tools) can plant a
//! symbolic link: `7.json -> /etc/passwd`, `1.json -> /proc/self/environ`, or a whole session
//! folder pointing elsewhere. Following it would put that file on the report and the HTML
//! page. So the path below the root is walked one component at a time, each opened relative
//! to the folder already held and never following a link by itself (`O_NOFOLLOW`): a link is
//! read and its target walked in turn, from the folder holding it (a relative target) or from
//! the root (an absolute target that names a place inside the root). A `..` that would leave
//! the root, or an absolute target outside it, refuses the path. Because every step is
//! relative to an open folder, nothing renamed or relinked meanwhile can move the walk
//! outside: the check and the open are one operation (no canonicalise-then-open race).
//!
//! Only a regular file is read. The last component is opened non-blocking, so a FIFO (whose
//! open would wait for a writer) or a device never stalls the reader; its type is checked on
//! the open descriptor before a byte is read.
//!
//! A hard link is no link to walk: `ln /etc/passwd s1/tools/5.json` makes a second name for
//! the same file, indistinguishable from the first. So a regular file with more than one
//! link (`st_nlink > 1`, read from the open descriptor, not from a path) is refused as
//! leading outside the root, unless the caller allows hard links.

use std::ffi::OsString;
use std::fs::File;
use std::path::{Component, Path, PathBuf};

/// Why a file beneath the root was not opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The path, or a link on it, leads outside the root.
    Escapes,
    /// Nothing at the path (or a component of it is not a folder).
    Missing,
    /// Something is there but is no regular file that can be read: a folder, a FIFO, a
    /// socket, a device, a loop of links, or a permission or I/O error.
    Unreadable,
}

/// How many links one path may pass through before it is taken for a loop (Linux's own
/// `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// Opens `rel` beneath `root` for reading, as the module describes. `rel` is relative; the
/// root itself is the caller's trusted folder and is opened like any path. A file with more
/// than one hard link is [`Refused::Escapes`] unless `hard_links` allows it.
#[cfg(unix)]
pub fn open(root: &Path, rel: &Path, hard_links: bool) -> Result<File, Refused> {
    use std::collections::VecDeque;
    use std::os::fd::OwnedFd;
    use std::os::unix::ffi::OsStringExt;

    use rustix::fs::{openat, readlinkat, statat, AtFlags, FileType, Mode, OFlags, CWD};
    use rustix::io::Errno;

    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let root_fd = openat(CWD, root, dir_flags, Mode::empty()).map_err(|e| match e {
        Errno::NOENT | Errno::NOTDIR => Refused::Missing,
        _ => Refused::Unreadable,
    })?;
    // The folders entered so far, the root first: `..` steps back to the one before.
    let mut folders: Vec<OwnedFd> = vec![root_fd];
    let mut todo: VecDeque<OsString> = VecDeque::new();
    push_front(&mut todo, rel).ok_or(Refused::Escapes)?;
    let mut links = 0;
    while let Some(name) = todo.pop_front() {
        if name == ".." {
            if folders.len() == 1 {
                return Err(Refused::Escapes);
            }
            folders.pop();
            continue;
        }
        let here = folders.last().expect("the root is never popped");
        let last = todo.is_empty();
        // A regular file is checked before it is opened, so that a device is not opened in
        // the ordinary case (opening some has effects); the open descriptor is checked again
        // below, which is what holds against a swap in between.
        let stat = match statat(here, &name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => stat,
            Err(Errno::NOENT | Errno::NOTDIR) => return Err(Refused::Missing),
            Err(_) => return Err(Refused::Unreadable),
        };
        let kind = FileType::from_raw_mode(stat.st_mode);
        if kind == FileType::Symlink {
            links += 1;
            if links > MAX_LINKS {
                return Err(Refused::Unreadable);
            }
            let target = readlinkat(here, &name, Vec::new()).map_err(|_| Refused::Unreadable)?;
            let target = PathBuf::from(OsString::from_vec(target.into_bytes()));
            if target.is_absolute() {
                let inside = inside_root(root, &target).ok_or(Refused::Escapes)?;
                folders.truncate(1);
                push_front(&mut todo, &inside).ok_or(Refused::Escapes)?;
            } else {
                push_front(&mut todo, &target).ok_or(Refused::Escapes)?;
            }
            continue;
        }
        if !last {
            if kind != FileType::Directory {
                return Err(Refused::Missing);
            }
            let folder = openat(here, &name, dir_flags | OFlags::NOFOLLOW, Mode::empty())
                .map_err(|_| Refused::Unreadable)?;
            folders.push(folder);
            continue;
        }
        if kind != FileType::RegularFile {
            return Err(Refused::Unreadable);
        }
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let fd = openat(here, &name, flags, Mode::empty()).map_err(|e| match e {
            Errno::NOENT => Refused::Missing,
            _ => Refused::Unreadable,
        })?;
        let opened = rustix::fs::fstat(&fd).map_err(|_| Refused::Unreadable)?;
        if FileType::from_raw_mode(opened.st_mode) != FileType::RegularFile {
            return Err(Refused::Unreadable);
        }
        if opened.st_nlink > 1 && !hard_links {
            return Err(Refused::Escapes);
        }
        return Ok(File::from(fd));
    }
    // The path named the root itself (or a link back to it): a folder.
    Err(Refused::Unreadable)
}

/// Without `openat` and `O_NOFOLLOW` the walk cannot be made race-free: the path is resolved
/// and then opened, which refuses every link that leaves the root but not one swapped in
/// between the two steps. Nor is a hard link told apart there (the standard library does not
/// give a link count off Unix).
#[cfg(not(unix))]
pub fn open(root: &Path, rel: &Path, _hard_links: bool) -> Result<File, Refused> {
    let path = root.join(rel);
    let resolved = match path.canonicalize() {
        Ok(resolved) => resolved,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Refused::Missing),
        Err(_) => return Err(Refused::Unreadable),
    };
    let root = root.canonicalize().map_err(|_| Refused::Missing)?;
    if !resolved.starts_with(&root) {
        return Err(Refused::Escapes);
    }
    match std::fs::metadata(&resolved) {
        Ok(meta) if meta.is_file() => File::open(&resolved).map_err(|_| Refused::Unreadable),
        Ok(_) | Err(_) => Err(Refused::Unreadable),
    }
}

/// Puts `path`'s components in front of `todo`, in order: `.` dropped, `..` kept for the
/// walk to step back. `None` for a path with a root or prefix (never the case for the
/// relative paths given to it).
#[cfg_attr(not(unix), allow(dead_code))]
fn push_front(todo: &mut std::collections::VecDeque<OsString>, path: &Path) -> Option<()> {
    let mut names = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(name) => names.push(name.to_os_string()),
            Component::ParentDir => names.push(OsString::from("..")),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    for name in names.into_iter().rev() {
        todo.push_front(name);
    }
    Some(())
}

/// Where an absolute link target lies inside the root, relative to it: the root is matched
/// as the template wrote it (made absolute) and as the file system resolves it, so a link
/// written either way is followed. `None` when the target is outside both.
#[cfg_attr(not(unix), allow(dead_code))]
fn inside_root(root: &Path, target: &Path) -> Option<PathBuf> {
    let written = std::path::absolute(root).ok();
    let resolved = root.canonicalize().ok();
    [written, resolved]
        .into_iter()
        .flatten()
        .find_map(|root| target.strip_prefix(&root).ok().map(Path::to_path_buf))
}

#[cfg(all(test, unix))]
mod tests {
    use std::io::Read;
    use std::os::unix::fs::symlink;

    use super::*;

    fn read(root: &Path, rel: &str) -> Result<String, Refused> {
        let mut text = String::new();
        open(root, Path::new(rel), false)?.read_to_string(&mut text).unwrap();
        Ok(text)
    }

    #[test]
    fn a_hard_link_is_refused_on_the_open_file_unless_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sessions");
        std::fs::create_dir_all(root.join("s1/tools")).unwrap();
        std::fs::write(dir.path().join("secret"), "secret").unwrap();
        std::fs::hard_link(dir.path().join("secret"), root.join("s1/tools/5.json")).unwrap();
        std::fs::write(root.join("s1/tools/6.json"), "mine").unwrap();
        assert_eq!(read(&root, "s1/tools/5.json"), Err(Refused::Escapes));
        assert_eq!(read(&root, "s1/tools/6.json"), Ok("mine".into()), "one link: read");
        let mut text = String::new();
        open(&root, Path::new("s1/tools/5.json"), true).unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "secret", "allowed");
    }

    #[test]
    fn links_that_stay_inside_the_root_are_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sessions");
        std::fs::create_dir_all(root.join("s1/tools")).unwrap();
        std::fs::write(root.join("s1/tools/1.json"), "one").unwrap();
        symlink("1.json", root.join("s1/tools/2.json")).unwrap();
        symlink("../../s1/tools/1.json", root.join("s1/tools/3.json")).unwrap();
        symlink("s1", root.join("latest")).unwrap();
        symlink(root.join("s1/tools/1.json"), root.join("s1/tools/4.json")).unwrap();
        assert_eq!(read(&root, "s1/tools/1.json"), Ok("one".into()));
        assert_eq!(read(&root, "s1/tools/2.json"), Ok("one".into()));
        assert_eq!(read(&root, "s1/tools/3.json"), Ok("one".into()));
        assert_eq!(read(&root, "latest/tools/1.json"), Ok("one".into()));
        assert_eq!(read(&root, "s1/tools/4.json"), Ok("one".into()), "an absolute link inside");
    }

    #[test]
    fn links_out_of_the_root_refuse_the_path_without_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sessions");
        std::fs::create_dir_all(root.join("s1/tools")).unwrap();
        std::fs::create_dir_all(dir.path().join("elsewhere/tools")).unwrap();
        std::fs::write(dir.path().join("secret"), "secret").unwrap();
        std::fs::write(dir.path().join("elsewhere/tools/1.json"), "secret").unwrap();
        symlink("/etc/passwd", root.join("s1/tools/1.json")).unwrap();
        symlink("/proc/self/environ", root.join("s1/tools/2.json")).unwrap();
        symlink("../../../secret", root.join("s1/tools/3.json")).unwrap();
        symlink(dir.path().join("elsewhere"), root.join("s2")).unwrap();
        symlink("../elsewhere", root.join("s3")).unwrap();
        for rel in
            ["s1/tools/1.json", "s1/tools/2.json", "s1/tools/3.json", "s2/tools/1.json", "s3/tools/1.json"]
        {
            assert_eq!(read(&root, rel), Err(Refused::Escapes), "{rel}");
        }
        assert_eq!(read(&root, "../secret"), Err(Refused::Escapes), "a literal `..` out");
    }

    #[test]
    fn only_regular_files_are_opened_and_a_fifo_never_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("folder")).unwrap();
        let fifo = root.join("fifo");
        rustix::fs::mknodat(rustix::fs::CWD, &fifo, rustix::fs::FileType::Fifo, rustix::fs::Mode::RUSR, 0)
            .unwrap();
        symlink("fifo", root.join("to-fifo")).unwrap();
        symlink("loop", root.join("loop")).unwrap();
        std::fs::write(root.join("file"), "x").unwrap();
        assert_eq!(read(root, "folder"), Err(Refused::Unreadable));
        assert_eq!(read(root, "fifo"), Err(Refused::Unreadable));
        assert_eq!(read(root, "to-fifo"), Err(Refused::Unreadable));
        assert_eq!(read(root, "loop"), Err(Refused::Unreadable));
        assert_eq!(read(root, "nothing"), Err(Refused::Missing));
        assert_eq!(read(root, "file/below"), Err(Refused::Missing), "a file is no folder");
        assert_eq!(read(&root.join("no-root"), "file"), Err(Refused::Missing));
        assert_eq!(read(Path::new("/dev"), "null"), Err(Refused::Unreadable), "a device");
    }
}
