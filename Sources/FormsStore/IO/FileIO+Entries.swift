import Foundation

/// What is at a path, asked without opening it (lstat and stat).
extension FileIO {
  /// The kind of thing at `path`, without following a final symbolic link.
  package enum Entry: Equatable { case file, directory, symlink, other, missing }

  /// What is at `path` (lstat).
  package static func entry(_ path: FilePath) -> Entry {
    var info = stat()
    guard lstat(path.string, &info) == 0 else { return .missing }
    switch info.st_mode & S_IFMT {
    case S_IFREG: return .file
    case S_IFDIR: return .directory
    case S_IFLNK: return .symlink
    default: return .other
    }
  }

  /// What a file of `mode` is, for a message: `a FIFO`, `a directory`...
  static func describe(mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFDIR: return "a directory"
    case S_IFLNK: return "a symbolic link"
    case S_IFIFO: return "a FIFO"
    case S_IFCHR, S_IFBLK: return "a device"
    case S_IFSOCK: return "a socket"
    default: return "not a regular file"
    }
  }

  /// What is at `path`, for a message (lstat): `a symbolic link`, `a FIFO`...
  package static func describe(_ path: FilePath) -> String {
    var info = stat()
    guard lstat(path.string, &info) == 0 else { return "missing" }
    return describe(mode: info.st_mode)
  }

  /// True when `path` exists and is a directory (following symbolic links).
  package static func isDirectory(_ path: FilePath) -> Bool {
    var info = stat()
    return stat(path.string, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
  }

  /// True when something exists at `path` (following symbolic links).
  package static func exists(_ path: FilePath) -> Bool {
    var info = stat()
    return stat(path.string, &info) == 0
  }
}
