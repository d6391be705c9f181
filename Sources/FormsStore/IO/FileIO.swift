import Foundation

/// Plain POSIX file access: measured 10x faster than `FileManager` over 100,000 files.
package enum FileIO {
  /// The largest document formsctl reads.
  package static let maxFileSize = 64 << 20

  /// The whole file, refused beyond `limit` bytes. Only a regular file is read: the open never
  /// blocks (a FIFO or device in a checkout would hang it) and anything else is refused.
  /// `followLinks: false` refuses a symbolic link too (documents and formsctl's own files).
  /// With `directory`, a path inside it is opened relative to its open descriptor, so the kernel
  /// resolves one name per file rather than the whole path (reading a hundred thousand files).
  ///
  /// With `toEnd`, it reads on past the size `fstat` gave until the end of the file (a file in
  /// `/proc` says it is empty; one being appended to grows), still refused beyond `limit`.
  package static func read(
    _ path: FilePath, limit: Int = maxFileSize, followLinks: Bool = true, in directory: Directory? = nil,
    toEnd: Bool = false
  )
    throws(StoreError) -> [UInt8]
  {
    let fd = try openForReading(path, followLinks: followLinks, in: directory)
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw StoreError.io(path.string, operation: "stat", errno: Errno(errno)) }
    guard info.st_mode & S_IFMT == S_IFREG else {
      throw StoreError.wrongFileType(path.string, found: describe(mode: info.st_mode), expected: "a regular file")
    }
    let size = Int(info.st_size)
    guard size <= limit else { throw StoreError.fileTooLarge(path.string, size: size, limit: limit) }
    var bytes = [UInt8](repeating: 0, count: size)
    var total = 0
    while total < size {
      let n = bytes.withUnsafeMutableBytes {
        POSIX.read(fd, $0.baseAddress.map { $0 + total }, size - total, path: path)
      }
      if n < 0 {
        if errno == EINTR { continue }
        throw StoreError.io(path.string, operation: "read", errno: Errno(errno))
      }
      if n == 0 { break }
      total += n
    }
    if total < size { bytes.removeLast(size - total) }
    guard toEnd, total == size else { return bytes }
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = chunk.withUnsafeMutableBytes { POSIX.read(fd, $0.baseAddress, $0.count, path: path) }
      if n < 0 {
        if errno == EINTR { continue }
        throw StoreError.io(path.string, operation: "read", errno: Errno(errno))
      }
      if n == 0 { return bytes }
      bytes += chunk[..<n]
      if bytes.count > limit { throw StoreError.fileTooLarge(path.string, size: bytes.count, limit: limit) }
    }
  }

  /// A file a directory listing just named as a regular file (a bulk scan such as `list`), read
  /// without asking `fstat` first: in 16 KiB reads through a buffer on the stack, until a short
  /// read, which for a regular file is its end. Should something else have taken the name since,
  /// the open still never blocks and what it reads fails to parse. Refused beyond `maxFileSize`.
  package static func readListed(_ path: FilePath, in directory: Directory) throws(StoreError) -> [UInt8] {
    let fd = try openForReading(path, followLinks: true, in: directory)
    defer { close(fd) }
    let chunk = 16 << 10
    var bytes: [UInt8] = []
    while true {
      let (got, failure) = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: chunk) { buffer -> (Int, Int32) in
        let n = POSIX.read(fd, buffer.baseAddress, chunk, path: path)
        if n > 0 { bytes.append(contentsOf: buffer[0..<n]) }
        return (n, n < 0 ? errno : 0)
      }
      if got < 0 {
        if failure == EINTR { continue }
        throw StoreError.io(path.string, operation: "read", errno: Errno(failure))
      }
      guard bytes.count <= maxFileSize else {
        throw StoreError.fileTooLarge(path.string, size: bytes.count, limit: maxFileSize)
      }
      if got < chunk { return bytes }
    }
  }

  /// Opens a file to read it without ever blocking (a FIFO in a checkout would hang a plain open),
  /// relative to `directory` when it is below it.
  private static func openForReading(_ path: FilePath, followLinks: Bool, in directory: Directory?)
    throws(StoreError) -> Int32
  {
    let flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followLinks ? 0 : O_NOFOLLOW)
    let fd = directory?.open(path, flags) ?? POSIX.open(path, flags)
    guard fd >= 0 else {
      if errno == ENOENT { throw StoreError.fileNotFound(path.string) }
      if errno == ELOOP && !followLinks {
        throw StoreError.wrongFileType(path.string, found: "a symbolic link", expected: "a regular file")
      }
      throw StoreError.io(path.string, operation: "open", errno: Errno(errno))
    }
    return fd
  }

  /// An open directory that reads of the files below it resolve from (`read(_:in:)`).
  package final class Directory: Sendable {
    package let path: FilePath
    let fd: Int32

    /// Opens `path`; nil when it cannot be opened (reads then open each path whole).
    package init?(_ path: FilePath) {
      fd = Foundation.open(path.string, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      guard fd >= 0 else { return nil }
      self.path = path
    }

    deinit { close(fd) }

    /// Runs `body` with `path` relative to this directory, as a C string pointing into `path`'s own
    /// bytes (nothing copied), or with nil when `path` is not below it.
    func relative<T>(_ path: FilePath, _ body: (UnsafePointer<CChar>?) -> T) -> T {
      let prefix = self.path.string.utf8.count
      return path.string.withCString { full in
        self.path.string.withCString { directory in
          let below =
            path.string.utf8.count > prefix + 1 && full[prefix] == CChar(UInt8(ascii: "/"))
            && memcmp(full, directory, prefix) == 0
          return body(below ? full + prefix + 1 : nil)
        }
      }
    }

    /// Opens `path` by its name in this directory when it is below it, else whole.
    func open(_ path: FilePath, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
      relative(path) { name in
        name.map { POSIX.openat(fd, $0, flags, mode, path: path) } ?? POSIX.open(path, flags, mode)
      }
    }

    /// True when `path` is below this directory.
    func contains(_ path: FilePath) -> Bool { relative(path) { $0 != nil } }
  }

  /// Every regular file under `directory` whose name ends with `suffix`, sorted, recursing into
  /// subdirectories except hidden ones (`.git`, `.formsctl`, `.build`) and those in `skipping`.
  package static func files(under directory: FilePath, suffix: String, skipping: Set<String> = []) throws(StoreError)
    -> [String]
  {
    try walk(directory, suffix: suffix, skipping: skipping).files
  }

  /// `files(under:)`, and apart, what formsctl never opens there, only reports: the names ending
  /// with `suffix` that are not regular files (symbolic links, FIFOs, devices, directories named
  /// `*.json`) and symbolic links to directories, whatever their names (a walk follows no link).
  /// Sorted by path.
  /// `directory` itself may be a link only with `followingTop` (a directory the manifest names).
  package static func walk(
    _ directory: FilePath, suffix: String, skipping: Set<String> = [], followingTop: Bool = false
  )
    throws(StoreError) -> (files: [String], irregular: [String])
  {
    var files: [String] = []
    var irregular: [String] = []
    try walk(
      directory, below: nil, suffix: suffix, skipping: skipping, following: followingTop, into: &files,
      irregular: &irregular)
    return (files.sorted(), irregular.sorted())
  }

  /// `walk` (unsorted), each file named relative to `directory` (`NAME`, or `SUB/NAME` below
  /// it): no path is built per file. The irregular names are paths, as `walk` gives them.
  package static func walkNames(_ directory: FilePath, suffix: String) throws(StoreError) -> (
    names: [String], irregular: [String]
  ) {
    var names: [String] = []
    var irregular: [String] = []
    try walk(
      directory, below: "", suffix: suffix, skipping: [], following: false, into: &names, irregular: &irregular)
    return (names, irregular)
  }

  /// `below`: nil to give each file's path, else the path of `directory` relative to the walk's
  /// top, to give names relative to it.
  private static func walk(
    _ directory: FilePath, below: String?, suffix: String, skipping: Set<String>, following: Bool,
    into out: inout [String], irregular: inout [String]
  ) throws(StoreError) {
    var subdirectories: [(path: FilePath, below: String?)] = []
    func path(_ name: String) -> FilePath { directory / name }
    for (name, kind) in try entries(of: directory, followingLink: following) where !name.hasPrefix(".") {
      let relative = below.map { (FilePath($0) / name).string }
      switch kind {
      case .directory where !suffix.isEmpty && name.hasSuffix(suffix): irregular.append(path(name).string)
      case .directory: if !skipping.contains(name) { subdirectories.append((path(name), relative)) }
      case .file: if name.hasSuffix(suffix) { out.append(relative ?? path(name).string) }
      case .symlink where isDirectory(path(name)): if !skipping.contains(name) { irregular.append(path(name).string) }
      default: if name.hasSuffix(suffix) { irregular.append(path(name).string) }
      }
    }
    for sub in subdirectories {
      try walk(
        sub.path, below: sub.below, suffix: suffix, skipping: skipping, following: false, into: &out,
        irregular: &irregular)
    }
  }

  /// What `walk` finds (files and irregular names together), given to `body` up to `size` paths
  /// at a time in the order a walk of sorted directories meets them (each directory's names by
  /// their bytes, a subdirectory where its name falls): only one directory's names are held.
  package static func walkBatches(
    _ directory: FilePath, suffix: String, size: Int, _ body: ([String]) throws(StoreError) -> Void
  ) throws(StoreError) {
    var batch: [String] = []
    try walkSorted(directory, suffix: suffix) { path throws(StoreError) in
      batch.append(path)
      if batch.count >= size {
        try body(batch)
        batch.removeAll(keepingCapacity: true)
      }
    }
    if !batch.isEmpty { try body(batch) }
  }

  /// How many paths `walkBatches` gives.
  package static func countFiles(under directory: FilePath, suffix: String) throws(StoreError) -> Int {
    var count = 0
    try walkSorted(directory, suffix: suffix) { _ in count += 1 }
    return count
  }

  private static func walkSorted(
    _ directory: FilePath, suffix: String, _ visit: (String) throws(StoreError) -> Void
  ) throws(StoreError) {
    for (name, kind) in try sortedEntries(of: directory) {
      let path = directory / name
      switch kind {
      case .directory where !suffix.isEmpty && name.hasSuffix(suffix): try visit(path.string)
      case .directory: try walkSorted(path, suffix: suffix, visit)
      case .file: if name.hasSuffix(suffix) { try visit(path.string) }
      case .symlink where isDirectory(path): try visit(path.string)
      default: if name.hasSuffix(suffix) { try visit(path.string) }
      }
    }
  }

  /// The names in `directory` that are not hidden, in the order it lists them, and what each is.
  package static func visibleEntries(of directory: FilePath) throws(StoreError) -> [(name: String, kind: Entry)] {
    try entries(of: directory).filter { !$0.name.hasPrefix(".") }
  }

  /// A directory's entries but hidden ones, in the order a walk of sorted directories meets them.
  package static func sortedEntries(of directory: FilePath) throws(StoreError) -> [(name: String, kind: Entry)] {
    let listed = try visibleEntries(of: directory)
    // One directory's names hold no `/`, so that order is their bytes' order; for ASCII names it
    // is also String's own, which is several times faster than comparing the bytes here.
    guard listed.allSatisfy({ $0.name.utf8.allSatisfy { $0 < 0x80 } }) else {
      return listed.sorted { walkOrder($0.name, $1.name) }
    }
    return listed.sorted { $0.name < $1.name }
  }

  /// The order of paths a walk of sorted directories meets: component by component, each
  /// compared by its bytes (so `a/b` comes before `a-c`).
  package static func walkOrder(_ a: String, _ b: String) -> Bool {
    var a = a
    var b = b
    return a.withUTF8 { a in b.withUTF8 { b in walkOrder(a, b) } }
  }

  package static func walkOrder(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    let common = min(a.count, b.count)
    var k = 0
    while k < common && a[k] == b[k] { k += 1 }
    guard k < common else { return a.count < b.count }
    // A component that ends first comes first: `/` sorts before every other byte.
    let slash = UInt8(ascii: "/")
    return (a[k] == slash ? 0 : Int(a[k]) + 1) < (b[k] == slash ? 0 : Int(b[k]) + 1)
  }

  /// The names in a directory (without `.` and `..`) and what each is, with one `readdir` pass.
  /// A directory that does not exist has none; one that cannot be read is an error naming it,
  /// never "nothing there" (docs/design.md §8). `directory` is not followed when it is a symbolic link
  /// (an error saying so), unless `followingLink`. A name that is not valid UTF-8 is an error
  /// naming it: formsctl could not name that file again to read, copy or remove it.
  package static func entries(of directory: FilePath, followingLink: Bool = false) throws(StoreError) -> [(
    name: String, kind: Entry
  )] {
    let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followingLink ? 0 : O_NOFOLLOW)
    let fd = POSIX.openDirectory(directory, flags)
    guard fd >= 0, let dir = fdopendir(fd) else {
      let failure = errno
      if fd >= 0 { close(fd) }
      if failure == ENOENT { return [] }
      if failure == ELOOP || failure == ENOTDIR, entry(directory) != .directory {
        throw StoreError.wrongFileType(directory.string, found: describe(directory), expected: "a directory")
      }
      throw StoreError.io(directory.string, operation: "list", errno: Errno(failure))
    }
    defer { closedir(dir) }
    var out: [(String, Entry)] = []
    while true {
      errno = 0
      guard let entry = readdir(dir) else {
        if errno != 0 { throw StoreError.io(directory.string, operation: "list", errno: Errno(errno)) }
        break
      }
      let name = try withUnsafeBytes(of: entry.pointee.d_name) { (raw) throws(StoreError) -> String in
        // `d_name` is a fixed array, never empty, so its bytes have an address.
        guard let bytes = raw.baseAddress?.assumingMemoryBound(to: CChar.self) else {
          throw StoreError.internalError("readdir gave an entry without a name in \(directory)")
        }
        guard let name = String(validatingCString: bytes) else {
          throw StoreError.badFileName(directory.string, escaped: escapedFileName(bytes))
        }
        return name
      }
      if name == "." || name == ".." { continue }
      let kind: Entry
      switch Int32(entry.pointee.d_type) {
      case Int32(DT_REG): kind = .file
      case Int32(DT_DIR): kind = .directory
      case Int32(DT_LNK): kind = .symlink
      case Int32(DT_UNKNOWN): kind = FileIO.entry(directory / name)
      default: kind = .other
      }
      out.append((name, kind))
    }
    return out
  }

  /// A file name's bytes as text, each byte that is not part of valid UTF-8 as `\xNN`.
  static func escapedFileName(_ bytes: UnsafePointer<CChar>) -> String {
    let raw = Array(UnsafeBufferPointer(start: bytes, count: strlen(bytes))).map { UInt8(bitPattern: $0) }
    var out = ""
    var index = 0
    while index < raw.count {
      // The longest valid UTF-8 sequence starting here, or one byte escaped.
      var decoded: String?
      for length in (1...min(4, raw.count - index)).reversed() {
        if let text = String(validating: raw[index..<(index + length)], as: UTF8.self) {
          decoded = text
          index += length
          break
        }
      }
      if let decoded {
        out += decoded
      } else {
        out += String(format: "\\x%02X", raw[index])
        index += 1
      }
    }
    return out
  }

  /// Refuses a directory to write into when it, or a directory between `base` and it, is a
  /// symbolic link (lstat; what does not exist yet is made by formsctl and is no link). Outside
  /// `base`, only `directory` itself is checked: the parents of a path a person names are theirs.
  package static func refuseLinks(_ directory: FilePath, below base: FilePath) throws(StoreError) {
    var path = directory.normalized
    let top = base.normalized
    let inside = top.relative(path) != nil
    while path != top && path.string != "/" {
      if entry(path) == .symlink {
        throw StoreError.wrongFileType(path.string, found: "a symbolic link", expected: "a directory")
      }
      guard inside else { return }
      path = path.parent
    }
  }

  /// The absolute, symlink-free form of an existing path.
  package static func realPath(_ path: FilePath) -> FilePath? {
    guard let resolved = realpath(path.string, nil) else { return nil }
    defer { free(resolved) }
    return FilePath(String(cString: resolved))
  }

  /// The current working directory.
  package static var currentDirectory: String {
    guard let cwd = getcwd(nil, 0) else { return "." }
    defer { free(cwd) }
    return String(cString: cwd)
  }

  /// Creates a directory and its missing parents.
  package static func makeDirectories(_ path: FilePath, mode: mode_t = 0o755) throws(StoreError) {
    if isDirectory(path) { return }
    let parent = path.parent
    if parent != path && !parent.string.isEmpty { try makeDirectories(parent, mode: mode) }
    if POSIX.mkdir(path, mode) != 0 && errno != EEXIST {
      throw StoreError.io(path.string, operation: "mkdir", errno: Errno(errno))
    }
  }

  /// Makes `paths` (files and directories) durable. With `root`, where Linux offers `syncfs`, one
  /// call for the whole file system holding it (cheaper than many fsyncs, and `paths` is never
  /// computed); otherwise each path is fsynced (`Platform.fsync`: F_FULLFSYNC on Darwin), after
  /// the write-back of every file was started (`Platform.startWriteback`), so that on a journaling
  /// file system the first fsync commits them all.
  static func sync(_ paths: @autoclosure () throws(StoreError) -> [FilePath], orFileSystemOf root: FilePath? = nil)
    throws(StoreError)
  {
    if let root, let syncfs = Platform.syncfs {
      let fd = POSIX.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      guard fd >= 0 else { throw StoreError.io(root.string, operation: "open", errno: Errno(errno)) }
      defer { close(fd) }
      if POSIX.syncfs(syncfs, fd, path: root) != 0 {
        throw StoreError.io(root.string, operation: "syncfs", errno: Errno(errno))
      }
      return
    }
    let paths = try paths()
    func opened(_ path: FilePath, _ body: (Int32) throws(StoreError) -> Void) throws(StoreError) {
      let fd = POSIX.open(path, O_RDONLY | O_CLOEXEC)
      guard fd >= 0 else { throw StoreError.io(path.string, operation: "open", errno: Errno(errno)) }
      defer { close(fd) }
      try body(fd)
    }
    // Files and directories alike (Linux refuses only pipes and sockets, which are never synced).
    if paths.count > 1, Platform.startWriteback != nil {
      for path in paths {
        try opened(path) { fd throws(StoreError) in
          if POSIX.startWriteback(fd, path: path) != 0 {
            throw StoreError.io(path.string, operation: "sync_file_range", errno: Errno(errno))
          }
        }
      }
    }
    for path in paths {
      try opened(path) { fd throws(StoreError) in
        // Some file systems refuse to fsync a directory (EINVAL); their entries are durable already.
        // A file they refuse is an error.
        guard POSIX.fsync(fd, path: path) != 0 else { return }
        let failure = errno
        if !(failure == EINVAL && isDirectory(path)) {
          throw StoreError.io(path.string, operation: "fsync", errno: Errno(failure))
        }
      }
    }
  }

  /// `directory`, and every file and directory below it (hidden ones too), not following links.
  static func tree(_ directory: FilePath) throws(StoreError) -> [FilePath] {
    var out = [directory]
    for (name, kind) in try entries(of: directory) {
      let path = directory / name
      switch kind {
      case .directory: out += try tree(path)
      case .file: out.append(path)
      default: continue
      }
    }
    return out
  }

  /// Removes a file; a missing file is not an error.
  package static func remove(_ path: FilePath) throws(StoreError) {
    if POSIX.unlink(path) != 0 && errno != ENOENT {
      throw StoreError.io(path.string, operation: "unlink", errno: Errno(errno))
    }
  }
}
