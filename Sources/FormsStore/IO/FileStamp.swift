import Foundation

/// What `stat` says about a file, for deciding "unchanged" without reading it. The ctime is the
/// part nobody can set: an edit that restores the mtime (`cp -p`, `touch -r`) still changes it.
package struct FileStamp: Equatable, Sendable {
  package let size: Int
  package let mtimeNanoseconds: Int64
  package let ctimeNanoseconds: Int64
  package let inode: UInt64

  /// With `directory`, a path below it is looked up from its open descriptor (one name, not the whole path).
  package init?(_ path: FilePath, in directory: FileIO.Directory? = nil) {
    var info = stat()
    let found =
      directory.map { directory in
        directory.relative(path) { name in
          name.map { fstatat(directory.fd, $0, &info, 0) } ?? stat(path.string, &info)
        }
      }
      ?? stat(path.string, &info)
    guard found == 0 else { return nil }
    self.init(info)
  }

  /// True when the file was last changed (mtime and ctime) more than `racyWindow` nanoseconds
  /// before `at`, when this stamp was taken or vouched for (git's racily-clean rule): a later
  /// change gives it another stamp even where the clock that dates files is coarse.
  package func isSettled(at: Int64, racyWindow: Int64) -> Bool {
    mtimeNanoseconds < at - racyWindow && ctimeNanoseconds < at - racyWindow
  }

  /// `path` itself when it is a symbolic link (`lstat`), not what it points at.
  package init?(notFollowing path: FilePath) {
    var info = stat()
    guard lstat(path.string, &info) == 0 else { return nil }
    self.init(info)
  }

  /// The file `name` (relative, `NAME` or `SUB/NAME`) in `directory`.
  init?(name: String, in directory: FileIO.Directory) {
    var info = stat()
    guard fstatat(directory.fd, name, &info, 0) == 0 else { return nil }
    self.init(info)
  }

  /// What `name` (relative) in `directory` is, not following a link: nothing, a regular file
  /// (with its stamp), or something else.
  enum Found {
    case missing
    case file(FileStamp)
    case other
  }

  static func lookUp(_ name: String, in directory: FileIO.Directory) -> Found {
    var info = stat()
    guard fstatat(directory.fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
      return errno == ENOENT || errno == ENOTDIR ? .missing : .other
    }
    return info.st_mode & S_IFMT == S_IFREG ? .file(FileStamp(info)) : .other
  }

  private init(_ info: stat) {
    size = Int(info.st_size)
    (mtimeNanoseconds, ctimeNanoseconds) = Platform.times(info)
    inode = UInt64(info.st_ino)
  }

  init(size: Int, mtimeNanoseconds: Int64, ctimeNanoseconds: Int64, inode: UInt64) {
    self.size = size
    self.mtimeNanoseconds = mtimeNanoseconds
    self.ctimeNanoseconds = ctimeNanoseconds
    self.inode = inode
  }
}
