//! Reading the small text files a user names (rules files, transcripts,
//! training configs): regular files of bounded size only, so a device, a
//! pipe or a huge file is refused with a clear error rather than read until
//! memory or patience runs out.

use std::path::{Path, PathBuf};

use thiserror::Error;

/// Why a named text file could not be read.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum FileError {
    /// A directory, device, pipe or socket.
    #[error("{}: not a regular file", .0.display())]
    NotAFile(PathBuf),
    /// Larger than any file of its kind could be.
    #[error("{}: {bytes} bytes, more than a {what}'s {max}", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        bytes: u64,
        /// The limit for its kind.
        max: u64,
        /// What kind of file it was read as ("rules file", "transcript", …).
        what: &'static str,
    },
    /// Missing, unreadable, or not UTF-8.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
}

/// The text of the regular file `path`, refused when larger than `max_bytes`
/// (`what` names the kind of file in that error).
#[doc(hidden)] // for the workspace's other crates; not part of the API
pub fn read_text(path: &Path, max_bytes: u64, what: &'static str) -> Result<String, FileError> {
    let io = |source| FileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(FileError::NotAFile(path.to_path_buf()));
    }
    if meta.len() > max_bytes {
        return Err(FileError::TooLarge {
            path: path.to_path_buf(),
            bytes: meta.len(),
            max: max_bytes,
            what,
        });
    }
    std::fs::read_to_string(path).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_directories_devices_and_large_files() {
        let dir = std::env::temp_dir().join(format!("uno-env-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = read_text(&dir, 10, "rules file").unwrap_err();
        assert!(matches!(e, FileError::NotAFile(_)), "{e}");
        assert!(e.to_string().ends_with("not a regular file"), "{e}");
        if Path::new("/dev/zero").exists() {
            let e = read_text(Path::new("/dev/zero"), 10, "rules file").unwrap_err();
            assert!(matches!(e, FileError::NotAFile(_)), "{e}");
        }
        let file = dir.join("f.txt");
        std::fs::write(&file, "0123456789ab").unwrap();
        let e = read_text(&file, 10, "rules file").unwrap_err();
        assert!(
            e.to_string()
                .ends_with("12 bytes, more than a rules file's 10"),
            "{e}"
        );
        assert_eq!(read_text(&file, 12, "rules file").unwrap(), "0123456789ab");
        let e = read_text(&dir.join("missing"), 10, "rules file").unwrap_err();
        assert!(matches!(e, FileError::Io { .. }), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
